# Runs a block of README.md or of a guide in docs/ (doc_block.cmake) as a shell command line in
# WORKDIR, as a user would paste it: it must exit 0, and its stdout + stderr must match the
# regular expression EXPECT_OUTPUT.
include("${CMAKE_CURRENT_LIST_DIR}/doc_block.cmake")
cuguard_doc_block("${BLOCK}" "${ROOT}" command document)
string(STRIP "${command}" command)
execute_process(COMMAND sh -c "${command}" WORKING_DIRECTORY "${WORKDIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
set(output "${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${document}'s command '${BLOCK}' failed (${rc}):\n${command}\n${output}")
endif()
if(NOT output MATCHES "${EXPECT_OUTPUT}")
  message(FATAL_ERROR "${document}'s command '${BLOCK}' printed no match of '${EXPECT_OUTPUT}':\n${output}")
endif()
message(STATUS "${document}'s command '${BLOCK}' ran as written")
