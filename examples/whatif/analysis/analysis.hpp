// examples/whatif/analysis/analysis.hpp - the what-if analysis: a cluster dump and a pending pod
// in, the scheduler's preemption decision out, with everything needed to explain it.
//
// analysis::build() makes the library's ready model of the dump (model::resource_cluster with a
// resource_fit_state per node, model::budget_table, a nomination_ledger of the pending pods that
// carry status.nominatedNodeName); analysis::decide() runs kube-scheduler's filters for a pod on
// every node (kubernetes/filters.hpp, then resources with the nominated pods, two passes), and,
// when no node fits, runs preempt::evaluator with upstream's defaults on an inline executor.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_ANALYSIS_HPP
#define PREEMPT_WHATIF_ANALYSIS_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "decode/dump.hpp"
#include "io/loader.hpp"
#include "preempt/policy_options.hpp"
#include "preempt/sampling.hpp"
#include "preempt/status.hpp"
#include "preempt/upstream_profile.hpp"

namespace whatif {

// The scheduler a decision is taken for when the command line names none.
inline constexpr std::string_view default_scheduler_name = "default-scheduler";

struct options {
  preempt::sampling_args sampling;
  std::size_t offset = 0;
  // The clock when the decision is taken: a victim without a start time counts as started then
  // (upstream reads time.Now() as it builds each victim), the victims of a node that lack one in
  // the order the node lists its pods (preempt::default_policy::more_important_as_built).
  preempt::timestamp now = 0;
  // The kube-scheduler release decided as (--kubernetes-version; budgets are matched at build).
  preempt::upstream_profile profile = preempt::default_upstream_profile;
  // Opt-in policies beyond upstream (--policy, --min-runtime; policies.hpp): none by default.
  preempt::policy_options policies;
  // --victim-cost: the label or annotation holding a pod's cost ("" key: one per pod).
  bool cost_from_annotation = false;
  std::string cost_key;
  // --victim-reasons: per victim, the filter condition its eviction relieves.
  bool victim_reasons = false;
};

// What a decision comes to (report::result, group_report::result); output/ writes each as the
// JSON and text outputs name it (to_string in output.hpp: "nominated", "not-eligible", ...).
enum class result_kind {
  none,             // no decision taken (an empty report)
  nominated,        // victims chosen (a group: possibly none), the pod nominated to their node
  fits,             // no preemption needed
  not_eligible,     // the pod may not preempt now
  unschedulable,    // preemption cannot help
  other_scheduler,  // the pod's schedulerName is not the scheduler decided for: nothing decided
  running,          // no decision at all (queue_entry.hpp): a pod of the dump, bound
  bound,            // spec.nodeName is set: never queued
  gated,            // held in the queue (scheduling gates, DynamicResources' PreEnqueue)
  deleting,         // being deleted: kube-scheduler skips it when it leaves the queue
  ongoing,          // a group: an earlier preemption is still under way
  error,            // a group: its validation or the evaluation failed
};

// A filter condition of the preemptor's that a victim's presence on the chosen node triggers
// (kubernetes::filter_cluster's for_each_victim_condition): "host-port", "victim-anti-affinity",
// "preemptor-anti-affinity", "topology-spread", "disk-conflict", "read-write-once-pod",
// "csi-attach-slot"; the detail names the port, topology key, disk, claim or driver.
struct victim_condition_info {
  std::string condition;
  std::string detail;
};

struct victim_info {
  std::string name;  // namespace/name
  std::int32_t priority = 0;
  std::optional<preempt::timestamp> start_time;
  std::vector<std::string> budgets;  // "namespace/name (N allowed)" of every budget it counts in
  // With pod groups: "PodGroup ns/name" (or CompositePodGroup) when the pod is evicted with its
  // group's unit, "" when alone; and the priority preemption compared (its group's).
  std::string unit;
  std::int32_t effective_priority = 0;
  // With --victim-reasons: what keeping it would leave short ("Insufficient cpu: 2 asked, 500m
  // left"). With --victim-cost: its cost.
  std::string reason;
  std::int64_t cost = 1;
  // The preemptor's filter conditions beyond resources that the victim triggers (every victim
  // frees resources); empty for a victim on another node (evicted with its group's unit).
  std::vector<victim_condition_info> conditions;
};

struct node_report {
  std::string name;
  // The filter verdict, or the dry run's for an evaluated node (JSON: preempt::to_string).
  preempt::status_code status = preempt::status_code::success;
  std::string reason;  // the reasons, joined by ", "
  std::vector<std::string> victims;
  std::int64_t pdb_violations = 0;
  bool evaluated = false;  // by the preemption dry run (else: the filter verdict)
  // A candidate's upstream scores (preempt::default_scores, higher is better), as the dry run
  // computed them: what choosing among candidates compares (--offsets all). Not in any output.
  std::array<std::int64_t, 5> scores{};
};

struct report {
  std::string preemptor;  // namespace/name
  std::int32_t priority = 0;
  std::string priority_class;
  bool may_preempt = true;  // preemptionPolicy is not Never
  k8s::resource_list requests;

