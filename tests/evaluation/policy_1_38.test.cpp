// kube-scheduler v1.38's victim order (preempt/policy_1_38.hpp), from k8s.io/kubernetes
// v1.38.0-beta.0: MoreImportantVictim compares priority, then start times with a missing one the
// latest instant (GetPodStartTime's maxPodStartTime), then the pods' UIDs (podIdentityLess); the
// same latest instant stands for a missing start time when candidates are compared
// (GetEarliestPodStartTime in SelectCandidate).
//
//   V1  TestMoreImportantVictim's pod rows (util_test.go), and the rows the new tie-breaks add
//   V2  one node, 20 pods without a start time listed neither in uid order nor sorted: the
//       victims follow the uids (v1.38), no longer the listing (v1.37)
//   V3  a candidate whose victims have no start time against one whose victims started after
//       the decision's clock: v1.38 picks the first (latest instant), v1.37 the second
//   V4  the general paths: the policy declares its own order, a uid type without an order
//       leaves equal pods tied, and an IdentityLess of the caller's is used
//   V5  victim units (getCrossNodesVictims): a pod of a group in disruption mode Single is a
//       plain victim with its own priority; a unit in disruption mode All takes the own priority
//       of its first member on the node evaluated; equal units by their first pods' UIDs
//   V6  a node whose filters pass with every victim reprieved (DryRunPreemption): v1.37 an
//       Error that fails the attempt, v1.38 UnschedulableAndUnresolvable "No preemption victims
//       found for incoming pod", or, with an interested preempt-capable extender, a candidate
//       without victims for the extenders to fill (callExtenders' placeholders:
//       TestCallExtenders' "empty victim list is dropped after extender passthrough" and "later
//       extender adds victims to empty placeholder")
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/workload_scene.hpp"

namespace policy_1_38_test {

namespace {

using pod = preempt::model::resource_pod;
using preempt::model::pod_id;
using policy_1_38 = preempt::kubernetes_1_38_policy<>;

constexpr preempt::timestamp now = 1'000'000;

struct def {
  pod_id uid;
  std::int64_t cpu;
  std::optional<preempt::timestamp> start;
  std::int32_t priority = 0;
};

// Nodes of `cpu` millicores each, holding the pods given per node in listing order.
preempt::model::resource_cluster cluster_of(std::int64_t cpu,
                                            const std::vector<std::vector<def>>& nodes) {
  preempt::model::resource_cluster c;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    c.add_node("node-" + std::to_string(i), {cpu, 1LL << 40, 1000});
    for (const def& d : nodes[i])
      c.add_pod(i, pod({.uid = d.uid,
                        .priority = d.priority,
                        .requests = {d.cpu, 0},
                        .start_time = d.start}));
  }
  return c;
}

struct outcome {
  std::string node;
  std::vector<pod_id> victims;
  std::size_t candidates = 0;
};

template <class Policy>
outcome decide(const preempt::model::resource_cluster& c, const pod& preemptor, Policy policy) {
  preempt::filter_statuses statuses(c.size(), preempt::status_code::unschedulable);
  preempt::evaluator<preempt::model::resource_cluster, Policy> ev({}, std::move(policy));
  const auto& d = ev.evaluate(preemptor, c, statuses, preempt::no_budgets{},
                              preempt::no_nominations{}, preempt::inline_executor{});
  outcome out;
  if (d.kind != preempt::decision_kind::nominated) return out;
  out.node = std::string(d.node_name);
  for (const pod* p : d.victims) out.victims.push_back(p->uid());
  return out;
}

policy_1_38 at(preempt::timestamp t) {
  policy_1_38 p;
  p.now = t;
  return p;
}

}  // namespace

