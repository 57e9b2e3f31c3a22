// preempt/kubernetes/volume_filters.hpp - the four volume plugins of kube-scheduler's default
// profile for one pod to place, in the profile's order: VolumeRestrictions, NodeVolumeLimits,
// VolumeBinding, VolumeZone.
//
// volume_filters::prepare runs their PreFilters in that order; the first rejection is the pod's
// status on every node (prefilter_outcome(): the scheduler runs no Filter then). It then computes,
// once per node, the verdicts no eviction changes: VolumeBinding's (FindPodVolumes), then
// VolumeZone's, both UnschedulableAndUnresolvable when they reject (static_verdict(node)).
// VolumeRestrictions and NodeVolumeLimits depend on the pods of the node (and, for
// ReadWriteOncePod claims, on the pods of the whole cluster): a node state keeps a
// volume_filters_overlay, which prepare_state resets and remove_pod/add_pod update (the AddPod/
// RemovePod of VolumeRestrictions, the node's pods for NodeVolumeLimits), in O(the pod's volumes).
// The overlay's filter() runs the four Filters in order on the node: VolumeRestrictions (disks,
// ReadWriteOncePod), NodeVolumeLimits (driver installed, attach limits), then the static verdict.
//
// What a pod of the cluster brings to a node (pod_volume_facts): its volumes (VolumeRestrictions)
// and the volumes NodeVolumeLimits counts (resolve_attachable, interned with the cluster's
// volume_ids). The pod to place (volume_pod): its identity, volumes and resolve_attachable result.
// checks() is false when every plugin was skipped: a node state then never calls them, and
// preemption may bound victim scores by the resources alone.
//
// Complexity: prepare O(nodes · (claims · volumes of their classes + drivers) + attachments);
// an overlay update O(v · w). Allocation: prepare, and overlays' buffers grow to the largest node.
// No exceptions; read-only (and shareable by threads) once prepared; an overlay belongs to one
// node state. The catalog, ids and the pod's spans must outlive the object.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_VOLUME_FILTERS_HPP
#define PREEMPT_KUBERNETES_VOLUME_FILTERS_HPP

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/kubernetes/filters.hpp"
#include "preempt/kubernetes/node_volume_limits.hpp"
#include "preempt/kubernetes/storage_objects.hpp"
#include "preempt/kubernetes/volume_binding.hpp"
#include "preempt/kubernetes/volume_restrictions.hpp"
#include "preempt/kubernetes/volume_zone.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes {

// What the volume filters read of a pod that joins or leaves a node.
struct pod_volume_facts {
  std::span<const pod_volume> volumes;
  std::span<const attachable_volume> attachable;
};

// The pod to place.
struct volume_pod {
  volume_pod_identity identity;
  std::span<const pod_volume> volumes;
  const attachable_names* attachable = nullptr;  // resolve_attachable(..., new_pod = true)
};

class volume_filters {
 public:
  volume_filters() = default;
  volume_filters(const volume_filters&) = delete;
  volume_filters& operator=(const volume_filters&) = delete;

  // node_facts(i) -> const node_facts&; attachments_of(i) -> the node's VolumeAttachments
  // (node_attachments()); used_by_pods(ns, claim) -> whether a scheduled pod mounts the claim.
  template <class NodeFacts, class NodeAttachments, class UsedByPods>
  void prepare(const volume_pod& pod, const storage_catalog& storage, const volume_ids& ids,
               std::size_t nodes, NodeFacts&& node_facts_of, NodeAttachments&& attachments_of,
               UsedByPods&& used_by_pods) {
    static const attachable_names none;
    static const label_set no_labels;
    verdicts_.clear();
    outcome_ = status::ok();
    restrictions_.prefilter(pod.identity.ns, pod.volumes, storage, used_by_pods);
    if (!restrictions_.outcome()) return reject(restrictions_.outcome());
    limits_.prepare(
        pod.volumes, pod.attachable != nullptr ? *pod.attachable : none, ids, storage, nodes,
        [&](std::size_t i) { return node_facts_of(i).name; }, attachments_of);
    binding_.prefilter(pod.identity, pod.volumes, storage);
    if (!binding_.outcome()) return reject(binding_.outcome());
    zone_.prefilter(pod.identity.ns, pod.volumes, storage);
    if (!zone_.outcome()) return reject(zone_.outcome());
    if (!binding_.active() && !zone_.active()) return;
    verdicts_.reserve(nodes);
    for (std::size_t i = 0; i < nodes; ++i) {
      const node_facts& n = node_facts_of(i);
      const label_set& labels = n.labels != nullptr ? *n.labels : no_labels;
      status st = binding_.find_pod_volumes(n.name, labels, storage.csi_node_named(n.name));
      if (st.is_success()) st = zone_.filter(labels);
      verdicts_.push_back(st);
    }
  }

