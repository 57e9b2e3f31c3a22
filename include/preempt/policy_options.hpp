// preempt/policy_options.hpp - which opt-in preemption policies are on, beyond upstream.
//
// Every member off (the default) is upstream's decision exactly. Each policy changes only what it
// constrains:
//   spare_reschedulable  among potential victims of equal priority that violate no budget, the
//                        ones that could not run on another node are given back first (the
//                        proposal of kubernetes/kubernetes#141227, PR #141926), so an eviction
//                        falls on a pod that can be rescheduled; kept only where it does not
//                        evict more such pinned pods than upstream's choice on that node
//   min_cost             per node, the victim set of least total cost (a caller's cost per pod,
//                        one by default) that makes room: exact on a node with at most
//                        `exact_victims` potential victims within `exact_fit_checks` fit checks
//                        (and 16 search steps per fit check), else the better of a greedy pass
//                        in cost order and upstream's answer; candidates are chosen by total cost
//                        first, then by upstream's criteria
//   hard_budgets         a node whose victims, evicted together, would take any budget below
//                        zero is no candidate (its status says so); upstream instead prefers the
//                        least violating node. On such a node another victim set without a
//                        violation is searched for (within the same bound) before it is rejected
//   min_runtime          a pod that has run for less than this (start time to the policy's
//                        clock, in timestamp units; a pod without a start time has not run) is no
//                        potential victim
// is_budget_violation(status) tells such a rejection; refused_by_budgets(diagnosis) whether a dry
// run that found no candidate owes it to hard_budgets (some node was rejected so: without the
// policy that node would have been a candidate).
// The order of precedence when several are on: hard_budgets is a constraint, then min_cost's
// total cost, then spare_reschedulable's count of pinned victims.
//
// No allocation; no exceptions; constexpr.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_POLICY_OPTIONS_HPP
#define PREEMPT_POLICY_OPTIONS_HPP

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "preempt/config.hpp"
#include "preempt/decision.hpp"
#include "preempt/pod.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN

struct policy_options {
  bool spare_reschedulable = false;
  bool min_cost = false;
  bool hard_budgets = false;
  std::optional<timestamp> min_runtime;
  // The bound on the exact search of min_cost (and of hard_budgets' second try).
  std::size_t exact_victims = 16;
  std::size_t exact_fit_checks = 4096;

  // Whether victims are chosen otherwise than upstream's reprieve does.
  constexpr bool selects_differently() const noexcept {
    return spare_reschedulable || min_cost || hard_budgets;
  }
  constexpr bool any() const noexcept { return selects_differently() || min_runtime.has_value(); }
};

// The status reason of a node hard_budgets rejects.
inline constexpr std::string_view budget_violation_reason =
    "Preemption would violate a PodDisruptionBudget";

// Whether a node's outcome is hard_budgets' rejection.
constexpr bool is_budget_violation(const status& outcome) noexcept {
  return outcome.code() == status_code::unschedulable &&
         outcome.reason() == budget_violation_reason;
}

// Whether a dry run's nodes include one hard_budgets rejected (its distinct outcomes are visited,
// not every node).
constexpr bool refused_by_budgets(const diagnosis_view& diagnosis) noexcept {
  for (const status& outcome : diagnosis.outcomes())
    if (::preempt::is_budget_violation(outcome)) return true;
  return false;
}

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_POLICY_OPTIONS_HPP
