// Compile-fail test: a completion-based eviction client whose start_eviction does not take what
// the dispatcher passes (here a callback of its own instead of preempt::eviction_completion). It
// would not be recognized as a client at all, or, with a blocking evict beside it, silently never
// be used; a member of that name that cannot be called so is an error naming the signature.
// Without PREEMPT_COMPILE_FAIL the client takes the completion.
#include <functional>

#include "preempt/dispatcher.hpp"
#include "support/tiny_cluster.hpp"

namespace {

using P = tiny::pod<>;

struct api {
  preempt::eviction_result evict(const P&, const P&) { return preempt::eviction_result::evicted(); }
#if defined(PREEMPT_COMPILE_FAIL)
  void start_eviction(const P&, const P&, std::function<void(bool)> done) { done(true); }
#else
  void start_eviction(const P&, const P&, preempt::eviction_completion done) { done.evicted(); }
#endif
};

}  // namespace

int compile_fail_client_signature() {
  preempt::nomination_ledger<P> ledger(1);
  preempt::in_flight_table<P> table;
  api client;
  preempt::dispatcher<P, preempt::inline_executor, api> d(ledger, table, client,
                                                          preempt::inline_executor{});
  return static_cast<int>(d.jobs_running());
}