  // nominated, fits, not_eligible, unschedulable, or other_scheduler (the pod's schedulerName is
  // not the scheduler decided for: nothing decided); running, bound or gated (queue_entry.hpp)
  result_kind result = result_kind::none;
  std::string nominated_node;
  std::vector<victim_info> victims;  // descending importance
  std::int64_t pdb_violations = 0;
  // The victims that take a budget below zero when only they are evicted (what the API server's
  // eviction would refuse; preempt::count_budget_violations). Only in the policy comparison.
  std::int64_t budgets_exceeded = 0;
  std::vector<std::string> cleared_nominations;
  std::string message;
  // "fits": the feasible nodes; otherwise every node, in input order.
  std::vector<node_report> nodes;
  // Indices into `nodes` of the nodes the dry run evaluated, in evaluation order.
  std::vector<std::size_t> evaluation_order;

  std::string decided_by;  // which tie-break settled the choice ("" unless nominated)
  // The candidates still tied when the deciding criterion was applied, with their value for it
  // (the chosen node first). Empty when there was a single candidate.
  std::vector<std::pair<std::string, std::string>> tie_break;
  std::size_t candidates = 0;
  std::size_t potential_nodes = 0;
  std::size_t candidates_wanted = 0;
  std::size_t offset = 0;
  std::size_t total_nodes = 0;
  std::vector<std::string> warnings;
  // How many of `warnings` come first from the dump itself (the same for every pod); the rest
  // are about this pod. Not part of any output contract.
  std::size_t dump_warnings = 0;
  // What kube-scheduler reads for this decision that the tool does not model, each naming the
  // object, the field and what is missing. Any entry means the answer may not be kube-scheduler's:
  // each is in `warnings` too ("not modelled: ..."), and the tool exits with status 3.
  std::vector<std::string> not_modelled;
  void refuse(std::string what) {
    warnings.push_back("not modelled: " + what);
    not_modelled.push_back(std::move(what));
  }

  // Wall-clock seconds: building the model (nodes, pods, budgets, nominations), then deciding
  // (filters on every node and the preemption evaluation). Not part of any output contract.
  double build_seconds = 0;
  double decide_seconds = 0;
  // The same phases in processor time of the process (insensitive to other load on the machine).
  double build_cpu_seconds = 0;
  double decide_cpu_seconds = 0;
};

// How the tool places a pending pod group (upstream re-runs the pod-group scheduling algorithm,
// the profile's filters and scores, on the cluster without the potential victims). Shown in the
// output and the README.
inline constexpr const char* group_placement_method =
    "first fit: the pending members in input order, each on the first node in input order that "
    "passes the node filters and has room with the nominated pods and the members placed before "
    "it; no scoring";
// The same inside a v1.38 preemption, where DefaultPreemption's RankNodes orders each member's
// nodes by the victims it would condemn there.
inline constexpr const char* group_placement_method_1_38 =
    "first fit: the pending members in input order, each on the first node that passes the node "
    "filters and has room with the nominated pods and the members placed before it, the nodes "
    "in input order, or in a preemption in RankNodes' order (the fewest and least important "
    "victims it would newly condemn first, input order among equals); no scoring";

// The decision for a pending pod group (--pod-group).
struct group_report {
  std::string group;  // namespace/name of the PodGroup
  std::int32_t priority = 0;
  std::string policy;      // PreemptLowerPriority or Never, as resolved
  std::string scheduling;  // "gang, minCount 3" or "basic"
  std::size_t scheduled_members = 0;
  // Pending members being deleted (metadata.deletionTimestamp): kube-scheduler leaves them out
  // of the cycle (skipPodGroupPodSchedule). With result `deleting`, every pending member is.
  std::size_t deleting_members = 0;
  // The pending members in placement order, and where the tool placed each ("" = nowhere; for
  // `ongoing`, the member's current nomination).
  std::vector<std::pair<std::string, std::string>> members;
  // fits (no preemption needed), nominated (victims chosen, possibly none), ongoing (an earlier
  // preemption is still under way), not_eligible, unschedulable, deleting (no cycle runs), error
  // (the group failed kube-scheduler's validation, message says why, or the evaluation failed)
  result_kind result = result_kind::none;
  std::string message;  // upstream's status message, "pod group preemption: ..." ("" for fits)
  std::vector<victim_info> victims;  // whole units, descending importance
  std::int64_t pdb_violations = 0;
  std::size_t pod_group_disruptions = 0;
  std::string placement = group_placement_method;
  std::vector<std::string> warnings;
  // As report::not_modelled: inputs the decision depends on that the tool does not model (exit 3).
  std::vector<std::string> not_modelled;
  void refuse(std::string what) {
    warnings.push_back("not modelled: " + what);
    not_modelled.push_back(std::move(what));
  }
};

// The model of one dump, built once and asked for as many decisions as wanted: each decision is
// taken on its own against the same cluster (a decision changes nothing in the model).
class analysis {
 public:
  analysis();
  ~analysis();
  analysis(analysis&&) noexcept;
  analysis& operator=(analysis&&) noexcept;

