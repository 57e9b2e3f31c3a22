// preempt/workload/group_evaluator.hpp - victims for a pod group (Kubernetes
// PodGroupEvaluator.Preempt and selectVictimsOnDomain, KEP-5710 workload-aware preemption, the
// in-place reprieve of v1.37).
//
// pod_group_evaluator::evaluate(preemptor, cluster, groups, budgets, nominations, place
//                                [, scan_order]):
//   eligibility (group_eligibility), the cluster's victim units (build_victim_units), every
//   potential victim removed, one placement on that victim-free cluster (the caller's
//   placement_function), units ordered and classified by budgets, then the in-place reprieve of
//   whole units; the victims are whole units, the nominations every placed member. The seven
//   steps, and what upstream_profile::kubernetes_1_38 changes, are at evaluate.
//
// Beyond upstream: the importance order is total (construction order last; missing start times
// read as config.now, not the wall clock), so the same input gives the same answer.
//
// Complexity: O(n + p · max_tree_depth + u log u + u · (m + k · f)) for n nodes, p pods, u
// potential victim units, m members per unit, k placed members and f the cost of one fit check
// with nominated pods; plus the placement. Allocation: none once the evaluator has seen a cluster
// of this size (or after reserve). Exceptions: none of its own; the caller's hooks may throw.
// Thread-safety: one evaluation at a time per evaluator.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WORKLOAD_GROUP_EVALUATOR_HPP
#define PREEMPT_WORKLOAD_GROUP_EVALUATOR_HPP

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <vector>

#include "preempt/budget.hpp"
#include "preempt/cluster.hpp"
#include "preempt/config.hpp"
#include "preempt/detail/go_sort.hpp"
#include "preempt/nominated_fit.hpp"
#include "preempt/nominations.hpp"
#include "preempt/pod.hpp"
#include "preempt/policy_1_38.hpp"
#include "preempt/status.hpp"
#include "preempt/upstream_profile.hpp"
#include "preempt/workload/build_victim_units.hpp"
#include "preempt/workload/group_decision.hpp"
#include "preempt/workload/group_preemptor.hpp"
#include "preempt/workload/group_set.hpp"
#include "preempt/workload/placement.hpp"
#include "preempt/workload/unit_budgets.hpp"
#include "preempt/workload/unit_eligibility.hpp"
#include "preempt/workload/victim_cost_ranking.hpp"
#include "preempt/workload/victim_unit.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace workload {

struct group_evaluator_config {
  // The start time assumed for pods that have none (upstream: the wall clock).
  timestamp now = 0;
  // The kube-scheduler release decided as (see the header comment).
  upstream_profile profile = default_upstream_profile;
};

template <cluster C, class Clock = std::chrono::steady_clock,
          class Allocator = std::allocator<cluster_pod_t<C>>>
class pod_group_evaluator {
 public:
  using pod_type = cluster_pod_t<C>;
  static_assert(detail::member_cluster<C>,
                "pod_group_evaluator reads the cluster's members: for a cluster adapted through "
                "preempt::cluster_traits, pass preempt::cluster_view<C>");
  using state_type = typename C::state_type;
  using decision_type = group_decision<pod_type>;

  explicit pod_group_evaluator(group_evaluator_config cfg = {}, const Allocator& alloc = {})
      : cfg_(cfg),
        units_(alloc),
        tally_(alloc),
        states_(alloc),
        ranked_(alloc),
        chosen_(alloc),
        assignment_(alloc),
        nominations_(alloc),
        victims_(alloc),
        placed_(alloc),
        ranking_(alloc) {}

  const group_evaluator_config& config() const noexcept { return cfg_; }
  void set_now(timestamp now) noexcept { cfg_.now = now; }

  // Room for a cluster of `pods` pods, `groups` groups, `budgets` budgets, and a preemptor of
  // `members` members.
  void reserve(std::size_t pods, std::size_t groups, std::size_t budgets, std::size_t members) {
    units_.reserve(pods, groups);
    tally_.reserve(budgets);
    ranked_.reserve(pods);
    chosen_.reserve(pods);
    victims_.reserve(pods);
    assignment_.reserve(members);
    nominations_.reserve(members);
    placed_.reserve(members);
  }