TEST_CASE("V1: TestMoreImportantVictim's pod rows, and v1.38's tie-breaks") {
  const policy_1_38 policy = at(now);
  const preempt::timestamp before = now - 1000;
  const pod high({.uid = 1, .priority = 20, .requests = {}, .start_time = now});
  const pod low({.uid = 2, .priority = 10, .requests = {}, .start_time = now});
  // "vi1 has higher priority" / "vi2 has higher priority".
  CHECK(policy.more_important(high, low));
  CHECK_FALSE(policy.more_important(low, high));
  // "both Pods, vi1 older" / "both Pods, vi2 older".
  const pod older({.uid = 3, .priority = 10, .requests = {}, .start_time = before});
  const pod newer({.uid = 4, .priority = 10, .requests = {}, .start_time = now});
  CHECK(policy.more_important(older, newer));
  CHECK_FALSE(policy.more_important(newer, older));
  // A missing start time is the latest instant: after any recorded one, even one after `now`.
  const pod unstarted({.uid = 5, .priority = 10, .requests = {}, .start_time = {}});
  const pod future({.uid = 6, .priority = 10, .requests = {}, .start_time = now + 1'000'000});
  CHECK(policy.more_important(future, unstarted));
  CHECK_FALSE(policy.more_important(unstarted, future));
  // Equal priority and start: the smaller UID first, whatever the listing positions.
  const pod a({.uid = 7, .priority = 10, .requests = {}, .start_time = {}});
  const pod b({.uid = 8, .priority = 10, .requests = {}, .start_time = {}});
  CHECK(policy.more_important(a, b));
  CHECK_FALSE(policy.more_important(b, a));
  CHECK(policy.more_important_as_built(a, 9, b, 0));
  CHECK_FALSE(policy.more_important_as_built(b, 0, a, 9));
  CHECK_FALSE(policy.more_important(a, a));
  // v1.37's order for the same pods: built order, and `now` for a missing start.
  const preempt::default_policy v1_37{now};
  CHECK_FALSE(v1_37.more_important_as_built(a, 9, b, 0));
  CHECK(v1_37.more_important(unstarted, future));
}

TEST_CASE("V2: victims without a start time follow their UIDs at v1.38, the listing at v1.37") {
  // 20 pods of one priority without a start time, listed with uids 20, 19, ..., 1 and sizes that
  // are not sorted; the node is full and the preemptor needs a third of it.
  constexpr int n = 20;
  std::vector<def> defs;
  std::int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    const std::int64_t cpu = 100 + 37 * ((i * 7) % n);
    defs.push_back({static_cast<pod_id>(n - i), cpu, std::nullopt});
    total += cpu;
  }
  const auto c = cluster_of(total, {defs});
  const pod preemptor({.uid = 100, .priority = 10, .requests = {total / 3, 0}, .start_time = {}});

  // Reprieve most important first while the preemptor still fits; victims in importance order.
  const auto expected = [&](auto less) {
    std::vector<def> order = defs;
    std::stable_sort(order.begin(), order.end(), less);
    std::vector<pod_id> want;
    std::int64_t used = 0;
    for (const def& d : order) {
      if (used + d.cpu + total / 3 <= total)
        used += d.cpu;
      else
        want.push_back(d.uid);
    }
    return want;
  };
  const auto by_uid = expected([](const def& x, const def& y) { return x.uid < y.uid; });
  const auto as_listed = expected([](const def&, const def&) { return false; });
  REQUIRE(by_uid.size() > 1);
  REQUIRE(by_uid != as_listed);
  CHECK(decide(c, preemptor, at(now)).victims == by_uid);
  CHECK(decide(c, preemptor, preempt::default_policy{now}).victims == as_listed);
}

TEST_CASE("V3: a missing start time is the latest instant when candidates are compared") {
  // Two nodes of 1000m, each full with one pod of priority 0: node-0's pod has no start time,
  // node-1's started after the decision's clock. Every other criterion ties; the candidate whose
  // highest-priority victims started latest wins (SelectCandidate's fifth criterion).
  const auto c = cluster_of(1000, {{{1, 1000, std::nullopt}}, {{2, 1000, now + 500}}});
  const pod preemptor({.uid = 100, .priority = 10, .requests = {600, 0}, .start_time = {}});
  const outcome v1_38 = decide(c, preemptor, at(now));
  CHECK(v1_38.node == "node-0");
  CHECK(v1_38.victims == std::vector<pod_id>{1});
  // v1.37 reads the missing start time as `now`, before node-1's.
  CHECK(decide(c, preemptor, preempt::default_policy{now}).node == "node-1");
  static_assert(preempt::detail::unstarted_time<policy_1_38>(now) == preempt::unstarted_time_1_38);
  static_assert(preempt::detail::unstarted_time<preempt::default_policy>(now) == now);
}

namespace {
// A uid without an order: equal pods stay tied (the sort decides, as before v1.38's tie-break).
struct handle {
  int id = 0;
  bool operator==(const handle&) const = default;
};
}  // namespace
}  // namespace policy_1_38_test

