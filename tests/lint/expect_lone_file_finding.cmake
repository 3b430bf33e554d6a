# Copies SOURCE into a fresh folder outside every build and source tree (so no
# compile_commands.json lies above it), runs `linpipe-tidy FILE` with no database and no `--`,
# and passes only if the output has EXPECT (and says which flags it chose).
set(scratch "$ENV{TMPDIR}")
if(NOT scratch)
  set(scratch /tmp)
endif()
string(RANDOM LENGTH 8 suffix)
set(dir "${scratch}/linpipe-lone-${suffix}")
file(MAKE_DIRECTORY "${dir}")
get_filename_component(name "${SOURCE}" NAME)
file(COPY "${SOURCE}" DESTINATION "${dir}")
execute_process(COMMAND "${PYTHON}" "${TIDY}" "--plugin=${PLUGIN}" "--module-dir=${MODULE_DIR}"
                        "${dir}/${name}"
  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
file(REMOVE_RECURSE "${dir}")
if(NOT output MATCHES "${EXPECT}")
  message(FATAL_ERROR "linpipe-tidy on a lone file did not report (${EXPECT}):\n${output}")
endif()
if(NOT output MATCHES "no compile_commands.json for")
  message(FATAL_ERROR "linpipe-tidy did not say which flags it chose for a lone file:\n${output}")
endif()
message(STATUS "linpipe-tidy found the bug in a lone file")
