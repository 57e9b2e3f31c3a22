// examples/whatif/analysis/group_decision.cpp - the decision for a pending pod group
// (analysis::decide_group, --pod-group): the group's own cycle first, then workload-aware
// preemption; see analysis.hpp and model.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/group_placement.hpp"
#include "analysis/model.hpp"
#include "analysis/queue_entry.hpp"
#include "analysis/unmodelled.hpp"

namespace whatif {

namespace {

// The order of kube-scheduler's snapshot node list (the cache's nodeTree): nodes grouped by zone
// key (GetZoneKey: region and zone, the failure-domain.beta labels before the topology ones),
// zones in the order their first node was added (the dump's order), then one node of each zone
// in turn. The pod-group evaluator builds its victim units in this order.
std::vector<std::size_t> snapshot_node_order(const cluster_dump& dump) {
  const auto label = [](const k8s::label_set& labels, std::string_view beta, std::string_view ga) {
    if (const std::string* v = labels.find(beta)) return *v;
    if (const std::string* v = labels.find(ga)) return *v;
    return std::string();
  };
  std::vector<std::string> zone_keys;
  std::vector<std::vector<std::size_t>> zones;
  for (std::size_t i = 0; i < dump.nodes.size(); ++i) {
    const k8s::label_set& l = dump.nodes[i].labels;
    const std::string zone =
        label(l, "failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone");
    const std::string region =
        label(l, "failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region");
    const std::string key =
        region.empty() && zone.empty() ? std::string() : region + ":" + '\0' + ":" + zone;
    const auto at = std::find(zone_keys.begin(), zone_keys.end(), key);
    if (at == zone_keys.end()) {
      zone_keys.push_back(key);
      zones.push_back({i});
    } else {
      zones[static_cast<std::size_t>(at - zone_keys.begin())].push_back(i);
    }
  }
  std::vector<std::size_t> order;
  order.reserve(dump.nodes.size());
  for (std::size_t k = 0; order.size() < dump.nodes.size(); ++k)
    for (const std::vector<std::size_t>& z : zones)
      if (k < z.size()) order.push_back(z[k]);
  return order;
}

// The pods nominated to a node, as the group's placement reads them.
struct ledger_nominations {
  const preempt::nomination_ledger<pod, preempt::null_mutex>* ledger;
  std::span<const pod* const> operator()(std::size_t node) const {
    return ledger->nominated_to_unlocked(node);
  }
};
using group_cluster = group::recording_cluster<preempt::model::resource_cluster>;
using group_placement = group::first_fit_placement<preempt::model::resource_cluster, pod_facts_of,
                                                   node_facts_of, ledger_nominations>;

}  // namespace

// kube-scheduler's validatePodGroup (schedule_one_podgroup.go), before the cycle: the queued
// pods of the group's hierarchy (its pending pods of this scheduler, deleting ones included,
// in input order), then its scheduled ones, have one scheduler name, the root group's
// priority and, with PodGroupPreemptionPolicy off (v1.37's default), one preemption policy.
// The message is upstream's, for the first pod that differs. v1.38 (validatePodGroupHierarchy)
// checks the hierarchy's groups first, each with the root's priority, and the pods against one
// preemption policy: the root group's spec.preemptionPolicy when set, else the first queued
// pod's; its messages name the pods and groups.
std::optional<preempt::preemption_policy> analysis::model::group_preemption_policy(
    std::size_t g) const {
  const group_object& o = dump->groups[g];
  if (profile == preempt::upstream_profile::kubernetes_1_38 && !o.priority.priority)
    if (auto r = k8s::resolve_priority(o.priority, dump->classes)) return r->policy;
  return o.priority.policy;
}

std::optional<std::string> analysis::model::group_validation_error(std::size_t top) const {
  const auto in_hierarchy = [&](std::size_t group) {
    for (std::size_t depth = 0; depth < wl::max_tree_depth && group != wl::no_group;
         ++depth, group = groups.parent(group))
      if (group == top) return true;
    return false;
  };
  const auto policy_name = [](preempt::preemption_policy p) {
    return std::string(p == preempt::preemption_policy::never ? "Never" : "PreemptLowerPriority");
  };
  const std::int32_t group_priority = groups.priority(top);
  const bool v1_38 = profile == preempt::upstream_profile::kubernetes_1_38;
  // Upstream's EntityKey as %q prints it: "podgroup/NAMESPACE/NAME".
  const auto entity_key = [&](std::size_t h) {
    const group_object& o = dump->groups[h];
    return "\"" +
           std::string(o.kind == group_object::kind_type::pod_group ? "podgroup"
                                                                    : "compositepodgroup") +
           "/" + o.ns + "/" + o.name + "\"";
  };
  // v1.38 (kubernetes#141930) checks the hierarchy's groups too: each has the root's priority.
  if (v1_38)
    for (std::size_t h = 0; h < groups.group_count(); ++h)
      if (h != top && in_hierarchy(h) && groups.priority(h) != group_priority)
        return "all pod groups in a hierarchy should have the same priority as the root pod "
               "group's priority, got " +
               std::to_string(groups.priority(h)) + " (" + entity_key(h) + ") and " +
               std::to_string(group_priority) + " (" + entity_key(top) + ")";
  std::string first_scheduler, first_name;
  std::optional<preempt::preemption_policy> first_policy;
  if (v1_38) first_policy = group_preemption_policy(top);
  const auto check = [&](const pod_object& o, std::int32_t priority,
                         preempt::preemption_policy policy) -> std::optional<std::string> {
    const std::string scheduler =
        o.scheduler_name.empty() ? std::string(default_scheduler_name) : o.scheduler_name;
    if (first_scheduler.empty()) {
      first_scheduler = scheduler;
      first_name = o.name;
    }
    if (!first_policy) first_policy = policy;
    if (v1_38) {
      if (scheduler != first_scheduler)
        return "all pods in a pod group hierarchy should have the same .spec.schedulerName set, "
               "got: \"" +
               scheduler + "\" (\"" + o.name + "\") and \"" + first_scheduler + "\" (\"" +
               first_name + "\")";
      if (priority != group_priority)
        return "all pods in a pod group hierarchy should have the same priority as the root pod "
               "group's priority, got " +
               std::to_string(priority) + " (\"" + o.name + "\") and " +
               std::to_string(group_priority) + " (" + entity_key(top) + ")";
      if (policy != *first_policy)
        return "all pods in a pod group hierarchy should have the same preemption policy, got " +
               policy_name(policy) + " (\"" + o.name + "\") and " + policy_name(*first_policy);
      return std::nullopt;
    }
    if (scheduler != first_scheduler)
      return "all pods in a single pod group should have the same .spec.schedulerName set, "
             "got: \"" +
             scheduler + "\" and \"" + first_scheduler + "\"";
    if (priority != group_priority)
      return "all pods in a single pod group should have the same priority as the pod group's "
             "priority, got " +
             std::to_string(priority) + " and " + std::to_string(group_priority);
    if (policy != *first_policy)
      return "all pods in a single pod group should have the same preemption policy, got " +
             policy_name(policy) + " and " + policy_name(*first_policy);
    return std::nullopt;
  };
  for (const pod& p : pending) {
    const wl::group_link link = groups.links[p.uid() - 1];
    if (!link.member || !in_hierarchy(link.group)) continue;
    if (auto e = check(dump->pods[p.uid() - 1], p.priority(), p.preemption_policy())) return e;
  }
  for (std::size_t i = 0; i < dump->pods.size(); ++i) {
    if (bound_node[i] == not_bound || !groups.links[i].member ||
        !in_hierarchy(groups.links[i].group))
      continue;
    resolved_pod r;
    if (resolve(*dump, dump->pods[i], dump->pods[i].key(), r)) continue;  // rejected at load
    if (auto e = check(dump->pods[i], r.priority, r.policy)) return e;
  }
  return std::nullopt;
}

std::optional<load_error> analysis::decide_group(const std::string& key, const options& opts,
                                                 group_report& out) const {
  return model_->decide_group(key, opts, out);
}

std::optional<load_error> analysis::model::decide_group(const std::string& key, const options& opts,
                                                        group_report& out) const {
  out = group_report{};
  out.group = key;
  if (opts.profile == preempt::upstream_profile::kubernetes_1_38)
    out.placement = group_placement_method_1_38;
  out.warnings = warnings;
  for (const std::string& w : dump->input_refusals) out.refuse(w);
  const std::size_t slash = key.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == key.size())
    return load_error{"--pod-group " + key + ": expected NAMESPACE/NAME"};
  const std::string ns = key.substr(0, slash), name = key.substr(slash + 1);
  const std::size_t g = find_group(group_object::kind_type::pod_group, ns, name);
  if (g == wl::no_group)
    return load_error{"--pod-group " + key + ": no such PodGroup in the cluster dump"};
  const group_object& object = dump->groups[g];

