// Steady-state allocation check for the parallel dry run with branch and bound
// (evaluator_config::report_only_chosen) and 3 workers: once a few decisions have run, a decision
// allocates nothing, however the nodes fall to the workers and to the result slots.
//   * a helper that took no item while the others warmed up (more workers than free cores) takes
//     every item of later decisions: its victim scratch was reserved for it beforehand;
//   * the dry run starts at another offset each time, so how many nodes have their victims selected
//     in full (not bounded), and on which worker, changes: every worker's arena has room for them;
//   * the same on a thread_pool(2), the evaluator's executor in practice;
//   * with pod groups (no branch and bound there), a helper's unit scratch is reserved as well.
// Its own executable, because it replaces the global operator new.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "preempt/preempt.hpp"
#include "preempt/thread_pool.hpp"
#include "support/counting_new.hpp"
#include "support/workload_scene.hpp"

namespace {

using pod = preempt::model::resource_pod;
using evaluator = preempt::evaluator<preempt::model::resource_cluster>;

constexpr std::size_t node_count = 200;
constexpr std::int64_t pods_per_node = 8;

// Every node holds 8 pods filling its 1000m of CPU, the k-th started at 100 + k (a strict
// importance order: victim selection takes its one-pass reprieve, as on real nodes); the preemptor
// needs 500m, so each node is a candidate with 4 victims. Node 0's pods have priority 0, the
// others' 5: node 0 is the best (lowest highest-priority victim) and the others tie. Each decision
// selects the victims of its first batch (24 nodes) and of node 0 in full; every other node is
// bounded. Where node 0 falls in its batch depends on the offset.
struct world {
  preempt::model::resource_cluster cluster;
  preempt::filter_statuses statuses{node_count, preempt::status_code::unschedulable};
  pod preemptor{
      preempt::model::pod_spec{.uid = 1, .priority = 1000, .requests = {500, 0}, .start_time = {}}};

  world() {
    preempt::model::pod_id uid = 2;
    for (std::size_t i = 0; i < node_count; ++i) {
      const std::size_t n = cluster.add_node("node-" + std::to_string(i), {1000, 1000, 110});
      for (std::int64_t k = 0; k < pods_per_node; ++k)
        cluster.add_pod(n, pod({.uid = uid++,
                                .priority = i == 0 ? 0 : 5,
                                .requests = {125, 0},
                                .start_time = 100 + k}));
    }
  }
};

evaluator make_evaluator() {
  preempt::evaluator_config cfg;
  cfg.sampling.min_candidate_nodes_percentage = 100;  // every node: batches of 24, 48, 96, ...
  cfg.parallelism = 3;
  cfg.min_parallel_nodes = 0;           // the helpers take any dry run
  cfg.workers_within_hardware = false;  // every worker, whatever the machine
  cfg.report_only_chosen = true;
  return evaluator(cfg);
}

// Steers the helpers: the first `defer` tasks queued during a decision wait until release(), the
// others run on the calling thread as they are queued. With defer = 0, helper 1 runs first and
// takes every item of each parallel batch; with defer = 1, helper 1 waits and helper 2 takes them.
struct steering {
  std::size_t defer = 0;
  std::size_t queued = 0;  // during the current decision
  std::size_t ran = 0;     // on the calling thread, in all
  std::array<preempt::task_ref, 8> held{};
  std::size_t held_count = 0;

  struct executor {
    steering* s;
    void execute(preempt::task_ref t) const noexcept {
      if (s->queued++ < s->defer) {
        s->held[s->held_count++] = t;
        return;
      }
      ++s->ran;
      t();
    }
  };
  executor get_executor() noexcept { return {this}; }

  // After a decision: the held helpers run (late: they find no job).
  void release() noexcept {
    for (std::size_t i = 0; i < held_count; ++i) held[i]();
    held_count = 0;
    queued = 0;
  }
};

static_assert(preempt::executor<steering::executor>);
static_assert(!preempt::is_always_inline_v<steering::executor>);

template <class E>
const preempt::decision<pod>& decide(evaluator& ev, const world& w, const E& ex,
                                     std::size_t offset) {
  return ev.evaluate(w.preemptor, w.cluster, w.statuses, preempt::no_budgets{},
                     preempt::no_nominations{}, ex,
                     preempt::attempt{.offset = offset, .nominated_node = std::nullopt});
}

}  // namespace

