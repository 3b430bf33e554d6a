# A user deletes a checkout and clones another of the same linpipe version elsewhere: the
# module interfaces linpipe-tidy cached for the first name its (now deleted) sources, so the
# second must get its own, not the first's. Copies MODULE_DIR to a first place, runs
# `linpipe-tidy FILE` on a lone copy of SOURCE with a fresh cache, deletes the copy, copies it
# to a second place and runs again: both runs must report EXPECT.
set(scratch "$ENV{TMPDIR}")
if(NOT scratch)
  set(scratch /tmp)
endif()
string(RANDOM LENGTH 8 suffix)
set(dir "${scratch}/linpipe-moved-${suffix}")
file(MAKE_DIRECTORY "${dir}/lone")
file(COPY "${SOURCE}" DESTINATION "${dir}/lone")
get_filename_component(name "${SOURCE}" NAME)
foreach(checkout IN ITEMS first second)
  file(COPY "${MODULE_DIR}/" DESTINATION "${dir}/${checkout}/modules")
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env "XDG_CACHE_HOME=${dir}/cache"
                          "${PYTHON}" "${TIDY}" "--plugin=${PLUGIN}" "--module-dir=${dir}/${checkout}/modules"
                          "${dir}/lone/${name}"
    RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  file(REMOVE_RECURSE "${dir}/${checkout}")
  if(NOT output MATCHES "${EXPECT}")
    file(REMOVE_RECURSE "${dir}")
    message(FATAL_ERROR "linpipe-tidy from the ${checkout} checkout did not report (${EXPECT}):\n${output}")
  endif()
endforeach()
file(REMOVE_RECURSE "${dir}")
message(STATUS "linpipe-tidy's module cache outlived a deleted checkout")
