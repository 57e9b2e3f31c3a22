// preempt/victim_selection.hpp - choose the victims on one node (Kubernetes SelectVictimsOnNode).
//
// select_victims(preemptor, node, state, budgets, nominated, scratch, policy) tells whether the
// node is a candidate for the preemptor and, if it is, which of its pods to evict: the victims in
// upstream's order (descending importance) and how many of them violate a disruption budget. It
// follows upstream exactly (SelectVictimsOnNode, with filterPodsWithPDBViolation for the budgets,
// MoreImportantPod for the order and RunFilterPluginsWithNominatedPods for the fit): its seven
// steps are detail::select_one_by_one below. A state that offers node_state's optional members
// (remove_lower_priority_pods, reprieve_removed_pods: model::resource_fit_state) takes the same
// steps in one pass, with the same answer. A policy with a member select_victims_on_node
// (preempt/preemption_policies.hpp) selects the node's victims itself.
//
// Complexity: O(v log v) for v potential victims when the node is not strictly in importance
// order, O(v) when it is (O(v·d) in one pass for d dimensions through reprieve_removed_pods), plus
// (v + 1) two-pass fit checks and O(v · b) budget visits for b budgets per pod; a node rejected at
// step 4 through remove_lower_priority_pods costs what the state's member costs (O(log k) for
// model::resource_fit_state). Allocation: none once `scratch` has seen a node of this size and
// budget count (or after scratch.reserve). Exceptions: none of its own; whatever the caller's hooks
// throw passes through. Thread-safety: the scratch and the state are mutated; give each thread its
// own. The result refers to the scratch and to the node's pods: it is valid until the scratch is
// used again or the node changes.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_VICTIM_SELECTION_HPP
#define PREEMPT_VICTIM_SELECTION_HPP

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <ranges>
#include <span>
#include <vector>

#include "preempt/budget.hpp"
#include "preempt/config.hpp"
#include "preempt/detail/budget_charging.hpp"
#include "preempt/detail/go_sort.hpp"
#include "preempt/detail/policy_memory.hpp"
#include "preempt/detail/requirements.hpp"
#include "preempt/detail/victim_order.hpp"
#include "preempt/detail/victim_policy_traits.hpp"
#include "preempt/node.hpp"
#include "preempt/node_state.hpp"
#include "preempt/nominated_fit.hpp"
#include "preempt/pod.hpp"
#include "preempt/policy.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN

// The outcome of victim selection on one node.
template <class P>
struct victim_selection {
  // success when the node is a candidate; otherwise why it is not.
  status outcome;
  // The victims in upstream's order, descending importance (empty unless outcome is success).
  std::span<const P* const> victims;
  // How many victims violate a disruption budget.
  std::int64_t pdb_violations = 0;

  constexpr bool is_candidate() const noexcept { return outcome.is_success(); }
};

// Reusable working memory for select_victims (defined below).
template <class P, class Allocator = std::allocator<P>>
class victim_scratch;

