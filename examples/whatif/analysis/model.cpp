// examples/whatif/analysis/model.cpp - building the model of a dump (analysis::build) and the
// changes --plan applies to it; see analysis.hpp and model.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "analysis/model.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "output/one_line.hpp"
#include "stopwatch.hpp"

namespace whatif {

namespace {

// Runs a function on a thread of its own until join(), which rethrows what it threw: the parts
// of the model that do not depend on each other are built on two cores.
class beside {
 public:
  template <class F>
  explicit beside(F f)
      : thread_([this, f = std::move(f)]() mutable {
          try {
            f();
          } catch (...) {
            error_ = std::current_exception();
          }
        }) {}
  beside(const beside&) = delete;
  beside& operator=(const beside&) = delete;
  ~beside() {
    if (thread_.joinable()) thread_.join();
  }
  void join() {
    thread_.join();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::exception_ptr error_;
  std::thread thread_;  // last: starts once error_ is there
};

}  // namespace

std::optional<load_error> analysis::model::add_nodes() {
  cluster.reserve_nodes(dump->nodes.size());
  node_index.reserve(dump->nodes.size());
  for (const node_object& n : dump->nodes) {
    if (!node_index.emplace(n.name, node_index.size()).second)
      return load_error{object_where(*dump, n.file, "Node", n.name) +
                        ": metadata.name: duplicate node name"};
    cluster.add_node(n.name, k8s::to_resource_vector(n.allocatable, names));
  }
  totals.resize(dump->nodes.size());
  return std::nullopt;
}

std::optional<load_error> analysis::model::check_priority_classes() const {
  const auto& classes = dump->classes;
  for (std::size_t i = 0; i < classes.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (classes[i].name == classes[j].name)
        return load_error{
            object_where(*dump, dump->class_files[i], "PriorityClass", classes[i].name) +
            ": metadata.name: duplicate PriorityClass"};
  return std::nullopt;
}

// Every pod by namespace/name; two of the same name are an error.
std::optional<load_error> analysis::model::index_pod_keys() {
  const auto& pods = dump->pods;
  pod_by_key.reserve(pods.size());
  for (std::size_t i = 0; i < pods.size(); ++i) {
    std::string key = pods[i].key();
    if (!pod_by_key.emplace(std::move(key), i).second)
      return load_error{object_where(*dump, pods[i].file, "Pod", pods[i].key()) +
                        ": metadata.name: duplicate pod"};
  }
  return std::nullopt;
}

// Finds each pod's node and counts the pods per node and the pending pods.
void analysis::model::place_pods() {
  const auto& pods = dump->pods;
  bound_node.assign(pods.size(), not_bound);
  std::vector<std::size_t> per_node(dump->nodes.size(), 0);
  std::size_t orphans = 0;
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const pod_object& p = pods[i];
    if (k8s::is_terminal_phase(p.phase)) continue;
    if (p.node_name.empty()) {
      ++pending_count;
      continue;
    }
    const auto it = node_index.find(p.node_name);
    if (it == node_index.end()) {
      ++orphans;
      continue;
    }
    bound_node[i] = it->second;
    ++per_node[it->second];
  }
  for (std::size_t n = 0; n < per_node.size(); ++n) cluster.reserve_pods(n, per_node[n]);
  if (orphans > 0)
    warnings.push_back(std::to_string(orphans) +
                       " pod(s) are bound to nodes that are not in the dump; they were ignored");
}

// Namespace ids in the order of first use: the pods add_pods() adds, then the budgets
// add_budgets() adds.
void analysis::model::assign_namespaces() {
  const auto& pods = dump->pods;
  pod_namespace.assign(pods.size(), 0);
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const pod_object& p = pods[i];
    if (k8s::is_terminal_phase(p.phase)) continue;
    if (bound_node[i] == not_bound && !p.node_name.empty()) continue;  // on an unknown node
    pod_namespace[i] = namespace_id(p.ns);
  }
  pdb_namespace.assign(dump->pdbs.size(), 0);
  for (std::size_t j = 0; j < dump->pdbs.size(); ++j) {
    const pdb_object& b = dump->pdbs[j];
    if (!budget_selects_any(b)) continue;
    pdb_namespace[j] = namespace_id(b.ns);
  }
}

// Per node, the requests of its pods and of the pods nominated to it must add up to at most
// 2^62 in every dimension, so that no sum the algorithms form can overflow.
std::optional<load_error> analysis::model::count_on_node(
    std::size_t node, const preempt::model::resource_vector& req) {
  constexpr std::int64_t limit = std::int64_t{1} << 62;
  preempt::model::resource_vector& t = totals[node];
  if (t.size() < req.size()) t.resize(req.size());
  for (std::size_t d = 0; d < req.size(); ++d) {
    std::int64_t sum = 0;
    if (__builtin_add_overflow(t[d], req[d], &sum) || sum > limit)
      return load_error{
          object_where(*dump, dump->nodes[node].file, "Node", dump->nodes[node].name) +
          ": the requests of the pods on the node add up to more than 2^62 " +
          std::string(names.name(d))};
    t.set(d, sum);
  }
  return std::nullopt;
}

// The bound pods onto their nodes, the pending ones into `pending` and, when nominated to a node
// of the dump, into the ledger.
std::optional<load_error> analysis::model::add_pods() {
  const auto& pods = dump->pods;
  pending.reserve(pending_count);
  ledger = preempt::nomination_ledger<pod, preempt::null_mutex>(dump->nodes.size());
  std::size_t stale_nominations = 0;
  // The bound pods gathered per node, in the dump's order, then each node loaded at once
  // (add_pods orders them in one sort, where one add_pod at a time is quadratic in the node's
  // pods).
  std::vector<std::vector<pod>> on_node(cluster.size());
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const pod_object& p = pods[i];
    if (k8s::is_terminal_phase(p.phase)) continue;
    const bool bound = bound_node[i] != not_bound;
    if (!bound && !p.node_name.empty()) continue;  // on an unknown node
    resolved_pod r;
    if (auto e = resolve(
            *dump, p, [&] { return object_where(*dump, p.file, "Pod", p.key()); }, r))
      return e;
    preempt::model::pod_spec spec{.uid = i + 1,
                                  .priority = r.priority,
                                  .requests = k8s::to_resource_vector(p.counted_requests(), names),
                                  .start_time = p.start_time,
                                  .namespace_id = pod_namespace[i],
                                  .terminating = p.deleting,
                                  .terminating_by_preemption = p.terminating_by_preemption,
                                  .preemption_policy = r.policy};
    if (bound) {
      if (auto e = count_on_node(bound_node[i], spec.requests)) return e;
      on_node[bound_node[i]].emplace_back(std::move(spec));
      continue;
    }
    // Pending pods of another scheduler are not in this scheduler's queue: neither nominated
    // for it nor ever cleared by it.
    if (!ours(p)) continue;
    pending.emplace_back(std::move(spec));
    if (p.nominated_node_name.empty()) continue;
    const auto it = node_index.find(p.nominated_node_name);
    if (it == node_index.end()) {
      ++stale_nominations;
      continue;
    }
    if (auto e = count_on_node(it->second, pending.back().requests())) return e;
    ledger.nominate(pending.back(), it->second);
  }
  for (std::size_t n = 0; n < on_node.size(); ++n) cluster.add_pods(n, on_node[n]);
  if (stale_nominations > 0)
    warnings.push_back(std::to_string(stale_nominations) +
                       " pending pod(s) are nominated to nodes that are not in the dump; their "
                       "nominations were ignored");
  return std::nullopt;
}

