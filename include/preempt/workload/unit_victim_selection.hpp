// preempt/workload/unit_victim_selection.hpp - the victims on one node when pod groups are victims
// (Kubernetes v1.37 SelectVictimsOnNode with GenericWorkload: pod groups are evicted as units).
//
// select_unit_victims(preemptor, x, cluster, state, units, budgets, nominated, scratch, policy)
// follows upstream's SelectVictimsOnNode on node x, given the cluster's victim units
// (build_victim_units, built once per decision), in upstream's six steps (listed at
// select_unit_victims_fn): potential victim units, removed (their members elsewhere through
// remove_pod_elsewhere where the state offers it), the fit with the nominated pods, importance
// order and budgets, and the reprieve of whole units. Without pod groups (no_groups) every unit is
// one pod and the answer is select_victims' (preempt/victim_selection.hpp): the same order, budgets
// and victims.
//
// Complexity: O(p + v log v + (v + 1) fit checks + m · b) for p pods on x, v potential units, m
// their members, b budgets per pod. Allocation: none once the scratch has seen a node this size.
// Exceptions: none of its own. Thread-safety: the scratch and the state are mutated; one per
// thread; `units` is only read and may be shared.
//
// The result refers to the scratch and to the cluster's pods.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WORKLOAD_UNIT_VICTIM_SELECTION_HPP
#define PREEMPT_WORKLOAD_UNIT_VICTIM_SELECTION_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "preempt/budget.hpp"
#include "preempt/cluster.hpp"
#include "preempt/config.hpp"
#include "preempt/detail/go_sort.hpp"
#include "preempt/node_state.hpp"
#include "preempt/nominated_fit.hpp"
#include "preempt/nominations.hpp"
#include "preempt/policy.hpp"
#include "preempt/policy_1_38.hpp"
#include "preempt/status.hpp"
#include "preempt/victim_selection.hpp"
#include "preempt/workload/build_victim_units.hpp"
#include "preempt/workload/unit_budgets.hpp"
#include "preempt/workload/unit_eligibility.hpp"
#include "preempt/workload/victim_unit.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace workload {

// Working memory of select_unit_victims; one per thread.
template <class P, class Allocator = std::allocator<P>>
class unit_selection_scratch {
 public:
  template <class T>
  using rebound = typename std::allocator_traits<Allocator>::template rebind_alloc<T>;

  unit_selection_scratch() = default;
  explicit unit_selection_scratch(const Allocator& alloc)
      : ranked_(alloc),
        chosen_(alloc),
        victims_(alloc),
        stamps_(alloc),
        where_(alloc),
        tally_(alloc) {}

  void reserve(std::size_t units, std::size_t pods, std::size_t budgets) {
    ranked_.reserve(units);
    chosen_.reserve(units);
    victims_.reserve(pods);
    tally_.reserve(budgets);
  }

  // What the selections on this scratch have needed so far: the units met on one node, the units
  // of the cluster (one stamp each) and the victims of one node. Another scratch given reserve(r,
  // budgets) selects on the same nodes without growing.
  struct room {
    std::size_t node_units = 0;
    std::size_t units = 0;
    std::size_t pods = 0;
  };
  room reserved() const noexcept {
    return {std::max(ranked_.capacity(), chosen_.capacity()), stamps_.capacity(),
            victims_.capacity()};
  }
  void reserve(const room& r, std::size_t budgets) {
    reserve(r.node_units, r.pods, budgets);
    stamps_.reserve(r.units);
    where_.reserve(r.units);
  }

 private:
  friend struct select_unit_victims_fn;

  void start(std::size_t units) {
    ranked_.clear();
    chosen_.clear();
    victims_.clear();
    if (stamps_.size() < units) stamps_.resize(units, 0u);
    if (where_.size() < units) where_.resize(units, 0u);
    if (++generation_ == 0) {
      std::fill(stamps_.begin(), stamps_.end(), 0u);
      generation_ = 1;
    }
  }

  std::vector<ranked_unit, rebound<ranked_unit>> ranked_;
  std::vector<ranked_unit, rebound<ranked_unit>> chosen_;  // the victim units, in upstream's order
  std::vector<const P*, rebound<const P*>> victims_;
  std::vector<std::uint32_t, rebound<std::uint32_t>> stamps_;  // per unit: met on this node
  std::vector<std::uint32_t, rebound<std::uint32_t>> where_;   // per unit met: its ranked_ entry
  budget_tally<rebound<std::int64_t>> tally_;
  std::uint32_t generation_ = 0;
};