  // Success, or the first PreFilter's rejection (every node's status).
  const status& prefilter_outcome() const noexcept { return outcome_; }
  // Whether any Filter has something to check.
  bool checks() const noexcept {
    return outcome_.is_success() && (reads_pods() || !verdicts_.empty());
  }
  // Whether a node state must follow the pods that join and leave it.
  bool reads_pods() const noexcept {
    return outcome_.is_success() && (restrictions_.active() || limits_.active());
  }
  // VolumeBinding's, then VolumeZone's verdict on node i.
  status static_verdict(std::size_t node) const noexcept {
    return node < verdicts_.size() ? verdicts_[node] : status::ok();
  }

  const volume_restrictions_prefilter& restrictions() const noexcept { return restrictions_; }
  const node_volume_limits& limits() const noexcept { return limits_; }
  const volume_binding_prefilter& binding() const noexcept { return binding_; }
  const volume_zone_prefilter& zone() const noexcept { return zone_; }

 private:
  void reject(const status& st) { outcome_ = st; }

  volume_restrictions_prefilter restrictions_;
  node_volume_limits limits_;
  volume_binding_prefilter binding_;
  volume_zone_prefilter zone_;
  std::vector<status> verdicts_;
  status outcome_;
};

// One node state's view of the volume filters.
class volume_filters_overlay {
 public:
  // Points the overlay at node i of `filters` (nullptr: no volume filter), with no pod yet: the
  // node's own pods are then added with add_resident.
  void reset(const volume_filters* filters, std::size_t node) {
    filters_ = filters;
    node_ = node;
    if (filters_ == nullptr) return;
    restrictions_.reset(&filters_->restrictions());
    limits_.reset(&filters_->limits(), node);
  }
  // One of the node's own pods, as the state starts at the node (after reset).
  void add_resident(const pod_volume_facts& pod) {
    if (filters_ == nullptr || !filters_->reads_pods()) return;
    restrictions_.add_resident(pod.volumes);
    limits_.update(pod.attachable, +1);
  }
  // A pod joins (+1) or leaves (-1) the node.
  void update(const pod_volume_facts& pod, int sign) {
    if (filters_ == nullptr || !filters_->reads_pods()) return;
    restrictions_.update(pod.volumes, sign);
    limits_.update(pod.attachable, sign);
  }
  // A pod of another node leaves (-1) or joins (+1) while this node is evaluated: upstream's
  // RemovePod/AddPod reach VolumeRestrictions' cluster-wide claim count only (NodeVolumeLimits
  // has no such extension and counts this node's pods).
  void update_elsewhere(const pod_volume_facts& pod, int sign) {
    if (filters_ == nullptr || !filters_->reads_pods()) return;
    restrictions_.update_elsewhere(pod.volumes, sign);
  }
  status filter() const {
    if (filters_ == nullptr) return status::ok();
    if (!filters_->prefilter_outcome()) return filters_->prefilter_outcome();
    if (status st = restrictions_.filter(); !st) return st;
    if (status st = limits_.filter(); !st) return st;
    return filters_->static_verdict(node_);
  }
  bool can_fit() const { return filter().is_success(); }

 private:
  const volume_filters* filters_ = nullptr;
  std::size_t node_ = 0;
  volume_restrictions_overlay restrictions_;
  node_volume_limits_overlay limits_;
};

}  // namespace kubernetes
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_VOLUME_FILTERS_HPP
