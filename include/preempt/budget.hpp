// preempt/budget.hpp - how the algorithms read disruption budgets (Kubernetes PDBs).
//
// Budgets are numbered 0 .. budget_count()-1. A type B models `budget_set<B, P>` when it has:
//   b.budget_count()                 how many budgets there are
//   b.disruptions_allowed(i)         budget i's status.disruptionsAllowed
//   b.for_each_budget_of(p, visit)   calls visit(std::size_t i, bool already_disrupted), in
//                                    ascending i (the order kube-scheduler lists the budgets in,
//                                    which decides where a pod's count stops), for every
//                                    budget i that pod p counts against: same namespace, selector
//                                    matches (an empty selector matches nothing). already_disrupted
//                                    is true when p is in budget i's disruptedPods; such a pod uses
//                                    none of the budget and never violates it. Victim
//                                    selection's visitor returns bool: true when it needs no
//                                    further budget of p (the pod violates one), so a set may end
//                                    the visit there (model::budget_table does); one that ignores
//                                    the answer and goes on gives the same results.
// Optionally b.prefetch_budgets_of(p) (prefetches_budgets) and b.stamp() (stamped_budgets), each
// described at its concept below.
// The algorithms copy disruptions_allowed lazily, per node evaluation, so a node never sees the
// budget spent on another node.
//
// `no_budgets` models the concept for clusters without budgets.
//
// Header-only declarations; no allocation; no exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_BUDGET_HPP
#define PREEMPT_BUDGET_HPP

#include <concepts>
#include <cstddef>
#include <cstdint>

#include "preempt/config.hpp"
#include "preempt/pod.hpp"

PREEMPT_NAMESPACE_BEGIN

namespace detail {
// Stands for the visitor the algorithms pass to for_each_budget_of.
struct budget_visitor_archetype {
  void operator()(std::size_t, bool) const noexcept {}
};
}  // namespace detail

template <class B, class P>
concept budget_set = pod<P> && requires(const B& b, const P& p, std::size_t i) {
  { b.budget_count() } -> std::convertible_to<std::size_t>;
  { b.disruptions_allowed(i) } -> std::convertible_to<std::int32_t>;
  b.for_each_budget_of(p, detail::budget_visitor_archetype{});
};

// A budget set with the optional prefetch_budgets_of:
//   b.prefetch_budgets_of(p)         a hint that for_each_budget_of(p, ...) comes soon (e.g. start
//                                    fetching the memory its lookup reads); it must not change any
//                                    answer. Victim selection calls it a few pods ahead of the pod
//                                    it charges, so the cache misses of consecutive pods overlap.
//                                    A set with it models `prefetches_budgets<B, P>`.
template <class B, class P>
concept prefetches_budgets =
    budget_set<B, P> && requires(const B& b, const P& p) { b.prefetch_budgets_of(p); };

// A budget set and a node type that both name their contents with stamp():
//   b.stamp()                        a std::uint64_t naming the set's current contents: a new value
//                                    whenever an answer above may change, the same value only for
//                                    sets that answer alike (a copy). With nodes that have stamp()
//                                    too (the same promise for the node's pods;
//                                    model::resource_node), the pair models
//                                    `stamped_budgets<B, N>`. When such a node's pods() is also a
//                                    contiguous std::span of pods, the evaluator remembers, per
//                                    node, whether charging every pod of the node violates no
//                                    budget (then no subset of the pods, in any order, can: it
//                                    selects victims there without reading the budgets) and the
//                                    violation flags of the pods it charged, until either stamp
//                                    changes.
template <class B, class N>
concept stamped_budgets = requires(const B& b, const N& n) {
  { b.stamp() } -> std::convertible_to<std::uint64_t>;
  { n.stamp() } -> std::convertible_to<std::uint64_t>;
};

// A cluster without disruption budgets.
struct no_budgets {
  static constexpr std::size_t budget_count() noexcept { return 0; }
  static constexpr std::int32_t disruptions_allowed(std::size_t) noexcept { return 0; }
  template <class P, class Visit>
  static constexpr void for_each_budget_of(const P&, Visit&&) noexcept {}
};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_BUDGET_HPP
