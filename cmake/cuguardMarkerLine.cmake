# cuguard_marker_line(<file> <marker> <out>): the number of the line of <file> that holds the text
# <marker> (a comment beside an access), for tests that check the line a report names. An edit of
# <file> reconfigures, so that the number follows the line.
function(cuguard_marker_line file marker out)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${file}")
  file(READ "${file}" text)
  string(FIND "${text}" "${marker}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "no marker '${marker}' in ${file}")
  endif()
  string(SUBSTRING "${text}" 0 ${at} before)
  string(REGEX MATCHALL "\n" newlines "${before}")
  list(LENGTH newlines count)
  math(EXPR line "${count} + 1")
  set(${out} ${line} PARENT_SCOPE)
endfunction()
