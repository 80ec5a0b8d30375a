# compile(<what> <command...>): runs a compiler command of the Torch header tests
# (cuda_headers.cmake, emulated_headers.cmake), failing with its output and HEADERS named.
function(compile what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} does not compile against ${HEADERS}:\n${out}${err}")
  endif()
  message(STATUS "compiles: ${what}")
endfunction()