namespace detail {

// Step 1: the node's pods of lower priority than the preemptor that the policy deems eligible,
// appended to `entries` in node order.
template <class P, class N, class Entries, class Policy>
void collect_potential_victims(const P& preemptor, const N& node, Entries& entries,
                               const Policy& policy) {
  const std::int32_t preemptor_priority = ::preempt::priority_of(preemptor);
  std::size_t index = 0;
  for (const P& p : ::preempt::pods_of(node)) {
    if (::preempt::priority_of(p) < preemptor_priority &&
        policy.is_eligible_victim(node, p, preemptor))
      entries.push_back({&p, detail::cache_position(node, index), false, false});
    ++index;
  }
}

// A successful selection. Through a function so that the violation count is not a constant
// where the result is built: g++ clears the whole result (rep stos) before an aggregate
// initialization from status::ok() and constants, a fixed cost as large as a short walk.
template <class P>
victim_selection<P> successful_selection(std::span<const P* const> victims,
                                         std::int64_t violations) noexcept {
  return {status::ok(), victims, violations};
}

// Upstream's SelectVictimsOnNode, pod by pod; select_victims comes here past its one-pass paths,
// with steps 2-4 already taken when `removed` (every potential victim was removed at once,
// remove_lower_priority_pods, and the preemptor fits). Its own function, so that the one-pass
// paths keep a small frame.
//   1. Potential victims: the node's pods of strictly lower priority that the policy deems
//      eligible, in node order.
//   2. Every potential victim is removed from the state.
//   3. None ⇒ unschedulable_and_unresolvable "No preemption victims found for incoming pod".
//   4. The preemptor must fit with the nominated pods (two-pass rule); if not, that status is the
//      answer (e.g. "Insufficient cpu").
//   5. Potential victims are ordered by descending importance (detail/victim_order.hpp: as
//      upstream's sort.Slice, starting from the cache's order of the node's pods).
//   6. Budget classification on a fresh copy of every budget (detail/budget_charging.hpp): a pod
//      that drives a budget below zero is "violating".
//   7. Reprieve: violating pods first, then the others, each in importance order: add it back; if
//      the preemptor no longer fits, remove it again and it becomes a victim (a violating victim
//      counts one budget violation).
// The victims come out as upstream's: the violating ones, then the others, re-sorted by importance
// (sort.Slice) when both kinds of potential victims existed.
template <class N, class S, class B, class Nominated, class Allocator, class Policy>
[[gnu::noinline]] victim_selection<node_pod_t<N>> select_one_by_one(
    const node_pod_t<N>& preemptor, const N& node, S& state, const B& budgets,
    const Nominated& nominated, victim_scratch<node_pod_t<N>, Allocator>& scratch,
    const Policy& policy, bool removed) {
  using P = node_pod_t<N>;
  using entry = typename victim_scratch<P, Allocator>::entry;
  auto& entries = scratch.entries();
  const bool no_nominees = std::ranges::begin(nominated) == std::ranges::end(nominated);
  constexpr bool has_can_fit = requires(S& s) {
    { s.can_fit(preemptor) } -> std::convertible_to<bool>;
  };
  // Without nominated pods and with the state's cheap can_fit, the fit is asked as yes or no,
  // and only a node that fails builds its status, directly in the returned selection (the
  // caller's storage): the status is written once, not copied out of a temporary.
  const bool fast_fit = has_can_fit && no_nominees;
  if (removed) {  // steps 2 and 3 taken by remove_lower_priority_pods
    // 4. The preemptor fits with the nominated pods.
    if (fast_fit) {
      if (!detail::passes(state, preemptor)) return {status(state.fits(preemptor)), {}, 0};
    } else if (status st = preempt::fits_with_nominated(state, preemptor, nominated); !st) {
      return {st, {}, 0};
    }
    // 1. The potential victims.
    detail::collect_potential_victims(preemptor, node, entries, policy);
  }
  if (!removed) {
    // 1. The potential victims.
    detail::collect_potential_victims(preemptor, node, entries, policy);
    // 2. Every one removed from the state.
    for (const entry& e : entries) {
      status st = state.remove_pod(*e.pod);
      if (!st) return {st, {}, 0};
    }
    // 3. None: no preemption on this node.
    if (entries.empty()) return {status::unresolvable(no_victims_reason), {}, 0};

    // 4. The preemptor fits with the nominated pods.
    if (fast_fit) {
      if (!detail::passes(state, preemptor)) return {status(state.fits(preemptor)), {}, 0};
    } else if (status st = preempt::fits_with_nominated(state, preemptor, nominated); !st) {
      return {st, {}, 0};
    }
  }

  // 5. Descending importance, as upstream's sort.Slice.
  const std::span<entry> ordered(entries.data(), entries.size());
  detail::order_by_importance(ordered, policy);
  // 6. Which potential victims violate a budget.
  detail::classify_budget_violations(ordered, budgets, scratch);

  // 7. Reprieve: the violating pods, then the others.
  std::int64_t violations = 0;
  // Without nominated pods the two-pass fit is the plain fit (no status to build per pod).
  const auto reprieve = [&](entry& e) -> status {
    if (status st = state.add_pod(*e.pod); !st) return st;
    if (no_nominees) {
      if (detail::passes(state, preemptor)) return status::ok();
    } else {
      const status fit = preempt::passes_with_nominated(state, preemptor, nominated);
      if (fit.code() == status_code::error) return fit;
      if (fit) return status::ok();
    }
    if (status st = state.remove_pod(*e.pod); !st) return st;
    e.victim = true;
    if (e.violating) ++violations;
    return status::ok();
  };
  for (entry& e : ordered)
    if (e.violating)
      if (status st = reprieve(e); !st) return {st, {}, 0};
  for (entry& e : ordered)
    if (!e.violating)
      if (status st = reprieve(e); !st) return {st, {}, 0};

  // As upstream appends them: the violating victims, then the others; re-sorted by importance
  // (sort.Slice again) when there were potential victims of both kinds.
  auto& victims = scratch.victims();
  victims.clear();
  bool any_violating = false, any_other = false;
  for (const entry& e : ordered) (e.violating ? any_violating : any_other) = true;
  if (any_violating && any_other) {
    // The victims keep the moment they were built (their entries): sort.Slice again over them.
    auto& chosen = scratch.chosen_entries();
    chosen.clear();
    for (const entry& e : ordered)
      if (e.victim && e.violating) chosen.push_back(e);
    for (const entry& e : ordered)
      if (e.victim && !e.violating) chosen.push_back(e);
    detail::go_sort_slice(chosen.begin(), chosen.end(), [&](const entry& a, const entry& b) {
      return detail::more_important_victim(a, b, policy);
    });
    for (const entry& e : chosen) victims.push_back(e.pod);
  } else {
    for (const entry& e : ordered)
      if (e.victim) victims.push_back(e.pod);
  }
  return {status::ok(), {scratch.victims().data(), scratch.victims().size()}, violations};
}

}  // namespace detail

