// tests/compile_fail/machine_fleet.hpp - a scheduler's own machines and pods, adapted through
// pod_traits, for the compile-fail tests of node accessors: each test adds its node_traits for
// theirs::machine (right or wrong) and evaluates once with evaluate_once.
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
