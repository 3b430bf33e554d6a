# One CUDA module interface (BMI) of linpipe, built into a folder that build trees with the same
# compiler, toolkit and flags share (LinpipeCuda.cmake, LINPIPE_BMI_CACHE):
#
#   cmake -DOUT=<pcm> -DINPUTS=<file|file|...> -P LinpipeBmiStep.cmake -- <compiler> <args...>
#
# The compiler runs only if OUT is missing or older than one of INPUTS (the unit's source, the
# headers it includes, the interfaces it imports): ninja, which has no record of a BMI another
# tree built, asks for it, and this answers at once. A lock per BMI lets one tree build it while
# another waits, and the compiler writes a temporary file renamed into place, so no tree ever
# reads half a BMI.
cmake_minimum_required(VERSION 3.28)

set(command "")
set(seen_separator FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE 1 ${last})
  if(seen_separator)
    list(APPEND command "${CMAKE_ARGV${i}}")
  elseif(CMAKE_ARGV${i} STREQUAL "--")
    set(seen_separator TRUE)
  endif()
endforeach()
if(NOT OUT OR NOT command)
  message(FATAL_ERROR "usage: cmake -DOUT=<pcm> -DINPUTS=<file|file|...> -P LinpipeBmiStep.cmake -- <compiler> <args>")
endif()

string(REPLACE "|" ";" INPUTS "${INPUTS}")

function(_linpipe_bmi_fresh out result)
  set(fresh FALSE)
  if(EXISTS "${out}")
    set(fresh TRUE)
    foreach(input IN LISTS INPUTS)
      if(NOT EXISTS "${input}" OR "${input}" IS_NEWER_THAN "${out}")
        set(fresh FALSE)
        break()
      endif()
    endforeach()
  endif()
  set(${result} ${fresh} PARENT_SCOPE)
endfunction()

get_filename_component(dir "${OUT}" DIRECTORY)
file(MAKE_DIRECTORY "${dir}")
file(LOCK "${OUT}.lock" GUARD PROCESS TIMEOUT 1200 RESULT_VARIABLE locked)
if(NOT locked STREQUAL "0")
  message(FATAL_ERROR "linpipe: cannot lock ${OUT}.lock: ${locked}")
endif()
_linpipe_bmi_fresh("${OUT}" fresh)
if(fresh)
  return()
endif()
string(RANDOM LENGTH 12 tag)
set(partial "${OUT}.${tag}.partial")
execute_process(COMMAND ${command} -o "${partial}" RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  file(REMOVE "${partial}")
  message(FATAL_ERROR "linpipe: building ${OUT} failed (${status})")
endif()
file(RENAME "${partial}" "${OUT}")
