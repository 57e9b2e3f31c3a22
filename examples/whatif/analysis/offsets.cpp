// examples/whatif/analysis/offsets.cpp - see offsets.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "analysis/offsets.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "preempt/sampling.hpp"

namespace whatif {

namespace {

// The candidate lists of one offset's dry run, kept between offsets (no allocation once warm).
struct offset_walk {
  std::vector<std::size_t> without_violations, with_violations;

  // The dry run from `offset`: the nodes in ring order, each candidate joining its list while the
  // list holds fewer than `wanted`, stopping once the lists hold `wanted` with one without
  // violations (the evaluator's merge_outcome and may_stop; upstream's candidateList and cancel).
  void run(const report& full, std::size_t offset, std::size_t wanted) {
    without_violations.clear();
    with_violations.clear();
    const std::vector<std::size_t>& ring = full.evaluation_order;
    const std::size_t n = ring.size();
    for (std::size_t k = 0; k < n; ++k) {
      std::size_t at = offset + k;
      if (at >= n) at -= n;
      const node_report& node = full.nodes[ring[at]];
      if (node.status != preempt::status_code::success) continue;
      auto& list = node.pdb_violations == 0 ? without_violations : with_violations;
      if (list.size() < wanted) list.push_back(ring[at]);
      if (!without_violations.empty() &&
          without_violations.size() + with_violations.size() >= wanted)
        break;
    }
  }

  // The choice among the candidates (those without violations first, each list in the order
  // found): the lexicographic maximum of the scores, the first of equals, and the candidates tied
  // with it on every score after it.
  void choose(const report& full, std::vector<std::size_t>& choices) const {
    choices.clear();
    const std::array<std::int64_t, 5>* best = nullptr;
    const auto consider = [&](std::size_t i) {
      const auto& s = full.nodes[i].scores;
      if (best == nullptr || *best < s) {
        best = &s;
        choices.assign(1, i);
      } else if (*best == s) {
        choices.push_back(i);
      }
    };
    for (std::size_t i : without_violations) consider(i);
    for (std::size_t i : with_violations) consider(i);
  }
};

}  // namespace

void outcome_at(const offset_distribution& d, std::size_t offset,
                std::vector<std::size_t>& choices) {
  offset_walk walk;
  walk.run(d.decision, offset, d.candidates_wanted);
  walk.choose(d.decision, choices);
}

std::optional<load_error> decide_every_offset(const analysis& a, const pod_object& preemptor,
                                              const options& opts, offset_distribution& out) {
  out = offset_distribution{};
  options every = opts;
  every.sampling = preempt::sampling_args{100, 0};  // every node preemption may help, all kept
  every.offset = 0;
  if (auto e = a.decide(preemptor, every, out.decision)) return e;
  report& full = out.decision;
  out.potential_nodes = full.potential_nodes;
  out.candidates_wanted = preempt::number_of_candidates(opts.sampling, full.potential_nodes);
  if (full.result != result_kind::nominated) return std::nullopt;  // the same at every offset

  const std::size_t n = full.evaluation_order.size();
  std::map<std::vector<std::size_t>, std::size_t> seen;  // sorted choices -> outcome
  offset_walk walk;
  std::vector<std::size_t> choices, key;
  for (std::size_t offset = 0; offset < n; ++offset) {
    walk.run(full, offset, out.candidates_wanted);
    walk.choose(full, choices);
    key = choices;
    std::sort(key.begin(), key.end());
    const auto [it, added] = seen.emplace(key, out.outcomes.size());
    if (added) out.outcomes.push_back(offset_outcome{choices, 0, offset});
    ++out.outcomes[it->second].offsets;
  }
  std::stable_sort(out.outcomes.begin(), out.outcomes.end(),
                   [](const offset_outcome& x, const offset_outcome& y) {
                     return x.offsets > y.offsets;  // stable: first offsets first among equals
                   });
  return std::nullopt;
}

}  // namespace whatif