// Without nominated pods, under default_policy, a state with remove_lower_priority_pods and
// reprieve_removed_pods (model::resource_fit_state) takes steps 2-7 in one pass over the removed
// pods, which it walks in the node's importance order (checking that it is strict): no entries, no
// sort, no call per pod; a node where the preemptor does not fit is rejected with the status the
// reprieve gives (reprieve_removed_pods with a status&, when the state offers it), without a
// second fit check. With budgets (a state with removed_pods as well), a node where the preemptor
// does not fit is rejected before any pod is charged; elsewhere step 6 charges the removed pods in
// that order first and the state reprieves the violating ones, then the others (when none
// violates, through its reprieve without budgets). The answer is the same as step by step.
template <node N, node_state<node_pod_t<N>> S, budget_set<node_pod_t<N>> B,
          nominated_range<node_pod_t<N>> Nominated, class Allocator,
          victim_policy<N, node_pod_t<N>> Policy = default_policy>
[[gnu::noinline]] victim_selection<node_pod_t<N>> select_victims(
    const node_pod_t<N>& preemptor, const N& node, S& state, const B& budgets,
    const Nominated& nominated, victim_scratch<node_pod_t<N>, Allocator>& scratch,
    const Policy& policy = {}) {
  using P = node_pod_t<N>;
  // A policy that selects victims its own way (preempt/preemption_policies.hpp) does so here.
  if constexpr (requires {
                  policy.select_victims_on_node(preemptor, node, state, budgets, nominated,
                                                scratch);
                })
    return policy.select_victims_on_node(preemptor, node, state, budgets, nominated, scratch);
  scratch.start_node(budgets.budget_count());
  const std::int32_t preemptor_priority = ::preempt::priority_of(preemptor);
  const bool no_nominees = std::ranges::begin(nominated) == std::ranges::end(nominated);
  // Steps 2-4 at once when the state sums the node's pods by priority and every lower-priority
  // pod is eligible: a node where the preemptor cannot fit is rejected without visiting its pods.
  bool removed = false;
  if constexpr (removes_lower_priority_pods<S> &&
                detail::every_lower_priority_pod_eligible<Policy, N, P>()) {
    if (const std::optional<std::size_t> count =
            state.remove_lower_priority_pods(preemptor_priority)) {
      if (*count == 0) return {status::unresolvable(no_victims_reason), {}, 0};
      // Steps 4-7 in one pass over the removed pods when the state offers it and nothing else
      // takes part: no budget, no nominated pod, default_policy's importance order. When it
      // declines (the preemptor does not fit, pods not strictly in importance order), the state
      // is as the removal left it and the steps are taken one by one.
      if constexpr (reprieves_removed_pods<S, P> && detail::default_importance_order<Policy, P>()) {
        if (no_nominees && budgets.budget_count() == 0) {
          const std::span<const P*> room = scratch.victim_room(*count);
          if constexpr (reprieves_removed_pods_or_rejects<S, P>) {
            // A node where the preemptor does not fit is rejected with the reprieve's fit check.
            status rejection;
            if (const std::optional<std::size_t> chosen = state.reprieve_removed_pods(
                    preemptor, ::preempt::detail::now_of(policy), room, rejection))
              return detail::successful_selection<P>(room.first(*chosen), 0);
            if (!rejection) return {rejection, {}, 0};
          } else if (const std::optional<std::size_t> chosen = state.reprieve_removed_pods(
                         preemptor, ::preempt::detail::now_of(policy), room)) {
            return detail::successful_selection<P>(room.first(*chosen), 0);
          }
        } else if constexpr (reprieves_removed_pods_with_budgets<S, P>) {
          if (no_nominees) {
            // With budgets: step 4 first, as upstream checks the fit before the budgets (a node
            // without room is left to select_one_by_one, which gives the fit's status, no pod
            // charged); then step 6 on the removed pods in the order the state walks them (its
            // reprieve declines unless that is the strict importance order), then steps 5 and 7
            // in the state's two passes.
            const std::span<const P> pods = state.removed_pods();
            if (pods.size() == *count && detail::passes(state, preemptor)) {
              const std::span<std::uint8_t> flags = scratch.flag_room(*count);
              const bool any_violating = detail::violation_flags(pods, budgets, scratch, flags);
              const std::span<const P*> room = scratch.victim_room(*count);
              if (!any_violating) {
                // No violating pod: the first pass adds nothing back, and the reprieve without
                // budgets chooses the same victims.
                if (const std::optional<std::size_t> chosen = state.reprieve_removed_pods(
                        preemptor, ::preempt::detail::now_of(policy), room))
                  return detail::successful_selection<P>(room.first(*chosen), 0);
              } else if (const std::optional<std::size_t> chosen = state.reprieve_removed_pods(
                             preemptor, ::preempt::detail::now_of(policy), room, flags)) {
                return detail::successful_selection<P>(room.first(*chosen),
                                                       detail::violating_victims(flags));
              }
              scratch.start_node(budgets.budget_count());  // the budget copies start over
            }
          }
        }
      }
      removed = true;
    }
  }
  return detail::select_one_by_one(preemptor, node, state, budgets, nominated, scratch, policy,
                                   removed);
}