  // The preemptor: the pending members in input order; already scheduled members stay.
  std::vector<const pod*> member_pods;
  std::vector<std::size_t> nominated;
  for (const pod& p : pending) {
    const pod_object& o = dump->pods[p.uid() - 1];
    if (!o.pod_group || *o.pod_group != name || o.ns != ns) continue;
    member_pods.push_back(&p);
    const auto it = node_index.find(o.nominated_node_name);
    nominated.push_back(it == node_index.end() ? wl::no_node : it->second);
  }
  for (std::size_t i = 0; i < dump->pods.size(); ++i)
    if (bound_node[i] != not_bound && groups.links[i].group == g) ++out.scheduled_members;

  // Its priority: the group's, or with a CompositePodGroup hierarchy the root's.
  std::size_t top = g;
  for (std::size_t depth = 1, up = groups.parent(g);
       depth < wl::max_tree_depth && up != wl::no_group; ++depth, up = groups.parent(up))
    top = up;

  if (member_pods.empty())
    return load_error{
        "--pod-group " + key +
        ": the PodGroup has no pending member pod (spec.schedulingGroup.podGroupName " + name +
        ", no spec.nodeName)"};

  // A hierarchy is scheduled as one unit (its readiness, placement and preemption), and a
  // topology constraint places the group by topology domain: neither is modelled.
  if (top != g)
    out.refuse("PodGroup " + key + ": spec.parentCompositePodGroupName: the PodGroup belongs to " +
               group_labels[top] +
               ", and kube-scheduler schedules the whole hierarchy as one unit (not modelled); "
               "decided for this PodGroup's pending members alone, with the root's priority");
  if (object.topology)
    out.refuse("PodGroup " + key +
               ": spec.schedulingConstraints.topology: topology-aware placement is not modelled "
               "(decided without it)");
  wl::group_preemptor<pod> preemptor;
  preemptor.priority = groups.priority(top);
  preemptor.kind = wl::unit_kind::pod_group;
  preemptor.members = std::span<const pod* const>(member_pods);
  preemptor.nominated_nodes = std::span<const std::size_t>(nominated);
  // PodGroupPreemptionPolicy is alpha and off by default in v1.37: kube-scheduler then ignores
  // the group's spec.preemptionPolicy and the members' policies decide. The API server stores
  // the field only with that gate on, so a group carrying it comes from a cluster whose gates the
  // tool cannot know: where the field would decide otherwise, the decision is refused.
  // v1.38 reads the group's spec.preemptionPolicy whenever it is set (the gate is gone), else
  // the members' (getPreemptionPolicy).
  const bool v1_38 = opts.profile == preempt::upstream_profile::kubernetes_1_38;
  preemptor.policy =
      wl::resolve_preemption_policy(object.priority.policy, preemptor.members, false);
  if (const auto policy = group_preemption_policy(g); v1_38 && policy) preemptor.policy = *policy;
  if (!v1_38 && object.priority.policy &&
      wl::resolve_preemption_policy(object.priority.policy, preemptor.members, true) !=
          preemptor.policy)
    out.refuse("PodGroup " + key + ": spec.preemptionPolicy " +
               (*object.priority.policy == preempt::preemption_policy::never
                    ? "Never"
                    : "PreemptLowerPriority") +
               " decides otherwise than its members' with the PodGroupPreemptionPolicy feature "
               "gate on (alpha, off by default in v1.37, where kube-scheduler ignores the field; "
               "the API server stores it only with the gate on): decided with the default gates");
  out.priority = preemptor.priority;
  out.policy =
      preemptor.policy == preempt::preemption_policy::never ? "Never" : "PreemptLowerPriority";
  std::size_t needed = 1;
  if (object.gang) {
    out.scheduling = "gang, minCount " + std::to_string(object.min_count);
    const std::size_t min_count =
        object.min_count > 0 ? static_cast<std::size_t>(object.min_count) : 0;
    needed = min_count > out.scheduled_members ? min_count - out.scheduled_members : 1;
  } else {
    out.scheduling = "basic";
  }

