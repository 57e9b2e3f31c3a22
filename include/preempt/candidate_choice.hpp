// preempt/candidate_choice.hpp - choose the node to nominate among the candidates
// (upstream's SelectCandidate / pickOneNodeForPreemption).
//
// Score functions map a candidate to a std::int64_t; higher is better. They are applied in order:
// the candidates tied at the best score of the first function go on to the second, and so on, and
// the first one left in the given order wins. That makes the answer deterministic where upstream
// iterates a Go map. The default scores, in order:
//   0. fewest budget violations                          (-pdb_violations)
//   1. lowest priority of the most important victim      (-priority(victims[0]))
//   2. smallest sum of priorities shifted by 2^31        (-sum(priority + 2^31), 64-bit)
//   3. fewest victims                                    (-victims.size())
//   4. latest earliest start time among the victims of the highest priority (a missing start time
//      counts as `now`; no victims counts as the smallest timestamp)
// A non-empty caller-supplied list of score functions replaces them entirely.
//
// default_scores::all computes the five at once; pick_best_candidate also takes them computed
// beforehand (the evaluator does so while the victims are fresh in the cache).
//
// Complexity O(c · k) for c candidates and k score functions: one lexicographic pass against the
// cached scores of the best so far, plus one more to name the deciding score. No allocation; no
// exceptions of its own.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_CANDIDATE_CHOICE_HPP
#define PREEMPT_CANDIDATE_CHOICE_HPP

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <ranges>
#include <span>
#include <string_view>

#include "preempt/candidate.hpp"
#include "preempt/config.hpp"
#include "preempt/pod.hpp"

PREEMPT_NAMESPACE_BEGIN

// The upstream scores as one indexable list.
struct default_scores {
  static constexpr std::size_t count = 5;
  timestamp now = 0;  // start time assumed for victims that have none

  static constexpr std::string_view name(std::size_t k) noexcept {
    constexpr std::string_view names[] = {"fewest PDB violations", "lowest highest-priority victim",
                                          "smallest sum of victim priorities", "fewest victims",
                                          "latest start of the highest-priority victims"};
    return k < count ? names[k] : std::string_view("first candidate found");
  }

  // All five scores of a candidate, in one pass over its victims.
  using vector = std::array<std::int64_t, count>;

  template <pod P>
  constexpr vector all(const candidate<P>& c) const {
    std::int64_t sum = 0;
    std::int32_t top = std::numeric_limits<std::int32_t>::min();
    timestamp earliest = std::numeric_limits<timestamp>::max();
    for (const P* v : c.victims) {
      const std::int32_t p = priority_of(*v);
      sum += std::int64_t{p} + (std::int64_t{1} << 31);
      if (p > top) {
        top = p;
        earliest = start_time_or(*v, now);
      } else if (p == top) {
        earliest = std::min(earliest, start_time_or(*v, now));
      }
    }
    return {-c.pdb_violations,
            c.victims.empty() ? 0 : -std::int64_t{priority_of(*c.victims.front())}, -sum,
            -static_cast<std::int64_t>(c.victims.size()),
            c.victims.empty() ? std::numeric_limits<std::int64_t>::min()
                              : static_cast<std::int64_t>(earliest)};
  }

  template <pod P>
  constexpr std::int64_t operator()(std::size_t k, const candidate<P>& c) const {
    switch (k) {
      case 0: return -c.pdb_violations;
      case 1: return c.victims.empty() ? 0 : -std::int64_t{priority_of(*c.victims.front())};
      case 2: return -shifted_priority_sum(c);
      case 3: return -static_cast<std::int64_t>(c.victims.size());
      default: return latest_start_score(c);
    }
  }

 private:
  template <pod P>
  static constexpr std::int64_t shifted_priority_sum(const candidate<P>& c) {
    std::int64_t sum = 0;
    for (const P* v : c.victims) sum += std::int64_t{priority_of(*v)} + (std::int64_t{1} << 31);
    return sum;
  }

  // Kubernetes GetEarliestPodStartTime: among the victims of the highest priority, the earliest
  // start time.
  template <pod P>
  constexpr std::int64_t latest_start_score(const candidate<P>& c) const {
    if (c.victims.empty()) return std::numeric_limits<std::int64_t>::min();
    std::int32_t top = std::numeric_limits<std::int32_t>::min();
    for (const P* v : c.victims) top = std::max(top, priority_of(*v));
    timestamp earliest = std::numeric_limits<timestamp>::max();
    for (const P* v : c.victims)
      if (priority_of(*v) == top) earliest = std::min(earliest, start_time_or(*v, now));
    return earliest;
  }
};

