// Workload-aware preemption: victim construction (preempt/workload/group_set.hpp,
// build_victim_units.hpp, group_preemptor.hpp), upstream's types_test.go tables:
// TestGetHighestAllAncestor (WG40-WG48), TestNewPodGroupPreemptorResolvesPreemptionPolicy
// (WG49-WG58), TestNewDomainForWorkloadPreemption (WG59-WG79), TestNewVictim / TestNewDomainVictim
// (WG82-WG84, WG86), plus the total importance order.
//
// These are pure functions of the cluster and its groups: no executor takes part.
// WG80 (no pods), WG81 (an empty key type) and WG85 (a pod on a node missing from the snapshot)
// are errors of upstream's constructors that the library's types rule out: a unit is only ever
// built from the pods of a node of the cluster, and its kind is an enumeration; WG59 covers the
// cluster without pods.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/workload_scene.hpp"

namespace workload_units_test {

namespace {

namespace wl = preempt::workload;
using wlf::pod_def;
using CPG = wl::group_kind;

struct unit_view {
  std::set<std::string> pods;
  std::set<std::string> nodes;
  std::int32_t priority = 0;
  friend bool operator<(const unit_view& a, const unit_view& b) {
    return std::tie(a.pods, a.nodes, a.priority) < std::tie(b.pods, b.nodes, b.priority);
  }
  friend bool operator==(const unit_view&, const unit_view&) = default;
};

std::vector<unit_view> units_of(const wlf::scene& s, preempt::timestamp now = 0) {
  wl::unit_scratch<wlf::pod> scratch;
  std::vector<unit_view> out;
  for (const wl::victim_unit& u : wl::build_victim_units(s.cluster, s.grps, now, scratch)) {
    unit_view v;
    v.priority = u.priority;
    for (const auto& m : scratch.members_of(u)) {
      v.pods.insert(s.names.at(m.pod->uid()));
      v.nodes.insert(std::string(s.cluster[m.node].name()));
    }
    out.push_back(v);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<unit_view> sorted(std::vector<unit_view> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// The name of a pod's highest `all` ancestor, or "".
std::string ancestor(const wlf::scene& s, const std::string& pod_name) {
  for (const auto& p : s.cluster[0].pods()) {
    if (s.names.at(p.uid()) != pod_name) continue;
    const std::size_t g = wl::highest_all_ancestor(s.grps, p);
    if (g == wl::no_group) return "";
    std::string kind = s.grps.kind(g) == CPG::composite_pod_group ? "cpg:" : "pg:";
    return kind + std::to_string(g);
  }
  return "?";
}

}  // namespace

// ---- TestGetHighestAllAncestor ----------------------------------------------------------------

TEST_CASE("WG40-WG48 [TestGetHighestAllAncestor]: highest all-mode ancestor") {
  wlf::scene s;
  s.node("n1", 10);
  SUBCASE("WG40 [TestGetHighestAllAncestor/\"pod without group\"]: a pod without group: none") {
    s.add({.name = "p1", .node = "n1"});
    CHECK(ancestor(s, "p1") == "");
  }
  SUBCASE(
      "WG41 [TestGetHighestAllAncestor/\"pod group missing from the lister\"]: a PodGroup that "
      "does not exist: none") {
    s.add({.name = "p1", .node = "n1", .group = "pg1"});
    CHECK(ancestor(s, "p1") == "");
  }
  SUBCASE(
      "WG42 [TestGetHighestAllAncestor/\"pod group disruption mode single\"]: a single-mode "
      "PodGroup: none") {
    s.group("pg1", false, 0);
    s.add({.name = "p1", .node = "n1", .group = "pg1"});
    CHECK(ancestor(s, "p1") == "");
  }
  SUBCASE(
      "WG43 [TestGetHighestAllAncestor/\"pod group disruption mode All\"]: an all-mode PodGroup: "
      "itself") {
    const std::size_t pg1 = s.group("pg1", true, 0);
    s.add({.name = "p1", .node = "n1", .group = "pg1"});
    CHECK(ancestor(s, "p1") == "pg:" + std::to_string(pg1));
  }
  SUBCASE(
      "WG44 [TestGetHighestAllAncestor/\"parent CPG disruption mode All, child PG disruption mode "
      "single\"]: single PodGroup under an all CompositePodGroup: the CompositePodGroup") {
    const std::size_t cpg1 = s.group("cpg1", true, 0, CPG::composite_pod_group);
    s.group("pg1", false, 0, CPG::pod_group, "cpg1");
    s.add({.name = "p1", .node = "n1", .group = "pg1"});
    CHECK(ancestor(s, "p1") == "cpg:" + std::to_string(cpg1));
  }
  SUBCASE(
      "WG45 [TestGetHighestAllAncestor/\"grandparent CPG disruption mode All, parent CPG "
      "disruption mode single, child PG disruption mode single\"]: single -> single -> all: the "
      "grandparent") {
    const std::size_t cpg2 = s.group("cpg2", true, 0, CPG::composite_pod_group);
    s.group("cpg1", false, 0, CPG::composite_pod_group, "cpg2");
    s.group("pg1", false, 0, CPG::pod_group, "cpg1");
    s.add({.name = "p1", .node = "n1", .group = "pg1"});
    CHECK(ancestor(s, "p1") == "cpg:" + std::to_string(cpg2));
  }
  SUBCASE(
      "WG46 [TestGetHighestAllAncestor/\"highest All parent wins (both have disruption mode "
      "All)\"]: all under all: the highest wins") {
    const std::size_t cpg1 = s.group("cpg1", true, 0, CPG::composite_pod_group);
    s.group("pg1", true, 0, CPG::pod_group, "cpg1");
    s.add({.name = "p1", .node = "n1", .group = "pg1"});
    CHECK(ancestor(s, "p1") == "cpg:" + std::to_string(cpg1));
  }
  SUBCASE(
      "WG47 [TestGetHighestAllAncestor/\"pod group missing from cache lister\"]: the PodGroup "
      "missing from the cache: none") {
    s.add({.name = "p1", .node = "n1", .group = "missing"});
    CHECK(ancestor(s, "p1") == "");
  }
  SUBCASE(
      "WG48 [TestGetHighestAllAncestor/\"parent CPG missing from cache lister, child PG All "
      "returned\"]: an all PodGroup whose parent is missing: the PodGroup") {
    const std::size_t pg1 = s.group("pg1", true, 0, CPG::pod_group, "cpg-missing");
    s.add({.name = "p1", .node = "n1", .group = "pg1"});
    CHECK(ancestor(s, "p1") == "pg:" + std::to_string(pg1));
  }
  SUBCASE("the walk stops after max_tree_depth groups (and so on a cycle)") {
    // pg1 (single) -> c1 -> c2 -> c3 (single) -> c4 (all): c4 is the fifth group, beyond the depth.
    s.group("c4", true, 0, CPG::composite_pod_group);
    s.group("c3", false, 0, CPG::composite_pod_group, "c4");
    s.group("c2", false, 0, CPG::composite_pod_group, "c3");
    s.group("c1", false, 0, CPG::composite_pod_group, "c2");
    s.group("pg1", false, 0, CPG::pod_group, "c1");
    s.add({.name = "p1", .node = "n1", .group = "pg1"});
    CHECK(ancestor(s, "p1") == "");
    s.grps.set_parent(s.grps.find("c1"), s.grps.find("pg1"));  // a cycle
    CHECK(ancestor(s, "p1") == "");
  }
}

// ---- TestNewPodGroupPreemptorResolvesPreemptionPolicy -----------------------------------------

TEST_CASE(
    "WG49-WG58 [TestNewPodGroupPreemptorResolvesPreemptionPolicy]: the preemptor's preemption "
    "policy, every row") {
  using preempt::preemption_policy;
  constexpr auto never = preemption_policy::never;
  constexpr auto plp = preemption_policy::preempt_lower_priority;
  const auto resolve = [](std::optional<preemption_policy> group,
                          std::vector<preemption_policy> pods, bool gate) {
    std::vector<wlf::pod> members;
    for (std::size_t i = 0; i < pods.size(); ++i)
      members.push_back(wlf::pod({.uid = i + 1,
                                  .priority = 0,
                                  .requests = {},
                                  .start_time = {},
                                  .preemption_policy = pods[i]}));
    std::vector<const wlf::pod*> ptrs;
    for (const auto& m : members) ptrs.push_back(&m);
    return wl::resolve_preemption_policy(group, std::span<const wlf::pod* const>(ptrs), gate);
  };
  // An unset member policy is PreemptLowerPriority (the pod type's default).
  CHECK(resolve(never, {plp}, true) == never);                 // WG49
  CHECK(resolve(plp, {plp, plp}, true) == plp);                // WG50
  CHECK(resolve(never, {plp}, false) == plp);                  // WG51
  CHECK(resolve(plp, {never, plp, plp}, false) == never);      // WG52
  CHECK(resolve(std::nullopt, {plp, plp}, false) == plp);      // WG53 (CompositePodGroup, unset)
  CHECK(resolve(std::nullopt, {never, plp}, false) == never);  // WG54
  CHECK(resolve(never, {plp}, true) == never);                 // WG55 (CompositePodGroup Never)
  CHECK(resolve(plp, {plp, never}, true) == plp);              // WG56
  CHECK(resolve(never, {plp, plp}, false) == plp);             // WG57
  CHECK(resolve(std::nullopt, {never}, true) == plp);          // WG58
}

// ---- TestNewDomainForWorkloadPreemption -------------------------------------------------------

TEST_CASE("WG59 [TestNewDomainForWorkloadPreemption/\"no pods\"]: no pods: no units") {
  wlf::scene s;
  s.node("n1", 10);
  CHECK(units_of(s).empty());
}

TEST_CASE(
    "WG60 [TestNewDomainForWorkloadPreemption/\"pods without pod groups\"]: pods without groups: "
    "one unit each, own priority") {
  wlf::scene s;
  s.node("n1", 10);
  s.node("n2", 10);
  s.add({.name = "p1", .node = "n1", .priority = 10});
  s.add({.name = "p2", .node = "n2", .priority = 20});
  CHECK(units_of(s) == sorted({{{"p1"}, {"n1"}, 10}, {{"p2"}, {"n2"}, 20}}));
}

TEST_CASE(
    "WG61 [TestNewDomainForWorkloadPreemption/\"pods with pod group (DisruptionModeAll)\"]: an "
    "all-mode group across nodes: one unit, the group's priority") {
  wlf::scene s;
  s.node("n1", 10);
  s.node("n2", 10);
  s.group("pg1", true, 50);
  s.add({.name = "p1", .node = "n1", .priority = 10, .group = "pg1"});
  s.add({.name = "p2", .node = "n2", .priority = 10, .group = "pg1"});
  CHECK(units_of(s) == sorted({{{"p1", "p2"}, {"n1", "n2"}, 50}}));
}

TEST_CASE(
    "WG62 [TestNewDomainForWorkloadPreemption/\"pods with pod group (DisruptionModeSingle)\"]: a "
    "single-mode group: one unit per pod, the group's priority") {
  wlf::scene s;
  s.node("n1", 10);
  s.node("n2", 10);
  s.group("pg1", false, 50);
  s.add({.name = "p1", .node = "n1", .priority = 10, .group = "pg1"});
  s.add({.name = "p2", .node = "n2", .priority = 20, .group = "pg1"});
  CHECK(units_of(s) == sorted({{{"p1"}, {"n1"}, 50}, {{"p2"}, {"n2"}, 50}}));
}

TEST_CASE(
    "WG63 [TestNewDomainForWorkloadPreemption/\"mix of pod groups and individual pods\"]: a mix of "
    "groups and plain pods") {
  wlf::scene s;
  s.node("n1", 10);
  s.node("n2", 10);
  s.group("pg1", true, 50);
  s.group("pg2", false, 60);
  s.add({.name = "p1", .node = "n1", .priority = 10, .group = "pg1"});
  s.add({.name = "p2", .node = "n2", .priority = 10, .group = "pg1"});
  s.add({.name = "p3", .node = "n1", .priority = 20, .group = "pg2"});
  s.add({.name = "p4", .node = "n2", .priority = 30});
  CHECK(units_of(s) ==
        sorted({{{"p1", "p2"}, {"n1", "n2"}, 50}, {{"p3"}, {"n1"}, 60}, {{"p4"}, {"n2"}, 30}}));
}

TEST_CASE(
    "WG64 [TestNewDomainForWorkloadPreemption/\"pods with pod group (DisruptionModeAll) but "
    "missing pod group state in cache falls back to local pod preemption\"]: pods naming a "
    "PodGroup that does not exist: one unit each, own priority") {
  wlf::scene s;
  s.node("n1", 10);
  s.node("n2", 10);
  s.add({.name = "p1", .node = "n1", .priority = 10, .group = "pg1"});
  s.add({.name = "p2", .node = "n2", .priority = 10, .group = "pg1"});
  CHECK(units_of(s) == sorted({{{"p1"}, {"n1"}, 10}, {{"p2"}, {"n2"}, 10}}));
}

namespace {
// Two pods per PodGroup, one on each node, all of priority 10.
void pods_of(wlf::scene& s, std::initializer_list<const char*> groups) {
  for (const char* g : groups) {
    s.add({.name = std::string("p1_") + g, .node = "n1", .priority = 10, .group = g});
    s.add({.name = std::string("p2_") + g, .node = "n2", .priority = 10, .group = g});
  }
}
unit_view both(std::initializer_list<const char*> groups, std::int32_t priority = 10) {
  unit_view v{{}, {"n1", "n2"}, priority};
  for (const char* g : groups) {
    v.pods.insert(std::string("p1_") + g);
    v.pods.insert(std::string("p2_") + g);
  }
  return v;
}
unit_view one(const std::string& pod_name, const std::string& node, std::int32_t priority = 10) {
  return {{pod_name}, {node}, priority};
}
std::vector<unit_view> singles(std::initializer_list<const char*> groups) {
  std::vector<unit_view> out;
  for (const char* g : groups) {
    out.push_back(one(std::string("p1_") + g, "n1"));
    out.push_back(one(std::string("p2_") + g, "n2"));
  }
  return out;
}
std::vector<unit_view> plus(std::vector<unit_view> a, const std::vector<unit_view>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return sorted(a);
}

wlf::scene two_nodes(bool composite) {
  wlf::scene s;
  s.node("n1", 10);
  s.node("n2", 10);
  s.grps.composite_enabled = composite;
  return s;
}
}  // namespace

TEST_CASE(
    "WG65-WG66 [TestNewDomainForWorkloadPreemption/\"CPG enabled: root CompositePodGroup with "
    "DisruptionModeAll groups descendant pods of all child PodGroups\", \"CPG disabled: root "
    "CompositePodGroup with DisruptionModeAll does not group descendant pods\"]: all PodGroups "
    "under an all CompositePodGroup") {
  for (const bool cpg : {true, false}) {
    CAPTURE(cpg);
    wlf::scene s = two_nodes(cpg);
    s.group("cpg1", true, 10, CPG::composite_pod_group);
    s.group("pg1", true, 10, CPG::pod_group, "cpg1");
    s.group("pg2", true, 10, CPG::pod_group, "cpg1");
    pods_of(s, {"pg1", "pg2"});
    if (cpg)
      CHECK(units_of(s) == sorted({both({"pg1", "pg2"})}));  // WG65
    else
      CHECK(units_of(s) == sorted({both({"pg1"}), both({"pg2"})}));  // WG66
  }
}

TEST_CASE(
    "WG67-WG68 [TestNewDomainForWorkloadPreemption/\"CPG enabled: root CompositePodGroup with "
    "DisruptionModeSingle does not group descendants of child PodGroups but respects individual "
    "PodGroup DisruptionModes\", \"CPG disabled: root CompositePodGroup with DisruptionModeSingle "
    "does not group child PodGroups and resolves PodGroup level DisruptionModes\"]: single and all "
    "PodGroups under a single CompositePodGroup") {
  for (const bool cpg : {true, false}) {
    CAPTURE(cpg);
    wlf::scene s = two_nodes(cpg);
    s.group("cpg1", false, 10, CPG::composite_pod_group);
    s.group("pg1", false, 10, CPG::pod_group, "cpg1");
    s.group("pg2", true, 10, CPG::pod_group, "cpg1");
    pods_of(s, {"pg1", "pg2"});
    CHECK(units_of(s) == plus(singles({"pg1"}), {both({"pg2"})}));
  }
}

TEST_CASE(
    "WG69-WG70 [TestNewDomainForWorkloadPreemption/\"CPG enabled: root CompositePodGroup with "
    "DisruptionModeAll groups all descendant pods under nested CompositePodGroups with "
    "DisruptionModeAll\", \"CPG disabled: root CompositePodGroup with DisruptionModeAll with "
    "nested CPGs does not group descendant pods\"]: nested all CompositePodGroups") {
  for (const bool cpg : {true, false}) {
    CAPTURE(cpg);
    wlf::scene s = two_nodes(cpg);
    s.group("cpg1", true, 10, CPG::composite_pod_group);
    s.group("cpg2", true, 10, CPG::composite_pod_group, "cpg1");
    s.group("cpg3", true, 10, CPG::composite_pod_group, "cpg1");
    s.group("pg1", true, 10, CPG::pod_group, "cpg2");
    s.group("pg2", true, 10, CPG::pod_group, "cpg2");
    s.group("pg3", true, 10, CPG::pod_group, "cpg3");
    s.group("pg4", true, 10, CPG::pod_group, "cpg3");
    pods_of(s, {"pg1", "pg2", "pg3", "pg4"});
    if (cpg)
      CHECK(units_of(s) == sorted({both({"pg1", "pg2", "pg3", "pg4"})}));  // WG69
    else
      CHECK(units_of(s) ==
            sorted({both({"pg1"}), both({"pg2"}), both({"pg3"}), both({"pg4"})}));  // WG70
  }
}

TEST_CASE(
    "WG71-WG72 [TestNewDomainForWorkloadPreemption/\"CPG enabled: root CompositePodGroup with "
    "DisruptionModeSingle groups descendant pods only under nested CompositePodGroup with "
    "DisruptionModeAll\", \"CPG disabled: root CompositePodGroup with DisruptionModeSingle with "
    "nested CPG with DisruptionModeAll does not group descendant pods\"]: an all CompositePodGroup "
    "and a single one under a single root") {
  for (const bool cpg : {true, false}) {
    CAPTURE(cpg);
    wlf::scene s = two_nodes(cpg);
    s.group("cpg1", false, 10, CPG::composite_pod_group);
    s.group("cpg2", true, 10, CPG::composite_pod_group, "cpg1");
    s.group("cpg3", false, 10, CPG::composite_pod_group, "cpg1");
    s.group("pg1", true, 10, CPG::pod_group, "cpg2");
    s.group("pg2", true, 10, CPG::pod_group, "cpg2");
    s.group("pg3", false, 10, CPG::pod_group, "cpg3");
    s.group("pg4", false, 10, CPG::pod_group, "cpg3");
    pods_of(s, {"pg1", "pg2", "pg3", "pg4"});
    if (cpg)
      CHECK(units_of(s) == plus(singles({"pg3", "pg4"}), {both({"pg1", "pg2"})}));  // WG71
    else
      CHECK(units_of(s) == plus(singles({"pg3", "pg4"}), {both({"pg1"}), both({"pg2"})}));  // WG72
  }
}

TEST_CASE(
    "WG73-WG76 [TestNewDomainForWorkloadPreemption/\"CPG enabled: gang CompositePodGroup with "
    "DisruptionModeAll groups pods from different child PodGroups\" to \"CPG disabled: gang "
    "CompositePodGroup with DisruptionModeSingle does not group pods from different child "
    "PodGroups\"]: a gang CompositePodGroup, only the disruption mode matters") {
  for (const bool all : {true, false}) {
    for (const bool cpg : {true, false}) {
      CAPTURE(all);
      CAPTURE(cpg);
      wlf::scene s = two_nodes(cpg);
      s.group("cpg1", all, 10, CPG::composite_pod_group);  // gang minGroupCount 2: not consulted
      s.group("pg1", all, 10, CPG::pod_group, "cpg1");
      s.group("pg2", all, 10, CPG::pod_group, "cpg1");
      pods_of(s, {"pg1", "pg2"});
      if (all && cpg)
        CHECK(units_of(s) == sorted({both({"pg1", "pg2"})}));  // WG73
      else if (all)
        CHECK(units_of(s) == sorted({both({"pg1"}), both({"pg2"})}));  // WG74
      else
        CHECK(units_of(s) == sorted(singles({"pg1", "pg2"})));  // WG75, WG76
    }
  }
}

TEST_CASE(
    "WG77-WG78 [TestNewDomainForWorkloadPreemption/\"CPG enabled: root CompositePodGroup with "
    "DisruptionModeAll groups all descendants as a single victim even if descendants have "
    "DisruptionModeSingle\", \"CPG disabled: root CompositePodGroup with DisruptionModeAll does "
    "not group descendants, only descendant PodGroup disruption modes are resolved\"]: an all root "
    "over single and all PodGroups") {
  for (const bool cpg : {true, false}) {
    CAPTURE(cpg);
    wlf::scene s = two_nodes(cpg);
    s.group("cpg1", true, 10, CPG::composite_pod_group);
    s.group("pg1", false, 10, CPG::pod_group, "cpg1");
    s.group("pg2", true, 10, CPG::pod_group, "cpg1");
    pods_of(s, {"pg1", "pg2"});
    if (cpg)
      CHECK(units_of(s) == sorted({both({"pg1", "pg2"})}));  // WG77
    else
      CHECK(units_of(s) == plus(singles({"pg1"}), {both({"pg2"})}));  // WG78
  }
}

TEST_CASE(
    "WG79 [TestNewDomainForWorkloadPreemption/\"CPG enabled: missing parent CompositePodGroup "
    "falls back to available ancestor disruption mode\"]: a missing parent CompositePodGroup: the "
    "ancestors that can be reached") {
  wlf::scene s = two_nodes(true);
  s.group("cpg-root", true, 10, CPG::composite_pod_group);
  s.group("cpg-mid2", true, 10, CPG::composite_pod_group, "cpg-root");
  s.group("pg1", true, 10, CPG::pod_group, "cpg-mid1");  // cpg-mid1 does not exist
  s.group("pg2", true, 10, CPG::pod_group, "cpg-mid1");
  s.group("pg3", true, 10, CPG::pod_group, "cpg-mid2");
  s.group("pg4", true, 10, CPG::pod_group, "cpg-mid2");
  pods_of(s, {"pg1", "pg2", "pg3", "pg4"});
  CHECK(units_of(s) == sorted({both({"pg1"}), both({"pg2"}), both({"pg3", "pg4"})}));
}

TEST_CASE("effective priority: the topmost reachable group's (GetPodPriority)") {
  wlf::scene s = two_nodes(true);
  s.group("root", false, 70, CPG::composite_pod_group);
  s.group("pg1", false, 50, CPG::pod_group, "root");
  s.add({.name = "p", .node = "n1", .priority = 10, .group = "pg1"});
  const wlf::pod& p = s.cluster[0].pods()[0];
  CHECK(wl::effective_priority(s.grps, p) == 70);
  s.grps.composite_enabled = false;
  CHECK(wl::effective_priority(s.grps, p) == 50);
  CHECK(wl::effective_priority(wl::no_groups{}, p) == 10);
}

// ---- TestNewVictim / TestNewDomainVictim -------------------------------------------------------

TEST_CASE(
    "WG82-WG84, WG86 [TestNewVictim and TestNewDomainVictim]: unit construction, earliest start, "
    "kind, affected nodes") {
  constexpr preempt::timestamp now = 100;
  wl::unit_scratch<wlf::pod> scratch;
  SUBCASE(
      "WG82 [TestNewVictim/\"single pod without scheduling group\"]: one pod: its start time, kind "
      "pod") {
    wlf::scene s = two_nodes(true);
    s.add({.name = "p1", .node = "n1", .start = 7});
    const auto units = wl::build_victim_units(s.cluster, s.grps, now, scratch);
    REQUIRE(units.size() == 1);
    CHECK(units[0].earliest_start == 7);
    CHECK(units[0].kind == wl::unit_kind::pod);
    CHECK_FALSE(units[0].is_group());
  }
  SUBCASE(
      "WG83 [TestNewVictim/\"multiple pods with mixed start times (including nil)\"]: start times "
      "missing, later, earlier: the earlier (missing counts as now)") {
    wlf::scene s = two_nodes(true);
    s.group("pg1", true, 0);
    s.add({.name = "a", .node = "n1", .group = "pg1"});
    s.add({.name = "b", .node = "n1", .group = "pg1", .start = 50});
    s.add({.name = "c", .node = "n2", .group = "pg1", .start = 10});
    const auto units = wl::build_victim_units(s.cluster, s.grps, now, scratch);
    REQUIRE(units.size() == 1);
    CHECK(units[0].earliest_start == 10);
    CHECK(units[0].size == 3);
  }
  SUBCASE(
      "WG84 [TestNewVictim/\"pod with scheduling group is constructed as pod group\"]: a pod that "
      "names a PodGroup: kind pod_group, also alone") {
    wlf::scene s = two_nodes(true);
    s.add({.name = "p1", .node = "n1", .group = "missing"});
    const auto units = wl::build_victim_units(s.cluster, s.grps, now, scratch);
    REQUIRE(units.size() == 1);
    CHECK(units[0].kind == wl::unit_kind::pod_group);
    CHECK(units[0].is_group());
    CHECK(units[0].earliest_start == now);
  }
  SUBCASE(
      "WG86 [TestNewDomainVictim/\"multiple pods on same and different nodes deduplicates "
      "affectedNodes\"]: affected nodes: p1, p2 on n1 and p3 on n2") {
    wlf::scene s = two_nodes(true);
    s.group("pg1", true, 0);
    s.add({.name = "p1", .node = "n1", .group = "pg1"});
    s.add({.name = "p2", .node = "n1", .group = "pg1"});
    s.add({.name = "p3", .node = "n2", .group = "pg1"});
    CHECK(units_of(s) == sorted({{{"p1", "p2", "p3"}, {"n1", "n2"}, 0}}));
  }
}

TEST_CASE("importance order: priority, kind, size, earliest start, construction order") {
  using wl::unit_kind;
  const auto unit = [](std::int32_t prio, unit_kind k, std::uint32_t size, preempt::timestamp start,
                       std::uint32_t order) {
    wl::victim_unit u;
    u.priority = prio;
    u.kind = k;
    u.size = size;
    u.earliest_start = start;
    u.order = order;
    return u;
  };
  CHECK(wl::more_important_unit(unit(2, unit_kind::pod, 1, 9, 9),
                                unit(1, unit_kind::composite_pod_group, 9, 0, 0)));
  CHECK(wl::more_important_unit(unit(1, unit_kind::composite_pod_group, 1, 9, 9),
                                unit(1, unit_kind::pod_group, 9, 0, 0)));
  CHECK(wl::more_important_unit(unit(1, unit_kind::pod_group, 1, 9, 9),
                                unit(1, unit_kind::pod, 9, 0, 0)));
  CHECK(wl::more_important_unit(unit(1, unit_kind::pod_group, 3, 9, 9),
                                unit(1, unit_kind::pod_group, 2, 0, 0)));
  CHECK(wl::more_important_unit(unit(1, unit_kind::pod_group, 2, 0, 9),
                                unit(1, unit_kind::pod_group, 2, 1, 0)));
  CHECK(wl::more_important_unit(unit(1, unit_kind::pod_group, 2, 0, 0),
                                unit(1, unit_kind::pod_group, 2, 0, 1)));
  const wl::victim_unit u = unit(1, unit_kind::pod, 1, 0, 0);
  CHECK_FALSE(wl::more_important_unit(u, u));  // irreflexive
}

// ---- single-pod preemption with pod groups as victims (v1.37 SelectVictimsOnNode) --------------

TEST_CASE(
    "single-pod victims on units: an all-mode group is evicted across nodes, a member has "
    "its group's priority") {
  wlf::scene s;
  s.node("n1", 2);
  s.node("n2", 2);
  s.group("gang", true, 10);
  s.group("important", false, 2000);
  s.add({.name = "g1", .node = "n1", .priority = 10, .group = "gang"});
  s.add({.name = "g2", .node = "n2", .priority = 10, .group = "gang"});
  s.add({.name = "inverted",
         .node = "n1",
         .priority = 5,
         .group = "important"});  // 2000, untouchable
  const wlf::pod preemptor({.uid = 500, .priority = 1000, .requests = {}, .start_time = {}});
  wl::unit_scratch<wlf::pod> units;
  wl::build_victim_units(s.cluster, s.grps, 0, units);
  wl::unit_selection_scratch<wlf::pod> scratch;
  auto state = s.cluster.make_state();
  s.cluster.prepare_state(0, state);
  const auto got = wl::select_unit_victims(preemptor, 0, s.cluster, state, units, s.budgets,
                                           preempt::no_nominated_pods<wlf::pod>, scratch);
  REQUIRE(got.is_candidate());
  const std::set<std::string> got_names = s.named(got.victims);
  CHECK(got_names == std::set<std::string>{"g1", "g2"});  // g2 runs on n2

  SUBCASE("a unit ineligible on any of its nodes is not a victim") {
    struct not_on_n2 : preempt::default_policy {
      bool is_eligible_unit(const preempt::model::resource_node& n, const wl::victim_unit&,
                            std::span<const wl::unit_member<wlf::pod>>, const wlf::pod&) const {
        return n.name() != "n2";
      }
    };
    auto fresh = s.cluster.make_state();
    s.cluster.prepare_state(0, fresh);
    const auto none =
        wl::select_unit_victims(preemptor, 0, s.cluster, fresh, units, s.budgets,
                                preempt::no_nominated_pods<wlf::pod>, scratch, not_on_n2{});
    CHECK(none.outcome.code() == preempt::status_code::unschedulable_and_unresolvable);
    CHECK(none.outcome.reason() == preempt::no_victims_reason);
  }
}

TEST_CASE("victim units are built in the scan order given (upstream's snapshot node list)") {
  wlf::scene s;
  s.node("n1", 10);
  s.node("n2", 10);
  s.node("n3", 10);
  s.add({.name = "p1", .node = "n1", .priority = 10});
  s.add({.name = "p2", .node = "n2", .priority = 10});
  s.add({.name = "p3", .node = "n3", .priority = 10});
  const auto built = [&](std::span<const std::size_t> order) {
    wl::unit_scratch<wlf::pod> scratch;
    std::vector<std::string> names;
    for (const wl::victim_unit& u : wl::build_victim_units(s.cluster, s.grps, 0, scratch, order)) {
      CHECK(u.order == names.size());
      names.push_back(s.names.at(scratch.members_of(u)[0].pod->uid()));
    }
    // unit_of still answers by node index.
    CHECK(scratch.unit_of(1, 0) ==
          static_cast<std::uint32_t>(std::find(names.begin(), names.end(), "p2") - names.begin()));
    return names;
  };
  CHECK(built({}) == std::vector<std::string>{"p1", "p2", "p3"});
  const std::vector<std::size_t> zones_interleaved{0, 2, 1};
  CHECK(built(zones_interleaved) == std::vector<std::string>{"p1", "p3", "p2"});
}

}  // namespace workload_units_test