TEST_CASE("a helper that took no item during the warm-up allocates nothing when it takes items") {
  const world w;
  evaluator ev = make_evaluator();
  steering s;
  s.defer = 0;  // warm-up: helper 1 takes everything, helper 2 and the calling thread nothing
  for (int i = 0; i < 3; ++i) {
    const auto& d = decide(ev, w, s.get_executor(), 0);
    REQUIRE(d.kind == preempt::decision_kind::nominated);
    s.release();
  }
  s.defer = 1;  // helper 2 takes everything from now on
  const std::size_t ran_before = s.ran;
  const std::size_t before = counting::count();
  for (int i = 0; i < 20; ++i) {
    const auto& d = decide(ev, w, s.get_executor(), 0);
    CHECK(d.kind == preempt::decision_kind::nominated);
    CHECK(d.node_index == 0);
    CHECK(d.victims.size() == 4);
    CHECK(d.candidates_bounded > 0);
    s.release();
  }
  CHECK(counting::count() - before == 0);
  CHECK(s.ran > ran_before);  // helper 2 did run, while the batches were live
}

TEST_CASE("the arenas have room for victims wherever the bound lets a node through") {
  const world w;
  evaluator ev = make_evaluator();
  steering s;
  // Warm-up: node 0 first (offset 0) and last (offset 1: 25 nodes selected in full, the most).
  for (const std::size_t offset :
       {std::size_t{0}, std::size_t{1}, std::size_t{0}, std::size_t{1}}) {
    (void)decide(ev, w, s.get_executor(), offset);
    s.release();
  }
  const std::size_t before = counting::count();
  for (std::size_t offset = 2; offset < node_count; ++offset) {  // node 0 at position n - offset
    const auto& d = decide(ev, w, s.get_executor(), offset);
    CHECK(d.node_index == 0);
    CHECK(d.candidates.size() == (offset > node_count - 24 ? 24 : 25));
    s.release();
  }
  CHECK(counting::count() - before == 0);
}

TEST_CASE("3 workers on a thread_pool(2) with branch and bound allocate nothing in steady state") {
  const world w;
  preempt::thread_pool pool(2);
  evaluator ev = make_evaluator();
  const auto ex = pool.get_executor();
  for (const std::size_t offset : {std::size_t{0}, std::size_t{1}, std::size_t{0}, std::size_t{1}})
    (void)decide(ev, w, ex, offset);
  const std::size_t before = counting::count();
  std::size_t chosen_elsewhere = 0;
  for (std::size_t round = 0; round < 3 * node_count; ++round) {
    const auto& d = decide(ev, w, ex, (round * 7) % node_count);
    if (d.node_index != 0) ++chosen_elsewhere;
  }
  CHECK(counting::count() - before == 0);
  CHECK(chosen_elsewhere == 0);
}

namespace {

namespace wl = preempt::workload;

// Pod groups (the scene of workload_allocations.cpp): units of several pods, across nodes.
void build_groups(wlf::scene& s) {
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
}

}  // namespace

TEST_CASE("with pod groups, a helper that took no item during the warm-up allocates nothing") {
  wlf::scene s;
  build_groups(s);
  const wlf::pod preemptor({.uid = 9000, .priority = wlf::mid, .requests = {}, .start_time = {}});
  const preempt::filter_statuses statuses(s.cluster.size(), preempt::status_code::unschedulable);
  preempt::evaluator_config cfg;
  cfg.sampling.min_candidate_nodes_percentage = 100;
  cfg.parallelism = 3;
  cfg.min_parallel_nodes = 0;           // the helpers take any dry run
  cfg.workers_within_hardware = false;  // every worker, whatever the machine
  preempt::evaluator<preempt::model::resource_cluster> ev(cfg);
  steering st;
  const auto decide_groups = [&]() -> const preempt::decision<wlf::pod>& {
    const auto& d = ev.evaluate(preemptor, s.cluster, s.grps, statuses, s.budgets,
                                preempt::no_nominations{}, st.get_executor(),
                                preempt::attempt{.offset = 3, .nominated_node = std::nullopt});
    st.release();
    return d;
  };
  st.defer = 0;  // warm-up: helper 1 takes every node
  const std::size_t victims = decide_groups().victims.size();
  for (int i = 0; i < 2; ++i) REQUIRE(decide_groups().victims.size() == victims);
  REQUIRE(victims > 0);
  st.defer = 1;  // helper 2 takes every node from now on
  const std::size_t ran_before = st.ran;
  const std::size_t before = counting::count();
  for (int i = 0; i < 20; ++i) CHECK(decide_groups().victims.size() == victims);
  CHECK(counting::count() - before == 0);
  CHECK(st.ran > ran_before);
}
