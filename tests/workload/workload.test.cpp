// Workload-aware preemption (preempt/workload/): a pod group as the preemptor, upstream's
// TestPodGroupEvaluator_SelectVictimsOnDomain and _NominatedNodes tables (rows WG1-WG39 of the
// behaviour notes) and the evaluation-duration metric test (WG87-WG88), each run through the
// evaluator and then dispatched by the dispatcher on the inline, manual (fifo and shuffled) and
// thread-pool executors.
//
// Conventions (upstream's): priorities low 10 < mid 100 < high 1000; node capacity in slots, a
// pod's size its slot request (default 1); the placement is upstream's mock scheduling function
// (wlf::round_robin). The preemptor is a PodGroup of priority high with one member "p" unless a
// row says otherwise.
//
// Where kube-scheduler v1.37.2 differs from the notes' table, the test follows the code: WG9,
// WG11 and WG13 (a lower-priority pod terminating by preemption on a member's nominated node)
// answer Success "ongoing preemption on nominated nodes" with every member's current nomination,
// not Unschedulable.
#include <doctest/doctest.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "preempt/manual_executor.hpp"
#include "preempt/preempt.hpp"
#include "preempt/thread_pool.hpp"
#include "support/eviction_fakes.hpp"
#include "support/workload_scene.hpp"

