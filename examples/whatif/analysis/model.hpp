// examples/whatif/analysis/model.hpp - what the files of the analysis share: the model of a dump
// (analysis::model, built by model.cpp, asked by pod_decision.cpp and group_decision.cpp, and by
// bench/repeated_evaluation.cpp) and the types its members take.
//
// Internal to the analysis: the rest of the tool includes analysis.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_ANALYSIS_MODEL_HPP
#define PREEMPT_WHATIF_ANALYSIS_MODEL_HPP

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/analysis.hpp"
#include "analysis/dra_whatif.hpp"
#include "analysis/storage.hpp"
#include "output/one_line.hpp"
#include "preempt/preempt.hpp"

namespace whatif {

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

inline constexpr std::size_t not_bound = static_cast<std::size_t>(-1);

// A victim condition (kubernetes::filter_cluster's for_each_victim_condition) as the report shows
// it: its name, and its subject (the port as "[ip:]port/protocol").
victim_condition_info describe_condition(const k8s::victim_condition& c);

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

// DynamicResources is the profile's last filter: `devices` gives its verdict on the nodes every
// other filter passes, and computes it for the nodes the dry run may evaluate (Unschedulable).
void run_filters(const cluster_dump& dump, const cluster_view& cluster,
                 const preempt::nomination_ledger<pod, preempt::null_mutex>& ledger,
                 const pod_object& preemptor_object, const pod& preemptor,
                 const k8s::volume_filters* volumes, dra_decision& devices,
                 std::vector<std::string>& refusals, filter_pass& out);

// v1.38's last tie-break between equally important victims (preempt/policy_1_38.hpp): their
// metadata.uid, ascending. A pod without one (a manifest: the API server assigns a random UID at
// creation) leaves that order unknown; the first such pod the order met is kept in `*unknown`,
// and the decision is refused.
struct metadata_uid_less {
  const std::vector<pod_object>* pods = nullptr;
  const pod_object** unknown = nullptr;
  bool operator()(const pod& a, const pod& b) const {
    const pod_object& pa = (*pods)[static_cast<std::size_t>(a.uid()) - 1];
    const pod_object& pb = (*pods)[static_cast<std::size_t>(b.uid()) - 1];
    if ((pa.uid.empty() || pb.uid.empty()) && *unknown == nullptr)
      *unknown = pa.uid.empty() ? &pa : &pb;
    return pa.uid < pb.uid;
  }
};

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
  // What every single-pod decision on this dump refuses (exit 3): inputs whose effect depends on
  // something the dump does not show.
  std::vector<std::string> dump_refusals;
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
  void refuse_hierarchy_if_it_matters();
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
  // Before a group's cycle: kube-scheduler's validatePodGroup over the hierarchy of root `top`,
  // as `profile` checks it (group_decision.cpp); its error message, if any.
  std::optional<std::string> group_validation_error(std::size_t top) const;
  // Group g's spec.preemptionPolicy as kube-scheduler reads it: v1.38's Priority admission sets
  // it from the PriorityClass on a group it admits (one without spec.priority: a manifest).
  std::optional<preempt::preemption_policy> group_preemption_policy(std::size_t g) const;
  void describe(const evaluator_type::decision_type& d, const recorded_nodes& recorded,
                filter_pass& filters, report& out) const;
  void explain_nomination(const cluster_view& view, const evaluator_type::decision_type& d,
                          const pod& preemptor, const pod_object& preemptor_object,
                          const options& opts, const victim_costs* costs, report& out) const;
  void victim_conditions(const cluster_view& view, const evaluator_type::decision_type& d,
                         report& out) const;
  void explain_victims(const cluster_view& view, const evaluator_type::decision_type& d,
                       const pod& preemptor, const pod_object& preemptor_object, report& out) const;
  // --policy spare-reschedulable: could the pod run on a node other than its own?
  bool can_run_elsewhere(const pod& p) const;
};

}  // namespace whatif

#endif  // PREEMPT_WHATIF_ANALYSIS_MODEL_HPP