  // The decision for `preemptor`:
  //   1. Eligibility (group_eligibility): policy Never => not_eligible; a lower-priority pod
  //      terminating by preemption on a member's nominated node => ongoing, with every member's
  //      current nomination, and nothing else is done.
  //   2. Victim units of the whole cluster (build_victim_units, the nodes scanned in scan_order
  //   when
  //      given: upstream scans its snapshot's node list); the potential victims are the units
  //      of strictly lower priority than the group (terminating pods included). None =>
  //      unschedulable_and_unresolvable "No preemption victims found for incoming preemptor".
  //   3. Every node's state is prepared and every member of every potential victim is removed.
  //   4. One placement (the caller's placement_function) on that victim-free cluster. Not success
  //      => its status, unchanged. The placed members, in member order, are the only candidate:
  //      no search among placements, no node sampling, no scoring.
  //   5. Potential victims in descending importance (more_important_unit), classified by budgets
  //      (classify_unit_budgets).
  //   6. In-place reprieve, violating units first, then the others, each most important first: the
  //      unit's members are added back; every placed member is checked on its node, in member
  //      order, with the nominated pods (passes_with_nominated) and, when it fits, added so that
  //      later members see it. If all still fit the unit is reprieved, else its members are removed
  //      again and it is a victim (a violating unit adds its violating members to the PDB count).
  //      The placed members are removed again either way. So a unit is restored or evicted whole,
  //      and the number of placed members never goes down. When the placement keeps assignment
  //      states (placement.hpp), the unit's pods are added to (and removed from) each of them, on
  //      other nodes through the PreFilter extensions, and each member is checked with its own
  //      state.
  //   7. Victims: whole units in descending importance; nominations: every placed member.
  // A success may have no victims (the placement needed no eviction).
  //
  // Under upstream_profile::kubernetes_1_38 (config.profile; preempt/upstream_profile.hpp), as
  // v1.38's GenerateVictims, PodGroupEvaluator and DefaultPreemption's RankNodes do: step 1
  // looks for an ongoing preemption before the policy (a waiting group with policy Never is
  // ongoing); step 2 builds the units as v1.38 does (build_victim_units with the profile: own
  // priorities, a missing start time the latest instant) and its "no victims" is unschedulable;
  // step 5 comes before the placement, its order broken last by `identity_less` on the units'
  // first pods (podIdentityLess: by default uid_order); step 4 hands a placement that takes it a
  // victim_cost_ranking of the potential units (f(members, states, out, ranking): the nodes ranked
  // by the victims a member would condemn there, Reserve and Unreserve); step 7 lists the victim
  // units as step 6 evicted them (violating units first), without sorting them again.
  template <class W, class B, class N, class F, class IdentityLess = uid_order>
    requires group_set<W, pod_type> && budget_set<B, pod_type> && nominations_of<N, pod_type> &&
             placement_function<F, pod_type, state_type>
  const decision_type& evaluate(const group_preemptor<pod_type>& preemptor, const C& cluster,
                                const W& groups, const B& budgets, const N& nominations, F&& place,
                                std::span<const std::size_t> scan_order = {},
                                const IdentityLess& identity_less = {}) {
    decision_ = decision_type{};
    victims_.clear();
    nominations_.clear();
    ::preempt::detail::check_nodes_not_copied(cluster);

    switch (eligibility(preemptor, cluster, groups)) {
      case group_eligibility_kind::not_eligible:
        return finish(group_decision_kind::not_eligible, status::unschedulable(not_eligible_never));
      case group_eligibility_kind::ongoing:
        for (std::size_t i = 0; i < preemptor.members.size(); ++i)
          nominations_.push_back({i, preemptor.nominated_node(i)});
        return finish(group_decision_kind::ongoing,
                      status(status_code::success, ongoing_preemption));
      case group_eligibility_kind::eligible: break;
    }

    const auto started = Clock::now();
    decision_.evaluated = true;
    const status st =
        select(preemptor, cluster, groups, budgets, nominations, place, scan_order, identity_less);
    decision_.evaluation_time =
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - started);
    if (!st) {
      victims_.clear();
      nominations_.clear();
      decision_.pdb_violations = 0;
      decision_.pod_group_disruptions = 0;
      return finish(st.code() == status_code::error ? group_decision_kind::error
                                                    : group_decision_kind::unschedulable,
                    st);
    }
    std::snprintf(message_.data(), message_.size(),
                  "found a placement for podgroup, preempting %zu victims", victims_.size());
    return finish(group_decision_kind::preempt,
                  status(status_code::success, std::string_view(message_.data())));
  }

  const decision_type& last() const noexcept { return decision_; }

  // The units of the last evaluation (after step 2) and their members.
  const unit_scratch<pod_type, Allocator>& units() const noexcept { return units_; }

 private:
  // group_eligibility, as the profile orders its two checks.
  template <class W>
  group_eligibility_kind eligibility(const group_preemptor<pod_type>& preemptor, const C& cluster,
                                     const W& groups) const {
    const group_eligibility_kind kind =
        ::preempt::workload::group_eligibility(preemptor, cluster, groups);
    if (kind != group_eligibility_kind::not_eligible ||
        !::preempt::group_ongoing_before_policy(cfg_.profile))
      return kind;
    group_preemptor<pod_type> waiting = preemptor;  // v1.38: is it waiting for victims first?
    waiting.policy = preemption_policy::preempt_lower_priority;
    return ::preempt::workload::group_eligibility(waiting, cluster, groups) ==
                   group_eligibility_kind::ongoing
               ? group_eligibility_kind::ongoing
               : group_eligibility_kind::not_eligible;
  }

  const decision_type& finish(group_decision_kind kind, status outcome) {
    decision_.kind = kind;
    decision_.outcome = outcome;
    decision_.victims = {victims_.data(), victims_.size()};
    decision_.nominations = {nominations_.data(), nominations_.size()};
    return decision_;
  }

  template <class W, class B, class N, class F, class IdentityLess>
  status select(const group_preemptor<pod_type>& preemptor, const C& cluster, const W& groups,
                const B& budgets, const N& nominations, F& place,
                std::span<const std::size_t> scan_order, const IdentityLess& identity_less) {
    using P = pod_type;
    const bool v1_38 = cfg_.profile != upstream_profile::kubernetes_1_37;
    const std::size_t nodes = static_cast<std::size_t>(cluster.size());
    if (!scan_order.empty() &&
        (scan_order.size() != nodes || std::any_of(scan_order.begin(), scan_order.end(),
                                                   [&](std::size_t i) { return i >= nodes; })))
      return status::error("the scan order does not list the cluster's nodes");
    const std::span<victim_unit> units = ::preempt::workload::build_victim_units(
        cluster, groups, v1_38 ? ::preempt::detail::latest_time : cfg_.now, units_, scan_order,
        cfg_.profile);

    ranked_.clear();
    for (const victim_unit& u : units)
      if (::preempt::workload::is_potential_victim_unit(u, preemptor.priority))
        ranked_.push_back(ranked_unit{u.order, 0, false});
    if (ranked_.empty())
      return ::preempt::group_without_victims_unresolvable(cfg_.profile)
                 ? status::unresolvable(no_victims_for_group)
                 : status::unschedulable(no_victims_for_group);

    while (states_.size() < nodes) states_.push_back(cluster.make_state());
    for (std::size_t i = 0; i < nodes; ++i) cluster.prepare_state(i, states_[i]);
    const auto remove_unit = [&](const victim_unit& u) -> status {
      for (const unit_member<P>& m : units_.members_of(u))
        if (status st = states_[m.node].remove_pod(*m.pod); !st) return st;
      return status::ok();
    };
    const auto add_unit = [&](const victim_unit& u) -> status {
      for (const unit_member<P>& m : units_.members_of(u))
        if (status st = states_[m.node].add_pod(*m.pod); !st) return st;
      return status::ok();
    };
    for (const ranked_unit& r : ranked_)
      if (status st = remove_unit(units[r.unit]); !st) return st;

    // Upstream's sort.Slice by importance over the potential units in construction order
    // (ranked_ is built in that order): equal units end where Go's pdqsort leaves them; a unit
    // without a recorded start time stands for the moment it was built (policy.hpp). v1.38 breaks
    // the ties left by the units' first pods (podIdentityLess), before the placement (its
    // ranking reads the order and the budgets).
    const auto more_important = [&](const ranked_unit& a, const ranked_unit& b) {
      victim_unit ua = units[a.unit], ub = units[b.unit];
      if (v1_38) {
        ua.order = ub.order = 0;
        if (::preempt::workload::more_important_unit(ua, ub)) return true;
        if (::preempt::workload::more_important_unit(ub, ua)) return false;
        return static_cast<bool>(
            identity_less(*units_.members_of(ua).front().pod, *units_.members_of(ub).front().pod));
      }
      ua.order = ua.started ? 0 : ua.order + 1;
      ub.order = ub.started ? 0 : ub.order + 1;
      return ::preempt::workload::more_important_unit(ua, ub);
    };
    ::preempt::detail::go_sort_slice(ranked_.begin(), ranked_.end(), more_important);
    ::preempt::workload::classify_unit_budgets(std::span<ranked_unit>(ranked_),
                                               std::span<const victim_unit>(units), units_, budgets,
                                               tally_);

    const std::size_t members = preemptor.members.size();
    assignment_.assign(members, no_node);
    node_states<state_type> view(std::span<state_type>(states_.data(), nodes));
    const std::span<std::size_t> out(assignment_);
    status placed;
    if constexpr (requires { place(preemptor.members, view, out, ranking_); }) {
      if (v1_38) {
        ranking_.build(nodes, std::span<const ranked_unit>(ranked_),
                       std::span<const victim_unit>(units), units_);
        placed = place(preemptor.members, view, out, ranking_);
      } else {
        placed = place(preemptor.members, view, out);
      }
    } else {
      placed = place(preemptor.members, view, out);
    }
    if (!placed) return placed;
    for (std::size_t i = 0; i < members; ++i) {
      if (assignment_[i] == no_node) continue;
      if (assignment_[i] >= nodes)
        return status::error("the placement put a member on a node that does not exist");
      nominations_.push_back({i, assignment_[i]});
    }

    // A unit's pods added back (or removed again) reach every placed member's assignment state,
    // when the placement keeps them: on the member's node as pods of that node, elsewhere
    // through the PreFilter extensions (upstream runs AddPod/RemovePod on each proposed
    // assignment's cycle state).
    const auto tell_assignments = [&](const victim_unit& u, bool add) -> status {
      if constexpr (assignment_states<F, P>) {
        for (const member_nomination& nm : nominations_) {
          auto& a = place.assignment_state(nm.member);
          for (const unit_member<P>& m : units_.members_of(u)) {
            status st;
            if (m.node == nm.node) {
              st = add ? a.add_pod(*m.pod) : a.remove_pod(*m.pod);
            } else if constexpr (requires {
                                   a.add_pod_elsewhere(*m.pod, m.node);
                                   a.remove_pod_elsewhere(*m.pod, m.node);
                                 }) {
              st = add ? a.add_pod_elsewhere(*m.pod, m.node)
                       : a.remove_pod_elsewhere(*m.pod, m.node);
            }
            if (!st) return st;
          }
        }
      } else {
        (void)u;
        (void)add;
      }
      return status::ok();
    };

    // Does every placed member still fit, each assumed for the next? Leaves the states as found.
    // With assignment states each member is checked with its own, which counts the members
    // placed before it already (upstream adds them to the snapshot in turn, and their cycle
    // states were made with them assumed).
    const auto placement_fits = [&](bool& fits) -> status {
      fits = true;
      if constexpr (assignment_states<F, P>) {
        for (const member_nomination& nm : nominations_) {
          const status fit = ::preempt::passes_with_nominated(
              place.assignment_state(nm.member), *preemptor.members[nm.member],
              ::preempt::detail::nominated_to<P>(nominations, nm.node));
          if (fit.code() == status_code::error) return fit;
          if (!fit) {
            fits = false;
            break;
          }
        }
        return status::ok();
      }
      placed_.clear();
      status result;
      for (const member_nomination& nm : nominations_) {
        state_type& s = states_[nm.node];
        const P& member = *preemptor.members[nm.member];
        const status fit = ::preempt::passes_with_nominated(
            s, member, ::preempt::detail::nominated_to<P>(nominations, nm.node));
        if (fit.code() == status_code::error) {
          result = fit;
          break;
        }
        if (!fit) {
          fits = false;
          break;
        }
        if (status st = s.add_pod(member); !st) {
          result = st;
          break;
        }
        placed_.push_back(nm);
      }
      for (auto it = placed_.rbegin(); it != placed_.rend(); ++it)
        if (status st = states_[it->node].remove_pod(*preemptor.members[it->member]); !st && result)
          result = st;
      return result;
    };

    std::int64_t violations = 0;
    const auto reprieve = [&](ranked_unit& r) -> status {
      const victim_unit& u = units[r.unit];
      if (status st = add_unit(u); !st) return st;
      if (status st = tell_assignments(u, true); !st) return st;
      bool fits = true;
      if (status st = placement_fits(fits); !st) return st;
      if (fits) return status::ok();
      if (status st = remove_unit(u); !st) return st;
      if (status st = tell_assignments(u, false); !st) return st;
      r.victim = true;
      violations += r.violations;
      return status::ok();
    };
    for (ranked_unit& r : ranked_)
      if (r.violations != 0)
        if (status st = reprieve(r); !st) return st;
    for (ranked_unit& r : ranked_)
      if (r.violations == 0)
        if (status st = reprieve(r); !st) return st;

    // As upstream appends them (violating victims, then the others), sorted by importance again
    // (v1.37) or left in that order (v1.38).
    chosen_.clear();
    for (const ranked_unit& r : ranked_)
      if (r.victim && r.violations != 0) chosen_.push_back(r);
    for (const ranked_unit& r : ranked_)
      if (r.victim && r.violations == 0) chosen_.push_back(r);
    if (!::preempt::group_victims_in_reprieve_order(cfg_.profile))
      ::preempt::detail::go_sort_slice(chosen_.begin(), chosen_.end(), more_important);
    std::size_t disruptions = 0;
    for (const ranked_unit& r : chosen_) {
      const victim_unit& u = units[r.unit];
      if (u.is_group()) ++disruptions;
      for (const unit_member<P>& m : units_.members_of(u)) victims_.push_back(m.pod);
    }
    decision_.pdb_violations = violations;
    decision_.pod_group_disruptions = disruptions;
    return status::ok();
  }

  template <class T>
  using rebound = typename std::allocator_traits<Allocator>::template rebind_alloc<T>;

  group_evaluator_config cfg_;
  unit_scratch<pod_type, Allocator> units_;
  budget_tally<rebound<std::int64_t>> tally_;
  std::vector<state_type, rebound<state_type>> states_;
  std::vector<ranked_unit, rebound<ranked_unit>> ranked_;
  std::vector<ranked_unit, rebound<ranked_unit>> chosen_;  // the victim units, upstream's order
  std::vector<std::size_t, rebound<std::size_t>> assignment_;
  std::vector<member_nomination, rebound<member_nomination>> nominations_;
  std::vector<const pod_type*, rebound<const pod_type*>> victims_;
  std::vector<member_nomination, rebound<member_nomination>> placed_;
  victim_cost_ranking<rebound<std::uint32_t>> ranking_;  // v1.38's placement (RankNodes)
  std::array<char, 80> message_{};
  decision_type decision_;
};

}  // namespace workload
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_WORKLOAD_GROUP_EVALUATOR_HPP
