// tests/support/workload_scene.hpp - clusters with pod groups for the workload-aware preemption
// tests, in the shape of upstream's podgrouppreemption_test.go:
//
//   wlf::groups          models preempt::workload::group_set over model::resource_pod: groups by
//                        name (PodGroup or CompositePodGroup, `all` or not, priority, parent), pods
//                        linked by uid (a pod may name a group that does not exist)
//   wlf::scene           nodes with a capacity in slots (upstream's mock Filter plugin: a running
//                        pod's size is its pod-slot request, default 1; the model's pod-count
//                        check gives a pod being placed one slot), pods by name, groups, budgets
//                        ("app=foo" budgets with their allowed disruptions), the preemptor group
//   wlf::round_robin     upstream's mock scheduling function: members in order, round-robin over
//                        the nodes from node 0, the next member starting after the last node used;
//                        success iff at least min_count placed
//   wlf::fixed_placement a placement given member by member
#ifndef PREEMPT_TESTS_SUPPORT_WORKLOAD_SCENE_HPP
#define PREEMPT_TESTS_SUPPORT_WORKLOAD_SCENE_HPP

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "preempt/model/budget_table.hpp"
#include "preempt/model/resource_cluster.hpp"
#include "preempt/model/resource_pod.hpp"
#include "preempt/workload/group_preemptor.hpp"
#include "preempt/workload/group_set.hpp"
#include "preempt/workload/placement.hpp"

namespace wlf {

using pod = preempt::model::resource_pod;
using uid = preempt::model::pod_id;
using preempt::workload::group_kind;
using preempt::workload::group_link;
using preempt::workload::no_group;
using preempt::workload::no_node;

inline constexpr std::int32_t low = 10, mid = 100, high = 1000;

class groups {
 public:
  struct entry {
    std::string name;
    group_kind kind = group_kind::pod_group;
    bool all = false;
    std::int32_t priority = 0;
    std::size_t parent = no_group;
  };

  std::size_t add(std::string name, group_kind kind, bool all, std::int32_t priority) {
    entries_.push_back({std::move(name), kind, all, priority, no_group});
    return entries_.size() - 1;
  }
  void set_parent(std::size_t g, std::size_t parent) { entries_[g].parent = parent; }
  std::size_t find(const std::string& name) const {
    for (std::size_t g = 0; g < entries_.size(); ++g)
      if (entries_[g].name == name) return g;
    return no_group;
  }
  void link(uid u, group_link l) { links_[u] = l; }
  // Hide every parent (the CompositePodGroup feature off).
  bool composite_enabled = true;

  std::size_t group_count() const noexcept { return entries_.size(); }
  group_link group_of(const pod& p) const {
    const auto it = links_.find(p.uid());
    return it == links_.end() ? group_link{} : it->second;
  }
  group_kind kind(std::size_t g) const { return entries_[g].kind; }
  std::size_t parent(std::size_t g) const {
    return composite_enabled ? entries_[g].parent : no_group;
  }
  bool disrupts_all(std::size_t g) const { return entries_[g].all; }
  std::int32_t priority(std::size_t g) const { return entries_[g].priority; }

 private:
  std::vector<entry> entries_;
  std::map<uid, group_link> links_;
};

static_assert(preempt::workload::group_set<groups, pod>);

struct pod_def {
  std::string name = {};
  std::string node = {};
  std::int32_t priority = low;
  std::string group = {};  // "" = none; a name not added = a group that does not exist
  std::int64_t size = 1;
  std::optional<preempt::timestamp> start = std::nullopt;
  bool terminating = false;  // terminating because a scheduler preempted it
  bool foo = false;          // label app=foo
};

class scene {
 public:
  void node(const std::string& name, std::int64_t capacity) {
    cluster.add_node(name, {1'000'000, 1LL << 40, capacity});
  }
  std::size_t group(const std::string& name, bool all, std::int32_t priority,
                    group_kind kind = group_kind::pod_group, const std::string& parent = "") {
    const std::size_t g = grps.add(name, kind, all, priority);
    if (!parent.empty()) grps.set_parent(g, grps.find(parent));
    return g;
  }
  void add(const pod_def& d) {
    const uid u = next_++;
    names[u] = d.name;
    ids[d.name] = u;
    if (d.foo) foo_.push_back(u);
    if (!d.group.empty()) grps.link(u, group_link{true, grps.find(d.group)});
    cluster.add_pod(cluster.find(d.node), pod({.uid = u,
                                               .priority = d.priority,
                                               .requests = {0, 0, d.size},
                                               .start_time = d.start,
                                               .terminating = d.terminating,
                                               .terminating_by_preemption = d.terminating}));
  }
  // A budget over the pods labelled app=foo.
  void pdb_foo(std::int32_t allowed) {
    const std::size_t b = budgets.add_budget(0, allowed);
    for (uid u : foo_) budgets.add_member(b, u);
  }
  // A member of the preemptor group (priority is the group's; policy per pod).
  void member(
      const std::string& name, std::size_t nominated = no_node,
      preempt::preemption_policy policy = preempt::preemption_policy::preempt_lower_priority,
      std::int64_t size = 1) {
    const uid u = 1000 + next_++;
    names[u] = name;
    ids[name] = u;
    members_.push_back(pod({.uid = u,
                            .priority = group_priority,
                            .requests = {0, 0, size},
                            .start_time = std::nullopt,
                            .preemption_policy = policy}));
    nominated_.push_back(nominated);
    pointers_.clear();
    for (const pod& m : members_) pointers_.push_back(&m);
  }

