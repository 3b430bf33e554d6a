# ctest entries downstream-*: a user's project against this build, installed into a fresh
# prefix. PART says which entry this is (they run side by side after `install`):
#   install  install the build into WORK_DIR/prefix (the fixture the others need)
#   build    configure, build and run the downstream project, as a user would
#   errors   wrong set-ups stop the configure step with a sentence naming what to fix
#   tidy     the installed linpipe-tidy on lone files
foreach(var PART SOURCE_DIR BINARY_DIR WORK_DIR CXX MAKE_PROGRAM CUDA_TOOLKIT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_downstream.cmake: -D${var}=... is required")
  endif()
endforeach()
set(prefix "${WORK_DIR}/prefix")
if(PART STREQUAL "install")
  file(REMOVE_RECURSE "${WORK_DIR}")
  execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BINARY_DIR}" --prefix "${prefix}"
    OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
  return()
endif()

if(PART STREQUAL "build")
  # The project's CUDA module interfaces go to a cache of this test's own, seeded with a folder
  # no tree has configured for 40 days: the configure step must remove it.
  set(bmi_cache "${WORK_DIR}/bmi-cache")
  file(REMOVE_RECURSE "${WORK_DIR}/build" "${WORK_DIR}/build2" "${bmi_cache}")
  file(MAKE_DIRECTORY "${bmi_cache}/cuda-host-stale")
  file(TOUCH "${bmi_cache}/cuda-host-stale/.configured")
  execute_process(COMMAND touch -d "40 days ago" "${bmi_cache}/cuda-host-stale/.configured"
    COMMAND_ERROR_IS_FATAL ANY)
  set(configure_args -G Ninja -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${prefix}"
    "-DLINPIPE_CUDA_PATH=${CUDA_TOOLKIT}"  # the toolkit given by the variable (empty: none)
    "-DLINPIPE_BMI_CACHE=${bmi_cache}"
    "-DDOWNSTREAM_README_KERNEL=${SOURCE_DIR}/tests/gpu/readme_kernel_test.cu"
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)   # read below: each target's arch
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}/tests/downstream"
    -B "${WORK_DIR}/build" ${configure_args} COMMAND_ERROR_IS_FATAL ANY)
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${WORK_DIR}/build" COMMAND_ERROR_IS_FATAL ANY)
  execute_process(COMMAND "${WORK_DIR}/build/downstream_app" COMMAND_ERROR_IS_FATAL ANY)
  execute_process(COMMAND "${WORK_DIR}/build/downstream_wconsumed_off" COMMAND_ERROR_IS_FATAL ANY)
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${WORK_DIR}/build" --target downstream_wconsumed_default
    RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(result EQUAL 0 OR
     NOT output MATCHES "method '~ConsumerStage' on a temporary object.*-Werror,-Wconsumed" OR
     NOT output MATCHES "state of variable 'lag' must match.*-Werror,-Wconsumed")
    message(FATAL_ERROR "without LINPIPE_CONSUMED_AS_ERROR OFF, -Werror=consumed should still stop "
                        "wconsumed_limits.cpp (both shapes) despite the target's -Wno-consumed:\n${output}")
  endif()
  if(WITH_CUDA)
    foreach(app downstream_cuda_app downstream_cuda_sm90)
      if(NOT EXISTS "${WORK_DIR}/build/${app}")
        message(FATAL_ERROR "the CUDA flavour was available but ${app} was not built")
      endif()
      execute_process(COMMAND "${WORK_DIR}/build/${app}" COMMAND_ERROR_IS_FATAL ANY)
    endforeach()
    # Each target was compiled for its own arch, and only for it.
    file(READ "${WORK_DIR}/build/compile_commands.json" commands)
    string(REGEX MATCH "[^\n]*downstream_cuda_app\\.dir[^\n]*kernel\\.cu[^\n]*" default_line "${commands}")
    string(REGEX MATCH "[^\n]*downstream_cuda_sm90\\.dir[^\n]*kernel\\.cu[^\n]*" sm90_line "${commands}")
    if(NOT default_line MATCHES "--cuda-gpu-arch=sm_90a" OR NOT sm90_line MATCHES "--cuda-gpu-arch=sm_90 "
       OR sm90_line MATCHES "sm_90a")
      message(FATAL_ERROR "per-target arches not applied:\n${default_line}\n${sm90_line}")
    endif()
    # README's first kernel, built in Release: without linpipe's debug checks (and run, on a GPU).
    execute_process(COMMAND "${WORK_DIR}/build/downstream_readme_kernel"
      RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
    if(NOT result EQUAL 0 OR NOT output MATCHES "debug checks off")
      message(FATAL_ERROR "README's kernel in a Release build (debug checks off) failed:\n${output}")
    endif()
    # The interfaces are in the shared cache, not the tree, and the stale folder is gone.
    file(GLOB_RECURSE shared "${bmi_cache}/*.pcm")
    file(GLOB_RECURSE in_tree "${WORK_DIR}/build/linpipe_bmi/*.pcm")
    if(NOT shared OR in_tree OR EXISTS "${bmi_cache}/cuda-host-stale")
      message(FATAL_ERROR "CUDA BMIs not in the shared cache (${bmi_cache}), or the stale folder "
                          "was kept: shared '${shared}', in the tree '${in_tree}'")
    endif()
    # A second tree with the same flags builds none of them again.
    file(TOUCH "${WORK_DIR}/before-second-tree")
    execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}/tests/downstream"
      -B "${WORK_DIR}/build2" ${configure_args} COMMAND_ERROR_IS_FATAL ANY)
    execute_process(COMMAND "${CMAKE_COMMAND}" --build "${WORK_DIR}/build2" --target downstream_cuda_app
      COMMAND_ERROR_IS_FATAL ANY)
    foreach(pcm IN LISTS shared)
      if("${pcm}" IS_NEWER_THAN "${WORK_DIR}/before-second-tree")
        message(FATAL_ERROR "a second build tree with the same flags rebuilt ${pcm}")
      endif()
    endforeach()
  endif()
