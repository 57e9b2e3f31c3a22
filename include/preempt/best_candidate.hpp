// preempt/best_candidate.hpp - the former name of preempt/candidate_choice.hpp (the choice of the
// node to nominate: pick_best_candidate, the score functions, default_scores). The result type,
// `best_candidate`, is in preempt/candidate.hpp.
//
// Kept for 0.2.x users; will be removed in 0.4. Include preempt/candidate_choice.hpp instead.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_BEST_CANDIDATE_HPP
#define PREEMPT_BEST_CANDIDATE_HPP

#include "preempt/candidate_choice.hpp"

#endif  // PREEMPT_BEST_CANDIDATE_HPP