// The bound pods with labels, by namespace and by (namespace, label) for the first matchLabels
// pair of each budget, to avoid scanning a whole namespace for every budget.
struct analysis::model::budget_index {
  // A label of a pod in a namespace, for budget selectors: the key by its index among the keys the
  // budgets select by first, the value where the pod holds it (the dump outlives the index).
  struct label_ref {
    std::uint32_t ns = 0, key = 0;
    std::string_view value;
    bool operator==(const label_ref&) const = default;
  };
  struct label_ref_hash {
    std::size_t operator()(const label_ref& l) const noexcept {
      const std::size_t h = std::hash<std::string_view>{}(l.value);
      return h ^ ((static_cast<std::size_t>(l.ns) << 32 | l.key) * 0x9e3779b97f4a7c15ULL);
    }
  };

  std::unordered_map<std::uint32_t, std::vector<std::size_t>> by_ns;
  std::vector<std::string> keys;  // the first matchLabels key of each budget, sorted, unique
  std::unordered_map<label_ref, std::vector<std::size_t>, label_ref_hash> by_label;

  // The pods a budget's selector may match.
  const std::vector<std::size_t>* candidates(std::uint32_t ns,
                                             const k8s::label_selector& sel) const {
    if (!sel.match_labels.empty()) {
      const auto& [k, v] = sel.match_labels.front();
      const auto key = std::lower_bound(keys.begin(), keys.end(), k);
      if (key == keys.end() || *key != k) return nullptr;
      const auto it = by_label.find(
          label_ref{ns, static_cast<std::uint32_t>(key - keys.begin()), std::string_view(v)});
      return it != by_label.end() ? &it->second : nullptr;
    }
    const auto it = by_ns.find(ns);
    return it != by_ns.end() ? &it->second : nullptr;
  }
};