// select_victims without nominated pods.
template <node N, node_state<node_pod_t<N>> S, budget_set<node_pod_t<N>> B, class Allocator,
          victim_policy<N, node_pod_t<N>> Policy = default_policy>
victim_selection<node_pod_t<N>> select_victims(const node_pod_t<N>& preemptor, const N& node,
                                               S& state, const B& budgets,
                                               victim_scratch<node_pod_t<N>, Allocator>& scratch,
                                               const Policy& policy = {}) {
  return preempt::select_victims(preemptor, node, state, budgets, no_nominated_pods<node_pod_t<N>>,
                                 scratch, policy);
}

// A node type that does not model preempt::node: the reasons, each once (detail/requirements.hpp).
template <class Preemptor, class N, class... Rest>
  requires(!node<N>)
victim_selection<detail::rejected_pod> select_victims(const Preemptor&, const N&, Rest&&...) {
  static_assert(detail::explain_node<N>() || true);
  return {};
}

// Reusable working memory for select_victims. One per thread; it grows to the largest node and
// budget count it has seen and never shrinks, so steady-state selection allocates nothing.
template <class P, class Allocator>
class victim_scratch {
 public:
  struct entry {
    const P* pod;
    std::uint32_t position;  // in the cache's order of the node's pods (see detail::cache_position)
    bool violating;
    bool victim;
  };

  victim_scratch() = default;
  explicit victim_scratch(const Allocator& alloc)
      : entries_(alloc),
        chosen_(alloc),
        victims_(alloc),
        flags_(alloc),
        copies_(alloc),
        policy_(alloc) {}

