// in_flight_view (in_flight_view.hpp): the opt-in policy that counts victims whose eviction is in
// flight as gone. By default (as upstream: a victim stays in the cache until its deletion is
// seen) a later preemption sees the in-flight victims still on their node AND the nomination that
// reserves their room: it counts that room twice and chooses the in-flight victims again. Through
// the view it does not.
//
// Scenario: node1 4000m cpu with four low 1000m pods v1..v4 (start times 1..4, so v1 is the most
// important). P1 (high, 3000m) preempts: v1 is reprieved, the victims are v2, v3, v4. While those
// evictions are in flight (and, until reported, in the victim ledger), P2 (high, 1000m) is
// evaluated: by default its victims are v1..v4 (v2..v4 again: double counting); through the view
// exactly [v1].
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "preempt/in_flight_view.hpp"
#include "preempt/preempt.hpp"
#include "support/eviction_fakes.hpp"
#include "support/fixtures.hpp"

namespace in_flight_view_test {

namespace {

using evf::pod;
using evf::uid;
using fx::high;
using fx::low;
using fx::mid;
using view_type = preempt::in_flight_view<preempt::model::resource_cluster>;

static_assert(preempt::cluster<view_type>);

struct world {
  fx::named_cluster c;
  std::size_t node1 = 0;
  preempt::filter_statuses statuses{1};