// select_unit_victims: upstream's SelectVictimsOnNode on node x with victim units:
//   1. Potential victims: the units with a member on node x, met in x's pod order, of strictly
//      lower priority than the preemptor pod (a member's priority is its group's; with a v1.38
//      policy the unit's is the own priority of its first member in x's cache order) and eligible
//      on every node that hosts a member (unit_eligible_everywhere).
//   2. Their members on node x are removed from x's state; for members on other nodes upstream
//      only updates its PreFilter state (RemovePod with that node), which a state offering
//      remove_pod_elsewhere/add_pod_elsewhere does too (kubernetes::filter_cluster: spread and
//      inter-pod affinity counts); the fit is checked on x alone. Adding a unit back does the
//      same in reverse. Members are visited in the unit's order.
//   3. None => unschedulable_and_unresolvable "No preemption victims found for incoming pod".
//   4. The preemptor must fit with the nominated pods, or that status is the answer.
//   5. Units in descending importance (more_important_unit; with a v1.38 policy a missing start
//      time is the latest instant and the first members' UIDs break ties), sorted as Go's
//      sort.Slice does over the units in x's cache order (detail::go_sort_slice), classified by
//      budgets (classify_unit_budgets: a unit violates if any member does).
//   6. Reprieve, violating units first, then the others, each most important first: the unit's
//      members on x are added back; if the preemptor no longer fits they are removed again and the
//      unit is a victim (a violating unit adds its violating members to the count).
// The victims are every member (on any node) of the victim units, units as upstream lists them:
// the violating ones, then the others, re-sorted by importance when both kinds were potential.
struct select_unit_victims_fn {
  template <cluster C, class S, class UnitAlloc, class B, class Nominated, class Allocator,
            class Policy = default_policy>
    requires node_state<S, cluster_pod_t<C>> && budget_set<B, cluster_pod_t<C>> &&
             nominated_range<Nominated, cluster_pod_t<C>>
  victim_selection<cluster_pod_t<C>> operator()(
      const cluster_pod_t<C>& preemptor, std::size_t x, const C& cluster, S& state,
      const unit_scratch<cluster_pod_t<C>, UnitAlloc>& units, const B& budgets,
      const Nominated& nominated, unit_selection_scratch<cluster_pod_t<C>, Allocator>& scratch,
      const Policy& policy = {}) const {
    using P = cluster_pod_t<C>;
    const std::span<const victim_unit> all = units.units();
    scratch.start(all.size());
    auto& ranked = scratch.ranked_;

    // Each unit stands where upstream builds it: at its first member in the cache's order of x.
    // v1.38 gives it that member's own priority (getCrossNodesVictims on node x): the units met
    // are ranked first, each with the priority of its member first in the cache's order, then
    // kept where eligible with that priority.
    constexpr bool per_node_priority =
        ::preempt::detail::profile_of<Policy>() != upstream_profile::kubernetes_1_37;
    constexpr std::uint32_t not_eligible = static_cast<std::uint32_t>(-1);
    std::size_t k = 0;
    for (const P& p : ::preempt::pods_of(cluster[x])) {
      const std::size_t i = k++;
      if constexpr (per_node_priority) {
        const std::uint32_t u = units.unit_of(x, i);
        const std::uint32_t position = ::preempt::detail::cache_position(cluster[x], i);
        const auto own = static_cast<std::int32_t>(::preempt::priority_of(p));
        if (scratch.stamps_[u] == scratch.generation_) {
          ranked_unit& r = ranked[scratch.where_[u]];
          if (position < r.position) r = ranked_unit{u, 0, false, position, own};
        } else {
          scratch.stamps_[u] = scratch.generation_;
          scratch.where_[u] = static_cast<std::uint32_t>(ranked.size());
          ranked.push_back(ranked_unit{u, 0, false, position, own});
        }
        continue;
      }
      (void)p;
      const std::uint32_t u = units.unit_of(x, i);
      const std::uint32_t position = ::preempt::detail::cache_position(cluster[x], i);
      if (scratch.stamps_[u] == scratch.generation_) {
        if (const std::uint32_t at = scratch.where_[u]; at != not_eligible)
          ranked[at].position = std::min(ranked[at].position, position);
        continue;
      }
      scratch.stamps_[u] = scratch.generation_;
      scratch.where_[u] = not_eligible;
      if (::preempt::workload::unit_eligible_everywhere(all[u], units.members_of(all[u]), cluster,
                                                        preemptor, policy)) {
        scratch.where_[u] = static_cast<std::uint32_t>(ranked.size());
        ranked.push_back(ranked_unit{u, 0, false, position});
      }
    }
    if constexpr (per_node_priority) {
      std::size_t kept = 0;
      for (const ranked_unit& r : ranked) {
        victim_unit on_x = all[r.unit];
        on_x.priority = r.priority;
        if (::preempt::workload::unit_eligible_everywhere(on_x, units.members_of(on_x), cluster,
                                                          preemptor, policy))
          ranked[kept++] = r;
      }
      ranked.resize(kept);
    }

    // Upstream's removeVictim/addVictim: each member of the unit in turn, those on x from x's
    // state, those on other nodes through the state's PreFilter extensions only, when it has them
    // (remove_pod_elsewhere/add_pod_elsewhere: kubernetes::filter_cluster).
    constexpr bool updates_elsewhere = requires(S& s, const P& p, std::size_t n) {
      s.remove_pod_elsewhere(p, n);
      s.add_pod_elsewhere(p, n);
    };
    const auto each_member = [&](const victim_unit& u, auto&& op) -> status {
      for (const unit_member<P>& m : units.members_of(u))
        if (m.node == x || updates_elsewhere)
          if (status st = op(*m.pod, m.node); !st) return st;
      return status::ok();
    };
    const auto remove = [&](const P& p, [[maybe_unused]] std::size_t node) {
      if constexpr (updates_elsewhere)
        if (node != x) return status(state.remove_pod_elsewhere(p, node));
      return status(state.remove_pod(p));
    };
    const auto add = [&](const P& p, [[maybe_unused]] std::size_t node) {
      if constexpr (updates_elsewhere)
        if (node != x) return status(state.add_pod_elsewhere(p, node));
      return status(state.add_pod(p));
    };

    for (const ranked_unit& r : ranked)
      if (status st = each_member(all[r.unit], remove); !st) return {st, {}, 0};
    if (ranked.empty()) return {status::unresolvable(no_victims_reason), {}, 0};
    if (status st = ::preempt::fits_with_nominated(state, preemptor, nominated); !st)
      return {st, {}, 0};

    // Upstream's sort.Slice by importance over the units in the cache's order of node x. Equally
    // important units stay where Go's pdqsort leaves them; a unit without a recorded start time
    // stands for the moment it was built, in that order (policy.hpp).
    // v1.38 (a policy with that profile) reads a missing start time as the latest instant and
    // breaks the remaining ties by the units' first pods' UIDs (podIdentityLess).
    const auto more_important = [&](const ranked_unit& a, const ranked_unit& b) {
      victim_unit ua = all[a.unit], ub = all[b.unit];
      if constexpr (per_node_priority) {
        ua.order = ub.order = 0;
        ua.priority = a.priority;
        ub.priority = b.priority;
        if (::preempt::workload::more_important_unit(ua, ub)) return true;
        if (::preempt::workload::more_important_unit(ub, ua)) return false;
        return ::preempt::detail::identity_less(policy, *units.members_of(ua).front().pod,
                                                *units.members_of(ub).front().pod);
      } else {
        ua.order = ua.started ? 0 : a.position + 1;
        ub.order = ub.started ? 0 : b.position + 1;
        return ::preempt::workload::more_important_unit(ua, ub);
      }
    };
    std::sort(ranked.begin(), ranked.end(),
              [](const ranked_unit& a, const ranked_unit& b) { return a.position < b.position; });
    ::preempt::detail::go_sort_slice(ranked.begin(), ranked.end(), more_important);
    ::preempt::workload::classify_unit_budgets(std::span<ranked_unit>(ranked), all, units, budgets,
                                               scratch.tally_);

    std::int64_t violations = 0;
    const auto reprieve = [&](ranked_unit& r) -> status {
      if (status st = each_member(all[r.unit], add); !st) return st;
      const status fit = ::preempt::passes_with_nominated(state, preemptor, nominated);
      if (fit.code() == status_code::error) return fit;
      if (fit) return status::ok();
      if (status st = each_member(all[r.unit], remove); !st) return st;
      r.victim = true;
      violations += r.violations;
      return status::ok();
    };
    for (ranked_unit& r : ranked)
      if (r.violations != 0)
        if (status st = reprieve(r); !st) return {st, {}, 0};
    for (ranked_unit& r : ranked)
      if (r.violations == 0)
        if (status st = reprieve(r); !st) return {st, {}, 0};

    // As upstream appends them: the violating victim units, then the others; re-sorted by
    // importance (sort.Slice again) when there were potential units of both kinds.
    bool any_violating = false, any_other = false;
    for (const ranked_unit& r : ranked) (r.violations != 0 ? any_violating : any_other) = true;
    auto& chosen = scratch.chosen_;
    for (const ranked_unit& r : ranked)
      if (r.victim && r.violations != 0) chosen.push_back(r);
    for (const ranked_unit& r : ranked)
      if (r.victim && r.violations == 0) chosen.push_back(r);
    if (any_violating && any_other)
      ::preempt::detail::go_sort_slice(chosen.begin(), chosen.end(), more_important);
    for (const ranked_unit& r : chosen)
      for (const unit_member<P>& m : units.members_of(all[r.unit]))
        scratch.victims_.push_back(m.pod);
    return {status::ok(), {scratch.victims_.data(), scratch.victims_.size()}, violations};
  }
};
inline constexpr select_unit_victims_fn select_unit_victims{};

}  // namespace workload
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_WORKLOAD_UNIT_VICTIM_SELECTION_HPP
