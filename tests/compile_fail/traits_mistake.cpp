// Compile-fail test: a pod type adapted through pod_traits whose priority is a std::optional (an
// unset Kubernetes priority), which is not convertible to std::int32_t. The compiler used to list
// unsatisfied constraints for every entry point (nine errors in 80 lines here, none saying which
// accessor was wrong); each entry point now checks its arguments first and says why, once.
// Without PREEMPT_COMPILE_FAIL the priority is resolved to an int and everything compiles.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "preempt/dispatcher.hpp"
#include "preempt/evaluator.hpp"

namespace theirs {

struct pod_row {
  std::string uid;
  std::optional<int> priority;  // unset: 0
};

struct machine {
  std::string hostname;
  std::vector<pod_row> running;
};

struct slots {
  preempt::status remove_pod(const pod_row&) { return preempt::status::ok(); }
  preempt::status add_pod(const pod_row&) { return preempt::status::ok(); }
  preempt::status fits(const pod_row&) const { return preempt::status::ok(); }
};

struct fleet {
  using state_type = slots;
  std::vector<machine> machines;
  std::size_t size() const noexcept { return machines.size(); }
  const machine& operator[](std::size_t i) const noexcept { return machines[i]; }
  slots make_state() const { return {}; }
  void prepare_state(std::size_t, slots&) const {}
};

struct api {
  preempt::eviction_result evict(const pod_row&, const pod_row&) {
    return preempt::eviction_result::evicted();
  }
};

}  // namespace theirs

template <>
struct preempt::pod_traits<theirs::pod_row> {
  static const std::string& uid(const theirs::pod_row& p) { return p.uid; }
#if defined(PREEMPT_COMPILE_FAIL)
  static std::optional<int> priority(const theirs::pod_row& p) { return p.priority; }
#else
  static int priority(const theirs::pod_row& p) { return p.priority.value_or(0); }
#endif
  static std::optional<preempt::timestamp> start_time(const theirs::pod_row&) { return {}; }
  static bool terminating_by_preemption(const theirs::pod_row&) { return false; }
};
template <>
struct preempt::node_traits<theirs::machine> {
  static std::string_view name(const theirs::machine& m) { return m.hostname; }
  static const std::vector<theirs::pod_row>& pods(const theirs::machine& m) { return m.running; }
};

int compile_fail_traits_mistake() {
  const theirs::fleet f;
  const theirs::pod_row p{"p", 100};
  preempt::nomination_ledger<theirs::pod_row> ledger(1);
  preempt::in_flight_table<theirs::pod_row> table;
  theirs::api client;
  preempt::dispatcher<theirs::pod_row, preempt::inline_executor, theirs::api> dispatch(
      ledger, table, client, preempt::inline_executor{});
  preempt::evaluator<theirs::fleet> ev;
  const preempt::filter_statuses statuses(f.size(), preempt::status_code::unschedulable);
  const auto& d = ev.evaluate(p, f, statuses, preempt::no_budgets{}, ledger.reader(),
                              preempt::inline_executor{});
  dispatch.apply(p, d);
  return static_cast<int>(d.kind);
}
