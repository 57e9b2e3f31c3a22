// examples/whatif/analysis/analysis.cpp - see analysis.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "analysis/analysis.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <exception>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/dra_whatif.hpp"
#include "analysis/group_placement.hpp"
#include "analysis/queue_entry.hpp"
#include "analysis/storage.hpp"
#include "analysis/unmodelled.hpp"
#include "output/one_line.hpp"
#include "output/output.hpp"
#include "preempt/preempt.hpp"
#include "preempt/preemption_policies.hpp"
#include "preempt/victim_reasons.hpp"
#include "stopwatch.hpp"

namespace whatif {

namespace {

using pod = preempt::model::resource_pod;
using preempt::model::pod_id;

static_assert(std::is_same_v<decltype(node_report::scores), preempt::default_scores::vector>);

// Records the victims of every node the dry run evaluates (the decision keeps them only for the
// candidates it retained).
struct victim_recorder {
  std::vector<std::vector<const pod*>>* victims;
  std::vector<std::int64_t>* violations;
  // And each candidate's upstream scores, as the evaluator computes them (--offsets all).
  std::vector<preempt::default_scores::vector>* scores;
  preempt::timestamp now;

  void on_node_evaluated(std::size_t node, const preempt::status& outcome,
                         std::span<const pod* const> v, std::int64_t pdb_violations) {
    (*victims)[node].assign(v.begin(), v.end());
    (*violations)[node] = pdb_violations;
    if (outcome.is_success())
      (*scores)[node] =
          preempt::default_scores{now}.all(preempt::candidate<pod>{node, {}, v, pdb_violations});
  }
};

// What the recorder keeps of every node the dry run evaluates.
struct recorded_nodes {
  std::vector<std::vector<const pod*>> victims;
  std::vector<std::int64_t> violations;
  std::vector<preempt::default_scores::vector> scores;

  explicit recorded_nodes(std::size_t n) : victims(n), violations(n, 0), scores(n) {}
  victim_recorder recorder(preempt::timestamp now) {
    return victim_recorder{&victims, &violations, &scores, now};
  }
};

// --victim-cost: a pod's cost from one of its labels or (kept by the loader) annotations, parsed
// when first asked for; the first value that is not a non-negative integer is kept as the error
// and counts as 1 meanwhile. A pod without the key costs 1.
struct victim_costs {
  const cluster_dump* dump = nullptr;
  bool from_annotation = false;
  std::string key;
  mutable std::vector<std::int64_t> known;  // by uid - 1; -1 until read
  mutable std::optional<load_error> error;

  std::int64_t of(const pod& p) const {
    const std::size_t i = static_cast<std::size_t>(p.uid()) - 1;
    if (i >= dump->pods.size()) return 1;
    if (known.empty()) known.assign(dump->pods.size(), -1);
    if (known[i] >= 0) return known[i];
    const pod_object& o = dump->pods[i];
    const std::string* value = from_annotation ? o.annotations.find(key) : o.labels.find(key);
    std::int64_t cost = 1;
    if (value != nullptr) {
      const auto [end, ec] = std::from_chars(value->data(), value->data() + value->size(), cost);
      if (ec != std::errc() || end != value->data() + value->size() || cost < 0) {
        if (!error)
          error = load_error{
              (o.file < dump->files.size() ? dump->files[o.file] : std::string("<input>")) +
              ": Pod " + o.key() + ": metadata." + (from_annotation ? "annotations" : "labels") +
              "[" + key + "]: victim cost \"" + clip(*value) +
              "\" is not a non-negative integer (--victim-cost)"};
        cost = 1;
      }
    }
    known[i] = cost;
    return cost;
  }
};

// The policies' hooks (preempt::preemption_policies): the cost (1 without --victim-cost) and
// whether a pod could run elsewhere (asked of the model, remembered per pod for the decision).
struct cost_of {
  const victim_costs* costs = nullptr;
  std::int64_t operator()(const pod& p) const { return costs != nullptr ? costs->of(p) : 1; }
};
struct reschedulable_of {
  const std::function<bool(const pod&)>* ask = nullptr;
  bool operator()(const pod& p) const { return ask == nullptr || (*ask)(p); }
};
using policy_type = preempt::preemption_policies<cost_of, reschedulable_of>;

std::string join_reasons(std::span<const std::string_view> reasons) {
  std::string r;
  for (std::string_view s : reasons) {
    if (!r.empty()) r += ", ";
    r += s;
  }
  return r;
}

std::string object_where(const cluster_dump& dump, std::uint32_t file, std::string_view kind,
                         std::string_view id) {
  std::string m = file < dump.files.size() ? dump.files[file] : std::string("<input>");
  m += ": ";
  m += kind;
  m += ' ';
  m += id;
  return m;
}

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

struct resolved_pod {
  std::int32_t priority = 0;
  preempt::preemption_policy policy = preempt::preemption_policy::preempt_lower_priority;
  std::string class_name;
};

// `where` names the pod in a message: a string, or a function making one (called only then).
template <class Where>
std::optional<load_error> resolve(const cluster_dump& dump, const pod_object& p, const Where& where,
                                  resolved_pod& out) {
  auto r = k8s::resolve_priority(p.priority, dump.classes);
  if (!r) {
    std::string w;
    if constexpr (std::is_invocable_v<const Where&>)
      w = where();
    else
      w = std::string(where);
    return load_error{w + ": spec.priorityClassName: " + r.message()};
  }
  out.priority = r->priority;
  out.policy = r->policy;
  out.class_name = r->class_name;
  return std::nullopt;
}

// The candidates tied with the winner on every criterion before the deciding one, with their
// value for the deciding criterion.
// `k` is upstream's criterion that decided (d.choice.deciding_score without policies);
// `same_before(c)` whether c ties with the chosen candidate on the policy's criteria before
// upstream's (none without policies).
template <class Decision, class SameBefore>
void explain_tie_break(const Decision& d, preempt::timestamp now,
                       std::vector<std::pair<std::string, std::string>>& out, std::size_t k,
                       const SameBefore& same_before) {
  const preempt::default_scores scores{now};
  const auto& best = d.candidates[d.choice.index];
  const auto value = [&](const auto& c) -> std::string {
    if (k >= preempt::default_scores::count) return "tied on every criterion";
    const std::int64_t v = scores(k, c);
    switch (k) {
      case 0: return std::to_string(-v) + " PDB violation(s)";
      case 1: return "highest victim priority " + std::to_string(-v);
      case 2: return "sum of (priority + 2^31) over the victims " + std::to_string(-v);
      case 3: return std::to_string(-v) + " victim(s)";
      default: return "earliest start among them " + format_time(v);
    }
  };
  const auto tied_before_k = [&](const auto& c) {
    if (!same_before(c)) return false;
    for (std::size_t j = 0; j < k && j < preempt::default_scores::count; ++j)
      if (scores(j, c) != scores(j, best)) return false;
    return true;
  };
  out.emplace_back(std::string(best.node_name), value(best));
  for (const auto& c : d.candidates)
    if (&c != &best && tied_before_k(c)) out.emplace_back(std::string(c.node_name), value(c));
}

constexpr std::size_t not_bound = static_cast<std::size_t>(-1);

// What the pod-dependent filters read of a pod of the model (uid = dump index + 1).
struct pod_facts_of {
  const std::vector<k8s::pod_filter_facts>* facts;
  const k8s::pod_filter_facts& operator()(const pod& p) const noexcept {
    static const k8s::pod_filter_facts none{};
    return p.uid() >= 1 && p.uid() <= facts->size() ? (*facts)[p.uid() - 1] : none;
  }
};
struct node_facts_of {
  const std::vector<k8s::node_facts>* facts;
  const k8s::node_facts& operator()(std::size_t i) const noexcept { return (*facts)[i]; }
};
using cluster_view =
    k8s::filter_cluster<preempt::model::resource_cluster, pod_facts_of, node_facts_of>;

using evaluator_type = preempt::evaluator<cluster_view, preempt::default_policy, victim_recorder>;
using policy_evaluator_type = preempt::evaluator<cluster_view, policy_type, victim_recorder>;

// kube-scheduler's filters for the preemptor on every node: the verdicts, the statuses for the
// evaluator, and the feasible nodes.
struct filter_pass {
  preempt::filter_statuses statuses;
  std::vector<node_report> verdicts;
  std::vector<std::size_t> feasible;
  std::vector<char> reached;  // per node: it passed the node filters (the others may run)
};

namespace wl = preempt::workload;

// The dump's PodGroups and CompositePodGroups as the library reads them (a workload::group_set
// over the model's pods): groups in input order, each pod's spec.schedulingGroup by uid.
struct group_table {
  struct entry {
    wl::group_kind kind = wl::group_kind::pod_group;
    std::size_t parent = wl::no_group;
    bool all = false;
    std::int32_t priority = 0;
  };
  std::vector<entry> entries;
  std::vector<wl::group_link> links;  // by uid - 1