template <>
struct std::hash<policy_1_38_test::handle> {
  std::size_t operator()(const policy_1_38_test::handle& h) const noexcept {
    return std::hash<int>{}(h.id);
  }
};

namespace policy_1_38_test {
namespace {
struct handle_pod {
  handle id;
  std::int32_t prio = 0;
  handle uid() const { return id; }
  std::int32_t priority() const { return prio; }
  std::optional<preempt::timestamp> start_time() const { return std::nullopt; }
  bool terminating_by_preemption() const { return false; }
};

// The caller's order of equal pods: by an external name, here the reverse of the uids.
struct reverse_uid {
  bool operator()(const pod& a, const pod& b) const { return a.uid() > b.uid(); }
};
}  // namespace

TEST_CASE("V4: the general paths, an unordered uid type, the caller's IdentityLess") {
  static_assert(!preempt::detail::default_importance_order<policy_1_38, pod>());
  static_assert(preempt::detail::orders_as_built<policy_1_38, pod>());
  static_assert(preempt::pod<handle_pod>);
  const policy_1_38 policy = at(now);
  const handle_pod x{{1}, 0}, y{{2}, 0};
  CHECK_FALSE(policy.more_important(x, y));
  CHECK_FALSE(policy.more_important(y, x));

  const auto c =
      cluster_of(900, {{{1, 300, std::nullopt}, {2, 300, std::nullopt}, {3, 300, std::nullopt}}});
  const pod preemptor({.uid = 100, .priority = 10, .requests = {300, 0}, .start_time = {}});
  // uid order: 1 and 2 reprieved, 3 goes; the reverse order: 3 and 2 reprieved, 1 goes.
  CHECK(decide(c, preemptor, at(now)).victims == std::vector<pod_id>{3});
  preempt::kubernetes_1_38_policy<reverse_uid> reversed;
  reversed.now = now;
  CHECK(decide(c, preemptor, reversed).victims == std::vector<pod_id>{1});
}

namespace {
// The victims on the chosen node and the node, deciding with pod groups.
template <class Policy>
outcome decide_grouped(const preempt::model::resource_cluster& c, const wlf::groups& groups,
                       const pod& preemptor, Policy policy) {
  preempt::filter_statuses statuses(c.size(), preempt::status_code::unschedulable);
  preempt::evaluator<preempt::model::resource_cluster, Policy> ev({}, std::move(policy));
  const auto& d = ev.evaluate(preemptor, c, groups, statuses, preempt::no_budgets{},
                              preempt::no_nominations{}, preempt::inline_executor{});
  outcome out;
  if (d.kind != preempt::decision_kind::nominated) return out;
  out.node = std::string(d.node_name);
  for (const pod* p : d.victims) out.victims.push_back(p->uid());
  out.candidates = d.candidates.size();
  return out;
}
}  // namespace

TEST_CASE("V5: victim units as v1.38 builds them") {
  const pod preemptor({.uid = 100, .priority = 500, .requests = {300, 0}, .start_time = {}});

  SUBCASE("a pod of a Single group: its own priority, a plain pod") {
    // One node of 300m: pod 1 (priority 10) of a Single group of priority 10000. v1.37 compares
    // it with its group's priority (untouchable); v1.38 with its own (a victim).
    const auto c = cluster_of(300, {{{1, 300, now - 10, 10}}});
    wlf::groups groups;
    const std::size_t g =
        groups.add("single", preempt::workload::group_kind::pod_group, false, 10000);
    groups.link(1, {true, g});
    CHECK(decide_grouped(c, groups, preemptor, at(now)).victims == std::vector<pod_id>{1});
    CHECK(decide_grouped(c, groups, preemptor, preempt::default_policy{now}).node.empty());
  }

  SUBCASE("an All unit takes the own priority of its first member on the node evaluated") {
    // Unit "gang" (All, group priority 10): pod 1 (priority 900) on node-0 and pod 2 (priority
    // 10) on node-1, each filling its node. On node-0 the unit's priority is 900 (no victim), on
    // node-1 it is 10: node-1 is the candidate, and the whole unit goes.
    const auto c = cluster_of(300, {{{1, 300, now - 10, 900}}, {{2, 300, now - 10, 10}}});
    wlf::groups groups;
    const std::size_t g = groups.add("gang", preempt::workload::group_kind::pod_group, true, 10);
    groups.link(1, {true, g});
    groups.link(2, {true, g});
    const outcome v1_38 = decide_grouped(c, groups, preemptor, at(now));
    CHECK(v1_38.node == "node-1");
    CHECK(v1_38.victims == std::vector<pod_id>{1, 2});
    CHECK(v1_38.candidates == 1);
    // v1.37: the unit has its group's priority on both nodes: both are candidates.
    CHECK(decide_grouped(c, groups, preemptor, preempt::default_policy{now}).candidates == 2);
  }

  SUBCASE("equal units: the first pods' UIDs") {
    // Node of 300m with pods listed 3, 1, 2 (100m each, no start time) of no group (another group
    // exists, so the units path decides): v1.38 keeps the smallest UIDs, evicts pod 3.
    const auto c =
        cluster_of(300, {{{3, 100, std::nullopt}, {1, 100, std::nullopt}, {2, 100, std::nullopt}}});
    wlf::groups groups;
    groups.add("elsewhere", preempt::workload::group_kind::pod_group, true, 0);
    const pod small({.uid = 100, .priority = 500, .requests = {100, 0}, .start_time = {}});
    CHECK(decide_grouped(c, groups, small, at(now)).victims == std::vector<pod_id>{3});
    // v1.37: as built, in the listing: pod 2 (built last) goes.
    CHECK(decide_grouped(c, groups, small, preempt::default_policy{now}).victims ==
          std::vector<pod_id>{2});
  }
}

namespace {

// An extender (preempt::candidate_extender): echoes what it gets, or gives a candidate without
// victims `add` as its victim; records the nodes and victim counts it was given.
struct placeholder_extender {
  bool supports = true;
  bool interested = true;
  const pod* add = nullptr;
  std::vector<std::string> seen;  // "node:victims"