  world() {
    node1 = c.node("node1", fx::capacity(4000, 4000));
    for (int i = 1; i <= 4; ++i) c.add(node1, "v" + std::to_string(i), low, fx::res(1000, 10), i);
    statuses.set_all(preempt::status_code::unschedulable);
  }
};

template <class X>
preempt::evaluator_config config_for() {
  preempt::evaluator_config cfg;
  cfg.parallelism = X::async ? 3 : 1;
  cfg.min_parallel_nodes = 0;           // the helpers take any dry run
  cfg.workers_within_hardware = false;  // every worker, whatever the machine
  cfg.chunk = 1;
  return cfg;
}

fx::name_list sorted(fx::name_list v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

// Async executors only: inline dispatch leaves no victim in flight once apply returns.
TEST_CASE_TEMPLATE("in_flight_view: the default double-counts in-flight victims, the view does not",
                   X, EVF_ASYNC_EXECUTORS) {
  world w;
  const pod p1 = w.c.make("P1", high, fx::res(3000, 10));
  const pod p2 = w.c.make("P2", high, fx::res(1000, 10));
  preempt::evaluator<preempt::model::resource_cluster> ev(config_for<X>());
  preempt::evaluator<view_type> view_ev(config_for<X>());
  evf::rig<X> r(&w.c.pod_names, 1);
  if constexpr (X::threaded) r.client.hold();  // keep P1's evictions in flight

  const auto& d1 =
      ev.evaluate(p1, w.c.cluster, w.statuses, w.c.budgets, r.ledger.reader(), r.x.executor());
  REQUIRE(d1.kind == preempt::decision_kind::nominated);
  CHECK(w.c.names(d1.victims) == fx::name_list{"v2", "v3", "v4"});
  CHECK(r.disp.apply(p1, d1).outcome.is_success());
  CHECK(r.ledger.node_of(p1.uid()) == std::optional<std::size_t>(w.node1));
  CHECK(r.table.victims_in_flight() == 3);
  if constexpr (X::async) CHECK(r.disp.is_preemption_running(p1.uid()));

  SUBCASE("default: the in-flight victims are chosen again, with v1 besides") {
    const auto& d2 =
        ev.evaluate(p2, w.c.cluster, w.statuses, w.c.budgets, r.ledger.reader(), r.x.executor());
    REQUIRE(d2.kind == preempt::decision_kind::nominated);
    CHECK(sorted(w.c.names(d2.victims)) == fx::name_list{"v1", "v2", "v3", "v4"});
    // The victim ledger at least keeps the duplicates from reaching the API.
    const auto res = r.disp.apply(p2, d2);
    CHECK(res.skipped == 3);
    CHECK(res.evictions == 1);
  }
  SUBCASE("in_flight_view: exactly the victim not already in flight") {
    std::vector<uid> in_flight;
    r.table.victims_snapshot(in_flight);
    CHECK(in_flight.size() == 3);
    const view_type view(w.c.cluster, in_flight);
    const auto& d2 =
        view_ev.evaluate(p2, view, w.statuses, w.c.budgets, r.ledger.reader(), r.x.executor());
    REQUIRE(d2.kind == preempt::decision_kind::nominated);
    CHECK(w.c.names(d2.victims) == fx::name_list{"v1"});
    const auto res = r.disp.apply(p2, d2);
    CHECK(res.skipped == 0);
    CHECK(res.evictions == 1);
  }
  r.client.release();
  r.settle();
  // Either way every victim was evicted exactly once.
  for (const std::string v : {"v1", "v2", "v3", "v4"}) {
    CAPTURE(v);
    CHECK(r.client.count(w.c.pod_ids.at(v)) == 1);
  }
}

TEST_CASE(
    "in_flight_view: P1's nomination still reserves the freed room for pods that yield to it") {
  world w;
  const pod p1 = w.c.make("P1", high, fx::res(3000, 10));
  const pod p3 = w.c.make("P3", mid, fx::res(1000, 10));  // lower than P1: yields to its nomination
  preempt::nomination_ledger<pod> ledger(1);
  ledger.nominate(p1, w.node1);
  std::vector<uid> in_flight{w.c.pod_ids.at("v4"), w.c.pod_ids.at("v2"), w.c.pod_ids.at("v3")};
  const view_type view(w.c.cluster, in_flight);
  CHECK(std::is_sorted(in_flight.begin(), in_flight.end()));  // sorted in place
  preempt::evaluator<view_type> ev;
  const auto& d =
      ev.evaluate(p3, view, w.statuses, w.c.budgets, ledger.reader(), preempt::inline_executor{});
  REQUIRE(d.kind == preempt::decision_kind::nominated);
  CHECK(w.c.names(d.victims) == fx::name_list{"v1"});
  // Without P1's nomination the room v2..v4 left is free: P3 fits without preempting anyone, and
  // a dry run finding no victim on its only node reports that as an error.
  ledger.remove(p1.uid());
  const auto& d2 =
      ev.evaluate(p3, view, w.statuses, w.c.budgets, ledger.reader(), preempt::inline_executor{});
  CHECK(d2.kind == preempt::decision_kind::error);
}

TEST_CASE("in_flight_view: nodes hide the in-flight pods, states do not count them") {
  world w;
  const std::size_t n2 = w.c.node("node2", fx::capacity(1000, 1000));
  w.c.add(n2, "x1", low, fx::res(300, 10));
  std::vector<uid> in_flight{w.c.pod_ids.at("v3"), w.c.pod_ids.at("x1"), 9999 /* not a pod */};
  const view_type view(w.c.cluster, in_flight);
  CHECK(view.size() == 2);
  CHECK(view[0].name() == "node1");
  CHECK(&view[0].underlying() == &w.c.cluster[0]);
  fx::name_list names;
  for (const pod& p : view[0].pods()) names.push_back(w.c.pod_names.at(p.uid()));
  CHECK(names == fx::name_list{"v1", "v2", "v4"});  // importance order kept
  std::size_t on_node1 = 0;
  for ([[maybe_unused]] const pod& p : view[1].pods()) ++on_node1;
  CHECK(on_node1 == 0);
  CHECK(view.is_in_flight(w.c.cluster[0].pods()[2]));
  CHECK_FALSE(view.is_in_flight(w.c.cluster[0].pods()[0]));

  // States: node1 has 3000m requested of 4000m through the view (4000m underneath).
  auto state = view.make_state();
  view.prepare_state(0, state);
  CHECK(state.fits(w.c.make("a", high, fx::res(1000, 10))).is_success());
  CHECK_FALSE(state.fits(w.c.make("b", high, fx::res(1001, 10))).is_success());
  auto plain = w.c.cluster.make_state();
  w.c.cluster.prepare_state(0, plain);
  CHECK_FALSE(plain.fits(w.c.make("c", high, fx::res(1000, 10))).is_success());
  view.prepare_state(1, state);  // the same state reused on another node
  CHECK(state.fits(w.c.make("d", high, fx::res(1000, 10))).is_success());
}

TEST_CASE("in_flight_view: with nothing in flight it decides exactly like the plain cluster") {
  world w;
  const pod p = w.c.make("P", high, fx::res(2000, 10));
  std::vector<uid> none;
  const view_type view(w.c.cluster, none);
  preempt::evaluator<preempt::model::resource_cluster> ev;
  preempt::evaluator<view_type> view_ev;
  preempt::attempt a;
  a.offset = 0;
  const auto& d = ev.evaluate(p, w.c.cluster, w.statuses, w.c.budgets, preempt::no_nominations{},
                              preempt::inline_executor{}, a);
  const auto& dv = view_ev.evaluate(p, view, w.statuses, w.c.budgets, preempt::no_nominations{},
                                    preempt::inline_executor{}, a);
  REQUIRE(d.kind == preempt::decision_kind::nominated);
  REQUIRE(dv.kind == preempt::decision_kind::nominated);
  CHECK(w.c.names(d.victims) == w.c.names(dv.victims));
  CHECK(w.c.names(d.victims) == fx::name_list{"v3", "v4"});
}

}  // namespace in_flight_view_test
