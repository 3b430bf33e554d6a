# Copies SOURCE into a fresh folder outside every build and source tree (so no
# compile_commands.json lies above it), runs `linpipe-tidy [OPTIONS] FILE [TAIL]` with no
# database, and passes only if the output has EXPECT and not FORBID (and, with no TAIL, says
# which flags it chose). OPTIONS and TAIL are ;-lists (TAIL: `--` and compiler arguments).
set(scratch "$ENV{TMPDIR}")
if(NOT scratch)
  set(scratch /tmp)
endif()
string(RANDOM LENGTH 8 suffix)
set(dir "${scratch}/linpipe-lone-${suffix}")
file(MAKE_DIRECTORY "${dir}")
get_filename_component(name "${SOURCE}" NAME)
file(COPY "${SOURCE}" DESTINATION "${dir}")
string(REPLACE "," ";" options "${OPTIONS}")
string(REPLACE "," ";" tail "${TAIL}")
execute_process(COMMAND "${PYTHON}" "${TIDY}" "--plugin=${PLUGIN}" "--module-dir=${MODULE_DIR}"
                        ${options} "${dir}/${name}" ${tail}
  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
file(REMOVE_RECURSE "${dir}")
if(NOT output MATCHES "${EXPECT}")
  message(FATAL_ERROR "linpipe-tidy on a lone file did not report (${EXPECT}):\n${output}")
endif()
if(FORBID AND output MATCHES "${FORBID}")
  message(FATAL_ERROR "linpipe-tidy on a lone file printed what it must not (${FORBID}):\n${output}")
endif()
if(NOT tail AND NOT output MATCHES "no compile_commands.json for")
  message(FATAL_ERROR "linpipe-tidy did not say which flags it chose for a lone file:\n${output}")
endif()
message(STATUS "linpipe-tidy found the bug in a lone file")
