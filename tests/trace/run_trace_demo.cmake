# ctest entry trace-json-valid: the demo's traced run writes its timeline, and the validator
# accepts it as trace-event JSON with one named track per role (a producer and 3 consumers).
foreach(var DEMO PYTHON VALIDATOR WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_trace_demo.cmake: -D${var}=... is required")
  endif()
endforeach()
set(json "${WORK_DIR}/trace_demo.json")
file(REMOVE "${json}")
execute_process(COMMAND "${DEMO}" --trace "${json}" 1000000 3 COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND "${PYTHON}" "${VALIDATOR}" "${json}" --roles 4 COMMAND_ERROR_IS_FATAL ANY)
