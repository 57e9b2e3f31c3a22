// tests/consumer/main.cpp - a minimal downstream program: proves that a consumer finds preempt's
// headers via find_package, add_subdirectory or pkg-config (and, with the umbrella header, that
// they need nothing but the standard library). Prints "preempt <major>.<minor>.<patch>".
//
// SPDX-License-Identifier: Apache-2.0
#include <preempt/version.hpp>

#if defined(PREEMPT_CONSUMER_FULL) && __has_include(<preempt/preempt.hpp>)
#include <preempt/preempt.hpp>  // the whole library: only the standard library behind it
#endif

#include <cstdio>

int main() {
  std::printf("preempt %d.%d.%d\n", PREEMPT_VERSION_MAJOR, PREEMPT_VERSION_MINOR,
              PREEMPT_VERSION_PATCH);
  return 0;
}
