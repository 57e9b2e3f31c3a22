// Steady-state allocation check: after one warm-up pass, victim selection over a whole cluster,
// and the choice of the best candidate, allocate nothing. Its own executable, because it replaces
// the global operator new.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/counting_new.hpp"
#include "support/random_cluster.hpp"
#include "support/tiny_cluster.hpp"

namespace {

using pod = preempt::model::resource_pod;

// One decision: select victims on every node, keep the candidates, pick the best.
std::size_t decide(const rnd::world& w, preempt::victim_scratch<pod>& scratch,
                   preempt::model::resource_fit_state& state,
                   std::vector<std::vector<const pod*>>& victim_store,
                   std::vector<preempt::candidate<pod>>& cands,
                   const std::vector<const pod*>& nominated) {
  cands.clear();
  for (std::size_t i = 0; i < w.cluster.size(); ++i) {
    w.cluster.prepare_state(i, state);
    const auto r = preempt::select_victims(w.preemptor, w.cluster[i], state, w.budgets, nominated,
                                           scratch, preempt::default_policy{w.now});
    if (!r.is_candidate()) continue;
    victim_store[i].assign(r.victims.begin(), r.victims.end());
    cands.push_back({i, w.cluster[i].name(), victim_store[i], r.pdb_violations});
  }
  return preempt::pick_best_candidate<pod>(cands, w.now).index;
}

}  // namespace

TEST_CASE("victim selection and best-candidate choice allocate nothing in steady state") {
  // The first world from seed 42 on with a candidate (the worlds depend on the standard
  // library's distributions, so libstdc++ and libc++ may need different seeds).
  std::uint64_t seed = 42;
  rnd::world w;
  std::vector<const pod*> nominated;
  preempt::victim_scratch<pod> scratch;
  preempt::model::resource_fit_state state;
  std::vector<std::vector<const pod*>> victim_store;
  std::vector<preempt::candidate<pod>> cands;
  std::size_t first = 0;
  do {
    w = rnd::make_world(seed++,
                        {.max_nodes = 64, .max_pods = 40, .max_budgets = 20, .max_nominated = 3});
    nominated.clear();
    for (const pod& n : w.nominated) nominated.push_back(&n);
    victim_store.assign(w.cluster.size(), {});
    for (auto& v : victim_store) v.reserve(64);
    cands.clear();
    cands.reserve(w.cluster.size());
    first = decide(w, scratch, state, victim_store, cands, nominated);
  } while (cands.empty() && seed < 142);
  REQUIRE(!cands.empty());
  const std::size_t before = counting::count();
  for (int round = 0; round < 100; ++round)
    CHECK(decide(w, scratch, state, victim_store, cands, nominated) == first);
  CHECK(counting::count() - before == 0);
}

TEST_CASE("scratch.reserve makes even the first selection allocation-free") {
  const rnd::world w =
      rnd::make_world(7, {.max_nodes = 16, .max_pods = 30, .max_budgets = 8, .max_nominated = 0});
  preempt::victim_scratch<pod> scratch;
  scratch.reserve(64, w.budgets.budget_count());
  preempt::model::resource_fit_state state;
  w.cluster.prepare_state(0, state);  // sizes the state's vectors
  const std::size_t before = counting::count();
  for (std::size_t i = 0; i < w.cluster.size(); ++i) {
    w.cluster.prepare_state(i, state);
    (void)preempt::select_victims(w.preemptor, w.cluster[i], state, w.budgets, scratch);
  }
  CHECK(counting::count() - before == 0);
}

TEST_CASE("nodes with and without extended resources: no allocation in steady state") {
  // Nodes with the standard dimensions only, between nodes with two extended resources: the
  // state goes from six dimensions to four and back on every node, and must keep its storage.
  using preempt::model::resource_vector;
  preempt::model::resource_cluster c;
  for (int i = 0; i < 8; ++i) {
    resource_vector allocatable{4000, 1 << 30, 110, 0};
    if (i % 2 == 1) {
      allocatable.set(4, 8);  // e.g. nvidia.com/gpu
      allocatable.set(5, 2);
    }
    const auto n = c.add_node("node-" + std::to_string(i), allocatable);
    for (std::uint64_t k = 0; k < 4; ++k) {
      resource_vector requests{900, 1 << 20};
      if (i % 2 == 1) requests.set(4, 2);
      c.add_pod(n, pod({.uid = static_cast<std::uint64_t>(i) * 10 + k + 1,
                        .priority = 0,
                        .requests = requests,
                        .start_time = static_cast<preempt::timestamp>(k)}));
    }
  }
  const pod preemptor({.uid = 1000, .priority = 10, .requests = {1000, 1 << 20}, .start_time = {}});
  preempt::evaluator<preempt::model::resource_cluster> ev;
  const preempt::filter_statuses statuses(c.size(), preempt::status_code::unschedulable);
  const auto evaluate = [&]() -> const preempt::decision<pod>& {
    return ev.evaluate(preemptor, c, statuses, preempt::no_budgets{}, preempt::no_nominations{},
                       preempt::inline_executor{},
                       preempt::attempt{.offset = 0, .nominated_node = std::nullopt});
  };
  REQUIRE(evaluate().kind == preempt::decision_kind::nominated);
  const std::size_t before = counting::count();
  for (int round = 0; round < 20; ++round)
    CHECK(evaluate().kind == preempt::decision_kind::nominated);
  CHECK(counting::count() - before == 0);
}

TEST_CASE("an evaluation whose nodes all fail with errors allocates nothing in steady state") {
  // Every node's filter plugin fails (remove_pod): the decision is the aggregate of the errors,
  // one line per distinct error, composed into buffers kept from the first such decision.
  using P = tiny::pod<>;
  static const P pods_a[] = {{1, 1, 0}, {2, 2, 0}};
  static const P pods_b[] = {{3, 1, 0}};
  std::vector<tiny::node<>> nodes;
  for (int i = 0; i < 8; ++i)
    nodes.push_back(
        {"node", i % 2 == 0 ? std::span<const P>(pods_a) : std::span<const P>(pods_b), 2, true});
  const tiny::cluster<> c{nodes};
  const P preemptor{100, 100, 0};
  preempt::evaluator<tiny::cluster<>> ev;
  const auto evaluate = [&]() -> const preempt::decision<P>& {
    return ev.evaluate(preemptor, c, tiny::all_unschedulable{}, preempt::no_budgets{},
                       preempt::no_nominations{}, preempt::inline_executor{},
                       preempt::attempt{.offset = 0, .nominated_node = std::nullopt});
  };
  const std::string first(evaluate().message);
  CHECK(first == "preemption: " + std::string(tiny::remove_failed));
  const std::size_t before = counting::count();
  for (int round = 0; round < 50; ++round) {
    const auto& d = evaluate();
    CHECK(d.kind == preempt::decision_kind::error);
    CHECK(d.message == first);
  }
  CHECK(counting::count() - before == 0);
}

TEST_CASE("the counter sees allocations (the check above can fail)") {
  const std::size_t before = counting::count();
  std::vector<int> v(100);
  CHECK(counting::count() - before >= 1);
  CHECK(v.size() == 100);
}
