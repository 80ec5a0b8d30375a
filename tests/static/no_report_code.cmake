# Compiles SOURCE to PTX with checks off and on: off, no trace of the report path may remain (no
# cold functions, no device state, no trap, no printf); on, they must be there (so that the
# patterns below can fail).
set(pattern "fail_access|fail_view|cuguard_impl_device_state|device_report|trap;|vprintf")
foreach(checks 0 1)
  set(ptx "${OUT}/checks${checks}.ptx")
  execute_process(COMMAND "${NVCC}" -std=c++17 -x cu -arch=sm_${ARCH} -ptx -I${INCLUDE}
                          -DCUGUARD_ENABLE_CHECKS=${checks} "${SOURCE}" -o "${ptx}"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nvcc failed (checks=${checks}):\n${err}")
  endif()
  file(READ "${ptx}" text)
  string(REGEX MATCHALL "${pattern}" found "${text}")
  list(LENGTH found n)
  if(checks EQUAL 0 AND n GREATER 0)
    list(REMOVE_DUPLICATES found)
    message(FATAL_ERROR "checks off, yet the PTX of ${SOURCE} holds report code: ${found}")
  elseif(checks EQUAL 1 AND n EQUAL 0)
    message(FATAL_ERROR "checks on, yet no report code in the PTX of ${SOURCE}: the test's patterns are stale")
  endif()
  message(STATUS "checks=${checks}: ${n} matches of report code")
endforeach()
