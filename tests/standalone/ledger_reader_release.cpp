// The recursive-reader mistake in a release build (NDEBUG, the default checks): a thread that
// holds a nomination_ledger's reader and calls the ledger would lock it twice, which with
// std::shared_mutex deadlocks. The check used to be on only without NDEBUG, so release builds
// deadlocked; it is now on in every build type (a thread-local load while the thread holds no
// reader), and this program, built with NDEBUG and without forcing the check, expects it to stop
// the mistake with its message (tests/standalone/ledger_reader_check.cpp forces it on instead).
// An alarm turns the old deadlock into a failure.
#ifndef NDEBUG
#define NDEBUG 1
#endif
#define PREEMPT_ASSERT_HANDLER ledger_release::caught
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ledger_release {
[[noreturn]] inline void caught(const char* expr, const char* file, int line, const char* msg) {
  if (std::strstr(msg, "holds its reader") != nullptr) {
    std::printf("caught as expected in a release build: %s\n", msg);
    std::fflush(stdout);
    std::_Exit(0);
  }
  std::printf("%s:%d: unexpected contract violation: %s (%s)\n", file, line, msg, expr);
  std::fflush(stdout);
  std::_Exit(2);
}
}  // namespace ledger_release

#include <unistd.h>

#include "preempt/nomination_ledger.hpp"
#include "support/pods.hpp"

#if !PREEMPT_CHECK_LEDGER_READERS
#error "the ledger's reader check must be on by default in release builds"
#endif

int main() {
  alarm(20);  // the deadlock this check prevents would otherwise hang the test
  preempt::nomination_ledger<preempt::model::resource_pod> ledger(1);
  const preempt::model::resource_pod p = fx::make_pod(1, 100);
  const auto reader = ledger.reader();
  ledger.nominate(p, 0);  // a second lock of the ledger on this thread
  std::printf("the ledger was called under its own reader and nothing caught it\n");
  return 1;
}