  std::size_t group_count() const noexcept { return entries.size(); }
  wl::group_link group_of(const pod& p) const noexcept {
    const std::size_t i = static_cast<std::size_t>(p.uid()) - 1;
    return i < links.size() ? links[i] : wl::group_link{};
  }
  wl::group_kind kind(std::size_t g) const noexcept { return entries[g].kind; }
  std::size_t parent(std::size_t g) const noexcept { return entries[g].parent; }
  bool disrupts_all(std::size_t g) const noexcept { return entries[g].all; }
  std::int32_t priority(std::size_t g) const noexcept { return entries[g].priority; }
};
static_assert(wl::group_set<group_table, pod>);

}  // namespace

// Everything built once per dump. The uid of a dump pod is its index + 1.
struct analysis::model {
  const cluster_dump* dump = nullptr;
  std::string scheduler_name;  // the scheduler decided for
  // The release whose PodDisruptionBudget matching the budgets follow (upstream_profile.hpp).
  preempt::upstream_profile profile = preempt::default_upstream_profile;
  // Whether budget b is counted at all: a selector that is valid and, before v1.38, not empty.
  bool budget_selects_any(const pdb_object& b) const {
    return b.selector &&
           (!b.selector->empty() || preempt::budgets_select_unlabelled_pods(profile)) &&
           k8s::validate(*b.selector);
  }
  // Mutable: a decision registers the resources its preemptor requests that no node has (they
  // change no other decision).
  mutable preempt::model::resource_names names;
  preempt::model::resource_cluster cluster{&names};
  std::unordered_map<std::string_view, std::size_t> node_index;
  std::unordered_map<std::string, std::size_t> pod_by_key;
  std::unordered_map<std::string, std::uint32_t> namespaces;
  // Per dump pod the model holds, and per budget with a valid selector: its namespace's id.
  // Assigned before the pods and budgets are added (beside each other), in the order a single
  // pass over pods, then budgets, meets them.
  std::vector<std::uint32_t> pod_namespace, pdb_namespace;
  std::vector<std::size_t> bound_node;  // per dump pod: its node, or not_bound
  std::size_t pending_count = 0;
  // The pending pods (never moved once nominated: the ledger points into it).
  std::vector<pod> pending;
  preempt::nomination_ledger<pod, preempt::null_mutex> ledger{0};
  // Per node, the requests of its pods and of the pods nominated to it.
  std::vector<preempt::model::resource_vector> totals;
  preempt::model::budget_table budgets;
  std::vector<std::pair<pod_id, std::uint32_t>> members;  // (uid, budget), sorted
  std::vector<std::string> budget_labels;                 // "namespace/name (N allowed)"
  // Pod groups: the table, "Kind namespace/name" by group, and whether any pod names a group
  // (only then do decisions see units; without, they are exactly those of the plain evaluator).
  group_table groups;
  std::vector<std::string> group_labels;
  bool grouped = false;
  std::vector<std::string> warnings;
  double build_seconds = 0, build_cpu_seconds = 0;
  // What the filters read: per dump pod, per node, per Namespace object.
  std::vector<k8s::pod_filter_facts> pod_facts;
  std::vector<k8s::node_facts> node_facts;
  std::vector<k8s::namespace_facts> namespace_facts;
  dra_model devices;  // DynamicResources: the devices the cluster's claims hold
  // The storage objects and what the volume filters read of each pod and node.
  storage_model storage;

