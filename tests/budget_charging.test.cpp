// Charging disruption budgets in victim selection.
//
//   BC1  budget_table::for_each_budget_of with a visitor that returns bool: the memberships a
//        plain visitor sees, in the same order, up to and including the one where it returns
//        true; a visitor returning false throughout sees them all.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/fixtures.hpp"

namespace {

using fx::pod;
using membership = std::pair<std::size_t, bool>;  // budget index, already disrupted

pod pod_in(preempt::model::pod_id uid, std::uint32_t namespace_id) {
  return pod({.uid = uid, .priority = 0, .requests = {}, .start_time = {},
              .namespace_id = namespace_id});
}

// The memberships a plain visitor sees.
std::vector<membership> all_memberships(const preempt::model::budget_table& t, const pod& p) {
  std::vector<membership> seen;
  t.for_each_budget_of(p, [&](std::size_t i, bool disrupted) { seen.emplace_back(i, disrupted); });
  return seen;
}

}  // namespace

TEST_CASE("BC1: a visitor returning true ends budget_table's visit of the pod's budgets") {
  preempt::model::budget_table t;
  // Budgets 0-5 in namespace 1, 6 and 7 in namespace 2. Pod k (1-6) is in budgets 0 .. k-1 of
  // namespace 1, and in budget 6 for even k; every third membership is a disrupted one.
  for (std::size_t b = 0; b < 8; ++b) t.add_budget(b < 6 ? 1 : 2, 0);
  std::size_t nth = 0;
  for (preempt::model::pod_id k = 1; k <= 6; ++k) {
    for (std::size_t b = 0; b < k; ++b) {
      t.add_member(b, k);
      if (++nth % 3 == 0) t.add_disrupted(b, k);
    }
    if (k % 2 == 0) t.add_member(6, k);
  }
  std::size_t checked = 0;
  for (preempt::model::pod_id k = 1; k <= 7; ++k) {  // pod 7 is in no budget
    for (const std::uint32_t ns : {1u, 2u, 3u}) {
      CAPTURE(k);
      CAPTURE(ns);
      const pod p = pod_in(k, ns);
      const std::vector<membership> all = all_memberships(t, p);
      CHECK(all.size() == (k == 7 || ns == 3 ? 0 : ns == 1 ? k : (k % 2 == 0 ? 1 : 0)));
      for (std::size_t stop = 0; stop <= all.size(); ++stop) {
        std::vector<membership> seen;
        t.for_each_budget_of(p, [&](std::size_t i, bool disrupted) -> bool {
          seen.emplace_back(i, disrupted);
          return seen.size() == stop + 1;
        });
        const std::size_t expected = std::min(stop + 1, all.size());
        CHECK(seen == std::vector<membership>(all.begin(),
                                              all.begin() + static_cast<std::ptrdiff_t>(expected)));
        ++checked;
      }
    }
  }
  CHECK(checked > 20);
}
