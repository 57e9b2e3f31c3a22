// Budgets between changes: what an evaluator remembers about the disruption budgets per node.
//
//   preempt-budgets-memo
//
// `model::budget_table` and `model::resource_cluster`'s nodes name their contents with `stamp()`
// (a new number at every change). Your own budget set and node type can offer it too: the pair
// then models `preempt::stamped_budgets`, and with the node's `pods()` a contiguous std::span of
// pods the memo applies (include/preempt/budget.hpp). With both, an evaluator remembers per node,
// until the node's pods or the budgets change:
//  * whether evicting any of its pods can violate a budget at all (charging every pod of the node
//    violates none): such a node is selected without reading the budgets;
//  * the violation flags of the pods it charged: another node is selected from those flags.
// The decisions are the same (include/preempt/detail/budget_memo.hpp). A scheduler deciding
// again on an unchanged cluster pays for many budgets about what it pays for none; the README's
// Results table (written by benchmarks/results/reproduce.sh from benchmarks/budgets.bench.cpp)
// gives the measured cost of 10,000 budgets against none, with the memo current and with the
// budgets changed before every decision.
//
// This program wraps a budget_table in a set that counts the budget lookups victim selection
// makes (it forwards stamp(), so the memo still applies), decides the same preemption three
// times: first, again on the unchanged cluster, and after a budget changes; prints the lookups of
// each and exits 1 unless the second decision read no budget, the third read them again, and all
// three decided alike.
#include <cstdint>
#include <cstdio>
#include <string>

#include "preempt/preempt.hpp"

namespace {

using preempt::model::resource_pod;

// A budget set over a budget_table that counts for_each_budget_of calls.
struct counted_budgets {
  const preempt::model::budget_table& table;
  mutable std::uint64_t lookups = 0;

  std::size_t budget_count() const noexcept { return table.budget_count(); }
  std::int32_t disruptions_allowed(std::size_t i) const noexcept {
    return table.disruptions_allowed(i);
  }
  template <class Visit>
  void for_each_budget_of(const resource_pod& p, Visit&& visit) const {
    ++lookups;
    table.for_each_budget_of(p, static_cast<Visit&&>(visit));
  }
  std::uint64_t stamp() const noexcept { return table.stamp(); }  // the memo's key
};

}  // namespace

int main() {
  // 50 nodes x 8 pods of 500m on 4 CPUs (full); one budget per node's first two pods, allowing 1.
  preempt::model::resource_cluster cluster;
  preempt::model::budget_table table;
  preempt::model::pod_id uid = 1;
  for (std::size_t i = 0; i < 50; ++i) {
    const auto n = cluster.add_node("node-" + std::to_string(i), {4000, 64LL << 30, 110});
    const auto budget = table.add_budget(/*namespace_id=*/0, /*disruptions_allowed=*/1);
    for (std::size_t k = 0; k < 8; ++k) {
      if (k < 2) table.add_member(budget, uid);
      cluster.add_pod(n, resource_pod({.uid = uid++,
                                       .priority = static_cast<std::int32_t>(k % 3),
                                       .requests = {500, 1LL << 30},
                                       .start_time = static_cast<preempt::timestamp>(k)}));
    }
  }
  static_assert(preempt::stamped_budgets<counted_budgets, preempt::model::resource_node>);

  const resource_pod preemptor(
      {.uid = 1'000'000, .priority = 100, .requests = {1500, 1LL << 30}, .start_time = {}});
  const preempt::filter_statuses statuses(cluster.size(), preempt::status_code::unschedulable);
  preempt::nomination_ledger<resource_pod> ledger(cluster.size());
  preempt::evaluator_config config;
  config.sampling.min_candidate_nodes_percentage = 100;
  preempt::evaluator<preempt::model::resource_cluster> evaluator(config);
  counted_budgets budgets{table};

  struct seen {
    std::size_t node;
    std::size_t victims;
    std::int64_t violations;
    std::uint64_t lookups;
  };
  const auto decide = [&](const char* when) {
    budgets.lookups = 0;
    const auto& d = evaluator.evaluate(
        preemptor, cluster, statuses, budgets, ledger.reader(), preempt::inline_executor{},
        preempt::attempt{.offset = 0, .nominated_node = std::nullopt});
    std::printf("%-28s node %s, %zu victims, %lld budget violations, %llu budget lookups\n", when,
                std::string(d.node_name).c_str(), d.victims.size(),
                static_cast<long long>(d.pdb_violations),
                static_cast<unsigned long long>(budgets.lookups));
    return seen{d.node_index, d.victims.size(), d.pdb_violations, budgets.lookups};
  };

  const seen first = decide("first decision:");
  const seen again = decide("unchanged cluster:");
  // A budget changes (a pod of another budget joins budget 0): its stamp changes, the memo is
  // stale.
  table.add_member(0, 100);
  const seen changed = decide("after a budget changed:");

  const bool same = first.node == again.node && again.node == changed.node &&
                    first.victims == again.victims && first.violations == again.violations;
  if (!same || first.lookups == 0 || again.lookups != 0 || changed.lookups == 0) {
    std::printf("budgets-memo: FAILED: expected the same decision, lookups only when stale\n");
    return 1;
  }
  return 0;
}
