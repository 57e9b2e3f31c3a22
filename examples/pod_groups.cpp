// Workload-aware preemption (pod groups): whole groups as victims, and a group as the preemptor.
//
//   preempt-pod-groups
//
// For gang and batch schedulers, include/preempt/workload/ reproduces kube-scheduler v1.37's
// workload-aware preemption (KEP-5710, the PodGroupPostFilter of DefaultPreemption). Victims are
// units: a pod, or every pod of a group whose highest ancestor is in `all` disruption mode, across
// nodes, evicted together. Your pod groups are read through the `workload::group_set` concept
// (below: a PodGroup table keyed by pod uid); `workload::no_groups` stands for a cluster without
// them and decides exactly as without workloads.
//
// 1. Single-pod preemption with pod groups as victims (v1.37's SelectVictimsOnNode with
//    GenericWorkload) is the evaluator's overload that takes your group set: the units are built
//    once per decision and each node's dry run evicts whole units.
//
// 2. A PodGroup as the preemptor: `workload::pod_group_evaluator` removes every lower-priority
//    unit, places the group once with your placement callable (upstream places with its filters
//    and scores; here, first fit), then gives back (reprieves) whole units in upstream's order
//    while every placed member still fits, so the number of placed members never goes down.
//    Carry the decision out with `workload::dispatch_group(dispatch, group_as_pod, g, d,
//    &workload_metrics)`, through the same dispatcher as single pods, the in-flight gate keyed by
//    the group (include/preempt/workload/group_dispatch.hpp). Results are deterministic (a total
//    importance order, an injected clock: group_evaluator_config::now).
//
// Upstream's test tables are in tests/workload*.test.cpp. preempt-whatif reads PodGroups,
// CompositePodGroups and pods' spec.schedulingGroup, and `--pod-group NAMESPACE/NAME` decides for
// a pending group (placing it first fit; examples/whatif/README.md).
//
// Prints both decisions; exits 1 unless each is the one the comments in main() describe.
#include <cstdio>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "preempt/preempt.hpp"

namespace {

namespace wl = preempt::workload;
using preempt::model::pod_id;
using preempt::model::resource_pod;

// Your PodGroups: a name, `all` disruption mode or not, a priority; pods linked by uid.
class pod_groups {
 public:
  std::size_t add(std::string name, bool all, std::int32_t priority) {
    groups_.push_back({std::move(name), all, priority});
    return groups_.size() - 1;
  }
  void link(pod_id pod, std::size_t g) { links_[pod] = g; }

  std::size_t group_count() const noexcept { return groups_.size(); }
  wl::group_link group_of(const resource_pod& p) const {
    const auto it = links_.find(p.uid());
    return it == links_.end() ? wl::group_link{} : wl::group_link{true, it->second};
  }
  wl::group_kind kind(std::size_t) const noexcept { return wl::group_kind::pod_group; }
  std::size_t parent(std::size_t) const noexcept { return wl::no_group; }  // no CompositePodGroup
  bool disrupts_all(std::size_t g) const { return groups_[g].all; }
  std::int32_t priority(std::size_t g) const { return groups_[g].priority; }

 private:
  struct group {
    std::string name;
    bool all;
    std::int32_t priority;
  };
  std::vector<group> groups_;
  std::map<pod_id, std::size_t> links_;
};
static_assert(wl::group_set<pod_groups, resource_pod>);

// Your placement of the group on the victim-free cluster: each member on the first node it fits,
// members assumed in place for the next ones, then taken back (the states must be left as found).
struct first_fit {
  template <class S>
  preempt::status operator()(std::span<const resource_pod* const> members,
                             wl::node_states<S>& states, std::span<std::size_t> out) const {
    std::vector<std::size_t> used;
    for (std::size_t k = 0; k < members.size(); ++k) {
      for (std::size_t i = 0; i < states.size(); ++i) {
        if (!states[i].fits(*members[k])) continue;
        (void)states[i].add_pod(*members[k]);
        out[k] = i;
        used.push_back(i);
        break;
      }
    }
    for (std::size_t k = used.size(); k-- > 0;) (void)states[used[k]].remove_pod(*members[k]);
    return used.size() == members.size() ? preempt::status::ok()
                                         : preempt::status(preempt::status_code::unschedulable);
  }
};

constexpr std::int32_t low = 10, mid = 100, high = 1000;

struct scene {
  preempt::model::resource_cluster cluster;
  pod_groups groups;
  std::map<pod_id, std::string> names;
  pod_id next = 1;

