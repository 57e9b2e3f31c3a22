// The former header names still compile and bring what they named (kept for 0.2.x users; to be
// removed in 0.4): preempt/best_candidate.hpp, now preempt/candidate_choice.hpp, and
// preempt/workload/victim_units.hpp, now preempt/workload/build_victim_units.hpp. They come first,
// so that their new names are defined by them (unless preempt.hpp was precompiled).
#include "preempt/best_candidate.hpp"
#include "preempt/workload/victim_units.hpp"

#if !defined(PREEMPT_CANDIDATE_CHOICE_HPP) || !defined(PREEMPT_WORKLOAD_BUILD_VICTIM_UNITS_HPP)
#error "a former header name no longer includes the header it forwards to"
#endif

#include <doctest/doctest.h>

#include <array>
#include <span>

#include "support/workload_scene.hpp"

namespace former_headers_test {

namespace wl = preempt::workload;

TEST_CASE("the former header names bring pick_best_candidate and build_victim_units") {
  wlf::scene s;
  s.node("n0", 2);
  s.node("n1", 2);
  s.group("g", true, wlf::low);
  s.add({.name = "a", .node = "n0", .group = "g"});
  s.add({.name = "b", .node = "n1", .group = "g"});
  s.add({.name = "c", .node = "n1"});
  wl::unit_scratch<wlf::pod> scratch;
  const auto units = wl::build_victim_units(s.cluster, s.grps, 0, scratch);
  REQUIRE(units.size() == 2);
  CHECK(units[0].size == 2);  // "a" and "b", one unit across the two nodes
  CHECK(units[1].size == 1);

  const wlf::pod* const one[] = {&s.cluster[1].pods()[1]};
  const wlf::pod* const two[] = {&s.cluster[0].pods()[0], &s.cluster[1].pods()[0]};
  const std::array<preempt::candidate<wlf::pod>, 2> cands{{{0, "n0", two, 0}, {1, "n1", one, 0}}};
  const preempt::best_candidate best = preempt::pick_best_candidate<wlf::pod>(
      std::span<const preempt::candidate<wlf::pod>>(cands), preempt::timestamp{0});
  CHECK(best.index == 1);           // one victim of the same priority:
  CHECK(best.deciding_score == 2);  // the smaller sum of victim priorities
}

}  // namespace former_headers_test
