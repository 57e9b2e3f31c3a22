// Victims without a start time (preempt/policy.hpp): kube-scheduler v1.37 builds each potential
// victim once per node's dry run, in the order the node's pods are listed (NodeInfo.Pods), and
// reads a missing status.startTime as time.Now() at that moment (util.GetPodStartTime in
// preemption.NewVictim). Such victims are ordered by construction: after every recorded start
// time, and the one listed earlier counts as started earlier. Until this was modelled, every
// missing start time was one instant (`now`): the pods tied, and on a node with more than 12 of
// them Go's pdqsort left them in an order that chose other victims.
//
//   ST1  one node, 20 pods without a start time of two priorities, listed in an order that is
//        neither uid order nor sorted: the victims are upstream's (each priority in listing
//        order), also through the pod-group path
//   ST2  a recorded start time is always earlier than a missing one
//   ST3  the comparison itself: recorded < missing; missing by build position; a derived policy
//        with its own more_important keeps its order
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/workload_scene.hpp"

namespace start_time_order_test {

namespace {

using pod = preempt::model::resource_pod;
using preempt::model::pod_id;

constexpr preempt::timestamp now = 1'000'000;

// One node of `cpu` millicores holding pods (uid, cpu, start) in the given (listing) order.
struct one_node {
  struct def {
    pod_id uid;
    std::int64_t cpu;
    std::optional<preempt::timestamp> start;
    std::int32_t priority = 0;
  };
  preempt::model::resource_cluster cluster;
  one_node(std::int64_t cpu, const std::vector<def>& pods) {
    cluster.add_node("node-a", {cpu, 1LL << 40, 1000});
    for (const def& d : pods)
      cluster.add_pod(0, pod({.uid = d.uid,
                              .priority = d.priority,
                              .requests = {d.cpu, 0},
                              .start_time = d.start}));
  }
};

std::vector<pod_id> victims_on(const one_node& n, const pod& preemptor) {
  preempt::filter_statuses statuses(1, preempt::status_code::unschedulable);
  preempt::evaluator<preempt::model::resource_cluster> ev({}, preempt::default_policy{now});
  const auto& d = ev.evaluate(preemptor, n.cluster, statuses, preempt::no_budgets{},
                              preempt::no_nominations{}, preempt::inline_executor{});
  std::vector<pod_id> out;
  if (d.kind == preempt::decision_kind::nominated)
    for (const pod* p : d.victims) out.push_back(p->uid());
  return out;
}

// The same through the pod-group path (an unrelated group makes every pod a unit of its own).
std::vector<pod_id> unit_victims_on(const one_node& n, const pod& preemptor) {
  wlf::groups groups;
  groups.add("elsewhere", preempt::workload::group_kind::pod_group, true, 0);
  preempt::filter_statuses statuses(1, preempt::status_code::unschedulable);
  preempt::evaluator<preempt::model::resource_cluster> ev({}, preempt::default_policy{now});
  const auto& d = ev.evaluate(preemptor, n.cluster, groups, statuses, preempt::no_budgets{},
                              preempt::no_nominations{}, preempt::inline_executor{});
  std::vector<pod_id> out;
  if (d.kind == preempt::decision_kind::nominated)
    for (const pod* p : d.victims) out.push_back(p->uid());
  return out;
}

}  // namespace

TEST_CASE("ST1 [ours]: victims without a start time are ordered as the node lists them") {
  // 20 pods without a start time, listed (cache order) with priorities 0, 1, 0, 1, ... and uids
  // 20, 19, ..., 1 (so that uid order is not listing order), of different sizes; the node is full
  // and the preemptor needs a third of it. (With one instant for every missing start time the
  // pods of a priority tie, and Go's pdqsort, partitioning the unsorted list, reorders them.)
  constexpr int n = 20;
  std::vector<one_node::def> defs;
  std::int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    const std::int64_t cpu = 100 + 37 * ((i * 7) % n);
    defs.push_back({static_cast<pod_id>(n - i), cpu, std::nullopt, i % 2});
    total += cpu;
  }
  const one_node node(total, defs);
  const pod preemptor({.uid = 100, .priority = 10, .requests = {total / 3, 0}, .start_time = {}});

  // Upstream: every pod is a potential victim, built in listing order; sorted by priority, then
  // by the moment each was built (its listing position); every one removed, then reprieved most
  // important first while the preemptor still fits.
  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return defs[static_cast<std::size_t>(a)].priority > defs[static_cast<std::size_t>(b)].priority;
  });
  std::vector<pod_id> want;
  std::int64_t used = 0;
  for (int i : order) {
    const auto& d = defs[static_cast<std::size_t>(i)];
    if (used + d.cpu + total / 3 <= total)
      used += d.cpu;
    else
      want.push_back(d.uid);
  }
  REQUIRE(want.size() > 1);
  CHECK(victims_on(node, preemptor) == want);
  CHECK(unit_victims_on(node, preemptor) == want);
}

TEST_CASE("ST2 [ours]: a recorded start time comes before every missing one") {
  // Listed: uid 1 (no start), uid 2 (started at 500), uid 3 (no start); 300m each, node full.
  const one_node n(900, {{1, 300, std::nullopt}, {2, 300, 500}, {3, 300, std::nullopt}});
  const pod preemptor({.uid = 100, .priority = 10, .requests = {300, 0}, .start_time = {}});
  // Importance: uid 2 (recorded), uid 1 (built first), uid 3: uid 3 goes.
  CHECK(victims_on(n, preemptor) == std::vector<pod_id>{3});
  CHECK(unit_victims_on(n, preemptor) == std::vector<pod_id>{3});
}

TEST_CASE("ST3 [ours]: more_important_as_built") {
  const preempt::default_policy policy{now};
  const pod missing_a({.uid = 1, .priority = 0, .requests = {}, .start_time = {}});
  const pod missing_b({.uid = 2, .priority = 0, .requests = {}, .start_time = {}});
  const pod at_now({.uid = 3, .priority = 0, .requests = {}, .start_time = now});
  const pod later({.uid = 4, .priority = 0, .requests = {}, .start_time = now + 1});
  const pod higher({.uid = 5, .priority = 1, .requests = {}, .start_time = {}});
  // Two missing start times: the one built first (listed earlier) is more important.
  CHECK(policy.more_important_as_built(missing_a, 3, missing_b, 7));
  CHECK_FALSE(policy.more_important_as_built(missing_b, 7, missing_a, 3));
  CHECK_FALSE(policy.more_important_as_built(missing_a, 3, missing_a, 3));
  // A start recorded at `now` itself is before a victim built then; one after `now` is not.
  CHECK(policy.more_important_as_built(at_now, 9, missing_a, 0));
  CHECK(policy.more_important_as_built(missing_a, 9, later, 0));
  // Priority first.
  CHECK(policy.more_important_as_built(higher, 9, at_now, 0));
  // Two pods only (no positions): missing start times tie at `now`, as before.
  CHECK_FALSE(policy.more_important(missing_a, missing_b));
  CHECK_FALSE(policy.more_important(missing_b, missing_a));

  // A policy that declares its own order keeps it: victim selection asks it with two pods.
  struct by_uid : preempt::default_policy {
    bool more_important(const pod& a, const pod& b) const { return a.uid() < b.uid(); }
  };
  static_assert(!preempt::detail::orders_as_built<by_uid, pod>());
  static_assert(preempt::detail::orders_as_built<preempt::default_policy, pod>());
}

}  // namespace start_time_order_test