  void add(std::size_t node, std::string name, std::int32_t priority,
           std::size_t group = wl::no_group) {
    if (group != wl::no_group) groups.link(next, group);
    names[next] = std::move(name);
    cluster.add_pod(
        node, resource_pod(
                  {.uid = next++, .priority = priority, .requests = {0, 0, 1}, .start_time = 0}));
  }
  std::set<std::string> named(std::span<const resource_pod* const> pods) const {
    std::set<std::string> out;
    for (const resource_pod* p : pods) out.insert(names.at(p->uid()));
    return out;
  }
};

void print(const char* what, const std::set<std::string>& pods) {
  std::printf("%s", what);
  for (const auto& p : pods) std::printf(" %s", p.c_str());
  std::printf("\n");
}

}  // namespace

int main() {
  // Two nodes of two pod slots, both full. The PodGroup "gang" (`all` mode, priority low) has a
  // pod on each node; n1 also runs "m1" (priority mid), n2 "p2" (low, no group).
  scene s;
  const auto n1 = s.cluster.add_node("n1", {1'000'000, 1LL << 40, 2});
  const auto n2 = s.cluster.add_node("n2", {1'000'000, 1LL << 40, 2});
  const auto gang = s.groups.add("gang", /*all=*/true, low);
  s.add(n1, "g1", low, gang);
  s.add(n1, "m1", mid);
  s.add(n2, "g2", low, gang);
  s.add(n2, "p2", low);
  const preempt::filter_statuses statuses(s.cluster.size(), preempt::status_code::unschedulable);
  preempt::nomination_ledger<resource_pod> ledger(s.cluster.size());
  bool ok = true;

  // 1. One pod of priority high needs a slot. On n1, evicting g1 takes g2 on n2 with it (the gang
  //    goes whole): 2 victims; on n2, p2 alone (a plain pod is less important than a group member
  //    of equal priority): n2 wins on fewer victims.
  const resource_pod pod({.uid = 5000, .priority = high, .requests = {0, 0, 1}, .start_time = {}});
  preempt::evaluator<preempt::model::resource_cluster> ev;
  const auto& d = ev.evaluate(pod, s.cluster, s.groups, statuses, preempt::no_budgets{},
                              ledger.reader(), preempt::inline_executor{},
                              preempt::attempt{.offset = 0, .nominated_node = std::nullopt});
  std::printf("pod: nominated to %s;", std::string(d.node_name).c_str());
  print(" evict", s.named(d.victims));
  for (const auto& c : d.candidates)
    if (c.node_name == "n1") print("     the n1 candidate would evict", s.named(c.victims));
  ok = ok && d.kind == preempt::decision_kind::nominated && d.node_name == "n2" &&
       s.named(d.victims) == std::set<std::string>{"p2"};

  // 2. A PodGroup of two members (priority high) is pending. Every lower unit is removed, the
  //    group placed first fit (both members on n1), then units are reprieved in upstream's order
  //    while the members still fit: m1 cannot come back (n1 is full with the members), nor can
  //    the gang (its g1 is on n1); p2 can. Victims: m1 and the whole gang, g2 on n2 included.
  const resource_pod m0({.uid = 6000, .priority = high, .requests = {0, 0, 1}, .start_time = {}});
  const resource_pod m1({.uid = 6001, .priority = high, .requests = {0, 0, 1}, .start_time = {}});
  const resource_pod* members[] = {&m0, &m1};
  wl::group_preemptor<resource_pod> g;  // its members unscheduled, in placement order
  g.priority = high;
  g.members = members;
  wl::pod_group_evaluator<preempt::model::resource_cluster> group_evaluator({.now = 0});
  const auto& gd = group_evaluator.evaluate(g, s.cluster, s.groups, preempt::no_budgets{},
                                            ledger.reader(), first_fit{});
  std::printf("group: %zu members placed on", gd.nominations.size());
  for (const auto& n : gd.nominations)
    std::printf(" %s", std::string(preempt::name_of(s.cluster[n.node])).c_str());
  std::printf(";");
  print(" evict", s.named(gd.victims));
  ok = ok && gd.kind == wl::group_decision_kind::preempt && gd.nominations.size() == 2 &&
       s.named(gd.victims) == std::set<std::string>{"g1", "g2", "m1"};

  if (!ok) std::printf("pod-groups: FAILED: not the decisions described\n");
  return ok ? 0 : 1;
}
