// model::budget_table's by-pod index: for_each_budget_of visits exactly the budgets that select
// the pod within its namespace, in ascending budget order, each with its disruptedPods flag,
// however the memberships were added (any order, duplicates, disrupted before or after the
// member), checked against a plain list of (budget, pod, disrupted) on seeded random tables.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "preempt/model/budget_table.hpp"

namespace budget_table_test {

namespace {

using preempt::model::budget_table;
using preempt::model::pod_id;
using preempt::model::pod_spec;
using preempt::model::resource_pod;

using visit_list = std::vector<std::pair<std::size_t, bool>>;

visit_list visits(const budget_table& t, const resource_pod& p) {
  visit_list out;
  t.for_each_budget_of(p, [&](std::size_t b, bool disrupted) { out.emplace_back(b, disrupted); });
  return out;
}

resource_pod pod(pod_id uid, std::uint32_t ns = 0) {
  return resource_pod(
      pod_spec{.uid = uid, .requests = {1, 1}, .start_time = {}, .namespace_id = ns});
}

}  // namespace

TEST_CASE("budget_table: memberships in budget order whatever the order they were added in") {
  budget_table t;
  for (int b = 0; b < 6; ++b) t.add_budget(0, 1);
  t.add_disrupted(4, 7);  // before the membership
  for (std::size_t b : {5u, 1u, 4u, 0u, 3u, 1u}) t.add_member(b, 7);
  t.add_disrupted(0, 7);  // after: the first inline membership
  t.add_disrupted(5, 7);  // after: the last overflow membership
  t.add_disrupted(0, 7);  // twice: no change
  CHECK(visits(t, pod(7)) == visit_list{{0, true}, {1, false}, {3, false}, {4, true}, {5, true}});
  CHECK(visits(t, pod(8)).empty());
}

TEST_CASE("budget_table: a budget of another namespace is skipped, inline or not") {
  budget_table t;
  t.add_budget(1, 1);
  t.add_budget(0, 1);
  t.add_budget(1, 1);
  t.add_budget(0, 1);
  for (std::size_t b = 0; b < 4; ++b) t.add_member(b, 3);
  CHECK(visits(t, pod(3, 0)) == visit_list{{1, false}, {3, false}});
  CHECK(visits(t, pod(3, 1)) == visit_list{{0, false}, {2, false}});
}

TEST_CASE("budget_table: random tables equal a plain membership list") {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 g(seed);
    const std::size_t budgets = 1 + g() % 12, pods = 1 + g() % 300;
    budget_table t;
    std::vector<std::uint32_t> ns(budgets);
    for (std::size_t b = 0; b < budgets; ++b) {
      ns[b] = static_cast<std::uint32_t>(g() % 2);
      t.add_budget(ns[b], 1);
    }
    std::set<std::pair<pod_id, std::size_t>> members, disrupted;
    const std::size_t ops = g() % 2000;
    for (std::size_t i = 0; i < ops; ++i) {
      const pod_id uid = 1 + g() % pods;
      const std::size_t b = g() % budgets;
      if (g() % 4 == 0) {
        t.add_disrupted(b, uid);
        disrupted.insert({uid, b});
      } else {
        t.add_member(b, uid);
        members.insert({uid, b});
      }
    }
    for (pod_id uid = 1; uid <= pods + 1; ++uid)
      for (std::uint32_t pod_ns = 0; pod_ns < 2; ++pod_ns) {
        visit_list want;
        for (std::size_t b = 0; b < budgets; ++b)
          if (members.count({uid, b}) != 0 && ns[b] == pod_ns)
            want.emplace_back(b, disrupted.count({uid, b}) != 0);
        CHECK(visits(t, pod(uid, pod_ns)) == want);
      }
  }
}

}  // namespace budget_table_test
