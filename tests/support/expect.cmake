# Runs COMMAND (a ;-list) and checks its exit status (EXPECT_FAIL) and output (EXPECT_OUTPUT, a
# regular expression that stdout + stderr must match).
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
if(EXPECT_FAIL AND rc EQUAL 0)
  message(FATAL_ERROR "expected a failure, got exit status 0; output:\n${all}")
elseif(NOT EXPECT_FAIL AND NOT rc EQUAL 0)
  message(FATAL_ERROR "expected success, got '${rc}'; output:\n${all}")
endif()
if(DEFINED EXPECT_OUTPUT AND NOT all MATCHES "${EXPECT_OUTPUT}")
  message(FATAL_ERROR "output does not match\n  ${EXPECT_OUTPUT}\noutput:\n${all}")
endif()
message(STATUS "as expected (exit status ${rc})")