  // The queue's PreEnqueue plugins, in the profile's order: SchedulingGates holds a member with
  // gates; GangScheduling every pod of a gang until the group has minCount pods (pending of this
  // scheduler, gated and deleting ones included, or bound). With no member let in, no cycle runs
  // and the members keep their nominations; with some held back by gates only, the cycle of the
  // others is not modelled.
  const bool gang_short = object.gang && member_pods.size() + out.scheduled_members <
                                             static_cast<std::size_t>(object.min_count);
  const auto has_gates = [&](const pod* p) {
    return !dump->pods[p->uid() - 1].scheduling_gates.empty();
  };
  const std::size_t with_gates =
      static_cast<std::size_t>(std::count_if(member_pods.begin(), member_pods.end(), has_gates));
  if (with_gates > 0 && with_gates < member_pods.size() && !gang_short)
    for (const pod* p : member_pods)
      if (has_gates(p))
        out.refuse("Pod " + pod_name(p) +
                   ": spec.schedulingGates: a gated member stays out of the queue; the group's "
                   "cycle with gated members is not modelled");
  if (gang_short || with_gates == member_pods.size()) {
    out.result = result_kind::gated;
    // The first member's first plugin that holds it: SchedulingGates, DynamicResources (a claim
    // missing, not created yet or being deleted), then GangScheduling.
    const pod_object& first = dump->pods[member_pods.front()->uid() - 1];
    // v1.38's GangScheduling names the root group (its EntityKey): "podgroup/NAMESPACE/NAME".
    const group_object& root = dump->groups[top];
    out.message = opts.profile == preempt::upstream_profile::kubernetes_1_38
                      ? "waiting for " +
                            std::string(root.kind == group_object::kind_type::pod_group
                                            ? "podgroup/"
                                            : "compositepodgroup/") +
                            root.ns + "/" + root.name + " to meet its quorum"
                      : "waiting for minCount pods from a gang to appear in scheduling queue";
    if (!first.scheduling_gates.empty()) {
      out.message = scheduling_gates_message(first);
    } else if (!first.resource_claims.empty()) {
      std::vector<std::string> refusals;
      dra_decision claims(*dump, devices);
      claims.prefilter(first, refusals);
      for (std::string& r : refusals) out.refuse(std::move(r));
      if (claims.held_in_queue()) out.message = *claims.rejection();
    }
    for (std::size_t k = 0; k < member_pods.size(); ++k)
      out.members.emplace_back(pod_name(member_pods[k]), nominated[k] == wl::no_node
                                                             ? std::string()
                                                             : dump->nodes[nominated[k]].name);
    return std::nullopt;
  }
  // Past the queue (DynamicResources' PreEnqueue may hold a member, its filter decides where).
  for (const pod* p : member_pods)
    if (const pod_object& o = dump->pods[p->uid() - 1]; !o.resource_claims.empty())
      out.refuse(
          "Pod " + o.key() +
          ": spec.resourceClaims: dynamic resource claims are not modelled (kube-scheduler's "
          "DynamicResources filter keeps only the nodes where the claims can be allocated)");
  if (std::optional<std::string> invalid = group_validation_error(top)) {
    // kube-scheduler fails the cycle before scheduling (handlePodGroupFailureBeforeScheduling):
    // the PodGroup's condition gets the message, the members' nominations are cleared.
    out.result = result_kind::error;
    out.message = std::move(*invalid);
    for (const pod* p : member_pods) out.members.emplace_back(pod_name(p), std::string());
    return std::nullopt;
  }
  // skipPodGroupPodSchedule: a member being deleted leaves the cycle (it stays in the queue).
  std::vector<const pod*> deleting;
  for (std::size_t k = 0; k < member_pods.size();)
    if (dump->pods[member_pods[k]->uid() - 1].deleting) {
      deleting.push_back(member_pods[k]);
      member_pods.erase(member_pods.begin() + static_cast<std::ptrdiff_t>(k));
      nominated.erase(nominated.begin() + static_cast<std::ptrdiff_t>(k));
    } else {
      ++k;
    }
  out.deleting_members = deleting.size();
  if (member_pods.empty()) {
    out.result = result_kind::deleting;
    for (const pod* p : deleting) out.members.emplace_back(pod_name(p), std::string());
    out.message =
        "every pending member is being deleted (metadata.deletionTimestamp): kube-"
        "scheduler skips them (skipPodGroupPodSchedule) and runs no cycle for the group";
    return std::nullopt;
  }
  preemptor.members = std::span<const pod* const>(member_pods);
  preemptor.nominated_nodes = std::span<const std::size_t>(nominated);