  // The preemptor group (resolve the policy with the PodGroupPreemptionPolicy feature on).
  preempt::workload::group_preemptor<pod> preemptor(
      std::optional<preempt::preemption_policy> group_policy = std::nullopt,
      bool group_policy_enabled = true) const {
    preempt::workload::group_preemptor<pod> g;
    g.priority = group_priority;
    g.members = pointers_;
    g.nominated_nodes = nominated_;
    g.policy =
        preempt::workload::resolve_preemption_policy(group_policy, g.members, group_policy_enabled);
    return g;
  }
  // The pod that stands for the preemptor group in the dispatcher.
  pod group_pod() const {
    return pod({.uid = 999'999, .priority = group_priority, .requests = {}, .start_time = {}});
  }

  std::set<std::string> named(std::span<const pod* const> pods) const {
    std::set<std::string> out;
    for (const pod* p : pods) out.insert(names.at(p->uid()));
    return out;
  }
  std::set<std::string> named(const std::vector<uid>& uids) const {
    std::set<std::string> out;
    for (uid u : uids) out.insert(names.at(u));
    return out;
  }
  const pod& member_pod(std::size_t i) const { return members_[i]; }

  preempt::model::resource_cluster cluster;
  groups grps;
  preempt::model::budget_table budgets;
  std::map<uid, std::string> names;
  std::map<std::string, uid> ids;
  std::int32_t group_priority = high;

 private:
  uid next_ = 1;
  std::vector<uid> foo_;
  std::deque<pod> members_;
  std::vector<const pod*> pointers_;
  std::vector<std::size_t> nominated_;
};

// upstream's mock scheduling function.
struct round_robin {
  std::size_t min_count = 1;

  template <class S>
  preempt::status operator()(std::span<const pod* const> members,
                             preempt::workload::node_states<S>& states,
                             std::span<std::size_t> out) const {
    const std::size_t n = states.size();
    std::size_t next = 0, placed = 0;
    std::vector<std::pair<std::size_t, const pod*>> assumed;
    for (std::size_t k = 0; k < members.size(); ++k) {
      for (std::size_t step = 0; step < n; ++step) {
        const std::size_t i = (next + step) % n;
        if (!states[i].fits(*members[k])) continue;
        out[k] = i;
        (void)states[i].add_pod(*members[k]);
        assumed.emplace_back(i, members[k]);
        next = (i + 1) % n;
        ++placed;
        break;
      }
    }
    for (auto it = assumed.rbegin(); it != assumed.rend(); ++it)
      (void)states[it->first].remove_pod(*it->second);
    return placed >= min_count ? preempt::status::ok()
                               : preempt::status(preempt::status_code::unschedulable);
  }
};

// A placement given in advance (node per member; no_node = not placed), with a fixed answer.
struct fixed_placement {
  std::vector<std::size_t> nodes;
  preempt::status answer = preempt::status::ok();

  template <class S>
  preempt::status operator()(std::span<const pod* const>, preempt::workload::node_states<S>&,
                             std::span<std::size_t> out) const {
    for (std::size_t k = 0; k < out.size() && k < nodes.size(); ++k) out[k] = nodes[k];
    return answer;
  }
};

}  // namespace wlf

#endif  // PREEMPT_TESTS_SUPPORT_WORKLOAD_SCENE_HPP
