// preempt/detail/candidate_lists.hpp - what a dry run keeps (upstream's DryRunPreemption): every
// node's outcome, and the two bounded candidate lists.
//
// candidate_lists<P> folds the nodes of a dry run in candidate order: each node's outcome goes to
// the diagnosis (an entry per node naming one of the evaluation's distinct outcomes, counted), and
// a node whose selection succeeded joins the list of candidates without budget violations or the
// list of those with some, each capped at `wanted` (overflow dropped, as upstream). The dry run may
// stop once both lists together hold `wanted` candidates, one of them without violations. A kept
// candidate names where its victims are (a worker's arena: victims_at), its upstream scores and
// whether the branch and bound skipped its selection (bounded); collect lists them for the
// decision.
//
// Complexity: O(1) amortized per node (the distinct outcomes are matched against the most recent
// few). Allocation: none once the vectors have grown to the largest dry run. No exceptions.
// Thread-safety: one thread (the evaluation's calling thread) folds nodes in.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DETAIL_CANDIDATE_LISTS_HPP
#define PREEMPT_DETAIL_CANDIDATE_LISTS_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "preempt/candidate.hpp"
#include "preempt/candidate_choice.hpp"
#include "preempt/config.hpp"
#include "preempt/decision.hpp"
#include "preempt/filter_statuses.hpp"
#include "preempt/node.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace detail {

// Where a node's victims are kept: `count` of them from `first` in worker `worker`'s arena.
struct victims_at {
  std::size_t first;
  std::uint32_t count;   // a node's victims (at most its pods)
  std::uint32_t worker;  // parallelism is far below 2^32
};

// A candidate a dry run kept.
struct kept_candidate {
  std::size_t node_index;
  victims_at victims;
  std::int64_t violations;
  default_scores::vector scores;
  bool bounded;  // a candidate whose victims were not selected (branch and bound)
};

// The nodes a dry run may evaluate (findCandidates: those whose filter status is
// `unschedulable`, in cluster order), read from an offset on, wrapping around.
class potential_nodes {
 public:
  template <class S>
  void find(std::size_t nodes, const S& statuses) {
    nodes_.clear();
    for (std::size_t i = 0; i < nodes; ++i)
      if (::preempt::detail::code_of(statuses, i) == status_code::unschedulable)
        nodes_.push_back(i);
  }
  std::size_t size() const noexcept { return nodes_.size(); }
  void set_offset(std::size_t offset) noexcept { offset_ = offset; }

  // The potential nodes from evaluation position k (k < size()) that are below node index `end`,
  // up to where the order wraps around: a run of them, contiguous.
  std::span<const std::size_t> run_from(std::size_t k, std::size_t end) const noexcept {
    std::size_t at = offset_ + k;
    if (at >= nodes_.size()) at -= nodes_.size();
    const auto first = nodes_.begin() + static_cast<std::ptrdiff_t>(at);
    const auto last =
        at >= offset_ ? nodes_.end() : nodes_.begin() + static_cast<std::ptrdiff_t>(offset_);
    return {first, std::lower_bound(first, last, end)};
  }

  // The k-th potential node in evaluation order (k < size()), without a division.
  std::size_t operator[](std::size_t k) const noexcept {
    std::size_t at = offset_ + k;
    if (at >= nodes_.size()) at -= nodes_.size();
    return nodes_[at];
  }

 private:
  std::vector<std::size_t> nodes_;
  std::size_t offset_ = 0;
};

class candidate_lists {
 public:
  using list = std::vector<kept_candidate>;

  // Forgets the previous dry run; the lists hold up to `wanted` candidates each.
  void reset(std::size_t wanted) noexcept {
    wanted_ = wanted;
    diagnosis_.clear();
    outcomes_.clear();
    outcome_counts_.clear();
    without_violations_.clear();
    with_violations_.clear();
    has_errors_ = false;
  }
  void set_wanted(std::size_t wanted) noexcept { wanted_ = wanted; }

