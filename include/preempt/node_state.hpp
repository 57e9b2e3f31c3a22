// preempt/node_state.hpp - the "what-if" view of one node that the algorithms mutate.
//
// Victim selection asks: if these pods were gone, would the preemptor fit? It answers by removing
// pods from, and adding pods back to, a node state, and asking the state whether the preemptor
// fits. A type S models `node_state<S, P>` for pods of type P when it has:
//   s.remove_pod(p)   forget pod p (one of the node's pods, or a nominated pod added earlier)
//   s.add_pod(p)      count pod p again (a reprieved victim, or a nominated pod)
//   s.fits(p)         does pod p fit on the node as it now stands?
// Each returns something convertible to `status`. remove_pod/add_pod fail only with
// status_code::error (an incremental filter state that cannot be updated); fits returns success,
// unschedulable or unschedulable_and_unresolvable with reasons such as "Insufficient cpu", or an
// error. This is where real filters plug in: resources, anti-affinity, topology spread, volumes.
// Optional members, each described at its concept below, make victim selection cheaper with the
// same answer: can_fit, remove_lower_priority_pods (removes_lower_priority_pods),
// reprieve_removed_pods (reprieves_removed_pods, ..._or_rejects, ..._with_budgets),
// victim_score_bound (bounds_victim_scores) and foreseen_rejection (foresees_rejections).
//
// The caller prepares one state per node evaluation that reflects the node with all its pods; the
// algorithms never copy a node. After victim selection the state reflects the node with the
// chosen victims removed. preempt::model::resource_fit_state is a ready implementation.
// Filters with cluster-wide state keep, in the node state, only the node's changes to it: see
// "Cluster-wide filter state" in cluster.hpp, and kubernetes::filter_cluster.
//
// Header-only declarations; no allocation; no exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_NODE_STATE_HPP
#define PREEMPT_NODE_STATE_HPP

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "preempt/config.hpp"
#include "preempt/pod.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN

// Why victim selection rejects a node without any pod of lower priority than the preemptor.
inline constexpr std::string_view no_victims_reason =
    "No preemption victims found for incoming pod";
// That rejection (UnschedulableAndUnresolvable), for foreseen_rejection.
inline constexpr status no_victims_status = status::unresolvable(no_victims_reason);

template <class S, class P>
concept node_state = pod<P> && requires(S& s, const P& p) {
  { s.remove_pod(p) } -> std::convertible_to<status>;
  { s.add_pod(p) } -> std::convertible_to<status>;
  { s.fits(p) } -> std::convertible_to<status>;
};

// A node state with the optional remove_lower_priority_pods member:
//   s.remove_lower_priority_pods(q)   removes, at once, every pod of the node with priority below
//                                     q and returns how many (std::optional<std::size_t>), or
//                                     nullopt, changing nothing, when it cannot (e.g. the state was
//                                     changed since it was prepared). A state that keeps its
//                                     node's requests summed by priority answers in O(log k), and
//                                     victim selection then rejects a node where the preemptor
//                                     cannot fit without visiting its pods.
// (The other optional member without a concept: s.can_fit(p), fits(p) without the reasons, a
// bool, for the reprieve loop.)
template <class S>
concept removes_lower_priority_pods = requires(S& s, std::int32_t q) {
  { s.remove_lower_priority_pods(q) } -> std::same_as<std::optional<std::size_t>>;
};

// A node state with the optional foreseen_rejection member:
//   s.foreseen_rejection(p)           (const) how victim selection would reject the node, when
//                                     the state can tell without changing: as the first use of a
//                                     prepared state, &no_victims_status when no pod of the node
//                                     has a priority below p's, or a status equal to fits(p)'s
//                                     with all those pods removed when p does not fit even then;
//                                     nullptr whenever it cannot tell (victim selection then runs
//                                     and answers). The status outlives the state's next change.
//                                     The evaluator asks it, under default_policy's eligibility
//                                     and with no nominated pod, before selecting the victims.
template <class S, class P>
concept foresees_rejections = requires(const S& s, const P& p) {
  { s.foreseen_rejection(p) } -> std::same_as<const status*>;
};