  // Makes room for nodes of up to `pods` pods and for `budgets` budgets.
  void reserve(std::size_t pods, std::size_t budgets) {
    entries_.reserve(pods);
    chosen_.reserve(pods);
    victims_.reserve(pods);
    flags_.reserve(pods);
    grow_budgets(budgets);
  }
  // The most pods one of its per-pod buffers has room for: the largest node a selection on this
  // scratch has needed so far, whichever buffers its path used (the one-pass reprieve uses the
  // victims and the flags only, the pod-by-pod path the entries and the victims). Another scratch
  // reserved for that many pods selects on the same nodes without growing.
  std::size_t pods_reserved() const noexcept {
    return std::max({entries_.capacity(), victims_.capacity(), flags_.capacity()});
  }

  // Takes one disruption from the current node's copy of budget i (copied from the budget set the
  // first time the node touches it); true when that drives the copy below zero. A copy below zero
  // stays there (at -1 or its negative allowed count): no further count can bring it back.
  template <class B>
  bool charge(std::size_t i, const B& budgets) {
    return charger_for_node()(i, budgets);
  }

 private:
  // A budget's remaining disruptions for the node evaluation of that generation (one word: one
  // cache line read per charge).
  struct budget_copy {
    std::uint32_t generation;
    std::int32_t remaining;
  };

 public:
  // charge for a loop over many pods: the copies and the generation held in locals, so that
  // writing a copy does not make the compiler read the generation again. Valid until the next
  // start_node.
  class charger {
   public:
    // The copy written back whole (one store): a copy at zero or below violates, one below zero
    // keeps its count.
    template <class B>
    [[gnu::always_inline]] inline bool operator()(std::size_t i, const B& budgets) const {
      budget_copy& c = copies_[i];
      std::int32_t left = c.remaining;
      if (c.generation != generation_)
        left = static_cast<std::int32_t>(budgets.disruptions_allowed(i));
      c = budget_copy{generation_, left >= 0 ? left - 1 : left};
      return left <= 0;
    }

   private:
    friend class victim_scratch;
    charger(budget_copy* copies, std::uint32_t generation) noexcept
        : copies_(copies), generation_(generation) {}
    budget_copy* copies_;
    std::uint32_t generation_;
  };
  charger charger_for_node() noexcept { return charger(copies_.data(), generation_); }

  // Starts a node evaluation: forgets the previous node's potential victims and all budget
  // copies (select_victims rewrites the victims).
  void start_node(std::size_t budgets) {
    entries_.clear();
    grow_budgets(budgets);
    if (++generation_ == 0) {  // wrapped: every stamp could look current again
      for (budget_copy& c : copies_) c.generation = 0;
      generation_ = 1;
    }
  }

  template <class T>
  using rebound = typename std::allocator_traits<Allocator>::template rebind_alloc<T>;

  // The potential victims of the current node and the chosen victims (used by select_victims).
  std::vector<entry, rebound<entry>>& entries() noexcept { return entries_; }
  // The victims' entries, when they are sorted again (violating and other victims both).
  std::vector<entry, rebound<entry>>& chosen_entries() noexcept { return chosen_; }
  std::vector<const P*, rebound<const P*>>& victims() noexcept { return victims_; }
  // Room for n victims written in place (the victims vector, grown when needed, never shrunk
  // here: its contents are the caller's until the next node).
  std::span<const P*> victim_room(std::size_t n) {
    if (victims_.size() < n) victims_.resize(n);
    return {victims_.data(), n};
  }
  // n flags, one per removed pod, for the one-pass reprieve with budgets (contents unspecified).
  std::span<std::uint8_t> flag_room(std::size_t n) {
    if (flags_.size() < n) flags_.resize(n);
    return {flags_.data(), n};
  }
  // The working memory of a policy's own victim search (preempt/policy_selection.hpp).
  detail::policy_memory<P, Allocator>& policy_memory() noexcept { return policy_; }

 private:
  void grow_budgets(std::size_t budgets) {
    if (copies_.size() < budgets) copies_.resize(budgets, budget_copy{0u, 0});
  }

  std::vector<entry, rebound<entry>> entries_;
  std::vector<entry, rebound<entry>> chosen_;
  std::vector<const P*, rebound<const P*>> victims_;
  std::vector<std::uint8_t, rebound<std::uint8_t>> flags_;
  std::vector<budget_copy, rebound<budget_copy>> copies_;
  std::uint32_t generation_ = 0;
  detail::policy_memory<P, Allocator> policy_;
};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_VICTIM_SELECTION_HPP