analysis::model::budget_index analysis::model::index_for_budgets() {
  const auto& pods = dump->pods;
  budget_index index;
  auto& keys = index.keys;
  for (const pdb_object& b : dump->pdbs)
    if (b.selector && !b.selector->match_labels.empty())
      keys.push_back(b.selector->match_labels.front().first);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  // One pass in the dump's order (the pods' memory in order), so each list is in that order.
  for (std::size_t i = 0; i < pods.size(); ++i) {
    if (bound_node[i] == not_bound) continue;
    if (pods[i].labels.empty() && !preempt::budgets_select_unlabelled_pods(profile)) continue;
    const std::uint32_t ns = pod_namespace[i];
    index.by_ns[ns].push_back(i);
    for (std::size_t k = 0; k < keys.size(); ++k)
      if (const std::string* v = pods[i].labels.find(keys[k])) {
        const budget_index::label_ref label{ns, static_cast<std::uint32_t>(k),
                                            std::string_view(*v)};
        index.by_label[label].push_back(i);
      }
  }
  return index;
}

// Budgets with their members (the bound pods their selector matches) and disrupted pods. Warnings
// go to `budget_warnings`: this runs beside add_pods().
void analysis::model::add_budgets(std::vector<std::string>& budget_warnings) {
  const budget_index index = index_for_budgets();
  std::vector<std::pair<pod_id, std::uint32_t>> disrupted;
  for (std::size_t j = 0; j < dump->pdbs.size(); ++j) {
    const pdb_object& b = dump->pdbs[j];
    const std::string id = b.ns + "/" + b.name;
    // No selector matches nothing; an empty one nothing before v1.38, every pod from v1.38.
    if (!b.selector || (b.selector->empty() && !preempt::budgets_select_unlabelled_pods(profile)))
      continue;
    if (auto valid = k8s::validate(*b.selector); !valid) {
      budget_warnings.push_back("PodDisruptionBudget " + id + ": invalid selector (" +
                                valid.message() + "); it matches no pod, as in Kubernetes");
      continue;
    }
    const std::uint32_t ns = pdb_namespace[j];
    const auto budget = static_cast<std::uint32_t>(budgets.add_budget(ns, b.disruptions_allowed));
    budget_labels.push_back(id + " (" + std::to_string(b.disruptions_allowed) + " allowed)");
    if (const auto* candidates = index.candidates(ns, *b.selector))
      for (std::size_t i : *candidates)
        if (k8s::budget_selects(*b.selector, dump->pods[i].labels, profile))
          members.emplace_back(i + 1, budget);
    for (const std::string& name : b.disrupted_pods) {
      const auto it = pod_by_key.find(b.ns + "/" + name);
      if (it != pod_by_key.end()) disrupted.emplace_back(it->second + 1, budget);
    }
  }
  std::sort(members.begin(), members.end());
  std::sort(disrupted.begin(), disrupted.end());
  for (const auto& [uid, b] : members) budgets.add_member(b, uid);
  for (const auto& [uid, b] : disrupted) budgets.add_disrupted(b, uid);
}

std::size_t analysis::model::find_group(group_object::kind_type kind, const std::string& ns,
                                        const std::string& name) const {
  const auto& gs = dump->groups;
  for (std::size_t g = 0; g < gs.size(); ++g)
    if (gs[g].kind == kind && gs[g].name == name && gs[g].ns == ns) return g;
  return wl::no_group;
}

