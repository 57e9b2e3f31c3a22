// The no-threads configuration on the host: with PREEMPT_NO_THREADS defined, the whole inline path
// (evaluator with an inline executor, inline dispatcher, nomination ledger, in-flight table,
// metrics) includes no threading header, and gives the answer of tests/support/tiny_scenario.hpp,
// the one the bare-metal build checks on a Cortex-M4 (.ci/bare-metal). Its own executable: the
// macro must be set before any of the library's headers, and doctest itself includes <mutex>.
#define PREEMPT_NO_THREADS 1

#include "preempt/dispatcher.hpp"
#include "preempt/evaluator.hpp"
#include "preempt/in_flight.hpp"
#include "preempt/metrics.hpp"
#include "preempt/nomination_ledger.hpp"
#include "support/tiny_scenario.hpp"

// libstdc++'s and libc++'s include guards of the threading headers.
#if defined(_GLIBCXX_MUTEX) || defined(_GLIBCXX_SHARED_MUTEX) || defined(_GLIBCXX_THREAD) || \
    defined(_GLIBCXX_CONDITION_VARIABLE) || defined(_LIBCPP_MUTEX) ||                        \
    defined(_LIBCPP_SHARED_MUTEX) || defined(_LIBCPP_THREAD) ||                              \
    defined(_LIBCPP_CONDITION_VARIABLE)
#error "PREEMPT_NO_THREADS: a threading header was included"
#endif

#include <cstdio>
#include <type_traits>

static_assert(std::is_same_v<preempt::detail::default_mutex, preempt::null_mutex>);
static_assert(std::is_same_v<preempt::nomination_ledger<tiny::pod<>>::uid_type, std::uint32_t>);

int main() {
  const bool ok = tiny::scenario_ok(tiny::run_scenario());
  std::printf("no-threads scenario: %s\n", ok ? "same answer" : "WRONG ANSWER");
  return ok ? 0 : 1;
}
