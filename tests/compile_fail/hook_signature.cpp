// Compile-fail test: a dispatcher hook with last release's signature. nominations_cleared used to
// receive the cleared pods as pointers; it now receives uid copies. A hooks type that still has
// the old member would never be called (the dispatcher finds an optional hook by trying the
// call), so a member of that name that cannot be called as the dispatcher calls it is an error
// naming the expected signature. Without PREEMPT_COMPILE_FAIL the hook has today's signature.
#include <cstddef>
#include <span>

#include "preempt/dispatcher.hpp"
#include "support/tiny_cluster.hpp"

namespace {

using P = tiny::pod<>;

struct hooks {
#if defined(PREEMPT_COMPILE_FAIL)
  void nominations_cleared(std::size_t, std::span<const P* const>) {}  // last release's
#else
  void nominations_cleared(std::size_t, std::span<const preempt::pod_uid_t<P>>) {}
#endif
};

}  // namespace

int compile_fail_hook_signature() {
  preempt::nomination_ledger<P> ledger(1);
  preempt::in_flight_table<P> table;
  tiny::recording_client<> client;
  preempt::dispatcher<P, preempt::inline_executor, tiny::recording_client<>, hooks> d(
      ledger, table, client, preempt::inline_executor{});
  return static_cast<int>(d.jobs_running());
}
