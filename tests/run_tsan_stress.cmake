# ctest entry host-stress-tsan: configure (first time) and build the stress test with
# -fsanitize=thread in BINARY_DIR, then run it; any ThreadSanitizer report fails the test.
foreach(var SOURCE_DIR BINARY_DIR CXX MAKE_PROGRAM)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_tsan_stress.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT EXISTS "${BINARY_DIR}/CMakeCache.txt")
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${BINARY_DIR}" -G Ninja
    -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM} -DCMAKE_CXX_COMPILER=${CXX}
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g"
    -DCMAKE_CXX_FLAGS=-fsanitize=thread -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread
    -DLINPIPE_BUILD_CHECKER=OFF -DLINPIPE_BUILD_EXAMPLES=OFF -DLINPIPE_INSTALL=OFF
    -DLINPIPE_ENABLE_CUDA=OFF
    COMMAND_ERROR_IS_FATAL ANY)
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BINARY_DIR}" --target host_stress_test
  COMMAND_ERROR_IS_FATAL ANY)
set(ENV{TSAN_OPTIONS} "halt_on_error=1:exitcode=66")
execute_process(COMMAND "${BINARY_DIR}/tests/host_stress_test" RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "host_stress_test under ThreadSanitizer failed (exit ${result})")
endif()