  std::uint32_t namespace_id(const std::string& ns) {
    return namespaces.emplace(ns, static_cast<std::uint32_t>(namespaces.size())).first->second;
  }
  std::optional<std::uint32_t> find_namespace(const std::string& ns) const {
    const auto it = namespaces.find(ns);
    if (it == namespaces.end()) return std::nullopt;
    return it->second;
  }
  std::string pod_name(const pod* p) const { return dump->pods[p->uid() - 1].key(); }

  // Is the pod for the scheduler decided for?
  bool ours(const pod_object& p) const {
    return (p.scheduler_name.empty() ? default_scheduler_name
                                     : std::string_view(p.scheduler_name)) == scheduler_name;
  }

  std::optional<load_error> add_nodes();
  std::optional<load_error> check_priority_classes() const;
  std::optional<load_error> index_pod_keys();
  void place_pods();
  void assign_namespaces();
  std::optional<load_error> count_on_node(std::size_t node,
                                          const preempt::model::resource_vector& req);
  std::optional<load_error> add_pods();
  struct budget_index;
  budget_index index_for_budgets();
  void add_budgets(std::vector<std::string>& budget_warnings);
  std::optional<load_error> add_groups();
  void warn_ignored_kinds();
  std::size_t find_group(group_object::kind_type kind, const std::string& ns,
                         const std::string& name) const;
  std::string unit_label(const pod* p) const;
  victim_info victim(const pod* p) const;

