// preempt/kubernetes/filters.hpp - the node filters of kube-scheduler's default profile that do
// not depend on the pods of a node, in the profile's order, with upstream reasons.
//
// filter_node(pod, node) runs, and stops at the first that rejects the node:
//   1. NodeUnschedulable  spec.unschedulable, unless the pod tolerates the taint
//                         node.kubernetes.io/unschedulable:NoSchedule   "node(s) were
//                         unschedulable"
//   2. NodeName           spec.nodeName set and different    "node(s) didn't match the requested
//                                                             node name"
//   3. TaintToleration    an untolerated NoSchedule/NoExecute taint
//                                                "node(s) had untolerated taint(s)" (kube-scheduler
//                                                names the taint only in its log)
//   4. NodeAffinity       spec.nodeSelector and required node affinity
//                                                "node(s) didn't match Pod's node
//                                                affinity/selector"
// Each rejection is UnschedulableAndUnresolvable: evicting pods cannot help.
// NodeResourcesFit comes next in the profile and depends on the node's pods: model it with
// model::resource_fit_state (reasons "Too many pods", "Insufficient cpu", ...). A shortage is
// Unschedulable (preemption tries the node), except that kube-scheduler's NodeResourcesFit
// (fitsRequest) makes the node UnschedulableAndUnresolvable when a request exceeds the node's
// whole allocatable amount: exceeds_allocatable() tells that case apart.
// The filters that depend on the pods of a node come next: NodePorts (node_ports.hpp),
// NodeResourcesFit, PodTopologySpread (topology_spread.hpp), InterPodAffinity
// (inter_pod_affinity.hpp); filter_cluster.hpp runs them in this order on a node state, with the
// volume plugins (volume_filters.hpp) after NodeResourcesFit. Not modelled: dynamic resources.
//
// Complexity O(t · k + affinity) per node (see taints.hpp, node_affinity.hpp). Allocation: the
// reason string of a rejection. No exceptions; thread-safe.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_FILTERS_HPP
#define PREEMPT_KUBERNETES_FILTERS_HPP

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/kubernetes/labels.hpp"
#include "preempt/kubernetes/node_affinity.hpp"
#include "preempt/kubernetes/taints.hpp"
#include "preempt/model/resources.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes {

inline constexpr std::string_view node_unschedulable_reason = "node(s) were unschedulable";
inline constexpr std::string_view node_name_reason = "node(s) didn't match the requested node name";
inline constexpr std::string_view unschedulable_taint_key = "node.kubernetes.io/unschedulable";

// What the node filters read of a node.
struct node_facts {
  std::string_view name;
  const label_set* labels = nullptr;  // nullptr: no labels
  std::span<const taint> taints;
  bool unschedulable = false;
  // status.declaredFeatures (NodeDeclaredFeatures: filter_cluster.hpp checks them).
  std::span<const std::string> declared_features = {};
};

// What the node filters read of a pod.
struct pod_placement {
  std::string node_name;                                               // spec.nodeName
  std::vector<std::pair<std::string, std::string>> node_selector_map;  // spec.nodeSelector
  std::optional<kubernetes::node_selector> required_node_affinity;
  std::vector<toleration> tolerations;
};

// The outcome of filter_node: success, or UnschedulableAndUnresolvable with the reason.
struct filter_verdict {
  status_code code = status_code::success;
  std::string reason;

  bool passed() const noexcept { return code == status_code::success; }
};

inline filter_verdict filter_node(const pod_placement& pod, const node_facts& node) {
  const auto reject = [](std::string reason) {
    return filter_verdict{status_code::unschedulable_and_unresolvable, std::move(reason)};
  };
  if (node.unschedulable) {
    const taint cordon{std::string(unschedulable_taint_key), "", std::string(effect_no_schedule)};
    if (!tolerated(cordon, pod.tolerations)) return reject(std::string(node_unschedulable_reason));
  }
  if (!pod.node_name.empty() && pod.node_name != node.name)
    return reject(std::string(node_name_reason));
  if (first_untolerated(node.taints, pod.tolerations) != nullptr)
    return reject(std::string(untolerated_taints_reason));
  const label_set no_labels;  // empty: allocates nothing
  if (!matches_node_selector_and_affinity(pod.node_selector_map, pod.required_node_affinity,
                                          node.labels != nullptr ? *node.labels : no_labels,
                                          node.name))
    return reject(std::string(node_affinity_reason));
  return {};
}

// NodeResourcesFit's escalation: does the pod request, in any dimension but pod slots, more than
// the node's whole allocatable amount? Then no eviction can make room.
inline bool exceeds_allocatable(const model::resource_vector& request,
                                const model::resource_vector& allocatable) noexcept {
  for (std::size_t d = 0; d < request.size(); ++d) {
    if (d == model::resource::pods) continue;
    if (request[d] > 0 && request[d] > allocatable[d]) return true;
  }
  return false;
}

}  // namespace kubernetes
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_FILTERS_HPP
