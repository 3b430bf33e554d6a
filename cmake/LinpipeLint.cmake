# The linearity check in a build: clang-tidy-22 with the linpipe plugin runs on a target's
# sources (C++ and clang CUDA, device and host side) as they compile; findings are printed as
# `file:line:col: warning: ... [linpipe-...]`.
#
#   linpipe_enable_linearity_check(<target> [WARNINGS_AS_ERRORS])
#       WARNINGS_AS_ERRORS turns findings into errors that stop the build (a CI gate).
#
# Inputs: LINPIPE_TIDY_COMMAND (the linpipe-tidy tool), LINPIPE_TIDY_PLUGIN (the plugin),
# LINPIPE_MODULE_SOURCE_DIR; set by the package config or by linpipe's own build.
include_guard(GLOBAL)

find_program(LINPIPE_CLANG_TIDY clang-tidy-22)
find_package(Python3 COMPONENTS Interpreter)

function(linpipe_enable_linearity_check target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "WARNINGS_AS_ERRORS" "" "")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "linpipe_enable_linearity_check: unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "linpipe_enable_linearity_check: ${target} is not a target")
  endif()
  if(NOT LINPIPE_CLANG_TIDY OR NOT Python3_FOUND)
    message(FATAL_ERROR "linpipe_enable_linearity_check(${target}): needs clang-tidy-22 and python3")
  endif()
  set(command "${Python3_EXECUTABLE}" "${LINPIPE_TIDY_COMMAND}" "--plugin=${LINPIPE_TIDY_PLUGIN}"
              "--module-dir=${LINPIPE_MODULE_SOURCE_DIR}" "--clang-tidy=${LINPIPE_CLANG_TIDY}")
  if(arg_WARNINGS_AS_ERRORS)
    list(APPEND command --werror)
  endif()
  set_target_properties(${target} PROPERTIES CXX_CLANG_TIDY "${command}")
  if(TARGET linpipe_tidy)  # linpipe's own build: the plugin must exist before the first lint
    # Through a utility target: a direct library dependency only orders compiles after the
    # plugin's objects, not after the plugin is linked.
    if(NOT TARGET linpipe_tidy_ready)
      add_custom_target(linpipe_tidy_ready)
      add_dependencies(linpipe_tidy_ready linpipe_tidy)
    endif()
    add_dependencies(${target} linpipe_tidy_ready)
  endif()
endfunction()

# linpipe's own build: every C++ target under `dirs`, findings as errors.
function(_linpipe_lint_all_targets)
  foreach(dir IN LISTS ARGN)
    get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target IN LISTS targets)
      get_target_property(type ${target} TYPE)
      if(type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|OBJECT_LIBRARY)$")
        linpipe_enable_linearity_check(${target} WARNINGS_AS_ERRORS)
      endif()
    endforeach()
    get_property(children DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
    if(children)
      _linpipe_lint_all_targets(${children})
    endif()
  endforeach()
endfunction()
