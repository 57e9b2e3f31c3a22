// examples/whatif/analysis/storage.hpp - the dump's storage as kube-scheduler's volume plugins read
// it (VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone:
// kubernetes/volume_filters.hpp), and what the tool says about the inputs it does not model.
//
// storage_model::build, once per dump: the listers over the storage objects (duplicates are bad
// input), every pod's volumes as NodeVolumeLimits counts them (interned ids), each node's
// VolumeAttachments, and the claims scheduled pods mount (IsPVCUsedByPods).
// storage_model::prepare, per decision: the volume filters of the pod to place.
// storage_model::refuse_unmodelled: the texts for what that decision reads and the tool does not
// model, each naming the object and the field:
//   * a bound in-tree volume migrated to CSI on a node the pod may go to (VolumeBinding matches
//     the node affinity csi-translation-lib rewrites), or an error upstream's VolumeBinding Filter
//     returns there (an invalid claim selector): the scheduling cycle's outcome differs;
//   * NodeVolumeLimits counting, on a node with a limit for the driver, an in-tree volume under
//     the handle csi-translation-lib makes (the pod's or one of the node's pods'), or a pod of the
//     node whose generic ephemeral claim is not its own (upstream's Filter fails with an error).
// refuse_volumes(pod, refuse): every volume a plugin reads, for decisions that do not run the
// volume filters (--pod-group's first-fit placement).
//
// No exceptions of its own; build and prepare allocate; the model is read-only once built.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_STORAGE_HPP
#define PREEMPT_WHATIF_STORAGE_HPP

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "decode/dump.hpp"
#include "io/input.hpp"
#include "preempt/kubernetes/volume_filters.hpp"

namespace whatif {

std::string_view volume_field(const k8s::pod_volume& v) noexcept;
// The same for a source ("awsElasticBlockStore").
std::string_view source_field(k8s::volume_source s) noexcept;

// "Pod ns/name: spec.volumes[i].<source>"
std::string volume_where(const pod_object& p, const k8s::pod_volume& v);

void refuse_volumes(const pod_object& p, const std::function<void(std::string)>& refuse);

class storage_model {
 public:
  // `bound_node[i]`: the node index of dump pod i, or `unbound`.
  std::optional<load_error> build(const cluster_dump& dump,
                                  const std::vector<std::size_t>& bound_node, std::size_t unbound);

  // What the volume filters read of dump pod i when it joins or leaves a node.
  k8s::pod_volume_facts facts(std::size_t i) const noexcept;

  // The volume filters for pod `p` (a pending pod of the dump or the preemptor's own file).
  // `resolved` receives what NodeVolumeLimits counts of its volumes; both must outlive the use.
  void prepare(const pod_object& p, const std::vector<k8s::node_facts>& nodes,
               k8s::attachable_names& resolved, k8s::volume_filters& out) const;

  // Calls refuse(text) for what the decision reads and the tool does not model. reached[i]: node
  // i passed the node filters (its volume Filters may run); nominated(i, visit) visits the dump
  // indices of the pods nominated to node i.
  void refuse_unmodelled(
      const pod_object& p, const k8s::attachable_names& resolved,
      const k8s::volume_filters& filters, const std::vector<char>& reached,
      const std::function<void(std::size_t, const std::function<void(std::size_t)>&)>& nominated,
      const std::function<void(std::string)>& refuse) const;

  // Calls refuse(text) for each storage kind the decision for `p` reads of which the dump holds no
  // object at all while not known to be complete (cluster_dump::holds_every): such a kind was most
  // likely not fetched, and kube-scheduler would read its objects.
  void refuse_absent_kinds(const pod_object& p,
                           const std::function<void(std::string)>& refuse) const;

 private:
  std::string untranslated_volume(const pod_object& p, const k8s::pod_volume& v) const;

  const cluster_dump* dump_ = nullptr;
  const std::vector<std::size_t>* bound_node_ = nullptr;
  std::size_t not_bound_ = 0;
  k8s::storage_catalog catalog_;
  k8s::volume_ids ids_;
  std::vector<std::vector<k8s::attachable_volume>> attachable_;  // per dump pod
  // Per dump pod: its counted in-tree volumes (driver id, volume) whose handle is not modelled.
  std::vector<std::vector<std::pair<std::uint32_t, const k8s::pod_volume*>>> untranslated_;
  std::vector<std::optional<std::string>> errors_;                // per dump pod
  std::vector<std::vector<k8s::attachable_volume>> attachments_;  // per node
  std::unordered_set<std::string> used_claims_;                   // "ns/name"
};

}  // namespace whatif

#endif  // PREEMPT_WHATIF_STORAGE_HPP
