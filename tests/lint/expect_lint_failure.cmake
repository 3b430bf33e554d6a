# Builds TARGET in BUILD_DIR and passes only if the build FAILS with output matching EXPECT.
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BUILD_DIR}" --target "${TARGET}"
  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(result EQUAL 0)
  message(FATAL_ERROR "${TARGET} built although its source misuses a stage: the lint gate is off\n${output}")
endif()
if(NOT output MATCHES "${EXPECT}")
  message(FATAL_ERROR "${TARGET} failed, but not with the expected finding (${EXPECT}):\n${output}")
endif()
message(STATUS "the lint gate stopped ${TARGET} as expected")
