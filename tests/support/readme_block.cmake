# Checks that a block of README.md or of a guide in docs/ is what a command prints: the text between the lines
# "<!-- BLOCK: begin -->" and "<!-- BLOCK: end -->" (a ``` fence around it is dropped) must appear
# in the command's stdout + stderr. Before comparing, the output loses every occurrence of
# STRIP (the source directory, so that paths read relative to the checkout), and both texts
# have each match of MASK (a regular expression for what differs from run to run) replaced by
# "<varies>".
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(output "${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the command failed (${rc}):\n${output}")
endif()
include("${CMAKE_CURRENT_LIST_DIR}/doc_block.cmake")
cuguard_doc_block("${BLOCK}" "${ROOT}" block README)
if(DEFINED STRIP AND NOT STRIP STREQUAL "")
  string(REPLACE "${STRIP}" "" output "${output}")
endif()
if(DEFINED MASK AND NOT MASK STREQUAL "")
  string(REGEX REPLACE "${MASK}" "<varies>" output "${output}")
  string(REGEX REPLACE "${MASK}" "<varies>" block "${block}")
endif()
string(FIND "${output}" "${block}" found)
if(found EQUAL -1)
  message(FATAL_ERROR "${README}'s block '${BLOCK}' is not what the command prints.\n"
                      "--- ${README}:\n${block}\n--- the command (normalized):\n${output}")
endif()
message(STATUS "${README}'s block '${BLOCK}' is what the command prints")
