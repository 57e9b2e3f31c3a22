// preempt/sampling.hpp - how many nodes the dry run looks at, and where it starts
// (upstream's DefaultPreemptionArgs and GetOffsetAndNumCandidates).
//
// number_of_candidates(args, n) = floor(n · percentage / 100), raised to at least `absolute`,
// capped at n. With the upstream defaults (10%, 100): 5000 nodes ⇒ 500, 500 ⇒ 100, 50 ⇒ 50.
// validate(args) applies the upstream validation and returns its messages ("" when valid).
// The dry run starts at an offset in [0, n) that upstream draws at random; the evaluator draws
// it from a seeded generator or takes it from the caller.
//
// O(1); no allocation except the validation message; no exceptions of its own.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_SAMPLING_HPP
#define PREEMPT_SAMPLING_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "preempt/config.hpp"

PREEMPT_NAMESPACE_BEGIN

struct sampling_args {
  std::int32_t min_candidate_nodes_percentage = 10;
  std::int32_t min_candidate_nodes_absolute = 100;
};

// Upstream's validation; an empty string means the arguments are valid.
inline std::string validate(const sampling_args& args) {
  std::string errors;
  const auto add = [&](const char* field, std::int32_t value, const char* what) {
    if (!errors.empty()) errors += ", ";
    errors += field;
    errors += ": Invalid value: ";
    errors += std::to_string(value);
    errors += ": ";
    errors += what;
  };
  const std::int32_t pct = args.min_candidate_nodes_percentage;
  const std::int32_t abs = args.min_candidate_nodes_absolute;
  if (pct < 0 || pct > 100) add("minCandidateNodesPercentage", pct, "not in valid range [0, 100]");
  if (abs < 0) add("minCandidateNodesAbsolute", abs, "not in valid range [0, inf)");
  if (pct == 0 && abs == 0) {
    add("minCandidateNodesPercentage", pct,
        "cannot be zero at the same time as minCandidateNodesAbsolute");
    add("minCandidateNodesAbsolute", abs,
        "cannot be zero at the same time as minCandidateNodesPercentage");
  }
  return errors;
}

// How many candidates the dry run looks for among n potential nodes. Expects valid arguments.
constexpr std::size_t number_of_candidates(const sampling_args& args, std::size_t n) noexcept {
  const auto pct = static_cast<std::size_t>(std::clamp(args.min_candidate_nodes_percentage, 0, 100));
  const auto abs = static_cast<std::size_t>(std::max(args.min_candidate_nodes_absolute, 0));
  return std::min(n, std::max(n * pct / 100, abs));
}

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_SAMPLING_HPP