// The groups (priority as admission resolves it, parents by name) and every pod's group.
std::optional<load_error> analysis::model::add_groups() {
  const auto& gs = dump->groups;
  std::unordered_map<std::string, std::size_t> seen;
  groups.entries.resize(gs.size());
  std::size_t missing_parents = 0;
  for (std::size_t g = 0; g < gs.size(); ++g) {
    const group_object& o = gs[g];
    const std::string where = object_where(*dump, o.file, o.kind_name(), o.key());
    if (!seen.emplace(std::string(o.kind_name()) + " " + o.key(), g).second)
      return load_error{where + ": metadata.name: duplicate " + std::string(o.kind_name())};
    auto r = k8s::resolve_priority(o.priority, dump->classes);
    if (!r) return load_error{where + ": spec.priorityClassName: " + r.message()};
    // v1.38's Priority admission sets a manifest's spec.preemptionPolicy from its class, and
    // refuses one that says otherwise.
    if (profile == preempt::upstream_profile::kubernetes_1_38 && !o.priority.priority &&
        o.priority.policy) {
      k8s::pod_priority_spec from_class = o.priority;
      from_class.policy.reset();
      if (auto c = k8s::resolve_priority(from_class, dump->classes);
          c && c->policy != *o.priority.policy)
        return load_error{where +
                          ": spec.preemptionPolicy: must not be provided (v1.38's Priority "
                          "admission computes it from the PriorityClass: " +
                          std::string(c->policy == preempt::preemption_policy::never
                                          ? "Never"
                                          : "PreemptLowerPriority") +
                          ")"};
    }
    group_table::entry& e = groups.entries[g];
    e.kind = o.kind == group_object::kind_type::pod_group ? wl::group_kind::pod_group
                                                          : wl::group_kind::composite_pod_group;
    e.all = o.disrupt_all;
    e.priority = r->priority;
    group_labels.push_back(std::string(o.kind_name()) + " " + o.key());
    if (!o.parent.empty()) {
      e.parent = find_group(group_object::kind_type::composite_pod_group, o.ns, o.parent);
      if (e.parent == wl::no_group) ++missing_parents;
    }
  }
  const auto& pods = dump->pods;
  groups.links.assign(pods.size(), wl::group_link{});
  std::size_t missing = 0;
  for (std::size_t i = 0; i < pods.size(); ++i) {
    if (!pods[i].pod_group) continue;
    grouped = true;
    const std::size_t g =
        find_group(group_object::kind_type::pod_group, pods[i].ns, *pods[i].pod_group);
    groups.links[i] = wl::group_link{true, g};
    if (g == wl::no_group && !k8s::is_terminal_phase(pods[i].phase)) ++missing;
  }
  if (missing > 0)
    warnings.push_back(
        std::to_string(missing) +
        " pod(s) name a PodGroup that is not in the dump (spec.schedulingGroup); each "
        "is a victim of its own, with its own priority");
  if (missing_parents > 0)
    warnings.push_back(std::to_string(missing_parents) +
                       " group(s) name a parent CompositePodGroup that is not in the dump; the "
                       "hierarchy stops there");
  refuse_hierarchy_if_it_matters();
  return std::nullopt;
}

namespace {
// The group table as kube-scheduler v1.37 reads it with the CompositePodGroup feature gate off:
// every PodGroup is a root.
struct roots_only {
  const group_table* groups;
  std::size_t group_count() const noexcept { return groups->group_count(); }
  wl::group_link group_of(const pod& p) const noexcept { return groups->group_of(p); }
  wl::group_kind kind(std::size_t g) const noexcept { return groups->kind(g); }
  std::size_t parent(std::size_t) const noexcept { return wl::no_group; }
  bool disrupts_all(std::size_t g) const noexcept { return groups->disrupts_all(g); }
  std::int32_t priority(std::size_t g) const noexcept { return groups->priority(g); }
};
static_assert(wl::group_set<roots_only, pod>);
}  // namespace

