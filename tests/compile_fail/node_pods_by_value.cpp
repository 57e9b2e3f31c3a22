// Compile-fail test: a node whose pods accessor returns its container by value (a copy of the
// node's std::vector), the natural slip of writing `std::vector<pod> pods(...)` for
// `const std::vector<pod>& pods(...)`. The decision keeps pointers to the pods, so every one of
// them pointed into a temporary gone at the end of the call (a use after free inside the very
// first evaluation). Such a type is now not a node, and the evaluator says why in one error.
// Without PREEMPT_COMPILE_FAIL the accessor returns a reference and everything compiles.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "preempt/evaluator.hpp"
#include "preempt/nomination_ledger.hpp"

namespace theirs {

struct pod_row {
  std::string uid;
  int priority = 0;
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

}  // namespace theirs

template <>
struct preempt::pod_traits<theirs::pod_row> {
  static const std::string& uid(const theirs::pod_row& p) { return p.uid; }
  static int priority(const theirs::pod_row& p) { return p.priority; }
  static std::optional<preempt::timestamp> start_time(const theirs::pod_row&) { return {}; }
  static bool terminating_by_preemption(const theirs::pod_row&) { return false; }
};
template <>
struct preempt::node_traits<theirs::machine> {
  static std::string_view name(const theirs::machine& m) { return m.hostname; }
#if defined(PREEMPT_COMPILE_FAIL)
  static std::vector<theirs::pod_row> pods(const theirs::machine& m) { return m.running; }
#else
  static const std::vector<theirs::pod_row>& pods(const theirs::machine& m) { return m.running; }
#endif
};

// A container of pointers by value is fine: the pods it points to outlive it.
struct pointer_machine {
  std::string hostname;
  std::vector<theirs::pod_row> running;
  std::string_view name() const { return hostname; }
  std::vector<const theirs::pod_row*> pods() const {
    std::vector<const theirs::pod_row*> out;
    for (const theirs::pod_row& p : running) out.push_back(&p);
    return out;
  }
};
static_assert(preempt::node<pointer_machine>);

int compile_fail_node_pods_by_value() {
  const theirs::fleet f;
  const theirs::pod_row p{"p", 100};
  preempt::nomination_ledger<theirs::pod_row> ledger(1);
  preempt::evaluator<theirs::fleet> ev;
  const preempt::filter_statuses statuses(f.size(), preempt::status_code::unschedulable);
  const auto& d = ev.evaluate(p, f, statuses, preempt::no_budgets{}, ledger.reader(),
                              preempt::inline_executor{});
  return static_cast<int>(d.kind);
}
