# preempt_test_support: private INTERFACE target over the helpers that tests and benchmarks share
# (never installed or exported):
#   tests/support/    fixtures, pod builder, executors, fakes, counting operator new, sanitizers
#   tests/reference/  the naive reference implementation (the differential test's oracle and the
#                     benchmarks' point of comparison)
# Its include root is tests/, so they are included as "support/<name>.hpp" and
# "reference/<name>.hpp". It brings the library, the warning set and threads; the doctest-based
# helpers also need doctest::doctest, which only the tests link.
#
# SPDX-License-Identifier: Apache-2.0
include_guard(GLOBAL)

find_package(Threads REQUIRED)
add_library(preempt_test_support INTERFACE)
target_include_directories(preempt_test_support INTERFACE "${PROJECT_SOURCE_DIR}/tests")
target_link_libraries(preempt_test_support INTERFACE preempt::preempt preempt_dev_flags
                                                     Threads::Threads)
