// preempt/detail/rejection_runs.hpp - the evaluator's sequential dry run through the cluster's
// rejection index (preempt/rejection_index.hpp).
//
// rejection_runs<Index> holds the index and the kinds of rejection one decision met. dry_run walks
// the potential nodes in evaluation order a run at a time: an open run's nodes are selected on;
// so is the first node of a kind of rejection, whose outcome (it must be a rejection, or the kind
// is not trusted for the decision) every other node of a run of that kind then gets without a
// selection, unless pods are nominated to it. The diagnosis, the candidate lists and the
// observer see what the dry run of every node gives (tests/model/rejection_index.test.cpp compares
// the two on random clusters).
//
// Complexity: O(runs · log n) to find the runs, plus a selection per open node and per kind, plus
// O(1) per node of a rejected run (its diagnosis entry). Allocation: the index's own (when a
// priority's tree is first built or the cluster grew), and the kinds' list growing to the most
// kinds met. No exceptions of its own. One decision at a time.
//
// prepare_rejection_index<Policy, Node>(runs, enabled, cluster, preemptor) says whether a
// decision's dry run goes through the index: with the policy's default victim eligibility, where
// the cluster offers an index, `enabled` (the evaluator's config, victims not grouped) and the
// index answers for the preemptor.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DETAIL_REJECTION_RUNS_HPP
#define PREEMPT_DETAIL_REJECTION_RUNS_HPP

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/detail/candidate_lists.hpp"
#include "preempt/detail/victim_policy_traits.hpp"
#include "preempt/rejection_index.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace detail {

template <class Index>
class rejection_runs {
 public:
  // Prepares the index for this decision; false (the index unused) when it does not answer.
  template <class C, class P>
  bool prepare(const C& cluster, const P& preemptor) {
    kinds_.clear();
    return index_.prepare(cluster, preemptor);
  }

  // The potential nodes the index leaves to select on, counted up to `limit`: the open ones,
  // and one per rejected run.
  std::size_t open_nodes(const potential_nodes& potential, std::size_t limit) const {
    const std::size_t n = potential.size();
    std::size_t open = 0, k = 0;
    while (k < n && open < limit) {
      const node_run run = index_.run_at(potential[k]);
      const std::size_t in_run = potential.run_from(k, run.end).size();
      open += run.rejection == 0 ? in_run : 1;
      k += in_run;
    }
    return open;
  }

  // The dry run: `evaluate(node)` selects on a node and merges it (true when the dry run may
  // stop), leaving its outcome in `outcome`; `nominated_to(node)` tells whether pods are
  // nominated to it (Nominations false: never); `notify(node, status)` tells the observer of a
  // node given a kind's outcome.
  template <bool Nominations, class Evaluate, class Nominated, class Notify>
  void dry_run(const potential_nodes& potential, candidate_lists& lists, const status& outcome,
               const Evaluate& evaluate, const Nominated& nominated_to, const Notify& notify) {
    const std::size_t n = potential.size();
    std::size_t k = 0;
    while (k < n) {
      const std::size_t first = potential[k];
      const node_run run = index_.run_at(first);
      const std::span<const std::size_t> nodes = potential.run_from(k, run.end);
      const kind* known = run.rejection == 0 ? nullptr : find(run.rejection);
      if (run.rejection != 0 && known == nullptr && !(Nominations && nominated_to(first))) {
        // The first node of its kind: selected on, its outcome kept for the others.
        const bool stop = evaluate(first);
        const bool agrees = !outcome.is_success() && outcome.code() != status_code::error;
        PREEMPT_ASSERT(agrees,
                       "evaluator: the cluster's rejection index names a node the dry "
                       "run does not reject");
        kinds_.push_back({run.rejection, agrees, lists.last_outcome(), outcome});
        if (stop) return;
        ++k;
        continue;
      }
      if (known == nullptr || !known->agrees) {
        for (const std::size_t i : nodes)
          if (evaluate(i)) return;
      } else if constexpr (!Nominations) {
        lists.add_known(nodes, known->outcome);
        for (const std::size_t i : nodes) notify(i, known->outcome_status);
      } else {
        for (const std::size_t i : nodes) {
          if (nominated_to(i)) {
            if (evaluate(i)) return;
          } else {
            lists.add_known(i, known->outcome);
            notify(i, known->outcome_status);
          }
        }
      }
      k += nodes.size();
    }
  }

 private:
  // A kind of rejection as this decision met it: the outcome the dry run gave its first node
  // (interned in the diagnosis as `outcome`); `agrees` false where that node was no rejection.
  struct kind {
    std::uint32_t key;
    bool agrees;
    std::size_t outcome;
    status outcome_status;
  };
  const kind* find(std::uint32_t key) const noexcept {
    for (const kind& r : kinds_)
      if (r.key == key) return &r;
    return nullptr;
  }

  Index index_;
  std::vector<kind> kinds_;
};

template <class Policy, class Node, class Runs, class C, class P>
bool prepare_rejection_index(Runs& runs, bool enabled, const C& cluster, const P& preemptor) {
  if constexpr (offers_rejection_index<C, P> &&
                every_lower_priority_pod_eligible<Policy, Node, P>())
    return enabled && runs.prepare(cluster, preemptor);
  else
    return static_cast<void>(runs), static_cast<void>(enabled), static_cast<void>(cluster),
           static_cast<void>(preemptor), false;
}

}  // namespace detail
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DETAIL_REJECTION_RUNS_HPP
