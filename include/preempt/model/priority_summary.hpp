// preempt/model/priority_summary.hpp - a node's pods summed by priority, kept as pods come and go.
//
// `priority_summary` holds one level per distinct priority among a node's pods, in ascending
// priority; each level carries the number of pods and the sum of their requests over every pod of
// that priority or lower (a prefix sum in ascending importance of priority). below(q) answers
// "how many pods, and how many resources, have a priority strictly lower than q?" with one binary
// search: that is what a node frees when every pod a preemptor of priority q may evict is gone.
// Victim selection uses it (through resource_fit_state::remove_lower_priority_pods) to reject a
// node on which the preemptor does not fit even with all those pods removed, without looking at
// the pods one by one.
//
// The sums cover the dimensions of the node's requested vector (`dimensions`), as the node's own
// running sum does: a pod's requests in other dimensions are ignored there too.
//
// The summary also keeps bounds on single pods' requests for branch and bound
// (resource_fit_state::victim_score_bound): the smallest and the largest request of any of the
// node's pods, in each dimension (per node, not per level: they cost no memory per pod). Adding a
// pod keeps them exact; removing one leaves them as they were, which stays a valid bound (no
// larger than the true smallest, no smaller than the true largest); rebuild makes them exact
// again. It also counts the pods with a negative request in some dimension (victim_score_bound
// gives no bound while there is one).
//
// Complexity: below() O(log k) for k distinct priorities on the node; add and remove O(k·d) for d
// dimensions (plus an insert/erase in a contiguous array when a priority appears or disappears);
// rebuild O(p + k·d) over a node's p pods. Allocation: when a new priority appears (the level
// array grows geometrically) and for more than four dimensions per level. No exceptions of its
// own. Not synchronized: mutate from one thread; read from many.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_MODEL_PRIORITY_SUMMARY_HPP
#define PREEMPT_MODEL_PRIORITY_SUMMARY_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/model/resource_pod.hpp"
#include "preempt/model/resources.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace model {

class priority_summary {
 public:
  struct level {
    std::int32_t priority;
    std::uint32_t pods;        // pods of this priority or lower
    resource_vector requests;  // their summed requests
  };

  // The pods strictly below priority q: their count, and their summed requests (nullptr when
  // there are none).
  struct lower {
    std::size_t pods = 0;
    const resource_vector* requests = nullptr;
  };

  explicit priority_summary(std::size_t dimensions = resource::first_extended)
      : dimensions_(dimensions) {
    smallest_.resize(dimensions_);
    largest_.resize(dimensions_);
    priority_summary::fill(smallest_, highest);
    priority_summary::fill(largest_, lowest);
  }

  lower below(std::int32_t q) const noexcept {
    const auto it = std::lower_bound(levels_.begin(), levels_.end(), q,
                                     [](const level& l, std::int32_t v) { return l.priority < v; });
    if (it == levels_.begin()) return {};
    const level& l = *(it - 1);
    return {l.pods, &l.requests};
  }

  void add(const resource_pod& p) {
    auto it = std::lower_bound(levels_.begin(), levels_.end(), p.priority(),
                               [](const level& l, std::int32_t v) { return l.priority < v; });
    if (it == levels_.end() || it->priority != p.priority()) {
      level fresh{p.priority(), 0, {}};
      fresh.requests.resize(dimensions_);
      if (it != levels_.begin()) {  // starts from the sums below it
        fresh.pods = (it - 1)->pods;
        fresh.requests = (it - 1)->requests;
      }
      it = levels_.insert(it, std::move(fresh));
    }
    for (; it != levels_.end(); ++it) {
      ++it->pods;
      it->requests.add(p.requests());
    }
    count_bounds(p.requests());
  }

  void remove(const resource_pod& p) {
    auto it = std::lower_bound(levels_.begin(), levels_.end(), p.priority(),
                               [](const level& l, std::int32_t v) { return l.priority < v; });
    PREEMPT_ASSERT(it != levels_.end() && it->priority == p.priority(),
                   "priority_summary::remove: no pod of this priority");
    const std::uint32_t before = it == levels_.begin() ? 0 : (it - 1)->pods;
    const bool last_of_its_priority = it->pods - before == 1;
    for (auto j = it; j != levels_.end(); ++j) {
      --j->pods;
      j->requests.subtract(p.requests());
    }
    if (last_of_its_priority) levels_.erase(it);
    if (priority_summary::has_negative(p.requests())) --negative_pods_;  // the bounds stay
  }

  // Recomputes the levels from a node's pods, kept in descending priority.
  void rebuild(std::span<const resource_pod> pods_by_descending_priority) {
    levels_.clear();
    negative_pods_ = 0;
    priority_summary::fill(smallest_, highest);
    priority_summary::fill(largest_, lowest);
    for (auto it = pods_by_descending_priority.rbegin(); it != pods_by_descending_priority.rend();
         ++it) {
      if (levels_.empty() || levels_.back().priority != it->priority()) {
        level next{it->priority(), 0, {}};
        if (levels_.empty())
          next.requests.resize(dimensions_);
        else {
          next.pods = levels_.back().pods;
          next.requests = levels_.back().requests;
        }
        levels_.push_back(std::move(next));
      }
      ++levels_.back().pods;
      levels_.back().requests.add(it->requests());
      count_bounds(it->requests());
    }
  }

  std::span<const level> levels() const noexcept { return levels_; }
  // All the pods summarized (those of the highest level or lower).
  std::size_t pods() const noexcept { return levels_.empty() ? 0 : levels_.back().pods; }
  // How many of them request a negative amount in some dimension.
  std::size_t pods_with_negative_requests() const noexcept { return negative_pods_; }
  // No more than any pod's request, and no less, in each of the summary's dimensions (the
  // largest and smallest int64 while no pod was counted).
  const resource_vector& smallest() const noexcept { return smallest_; }
  const resource_vector& largest() const noexcept { return largest_; }

 private:
  static constexpr std::int64_t lowest = std::numeric_limits<std::int64_t>::min();
  static constexpr std::int64_t highest = std::numeric_limits<std::int64_t>::max();

  // Every dimension of `bound` (already sized) set to `value`.
  static void fill(resource_vector& bound, std::int64_t value) noexcept {
    std::fill(bound.data(), bound.data() + bound.size(), value);
  }
  // bound = max(bound, requests) (upper) or min(bound, requests), per dimension of `bound`.
  static void narrow(resource_vector& bound, const resource_vector& requests, bool upper) noexcept {
    std::int64_t* b = bound.data();
    for (std::size_t d = 0; d < bound.size(); ++d) {
      const std::int64_t r = requests[d];
      if (upper ? r > b[d] : r < b[d]) b[d] = r;
    }
  }
  void count_bounds(const resource_vector& requests) noexcept {
    priority_summary::narrow(smallest_, requests, false);
    priority_summary::narrow(largest_, requests, true);
    if (priority_summary::has_negative(requests)) ++negative_pods_;
  }
  static bool has_negative(const resource_vector& requests) noexcept {
    for (std::size_t d = 0; d < requests.size(); ++d)
      if (requests[d] < 0) return true;
    return false;
  }

  std::size_t dimensions_;
  std::vector<level> levels_;
  resource_vector smallest_;
  resource_vector largest_;
  std::size_t negative_pods_ = 0;
};

}  // namespace model
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_MODEL_PRIORITY_SUMMARY_HPP
