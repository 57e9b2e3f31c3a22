// preempt/sampling.hpp - how many nodes the dry run looks at, and where it starts
// (upstream's DefaultPreemptionArgs and GetOffsetAndNumCandidates).
//
// number_of_candidates(args, n) = floor(n · percentage / 100), raised to at least `absolute`,
// capped at n. With the upstream defaults (10%, 100): 5000 nodes ⇒ 500, 500 ⇒ 100, 50 ⇒ 50.
// validate(args) applies the upstream validation and returns its messages ("" when valid).
// The dry run starts at an offset in [0, n) that upstream draws at random; the evaluator draws
// it from an offset_sequence (a seeded generator) or takes it from the caller.
//
// offset_sequence is defined here bit for bit, not by a standard library: it is splitmix64
// (Steele, Lea and Flood; the state advances by 0x9E3779B97F4A7C15, the output is mixed by two
// xor-shift-multiply rounds) and the draw in [0, n) is the output modulo n (a bias below n/2^64).
// std::uniform_int_distribution is not used: its mapping differs between libstdc++ and libc++,
// and the same seed must give the same offsets with every standard library and on every target.
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
  // Compared as std::int64_t: std::int32_t is `int` on some targets and `long` on others (newlib),
  // and std::clamp/std::max need both arguments of one type.
  const std::int64_t pct64 = args.min_candidate_nodes_percentage;
  const std::int64_t abs64 = args.min_candidate_nodes_absolute;
  const auto pct = static_cast<std::size_t>(std::clamp<std::int64_t>(pct64, 0, 100));
  const auto abs = static_cast<std::size_t>(std::max<std::int64_t>(abs64, 0));
  return std::min(n, std::max(n * pct / 100, abs));
}

// The seeded start offsets of the dry run (see above): the same seed gives the same sequence on
// every standard library and target.
class offset_sequence {
 public:
  constexpr explicit offset_sequence(std::uint64_t seed = 0) noexcept : state_(seed) {}

  // The next raw 64-bit output (splitmix64).
  constexpr std::uint64_t next_raw() noexcept {
    state_ += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  // The next offset in [0, n); n must be positive.
  constexpr std::size_t next(std::size_t n) noexcept {
    return static_cast<std::size_t>(next_raw() % static_cast<std::uint64_t>(n));
  }

 private:
  std::uint64_t state_;
};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_SAMPLING_HPP