  for (const pod* p : member_pods)
    refuse_volumes(dump->pods[p->uid() - 1],
                   [&](std::string what) { out.refuse(std::move(what)); });

  // Each member as the placement's filters read it: its node filters per node, and what
  // NodePorts, PodTopologySpread, InterPodAffinity and NodeDeclaredFeatures read of it.
  const std::size_t n_nodes = dump->nodes.size();
  std::vector<group::placing_member> placing(member_pods.size());
  for (std::size_t k = 0; k < member_pods.size(); ++k) {
    const pod_object& o = dump->pods[member_pods[k]->uid() - 1];
    placing[k].pod =
        k8s::placing_pod{k8s::pod_facts{o.ns, &o.labels, o.deleting, o.anti_affinity_terms},
                         o.host_ports,
                         o.affinity_terms,
                         o.anti_affinity_terms,
                         o.spread,
                         &o.placement,
                         o.required_features};
    placing[k].allowed.assign(n_nodes, 0);
    for (std::size_t i = 0; i < n_nodes; ++i) {
      const node_object& n = dump->nodes[i];
      placing[k].allowed[i] =
          k8s::filter_node(o.placement,
                           k8s::node_facts{n.name, &n.labels, n.taints, n.unschedulable})
              .passed();
    }
  }
  group_placement place(cluster, pod_facts_of{&pod_facts}, node_facts_of{&node_facts},
                        namespace_facts, ledger_nominations{&ledger}, placing, needed);
  const auto show = [&](std::span<const std::size_t> nodes) {
    out.members.clear();
    for (std::size_t k = 0; k < member_pods.size(); ++k)
      out.members.emplace_back(pod_name(member_pods[k]), nodes[k] == wl::no_node
                                                             ? std::string()
                                                             : dump->nodes[nodes[k]].name);
  };

