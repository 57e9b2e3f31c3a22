# tests/compile_fail/expect_failure.cmake - builds TARGET in BINARY_DIR and passes when the build
# fails with output matching REGEX (a compile-fail test). Run with cmake -P.
#
# SPDX-License-Identifier: Apache-2.0
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BINARY_DIR}" --target "${TARGET}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0)
  message(FATAL_ERROR "${TARGET} compiled, but it must not")
endif()
if(NOT out MATCHES "${REGEX}")
  message(FATAL_ERROR "${TARGET} failed to compile, but not with an error matching '${REGEX}':\n${out}")
endif()
message(STATUS "${TARGET} failed to compile as expected ('${REGEX}')")
