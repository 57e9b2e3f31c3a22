// tests/consumer/main.cpp - a minimal downstream program: proves that a consumer finds preempt's
// headers via find_package, add_subdirectory or pkg-config (and, with the umbrella header, that
// they need nothing but the standard library). Prints "preempt <major>.<minor>.<patch>".
// .ci/single-header also compiles it with nothing but include/preempt_single.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include <preempt/version.hpp>

#if defined(PREEMPT_CONSUMER_FULL) && __has_include(<preempt/preempt.hpp>)
#include <preempt/preempt.hpp>  // the whole library: only the standard library behind it
#endif

#include <cstdio>

// A consumer that asks for C++23 (CMAKE_CXX_STANDARD 23, or -std=c++23 before pkg-config's flags)
// must get it: nothing preempt passes may lower the standard (preempt.pc has no -std flag).
#if defined(PREEMPT_CONSUMER_EXPECT_CXX23)
static_assert(__cplusplus > 202002L, "compiled as C++20 or older where C++23 was asked for");
#endif

int main() {
  std::printf("preempt %d.%d.%d\n", PREEMPT_VERSION_MAJOR, PREEMPT_VERSION_MINOR,
              PREEMPT_VERSION_PATCH);
  return 0;
}
