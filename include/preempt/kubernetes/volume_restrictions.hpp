// preempt/kubernetes/volume_restrictions.hpp - kube-scheduler's VolumeRestrictions plugin:
// in-tree disks two pods may not share on a node, and ReadWriteOncePod claims across the cluster.
//
// PreFilter (volume_restrictions_prefilter::prefilter) looks up every persistentVolumeClaim volume
// of the pod (generic ephemeral volumes are not looked up): a missing claim rejects the pod
// everywhere, UnschedulableAndUnresolvable `persistentvolumeclaim "x" not found`. It keeps the
// names of the pod's ReadWriteOncePod claims and counts those some scheduled pod uses (upstream's
// IsPVCUsedByPods, a question the caller answers). With neither a disk to check nor such a count,
// the plugin is skipped: its Filter never runs.
// Filter (volume_restrictions_overlay::filter), in this order:
//   * a gcePersistentDisk, awsElasticBlockStore, iscsi or rbd volume of the pod conflicts with a
//     volume of a pod on the node (volume_conflict): Unschedulable "node(s) had no available disk";
//   * the count of ReadWriteOncePod references is above zero: Unschedulable "node(s) unavailable
//     due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another
//     pod".
// AddPod/RemovePod (the overlay's update) move that count by the number of the pod's
// persistentVolumeClaim volumes whose claim NAME is one of the set (upstream compares names only,
// in any namespace), so evicting the holder frees the claim in the dry run; the node's disk
// conflicts follow the pods added and removed. A pod of another node (a pod group's member evicted
// with its group) moves the count only (update_elsewhere).
//
// Complexity: prefilter O(v log c) for v volumes and c claims; an update O(v · w) for the pod's
// and the preemptor's volumes (zero work when the plugin is skipped). Allocation: prefilter only.
// No exceptions; the prefilter is read-only once made, each overlay belongs to one node state.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_VOLUME_RESTRICTIONS_HPP
#define PREEMPT_KUBERNETES_VOLUME_RESTRICTIONS_HPP

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/kubernetes/storage_objects.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes {

inline constexpr std::string_view disk_conflict_reason = "node(s) had no available disk";
inline constexpr std::string_view read_write_once_pod_conflict_reason =
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already "
    "in-use by another pod";

// The volumes whose conflicts the Filter checks (needsRestrictionsCheck).
constexpr bool needs_restrictions_check(const pod_volume& v) noexcept {
  return v.source == volume_source::gce_pd || v.source == volume_source::aws_ebs ||
         v.source == volume_source::rbd || v.source == volume_source::iscsi;
}

// Does `v` conflict with a volume of a pod whose volumes are `existing` (isVolumeConflict)?
//   gcePersistentDisk: the same pdName, unless both are read-only;
//   awsElasticBlockStore: the same volumeID;
//   iscsi: the same iqn, unless both are read-only;
//   rbd: a monitor in common, the same pool and image, unless both are read-only.
inline bool volume_conflict(const pod_volume& v, std::span<const pod_volume> existing) noexcept {
  for (const pod_volume& e : existing) {
    if (e.source != v.source) continue;
    const bool both_read_only = v.read_only && e.read_only;
    switch (v.source) {
      case volume_source::gce_pd:
      case volume_source::iscsi:
        if (v.disk == e.disk && !both_read_only) return true;
        break;
      case volume_source::aws_ebs:
        if (v.disk == e.disk) return true;
        break;
      case volume_source::rbd: {
        const bool overlap = std::any_of(v.monitors.begin(), v.monitors.end(), [&](const auto& m) {
          return std::find(e.monitors.begin(), e.monitors.end(), m) != e.monitors.end();
        });
        if (overlap && v.pool == e.pool && v.disk == e.disk && !both_read_only) return true;
        break;
      }
      default: break;
    }
  }
  return false;
}

class volume_restrictions_prefilter {
 public:
  // The plugin's PreFilter for a pod of namespace `ns` with `volumes`. used_by_pods(ns, name)
  // tells whether a scheduled pod uses the claim ns/name.
  template <class UsedByPods>
  void prefilter(std::string_view ns, std::span<const pod_volume> volumes,
                 const storage_catalog& storage, UsedByPods&& used_by_pods) {
    wanted_ = volumes;
    claims_.clear();
    message_.clear();
    outcome_ = status::ok();
    conflicting_refs_ = 0;
    checks_disks_ = std::any_of(volumes.begin(), volumes.end(),
                                [](const pod_volume& v) { return needs_restrictions_check(v); });
    for (const pod_volume& v : volumes) {
      if (v.source != volume_source::claim) continue;
      const persistent_volume_claim* c = storage.claim(ns, v.claim_name);
      if (c == nullptr) {
        message_ = not_found_message("persistentvolumeclaim", v.claim_name);
        outcome_ = status::unresolvable(message_);
        active_ = false;
        return;
      }
      if ((c->access_modes & read_write_once_pod) == 0) continue;
      if (std::find(claims_.begin(), claims_.end(), c->name) == claims_.end())
        claims_.push_back(c->name);
    }
    for (const std::string& name : claims_)
      if (used_by_pods(ns, std::string_view(name))) ++conflicting_refs_;
    active_ = checks_disks_ || conflicting_refs_ != 0;
  }

  // The PreFilter's status: success, or the missing claim's rejection.
  const status& outcome() const noexcept { return outcome_; }
  // Whether the Filter runs (PreFilter neither rejected nor skipped).
  bool active() const noexcept { return active_; }
  bool checks_disks() const noexcept { return checks_disks_; }
  int conflicting_refs() const noexcept { return conflicting_refs_; }

  // How many of the pod's persistentVolumeClaim volumes name a claim of the set (AddPod/RemovePod).
  int references(std::span<const pod_volume> pod_volumes) const noexcept {
    int n = 0;
    for (const pod_volume& v : pod_volumes)
      if (v.source == volume_source::claim &&
          std::find(claims_.begin(), claims_.end(), v.claim_name) != claims_.end())
        ++n;
    return n;
  }
  // The first of the pod's ReadWriteOncePod claims a pod with these volumes references, or "".
  std::string_view referenced_claim(std::span<const pod_volume> pod_volumes) const noexcept {
    for (const pod_volume& v : pod_volumes)
      if (v.source == volume_source::claim &&
          std::find(claims_.begin(), claims_.end(), v.claim_name) != claims_.end())
        return v.claim_name;
    return {};
  }
  // Does a pod with these volumes conflict with one of the pod's disks?
  bool conflicts(std::span<const pod_volume> pod_volumes) const noexcept {
    return conflicting_disk(pod_volumes) != nullptr;
  }
  // The first of the pod's disks a pod with these volumes conflicts with, or nullptr.
  const pod_volume* conflicting_disk(std::span<const pod_volume> pod_volumes) const noexcept {
    if (!checks_disks_) return nullptr;
    for (const pod_volume& v : wanted_)
      if (needs_restrictions_check(v) && volume_conflict(v, pod_volumes)) return &v;
    return nullptr;
  }

 private:
  std::span<const pod_volume> wanted_;
  std::vector<std::string> claims_;  // names of the ReadWriteOncePod claims (a set)
  std::string message_;
  status outcome_;
  int conflicting_refs_ = 0;
  bool checks_disks_ = false;
  bool active_ = false;
};

// One node's what-if view: the pods on the node that conflict with the pod's disks, and the
// change of the ReadWriteOncePod count by the pods added and removed.
class volume_restrictions_overlay {
 public:
  // Points the overlay at the prefilter's pod, with no pod added or removed yet.
  void reset(const volume_restrictions_prefilter* pre) noexcept {
    pre_ = pre;
    conflicting_pods_ = delta_ = 0;
  }
  // One of the node's own pods, as the node state starts (the cluster-wide count has it).
  void add_resident(std::span<const pod_volume> pod_volumes) noexcept {
    if (pre_->active() && pre_->conflicts(pod_volumes)) ++conflicting_pods_;
  }
  // A pod joins (+1) or leaves (-1) the node: a pod of the node, or a nominated one.
  void update(std::span<const pod_volume> pod_volumes, int sign) noexcept {
    if (!pre_->active()) return;
    update_elsewhere(pod_volumes, sign);
    if (pre_->conflicts(pod_volumes)) conflicting_pods_ += sign;
  }
  // A pod of another node leaves (-1) or joins (+1) the cluster while this node is evaluated (a
  // pod group's member evicted with its group): only the cluster-wide ReadWriteOncePod count
  // moves, as upstream's RemovePod/AddPod do; this node's disks stay as they are.
  void update_elsewhere(std::span<const pod_volume> pod_volumes, int sign) noexcept {
    if (!pre_->active()) return;
    delta_ += sign * pre_->references(pod_volumes);
  }
  status filter() const noexcept {
    if (!pre_->active()) return status::ok();
    if (conflicting_pods_ > 0) return status::unschedulable(disk_conflict_reason);
    if (pre_->conflicting_refs() + delta_ > 0)
      return status::unschedulable(read_write_once_pod_conflict_reason);
    return status::ok();
  }

 private:
  const volume_restrictions_prefilter* pre_ = nullptr;
  int conflicting_pods_ = 0;
  int delta_ = 0;
};

}  // namespace kubernetes
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_VOLUME_RESTRICTIONS_HPP
