// The what-if's decisions that combine many: --offsets all (offsets.hpp) against the decision
// taken at each offset on its own.
//
// SPDX-License-Identifier: Apache-2.0
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/analysis.hpp"
#include "analysis/offsets.hpp"
#include "analysis/plan.hpp"
#include "io/loader.hpp"
#include "output/output.hpp"

namespace {

struct lcg {
  std::uint64_t s;
  std::uint64_t below(std::uint64_t n) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (s >> 33) % n;
  }
};

// A dump of `nodes` nodes of 4 CPUs, each nearly full of pods of mixed priorities and start
// times, some selected by budgets that allow no disruption; the pending pod "default/p" asks for
// 2 CPUs at priority 1000. With `uniform`, every node holds the same pods (same priorities, same
// start): the candidates tie on every criterion. `budgets` of the 8 apps are covered (all 8: every
// candidate violates one).
std::string cluster_json(std::size_t nodes, std::uint64_t seed, bool uniform, int budgets = 3,
                         const std::string& more_items = "") {
  lcg r{seed};
  std::string items;
  const auto add = [&](const std::string& item) {
    if (!items.empty()) items += ",\n";
    items += item;
  };
  for (std::size_t n = 0; n < nodes; ++n)
    add(R"({"kind": "Node", "metadata": {"name": "n)" + std::to_string(n) +
        R"("}, "status": {"allocatable": {"cpu": "4", "memory": "64Gi", "pods": "32"}}})");
  for (std::size_t n = 0; n < nodes; ++n) {
    std::uint64_t used = 0;
    for (std::size_t k = 0; used < 3800; ++k) {
      const std::uint64_t cpu = uniform ? 950 : 300 + r.below(900);
      const std::uint64_t prio = uniform ? 10 : r.below(4) * 10;
      const std::uint64_t start = uniform ? 0 : r.below(50);
      const std::string app = "a" + std::to_string(uniform ? 0 : r.below(8));
      used += cpu;
      add(R"({"kind": "Pod", "metadata": {"name": "p)" + std::to_string(n) + "-" +
          std::to_string(k) + R"(", "namespace": "default", "labels": {"app": ")" + app +
          R"("}}, "spec": {"nodeName": "n)" + std::to_string(n) + R"(", "priority": )" +
          std::to_string(prio) +
          R"(, "containers": [{"name": "c", "resources": {"requests": {"cpu": ")" +
          std::to_string(cpu) +
          R"(m"}}}]}, "status": {"phase": "Running", "startTime": "2024-05-01T10:)" +
          (start < 10 ? "0" : "") + std::to_string(start) + R"(:00Z"}})");
    }
  }
  if (!uniform)
    for (int b = 0; b < budgets; ++b)
      add(R"({"kind": "PodDisruptionBudget", "apiVersion": "policy/v1", "metadata": {"name": "b)" +
          std::to_string(b) +
          R"(", "namespace": "default"}, "spec": {"selector": {"matchLabels": {"app": "a)" +
          std::to_string(b) + R"("}}}, "status": {"disruptionsAllowed": 0}})");
  add(R"({"kind": "Pod", "metadata": {"name": "p", "namespace": "default"}, "spec": {"priority": 1000, "containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]}, "status": {"phase": "Pending"}})");
  if (!more_items.empty()) add(more_items);
  return R"({"kind": "List", "items": [)" + items + "]}";
}

struct loaded {
  whatif::cluster_dump dump;
  whatif::analysis analysis;
  whatif::pod_object pod;
};

void load(const std::string& json, loaded& l) {
  whatif::loader loader;
  const auto src = whatif::make_source("cluster.json", json);
  REQUIRE_FALSE(loader.add_cluster(src, l.dump));
  REQUIRE_FALSE(l.analysis.build(l.dump));
  REQUIRE_FALSE(whatif::find_pending_pod(l.dump, "default/p", l.pod));
}

