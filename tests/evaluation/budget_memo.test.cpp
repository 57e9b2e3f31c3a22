// The evaluator's memo of budget-free nodes (preempt::stamped_budgets: model::budget_table over
// model::resource_cluster): a node where charging every pod violates no budget is selected
// without reading the budgets, until the node's pods or the budgets change.
//
//   - content_stamp: a copy keeps the value, a change or a move draws a new one;
//   - the table's and the node's stamps change with every mutation that can change an answer;
//   - on random clusters, repeated decisions of one evaluator (the memo warm), inline and with
//     two workers, equal those over the same budgets without stamp() (read per victim);
//   - a budget, member or disrupted entry added after a decision, or a pod added to or removed
//     from a node, is seen by the next decision of the same evaluator.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "preempt/preempt.hpp"
#include "preempt/thread_pool.hpp"
#include "support/random_cluster.hpp"

namespace budget_memo_test {

namespace {

using preempt::status_code;
using preempt::model::budget_table;
using preempt::model::pod_id;
using preempt::model::resource_cluster;
using preempt::model::resource_node;
using pod = preempt::model::resource_pod;
using evaluator = preempt::evaluator<resource_cluster>;

// The same budgets without stamp(): the evaluator charges them per victim.
struct unstamped {
  const budget_table* table;
  std::size_t budget_count() const noexcept { return table->budget_count(); }
  std::int32_t disruptions_allowed(std::size_t i) const noexcept {
    return table->disruptions_allowed(i);
  }
  template <class Visit>
  void for_each_budget_of(const pod& p, Visit&& visit) const {
    table->for_each_budget_of(p, std::forward<Visit>(visit));
  }
};
static_assert(preempt::budget_set<unstamped, pod>);
static_assert(preempt::stamped_budgets<budget_table, resource_node>);
static_assert(!preempt::stamped_budgets<unstamped, resource_node>);
static_assert(!preempt::stamped_budgets<preempt::no_budgets, resource_node>);

preempt::filter_statuses everywhere_unschedulable(std::size_t nodes) {
  preempt::filter_statuses s(nodes);
  s.set_all(status_code::unschedulable);
  return s;
}

template <class D>
std::string describe(const D& d) {
  std::string s = std::string(preempt::to_string(d.kind)) +
                  " node=" + std::to_string(d.node_index) + " victims=";
  for (const pod* v : d.victims) s += std::to_string(v->uid()) + ",";
  s += " violations=" + std::to_string(d.pdb_violations) + " candidates=";
  for (const auto& k : d.candidates) {
    s += std::to_string(k.node_index) + "{";
    for (const pod* v : k.victims) s += std::to_string(v->uid()) + ",";
    s += "}/" + std::to_string(k.pdb_violations) + " ";
  }
  s += " diagnosis=";
  for (const auto& n : d.diagnosis) s += std::string(preempt::to_string(n.outcome.code())) + " ";
  return s;
}

template <class B, class E>
std::string decide(evaluator& ev, const pod& preemptor, const resource_cluster& c,
                   const preempt::filter_statuses& statuses, const B& budgets, const E& ex) {
  preempt::attempt at;
  at.offset = 0;
  return describe(ev.evaluate(preemptor, c, statuses, budgets, preempt::no_nominations{}, ex, at));
}

preempt::evaluator_config every_node(std::size_t parallelism = 1) {
  preempt::evaluator_config cfg;
  cfg.sampling.min_candidate_nodes_percentage = 100;
  cfg.parallelism = parallelism;
  cfg.min_parallel_nodes = 0;           // the helpers take any dry run
  cfg.workers_within_hardware = false;  // every worker, whatever the machine
  cfg.chunk = 1;
  return cfg;
}

// node1 holds a (low) and b (low), 200 each; the preemptor needs both gone.
struct two_pods {
  resource_cluster c;
  budget_table t;
  std::size_t n1 = c.add_node("node1", {400, 400, 8});
  pod preemptor{{.uid = 100, .priority = 1000, .requests = {400, 400}, .start_time = {}}};
  preempt::filter_statuses statuses = everywhere_unschedulable(1);
  two_pods() {
    c.add_pod(n1, pod({.uid = 1, .priority = 0, .requests = {200, 200}, .start_time = 10}));
    c.add_pod(n1, pod({.uid = 2, .priority = 0, .requests = {200, 200}, .start_time = 20}));
  }
  std::int64_t violations(evaluator& ev) {
    preempt::attempt at;
    at.offset = 0;
    const auto& d = ev.evaluate(preemptor, c, statuses, t, preempt::no_nominations{},
                                preempt::inline_executor{}, at);
    REQUIRE(d.kind == preempt::decision_kind::nominated);
    REQUIRE(d.victims.size() == 2);
    return d.pdb_violations;
  }
};

}  // namespace

TEST_CASE("content_stamp: copies share a value, changes and moves draw new ones") {
  preempt::detail::content_stamp a;
  const std::uint64_t first = a.value();
  CHECK(first != 0);
  preempt::detail::content_stamp copy = a;
  CHECK(copy.value() == first);
  a.renew();
  CHECK(a.value() != first);
  CHECK(copy.value() == first);
  const std::uint64_t before_move = a.value();
  preempt::detail::content_stamp moved = std::move(a);
  CHECK(moved.value() == before_move);
  CHECK(a.value() != before_move);  // NOLINT(bugprone-use-after-move): a moved-from stamp renews
  preempt::detail::content_stamp other;
  CHECK(other.value() != moved.value());
}

TEST_CASE("the budget table's and the node's stamps change with their contents") {
  resource_cluster c;
  const std::size_t n = c.add_node("node1", {1000, 1000, 8});
  std::uint64_t s = c[n].stamp();
  c.add_pod(n, pod({.uid = 1, .priority = 0, .requests = {100, 100}, .start_time = 1}));
  CHECK(c[n].stamp() != s);
  s = c[n].stamp();
  std::vector<pod> more{pod({.uid = 2, .priority = 0, .requests = {100, 100}, .start_time = 2})};
  c.add_pods(n, more);
  CHECK(c[n].stamp() != s);
  s = c[n].stamp();
  CHECK_FALSE(c.remove_pod(n, 99));
  CHECK(c[n].stamp() == s);  // nothing removed, nothing changed
  CHECK(c.remove_pod(n, 1));
  CHECK(c[n].stamp() != s);
  const resource_cluster copy = c;
  CHECK(copy[n].stamp() == c[n].stamp());

  budget_table t;
  std::uint64_t ts = t.stamp();
  const std::size_t b = t.add_budget(0, 1);
  CHECK(t.stamp() != ts);
  ts = t.stamp();
  t.add_member(b, 1);
  CHECK(t.stamp() != ts);
  ts = t.stamp();
  t.add_disrupted(b, 1);
  CHECK(t.stamp() != ts);
  ts = t.stamp();
  t.add_disrupted(b, 1);  // already there
  CHECK(t.stamp() == ts);
  const budget_table copy_t = t;
  CHECK(copy_t.stamp() == t.stamp());
  budget_table moved_t = std::move(t);
  CHECK(moved_t.stamp() == ts);
  CHECK(t.stamp() != ts);  // NOLINT(bugprone-use-after-move)
}

TEST_CASE("stamped budgets decide as budgets read per victim, decision after decision") {
  preempt::thread_pool pool(1);
  for (const std::uint64_t seed : rnd::seeds(300, 77)) {
    CAPTURE(seed);
    rnd::shape shape;
    shape.max_budgets = 4;
    const rnd::world w = rnd::make_world(seed, shape);
    const auto statuses = everywhere_unschedulable(w.cluster.size());
    evaluator reference(every_node());
    const std::string expected = decide(reference, w.preemptor, w.cluster, statuses,
                                        unstamped{&w.budgets}, preempt::inline_executor{});
    evaluator inline_ev(every_node());
    evaluator parallel_ev(every_node(2));
    for (int round = 0; round < 3; ++round) {  // the first fills the memo, the others read it
      CAPTURE(round);
      CHECK(decide(inline_ev, w.preemptor, w.cluster, statuses, w.budgets,
                   preempt::inline_executor{}) == expected);
      CHECK(decide(parallel_ev, w.preemptor, w.cluster, statuses, w.budgets, pool.get_executor()) ==
            expected);
    }
  }
}

TEST_CASE("a budget, a member or a disrupted pod added after a decision is seen by the next") {
  two_pods s;
  evaluator ev;
  CHECK(s.violations(ev) == 0);  // no budget: the node is free of them
  const std::size_t b = s.t.add_budget(0, 1);
  CHECK(s.violations(ev) == 0);  // an empty budget selects nothing
  s.t.add_member(b, 1);
  CHECK(s.violations(ev) == 0);  // one pod, one disruption allowed
  s.t.add_member(b, 2);
  CHECK(s.violations(ev) == 1);  // two pods, one allowed: the second violates
  CHECK(s.violations(ev) == 1);  // remembered as not free: charged per victim again
  s.t.add_disrupted(b, 2);
  CHECK(s.violations(ev) == 0);  // pod 2 is already disrupted: it takes none of the budget
}

TEST_CASE("a pod added to or removed from a node after a decision is seen by the next") {
  two_pods s;
  const std::size_t b = s.t.add_budget(0, 1);
  s.t.add_member(b, 1);
  s.t.add_member(b, 3);  // not on the node yet
  evaluator ev;
  CHECK(s.violations(ev) == 0);
  // Pod 3 joins node1 with higher priority than the preemptor: never a victim, yet the node's
  // pods together could now overdraw the budget, so the node is charged per victim again; the
  // victims (1 and 2) still take one disruption.
  s.c.add_pod(s.n1, pod({.uid = 3, .priority = 2000, .requests = {0, 0}, .start_time = 5}));
  CHECK(s.violations(ev) == 0);
  // Now pod 3 is replaced by a low-priority one in the same budget: 1 and 3 both go.
  CHECK(s.c.remove_pod(s.n1, 3));
  s.c.add_pod(s.n1, pod({.uid = 3, .priority = 0, .requests = {0, 0}, .start_time = 5}));
  preempt::attempt at;
  at.offset = 0;
  const auto& d = ev.evaluate(s.preemptor, s.c, s.statuses, s.t, preempt::no_nominations{},
                              preempt::inline_executor{}, at);
  REQUIRE(d.kind == preempt::decision_kind::nominated);
  evaluator fresh;
  const auto& f = fresh.evaluate(s.preemptor, s.c, s.statuses, unstamped{&s.t},
                                 preempt::no_nominations{}, preempt::inline_executor{}, at);
  CHECK(describe(d) == describe(f));
  // In importance order pod 3 (start 5) takes the disruption and pod 1 violates; pod 3, which
  // needs nothing, is reprieved: the victims are 1 and 2, one violation.
  CHECK(d.pdb_violations == 1);
}

}  // namespace budget_memo_test
