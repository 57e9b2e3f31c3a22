// preempt/candidate.hpp - a node on which preemption would let the preemptor fit.
//
// A candidate names its node (by index in the caller's node list and by name) and carries the
// victims in descending importance and the number of victims that violate a disruption budget.
// It is a view: the victims span refers to storage owned elsewhere (a victim_scratch, or the
// evaluation's candidate store).
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

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_CANDIDATE_HPP
