# Checks that a block of README.md is what a command prints: the text between the lines
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
file(READ "${README}" readme)
set(begin_marker "<!-- ${BLOCK}: begin -->\n")
set(end_marker "<!-- ${BLOCK}: end -->")
string(FIND "${readme}" "${begin_marker}" begin)
string(FIND "${readme}" "${end_marker}" end)
if(begin EQUAL -1 OR end EQUAL -1 OR end LESS begin)
  message(FATAL_ERROR "README.md has no block '${BLOCK}' (markers ${begin_marker} and ${end_marker})")
endif()
string(LENGTH "${begin_marker}" skip)
math(EXPR begin "${begin} + ${skip}")
math(EXPR length "${end} - ${begin}")
string(SUBSTRING "${readme}" ${begin} ${length} block)
string(REGEX REPLACE "^```[a-z]*\n" "" block "${block}")
string(REGEX REPLACE "```\n$" "" block "${block}")
if(DEFINED STRIP AND NOT STRIP STREQUAL "")
  string(REPLACE "${STRIP}" "" output "${output}")
endif()
if(DEFINED MASK AND NOT MASK STREQUAL "")
  string(REGEX REPLACE "${MASK}" "<varies>" output "${output}")
  string(REGEX REPLACE "${MASK}" "<varies>" block "${block}")
endif()
string(FIND "${output}" "${block}" found)
if(found EQUAL -1)
  message(FATAL_ERROR "README.md's block '${BLOCK}' is not what the command prints.\n"
                      "--- README.md:\n${block}\n--- the command (normalized):\n${output}")
endif()
message(STATUS "README.md's block '${BLOCK}' is what the command prints")