// Every offset's outcome in the distribution is the decision analysis::decide takes at it.
void check_every_offset(const loaded& l, preempt::sampling_args sampling) {
  whatif::options opts;
  opts.sampling = sampling;
  opts.now = 1'000'000'000'000'000'000;
  whatif::offset_distribution d;
  REQUIRE_FALSE(whatif::decide_every_offset(l.analysis, l.pod, opts, d));
  REQUIRE(d.decision.result == whatif::result_kind::nominated);
  const std::size_t n = d.potential_nodes;
  REQUIRE(d.decision.evaluation_order.size() == n);
  std::size_t counted = 0;
  for (const whatif::offset_outcome& o : d.outcomes) counted += o.offsets;
  CHECK(counted == n);
  std::vector<std::size_t> choices;
  for (std::size_t offset = 0; offset < n; ++offset) {
    CAPTURE(offset);
    whatif::options at = opts;
    at.offset = offset;
    whatif::report r;
    REQUIRE_FALSE(l.analysis.decide(l.pod, at, r));
    REQUIRE(r.result == whatif::result_kind::nominated);
    whatif::outcome_at(d, offset, choices);
    REQUIRE_FALSE(choices.empty());
    const whatif::node_report& chosen = d.decision.nodes[choices.front()];
    CHECK(chosen.name == r.nominated_node);
    std::vector<std::string> victims;
    for (const auto& v : r.victims) victims.push_back(v.name);
    CHECK(chosen.victims == victims);
    CHECK(chosen.pdb_violations == r.pdb_violations);
    // The tied candidates are those the decision names as tied on every criterion.
    std::vector<std::string> tied;
    if (choices.size() > 1)
      for (std::size_t i : choices) tied.push_back(d.decision.nodes[i].name);
    CHECK(tied == whatif::tied_on_every_criterion(r));
  }
}

}  // namespace

TEST_CASE("offsets all: every offset's outcome is the decision at that offset") {
  loaded l;
  load(cluster_json(130, 7, false), l);
  SUBCASE("the defaults: 100 of 130 candidates") { check_every_offset(l, {10, 100}); }
  SUBCASE("13 candidates") { check_every_offset(l, {10, 3}); }
  SUBCASE("one candidate") { check_every_offset(l, {0, 1}); }
  SUBCASE("every node") { check_every_offset(l, {100, 0}); }
}

TEST_CASE("offsets all: every candidate violates a budget") {
  loaded l;
  load(cluster_json(110, 11, false, 8), l);
  SUBCASE("the defaults") { check_every_offset(l, {10, 100}); }
  SUBCASE("one candidate") { check_every_offset(l, {0, 1}); }
  SUBCASE("5 candidates") { check_every_offset(l, {0, 5}); }
}

TEST_CASE("offsets all: candidates tied on every criterion are one outcome") {
  loaded l;
  load(cluster_json(120, 3, true), l);
  check_every_offset(l, {10, 7});
  whatif::options opts;
  opts.sampling = {10, 7};
  whatif::offset_distribution d;
  REQUIRE_FALSE(whatif::decide_every_offset(l.analysis, l.pod, opts, d));
  // Every node is the same: each offset's 12 candidates tie, and every offset gives another set.
  CHECK(d.candidates_wanted == 12);
  REQUIRE(d.outcomes.size() == d.potential_nodes);
  for (const whatif::offset_outcome& o : d.outcomes) {
    CHECK(o.offsets == 1);
    CHECK(o.choices.size() == 12);
  }
}

TEST_CASE("offsets all: a decision that is not a nomination is the same at every offset") {
  loaded l;
  load(cluster_json(3, 1, false), l);
  whatif::pod_object big = l.pod;
  big.requests.set("cpu", 64000);  // more than any node has
  whatif::offset_distribution d;
  REQUIRE_FALSE(whatif::decide_every_offset(l.analysis, big, whatif::options{}, d));
  CHECK(d.decision.result == whatif::result_kind::unschedulable);
  CHECK(d.outcomes.empty());
}

namespace {

// Pending pods of mixed priorities and sizes (1-3 CPUs, so that none fits several nodes of the
// nearly full cluster), created a minute apart, some nominated to a node.
std::string pending_pods(std::size_t count, std::size_t nodes, std::uint64_t seed) {
  lcg r{seed};
  std::string items;
  for (std::size_t k = 0; k < count; ++k) {
    if (!items.empty()) items += ",\n";
    const std::uint64_t prio = 100 + r.below(4) * 300;
    const std::uint64_t cpu = 1 + r.below(3);
    const std::string nominated =
        r.below(3) == 0 ? R"(, "nominatedNodeName": "n)" + std::to_string(r.below(nodes)) + "\""
                        : std::string();
    const std::string minute = (k < 10 ? "0" : "") + std::to_string(k);
    items += R"({"kind": "Pod", "metadata": {"name": "q)" + std::to_string(k) +
             R"(", "namespace": "default", "creationTimestamp": "2024-05-02T10:)" + minute +
             R"(:00Z"}, "spec": {"priority": )" + std::to_string(prio) +
             R"(, "containers": [{"name": "c", "resources": {"requests": {"cpu": ")" +
             std::to_string(cpu) + R"("}}}]}, "status": {"phase": "Pending")" + nominated + "}}";
  }
  return items;
}

