// preempt/model/detail/victim_score_bound.hpp - resource_fit_state::victim_score_bound: an upper
// bound, score by score, on the upstream scores select_victims would give a node, told from the
// node's priority_summary without visiting its pods (branch and bound, report_only_chosen).
//
// Complexity: O(d·log k + log p) for d dimensions, k priority levels and p pods of the highest
// level involved. No allocation, no exceptions. Reads only.
//
// Implementation notes.
// How the bound follows from the summary, for a state whose fit only gets easier as pods leave
// (no negative requests): let t be the lowest priority such that removing every pod of priority t
// or lower makes room for the preemptor. Upstream's reprieve (SelectVictimsOnNode, without budget
// violations or nominated pods) adds the potential victims back in importance order: every pod
// above t comes back (the node then holds a subset of what made room), and not every pod of
// priority t can (all of them back and the pods below t gone leaves no room, by the choice of t).
// So the most important victim has priority t exactly (score 1). The victims, all of priority t or
// lower, free at least the node's shortage in every dimension the preemptor asks for, each at most
// the largest request of the node's pods: a least number of victims (score 3) and, at least one of
// them of priority t, a least priority sum (score 2). The pods of priority t come back in
// start-time order until the first that does not fit: at most (room left with every pod of
// priority t or lower gone) / (smallest request of the node's pods) come back before it, so the
// earliest start among the victims of priority t (score 4) is at most the start time at that rank.
// With budgets (violating pods reprieved first) the bound still holds in lexicographic order: any
// victims whose removal makes room have a most important priority t' >= t (without every pod of
// priority t' or lower there is room), and when t' = t and no victim violates, the same counting
// bounds scores 2 and 3, and the pods of priority t that start before the earliest such victim
// all stay beside every pod above t, so score 4 too.
// (The smallest and largest requests are the node's, from its summary: exact on nodes whose pods
// are alike, looser where pods of other priorities differ in size.)
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_MODEL_DETAIL_VICTIM_SCORE_BOUND_HPP
#define PREEMPT_MODEL_DETAIL_VICTIM_SCORE_BOUND_HPP

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>

#include "preempt/config.hpp"
#include "preempt/model/priority_summary.hpp"
#include "preempt/model/resource_pod.hpp"
#include "preempt/model/resources.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace model::detail {

// The least room left, over the dimensions the preemptor asks for (and its pod slot), with
// `freed` taken off the `requested` sum: negative when it does not fit then.
inline std::int64_t room_without(const resource_vector& allocatable,
                                 const resource_vector& requested, const resource_vector& want,
                                 const resource_vector& freed) {
  std::int64_t least = std::numeric_limits<std::int64_t>::max();
  const std::size_t dims = std::max(want.size(), std::size_t{resource::pods + 1});
  for (std::size_t d = 0; d < dims; ++d) {
    const std::int64_t demand = d == resource::pods ? 1 : want[d];
    if (demand > 0) least = std::min(least, allocatable[d] - (requested[d] - freed[d]) - demand);
  }
  return least;
}

// The start time (`now` when missing) of rank `rank` in ascending order among pods of one
// priority kept in kept_before order (start times ascending, the pods without one last).
inline timestamp start_at_rank(std::span<const resource_pod> pods, std::size_t rank,
                               timestamp now) noexcept {
  // Commonly one look: a start time before `now` ranks where it is kept, and so does any when
  // every pod has one.
  if (const std::optional<timestamp> at = pods[rank].start_time();
      at && (*at < now || pods.back().start_time()))
    return *at;
  const auto dated_end = std::partition_point(
      pods.begin(), pods.end(), [](const resource_pod& p) { return p.start_time().has_value(); });
  const auto missing = static_cast<std::size_t>(pods.end() - dated_end);
  const auto before_now = static_cast<std::size_t>(
      std::lower_bound(pods.begin(), dated_end, now,
                       [](const resource_pod& p, timestamp t) { return *p.start_time() < t; }) -
      pods.begin());
  if (rank < before_now) return *pods[rank].start_time();
  if (rank < before_now + missing) return now;
  return *pods[rank - missing].start_time();
}