// kube-scheduler v1.37 follows spec.parentCompositePodGroupName only with the CompositePodGroup
// feature gate, alpha and off by default (the snapshot's GetRootKeyForGroup stops at the
// PodGroup); the API server keeps the field only where its own gate is on, and the scheduler's
// gates are not in the dump. The decisions follow the hierarchy; where that changes a pod's
// priority or the unit it is evicted with, they are refused (exit 3), naming the first PodGroup.
void analysis::model::refuse_hierarchy_if_it_matters() {
  const bool any_parent =
      std::any_of(groups.entries.begin(), groups.entries.end(), [](const group_table::entry& e) {
        return e.kind == wl::group_kind::pod_group && e.parent != wl::no_group;
      });
  if (!any_parent) return;
  const roots_only without{&groups};
  std::vector<bool> checked(groups.entries.size(), false);  // the answers depend on the group only
  for (std::size_t i = 0; i < groups.links.size(); ++i) {
    const wl::group_link link = groups.links[i];
    if (!link.member || link.group == wl::no_group || checked[link.group] ||
        k8s::is_terminal_phase(dump->pods[i].phase))
      continue;
    checked[link.group] = true;
    preempt::model::pod_spec spec;
    spec.uid = static_cast<pod_id>(i + 1);
    const pod probe(std::move(spec));  // only its uid is read: its group's answers
    if (wl::effective_priority(groups, probe) == wl::effective_priority(without, probe) &&
        wl::highest_all_ancestor(groups, probe) == wl::highest_all_ancestor(without, probe))
      continue;
    dump_refusals.push_back(
        group_labels[link.group] +
        ": spec.parentCompositePodGroupName: its CompositePodGroup hierarchy changes the "
        "priority or the victim unit of its pods (pod " +
        dump->pods[i].key() +
        "), and kube-scheduler v1.37 follows it only with the CompositePodGroup feature gate "
        "(alpha, off by default), which the dump does not show; decided as with the gate on");
    return;
  }
}

// "PodGroup ns/name" when the pod is evicted as part of a group's unit (its highest `all`
// ancestor), "" for a pod evicted alone.
std::string analysis::model::unit_label(const pod* p) const {
  const std::size_t g = wl::highest_all_ancestor(groups, *p);
  return g == wl::no_group ? std::string() : group_labels[g];
}

// A victim with its budgets and, with pod groups, its unit and effective priority.
victim_info analysis::model::victim(const pod* p) const {
  victim_info vi;
  vi.name = pod_name(p);
  vi.priority = p->priority();
  vi.effective_priority = p->priority();
  vi.start_time = p->start_time();
  if (grouped) {
    vi.unit = unit_label(p);
    vi.effective_priority = wl::effective_priority(groups, *p);
  }
  const auto range = std::equal_range(
      members.begin(), members.end(), std::pair<pod_id, std::uint32_t>{p->uid(), 0},
      [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto it = range.first; it != range.second; ++it)
    vi.budgets.push_back(budget_labels[it->second]);
  return vi;
}

// "ignored 3 Service, 1 ConfigMap (...)": most frequent first.
void analysis::model::warn_ignored_kinds() {
  if (dump->ignored.empty()) return;
  std::vector<std::pair<std::size_t, std::string_view>> kinds;
  for (const auto& [kind, count] : dump->ignored) kinds.emplace_back(count, kind);
  std::stable_sort(kinds.begin(), kinds.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string w = "ignored ";
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    if (i > 0) w += ", ";
    w += std::to_string(kinds[i].first) + " " + clip(kinds[i].second);
  }
  w += " (kinds preempt-whatif does not read)";
  warnings.push_back(std::move(w));
}

void analysis::model::add_filter_facts() {
  pod_facts.reserve(dump->pods.size());
  for (const pod_object& p : dump->pods)
    pod_facts.push_back(k8s::pod_filter_facts{
        k8s::pod_facts{p.ns, &p.labels, p.deleting, p.anti_affinity_terms}, p.host_ports});
  node_facts.reserve(dump->nodes.size());
  for (const node_object& n : dump->nodes)
    node_facts.push_back(
        k8s::node_facts{n.name, &n.labels, n.taints, n.unschedulable, n.declared_features});
  for (const namespace_object& n : dump->namespaces)
    namespace_facts.push_back(k8s::namespace_facts{n.name, &n.labels});
}

analysis::analysis() = default;
analysis::~analysis() = default;
analysis::analysis(analysis&&) noexcept = default;
analysis& analysis::operator=(analysis&&) noexcept = default;

std::optional<load_error> analysis::build(const cluster_dump& dump, std::string_view scheduler_name,
                                          preempt::upstream_profile profile) {
  const stopwatch clock;
  model_ = std::make_unique<model>();
  model& m = *model_;
  m.dump = &dump;
  m.scheduler_name = scheduler_name;
  m.profile = profile;
  if (auto e = m.add_nodes()) return e;
  // Two steps, each of two parts built beside each other; errors are reported in the order a
  // single pass finds them (nodes, classes, pods, their priorities).
  std::optional<load_error> keys_error;
  beside keys([&] {
    keys_error = m.index_pod_keys();
    m.add_filter_facts();
  });
  auto classes_error = m.check_priority_classes();
  m.place_pods();
  m.assign_namespaces();
  keys.join();
  if (classes_error) return classes_error;
  if (keys_error) return keys_error;
  std::vector<std::string> budget_warnings;
  beside budgets([&] { m.add_budgets(budget_warnings); });
  auto pods_error = m.add_pods();
  budgets.join();
  if (pods_error) return pods_error;
  m.warnings.insert(m.warnings.end(), budget_warnings.begin(), budget_warnings.end());
  if (auto e = m.add_groups()) return e;
  if (auto e = m.devices.build(dump)) return e;
  if (auto e = m.storage.build(dump, m.bound_node, not_bound)) return e;
  for (std::size_t i = 0; i < m.pod_facts.size(); ++i) m.pod_facts[i].volumes = m.storage.facts(i);
  m.warn_ignored_kinds();
  m.warnings.insert(m.warnings.end(), dump.input_warnings.begin(), dump.input_warnings.end());
  m.build_seconds = clock.wall_seconds();
  m.build_cpu_seconds = clock.cpu_seconds();
  return std::nullopt;
}

std::vector<std::size_t> analysis::pending_in_queue_order() const {
  const model& m = *model_;
  std::vector<std::size_t> order;
  order.reserve(m.pending.size());
  for (const pod& p : m.pending) order.push_back(static_cast<std::size_t>(p.uid() - 1));
  std::vector<std::int32_t> priority(m.dump->pods.size(), 0);
  for (const pod& p : m.pending) priority[p.uid() - 1] = p.priority();
  const auto& pods = m.dump->pods;
  constexpr preempt::timestamp never = std::numeric_limits<preempt::timestamp>::max();
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (priority[a] != priority[b]) return priority[a] > priority[b];
    const preempt::timestamp ta = pods[a].created.value_or(never),
                             tb = pods[b].created.value_or(never);
    if (ta != tb) return ta < tb;
    return std::pair(std::string_view(pods[a].ns), std::string_view(pods[a].name)) <
           std::pair(std::string_view(pods[b].ns), std::string_view(pods[b].name));
  });
  return order;
}

