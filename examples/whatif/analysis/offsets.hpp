// examples/whatif/analysis/offsets.hpp - the decision at every start of the dry run (--offsets
// all).
//
// kube-scheduler's DryRunPreemption starts at a random offset among the nodes preemption may help
// (DefaultPreemption.GetOffsetAndNumCandidates: rand.Int31n(potential nodes)) and stops once it
// holds calculateNumCandidates(n) candidates, one without budget violations among them. When that
// number is below n (with the default arguments: more than 100 nodes preemption may help), the
// start decides which candidates the choice sees, so the nominated node and its victims depend on
// the draw. decide_every_offset() gives the decision for every offset upstream can draw, as the
// distribution of outcomes: each distinct outcome, how many offsets give it, the first of them.
//
// How: each node's dry run is independent of the others (upstream evaluates each on its own copy
// of the node and of the cycle state), so every node preemption may help is evaluated once, with
// every candidate kept (one analysis::decide with 100% of the nodes wanted); then, for each offset,
// the candidate lists are rebuilt as the dry run from that offset fills them (the nodes in ring
// order, each list capped at the number wanted, stopping where the evaluator stops) and the
// choice is made among them by the recorded scores (the lexicographic maximum, first found on full
// ties, as preempt::pick_best_candidate). The candidates tied on every criterion with the chosen
// one are an outcome of their own: upstream picks among them at random (a Go map's order).
// tests/whatif/decisions.test.cpp checks every offset against analysis::decide at that offset.
// Its outputs: output/offsets_output.hpp.
//
// Cost: one full dry run, then O(n · (nodes walked + candidates wanted)) for n potential nodes;
// memory O(n) beyond the decision. Not thread-safe (as analysis::decide).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_OFFSETS_HPP
#define PREEMPT_WHATIF_OFFSETS_HPP

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/analysis.hpp"

namespace whatif {

struct offset_outcome {
  // The candidates kube-scheduler may nominate at these offsets, as indices into
  // offset_distribution::decision.nodes: one, or several tied on every criterion (picked at
  // random), the one the tool's choice takes first.
  std::vector<std::size_t> choices;
  std::size_t offsets = 0;       // how many start offsets give it
  std::size_t first_offset = 0;  // the smallest of them (--offset N shows that decision)
};

struct offset_distribution {
  // The dry run of every node preemption may help (for "nominated"), or the decision, which is
  // then the same at every offset (fits, not-eligible, unschedulable, other-scheduler, error):
  // its result, message, warnings and notModelled are the distribution's.
  report decision;
  std::size_t potential_nodes = 0;
  std::size_t candidates_wanted = 0;  // with the sampling arguments decided for
  // Distinct outcomes, most offsets first (then by first offset); empty unless "nominated".
  std::vector<offset_outcome> outcomes;
};

// The decision for `preemptor` at every start offset (opts.offset is ignored).
std::optional<load_error> decide_every_offset(const analysis& a, const pod_object& preemptor,
                                              const options& opts, offset_distribution& out);

// The outcome at one offset of the distribution's dry run: its choices (as offset_outcome) in
// `choices`. For tests and for decide_every_offset.
void outcome_at(const offset_distribution& d, std::size_t offset,
                std::vector<std::size_t>& choices);

}  // namespace whatif

#endif  // PREEMPT_WHATIF_OFFSETS_HPP
