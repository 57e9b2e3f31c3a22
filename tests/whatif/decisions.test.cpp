// The what-if's decisions that combine many: --offsets all (offsets.hpp) against the decision
// taken at each offset on its own.
//
// SPDX-License-Identifier: Apache-2.0
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "loader.hpp"
#include "offsets.hpp"
#include "output.hpp"
#include "whatif.hpp"

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
std::string cluster_json(std::size_t nodes, std::uint64_t seed, bool uniform, int budgets = 3) {
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
  REQUIRE(d.decision.result == "nominated");
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
    REQUIRE(r.result == "nominated");
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
  CHECK(d.decision.result == "unschedulable");
  CHECK(d.outcomes.empty());
}
