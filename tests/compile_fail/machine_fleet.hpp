// tests/compile_fail/machine_fleet.hpp - a scheduler's own machines and pods, for the compile-fail
// tests: the machines and the fleet over any pod type (basic_machine, basic_fleet), and pod_row,
// adapted through pod_traits. The tests of node accessors add their node_traits for
// theirs::machine (right or wrong) and evaluate once with evaluate_once; traits_mistake.cpp brings
// a pod type of its own.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_TESTS_COMPILE_FAIL_MACHINE_FLEET_HPP
#define PREEMPT_TESTS_COMPILE_FAIL_MACHINE_FLEET_HPP

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "preempt/evaluator.hpp"
#include "preempt/nomination_ledger.hpp"

namespace theirs {

// A machine, its scheduling state and the fleet, over the scheduler's own pod type.
template <class Pod>
struct basic_machine {
  std::string hostname;
  std::vector<Pod> running;
};

template <class Pod>
struct basic_slots {
  preempt::status remove_pod(const Pod&) { return preempt::status::ok(); }
  preempt::status add_pod(const Pod&) { return preempt::status::ok(); }
  preempt::status fits(const Pod&) const { return preempt::status::ok(); }
};

template <class Pod>
struct basic_fleet {
  using state_type = basic_slots<Pod>;
  std::vector<basic_machine<Pod>> machines;
  std::size_t size() const noexcept { return machines.size(); }
  const basic_machine<Pod>& operator[](std::size_t i) const noexcept { return machines[i]; }
  state_type make_state() const { return {}; }
  void prepare_state(std::size_t, state_type&) const {}
};

// The pod type of the node-accessor tests, adapted correctly.
struct pod_row {
  std::string uid;
  int priority = 0;
};
using machine = basic_machine<pod_row>;
using fleet = basic_fleet<pod_row>;

}  // namespace theirs

template <>
struct preempt::pod_traits<theirs::pod_row> {
  static const std::string& uid(const theirs::pod_row& p) { return p.uid; }
  static int priority(const theirs::pod_row& p) { return p.priority; }
  static std::optional<preempt::timestamp> start_time(const theirs::pod_row&) { return {}; }
  static bool terminating_by_preemption(const theirs::pod_row&) { return false; }
};

namespace theirs {

// One evaluation over f (a template, so that it is compiled where the test's node_traits are
// known).
template <class Fleet>
int evaluate_once(const Fleet& f) {
  const pod_row p{"p", 100};
  preempt::nomination_ledger<pod_row> ledger(1);
  preempt::evaluator<Fleet> ev;
  const preempt::filter_statuses statuses(f.size(), preempt::status_code::unschedulable);
  const auto& d = ev.evaluate(p, f, statuses, preempt::no_budgets{}, ledger.reader(),
                              preempt::inline_executor{});
  return static_cast<int>(d.kind);
}

}  // namespace theirs

#endif  // PREEMPT_TESTS_COMPILE_FAIL_MACHINE_FLEET_HPP
