// Steady-state allocation check for workload-aware preemption: after one warm-up decision, the
// pod-group evaluator (victim units, budgets, placement, in-place reprieve) and the single-pod
// selection on units allocate nothing. Its own executable, because it replaces the global
// operator new.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "preempt/preempt.hpp"
#include "support/counting_new.hpp"
#include "support/workload_scene.hpp"

namespace {

namespace wl = preempt::workload;

// upstream's mock scheduling function without a heap (wlf::round_robin keeps a vector).
struct round_robin_fixed {
  template <class S>
  preempt::status operator()(std::span<const wlf::pod* const> members, wl::node_states<S>& states,
                             std::span<std::size_t> out) const {
    std::array<std::pair<std::size_t, const wlf::pod*>, 16> assumed{};
    std::size_t n_assumed = 0, next = 0;
    for (std::size_t k = 0; k < members.size() && n_assumed < assumed.size(); ++k) {
      for (std::size_t step = 0; step < states.size(); ++step) {
        const std::size_t i = (next + step) % states.size();
        if (!states[i].fits(*members[k])) continue;
        out[k] = i;
        (void)states[i].add_pod(*members[k]);
        assumed[n_assumed++] = {i, members[k]};
        next = (i + 1) % states.size();
        break;
      }
    }
    for (std::size_t a = n_assumed; a-- > 0;)
      (void)states[assumed[a].first].remove_pod(*assumed[a].second);
    return n_assumed > 0 ? preempt::status::ok()
                         : preempt::status(preempt::status_code::unschedulable);
  }
};

void build(wlf::scene& s) {
  for (int i = 0; i < 8; ++i) s.node("n" + std::to_string(i), 3);
  s.group("cpg", true, wlf::low, wl::group_kind::composite_pod_group);
  s.group("a", true, wlf::low, wl::group_kind::pod_group, "cpg");
  s.group("b", false, wlf::mid);
  for (int k = 0; k < 22; ++k)
    s.add({.name = "v" + std::to_string(k),
           .node = "n" + std::to_string(k % 8),
           .priority = k % 3 == 0 ? wlf::high : wlf::low,
           .group = k % 4 == 0 ? "a" : (k % 4 == 1 ? "b" : ""),
           .start = k,
           .foo = k % 5 == 0});
  s.pdb_foo(1);
  for (int m = 0; m < 5; ++m) s.member("m" + std::to_string(m));
}

}  // namespace

TEST_CASE("the pod-group evaluator allocates nothing in steady state") {
  wlf::scene s;
  build(s);
  const auto g = s.preemptor();
  wl::pod_group_evaluator<preempt::model::resource_cluster> ev({.now = 1000});
  const auto& first =
      ev.evaluate(g, s.cluster, s.grps, s.budgets, preempt::no_nominations{}, round_robin_fixed{});
  REQUIRE(first.kind == wl::group_decision_kind::preempt);
  const std::size_t victims = first.victims.size();
  REQUIRE(victims > 0);
  const std::size_t before = counting::count();
  for (int round = 0; round < 100; ++round) {
    const auto& d = ev.evaluate(g, s.cluster, s.grps, s.budgets, preempt::no_nominations{},
                                round_robin_fixed{});
    CHECK(d.victims.size() == victims);
  }
  CHECK(counting::count() - before == 0);
}

TEST_CASE("single-pod selection on units allocates nothing in steady state") {
  wlf::scene s;
  build(s);
  const wlf::pod preemptor({.uid = 9000, .priority = wlf::mid, .requests = {}, .start_time = {}});
  wl::unit_scratch<wlf::pod> units;
  wl::unit_selection_scratch<wlf::pod> scratch;
  auto state = s.cluster.make_state();
  const auto decide = [&] {
    wl::build_victim_units(s.cluster, s.grps, 1000, units);
    std::size_t chosen = 0;
    for (std::size_t x = 0; x < s.cluster.size(); ++x) {
      s.cluster.prepare_state(x, state);
      chosen += wl::select_unit_victims(preemptor, x, s.cluster, state, units, s.budgets,
                                        preempt::no_nominated_pods<wlf::pod>, scratch)
                    .victims.size();
    }
    return chosen;
  };
  const std::size_t first = decide();
  REQUIRE(first > 0);
  const std::size_t before = counting::count();
  for (int round = 0; round < 100; ++round) CHECK(decide() == first);
  CHECK(counting::count() - before == 0);
}

TEST_CASE("the evaluator with pod groups allocates nothing in steady state") {
  wlf::scene s;
  build(s);
  const wlf::pod preemptor({.uid = 9000, .priority = wlf::mid, .requests = {}, .start_time = {}});
  preempt::filter_statuses statuses(s.cluster.size(), preempt::status_code::unschedulable);
  preempt::evaluator<preempt::model::resource_cluster> ev;
  const preempt::attempt at{.offset = 3, .nominated_node = std::nullopt};
  const auto& first = ev.evaluate(preemptor, s.cluster, s.grps, statuses, s.budgets,
                                  preempt::no_nominations{}, preempt::inline_executor{}, at);
  REQUIRE(first.kind == preempt::decision_kind::nominated);
  const std::size_t victims = first.victims.size();
  const std::size_t before = counting::count();
  for (int round = 0; round < 100; ++round) {
    const auto& d = ev.evaluate(preemptor, s.cluster, s.grps, statuses, s.budgets,
                                preempt::no_nominations{}, preempt::inline_executor{}, at);
    CHECK(d.victims.size() == victims);
  }
  CHECK(counting::count() - before == 0);
}
