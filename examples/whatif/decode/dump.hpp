// examples/whatif/decode/dump.hpp - the Kubernetes objects preempt-whatif reads, decoded from JSON
// into the adapter's plain types (see include/preempt/kubernetes/).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_DUMP_HPP
#define PREEMPT_WHATIF_DUMP_HPP

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "decode/dra_dump.hpp"
#include "decode/storage_dump.hpp"
#include "preempt/kubernetes/dra/pod_claims.hpp"
#include "preempt/kubernetes/kubernetes.hpp"
#include "preempt/kubernetes/storage_objects.hpp"

namespace whatif {

namespace k8s = preempt::kubernetes;

struct node_object {
  std::string name;
  k8s::label_set labels;
  std::vector<k8s::taint> taints;
  bool unschedulable = false;
  k8s::resource_list allocatable;
  std::vector<std::string> declared_features;  // status.declaredFeatures
  std::uint32_t file = 0;                      // index into cluster_dump::files
};

struct pod_object {
  std::string ns;
  std::string name;
  // metadata.uid: the owner a generic ephemeral volume's claim and a ResourceClaim name.
  std::string uid;
  k8s::label_set labels;
  // Only the annotation --victim-cost names, when it does (kinds::read_extra_fields).
  k8s::label_set annotations;
  k8s::pod_priority_spec priority;
  std::string node_name;            // spec.nodeName
  std::string scheduler_name;       // spec.schedulerName ("" means default-scheduler)
  std::string nominated_node_name;  // status.nominatedNodeName
  std::string phase;
  std::optional<preempt::timestamp> start_time;
  std::optional<preempt::timestamp> created;  // metadata.creationTimestamp
  bool deleting = false;                      // metadata.deletionTimestamp is set
  bool terminating_by_preemption = false;
  // Effective requests of the pod to place (init containers, sidecars, pod level, overhead: the
  // spec, k8s::effective_requests), and, when they differ, of the pod as counted on a node or a
  // nominated node (k8s::node_requests: an in-place resize's status).
  k8s::resource_list requests;
  std::optional<k8s::resource_list> node_requests;
  const k8s::resource_list& counted_requests() const {
    return node_requests ? *node_requests : requests;
  }
  // Read for pods without spec.nodeName only (the pending pods, among them the preemptor).
  k8s::pod_placement placement;
  // Host ports of the containers and sidecars (NodePorts), read for every pod.
  std::vector<k8s::host_port> host_ports;
  // Required pod (anti-)affinity terms (InterPodAffinity), read for every pod: a placed pod's
  // anti-affinity terms bind the pods that come later.
  std::vector<k8s::affinity_term> affinity_terms;
  std::vector<k8s::affinity_term> anti_affinity_terms;
  // spec.topologySpreadConstraints (PodTopologySpread), read with the placement.
  std::vector<k8s::spread_constraint> spread;
  // spec.volumes the volume plugins read (claims, ephemeral, inline CSI and in-tree disks; not
  // emptyDir, configMap, secret, projected, ...), each with its position in spec.volumes.
  std::vector<k8s::pod_volume> volumes;
  // spec.schedulingGroup.podGroupName: the PodGroup (same namespace) the pod belongs to.
  std::optional<std::string> pod_group;
  // spec.schedulingGates[].name: the pod stays in the queue while any remains (SchedulingGates).
  std::vector<std::string> scheduling_gates;
  std::optional<std::string> runtime_class;  // spec.runtimeClassName
  // The node features the pod requires (NodeDeclaredFeatures' InferForPodScheduling), read with
  // the placement.
  std::vector<std::string> required_features;
  // The preemptor read from its own file (--pod): its containers and overhead as written, for
  // the API server's admission (admission.hpp); null for the pods of the dump.
  std::shared_ptr<const k8s::pod_resources> manifest;
  // What the API server would do to the manifest that the dump cannot tell (admission.hpp):
  // each decision for this pod is refused with these.
  std::vector<std::string> not_modelled;
  // DynamicResources: spec.resourceClaims, status.resourceClaimStatuses (and `uid` above).
  std::vector<k8s::dra::pod_claim> resource_claims;
  std::vector<k8s::dra::pod_claim_status> claim_statuses;
  // Where the object came from, for messages: the input file and "items[i]" position.
  std::uint32_t file = 0;
  std::size_t item = 0;
  // The preemptor read from its own file (--pod): that file's name; "" for pods of the dump.
  std::string source;

