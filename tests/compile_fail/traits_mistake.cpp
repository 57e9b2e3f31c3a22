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

#include "compile_fail/machine_fleet.hpp"
#include "preempt/dispatcher.hpp"
#include "preempt/evaluator.hpp"

namespace theirs {

struct unset_priority_pod {
  std::string uid;
  std::optional<int> priority;  // unset: 0
};

struct api {
  preempt::eviction_result evict(const unset_priority_pod&, const unset_priority_pod&) {
    return preempt::eviction_result::evicted();
  }
};

using unset_priority_machine = basic_machine<unset_priority_pod>;
using unset_priority_fleet = basic_fleet<unset_priority_pod>;

}  // namespace theirs

template <>
struct preempt::pod_traits<theirs::unset_priority_pod> {
  static const std::string& uid(const theirs::unset_priority_pod& p) { return p.uid; }
#if defined(PREEMPT_COMPILE_FAIL)
  static std::optional<int> priority(const theirs::unset_priority_pod& p) { return p.priority; }
#else
  static int priority(const theirs::unset_priority_pod& p) { return p.priority.value_or(0); }
#endif
  static std::optional<preempt::timestamp> start_time(const theirs::unset_priority_pod&) {
    return {};
  }
  static bool terminating_by_preemption(const theirs::unset_priority_pod&) { return false; }
};
template <>
struct preempt::node_traits<theirs::unset_priority_machine> {
  static std::string_view name(const theirs::unset_priority_machine& m) { return m.hostname; }
  static const std::vector<theirs::unset_priority_pod>& pods(
      const theirs::unset_priority_machine& m) {
    return m.running;
  }
};

int compile_fail_traits_mistake() {
  const theirs::unset_priority_fleet f;
  const theirs::unset_priority_pod p{"p", 100};
  preempt::nomination_ledger<theirs::unset_priority_pod> ledger(1);
  preempt::in_flight_table<theirs::unset_priority_pod> table;
  theirs::api client;
  preempt::dispatcher<theirs::unset_priority_pod, preempt::inline_executor, theirs::api> dispatch(
      ledger, table, client, preempt::inline_executor{});
  preempt::evaluator<theirs::unset_priority_fleet> ev;
  const preempt::filter_statuses statuses(f.size(), preempt::status_code::unschedulable);
  const auto& d = ev.evaluate(p, f, statuses, preempt::no_budgets{}, ledger.reader(),
                              preempt::inline_executor{});
  dispatch.apply(p, d);
  return static_cast<int>(d.kind);
}
