// preempt/candidate.hpp - a node on which preemption would let the preemptor fit.
//
// A candidate names its node (by index in the caller's node list and by name) and carries the
// victims in descending importance and the number of victims that violate a disruption budget.
// It is a view: the victims span refers to storage owned elsewhere (a victim_scratch, or the
// evaluation's candidate store). `best_candidate` says which candidate the choice
// (preempt/candidate_choice.hpp) kept, and why.
//
// No allocation; no exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_CANDIDATE_HPP
#define PREEMPT_CANDIDATE_HPP

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "preempt/config.hpp"

PREEMPT_NAMESPACE_BEGIN

template <class P>
struct candidate {
  std::size_t node_index = 0;
  std::string_view node_name;
  std::span<const P* const> victims;
  std::int64_t pdb_violations = 0;
};

// Which candidate won, and which score function settled it.
struct best_candidate {
  static constexpr std::size_t none = static_cast<std::size_t>(-1);
  // Index into the candidates, or `none` when there were no candidates.
  std::size_t index = none;
  // The score function that left this candidate alone, or `score_count` when all of them tied
  // and the order of the candidates decided. For a single candidate, `none`.
  std::size_t deciding_score = none;
};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_CANDIDATE_HPP