namespace {

const pod* find_pending(const std::vector<pod>& pending, std::size_t dump_index) {
  for (const pod& p : pending)
    if (p.uid() == dump_index + 1) return &p;
  return nullptr;
}

}  // namespace

void analysis::remove_bound_pod(std::size_t i) {
  model& m = *model_;
  if (i >= m.bound_node.size() || m.bound_node[i] == not_bound) return;
  (void)m.cluster.remove_pod(m.bound_node[i], i + 1);
  m.bound_node[i] = not_bound;
}

void analysis::bind_pending_pod(std::size_t i, std::size_t node) {
  model& m = *model_;
  const pod* p = find_pending(m.pending, i);
  if (p == nullptr || node >= m.cluster.size() || m.bound_node[i] != not_bound) return;
  (void)m.ledger.remove(p->uid());
  m.cluster.add_pod(node, *p);
  m.bound_node[i] = node;
  // Its budgets, as add_budgets() numbers them (the budgets with a valid, non-empty selector).
  const pod_object& o = m.dump->pods[i];
  std::uint32_t budget = 0;
  for (const pdb_object& b : m.dump->pdbs) {
    if (!m.budget_selects_any(b)) continue;
    if (b.ns == o.ns && k8s::budget_selects(*b.selector, o.labels, m.profile)) {
      m.budgets.add_member(budget, p->uid());
      const std::pair<pod_id, std::uint32_t> entry{p->uid(), budget};
      m.members.insert(std::upper_bound(m.members.begin(), m.members.end(), entry), entry);
    }
    ++budget;
  }
}

void analysis::set_nomination(std::size_t i, std::optional<std::size_t> node) {
  model& m = *model_;
  const pod* p = find_pending(m.pending, i);
  if (p == nullptr || m.bound_node[i] != not_bound) return;
  if (node && *node < m.cluster.size())
    m.ledger.nominate(*p, *node);
  else
    (void)m.ledger.remove(p->uid());
}

const std::vector<std::string>& analysis::warnings() const noexcept { return model_->warnings; }
double analysis::build_seconds() const noexcept { return model_->build_seconds; }
double analysis::build_cpu_seconds() const noexcept { return model_->build_cpu_seconds; }

}  // namespace whatif