  bool supports_preemption() const { return supports; }
  bool is_interested(const pod&) const { return interested; }
  bool is_ignorable() const { return false; }
  preempt::status process_preemption(const pod&, std::span<const preempt::candidate<pod>> in,
                                     std::vector<preempt::candidate<pod>>& out) {
    for (const auto& c : in) {
      seen.push_back(std::string(c.node_name) + ":" + std::to_string(c.victims.size()));
      if (c.victims.empty() && add != nullptr)
        out.push_back({c.node_index, c.node_name, {&add, 1}, 0});
      else
        out.push_back(c);
    }
    return preempt::status::ok();
  }
};
static_assert(preempt::candidate_extender<placeholder_extender, pod>);

struct zero_victims_outcome {
  preempt::decision_kind kind = preempt::decision_kind::error;
  std::string message;
  std::string node;
  std::vector<pod_id> victims;
  std::vector<std::string> diagnosis;  // "node:code"
};

template <class Policy, class Extenders = preempt::no_extenders>
zero_victims_outcome decide_zero(const preempt::model::resource_cluster& c, const pod& preemptor,
                                 Extenders&& extenders = {}) {
  const preempt::filter_statuses statuses(c.size(), preempt::status_code::unschedulable);
  preempt::evaluator<preempt::model::resource_cluster, Policy> ev({}, at(now));
  preempt::attempt first_node;
  first_node.offset = 0;
  const auto& d =
      ev.evaluate(preemptor, c, statuses, preempt::no_budgets{}, preempt::no_nominations{},
                  preempt::inline_executor{}, first_node, std::forward<Extenders>(extenders));
  zero_victims_outcome out{d.kind, std::string(d.message), std::string(d.node_name), {}, {}};
  for (const pod* p : d.victims) out.victims.push_back(p->uid());
  for (const auto& e : d.diagnosis.entries())
    out.diagnosis.push_back(std::string(c[e.node_index].name()) + ":" +
                            std::string(to_string(d.diagnosis.outcomes()[e.outcome].code())));
  return out;
}

}  // namespace

TEST_CASE("V6: a node where the preemptor fits with every victim reprieved") {
  // node-0 has room for the preemptor beside its pod, yet the caller's statuses say
  // Unschedulable (an extender's filter, say); node-1 needs its pod evicted.
  const auto one_node = cluster_of(4000, {{{1, 1000, now - 10}}});
  const auto two_nodes = cluster_of(4000, {{{1, 1000, now - 10}}, {{2, 4000, now - 10}}});
  const pod preemptor({.uid = 100, .priority = 10, .requests = {1000, 0}, .start_time = {}});
  using v137 = preempt::default_policy;
  const auto code_of = [](preempt::status_code k) { return std::string(to_string(k)); };

  SUBCASE("without extenders: v1.37 fails the attempt, v1.38 rejects the node") {
    const auto old = decide_zero<v137>(one_node, preemptor);
    CHECK(old.kind == preempt::decision_kind::error);
    CHECK(old.message == "preemption: expected at least one victim pod on node \"node-0\"");
    const auto now38 = decide_zero<policy_1_38>(one_node, preemptor);
    CHECK(now38.kind == preempt::decision_kind::unschedulable);
    CHECK(now38.message ==
          "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.");
    CHECK(now38.diagnosis ==
          std::vector<std::string>{"node-0:" +
                                   code_of(preempt::status_code::unschedulable_and_unresolvable)});
  }
  SUBCASE("v1.38: a node without victims does not stop another from being chosen") {
    const auto d = decide_zero<policy_1_38>(two_nodes, preemptor);
    CHECK(d.kind == preempt::decision_kind::nominated);
    CHECK(d.node == "node-1");
    CHECK(d.victims == std::vector<pod_id>{2});
    CHECK(decide_zero<v137>(two_nodes, preemptor).node == "node-1");  // errors wait for none
  }
  SUBCASE("v1.38 with an interested extender: a placeholder the extender fills") {
    const pod* victim = &one_node[0].pods()[0];
    placeholder_extender fill;
    fill.add = victim;
    const auto d = decide_zero<policy_1_38>(one_node, preemptor, std::array{&fill});
    CHECK(fill.seen == std::vector<std::string>{"node-0:0"});
    CHECK(d.kind == preempt::decision_kind::nominated);
    CHECK(d.node == "node-0");
    CHECK(d.victims == std::vector<pod_id>{1});
  }
  SUBCASE("v1.38: a placeholder passed through is kept for the next extender, then dropped") {
    placeholder_extender echo;
    const auto passed = decide_zero<policy_1_38>(one_node, preemptor, std::array{&echo});
    CHECK(echo.seen == std::vector<std::string>{"node-0:0"});
    CHECK(passed.kind == preempt::decision_kind::unschedulable);
    CHECK(passed.message.find("no candidate node for preemption") != std::string::npos);

    placeholder_extender first, second;
    second.add = &one_node[0].pods()[0];
    const auto later = decide_zero<policy_1_38>(one_node, preemptor, std::array{&first, &second});
    CHECK(first.seen == std::vector<std::string>{"node-0:0"});
    CHECK(second.seen == std::vector<std::string>{"node-0:0"});
    CHECK(later.kind == preempt::decision_kind::nominated);
    CHECK(later.victims == std::vector<pod_id>{1});

    placeholder_extender both;  // beside a candidate with victims: only the placeholder drops
    const auto mixed = decide_zero<policy_1_38>(two_nodes, preemptor, std::array{&both});
    CHECK(both.seen == std::vector<std::string>{"node-0:0", "node-1:1"});
    CHECK(mixed.node == "node-1");
  }
  SUBCASE("an extender that does not support preemption, or is not interested, makes none") {
    placeholder_extender unsupported, uninterested;
    unsupported.supports = false;
    uninterested.interested = false;
    const auto d =
        decide_zero<policy_1_38>(one_node, preemptor, std::array{&unsupported, &uninterested});
    CHECK(d.kind == preempt::decision_kind::unschedulable);
    CHECK(d.diagnosis ==
          std::vector<std::string>{"node-0:" +
                                   code_of(preempt::status_code::unschedulable_and_unresolvable)});
    CHECK(unsupported.seen.empty());
    CHECK(uninterested.seen.empty());
  }
  SUBCASE("v1.37 with an interested extender: still an error, no extender called") {
    placeholder_extender fill;
    fill.add = &one_node[0].pods()[0];
    const auto d = decide_zero<v137>(one_node, preemptor, std::array{&fill});
    CHECK(d.kind == preempt::decision_kind::error);
    CHECK(fill.seen.empty());
  }
}

}  // namespace policy_1_38_test