  // First the pod-group cycle itself: if the group fits as the cluster is, no preemption runs.
  const group_cluster recorded(cluster);
  {
    std::vector<group_cluster::state_type> states;
    states.reserve(n_nodes);
    for (std::size_t i = 0; i < n_nodes; ++i) {
      states.push_back(recorded.make_state());
      recorded.prepare_state(i, states.back());
    }
    wl::node_states<group_cluster::state_type> view{std::span(states)};
    std::vector<std::size_t> where(member_pods.size(), wl::no_node);
    if (place(preemptor.members, view, std::span<std::size_t>(where)).is_success()) {
      out.result = result_kind::fits;
      show(where);
      return std::nullopt;
    }
  }

  // v1.38 orders equal victim units by their first pods' UIDs and places the members in
  // RankNodes' order (the placement takes the evaluator's ranking).
  wl::pod_group_evaluator<group_cluster> ev(
      wl::group_evaluator_config{.now = opts.now, .profile = opts.profile});
  const auto reader = ledger.reader();
  const std::vector<std::size_t> scan_order = snapshot_node_order(*dump);
  const pod_object* unknown_uid = nullptr;
  const auto& d = ev.evaluate(preemptor, recorded, groups, budgets, reader, place,
                              std::span<const std::size_t>(scan_order),
                              metadata_uid_less{&dump->pods, &unknown_uid});
  if (unknown_uid != nullptr)
    out.refuse("Pod " + unknown_uid->key() +
               ": metadata.uid: missing, and v1.38 orders equally important victims by UID (the "
               "API server assigns a random one at creation)");
  out.message = std::string(d.outcome.reason());
  if (!out.message.empty())
    out.message = std::string(wl::pod_group_preemption_prefix) + out.message;
  std::vector<std::size_t> where(member_pods.size(), wl::no_node);
  for (const wl::member_nomination& nm : d.nominations) where[nm.member] = nm.node;
  show(where);
  switch (d.kind) {
    case wl::group_decision_kind::preempt: out.result = result_kind::nominated; break;
    case wl::group_decision_kind::ongoing: out.result = result_kind::ongoing; break;
    case wl::group_decision_kind::not_eligible: out.result = result_kind::not_eligible; break;
    case wl::group_decision_kind::unschedulable: out.result = result_kind::unschedulable; break;
    case wl::group_decision_kind::error: out.result = result_kind::error; break;
  }
  for (const pod* p : d.victims) out.victims.push_back(victim(p));
  // Why each victim beyond resources: the conditions of each member nominated to the victim's
  // node that the victim's presence triggers, from the cluster as the dump has it (the other
  // members and the nominated pods not considered); a victim on a node no member goes to is
  // evicted with its group's unit and triggers none.
  std::vector<std::size_t> here;  // the victims on the member's node
  for (const wl::member_nomination& nm : d.nominations) {
    here.clear();
    for (std::size_t i = 0; i < d.victims.size(); ++i)
      if (bound_node[d.victims[i]->uid() - 1] == nm.node) here.push_back(i);
    if (here.empty()) continue;  // no victim there: no PreFilter to run for this member
    cluster_view view(cluster, pod_facts_of{&pod_facts}, node_facts_of{&node_facts});
    view.prefilter(placing[nm.member].pod, namespace_facts);
    cluster_view::state_type state = view.make_state();
    view.prepare_state(nm.node, state);
    for (const std::size_t i : here) {
      std::vector<victim_condition_info>& seen = out.victims[i].conditions;
      state.for_each_victim_condition(*d.victims[i], [&](const k8s::victim_condition& c) {
        victim_condition_info info = describe_condition(c);
        if (std::none_of(seen.begin(), seen.end(), [&](const victim_condition_info& x) {
              return x.condition == info.condition && x.detail == info.detail;
            }))
          seen.push_back(std::move(info));
      });
    }
  }
  out.pdb_violations = d.pdb_violations;
  out.pod_group_disruptions = d.pod_group_disruptions;
  return std::nullopt;
}

}  // namespace whatif