  void add_filter_facts();
  std::optional<load_error> make_preemptor(const pod_object& p, resolved_pod& me,
                                           std::optional<pod>& out) const;
  // upstream's PreFilter of NodePorts, PodTopologySpread and InterPodAffinity for pod p, with the
  // volume plugins' (prepared by storage.prepare).
  void prefilter(cluster_view& view, const pod_object& p, const k8s::volume_filters* volumes) const;
  std::optional<load_error> preempt(const cluster_view& view, const pod_object& preemptor_object,
                                    const pod& preemptor, const options& opts, filter_pass& filters,
                                    report& out) const;
  std::optional<load_error> decide_group(const std::string& key, const options& opts,
                                         group_report& out) const;
  void describe(const evaluator_type::decision_type& d, const recorded_nodes& recorded,
                filter_pass& filters, report& out) const;
  void explain_nomination(const cluster_view& view, const evaluator_type::decision_type& d,
                          const pod& preemptor, const pod_object& preemptor_object,
                          const options& opts, const victim_costs* costs, report& out) const;
  void explain_victims(const cluster_view& view, const evaluator_type::decision_type& d,
                       const pod& preemptor, const pod_object& preemptor_object, report& out) const;
  // --policy spare-reschedulable: could the pod run on a node other than its own?
  bool can_run_elsewhere(const pod& p) const;
};

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

namespace {

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

}  // namespace

// The bound pods with labels, by namespace and by (namespace, label) for the first matchLabels
// pair of each budget, to avoid scanning a whole namespace for every budget.
struct analysis::model::budget_index {
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
      if (const std::string* v = pods[i].labels.find(keys[k]))
        index.by_label[label_ref{ns, static_cast<std::uint32_t>(k), std::string_view(*v)}]
            .push_back(i);
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
  return std::nullopt;
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

namespace {

// The preemptor as the model sees it. It keeps the uid of its pending copy in the dump, if any,
// so that it never counts as nominated against itself.
struct preemptor_pod {
  resolved_pod resolved;
  pod model_pod;
};

// DynamicResources is the profile's last filter: `devices` gives its verdict on the nodes every
// other filter passes, and computes it for the nodes the dry run may evaluate (Unschedulable).
void run_filters(const cluster_dump& dump, const cluster_view& cluster,
                 const preempt::nomination_ledger<pod, preempt::null_mutex>& ledger,
                 const pod_object& preemptor_object, const pod& preemptor,
                 const k8s::volume_filters* volumes, dra_decision& devices,
                 std::vector<std::string>& refusals, filter_pass& out) {
  const std::size_t n_nodes = dump.nodes.size();
  out.statuses = preempt::filter_statuses(n_nodes);
  out.verdicts.assign(n_nodes, node_report{});
  out.reached.assign(n_nodes, 0);
  cluster_view::state_type state = cluster.make_state();
  // NodeAffinity's PreFilter: a required affinity naming nodes rules out every other node
  // before any filter runs. (Conflicting terms, an empty list, fall through to the filters.)
  const auto named = k8s::prefilter_node_names(preemptor_object.placement.required_node_affinity);
  const bool prefiltered = named && !named->empty();
  // The volume plugins' PreFilters come next: a rejection is every node's status.
  if (volumes != nullptr && !(named && named->empty()) &&
      !volumes->prefilter_outcome().is_success()) {
    const preempt::status& st = volumes->prefilter_outcome();
    for (std::size_t i = 0; i < n_nodes; ++i) {
      out.verdicts[i].name = dump.nodes[i].name;
      out.verdicts[i].status = preempt::to_string(st.code());
      out.verdicts[i].reason = join_reasons(st.reasons());
      out.statuses.set(i, st.code());
    }
    return;
  }
  // DynamicResources' PreFilter, the last: a rejection is every node's status too.
  if (devices.rejection() && !(named && named->empty())) {
    for (std::size_t i = 0; i < n_nodes; ++i) {
      out.statuses.set(i, preempt::status_code::unschedulable_and_unresolvable);
      out.verdicts[i].name = dump.nodes[i].name;
      out.verdicts[i].status =
          preempt::to_string(preempt::status_code::unschedulable_and_unresolvable);
      out.verdicts[i].reason = *devices.rejection();
    }
    return;
  }
  for (std::size_t i = 0; i < n_nodes; ++i) {
    const node_object& n = dump.nodes[i];
    node_report& v = out.verdicts[i];
    v.name = n.name;
    if (prefiltered && !std::binary_search(named->begin(), named->end(), n.name)) {
      out.statuses.set(i, preempt::status_code::unschedulable_and_unresolvable);
      v.status = preempt::to_string(preempt::status_code::unschedulable_and_unresolvable);
      v.reason = std::string(k8s::prefilter_node_affinity_reason);
      continue;
    }
    const k8s::filter_verdict f = k8s::filter_node(
        preemptor_object.placement, k8s::node_facts{n.name, &n.labels, n.taints, n.unschedulable});
    if (!f.passed()) {
      out.statuses.set(i, f.code);
      v.status = preempt::to_string(f.code);
      v.reason = f.reason;
      continue;
    }
    out.reached[i] = 1;
    cluster.prepare_state(i, state);
    const preempt::status fit =
        preempt::fits_with_nominated(state, preemptor, ledger.nominated_to_unlocked(i));
    if (fit.is_success()) {
      if (const preempt::status& d = devices.verdict(i, refusals); !d.is_success()) {
        out.statuses.set(i, d.code());
        v.status = preempt::to_string(d.code());
        v.reason = join_reasons(d.reasons());
        continue;
      }
      out.statuses.set(i, preempt::status_code::success);
      v.status = "Success";
      out.feasible.push_back(i);
      continue;
    }
    if (fit.code() == preempt::status_code::unschedulable) (void)devices.verdict(i, refusals);
    // NodeResourcesFit's shortage beyond the node's whole allocatable amount is
    // UnschedulableAndUnresolvable in the node state itself (model::resource_fit_state), so that
    // a node another filter rejected first (NodePorts) gets the same status in the dry run.
    const auto code = fit.code();
    out.statuses.set(i, code);
    v.status = preempt::to_string(code);
    v.reason = join_reasons(fit.reasons());
  }
}

}  // namespace

std::optional<load_error> analysis::decide(const pod_object& preemptor_object, const options& opts,
                                           report& out) const {
  const model& m = *model_;
  const cluster_dump& dump = *m.dump;
  out = report{};
  out.preemptor = preemptor_object.key();
  out.total_nodes = dump.nodes.size();
  out.build_seconds = m.build_seconds;
  out.build_cpu_seconds = m.build_cpu_seconds;
  out.warnings = m.warnings;
  out.dump_warnings = m.warnings.size();
  const stopwatch clock;

  resolved_pod me;
  std::optional<pod> made;
  if (auto e = m.make_preemptor(preemptor_object, me, made)) return e;
  const pod& preemptor = *made;
  out.priority = me.priority;
  out.priority_class = me.class_name;
  out.may_preempt = me.policy != preempt::preemption_policy::never;
  out.requests = preemptor_object.requests;
  for (const std::string& w : preemptor_object.not_modelled) out.refuse(w);
  for (const std::string& w : dump.input_refusals) out.refuse(w);
  const auto copy = m.pod_by_key.find(out.preemptor);
  std::optional<no_decision> none = never_queued(
      preemptor_object, copy != m.pod_by_key.end() ? &dump.pods[copy->second] : nullptr);
  if (!none && !m.ours(preemptor_object))
    // Another scheduler's pod: this scheduler never sees it, so there is nothing to decide.
    none = no_decision{"other-scheduler", "the pod's spec.schedulerName is \"" +
                                              preemptor_object.scheduler_name + "\", not " +
                                              m.scheduler_name +
                                              " (--scheduler-name): that scheduler decides for it"};
  if (!none) none = held_in_queue(preemptor_object);
  if (none) {
    out.result = std::move(none->result);  // running, bound, other-scheduler or gated
    out.message = std::move(none->message);
    out.decide_seconds = clock.wall_seconds();
    out.decide_cpu_seconds = clock.cpu_seconds();
    return std::nullopt;
  }

  refuse_unmodelled(dump, preemptor_object, out);
  if (opts.profile != preempt::default_upstream_profile)
    out.warnings.push_back("decided as kube-scheduler v" +
                           std::string(preempt::to_string(opts.profile)) +
                           " (--kubernetes-version): its preemption changes merged after v1.37, "
                           "as the README lists them");
  std::vector<std::string> refusals;
  dra_decision devices(dump, m.devices);
  devices.prefilter(preemptor_object, refusals);
  if (devices.held_in_queue()) {
    // DynamicResources' PreEnqueue makes PreFilter's check first: the pod never leaves the queue.
    out.result = "gated";
    out.message = *devices.rejection() +
                  " (spec.resourceClaims: DynamicResources' PreEnqueue keeps the pod in kube-"
                  "scheduler's queue until its claims exist and are its own; it neither "
                  "schedules nor preempts for it)";
    for (std::string& r : refusals) out.refuse(std::move(r));
    out.decide_seconds = clock.wall_seconds();
    out.decide_cpu_seconds = clock.cpu_seconds();
    return std::nullopt;
  }

  k8s::attachable_names resolved;
  k8s::volume_filters volumes;
  m.storage.prepare(preemptor_object, m.node_facts, resolved, volumes);
  cluster_view view(m.cluster, pod_facts_of{&m.pod_facts}, node_facts_of{&m.node_facts});
  m.prefilter(view, preemptor_object, &volumes);
  if (preemptor_object.pod_group)
    out.warnings.push_back(
        "the pod belongs to PodGroup " + preemptor_object.ns + "/" + *preemptor_object.pod_group +
        ": with GenericWorkload, kube-scheduler schedules it in its group's cycle "
        "(--pod-group decides for the group); decided here as a single pod");

  filter_pass filters;
  run_filters(dump, view, m.ledger, preemptor_object, preemptor, &volumes, devices, refusals,
              filters);
  if (devices.active()) view.set_dynamic_resources(devices.verdicts());
  for (std::string& r : refusals) out.refuse(std::move(r));
  m.storage.refuse_absent_kinds(preemptor_object,
                                [&](std::string what) { out.refuse(std::move(what)); });
  m.storage.refuse_unmodelled(
      preemptor_object, resolved, volumes, filters.reached,
      [&](std::size_t node, const std::function<void(std::size_t)>& visit) {
        for (const pod* q : m.ledger.nominated_to_unlocked(node))
          if (q->uid() != preemptor.uid()) visit(static_cast<std::size_t>(q->uid() - 1));
      },
      [&](std::string what) { out.refuse(std::move(what)); });
  if (!filters.feasible.empty()) {
    out.result = "fits";
    for (std::size_t i : filters.feasible) out.nodes.push_back(std::move(filters.verdicts[i]));
  } else {
    if (auto e = m.preempt(view, preemptor_object, preemptor, opts, filters, out)) return e;
  }
  out.decide_seconds = clock.wall_seconds();
  out.decide_cpu_seconds = clock.cpu_seconds();
  return std::nullopt;
}

// The preemptor as the model sees it: its priority and policy resolved, its requests in the
// model's resource names. It keeps the uid of its pending copy in the dump, if any, so that it
// never counts as nominated against itself.
std::optional<load_error> analysis::model::make_preemptor(const pod_object& p, resolved_pod& me,
                                                          std::optional<pod>& out) const {
  const std::string key = p.key();
  const std::string where =
      p.source.empty() ? object_where(*dump, p.file, "Pod", key) : p.source + ": Pod " + key;
  if (auto e = resolve(*dump, p, where, me)) return e;
  const auto in_dump = pod_by_key.find(key);
  const bool pending_in_dump = in_dump != pod_by_key.end() &&
                               bound_node[in_dump->second] == not_bound &&
                               dump->pods[in_dump->second].node_name.empty() &&
                               !k8s::is_terminal_phase(dump->pods[in_dump->second].phase);
  const auto ns = find_namespace(p.ns);
  out.emplace(preempt::model::pod_spec{
      .uid = pending_in_dump ? in_dump->second + 1 : dump->pods.size() + 1,
      .priority = me.priority,
      .requests = k8s::to_resource_vector(p.requests, names),
      .start_time = p.start_time,
      .namespace_id = ns ? *ns : static_cast<std::uint32_t>(namespaces.size()),
      .preemption_policy = me.policy});
  return std::nullopt;
}

void analysis::model::prefilter(cluster_view& view, const pod_object& p,
                                const k8s::volume_filters* volumes) const {
  view.prefilter(
      k8s::placing_pod{k8s::pod_facts{p.ns, &p.labels, p.deleting, p.anti_affinity_terms},
                       p.host_ports, p.affinity_terms, p.anti_affinity_terms, p.spread,
                       &p.placement, p.required_features, volumes},
      namespace_facts);
}

// Runs the preemption evaluation and explains it: every evaluated node with its outcome and
// victims, then the decision (victims with their budgets, cleared nominations, the tie-break).
// With opt-in policies (opts.policies) the evaluator takes them (preempt::preemption_policies);
// an invalid --victim-cost value met on the way is bad input.
std::optional<load_error> analysis::model::preempt(const cluster_view& view,
                                                   const pod_object& preemptor_object,
                                                   const pod& preemptor, const options& opts,
                                                   filter_pass& filters, report& out) const {
  recorded_nodes recorded(dump->nodes.size());
  preempt::evaluator_config config;
  config.sampling = opts.sampling;
  std::optional<std::size_t> nominated_node;
  if (!preemptor_object.nominated_node_name.empty()) {
    const auto it = node_index.find(preemptor_object.nominated_node_name);
    if (it != node_index.end()) nominated_node = it->second;
  }
  const auto reader = ledger.reader();
  const preempt::attempt at{.offset = opts.offset, .nominated_node = nominated_node};
  std::optional<victim_costs> costs;
  if (!opts.cost_key.empty())
    costs.emplace(victim_costs{dump, opts.cost_from_annotation, opts.cost_key, {}, {}});
  const victim_costs* cost_table = costs ? &*costs : nullptr;

  if (!opts.policies.any()) {
    evaluator_type ev(config, preempt::default_policy{opts.now}, recorded.recorder(opts.now));
    const auto& d = grouped ? ev.evaluate(preemptor, view, groups, filters.statuses, budgets,
                                          reader, preempt::inline_executor{}, at)
                            : ev.evaluate(preemptor, view, filters.statuses, budgets, reader,
                                          preempt::inline_executor{}, at);
    describe(d, recorded, filters, out);
    if (d.kind == preempt::decision_kind::nominated)
      explain_nomination(view, d, preemptor, preemptor_object, opts, cost_table, out);
  } else {
    std::vector<std::int8_t> elsewhere(dump->pods.size(), -1);  // by uid - 1; -1: not asked
    const std::function<bool(const pod&)> ask = [&](const pod& p) {
      const std::size_t i = static_cast<std::size_t>(p.uid()) - 1;
      if (i >= elsewhere.size()) return true;
      if (elsewhere[i] < 0) elsewhere[i] = can_run_elsewhere(p) ? 1 : 0;
      return elsewhere[i] == 1;
    };
    policy_type policy;
    policy.now = opts.now;
    policy.options = opts.policies;
    policy.cost = cost_of{cost_table};
    policy.reschedulable = reschedulable_of{&ask};
    if (grouped && opts.policies.selects_differently())
      out.warnings.push_back(
          "--policy: the dump has pod groups, whose victims are whole units: minimum cost, hard "
          "budgets and spare-reschedulable apply to pods only and were not applied (a minimum "
          "runtime was)");
    policy_evaluator_type ev(config, policy, recorded.recorder(opts.now));
    const auto& d = grouped ? ev.evaluate(preemptor, view, groups, filters.statuses, budgets,
                                          reader, preempt::inline_executor{}, at)
                            : ev.evaluate(preemptor, view, filters.statuses, budgets, reader,
                                          preempt::inline_executor{}, at);
    describe(d, recorded, filters, out);
    if (d.kind == preempt::decision_kind::nominated)
      explain_nomination(view, d, preemptor, preemptor_object, opts, cost_table, out);
  }
  if (costs && costs->error) return costs->error;
  return std::nullopt;
}

// The dry run as the report shows it: the outcome, every evaluated node with its victims.
void analysis::model::describe(const evaluator_type::decision_type& d,
                               const recorded_nodes& recorded, filter_pass& filters,
                               report& out) const {
  const std::size_t n_nodes = dump->nodes.size();
  out.message = std::string(d.message);
  out.potential_nodes = d.potential_nodes;
  out.candidates_wanted = d.candidates_wanted;
  out.offset = d.offset;
  out.candidates = d.candidates.size();
  switch (d.kind) {
    case preempt::decision_kind::nominated: out.result = "nominated"; break;
    case preempt::decision_kind::not_eligible: out.result = "not-eligible"; break;
    default: out.result = "unschedulable"; break;
  }

  std::vector<bool> kept(n_nodes, false);
  for (const auto& c : d.candidates) kept[c.node_index] = true;
  for (const preempt::node_diagnosis& diag : d.diagnosis) {
    node_report& v = filters.verdicts[diag.node_index];
    v.evaluated = true;
    v.status = preempt::to_string(diag.outcome.code());
    v.reason = join_reasons(diag.outcome.reasons());
    if (diag.outcome.is_success()) {
      for (const pod* p : recorded.victims[diag.node_index]) v.victims.push_back(pod_name(p));
      v.pdb_violations = recorded.violations[diag.node_index];
      v.scores = recorded.scores[diag.node_index];
      if (!kept[diag.node_index])
        v.reason = "not kept: enough candidates with budget violations were found before";
    }
    out.evaluation_order.push_back(diag.node_index);
  }
  out.nodes = std::move(filters.verdicts);
}

// The chosen node: its victims with the budgets they count in, the lower-priority nominations
// it clears (reported, not applied: every decision sees the same cluster), and the tie-break.
void analysis::model::explain_nomination(const cluster_view& view,
                                         const evaluator_type::decision_type& d,
                                         const pod& preemptor, const pod_object& preemptor_object,
                                         const options& opts, const victim_costs* costs,
                                         report& out) const {
  out.nominated_node = std::string(d.node_name);
  out.pdb_violations = d.pdb_violations;
  out.budgets_exceeded = preempt::count_budget_violations(d.victims, budgets);
  for (const pod* p : d.victims) {
    out.victims.push_back(victim(p));
    if (costs != nullptr) out.victims.back().cost = costs->of(*p);
  }
  if (opts.victim_reasons) explain_victims(view, d, preemptor, preemptor_object, out);
  // Upstream clears the nominations of strictly lower-priority pods on the chosen node. With
  // asynchronous preemption (the default since v1.33) that happens in the goroutine
  // prepareCandidateAsync starts only when some victim is not being deleted already: when every
  // victim is terminating, nothing is cleared. (The synchronous path clears in any case.)
  const bool any_to_delete = std::any_of(d.victims.begin(), d.victims.end(),
                                         [](const pod* p) { return !p->terminating(); });
  if (any_to_delete)
    for (const pod* p : ledger.nominated_to_unlocked(d.node_index))
      if (p->priority() < preemptor.priority()) out.cleared_nominations.push_back(pod_name(p));
  std::size_t k = d.choice.deciding_score;
  if (k == preempt::best_candidate::none) {
    out.decided_by = "the only candidate";
  } else if (opts.policies.min_cost && k == 0) {
    out.decided_by = "lowest total victim cost (--policy min-cost)";
  } else {
    if (opts.policies.min_cost) --k;  // the policy's scores: the cost, then upstream's
    out.decided_by = std::string(preempt::default_scores::name(k));
    const auto total_cost = [&](const auto& c) {
      std::int64_t sum = 0;
      for (const pod* v : c.victims) sum += costs != nullptr ? costs->of(*v) : 1;
      return sum;
    };
    const std::int64_t chosen_cost = total_cost(d.candidates[d.choice.index]);
    explain_tie_break(d, opts.now, out.tie_break, k, [&](const auto& c) {
      return !opts.policies.min_cost || total_cost(c) == chosen_cost;
    });
  }
}

// --victim-reasons: on the chosen node with its victims gone, each victim given back alone; what
// the preemptor would then be short of (preempt::explain_victims).
void analysis::model::explain_victims(const cluster_view& view,
                                      const evaluator_type::decision_type& d, const pod& preemptor,
                                      const pod_object& preemptor_object, report& out) const {
  cluster_view::state_type state = view.make_state();
  view.prepare_state(d.node_index, state);
  const auto on_node = [&](const pod* v) {
    for (const pod& q : ::preempt::pods_of(view[d.node_index]))
      if (&q == v) return true;
    return false;
  };
  std::vector<const pod*> here;  // victims of the node (a group's unit may reach other nodes)
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < d.victims.size(); ++i) {
    if (!on_node(d.victims[i])) {
      out.victims[i].reason = "evicted with its group's unit (on another node)";
      continue;
    }
    if (!state.remove_pod(*d.victims[i]).is_success()) return;
    here.push_back(d.victims[i]);
    at.push_back(i);
  }
  // The host ports of the preemptor that the victim holds (NodePorts' conflict).
  const auto ports_held = [&](const pod* v) {
    k8s::used_ports held;
    held.add(std::span<const k8s::host_port>(dump->pods[v->uid() - 1].host_ports));
    std::string r;
    for (const k8s::host_port& w : preemptor_object.host_ports)
      if (held.conflicts(w))
        r += (r.empty() ? "" : ", ") + std::to_string(w.port) + "/" +
             (w.protocol.empty() ? std::string("TCP") : w.protocol);
    return r;
  };
  const pod* explained = nullptr;
  const auto format = [&](const preempt::victim_explanation& e) {
    if (e.fit.is_success()) return std::string("not needed alone (evicted with the others)");
    std::string r = join_reasons(e.fit.reasons());
    if (const std::string ports = ports_held(explained); !ports.empty())
      r += "; host port " + ports + " held by this victim";
    for (const preempt::victim_shortage& s : e.shortages()) {
      const std::string name(names.name(s.dimension));
      const auto amount = [&](std::int64_t v) {
        return v < 0 ? "-" + format_amount(name, -v) : format_amount(name, v);
      };
      r += "; " + name + ": " + amount(s.wanted) + " asked, " + amount(s.left) + " left (" +
           amount(s.missing()) + " short)";
    }
    return r;
  };
  (void)preempt::explain_victims(preemptor, state, std::span<const pod* const>(here),
                                 ledger.nominated_to_unlocked(d.node_index),
                                 [&](std::size_t i, const preempt::victim_explanation& e) {
                                   explained = here[i];
                                   out.victims[at[i]].reason = format(e);
                                 });
}

// Whether the pod's own constraints let it run on some other node: its node selector and
// required node affinity, and the taints it must tolerate (the proposal of
// kubernetes/kubernetes#141227); resources are not considered.
bool analysis::model::can_run_elsewhere(const pod& p) const {
  const std::size_t i = static_cast<std::size_t>(p.uid()) - 1;
  if (i >= dump->pods.size()) return true;
  const pod_object& o = dump->pods[i];
  k8s::pod_placement placement = o.placement;
  placement.node_name.clear();
  for (std::size_t n = 0; n < dump->nodes.size(); ++n) {
    const node_object& node = dump->nodes[n];
    if (node.name == o.node_name) continue;
    if (k8s::filter_node(placement,
                         k8s::node_facts{node.name, &node.labels, node.taints, node.unschedulable})
            .passed())
      return true;
  }
  return false;
}

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

std::optional<load_error> analysis::decide_group(const std::string& key, const options& opts,
                                                 group_report& out) const {
  return model_->decide_group(key, opts, out);
}

std::optional<load_error> analysis::model::decide_group(const std::string& key, const options& opts,
                                                        group_report& out) const {
  out = group_report{};
  out.group = key;
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
    if (!o.scheduling_gates.empty())  // kept out of the queue: the group's cycle waits for it
      out.refuse("Pod " + o.key() +
                 ": spec.schedulingGates: a gated member stays out of the queue; the group's "
                 "cycle with gated members is not modelled");
    member_pods.push_back(&p);
    const auto it = node_index.find(o.nominated_node_name);
    nominated.push_back(it == node_index.end() ? wl::no_node : it->second);
  }
  for (std::size_t i = 0; i < dump->pods.size(); ++i)
    if (bound_node[i] != not_bound && groups.links[i].group == g) ++out.scheduled_members;
  for (const pod* p : member_pods)
    if (const pod_object& o = dump->pods[p->uid() - 1]; !o.resource_claims.empty())
      out.refuse(
          "Pod " + o.key() +
          ": spec.resourceClaims: dynamic resource claims are not modelled (kube-scheduler's "
          "DynamicResources filter keeps only the nodes where the claims can be allocated)");
  if (member_pods.empty())
    return load_error{
        "--pod-group " + key +
        ": the PodGroup has no pending member pod (spec.schedulingGroup.podGroupName " + name +
        ", no spec.nodeName)"};

