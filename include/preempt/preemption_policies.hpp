// preempt/preemption_policies.hpp - a victim policy (preempt/policy.hpp) that carries the opt-in
// preemption policies (preempt/policy_options.hpp) into victim selection and the choice of node.
//
// preemption_policies<Cost, Reschedulable>{options, cost, reschedulable} with `now` (the clock,
// as default_policy) is given to an evaluator (or to select_victims) in place of default_policy:
//   cost(pod)            min_cost's cost of evicting a pod (std::int64_t, >= 0); unit_victim_cost,
//                        one per pod, by default
//   reschedulable(pod)   spare_reschedulable's signal: could the pod run on another node (its node
//                        selector, required node affinity, NoSchedule/NoExecute taints; the
//                        Kubernetes adapter's kubernetes::can_run_elsewhere)? Without one
//                        (assume_reschedulable) no pod is pinned and the policy decides nothing
// It provides:
//   is_eligible_victim   min_runtime (a pod that ran for less, or has no start time, is spared)
//   select_victims_on_node  select_victims_with_policies (preempt/policy_selection.hpp), which
//                        select_victims calls for such a policy; upstream's importance order
//   score_functions()    the choice of node: with min_cost the candidates' total cost first, then
//                        upstream's five criteria (default_scores); otherwise those five alone
// With every option off it decides as default_policy does (upstream), on the evaluator's slower
// path (its branch and bound and one-pass shortcuts need default_policy itself).
//
// No allocation of its own; no exceptions; copyable as Cost and Reschedulable are.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_PREEMPTION_POLICIES_HPP
#define PREEMPT_PREEMPTION_POLICIES_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "preempt/candidate.hpp"
#include "preempt/candidate_choice.hpp"
#include "preempt/config.hpp"
#include "preempt/pod.hpp"
#include "preempt/policy.hpp"
#include "preempt/policy_options.hpp"
#include "preempt/policy_selection.hpp"

PREEMPT_NAMESPACE_BEGIN

// One per pod.
struct unit_victim_cost {
  template <pod P>
  constexpr std::int64_t operator()(const P&) const noexcept {
    return 1;
  }
};

// No signal: every pod could run elsewhere (none is pinned).
struct assume_reschedulable {
  template <pod P>
  constexpr bool operator()(const P&) const noexcept {
    return true;
  }
};

// Score k of the choice of node under the policies: 0 the candidate's total cost (negated) when
// it leads, else upstream's score k (default_scores).
template <class Cost>
struct policy_score {
  std::size_t upstream_index = 0;  // default_scores' index, or cost_index
  Cost cost{};
  timestamp now = 0;

  static constexpr std::size_t cost_index = static_cast<std::size_t>(-1);

  template <pod P>
  constexpr std::int64_t operator()(const candidate<P>& c) const {
    if (upstream_index != cost_index) return default_scores{now}(upstream_index, c);
    std::int64_t total = 0;
    for (const P* v : c.victims) total += static_cast<std::int64_t>(cost(*v));
    return -total;
  }
};

// The score functions in order (a contiguous range of policy_score).
template <class Cost>
struct policy_scores {
  std::array<policy_score<Cost>, default_scores::count + 1> items{};
  std::size_t count = 0;

  constexpr const policy_score<Cost>* begin() const noexcept { return items.data(); }
  constexpr const policy_score<Cost>* end() const noexcept { return items.data() + count; }
  constexpr std::size_t size() const noexcept { return count; }
};

template <class Cost = unit_victim_cost, class Reschedulable = assume_reschedulable>
struct preemption_policies : default_policy {
  policy_options options;
  Cost cost{};
  Reschedulable reschedulable{};

  // min_runtime: has the pod run long enough to be a victim?
  template <class Node, pod P>
  constexpr bool is_eligible_victim(const Node&, const P& victim, const P&) const {
    if (!options.min_runtime) return true;
    const std::optional<timestamp> started = start_time_of(victim);
    return started.has_value() && current_time() - *started >= *options.min_runtime;
  }

  template <class N, class S, class B, class Nominated, class Scratch>
  auto select_victims_on_node(const node_pod_t<N>& preemptor, const N& node, S& state,
                              const B& budgets, const Nominated& nominated,
                              Scratch& scratch) const {
    // Upstream's selection, with this policy's eligibility when min_runtime restricts it.
    if (!options.min_runtime)
      return ::preempt::select_victims_with_policies(preemptor, node, state, budgets, nominated,
                                                     scratch, default_policy{now}, options, cost,
                                                     reschedulable);
    return ::preempt::select_victims_with_policies(preemptor, node, state, budgets, nominated,
                                                   scratch, eligibility_of{{now}, this}, options,
                                                   cost, reschedulable);
  }

  policy_scores<Cost> score_functions() const {
    policy_scores<Cost> s;
    const timestamp t = current_time();
    if (options.min_cost) s.items[s.count++] = {policy_score<Cost>::cost_index, cost, t};
    for (std::size_t k = 0; k < default_scores::count; ++k) s.items[s.count++] = {k, cost, t};
    return s;
  }

 private:
  // Upstream's importance order with this policy's eligibility (no hook of its own).
  struct eligibility_of : default_policy {
    const preemption_policies* policies;
    template <class Node, pod P>
    constexpr bool is_eligible_victim(const Node& n, const P& victim, const P& preemptor) const {
      return policies->is_eligible_victim(n, victim, preemptor);
    }
  };
};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_PREEMPTION_POLICIES_HPP
