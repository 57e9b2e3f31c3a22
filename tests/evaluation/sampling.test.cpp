// How many candidates the dry run wants, and the validation of the sampling arguments
// (sampling.hpp; upstream's DefaultPreemptionArgs validation and GetOffsetAndNumCandidates).
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "preempt/sampling.hpp"

namespace sampling_test {

namespace {

preempt::sampling_args args(std::int32_t pct, std::int32_t abs) {
  preempt::sampling_args a;
  a.min_candidate_nodes_percentage = pct;
  a.min_candidate_nodes_absolute = abs;
  return a;
}

}  // namespace

TEST_CASE("the defaults are upstream's: 10 percent, at least 100") {
  const preempt::sampling_args d;
  CHECK(d.min_candidate_nodes_percentage == 10);
  CHECK(d.min_candidate_nodes_absolute == 100);
  CHECK(preempt::validate(d).empty());
}

TEST_CASE(
    "number_of_candidates: upstream's examples (5000 nodes: 500, 500: 100, 50: 50, 5 at 40%: 2)") {
  CHECK(preempt::number_of_candidates(args(40, 1), 5) == 2);
  const preempt::sampling_args defaults;
  CHECK(preempt::number_of_candidates(defaults, 5000) == 500);
  CHECK(preempt::number_of_candidates(defaults, 500) == 100);
  CHECK(preempt::number_of_candidates(defaults, 50) == 50);
  static_assert(preempt::number_of_candidates(preempt::sampling_args{}, 5000) == 500);
}

TEST_CASE("number_of_candidates: floor of the percentage, raised to the minimum, capped at n") {
  CHECK(preempt::number_of_candidates(args(40, 2), 5) == 2);  // DR19
  CHECK(preempt::number_of_candidates(args(40, 3), 5) == 3);  // the minimum wins
  CHECK(preempt::number_of_candidates(args(40, 0), 9) == 3);  // floor(3.6)
  CHECK(preempt::number_of_candidates(args(10, 0), 9) == 0);  // floor(0.9): zero is possible
  CHECK(preempt::number_of_candidates(args(0, 7), 100) == 7);
  CHECK(preempt::number_of_candidates(args(100, 0), 37) == 37);
  CHECK(preempt::number_of_candidates(args(50, 100), 37) == 37);  // capped at n
  CHECK(preempt::number_of_candidates(args(10, 100), 1001) == 100);
  CHECK(preempt::number_of_candidates(args(10, 100), 1010) == 101);
  CHECK(preempt::number_of_candidates(args(1, 1), 0) == 0);
  CHECK(preempt::number_of_candidates(args(100, 100), 1) == 1);
  // Large clusters: no overflow in n * pct.
  CHECK(preempt::number_of_candidates(args(100, 0), std::size_t{1} << 40) == std::size_t{1} << 40);
  CHECK(preempt::number_of_candidates(args(25, 0), std::size_t{1} << 40) == std::size_t{1} << 38);
}

TEST_CASE("validate: upstream's messages") {
  CHECK(preempt::validate(args(0, 1)) == "");
  CHECK(preempt::validate(args(100, 0)) == "");
  CHECK(preempt::validate(args(40, 2)) == "");
  CHECK(preempt::validate(args(101, 1)) ==
        "minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]");
  CHECK(preempt::validate(args(-1, 1)) ==
        "minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]");
  CHECK(preempt::validate(args(10, -1)) ==
        "minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)");
  CHECK(preempt::validate(args(0, 0)) ==
        "minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
        "minCandidateNodesAbsolute, minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at "
        "the same time as minCandidateNodesPercentage");
  CHECK(preempt::validate(args(-5, -7)) ==
        "minCandidateNodesPercentage: Invalid value: -5: not in valid range [0, 100], "
        "minCandidateNodesAbsolute: Invalid value: -7: not in valid range [0, inf)");
}

}  // namespace sampling_test