  // Its priority: the group's, or with a CompositePodGroup hierarchy the root's.
  std::size_t top = g;
  for (std::size_t depth = 1, up = groups.parent(g);
       depth < wl::max_tree_depth && up != wl::no_group; ++depth, up = groups.parent(up))
    top = up;
  if (top != g)
    out.warnings.push_back(
        "the PodGroup belongs to " + group_labels[top] +
        ": kube-scheduler schedules the whole hierarchy as one unit; decided here "
        "for this PodGroup's pending members, with the root's priority");
  if (object.topology)
    out.warnings.push_back(
        "the PodGroup's schedulingConstraints.topology was ignored (topology-aware "
        "placement is not modelled)");
  wl::group_preemptor<pod> preemptor;
  preemptor.priority = groups.priority(top);
  preemptor.kind = wl::unit_kind::pod_group;
  preemptor.members = std::span<const pod* const>(member_pods);
  preemptor.nominated_nodes = std::span<const std::size_t>(nominated);
  // PodGroupPreemptionPolicy is alpha and off by default in v1.37: kube-scheduler then ignores
  // the group's spec.preemptionPolicy and the members' policies decide. The API server stores
  // the field only with that gate on, so a group carrying it comes from a cluster whose gates the
  // tool cannot know: where the field would decide otherwise, the decision is refused.
  preemptor.policy =
      wl::resolve_preemption_policy(object.priority.policy, preemptor.members, false);
  if (object.priority.policy &&
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
      out.result = "fits";
      show(where);
      return std::nullopt;
    }
  }

  wl::pod_group_evaluator<group_cluster> ev(
      wl::group_evaluator_config{.now = opts.now, .profile = opts.profile});
  const auto reader = ledger.reader();
  const std::vector<std::size_t> scan_order = snapshot_node_order(*dump);
  const auto& d = ev.evaluate(preemptor, recorded, groups, budgets, reader, place,
                              std::span<const std::size_t>(scan_order));
  out.message = std::string(d.outcome.reason());
  if (!out.message.empty())
    out.message = std::string(wl::pod_group_preemption_prefix) + out.message;
  std::vector<std::size_t> where(member_pods.size(), wl::no_node);
  for (const wl::member_nomination& nm : d.nominations) where[nm.member] = nm.node;
  show(where);
  switch (d.kind) {
    case wl::group_decision_kind::preempt: out.result = "nominated"; break;
    case wl::group_decision_kind::ongoing: out.result = "ongoing"; break;
    case wl::group_decision_kind::not_eligible: out.result = "not-eligible"; break;
    case wl::group_decision_kind::unschedulable: out.result = "unschedulable"; break;
    case wl::group_decision_kind::error: out.result = "error"; break;
  }
  for (const pod* p : d.victims) out.victims.push_back(victim(p));
  out.pdb_violations = d.pdb_violations;
  out.pod_group_disruptions = d.pod_group_disruptions;
  return std::nullopt;
}