// resource_fit_state::victim_score_bound on a state with a summary (`lower`, the node's pods by
// priority, with `pods` in kept_before order), as the node stands (`allocatable`, `requested`):
// short_anywhere(want) tells whether a pod asking `want` does not fit now (the state's check).
// See the implementation notes above. Inlined into the member, which keeps the call it was.
template <class ShortAnywhere>
[[gnu::always_inline]] inline std::optional<std::array<std::int64_t, 5>> victim_score_bound(
    const resource_vector& allocatable, const resource_vector& requested,
    const priority_summary& lower, std::span<const resource_pod> pods,
    const resource_pod& preemptor, timestamp now, const ShortAnywhere& short_anywhere) noexcept {
  if (pods.size() != lower.pods() || lower.pods_with_negative_requests() != 0) return std::nullopt;
  const auto levels = lower.levels();
  const std::int32_t q = preemptor.priority();
  const std::size_t potential =
      static_cast<std::size_t>(std::lower_bound(levels.begin(), levels.end(), q,
                                                [](const priority_summary::level& l,
                                                   std::int32_t v) { return l.priority < v; }) -
                               levels.begin());
  const resource_vector& want = preemptor.requests();
  if (potential == 0 || !short_anywhere(want)) return std::nullopt;  // no victim possible
  // The lowest level whose removal, with every level below it, makes room (binary search: the
  // more levels go, the more room).
  std::size_t lo = 0, hi = potential;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (::preempt::model::detail::room_without(allocatable, requested, want,
                                               levels[mid].requests) >= 0)
      hi = mid;
    else
      lo = mid + 1;
  }
  if (lo == potential) return std::nullopt;  // no room even without them: not a candidate
  const priority_summary::level& top = levels[lo];
  const std::size_t below_top = lo == 0 ? 0 : levels[lo - 1].pods;
  const std::size_t at_top = top.pods - below_top;
  const std::span<const resource_pod> top_pods = pods.subspan(pods.size() - top.pods, at_top);
  if (top_pods.back().priority() != top.priority)
    return std::nullopt;  // the pods are not the summary's, in kept_before order

  // The fewest victims, and the most pods of priority t reprieved before the first victim.
  std::int64_t fewest = 1;
  auto before_first = static_cast<std::int64_t>(at_top - 1);
  const std::size_t dims = std::max(want.size(), std::size_t{resource::pods + 1});
  for (std::size_t d = 0; d < dims; ++d) {
    const std::int64_t demand = d == resource::pods ? 1 : want[d];
    if (demand <= 0) continue;
    const std::int64_t free_now = allocatable[d] - requested[d];
    if (const std::int64_t shortage = demand - free_now; shortage > 0) {
      const std::int64_t largest = lower.largest()[d];
      if (largest <= 0) return std::nullopt;
      fewest = std::max(fewest, shortage / largest + (shortage % largest != 0 ? 1 : 0));
    }
    if (const std::int64_t smallest = lower.smallest()[d]; smallest > 0)
      before_first = std::min(before_first, (free_now + top.requests[d] - demand) / smallest);
  }
  fewest = std::min(fewest, static_cast<std::int64_t>(top.pods));
  const std::int64_t at_top_victims =
      std::max<std::int64_t>(1, fewest - static_cast<std::int64_t>(below_top));
  constexpr std::int64_t shift = std::int64_t{1} << 31;
  const std::int64_t least_sum = at_top_victims * (std::int64_t{top.priority} + shift) +
                                 (fewest - at_top_victims) * (levels[0].priority + shift);
  return std::array<std::int64_t, 5>{
      0, -std::int64_t{top.priority}, -least_sum, -fewest,
      static_cast<std::int64_t>(::preempt::model::detail::start_at_rank(
          top_pods, static_cast<std::size_t>(before_first), now))};
}

}  // namespace model::detail
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_MODEL_DETAIL_VICTIM_SCORE_BOUND_HPP