  // Folds one node's outcome into the diagnosis; the list it joins, or null when it is no
  // candidate or its list is full.
  list* add(std::size_t node_index, const status& outcome, std::int64_t violations) {
    diagnosis_.push_back({node_index, intern_outcome(outcome)});
    if (outcome.code() == status_code::error) has_errors_ = true;
    if (!outcome.is_success()) return nullptr;
    list& l = violations == 0 ? without_violations_ : with_violations_;
    return l.size() < wanted_ ? &l : nullptr;
  }

  // Folds in a node rejected as an earlier node was, whose outcome is interned as `outcome`
  // (last_outcome() after that node's add).
  void add_known(std::size_t node_index, std::size_t outcome) {
    diagnosis_.push_back({node_index, outcome});
    ++outcome_counts_[outcome];
  }
  // The same for a run of nodes.
  void add_known(std::span<const std::size_t> nodes, std::size_t outcome) {
    const std::size_t at = diagnosis_.size();
    diagnosis_.resize(at + nodes.size());
    diagnosis_view::entry* e = diagnosis_.data() + at;
    for (const std::size_t node_index : nodes) *e++ = {node_index, outcome};
    outcome_counts_[outcome] += nodes.size();
  }
  // The interned outcome of the last node added.
  std::size_t last_outcome() const noexcept { return last_outcome_; }

  // Whether the dry run may stop: the lists hold the candidates wanted, one without violations.
  bool may_stop() const noexcept {
    return !without_violations_.empty() &&
           without_violations_.size() + with_violations_.size() >= wanted_;
  }

  // Candidates held in both lists.
  std::size_t held() const noexcept { return without_violations_.size() + with_violations_.size(); }
  bool has_errors() const noexcept { return has_errors_; }

  // Calls f(kept_candidate) for every candidate kept: those without violations first, each list
  // in the order its candidates were found.
  template <class F>
  void for_each(F&& f) const {
    for (const kept_candidate& k : without_violations_) f(k);
    for (const kept_candidate& k : with_violations_) f(k);
  }

  // The kept candidates as a decision lists them (without violations first) appended to `out`,
  // their scores to `scores`: each named from `cluster`, its victims from `arenas.victims_of`.
  // Bounded ones are only counted: returns how many.
  template <class P, class C, class Arenas>
  std::size_t collect(const C& cluster, const Arenas& arenas, std::vector<candidate<P>>& out,
                      std::vector<default_scores::vector>& scores) const {
    std::size_t bounded = 0;
    for_each([&](const kept_candidate& k) {
      if (k.bounded) {
        ++bounded;
        return;
      }
      out.push_back({k.node_index, ::preempt::name_of(cluster[k.node_index]),
                     arenas.victims_of(k.victims), k.violations});
      scores.push_back(k.scores);
    });
    return bounded;
  }

  diagnosis_view diagnosis() const noexcept {
    return diagnosis_view(diagnosis_, outcomes_, outcome_counts_);
  }

 private:
  // The diagnosis' index of `outcome` among this evaluation's distinct outcomes, counted: the most
  // recent matches are searched (O(1) per node, however many distinct reasons nodes give) and a
  // new one is added otherwise. The statuses are copied, their reasons are views as before.
  std::size_t intern_outcome(const status& outcome) {
    if (last_outcome_ < outcomes_.size() && outcomes_[last_outcome_] == outcome) {
      ++outcome_counts_[last_outcome_];
      return last_outcome_;
    }
    const std::size_t n = outcomes_.size();
    for (std::size_t k = 1; k <= std::min<std::size_t>(n, 8); ++k)
      if (outcomes_[n - k] == outcome) {
        ++outcome_counts_[n - k];
        return last_outcome_ = n - k;
      }
    outcomes_.push_back(outcome);
    outcome_counts_.push_back(1);
    return last_outcome_ = n;
  }

  std::vector<diagnosis_view::entry> diagnosis_;
  std::vector<status> outcomes_;
  std::vector<std::size_t> outcome_counts_;
  std::size_t last_outcome_ = 0;
  list without_violations_;
  list with_violations_;
  std::size_t wanted_ = 0;
  bool has_errors_ = false;
};

}  // namespace detail
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DETAIL_CANDIDATE_LISTS_HPP
