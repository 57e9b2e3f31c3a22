// preempt/decision.hpp - the outcome of one preemption evaluation, as the dispatcher and the
// caller read it.
//
// decision<P> says what upstream's PostFilter (DefaultPreemption, Evaluator.Preempt) would
// return for the preemptor:
//   nominated      a node and its victims were chosen: evict them, nominate the preemptor there
//                  (status Success with the node's name);
//   not_eligible   PodEligibleToPreemptOthers said no: keep the current nomination (a nil result
//                  with status Unschedulable);
//   unschedulable  preemption cannot help; with clear_nomination (no candidate at all: upstream's
//                  empty nominated node name in Override mode) the nomination must be removed,
//                  without it (the extenders dropped every candidate) it is kept;
//   error          something failed: keep the nomination and retry later (status Error).
// It also carries what the evaluation saw: every node it tried with its outcome, the candidates,
// which one won and why, the number of potential nodes, the start offset and the sample size.
//
// A decision is a view into the evaluator that produced it (its buffers) and into the caller's
// cluster (the victims): valid until the evaluator's next evaluate call or a change of the cluster.
//
// No allocation; no exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DECISION_HPP
#define PREEMPT_DECISION_HPP

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "preempt/candidate.hpp"
#include "preempt/config.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN

enum class decision_kind : std::uint8_t {
  nominated,      // a node and its victims were chosen
  not_eligible,   // the pod may not preempt now; keep its current nomination
  unschedulable,  // preemption cannot help (see clear_nomination)
  error,          // something failed; keep the current nomination and retry later
};

constexpr std::string_view to_string(decision_kind k) noexcept {
  switch (k) {
    case decision_kind::nominated: return "nominated";
    case decision_kind::not_eligible: return "not-eligible";
    case decision_kind::unschedulable: return "unschedulable";
    case decision_kind::error: return "error";
  }
  return "unknown";
}

// The outcome of one node in the dry run.
struct node_diagnosis {
  std::size_t node_index;
  status outcome;
};

template <class P>
struct decision {
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  decision_kind kind = decision_kind::error;
  // The nominated node (kind == nominated).
  std::size_t node_index = npos;
  std::string_view node_name;
  std::span<const P* const> victims;  // descending importance
  std::int64_t pdb_violations = 0;
  // Upstream's "nominated node name = '' with override": the pod's nomination must be cleared.
  // True only when the dry run found no candidate.
  bool clear_nomination = false;
  // "" when nominated; otherwise the upstream status message.
  std::string_view message;
  // Every node the dry run kept, in evaluation order, with its outcome.
  std::span<const node_diagnosis> diagnosis;
  // The candidates after the extenders, in the order they were found. With
  // evaluator_config::report_only_chosen, only those whose victims were selected.
  std::span<const candidate<P>> candidates;
  // Which candidate won (an index into `candidates`) and which score settled it among them.
  best_candidate choice;
  // Candidates found whose victims were not selected (evaluator_config::report_only_chosen):
  // a bound on their scores showed that they could not beat a candidate found before them.
  std::size_t candidates_bounded = 0;
  std::size_t potential_nodes = 0;
  std::size_t offset = 0;
  std::size_t candidates_wanted = 0;

  // The status code upstream's PostFilter returns with this decision.
  constexpr status_code code() const noexcept {
    switch (kind) {
      case decision_kind::nominated: return status_code::success;
      case decision_kind::error: return status_code::error;
      default: return status_code::unschedulable;
    }
  }
};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DECISION_HPP
