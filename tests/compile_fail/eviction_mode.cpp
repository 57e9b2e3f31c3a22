// Compile-fail test: a dispatcher told to evict through the Eviction API (respecting disruption
// budgets) whose client cannot receive the request: it would go on deleting, silently ignoring the
// budgets it was asked to respect. Without PREEMPT_COMPILE_FAIL the client takes the request.
#include "preempt/dispatcher.hpp"
#include "support/tiny_cluster.hpp"

namespace {

using P = tiny::pod<>;

struct api {
#if defined(PREEMPT_COMPILE_FAIL)
  preempt::eviction_result evict(const P&, const P&) { return preempt::eviction_result::evicted(); }
#else
  preempt::eviction_result evict(const P&, const P&, const preempt::eviction_request&) {
    return preempt::eviction_result::evicted();
  }
#endif
};

}  // namespace

int compile_fail_eviction_mode() {
  preempt::nomination_ledger<P> ledger(1);
  preempt::in_flight_table<P> table;
  api client;
  preempt::dispatcher<P, preempt::inline_executor, api> d(ledger, table, client,
                                                          preempt::inline_executor{});
  d.set_eviction_mode(preempt::eviction_mode::evict_respecting_budgets);
  return static_cast<int>(d.jobs_running());
}
