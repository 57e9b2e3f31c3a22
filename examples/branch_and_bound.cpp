// Only the chosen candidate: evaluator_config::report_only_chosen (branch and bound).
//
//   preempt-branch-and-bound
//
// When you act on the nominated node and its victims and do not read every candidate's victims,
// set `evaluator_config::report_only_chosen`. The dry run then bounds each node's five upstream
// scores (the tie-breaks of pickOneNodeForPreemption) before selecting its victims:
// `model::resource_fit_state::victim_score_bound`, from the node's priority summary, or your node
// state's own `victim_score_bound`. A node that cannot beat an earlier candidate is counted as a
// candidate without selecting its victims.
//
// The decision is the same: node, victims in order, budget violations, every node's outcome, the
// sample. `decision.candidates` lists only the candidates whose victims were selected, and
// `decision.candidates_bounded` counts the others. It applies without extenders, custom score
// functions or pod groups, with default_policy's eligibility and importance order, and on nodes
// without nominated pods (budgets or not); elsewhere the dry run is the full one
// (include/preempt/detail/branch_and_bound.hpp).
//
// What it saves is measured by benchmarks/dry_run.bench.cpp (the `-bound` families); the README's
// Results table, written by benchmarks/results/reproduce.sh, gives the latest figures ("full dry
// run 5000 nodes x 30 / 110 pods").
//
// This program decides one preemption on 2000 nodes x 30 pods, every node evaluated (sampling at
// 100%), with and without the branch and bound; prints both and the time each took; exits 1 unless
// the decisions agree and the bound spared some candidates.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "preempt/preempt.hpp"

namespace {

using preempt::model::resource_pod;
using evaluator = preempt::evaluator<preempt::model::resource_cluster>;

constexpr std::size_t nodes = 2000, pods_per_node = 30;

preempt::model::resource_cluster make_cluster() {
  preempt::model::resource_cluster cluster;
  preempt::model::pod_id uid = 1;
  for (std::size_t i = 0; i < nodes; ++i) {
    // 4 CPUs, 30 pods of 100m to 130m each: full for a 600m preemptor, which must evict a few.
    const auto n = cluster.add_node("node-" + std::to_string(i), {4000, 64LL << 30, 110});
    for (std::size_t k = 0; k < pods_per_node; ++k) {
      const auto priority = static_cast<std::int32_t>((i * 7 + k * 13) % 50);
      const auto cpu = static_cast<std::int64_t>(100 + (i + k) % 4 * 10);
      cluster.add_pod(n, resource_pod({.uid = uid++,
                                       .priority = priority,
                                       .requests = {cpu, 1LL << 30},
                                       .start_time = static_cast<preempt::timestamp>(i + k)}));
    }
  }
  return cluster;
}

template <class F>
double microseconds(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

int main() {
  const auto cluster = make_cluster();
  const resource_pod preemptor(
      {.uid = 1'000'000, .priority = 100, .requests = {600, 1LL << 30}, .start_time = {}});
  const preempt::filter_statuses statuses(cluster.size(), preempt::status_code::unschedulable);
  preempt::nomination_ledger<resource_pod> ledger(cluster.size());
  const preempt::attempt at{.offset = 0, .nominated_node = std::nullopt};

  preempt::evaluator_config config;
  config.sampling.min_candidate_nodes_percentage = 100;  // every node: a full dry run
  evaluator full(config);
  config.report_only_chosen = true;
  evaluator bounded(config);

  const auto decide = [&](evaluator& ev) -> const auto& {
    return ev.evaluate(preemptor, cluster, statuses, preempt::no_budgets{}, ledger.reader(),
                       preempt::inline_executor{}, at);
  };
  (void)decide(full);  // warm up both evaluators' buffers
  (void)decide(bounded);
  const double full_us = microseconds([&] { (void)decide(full); });
  const double bounded_us = microseconds([&] { (void)decide(bounded); });
  const auto& a = decide(full);
  const auto& b = decide(bounded);

  std::printf("full dry run:      node %s, %zu victim(s), %zu candidates with victims, %.0f us\n",
              std::string(a.node_name).c_str(), a.victims.size(), a.candidates.size(), full_us);
  std::printf(
      "report_only_chosen: node %s, %zu victim(s), %zu candidates with victims, "
      "%zu bounded, %.0f us\n",
      std::string(b.node_name).c_str(), b.victims.size(), b.candidates.size(), b.candidates_bounded,
      bounded_us);

  bool same = a.kind == preempt::decision_kind::nominated && a.kind == b.kind &&
              a.node_index == b.node_index && a.pdb_violations == b.pdb_violations &&
              a.victims.size() == b.victims.size() && a.potential_nodes == b.potential_nodes;
  for (std::size_t i = 0; same && i < a.victims.size(); ++i) same = a.victims[i] == b.victims[i];
  if (!same) {
    std::printf("branch-and-bound: FAILED: the decisions differ\n");
    return 1;
  }
  if (b.candidates_bounded == 0 ||
      b.candidates.size() + b.candidates_bounded != a.candidates.size()) {
    std::printf("branch-and-bound: FAILED: expected bounded candidates, %zu + %zu of %zu\n",
                b.candidates.size(), b.candidates_bounded, a.candidates.size());
    return 1;
  }
  std::printf("same decision; %zu of %zu candidates never had their victims selected\n",
              b.candidates_bounded, a.candidates.size());
  return 0;
}