  // Builds the model of `dump`, which must outlive the analysis, as the scheduler
  // `scheduler_name` sees it: its pod nominator holds only the pending pods of that scheduler
  // (spec.schedulerName, "" meaning default-scheduler), as kube-scheduler's queue does. Errors
  // are bad input the loader could not see alone (duplicate objects, an unknown PriorityClass),
  // the first a single pass would meet. Runs on two threads: the pods' keys beside their nodes,
  // then the budgets beside the pods. Budgets select pods as the release `profile` does.
  std::optional<load_error> build(
      const cluster_dump& dump, std::string_view scheduler_name = default_scheduler_name,
      preempt::upstream_profile profile = preempt::default_upstream_profile);

  // The decision for `preemptor` (a pending pod of the dump or one read from its own file).
  // Errors: its PriorityClass does not exist.
  std::optional<load_error> decide(const pod_object& preemptor, const options& opts,
                                   report& out) const;

  // The decision for the pending PodGroup `namespace/name` of the dump (workload-aware
  // preemption, KEP-5710). Errors: no such PodGroup, no pending member.
  std::optional<load_error> decide_group(const std::string& key, const options& opts,
                                         group_report& out) const;

  // The pending pods of the dump of that scheduler (indices into cluster_dump::pods) in its queue
  // order: priority descending, then creation time (pods without one last), then namespace/name.
  std::vector<std::size_t> pending_in_queue_order() const;

  // What kube-scheduler's actions change, applied to the model so that the next decision sees
  // them (--plan, plan.hpp). `pod` indexes cluster_dump::pods; the dump itself is not changed.
  // A bound pod deleted (a victim, once gone); nothing when it is on no node of the model.
  void remove_bound_pod(std::size_t pod);
  // A pending pod of this scheduler bound to `node`: it counts there (and in every budget whose
  // selector matches it) from now on, and its nomination is gone.
  void bind_pending_pod(std::size_t pod, std::size_t node);
  // A pending pod of this scheduler nominated to `node`, or its nomination cleared (nullopt).
  void set_nomination(std::size_t pod, std::optional<std::size_t> node);

  // What the model ignored (pods on unknown nodes, invalid budget selectors, ...).
  const std::vector<std::string>& warnings() const noexcept;
  // Seconds building the model (wall clock and processor time).
  double build_seconds() const noexcept;
  double build_cpu_seconds() const noexcept;

 private:
  friend class repeated_evaluation;
  struct model;
  std::unique_ptr<model> model_;
};

// Builds the model and decides for one pod (analysis::build, then decide).
std::optional<load_error> analyze(const cluster_dump& dump, const pod_object& preemptor,
                                  const options& opts, report& out);

// Finds the pending pod `namespace/name` in the dump.
std::optional<load_error> find_pending_pod(const cluster_dump& dump, const std::string& key,
                                           pod_object& out);

}  // namespace whatif

#endif  // PREEMPT_WHATIF_ANALYSIS_HPP