std::vector<std::string> names(const std::vector<whatif::victim_info>& victims) {
  std::vector<std::string> out;
  for (const auto& v : victims) out.push_back(v.name);
  return out;
}

std::size_t pod_index(const whatif::cluster_dump& d, const std::string& key) {
  for (std::size_t i = 0; i < d.pods.size(); ++i)
    if (d.pods[i].key() == key) return i;
  FAIL("no pod " << key);
  return 0;
}

}  // namespace

TEST_CASE("plan: each step is the decision on the dump with the earlier steps written into it") {
  // The plan changes one model step by step (analysis::remove_bound_pod, bind_pending_pod,
  // set_nomination); the reference writes each step's changes into a copy of the dump (victims
  // Failed, bound pods with spec.nodeName, status.nominatedNodeName) and builds a new model.
  const std::size_t nodes = 40;
  // A spare node with room for a few pending pods: the first ones that fit nowhere else are
  // bound there.
  const std::string spare =
      R"({"kind": "Node", "metadata": {"name": "spare"}, "status": {"allocatable": {"cpu": "5", "memory": "64Gi", "pods": "32"}}})";
  loaded l;
  load(cluster_json(nodes, 5, false, 3, spare + ",\n" + pending_pods(30, nodes, 9)), l);
  whatif::options opts;
  opts.now = 1'000'000'000'000'000'000;
  whatif::plan_result plan;
  REQUIRE_FALSE(whatif::make_plan(l.analysis, l.dump, opts, plan));
  CHECK(plan.stopped.empty());
  std::size_t nominated = 0, bound = 0, cleared = 0, cleared_by_others = 0;
  whatif::cluster_dump applied = l.dump;
  for (const whatif::plan_step& st : plan.steps) {
    CAPTURE(st.decision.preemptor);
    whatif::analysis fresh;
    REQUIRE_FALSE(fresh.build(applied));
    whatif::report r;
    REQUIRE_FALSE(fresh.decide(applied.pods[st.pod], opts, r));
    CHECK(r.result == st.decision.result);
    CHECK(r.nominated_node == st.decision.nominated_node);
    CHECK(names(r.victims) == names(st.decision.victims));
    CHECK(r.cleared_nominations == st.decision.cleared_nominations);
    whatif::pod_object& p = applied.pods[st.pod];
    if (st.applied == whatif::plan_change::nominated) {
      ++nominated;
      for (const auto& v : r.victims) applied.pods[pod_index(applied, v.name)].phase = "Failed";
      cleared_by_others += r.cleared_nominations.size();
      for (const auto& c : r.cleared_nominations)
        applied.pods[pod_index(applied, c)].nominated_node_name.clear();
      p.nominated_node_name = st.node;
    } else if (st.applied == whatif::plan_change::bound) {
      ++bound;
      p.node_name = st.node;
      p.phase = "Running";
      p.nominated_node_name.clear();
    } else if (st.applied == whatif::plan_change::nomination_cleared) {
      ++cleared;
      p.nominated_node_name.clear();
    }
  }
  // The plan went through nominations, bindings and cleared nominations.
  CHECK(plan.steps.size() == 31);
  CHECK(nominated > 0);
  CHECK(bound > 0);
  CHECK(cleared + cleared_by_others > 0);
}

TEST_CASE("plan: decisions taken on their own and in the plan differ once a step is applied") {
  const std::size_t nodes = 40;
  loaded l;
  load(cluster_json(nodes, 5, false, 3, pending_pods(30, nodes, 9)), l);
  whatif::plan_result plan;
  REQUIRE_FALSE(whatif::make_plan(l.analysis, l.dump, whatif::options{}, plan));
  whatif::analysis independent;
  REQUIRE_FALSE(independent.build(l.dump));
  std::size_t differ = 0;
  for (const whatif::plan_step& st : plan.steps) {
    whatif::report r;
    REQUIRE_FALSE(independent.decide(l.dump.pods[st.pod], whatif::options{}, r));
    differ += r.nominated_node != st.decision.nominated_node ? 1u : 0u;
  }
  CHECK(differ > 0);
}
