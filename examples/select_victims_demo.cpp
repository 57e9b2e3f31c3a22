// A tour of the core: a four-node cluster, one high-priority pod that fits nowhere, and the
// decision the library reaches, node by node, with its reasons.
//
//   preempt-select-victims-demo
//
// Each node is evaluated with select_victims on the ready resource model; the candidates are
// compared with pick_best_candidate, which also says which tie-break settled the choice.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "preempt/preempt.hpp"

namespace {

using pod = preempt::model::resource_pod;
using preempt::model::resource_vector;

struct demo_cluster {
  preempt::model::resource_cluster cluster;
  preempt::model::budget_table budgets;
  std::map<preempt::model::pod_id, std::string> names;
  preempt::model::pod_id next = 1;

  pod make(const std::string& name, std::int32_t priority, std::int64_t cpu, std::int64_t mem_mi,
           preempt::timestamp start) {
    names[next] = name;
    return pod({.uid = next++,
                .priority = priority,
                .requests = {cpu, mem_mi << 20},
                .start_time = start});
  }
  void add(std::size_t node, const std::string& name, std::int32_t priority, std::int64_t cpu,
           std::int64_t mem_mi, preempt::timestamp start) {
    cluster.add_pod(node, make(name, priority, cpu, mem_mi, start));
  }
};

constexpr preempt::timestamp minute = 60'000'000'000;

std::string victim_list(const demo_cluster& c, std::span<const pod* const> victims) {
  std::string out;
  for (const pod* v : victims) {
    if (!out.empty()) out += ", ";
    out += c.names.at(v->uid()) + " (priority " + std::to_string(v->priority()) + ")";
  }
  return out;
}

}  // namespace

int main() {
  demo_cluster c;
  // Nodes: 4 CPUs, 8 GiB, 110 pod slots.
  const resource_vector node_size{4000, std::int64_t{8192} << 20, 110};
  const auto a = c.cluster.add_node("node-a", node_size);
  const auto b = c.cluster.add_node("node-b", node_size);
  const auto d = c.cluster.add_node("node-c", node_size);
  const auto e = c.cluster.add_node("node-d", node_size);

  c.add(a, "batch-1", 100, 2000, 2048, 10 * minute);
  c.add(a, "batch-2", 100, 1500, 2048, 12 * minute);
  c.add(a, "web-1", 1000, 500, 1024, 1 * minute);
  c.add(b, "etl-1", 0, 1000, 1024, 30 * minute);
  c.add(b, "etl-2", 0, 1000, 1024, 31 * minute);
  c.add(b, "etl-3", 0, 1500, 1024, 32 * minute);
  c.add(d, "db-0", 2000, 3800, 6144, 0);
  c.add(e, "cache-1", 100, 1800, 1024, 5 * minute);
  c.add(e, "cache-2", 100, 1800, 1024, 6 * minute);
  // A budget that lets none of the cache pods go.
  const auto cache_budget = c.budgets.add_budget(0, 0);
  for (const auto& [uid, name] : c.names)
    if (name.starts_with("cache")) c.budgets.add_member(cache_budget, uid);

  const pod preemptor = c.make("payments-api", 1000, 3000, 2048, 0);
  const preempt::timestamp now = 60 * minute;
  std::printf("Preemptor %s: priority %d, requests 3000m cpu and 2Gi memory.\n\n",
              c.names.at(preemptor.uid()).c_str(), preemptor.priority());

  preempt::victim_scratch<pod> scratch;
  preempt::model::resource_fit_state state;
  std::vector<std::vector<const pod*>> kept(c.cluster.size());
  std::vector<preempt::candidate<pod>> candidates;

  std::printf("%-8s %-30s %s\n", "node", "outcome", "victims / reason");
  for (std::size_t i = 0; i < c.cluster.size(); ++i) {
    c.cluster.prepare_state(i, state);
    const auto r = preempt::select_victims(preemptor, c.cluster[i], state, c.budgets, scratch,
                                           preempt::default_policy{now});
    if (r.is_candidate()) {
      kept[i].assign(r.victims.begin(), r.victims.end());
      candidates.push_back({i, c.cluster[i].name(), kept[i], r.pdb_violations});
      std::printf("%-8s %-30s %s; %lld budget violation(s)\n",
                  std::string(c.cluster[i].name()).c_str(), "candidate",
                  victim_list(c, r.victims).c_str(), static_cast<long long>(r.pdb_violations));
    } else {
      std::printf("%-8s %-30s %s\n", std::string(c.cluster[i].name()).c_str(),
                  std::string(preempt::to_string(r.outcome.code())).c_str(),
                  std::string(r.outcome.reason()).c_str());
    }
  }

  const auto best = preempt::pick_best_candidate<pod>(candidates, now);
  if (best.index == preempt::best_candidate::none) {
    std::printf("\nDecision: preemption cannot help; the pod stays pending.\n");
    return 0;
  }
  const auto& chosen = candidates[best.index];
  std::printf("\nDecision: nominate %s, evict %s.\n", std::string(chosen.node_name).c_str(),
              victim_list(c, chosen.victims).c_str());
  if (best.deciding_score != preempt::best_candidate::none)
    std::printf("Decided by: %s.\n",
                std::string(preempt::default_scores::name(best.deciding_score)).c_str());
  return 0;
}
