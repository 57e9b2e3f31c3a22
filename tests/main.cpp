// tests/main.cpp - the one doctest main() for preempt_tests. Test cases live in tests/*.test.cpp.
//
// SPDX-License-Identifier: Apache-2.0
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
