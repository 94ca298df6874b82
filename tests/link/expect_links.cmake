# tests/link/expect_links.cmake — what a binary links, read from the binary itself: its symbols (nm -C,
# defined and undefined, so a shared library's functions show as the binary's references to them) and
# the shared libraries it needs (readelf -d). The binary rather than the link line, because a static
# library adds to a binary only the objects it uses, and because the binary is what runs.
#
#   cmake -DBINARY=FILE -DNM=nm -DREADELF=readelf -DEXPECT=absent|present -DSEEN=REGEX
#         "-DLIBRARIES=NAME=REGEX;NAME=REGEX..." -P expect_links.cmake
#
# EXPECT=absent fails naming each library whose REGEX matches, with a few lines it matched; present fails
# naming each one whose REGEX matches nothing. Running `present` on a binary that does link them keeps the
# patterns honest: one that matches nothing would otherwise pass `absent` everywhere. SEEN must match
# (a symbol the binary surely has), so a binary without symbols cannot pass for one without the libraries.
foreach(required IN ITEMS BINARY NM READELF EXPECT SEEN LIBRARIES)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "expect_links.cmake: -D${required}=... is missing")
  endif()
endforeach()
if(NOT EXPECT STREQUAL "absent" AND NOT EXPECT STREQUAL "present")
  message(FATAL_ERROR "expect_links.cmake: EXPECT is '${EXPECT}': absent or present")
endif()

execute_process(COMMAND ${NM} -C ${BINARY} OUTPUT_VARIABLE symbols ERROR_VARIABLE nm_error RESULT_VARIABLE nm_exit)
if(NOT nm_exit EQUAL 0)
  message(FATAL_ERROR "${NM} -C ${BINARY} failed (${nm_exit}): ${nm_error}")
endif()
execute_process(COMMAND ${READELF} -d ${BINARY} OUTPUT_VARIABLE dynamic ERROR_VARIABLE readelf_error
                RESULT_VARIABLE readelf_exit)
if(NOT readelf_exit EQUAL 0)
  message(FATAL_ERROR "${READELF} -d ${BINARY} failed (${readelf_exit}): ${readelf_error}")
endif()
# One list entry a line: CMake splits lists on ';' but not between '[' and ']', all of which demangled
# symbols and readelf's text may hold, so those become ',' '(' ')' (patterns never need them).
string(REPLACE ";" "," text "${symbols}\n${dynamic}")
string(REPLACE "[" "(" text "${text}")
string(REPLACE "]" ")" text "${text}")
string(REPLACE "\n" ";" lines "${text}")

if(NOT text MATCHES "${SEEN}")
  message(FATAL_ERROR "${BINARY}: no symbol matches '${SEEN}', which it must have: is it stripped? "
                      "(nm reads nothing from a stripped binary, so this check would see no library at all)")
endif()

set(failures "")
foreach(library IN LISTS LIBRARIES)
  string(FIND "${library}" "=" split)
  if(split LESS 1)
    message(FATAL_ERROR "expect_links.cmake: '${library}' is not NAME=REGEX")
  endif()
  string(SUBSTRING "${library}" 0 ${split} name)
  math(EXPR start "${split} + 1")
  string(SUBSTRING "${library}" ${start} -1 pattern)
  if(EXPECT STREQUAL "present" AND NOT text MATCHES "${pattern}")
    string(APPEND failures "  ${name}: nothing matches '${pattern}'\n")
  elseif(EXPECT STREQUAL "absent" AND text MATCHES "${pattern}")
    set(shown "")
    set(shown_count 0)
    foreach(line IN LISTS lines)
      if(line MATCHES "${pattern}")
        string(STRIP "${line}" line)
        string(APPEND shown "\n    ${line}")
        math(EXPR shown_count "${shown_count} + 1")
        if(shown_count EQUAL 5)
          break()
        endif()
      endif()
    endforeach()
    string(APPEND failures "  ${name} ('${pattern}'), e.g.${shown}\n")
  endif()
endforeach()

if(failures)
  if(EXPECT STREQUAL "absent")
    message(FATAL_ERROR "${BINARY} links what it must not:\n${failures}")
  endif()
  message(FATAL_ERROR "${BINARY} should link these, but the pattern finds nothing (a wrong pattern?):\n${failures}")
endif()
message(STATUS "${BINARY}: as expected, every library is ${EXPECT}")