// A node state with the optional reprieve_removed_pods member:
//   s.reprieve_removed_pods(p, now, out)
//                                     right after remove_lower_priority_pods: upstream's reprieve
//                                     of the removed pods in one pass, as victim selection does it
//                                     without budgets or nominated pods under default_policy's
//                                     importance order (`now` for a missing start time): walking
//                                     them in descending importance, each pod that leaves room for
//                                     p is added back, the others are written to `out` (a
//                                     std::span<const P*> with room for every removed pod); it
//                                     returns how many (std::optional<std::size_t>), or nullopt,
//                                     changing nothing, when it cannot (the removed pods not
//                                     strictly in importance order, another change since). The
//                                     answer must be what the reprieve through add_pod, can_fit
//                                     and remove_pod gives; victim selection then skips ordering
//                                     the pods and visiting them one call at a time.
template <class S, class P>
concept reprieves_removed_pods =
    requires(S& s, const P& p, timestamp now, std::span<const P*> out) {
      { s.reprieve_removed_pods(p, now, out) } -> std::same_as<std::optional<std::size_t>>;
    };

// A node state whose one-pass reprieve also explains a rejection: reprieve_removed_pods(p, now,
// out, rejection), declining because p does not fit with the removal, writes fits(p)'s answer to
// `rejection` (a status&, left as it was otherwise), so that victim selection rejects the node
// without a second fit check (see model::resource_fit_state).
template <class S, class P>
concept reprieves_removed_pods_or_rejects =
    reprieves_removed_pods<S, P> &&
    requires(S& s, const P& p, timestamp now, std::span<const P*> out, status& rejection) {
      {
        s.reprieve_removed_pods(p, now, out, rejection)
      } -> std::same_as<std::optional<std::size_t>>;
    };

// A node state whose one-pass reprieve also takes budget violations: removed_pods() lists the
// pods the last remove_lower_priority_pods removed, in the order the reprieve walks them, and
// reprieve_removed_pods(p, now, out, flags) adds the pods flagged violating (flags[i] & 1) back
// first (see model::resource_fit_state).
template <class S, class P>
concept reprieves_removed_pods_with_budgets =
    reprieves_removed_pods<S, P> &&
    requires(S& s, const S& cs, const P& p, timestamp now, std::span<const P*> out,
             std::span<std::uint8_t> flags) {
      { cs.removed_pods() } -> std::convertible_to<std::span<const P>>;
      { s.reprieve_removed_pods(p, now, out, flags) } -> std::same_as<std::optional<std::size_t>>;
    };

// A node state with the optional victim_score_bound member:
//   s.victim_score_bound(p, now)      (const) for branch and bound in the evaluator
//                                     (evaluator_config::report_only_chosen): an upper bound, score
//                                     by score, on the five upstream scores (default_scores) that
//                                     select_victims would give the node for preemptor p (in
//                                     lexicographic order at least, whatever the budgets), with no
//                                     nominated pod and default_policy's eligibility and
//                                     importance order (`now` for missing start times), as
//                                     std::optional<std::array<std::int64_t, 5>>; given
//                                     only when the node is then sure to be a candidate with at
//                                     least one victim, and only as the first use of a prepared
//                                     state (like remove_lower_priority_pods); nullopt otherwise.
//                                     It changes nothing. A node whose bound cannot beat the best
//                                     candidate found before it is counted as a candidate without
//                                     selecting its victims.
template <class S, class P>
concept bounds_victim_scores = requires(const S& s, const P& p, timestamp now) {
  { s.victim_score_bound(p, now) } -> std::same_as<std::optional<std::array<std::int64_t, 5>>>;
};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_NODE_STATE_HPP
