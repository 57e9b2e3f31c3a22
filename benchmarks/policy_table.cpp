// preempt-policy-table - the opt-in preemption policies against the default decision on many
// generated clusters (bench/policy_clusters.hpp), as a Markdown table: per policy, how many
// preemptions nominate a node, the victims, their cost and their pinned pods per preemption, the
// PDB violations (as kube-scheduler counts them) and the budgets exceeded (victims whose eviction
// takes a budget below zero), the clusters where the policy decides otherwise than the default,
// and the time per decision.
//
//   preempt-policy-table [--clusters 2000] [--nodes 40] [--seed 1]
//
// Each cluster is decided once per policy with preempt::evaluator (inline, upstream's sampling;
// with at most 100 nodes every potential node is evaluated); per-preemption figures are means over
// the decisions that nominate. Deterministic but for the times.
//
// SPDX-License-Identifier: Apache-2.0
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "bench/policy_clusters.hpp"
#include "preempt/preempt.hpp"
#include "preempt/preemption_policies.hpp"

namespace {

namespace bp = bench::policies;
using clock_type = std::chrono::steady_clock;

struct tally {
  std::string name;
  std::size_t decisions = 0, nominated = 0, unschedulable = 0, differs = 0;
  double victims = 0, cost = 0, pinned = 0, pdb_violations = 0, budgets_exceeded = 0;
  double seconds = 0;
};

struct outcome {
  bool nominated = false;
  std::size_t node = 0;
  std::set<std::uint64_t> victims;
};

template <class Policy>
outcome decide(const bp::cluster& c, const Policy& policy, tally& t) {
  preempt::evaluator<preempt::model::resource_cluster, Policy> ev({}, policy);
  preempt::attempt at;
  at.offset = 0;
  const auto started = clock_type::now();
  const auto& d = ev.evaluate(c.preemptor, c.nodes, c.statuses, c.budgets, c.ledger->reader(),
                              preempt::inline_executor{}, at);
  t.seconds += std::chrono::duration<double>(clock_type::now() - started).count();
  ++t.decisions;
  outcome o;
  if (d.kind != preempt::decision_kind::nominated) {
    ++t.unschedulable;
    return o;
  }
  o.nominated = true;
  o.node = d.node_index;
  ++t.nominated;
  const bp::cost_of cost{&c.facts};
  const bp::reschedulable_of reschedulable{&c.facts};
  t.victims += static_cast<double>(d.victims.size());
  for (const bp::pod* v : d.victims) {
    o.victims.insert(v->uid());
    t.cost += static_cast<double>(cost(*v));
    t.pinned += reschedulable(*v) ? 0 : 1;
  }
  t.pdb_violations += static_cast<double>(d.pdb_violations);
  t.budgets_exceeded += static_cast<double>(preempt::count_budget_violations(d.victims, c.budgets));
  return o;
}

std::size_t flag(int argc, char** argv, const char* name, std::size_t fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return std::strtoull(argv[i + 1], nullptr, 10);
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t clusters = flag(argc, argv, "--clusters", 2000);
  const std::size_t nodes = flag(argc, argv, "--nodes", 40);
  const std::size_t seed = flag(argc, argv, "--seed", 1);
  const std::vector<bp::named_policy> policies = bp::compared_policies();
  tally base{"default (kube-scheduler v1.37)"};
  std::vector<tally> tallies;
  for (const bp::named_policy& p : policies) tallies.push_back({p.name});
  std::size_t pods = 0;
  for (std::size_t k = 0; k < clusters; ++k) {
    const auto c = bp::make_cluster(seed * 1'000'003 + k, nodes);
    pods += c->pods;
    const outcome o = decide(*c, preempt::default_policy{bp::now}, base);
    for (std::size_t i = 0; i < policies.size(); ++i) {
      const outcome q = decide(*c, c->policy(policies[i].options), tallies[i]);
      if (q.nominated != o.nominated || q.node != o.node || q.victims != o.victims)
        ++tallies[i].differs;
    }
  }
  std::printf(
      "%zu generated clusters (bench/policy_clusters.hpp, seed %zu): %zu nodes each, %.0f pods "
      "on average; one pending pod each (2-8 CPUs, priority 5000).\n\n",
      clusters, seed, nodes, static_cast<double>(pods) / static_cast<double>(clusters));
  std::printf(
      "| policy | preemptions | unschedulable | victims / preemption | cost / preemption | pinned "
      "victims / preemption | PDB violations | budgets exceeded | decided otherwise | µs / "
      "decision |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  const auto row = [&](const tally& t, bool is_base) {
    const double n = static_cast<double>(std::max<std::size_t>(t.nominated, 1));
    std::printf("| %s | %zu | %zu | %.2f | %.2f | %.3f | %.0f | %.0f | %s | %.0f |\n",
                t.name.c_str(), t.nominated, t.unschedulable, t.victims / n, t.cost / n,
                t.pinned / n, t.pdb_violations, t.budgets_exceeded,
                is_base ? "-" : std::to_string(t.differs).c_str(),
                1e6 * t.seconds / static_cast<double>(std::max<std::size_t>(t.decisions, 1)));
  };
  row(base, true);
  for (const tally& t : tallies) row(t, false);
  return 0;
}
