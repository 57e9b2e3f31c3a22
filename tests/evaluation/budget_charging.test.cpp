// Charging disruption budgets in victim selection.
//
//   BC1  budget_table::for_each_budget_of with a visitor that returns bool: the memberships a
//        plain visitor sees, in the same order, up to and including the one where it returns
//        true; a visitor returning false throughout sees them all.
//   BC2  select_victims with budgets, through the state's one-pass reprieve, on a node where the
//        preemptor does not fit even without its lower-priority pods: the status fits gives (as
//        the pod-by-pod path), and no budget is looked up or read (the fit comes first, as
//        upstream checks it before filtering the budget violations).
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/fixtures.hpp"

namespace budget_charging_test {

namespace {

using fx::pod;
using membership = std::pair<std::size_t, bool>;  // budget index, already disrupted

pod pod_in(preempt::model::pod_id uid, std::uint32_t namespace_id) {
  return pod(
      {.uid = uid, .priority = 0, .requests = {}, .start_time = {}, .namespace_id = namespace_id});
}

// The memberships a plain visitor sees.
std::vector<membership> all_memberships(const preempt::model::budget_table& t, const pod& p) {
  std::vector<membership> seen;
  t.for_each_budget_of(p, [&](std::size_t i, bool disrupted) { seen.emplace_back(i, disrupted); });
  return seen;
}

// A budget set that counts what victim selection asks of it.
struct counted_budgets {
  const preempt::model::budget_table* table;
  mutable std::size_t lookups = 0, reads = 0;
  std::size_t budget_count() const { return table->budget_count(); }
  std::int32_t disruptions_allowed(std::size_t i) const {
    ++reads;
    return table->disruptions_allowed(i);
  }
  template <class Visit>
  void for_each_budget_of(const pod& p, Visit&& visit) const {
    ++lookups;
    table->for_each_budget_of(p, visit);
  }
  void prefetch_budgets_of(const pod& p) const { table->prefetch_budgets_of(p); }
};

}  // namespace

TEST_CASE("BC1 [ours]: a visitor returning true ends budget_table's visit of the pod's budgets") {
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

TEST_CASE("BC2 [ours]: a node without room even for the preemptor alone charges no budget") {
  fx::named_cluster c;
  const std::size_t n1 = c.node("node1", fx::capacity(500, 500));
  c.add(n1, "keep", fx::very_high, fx::large());  // above the preemptor: never a victim
  c.add(n1, "a", fx::mid, fx::small(), 1);
  c.add(n1, "b", fx::low, fx::small(), 2);
  c.add(n1, "d", fx::low, fx::small(), 3);
  c.budget(0, {"a", "b"});
  c.budget(1, {"b", "d"}, {"d"});
  for (const bool memory_too : {false, true}) {
    CAPTURE(memory_too);
    // 300 + 300 > 500 cpu (and memory when memory_too).
    const pod p = c.make("p", fx::high, fx::res(300, memory_too ? 300 : 100));
    const counted_budgets budgets{&c.budgets};
    preempt::victim_scratch<pod> scratch;
    preempt::model::resource_fit_state state = c.cluster.make_state();
    c.cluster.prepare_state(n1, state);
    const auto r = preempt::select_victims(p, c.cluster[n1], state, budgets, scratch);
    CHECK_FALSE(r.is_candidate());
    CHECK(r.victims.empty());
    CHECK(r.pdb_violations == 0);
    CHECK(budgets.lookups == 0);
    CHECK(budgets.reads == 0);
    // The status fits gives with the lower-priority pods gone, as the pod-by-pod path answers.
    preempt::model::resource_fit_state alone = c.cluster.make_state();
    c.cluster.prepare_state(n1, alone);
    REQUIRE(alone.remove_lower_priority_pods(fx::high) == 3);
    CHECK(r.outcome == alone.fits(p));
    const auto by_pod = fx::select_on_each_node(c, p);
    CHECK(r.outcome == by_pod[n1].outcome);
    CHECK(r.outcome.reasons().size() == (memory_too ? 2u : 1u));
  }
}

}  // namespace budget_charging_test