elseif(PART STREQUAL "errors")
  # Wrong set-ups stop the configure step with a sentence naming the variable to fix.
  function(expect_configure_failure name expect)
    execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}/tests/downstream"
      -B "${WORK_DIR}/${name}" -G Ninja -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}
      -DCMAKE_CXX_COMPILER=${CXX} "-DCMAKE_PREFIX_PATH=${prefix}" ${ARGN}
      RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
    string(REGEX REPLACE "[ \n]+" " " flat "${output}")
    if(result EQUAL 0 OR NOT flat MATCHES "${expect}")
      message(FATAL_ERROR "configuring with ${ARGN} should fail with \"${expect}\":\n${output}")
    endif()
  endfunction()
  expect_configure_failure(missing-cuda-target "target needs_cuda links linpipe::cuda, which this build does not have: LINPIPE_ENABLE_CUDA is OFF"
                           -DLINPIPE_ENABLE_CUDA=OFF -DDOWNSTREAM_NEEDS_CUDA=ON)
  expect_configure_failure(wrong-toolkit "LINPIPE_CUDA_PATH=/nonexistent/cuda holds no CUDA toolkit"
                           -DLINPIPE_CUDA_PATH=/nonexistent/cuda)
  expect_configure_failure(raw-cu "target raw_cu_app lists [^ ]*raw_kernel.cu, which this project does not compile"
                           -DDOWNSTREAM_RAW_CU=ON)
  if(WITH_CUDA)
    expect_configure_failure(old-arch "target downstream_cuda_app: LINPIPE_CUDA_ARCHITECTURES has 'sm_80'; linpipe's NVIDIA backend needs sm_90 or newer"
                             -DLINPIPE_CUDA_ARCHITECTURES=sm_80)
  endif()
elseif(PART STREQUAL "tidy")
  # The installed command-line tool on a single file, given only plain compiler arguments: it must
  # build the module's interfaces itself (into a private cache) and report the checker's finding.
  set(ENV{XDG_CACHE_HOME} "${WORK_DIR}/cache")
  execute_process(COMMAND "${prefix}/bin/linpipe-tidy" --werror
      "${SOURCE_DIR}/tests/lint/wrong_host.cpp" -- ${CXX} -std=gnu++20
    RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(result EQUAL 0 OR NOT output MATCHES "wrong_host.cpp:[0-9]+:[0-9]+: error: 'stage' escapes")
    message(FATAL_ERROR "installed linpipe-tidy did not reject tests/lint/wrong_host.cpp:\n${output}")
  endif()
  execute_process(COMMAND "${prefix}/bin/linpipe-tidy" --werror
      "${SOURCE_DIR}/tests/downstream/main.cpp" -- ${CXX} -std=gnu++20
    RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "installed linpipe-tidy rejected a correct file:\n${output}")
  endif()
else()
  message(FATAL_ERROR "run_downstream.cmake: unknown PART ${PART}")
endif()