using plain_evaluator = preempt::evaluator<cluster_view, preempt::default_policy>;

struct repeated_evaluation::state {
  const analysis::model* m = nullptr;
  std::optional<pod> preemptor;
  std::optional<cluster_view> view;
  std::optional<dra_decision> devices;
  k8s::attachable_names resolved;
  k8s::volume_filters volumes;
  filter_pass filters;
  options opts;
  std::optional<std::size_t> nominated_node;
  std::optional<plain_evaluator> inline_ev, pool_ev;
  std::size_t pool_workers = 0;
  const plain_evaluator::decision_type* last = nullptr;

  template <class E>
  std::size_t run(plain_evaluator& ev, const E& ex) {
    last = &ev.evaluate(*preemptor, *view, filters.statuses, m->budgets, m->ledger.reader(), ex,
                        preempt::attempt{.offset = opts.offset, .nominated_node = nominated_node});
    return last->kind == preempt::decision_kind::nominated ? last->node_index : npos;
  }
};

repeated_evaluation::repeated_evaluation() = default;
repeated_evaluation::~repeated_evaluation() = default;

std::optional<load_error> repeated_evaluation::prepare(const analysis& a,
                                                       const pod_object& preemptor,
                                                       const options& opts) {
  state_ = std::make_unique<state>();
  state& st = *state_;
  st.m = a.model_.get();
  st.opts = opts;
  resolved_pod me;
  if (auto e = st.m->make_preemptor(preemptor, me, st.preemptor)) return e;
  if (!st.m->ours(preemptor))
    return load_error{"Pod " + preemptor.key() + " belongs to scheduler \"" +
                      preemptor.scheduler_name + "\", not " + st.m->scheduler_name +
                      ": nothing to evaluate"};
  st.view.emplace(st.m->cluster, pod_facts_of{&st.m->pod_facts}, node_facts_of{&st.m->node_facts});
  st.m->storage.prepare(preemptor, st.m->node_facts, st.resolved, st.volumes);
  st.m->prefilter(*st.view, preemptor, &st.volumes);
  std::vector<std::string> refusals;
  st.devices.emplace(*st.m->dump, st.m->devices);
  st.devices->prefilter(preemptor, refusals);
  run_filters(*st.m->dump, *st.view, st.m->ledger, preemptor, *st.preemptor, &st.volumes,
              *st.devices, refusals, st.filters);
  if (st.devices->active()) st.view->set_dynamic_resources(st.devices->verdicts());
  if (!st.filters.feasible.empty())
    return load_error{"Pod " + preemptor.key() + " fits node " +
                      st.m->dump->nodes[st.filters.feasible.front()].name + ": nothing to preempt"};
  if (!preemptor.nominated_node_name.empty()) {
    const auto it = st.m->node_index.find(preemptor.nominated_node_name);
    if (it != st.m->node_index.end()) st.nominated_node = it->second;
  }
  preempt::evaluator_config config;
  config.sampling = opts.sampling;
  config.report_only_chosen = true;  // only the decision is read: branch and bound
  st.inline_ev.emplace(config, preempt::default_policy{opts.now});
  return std::nullopt;
}

