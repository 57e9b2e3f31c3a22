# tests/doctest_names.cmake - every test case of a doctest binary is one ctest test that runs it.
#
#   cmake -DBINARY=<exe> -DTESTS_FILE=<doctest_discover_tests' file> [-DLAUNCHER=<a|b>]
#         -P doctest_names.cmake
#
# doctest_discover_tests reads `<exe> --list-test-cases` as a CMake list, one name per line: a ';'
# in a name splits it into two ctest tests whose filters match no test case (they pass, running
# nothing), an unbalanced '[' or ']' joins lines, a '\' escapes what follows. This script fails
# when a name holds ';' or '\' or unbalanced brackets, and when the number of test cases the binary
# lists differs from the number of tests discovery wrote (add_test lines of TESTS_FILE).
# Registered by preempt_check_doctest_names (cmake/preemptDoctestNames.cmake).
#
# SPDX-License-Identifier: Apache-2.0
cmake_minimum_required(VERSION 3.22)

foreach(_var BINARY TESTS_FILE)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "doctest_names.cmake: -D${_var}=... is required")
  endif()
endforeach()
if(NOT EXISTS "${TESTS_FILE}")
  message(FATAL_ERROR "doctest_names.cmake: ${TESTS_FILE} does not exist (build ${BINARY} first)")
endif()
string(REPLACE "|" ";" _launcher "${LAUNCHER}")

execute_process(COMMAND ${_launcher} "${BINARY}" --list-test-cases --no-colors=true
                OUTPUT_VARIABLE _out RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${BINARY} --list-test-cases failed (${_rc}):\n${_out}")
endif()
# The list sits between two rules of '=' and ends with the count doctest reports.
if(NOT _out MATCHES "test cases passing the current filters: ([0-9]+)")
  message(FATAL_ERROR "no test case count in the output of ${BINARY} --list-test-cases:\n${_out}")
endif()
set(_listed "${CMAKE_MATCH_1}")

# Read the names with every list-special character replaced, one element per line.
string(REPLACE ";" "<semicolon>" _safe "${_out}")
string(REPLACE "[" "<open>" _safe "${_safe}")
string(REPLACE "]" "<close>" _safe "${_safe}")
string(REPLACE "\\" "<backslash>" _safe "${_safe}")
string(REPLACE "\n" ";" _lines "${_safe}")
set(_bad "")
foreach(_line IN LISTS _lines)
  if(_line MATCHES "^<open>doctest<close>|^=+$" OR _line STREQUAL "")
    continue()
  endif()
  set(_why "")
  if(_line MATCHES "<semicolon>")
    string(APPEND _why " ';'")
  endif()
  if(_line MATCHES "<backslash>")
    string(APPEND _why " '\\'")
  endif()
  # Brackets must pair up in order, as CMake nests them.
  string(REGEX MATCHALL "<open>|<close>" _brackets "${_line}")
  set(_depth 0)
  foreach(_b IN LISTS _brackets)
    if(_b STREQUAL "<open>")
      math(EXPR _depth "${_depth} + 1")
    else()
      math(EXPR _depth "${_depth} - 1")
    endif()
    if(_depth LESS 0)
      break()
    endif()
  endforeach()
  if(NOT _depth EQUAL 0)
    string(APPEND _why " unbalanced brackets")
  endif()
  if(_why)
    string(APPEND _bad "\n  ${_line} (${_why} )")
  endif()
endforeach()

file(READ "${TESTS_FILE}" _script)
string(REGEX MATCHALL "(^|\n)add_test\\(" _adds "${_script}")
list(LENGTH _adds _discovered)

set(_failed OFF)
if(_bad)
  message(SEND_ERROR "test case names ctest cannot run (<semicolon>, <open>, <close>, "
                     "<backslash> stand for ';', '[', ']', '\\'):${_bad}")
  set(_failed ON)
endif()
if(NOT _listed EQUAL _discovered)
  message(SEND_ERROR "${BINARY} lists ${_listed} test cases, ctest discovered ${_discovered} "
                     "tests (${TESTS_FILE})")
  set(_failed ON)
endif()
if(_failed)
  message(FATAL_ERROR "doctest_names.cmake: see above")
endif()
message(STATUS "${_listed} test cases, ${_discovered} ctest tests, every name runnable")
