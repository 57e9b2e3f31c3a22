# preempt_check_doctest_names(<target> <check test name> <label>): after
# doctest_discover_tests(<target> ...) (without TEST_SPEC or EXTRA_ARGS), adds a ctest test that
# fails when the test cases <target> lists and the ctest tests discovery made of them differ in
# number, or when a test case name holds a character that CMake's list handling reads (';', an
# unbalanced '[' or ']', '\'). doctest_discover_tests reads the binary's list as a CMake list: a
# name with ';' becomes two ctest tests that run nothing, and nothing says so. The check itself is
# tests/doctest_names.cmake.
#
# SPDX-License-Identifier: Apache-2.0
include_guard(GLOBAL)

function(preempt_check_doctest_names target check_name label)
  # doctest_discover_tests names its file after a hash of "${TEST_SPEC} ${EXTRA_ARGS}", both empty.
  string(SHA1 _hash " ")
  string(SUBSTRING "${_hash}" 0 7 _hash)
  get_property(_launcher TARGET ${target} PROPERTY CROSSCOMPILING_EMULATOR)
  string(JOIN "|" _launcher ${_launcher})
  add_test(NAME ${check_name}
           COMMAND "${CMAKE_COMMAND}" "-DBINARY=$<TARGET_FILE:${target}>"
                   "-DTESTS_FILE=${CMAKE_CURRENT_BINARY_DIR}/${target}_tests-${_hash}.cmake"
                   "-DLAUNCHER=${_launcher}"
                   -P "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../tests/doctest_names.cmake")
  set_tests_properties(${check_name} PROPERTIES LABELS ${label})
endfunction()