std::size_t repeated_evaluation::evaluate_inline() {
  return state_->run(*state_->inline_ev, preempt::inline_executor{});
}

std::size_t repeated_evaluation::evaluate_on(preempt::thread_pool& pool) {
  state& st = *state_;
  if (!st.pool_ev || st.pool_workers != pool.size() + 1) {
    preempt::evaluator_config config;
    config.sampling = st.opts.sampling;
    config.parallelism = pool.size() + 1;
    config.report_only_chosen = true;
    st.pool_ev.emplace(config, preempt::default_policy{st.opts.now});
    st.pool_workers = config.parallelism;
  }
  return st.run(*st.pool_ev, pool.get_executor());
}

std::string repeated_evaluation::nominated_node() const {
  const auto* d = state_->last;
  return d && d->kind == preempt::decision_kind::nominated ? std::string(d->node_name)
                                                           : std::string();
}

std::vector<std::string> repeated_evaluation::victims() const {
  std::vector<std::string> out;
  if (const auto* d = state_->last; d && d->kind == preempt::decision_kind::nominated)
    for (const pod* p : d->victims) out.push_back(state_->m->pod_name(p));
  return out;
}

std::size_t repeated_evaluation::nodes_evaluated() const {
  return state_->last ? state_->last->diagnosis.size() : 0;
}

std::optional<load_error> analyze(const cluster_dump& dump, const pod_object& preemptor,
                                  const options& opts, report& out) {
  analysis a;
  if (auto e = a.build(dump)) {
    out = report{};
    return e;
  }
  return a.decide(preemptor, opts, out);
}

std::optional<load_error> find_pending_pod(const cluster_dump& dump, const std::string& key,
                                           pod_object& out) {
  for (const pod_object& p : dump.pods) {
    if (p.key() != key) continue;
    if (!p.node_name.empty())
      return load_error{"--pod-name " + key + ": the pod is not pending: it is bound to node " +
                        p.node_name};
    if (k8s::is_terminal_phase(p.phase))
      return load_error{"--pod-name " + key + ": the pod is not pending: its phase is " + p.phase};
    out = p;
    return std::nullopt;
  }
  return load_error{"--pod-name " + key + ": no such pod in the cluster dump"};
}

}  // namespace whatif