namespace workload_test {

namespace {

namespace wl = preempt::workload;
using preempt::status_code;
using wlf::high;
using wlf::low;
using wlf::mid;
using wlf::pod_def;

#define WL_EXECUTORS evf::inline_x, evf::manual_fifo, evf::manual_shuffled, evf::pool_x

struct expected {
  status_code code = status_code::success;
  std::set<std::string> victims = {};
  std::size_t pgd = 0;
  std::int64_t pdbv = 0;
  std::string_view message = {};
  wl::group_decision_kind kind = wl::group_decision_kind::preempt;
};

using evaluator = wl::pod_group_evaluator<preempt::model::resource_cluster>;

// Evaluates, checks the decision, dispatches on executor X and checks what was carried out.
template <class X, class Place>
void check_case(wlf::scene& s, const wl::group_preemptor<wlf::pod>& g, const Place& place,
                const expected& e) {
  CAPTURE(X::name);
  evf::rig<X> r(&s.names, s.cluster.size());
  evaluator ev;
  const auto& d = ev.evaluate(g, s.cluster, s.grps, s.budgets, r.ledger.reader(), place);
  CHECK(d.kind == e.kind);
  CHECK(d.outcome.code() == e.code);
  if (!e.message.empty()) CHECK(d.outcome.reason() == e.message);
  CHECK(s.named(d.victims) == e.victims);
  CHECK(d.pod_group_disruptions == e.pgd);
  CHECK(d.pdb_violations == e.pdbv);

  std::set<std::string> to_evict;
  for (const wlf::pod* v : d.victims)
    if (!v->terminating()) to_evict.insert(s.names.at(v->uid()));

  wl::workload_metrics m;
  const wlf::pod group = s.group_pod();
  const auto result = wl::dispatch_group(r.disp, group, g, d, &m);
  r.settle();
  CHECK(s.named(r.client.deleted()) == to_evict);
  CHECK(r.client.call_count() == to_evict.size());  // each victim once, nothing else
  CHECK_FALSE(r.disp.is_preemption_running(group.uid()));
  CHECK(m.attempts(result.code) == 1);
  if (d.kind == wl::group_decision_kind::preempt) {
    CHECK(result.code == status_code::success);
    CHECK(m.actuations() == 1);
    for (const wl::member_nomination& n : d.nominations)
      CHECK(r.ledger.node_of(g.members[n.member]->uid()) == std::optional<std::size_t>(n.node));
    // Reactivated exactly when no accepted deletion is left to wake the group (async).
    if (X::async && !to_evict.empty()) CHECK(r.rec.reactivations(group.uid()) == 0);
  } else {
    CHECK(r.ledger.size() == 0);
  }
}

template <class X>
void check_case(wlf::scene& s, const expected& e, std::size_t min_count = 1,
                std::optional<preempt::preemption_policy> group_policy = std::nullopt) {
  check_case<X>(s, s.preemptor(group_policy), wlf::round_robin{min_count}, e);
}

}  // namespace

TEST_CASE_TEMPLATE(
    "WG1 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"Priority: mix of no groups and pod "
    "groups\"]: a pod of a group outranks a plain pod",
    X, WL_EXECUTORS) {
  wlf::scene s;
  s.node("n1", 2);
  s.group("pg1", false, low);
  s.add({.name = "p1", .node = "n1"});
  s.add({.name = "p2", .node = "n1", .group = "pg1"});
  s.member("p");
  check_case<X>(s, {.victims = {"p1"}});
}

TEST_CASE_TEMPLATE(
    "WG2 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"Priority: StartTime of pods from same "
    "group with disruption mode single \"]: start time within a single-mode group",
    X, WL_EXECUTORS) {
  wlf::scene s;
  s.node("n1", 2);
  s.group("pg1", false, low);
  s.add({.name = "p1", .node = "n1", .group = "pg1", .start = 1'000'000'000});
  s.add({.name = "p2", .node = "n1", .group = "pg1", .start = 0});
  s.member("p");
  check_case<X>(s, {.victims = {"p1"}, .pgd = 1});
}

TEST_CASE_TEMPLATE(
    "WG3 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"Pod group with disruption mode group not "
    "reprieved\"]: an all-mode group is not reprieved",
    X, WL_EXECUTORS) {
  wlf::scene s;
  s.node("n1", 1);
  s.node("n2", 1);
  s.group("pg1", true, low);
  s.add({.name = "p1", .node = "n1", .group = "pg1"});
  s.add({.name = "p2", .node = "n2", .group = "pg1"});
  s.member("p");
  check_case<X>(s, {.victims = {"p1", "p2"}, .pgd = 1});
}

TEST_CASE_TEMPLATE(
    "WG5 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"PDB: Mixed groups\"]: budgets, both pods "
    "name a PodGroup that does not exist",
    X, WL_EXECUTORS) {
  wlf::scene s;
  s.node("n1", 2);
  s.add({.name = "victim-pdb", .node = "n1", .group = "pg1", .foo = true});
  s.add({.name = "victim-no-pdb", .node = "n1", .group = "pg1"});
  s.pdb_foo(0);
  s.member("p");
  check_case<X>(s, {.victims = {"victim-no-pdb"}, .pgd = 1});
}

namespace {
// WG6-WG8, WG20-WG22: three nodes of capacity `cap`, p1 plain, p2 in pg1, p3 in pg2.
void three_nodes(wlf::scene& s, std::int64_t cap, bool listed) {
  s.node("n1", cap);
  s.node("n2", cap);
  s.node("n3", cap);
  if (listed) {
    s.group("pg1", false, low);
    s.group("pg2", false, low);
  }
  s.add({.name = "p1", .node = "n1"});
  s.add({.name = "p2", .node = "n2", .group = "pg1"});
  s.add({.name = "p3", .node = "n3", .group = "pg2"});
}
}  // namespace

TEST_CASE_TEMPLATE(
    "WG6 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"PodGroup preemptor with "
    "PreemptLowerPriority preemption policy performs preemption\"]: group policy "
    "PreemptLowerPriority preempts",
    X, WL_EXECUTORS) {
  wlf::scene s;
  three_nodes(s, 1, false);
  s.member("p");
  check_case<X>(s, {.victims = {"p1"}}, 1, preempt::preemption_policy::preempt_lower_priority);
}

TEST_CASE_TEMPLATE(
    "WG7 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"PodGroup preemptor with "
    "PreemptLowerPriority preemption policy performs preemption, ignoring member pod preemption "
    "policy\"]: group policy PreemptLowerPriority ignores a member's Never",
    X, WL_EXECUTORS) {
  wlf::scene s;
  three_nodes(s, 1, false);
  s.member("p", wl::no_node, preempt::preemption_policy::never);
  check_case<X>(s, {.victims = {"p1"}}, 1, preempt::preemption_policy::preempt_lower_priority);
}

TEST_CASE_TEMPLATE(
    "WG8 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"PodGroup preemptor with PreemptNever "
    "policy does not perform preemption\"]: group policy Never: not eligible",
    X, WL_EXECUTORS) {
  wlf::scene s;
  three_nodes(s, 100, false);
  s.member("p1-m");
  s.member("p2-m");
  check_case<X>(s,
                {.code = status_code::unschedulable,
                 .message = "not eligible due to preemptionPolicy=Never.",
                 .kind = wl::group_decision_kind::not_eligible},
                1, preempt::preemption_policy::never);
}

TEST_CASE_TEMPLATE(
    "WG9 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"Preemptor group is not eligible if any "
    "member has nominated node with terminating pods\"]: a terminating pod on a member's nominated "
    "node: ongoing preemption",
    X, WL_EXECUTORS) {
  wlf::scene s;
  s.node("n1", 100);
  s.add({.name = "victim", .node = "n1", .terminating = true});
  s.member("p1");
  s.member("p2", 0);
  check_case<X>(s, {.message = "ongoing preemption on nominated nodes",
                    .kind = wl::group_decision_kind::ongoing});
  evaluator ev;
  const auto& d = ev.evaluate(s.preemptor(), s.cluster, s.grps, s.budgets,
                              preempt::no_nominations{}, wlf::round_robin{});
  CHECK_FALSE(d.evaluated);
  REQUIRE(d.nominations.size() == 2);
  CHECK(d.nominations[0] == wl::member_nomination{0, wl::no_node});
  CHECK(d.nominations[1] == wl::member_nomination{1, 0});
}

TEST_CASE_TEMPLATE(
    "WG10 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"Preemptor group is eligible if "
    "terminating pods are on non-nominated nodes\"]: a terminating pod on a node no member is "
    "nominated to",
    X, WL_EXECUTORS) {
  wlf::scene s;
  s.node("n1", 1);
  s.node("n2", 1);
  s.add({.name = "other-victim", .node = "n1"});
  s.add({.name = "victim", .node = "n2", .terminating = true});
  s.member("p1");
  s.member("p2", 0);
  check_case<X>(s, {.victims = {"other-victim", "victim"}});
}

TEST_CASE_TEMPLATE(
    "WG11 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"Preemptor group is not eligible if "
    "nominated node has terminating pod belonging to a pod group of lower priority\"]: a "
    "terminating pod whose all-mode group is of lower priority",
    X, WL_EXECUTORS) {
  wlf::scene s;
  s.node("n1", 100);
  s.group("victim-pg", true, low);
  s.add({.name = "victim",
         .node = "n1",
         .priority = high,
         .group = "victim-pg",
         .terminating = true});
  s.member("p1");
  s.member("p2", 0);
  check_case<X>(s, {.message = "ongoing preemption on nominated nodes",
                    .kind = wl::group_decision_kind::ongoing});
}

TEST_CASE_TEMPLATE(
    "WG13 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"Preemptor group is not eligible if "
    "nominated node has terminating pod belonging to a pod group of lower priority with "
    "DisruptionModePod\"]: a terminating pod whose single-mode group is of lower priority",
    X, WL_EXECUTORS) {
  wlf::scene s;
  s.node("n1", 100);
  s.group("victim-pg", false, low);
  s.add({.name = "victim",
         .node = "n1",
         .priority = high,
         .group = "victim-pg",
         .terminating = true});
  s.member("p1");
  s.member("p2", 0);
  check_case<X>(s, {.message = "ongoing preemption on nominated nodes",
                    .kind = wl::group_decision_kind::ongoing});
}

TEST_CASE_TEMPLATE(
    "WG14 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"Preemptor group is eligible if nominated "
    "node has terminating pod belonging to a pod group of higher priority with nil "
    "DisruptionMode\"]: a terminating pod whose group is of higher priority does not block",
    X, WL_EXECUTORS) {
  wlf::scene s;
  s.group_priority = mid;
  s.node("n1", 2);
  s.node("n2", 1);
  s.group("victim-pg", false, high);
  s.add({.name = "victim", .node = "n1", .group = "victim-pg", .terminating = true});
  s.add({.name = "other-victim", .node = "n1"});
  s.member("p1");
  s.member("p2", 0);
  check_case<X>(s, {.victims = {"other-victim"}});
}

TEST_CASE_TEMPLATE(
    "WG15 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"Preempt single lower priority pod\"]: a "
    "single lower-priority pod",
    X, WL_EXECUTORS) {
  wlf::scene s;
  s.node("n1", 1);
  s.add({.name = "p1", .node = "n1"});
  s.member("p");
  check_case<X>(s, {.victims = {"p1"}});
}

TEST_CASE_TEMPLATE(
    "WG16 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"Priority: Prefer lower priority "
    "victim\"]: lower priorities go first, equal priority is untouchable",
    X, WL_EXECUTORS) {
  wlf::scene s;
  s.node("n1", 2);
  s.add({.name = "p1", .node = "n1", .priority = low});
  s.add({.name = "p2", .node = "n1", .priority = mid});
  s.add({.name = "p3", .node = "n1", .priority = high});
  s.member("p");
  check_case<X>(s, {.victims = {"p1", "p2"}});
}

TEST_CASE_TEMPLATE(
    "WG17 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"Efficiency: Preempt minimum number of "
    "victims\"]: minimum victims, ties broken by construction order",
    X, WL_EXECUTORS) {
  wlf::scene s;
  s.node("n1", 3);
  for (const char* n : {"p1", "p2", "p3", "p4"}) s.add({.name = n, .node = "n1"});
  s.member("p");
  check_case<X>(s, {.victims = {"p3", "p4"}});
}

TEST_CASE_TEMPLATE(
    "WG18 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"PDB: Prefer non-violating victim\"]: the "
    "non-violating victim is preferred",
    X, WL_EXECUTORS) {
  wlf::scene s;
  s.node("n1", 2);
  s.add({.name = "victim-pdb", .node = "n1", .foo = true});
  s.add({.name = "victim-no-pdb", .node = "n1"});
  s.pdb_foo(0);
  s.member("p");
  check_case<X>(s, {.victims = {"victim-no-pdb"}});
}

TEST_CASE_TEMPLATE(
    "WG20 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"PodGroup preemptor with "
    "PreemptLowerPriority preemption policy performs preemption with PodGroup victims\"]: "
    "PreemptLowerPriority with single-mode group victims",
    X, WL_EXECUTORS) {
  wlf::scene s;
  three_nodes(s, 1, true);
  s.member("p");
  check_case<X>(s, {.victims = {"p1"}}, 1, preempt::preemption_policy::preempt_lower_priority);
}

TEST_CASE_TEMPLATE(
    "WG21 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"PodGroup preemptor with "
    "PreemptLowerPriority preemption policy performs preemption with PodGroup victims, ignoring "
    "member pod preemption policy\"]: as WG20, ignoring a member's Never",
    X, WL_EXECUTORS) {
  wlf::scene s;
  three_nodes(s, 1, true);
  s.member("p", wl::no_node, preempt::preemption_policy::never);
  check_case<X>(s, {.victims = {"p1"}}, 1, preempt::preemption_policy::preempt_lower_priority);
}

TEST_CASE_TEMPLATE(
    "WG22 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"PodGroup preemptor with PreemptNever "
    "preemption policy does not perform preemption with PodGroup victims\"]: Never with group "
    "victims: not eligible",
    X, WL_EXECUTORS) {
  wlf::scene s;
  three_nodes(s, 1, true);
  s.member("p1-m");
  s.member("p2-m");
  check_case<X>(s,
                {.code = status_code::unschedulable,
                 .message = "not eligible due to preemptionPolicy=Never.",
                 .kind = wl::group_decision_kind::not_eligible},
                1, preempt::preemption_policy::never);
}

TEST_CASE_TEMPLATE(
    "WG23 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"PDB: Prefer lower priority pod for "
    "preemption, when preemption without pdb violation is not possible\"]: an unavoidable budget "
    "violation is counted",
    X, WL_EXECUTORS) {
  wlf::scene s;
  s.node("n1", 2);
  s.add({.name = "p1", .node = "n1", .priority = low, .foo = true});
  s.add({.name = "p2", .node = "n1", .priority = mid, .foo = true});
  s.pdb_foo(0);
  s.member("p");
  check_case<X>(s, {.victims = {"p1"}, .pdbv = 1});
}

TEST_CASE_TEMPLATE(
    "WG24 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"PodGroup: Preempt group as a whole\"]: an "
    "all-mode group across two nodes is evicted as a whole",
    X, WL_EXECUTORS) {
  wlf::scene s;
  s.node("n1", 1);
  s.node("n2", 0);
  s.group("pg1", true, low);
  s.add({.name = "p1", .node = "n1", .group = "pg1"});
  s.add({.name = "p2", .node = "n2", .group = "pg1"});
  s.member("p");
  check_case<X>(s, {.victims = {"p1", "p2"}, .pgd = 1});
}

TEST_CASE_TEMPLATE(
    "WG25 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"PodGroup: Prefer single pod over podGroup "
    "for preemption candidate\"]: a plain pod is preferred over an all-mode group",
    X, WL_EXECUTORS) {
  wlf::scene s;
  s.node("n1", 3);
  s.group("pg1", true, low);
  s.add({.name = "p1", .node = "n1"});
  s.add({.name = "g1-1", .node = "n1", .group = "pg1"});
  s.add({.name = "g1-2", .node = "n1", .group = "pg1"});
  s.member("p");
  check_case<X>(s, {.victims = {"p1"}});
}

TEST_CASE_TEMPLATE(
    "WG26 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"PodGroup: Preempt group as a whole on "
    "single node\"]: an all-mode group on one node against a higher plain pod",
    X, WL_EXECUTORS) {
  wlf::scene s;
  s.node("n1", 3);
  s.group("pg1", true, low);
  s.add({.name = "g1-1", .node = "n1", .group = "pg1"});
  s.add({.name = "g1-2", .node = "n1", .group = "pg1"});
  s.add({.name = "p1", .node = "n1", .priority = mid});
  s.member("p");
  check_case<X>(s, {.victims = {"g1-1", "g1-2"}, .pgd = 1});
}

TEST_CASE_TEMPLATE(
    "WG27 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"PDB: Unit violation if any member "
    "violates\"]: a unit violates a budget if any member does",
    X, WL_EXECUTORS) {
  wlf::scene s;
  s.node("n1", 3);
  s.group("pg1", true, low);
  s.add({.name = "g1-1", .node = "n1", .group = "pg1", .foo = true});
  s.add({.name = "g1-2", .node = "n1", .group = "pg1"});
  s.add({.name = "p1", .node = "n1"});
  s.pdb_foo(0);
  s.member("p");
  check_case<X>(s, {.victims = {"p1"}, .pdbv = 0});
}

namespace {
const expected no_victims{.code = status_code::unschedulable_and_unresolvable,
                          .message = "No preemption victims found for incoming preemptor",
                          .kind = wl::group_decision_kind::unschedulable};
}

TEST_CASE_TEMPLATE(
    "WG28 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"Failure: Cannot preempt the victim with "
    "higher priority\"]: only higher-priority pods: no victims",
    X, WL_EXECUTORS) {
  wlf::scene s;
  s.group_priority = mid;
  s.node("n1", 100);
  s.add({.name = "p1", .node = "n1", .priority = high});
  s.member("p");
  check_case<X>(s, no_victims);
}

TEST_CASE_TEMPLATE(
    "WG29 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"Failure: Cannot preempt the victim with "
    "equal priority\"]: only equal-priority pods: no victims",
    X, WL_EXECUTORS) {
  wlf::scene s;
  s.group_priority = mid;
  s.node("n1", 100);
  s.add({.name = "p1", .node = "n1", .priority = mid});
  s.member("p");
  check_case<X>(s, no_victims);
}

TEST_CASE_TEMPLATE(
    "WG30 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"Failure: Cannot preempt if node is "
    "empty\"]: an empty node: no victims",
    X, WL_EXECUTORS) {
  wlf::scene s;
  s.group_priority = mid;
  s.node("n1", 100);
  s.member("p");
  check_case<X>(s, no_victims);
}

TEST_CASE_TEMPLATE(
    "WG32 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"Priority divergence: candidate victim "
    "PodGroup has higher priority than the Pods from that group\"]: a group's priority replaces "
    "its pods'",
    X, WL_EXECUTORS) {
  wlf::scene s;
  s.group_priority = mid;
  s.node("n1", 1);
  s.node("n2", 1);
  s.group("pg1", true, mid);
  s.add({.name = "p1", .node = "n1", .group = "pg1"});
  s.add({.name = "p2", .node = "n2", .group = "pg1"});
  s.member("p");
  check_case<X>(s, no_victims);
}

namespace {
void four_nodes_two_high(wlf::scene& s) {
  for (const char* n : {"n1", "n2", "n3", "n4"}) s.node(n, 1);
  s.add({.name = "p1", .node = "n1"});
  s.add({.name = "p2", .node = "n2"});
  s.add({.name = "p3", .node = "n3", .priority = high});
  s.add({.name = "p4", .node = "n4", .priority = high});
  s.member("p-a");
  s.member("p-b");
  s.member("p-c");
}
void lower_all_group(wlf::scene& s) {
  for (const char* n : {"n1", "n2", "n3"}) s.node(n, 1);
  s.group("victim-pg", true, mid);
  s.add({.name = "v1", .node = "n1", .priority = mid, .group = "victim-pg"});
  s.add({.name = "v2", .node = "n2", .priority = mid, .group = "victim-pg"});
  s.add({.name = "v3", .node = "n3", .priority = low});
  s.member("p-a");
  s.member("p-b");
  s.member("p-c");
}
void partial_placement(wlf::scene& s) {
  for (const char* n : {"n1", "n2", "n3", "n4"}) s.node(n, 1);
  s.group("victim-pg", true, mid);
  s.group("victim-pg2", true, high);
  s.add({.name = "v1", .node = "n1", .priority = mid, .group = "victim-pg"});
  s.add({.name = "v2", .node = "n2", .priority = mid, .group = "victim-pg"});
  s.add({.name = "v3", .node = "n3", .priority = high, .group = "victim-pg2"});
  s.add({.name = "v4", .node = "n4", .priority = high, .group = "victim-pg2"});
  s.member("p-a");
  s.member("p-b");
  s.member("p-c");
}
}  // namespace

TEST_CASE_TEMPLATE(
    "WG33 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"Gang scheduling: schedule as many pods as "
    "possible without preempting higher priority pods, but still more than minCount\"]: gang, as "
    "many members as possible are placed",
    X, WL_EXECUTORS) {
  wlf::scene s;
  four_nodes_two_high(s);
  check_case<X>(s, {.victims = {"p1", "p2"}}, 1);
}

TEST_CASE_TEMPLATE(
    "WG34 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"Gang scheduling: do not reprieve victim "
    "pod group of lower priority\"]: gang, a lower all-mode group is not reprieved",
    X, WL_EXECUTORS) {
  wlf::scene s;
  lower_all_group(s);
  check_case<X>(s, {.victims = {"v1", "v2", "v3"}, .pgd = 1}, 1);
}

TEST_CASE_TEMPLATE(
    "WG36 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"Basic scheduling: schedule as many pods "
    "as possible without preempting higher priority pods\"]: basic, as many members as possible "
    "are placed",
    X, WL_EXECUTORS) {
  wlf::scene s;
  four_nodes_two_high(s);
  check_case<X>(s, {.victims = {"p1", "p2"}}, 1);
}

TEST_CASE_TEMPLATE(
    "WG37 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"Basic scheduling: do not reprieve victim "
    "pod group of lower priority\"]: basic, a lower all-mode group is not reprieved",
    X, WL_EXECUTORS) {
  wlf::scene s;
  lower_all_group(s);
  check_case<X>(s, {.victims = {"v1", "v2", "v3"}, .pgd = 1}, 1);
}

TEST_CASE_TEMPLATE(
    "WG38 [TestPodGroupEvaluator_SelectVictimsOnDomain/\"Basic scheduling: preempt a pod group "
    "victim but do not schedule full pod group\"]: basic, a group victim with a partial placement",
    X, WL_EXECUTORS) {
  wlf::scene s;
  partial_placement(s);
  check_case<X>(s, {.victims = {"v1", "v2"}, .pgd = 1}, 1);
}

TEST_CASE_TEMPLATE(
    "WG39 [TestPodGroupEvaluator_SelectVictimsOnDomain_NominatedNodes]: nominations only for the "
    "placed members",
    X, WL_EXECUTORS) {
  wlf::scene s;
  s.node("n1", 2);
  s.add({.name = "p3", .node = "n1"});
  s.member("p1");
  s.member("p2");
  const auto g = s.preemptor();
  const wlf::fixed_placement place{{0, wl::no_node}};
  check_case<X>(s, g, place, {.victims = {}});
  evaluator ev;
  const auto& d = ev.evaluate(g, s.cluster, s.grps, s.budgets, preempt::no_nominations{}, place);
  REQUIRE(d.nominations.size() == 1);
  CHECK(d.nominations[0] == wl::member_nomination{0, 0});
}

TEST_CASE_TEMPLATE(
    "WG87-WG88 [TestPodGroupPreemptionEvaluationDurationMetric/\"scheduling success\", "
    "\"scheduling error\"]: evaluation duration by result, Success and Error",
    X, WL_EXECUTORS) {
  for (const bool fail : {false, true}) {
    CAPTURE(fail);
    wlf::scene s;
    s.node("n1", 1);
    s.add({.name = "v", .node = "n1"});
    s.member("p");
    const auto g = s.preemptor();
    wlf::fixed_placement place{{0}};
    if (fail) place.answer = preempt::status::error("failed to schedule");
    evf::rig<X> r(&s.names, s.cluster.size());
    evaluator ev;
    wl::workload_metrics m;
    const auto& d = ev.evaluate(g, s.cluster, s.grps, s.budgets, r.ledger.reader(), place);
    CHECK(d.evaluated);
    const wlf::pod group = s.group_pod();
    wl::dispatch_group(r.disp, group, g, d, &m);
    r.settle();
    const status_code want = fail ? status_code::error : status_code::success;
    CHECK(m.evaluations(want) == 1);
    CHECK(m.evaluations(fail ? status_code::success : status_code::error) == 0);
    CHECK(m.attempts(want) == 1);
    if (fail) {
      CHECK(d.kind == wl::group_decision_kind::error);
      CHECK(d.outcome.reason() == "failed to schedule");
      CHECK(r.client.call_count() == 0);
      CHECK(m.actuations() == 0);
    } else {
      CHECK(m.actuations() == 1);
      CHECK(m.victims_bucket(0) == 1);
    }
  }
}

// ---- dispatch: the gate keyed by the group, the wake-up rule, nominations ---------------------

namespace {
// n1, n2 of capacity 1 each full of a low pod: both members need both victims.
void two_victims(wlf::scene& s) {
  s.node("n1", 1);
  s.node("n2", 1);
  s.add({.name = "v1", .node = "n1"});
  s.add({.name = "v2", .node = "n2"});
  s.member("m1");
  s.member("m2");
}
}  // namespace

TEST_CASE(
    "group dispatch (manual executor): the group is gated while its evictions run, members "
    "are nominated first") {
  wlf::scene s;
  two_victims(s);
  const auto g = s.preemptor();
  evf::rig<evf::manual_fifo> r(&s.names, s.cluster.size());
  evaluator ev;
  const auto& d =
      ev.evaluate(g, s.cluster, s.grps, s.budgets, r.ledger.reader(), wlf::round_robin{});
  REQUIRE(d.kind == wl::group_decision_kind::preempt);
  CHECK(s.named(d.victims) == std::set<std::string>{"v1", "v2"});
  const wlf::pod group = s.group_pod();
  const auto res = wl::dispatch_group(r.disp, group, g, d);
  CHECK(res.dispatch.started);
  CHECK(res.dispatch.evictions == 2);
  // Members are nominated before the evictions run; the group, not a member, is in flight.
  CHECK(r.ledger.node_of(g.members[0]->uid()) == std::optional<std::size_t>(0));
  CHECK(r.ledger.node_of(g.members[1]->uid()) == std::optional<std::size_t>(1));
  CHECK_FALSE(r.ledger.node_of(group.uid()).has_value());
  CHECK(r.disp.is_preemption_running(group.uid()));
  CHECK_FALSE(r.disp.is_preemption_running(g.members[0]->uid()));
  // Every eviction call sees the group in flight and gated.
  r.settle();
  REQUIRE(r.client.call_count() == 2);
  for (const evf::call& c : r.client.calls()) {
    CHECK(c.preemptor == group.uid());
    CHECK(c.in_flight);
    CHECK(c.gate);
  }
  // The last victim is evicted last, recorded as the group's last victim while it runs.
  CHECK(r.client.calls()[1].last_victim == std::optional<wlf::uid>(r.client.calls()[1].victim));
  // Its deletion was accepted: the deletion event will wake the group, the dispatcher does not.
  CHECK_FALSE(r.disp.is_preemption_running(group.uid()));
  CHECK(r.rec.reactivations(group.uid()) == 0);
  CHECK(r.client.accepted().size() == 2);
  CHECK(r.rec.cleared().empty());     // a group's preemption clears no nomination
  CHECK(r.rec.dispatched().empty());  // nor feeds the single-pod victims metric
}

TEST_CASE_TEMPLATE(
    "group dispatch: a failed eviction wakes the group (async) or fails the "
    "attempt and nominates nobody (inline)",
    X, WL_EXECUTORS) {
  wlf::scene s;
  two_victims(s);
  const auto g = s.preemptor();
  evf::rig<X> r(&s.names, s.cluster.size());
  r.client.set(s.ids.at("v1"), evf::api::delete_fails);
  r.client.set(s.ids.at("v2"), evf::api::delete_fails);
  evaluator ev;
  const auto& d =
      ev.evaluate(g, s.cluster, s.grps, s.budgets, r.ledger.reader(), wlf::round_robin{});
  REQUIRE(d.kind == wl::group_decision_kind::preempt);
  wl::workload_metrics m;
  const wlf::pod group = s.group_pod();
  const auto res = wl::dispatch_group(r.disp, group, g, d, &m);
  r.settle();
  CHECK_FALSE(r.disp.is_preemption_running(group.uid()));
  if constexpr (X::async) {
    CHECK(res.code == status_code::success);  // upstream: the async path reports success at once
    CHECK(r.rec.reactivations(group.uid()) == 1);
    CHECK(r.ledger.node_of(g.members[0]->uid()).has_value());
  } else {
    CHECK(res.code == status_code::error);
    CHECK(res.dispatch.outcome.reason() == evf::delete_failed);
    CHECK(m.attempts(status_code::error) == 1);
    CHECK(m.executions(wl::unit_kind::pod_group, false) == 1);
    CHECK(r.ledger.size() == 0);
  }
}

TEST_CASE_TEMPLATE("group dispatch: victims already terminating are not evicted again", X,
                   WL_EXECUTORS) {
  wlf::scene s;
  s.node("n1", 1);
  s.add({.name = "v1", .node = "n1", .terminating = true});
  s.member("m1");
  const auto g = s.preemptor();
  evf::rig<X> r(&s.names, s.cluster.size());
  evaluator ev;
  const auto& d =
      ev.evaluate(g, s.cluster, s.grps, s.budgets, r.ledger.reader(), wlf::round_robin{});
  REQUIRE(d.kind == wl::group_decision_kind::preempt);
  CHECK(s.named(d.victims) == std::set<std::string>{"v1"});  // selected again, counted
  const wlf::pod group = s.group_pod();
  wl::workload_metrics m;
  const auto res = wl::dispatch_group(r.disp, group, g, d, &m);
  r.settle();
  CHECK(res.dispatch.skipped == 1);
  CHECK(r.client.call_count() == 0);
  CHECK_FALSE(r.disp.is_preemption_running(group.uid()));
  CHECK(m.victims_bucket(0) == 1);  // upstream observes the victims before skipping them
  CHECK(r.ledger.node_of(g.members[0]->uid()) == std::optional<std::size_t>(0));
}

TEST_CASE("workload metrics: buckets of counts (1..1024, +Inf) and durations (1 ms · 2^k, +Inf)") {
  using wm = wl::workload_metrics;
  CHECK(wm::count_bucket(0) == 0);
  CHECK(wm::count_bucket(1) == 0);
  CHECK(wm::count_bucket(2) == 1);
  CHECK(wm::count_bucket(3) == 2);
  CHECK(wm::count_bucket(1024) == 10);
  CHECK(wm::count_bucket(1025) == 11);
  CHECK(wm::duration_bucket(std::chrono::microseconds(500)) == 0);
  CHECK(wm::duration_bucket(std::chrono::milliseconds(2)) == 1);
  CHECK(wm::duration_bucket(std::chrono::seconds(100)) == 16);
  wm m;
  m.record_victims(wl::unit_kind::composite_pod_group, 3, 0, 0);
  CHECK(m.victims_bucket(2) == 1);
  CHECK(m.disruptions_bucket(wl::unit_kind::composite_pod_group, 0) == 0);  // not observed at 0
  m.record_victims(wl::unit_kind::composite_pod_group, 3, 2, 4);
  CHECK(m.disruptions_bucket(wl::unit_kind::composite_pod_group, 1) == 1);
  CHECK(m.pdb_violations(wl::unit_kind::composite_pod_group) == 4);
  CHECK(m.pdb_violations(wl::unit_kind::pod_group) == 0);
}

}  // namespace workload_test