  std::string key() const { return ns + "/" + name; }
};

struct pdb_object {
  std::string ns;
  std::string name;
  std::optional<k8s::label_selector> selector;  // nullopt: no selector (matches nothing)
  std::int32_t disruptions_allowed = 0;
  std::vector<std::string> disrupted_pods;  // status.disruptedPods keys (pod names)
  std::uint32_t file = 0;
};

// A PodGroup (scheduling.k8s.io/v1beta1) or CompositePodGroup (scheduling.k8s.io/v1alpha3): what
// preemption reads of it.
struct group_object {
  enum class kind_type : std::uint8_t { pod_group, composite_pod_group };
  kind_type kind = kind_type::pod_group;
  std::string ns;
  std::string name;
  std::string parent;        // spec.parentCompositePodGroupName ("" when none)
  bool disrupt_all = false;  // spec.disruptionMode is {all: {}} (unset and {single: {}} are not)
  // spec.priority, spec.priorityClassName and spec.preemptionPolicy.
  k8s::pod_priority_spec priority;
  bool gang = false;           // spec.schedulingPolicy.gang (else basic)
  std::int32_t min_count = 0;  // gang.minCount (minGroupCount for a CompositePodGroup)
  bool topology = false;       // spec.schedulingConstraints.topology is not empty
  std::uint32_t file = 0;

  std::string key() const { return ns + "/" + name; }
  std::string_view kind_name() const {
    return kind == kind_type::pod_group ? "PodGroup" : "CompositePodGroup";
  }
};

// A RuntimeClass (node.k8s.io/v1): what RuntimeClass admission copies into a pod.
struct runtime_class_object {
  std::string name;
  std::optional<k8s::resource_list> overhead;                      // overhead.podFixed
  std::vector<std::pair<std::string, std::string>> node_selector;  // scheduling.nodeSelector
  std::vector<k8s::toleration> tolerations;                        // scheduling.tolerations
  std::uint32_t file = 0;
};

// A LimitRange: its Container items' defaults, as LimitRanger applies them to a new pod.
struct limit_range_object {
  struct item {
    std::string type;  // Container, Pod, PersistentVolumeClaim
    k8s::resource_list default_request, default_limit, min, max;
    k8s::resource_list max_limit_request_ratio;  // maxLimitRequestRatio
  };
  std::string ns;
  std::string name;
  std::vector<item> limits;  // spec.limits
  std::uint32_t file = 0;
};

struct namespace_object {
  std::string name;
  k8s::label_set labels;
  std::uint32_t file = 0;
};

struct cluster_dump {
  std::vector<std::string> files;  // display names of the inputs
  std::vector<node_object> nodes;
  std::vector<pod_object> pods;
  std::vector<pdb_object> pdbs;
  std::vector<namespace_object> namespaces;  // the targets of namespaceSelector
  std::vector<k8s::priority_class> classes;
  std::vector<std::uint32_t> class_files;
  std::vector<group_object> groups;  // PodGroups and CompositePodGroups, in input order
  std::vector<runtime_class_object> runtime_classes;
  std::vector<limit_range_object> limit_ranges;
  std::size_t workloads = 0;  // Workload objects read (preemption does not use them)
  dra_objects dra;            // ResourceClaims, DeviceClasses, ResourceSlices, ...
  storage_dump storage;  // PersistentVolumeClaims, PersistentVolumes, StorageClasses, CSI objects
  std::map<std::string, std::size_t> ignored;  // objects of kinds the tool does not read, by kind
  // What reading the inputs noted (API resources the cluster does not serve, ...), shown with the
  // analysis' warnings.
  std::vector<std::string> input_warnings;
  // What kube-scheduler may read that the inputs could not hold (kinds a failed discovery did not
  // list): every decision is refused with these (exit status 3).
  std::vector<std::string> input_refusals;
  // The kinds of which the inputs hold every object the cluster has (the kinds the kubectl plugin
  // read; all of them with --complete-dump). A kind the dump holds no object of may simply not
  // have been fetched: where kube-scheduler would read one, the decision is refused, unless the
  // kind is known to be complete (then none exists, and the decision is upstream's).
  std::set<std::string, std::less<>> complete_kinds;
  bool complete_dump = false;
  bool holds_every(std::string_view kind) const {
    return complete_dump || complete_kinds.find(kind) != complete_kinds.end();
  }
};

// "<file>: <kind> <id>": where an object of the dump came from, for messages.
inline std::string object_where(const cluster_dump& dump, std::uint32_t file, std::string_view kind,
                                std::string_view id) {
  std::string m = file < dump.files.size() ? dump.files[file] : std::string("<input>");
  m += ": ";
  m += kind;
  m += ' ';
  m += id;
  return m;
}

}  // namespace whatif

#endif  // PREEMPT_WHATIF_DUMP_HPP
