// The README's short example, kept compiling and correct.
#include <doctest/doctest.h>

#include "preempt/preempt.hpp"

TEST_CASE("README example: one node, one victim") {
  using preempt::model::resource_pod;

  preempt::model::resource_cluster cluster;
  auto n = cluster.add_node("node-a", {4000, 8LL << 30, 110});
  cluster.add_pod(
      n, resource_pod({.uid = 1, .priority = 0, .requests = {3000, 1LL << 30}, .start_time = 0}));

  const resource_pod preemptor(
      {.uid = 2, .priority = 1000, .requests = {2000, 1LL << 30}, .start_time = {}});

  preempt::filter_statuses statuses(cluster.size(), preempt::status_code::unschedulable);
  preempt::nomination_ledger<resource_pod> nominations(cluster.size());
  preempt::evaluator<preempt::model::resource_cluster> evaluator;

  const auto& d = evaluator.evaluate(preemptor, cluster, statuses, preempt::no_budgets{},
                                     nominations.reader(), preempt::inline_executor{});
  REQUIRE(d.kind == preempt::decision_kind::nominated);
  CHECK(d.node_name == "node-a");
  REQUIRE(d.victims.size() == 1);
  CHECK(d.victims[0]->uid() == 1);

  const resource_pod small({.uid = 3, .priority = 0, .requests = {100, 1}, .start_time = {}});
  const auto& none = evaluator.evaluate(small, cluster, statuses, preempt::no_budgets{},
                                        nominations.reader(), preempt::inline_executor{});
  CHECK(none.kind == preempt::decision_kind::unschedulable);
  CHECK(none.message ==
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.");
}