namespace detail {

// Adapts a random-access range of callables `int64(const candidate<P>&)` to an indexable list.
template <class Range>
struct score_list {
  const Range& fns;
  std::size_t count;
  template <class C>
  constexpr std::int64_t operator()(std::size_t k, const C& c) const {
    return static_cast<std::int64_t>(std::ranges::begin(fns)[static_cast<std::ptrdiff_t>(k)](c));
  }
};

// The upstream scores looked up among vectors computed beforehand (scores[i] for cands[i]).
template <class P>
struct precomputed_scores {
  const candidate<P>* first;
  const default_scores::vector* scores;
  constexpr std::int64_t operator()(std::size_t k, const candidate<P>& c) const {
    return scores[static_cast<std::size_t>(&c - first)][k];
  }
};

// The incumbent's scores kept in a fixed array, so that choosing allocates nothing: the five
// upstream scores, or the first 16 of a custom list (a longer list recomputes the rest).
inline constexpr std::size_t cached_score_count = 16;

template <class P, class Scores>
constexpr best_candidate pick_best(std::span<const candidate<P>> cands, const Scores& scores,
                                   std::size_t count) {
  best_candidate result;
  if (cands.empty()) return result;
  // The chain "keep the best of score 0, then of score 1 among those, ..." is the lexicographic
  // maximum of the score vectors, earliest candidate first on full ties. The best candidate's
  // scores are cached; a challenger's are computed only until the first difference.
  constexpr std::size_t cached = cached_score_count;
  std::int64_t best_scores[cached] = {};
  const auto best_score = [&](std::size_t best, std::size_t k) {
    return k < cached ? best_scores[k] : scores(k, cands[best]);
  };
  const auto cache = [&](std::size_t best) {
    for (std::size_t k = 0; k < count && k < cached; ++k) best_scores[k] = scores(k, cands[best]);
  };
  std::size_t best = 0;
  cache(best);
  for (std::size_t i = 1; i < cands.size(); ++i) {
    for (std::size_t k = 0; k < count; ++k) {
      const std::int64_t challenger = scores(k, cands[i]);
      const std::int64_t incumbent = best_score(best, k);
      if (challenger == incumbent) continue;
      if (challenger > incumbent) {
        best = i;
        cache(best);
      }
      break;
    }
  }
  result.index = best;
  if (cands.size() == 1) return result;
  // The deciding score is the first k after which the best stands alone among those tied with it
  // on scores 0..k: count, for each k, the candidates that agree with the best on 0..k.
  std::size_t agree[cached + 1] = {};
  if (count > cached) {  // rare: a long custom list; count directly
    for (std::size_t k = 0; k < count; ++k) {
      std::size_t tied = 0;
      for (const candidate<P>& c : cands) {
        bool same = true;
        for (std::size_t j = 0; j <= k && same; ++j) same = scores(j, c) == best_score(best, j);
        tied += same ? 1 : 0;
      }
      if (tied == 1) {
        result.deciding_score = k;
        return result;
      }
    }
    result.deciding_score = count;
    return result;
  }
  for (const candidate<P>& c : cands) {
    std::size_t prefix = 0;
    while (prefix < count && scores(prefix, c) == best_scores[prefix]) ++prefix;
    for (std::size_t k = 0; k < prefix; ++k) ++agree[k];
  }
  result.deciding_score = count;
  for (std::size_t k = 0; k < count; ++k)
    if (agree[k] == 1) {
      result.deciding_score = k;
      break;
    }
  return result;
}

}  // namespace detail

// Picks the best candidate with the upstream scores; `now` stands in for missing start times.
template <pod P>
constexpr best_candidate pick_best_candidate(std::span<const candidate<P>> cands,
                                             timestamp now = 0) {
  const default_scores scores{now};
  return detail::pick_best<P>(cands, scores, default_scores::count);
}

// The same, with each candidate's upstream scores computed beforehand (default_scores::all, e.g.
// while its victims were chosen): O(c) lookups instead of passes over the victims.
template <pod P>
constexpr best_candidate pick_best_candidate(std::span<const candidate<P>> cands,
                                             std::span<const default_scores::vector> scores) {
  PREEMPT_ASSERT(scores.size() == cands.size(), "pick_best_candidate: one score vector each");
  return detail::pick_best<P>(cands, detail::precomputed_scores<P>{cands.data(), scores.data()},
                              default_scores::count);
}

// Picks the best candidate with the caller's score functions, applied in order; an empty list
// means the upstream scores.
template <pod P, std::ranges::random_access_range Scores>
  requires std::regular_invocable<std::ranges::range_reference_t<const Scores>, const candidate<P>&>
constexpr best_candidate pick_best_candidate(std::span<const candidate<P>> cands,
                                             const Scores& score_functions, timestamp now = 0) {
  const auto count = static_cast<std::size_t>(std::ranges::size(score_functions));
  if (count == 0) return preempt::pick_best_candidate(cands, now);
  return detail::pick_best<P>(cands, detail::score_list<Scores>{score_functions, count}, count);
}

namespace detail {
// The evaluator's choice (SelectCandidate): the policy's own score functions when it has them,
// else the upstream scores, read from `scores` when computed for every candidate.
template <pod P, class Policy>
constexpr best_candidate choose_candidate(std::span<const candidate<P>> cands,
                                          std::span<const default_scores::vector> scores,
                                          const Policy& policy, timestamp now) {
  if constexpr (requires { policy.score_functions(); })
    return ::preempt::pick_best_candidate<P>(cands, policy.score_functions(), now);
  else if (scores.size() == cands.size())
    return ::preempt::pick_best_candidate<P>(cands, scores);
  else
    return ::preempt::pick_best_candidate<P>(cands, now);
}
}  // namespace detail

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_CANDIDATE_CHOICE_HPP
