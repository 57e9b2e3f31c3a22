// preempt/kubernetes/node_volume_limits.hpp - kube-scheduler's NodeVolumeLimits plugin (CSILimits):
// a node's CSI attach limits (CSINode spec.drivers[].allocatable.count).
//
// resolve_attachable(pod, storage) is filterAttachableVolumes: the volumes of a pod the plugin
// counts, each as a unique name "driver/handle" and its driver. node_volume_limits holds the
// PreFilter and, per node, the Filter's inputs; node_volume_limits_overlay is one node state's
// count as pods join and leave the node. The Filter rejects a node, Unschedulable, where a
// required CSI driver is not installed, or where the pod's new volumes of a driver take the
// node's attached volumes above the driver's limit. The rules in detail are at each.
//
// Complexity: prepare O(nodes · d + attachments) for d drivers of the pod; an update O(v · a) for
// the pod's v counted volumes and the node's a attached ones of those drivers; filter O(n · a).
// Allocation: prepare, and an overlay's buffers grow to the largest node once. No exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_NODE_VOLUME_LIMITS_HPP
#define PREEMPT_KUBERNETES_NODE_VOLUME_LIMITS_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/kubernetes/storage_objects.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes {

inline constexpr std::string_view max_volume_count_reason = "node(s) exceed max volume count";

// A counted volume: its unique name "driver/handle" and its driver, as ids (volume_ids).
struct attachable_volume {
  std::uint32_t unique = 0;
  std::uint32_t driver = 0;
  bool needs_csi_node = false;  // counted only on nodes that have a CSINode (migrated in-tree)
  bool untranslated = false;    // its handle is csi-translation-lib's, not modelled
};

// Names to ids: unique volume names and drivers, shared by every pod of a cluster.
class volume_ids {
 public:
  std::uint32_t unique(const std::string& name) { return intern(uniques_, name); }
  std::uint32_t driver(const std::string& name) {
    const std::uint32_t id = intern(drivers_, name);
    if (id == driver_names_.size()) driver_names_.push_back(name);
    return id;
  }
  std::optional<std::uint32_t> find_driver(const std::string& name) const {
    const auto it = drivers_.find(name);
    return it == drivers_.end() ? std::nullopt : std::optional<std::uint32_t>(it->second);
  }
  std::optional<std::uint32_t> find_unique(const std::string& name) const {
    const auto it = uniques_.find(name);
    return it == uniques_.end() ? std::nullopt : std::optional<std::uint32_t>(it->second);
  }
  std::string_view driver_name(std::uint32_t id) const noexcept { return driver_names_[id]; }
  std::size_t drivers() const noexcept { return driver_names_.size(); }
  std::size_t uniques() const noexcept { return uniques_.size(); }

 private:
  static std::uint32_t intern(std::unordered_map<std::string, std::uint32_t>& m,
                              const std::string& name) {
    return m.emplace(name, static_cast<std::uint32_t>(m.size())).first->second;
  }
  std::unordered_map<std::string, std::uint32_t> uniques_, drivers_;
  std::vector<std::string> driver_names_;
};

// What resolve_attachable found of one pod.
struct attachable_names {
  struct entry {
    std::string unique, driver;
    bool needs_csi_node = false;
    bool untranslated = false;
    const pod_volume* volume = nullptr;
  };
  std::vector<entry> volumes;
  std::optional<std::string> missing;  // the pod to place: the Filter's message for a missing claim
  std::optional<std::string> error;    // an ephemeral claim not controlled by the pod
};

// The pod as NodeVolumeLimits (and VolumeBinding) identify it.
struct volume_pod_identity {
  std::string_view ns, name, uid;
};

namespace detail {

// The in-tree plugins NodeVolumeLimits counts when the node has a CSINode (isCSIMigrationOn).
constexpr bool migration_counted(std::string_view plugin) noexcept {
  return plugin == "kubernetes.io/aws-ebs" || plugin == "kubernetes.io/portworx-volume" ||
         plugin == "kubernetes.io/gce-pd" || plugin == "kubernetes.io/azure-disk" ||
         plugin == "kubernetes.io/cinder";
}

inline std::string owner_error(const volume_pod_identity& pod, std::string_view claim) {
  std::string m = "PVC ";
  m += pod.ns;
  m += '/';
  m += claim;
  m += " was not created for pod ";
  m += pod.ns;
  m += '/';
  m += pod.name;
  m += " (pod is not owner)";
  return m;
}

}  // namespace detail

// ephemeral.VolumeIsForPod: the claim is in the pod's namespace and controlled by the pod.
inline bool claim_is_for_pod(const volume_pod_identity& pod, const persistent_volume_claim& c) {
  return c.ns == pod.ns && c.controller_uid && *c.controller_uid == pod.uid;
}

// The claim a volume names: persistentVolumeClaim's claimName, or <pod>-<volume> for a generic
// ephemeral volume; "" for other sources.
inline std::string claim_name_of(const volume_pod_identity& pod, const pod_volume& v) {
  if (v.source == volume_source::claim) return v.claim_name;
  if (v.source == volume_source::ephemeral) {
    std::string n(pod.name);
    n += '-';
    n += v.name;
    return n;
  }
  return {};
}

// filterAttachableVolumes for one pod; `new_pod` for the pod to place.
//
// resolve_attachable(pod, storage) is filterAttachableVolumes: the volumes of a pod the plugin
// counts, each as a unique name "driver/handle" and its driver:
//   * a claim (persistentVolumeClaim, or a generic ephemeral volume's <pod>-<volume>, which must
//     be controlled by the pod) bound to a CSI PersistentVolume: spec.csi.driver/volumeHandle;
//   * a claim whose volume is not named or not found: its StorageClass's provisioner and a handle
//     of the claim's own ("<random>-namespace/name" upstream), when the class exists; an in-tree
//     provisioner counts as the CSI driver it migrates to, on nodes that have a CSINode;
//   * a claim bound to an in-tree PersistentVolume of a plugin migrated to CSI (aws-ebs, gce-pd,
//     azure-disk, cinder, portworx), and an inline volume of those kinds, count as that driver on
//     nodes that have a CSINode, under the handle csi-translation-lib makes: `untranslated` marks
//     them (the handle's translation is not modelled here);
//   * anything else is not counted; a claim of a pod on the node that is missing is skipped.
// The pod to place: a missing claim is the Filter's UnschedulableAndUnresolvable `looking up PVC
// ns/x: persistentvolumeclaim "x" not found`; an ephemeral claim not controlled by the pod is an
// error for any pod (`PVC ns/x was not created for pod ns/p (pod is not owner)`).
inline attachable_names resolve_attachable(const volume_pod_identity& pod,
                                           std::span<const pod_volume> volumes,
                                           const storage_catalog& storage, bool new_pod) {
  attachable_names out;
  const auto add = [&](std::string driver, std::string handle, bool needs_csi_node,
                       bool untranslated, const pod_volume& v) {
    std::string unique = driver + "/" + handle;
    out.volumes.push_back({std::move(unique), std::move(driver), needs_csi_node, untranslated, &v});
  };
  for (const pod_volume& v : volumes) {
    if (v.source != volume_source::claim && v.source != volume_source::ephemeral) {
      const std::string_view plugin = in_tree_plugin_name(v.source);
      if (migratable(v.source) && detail::migration_counted(plugin))
        add(std::string(migrated_driver_name(plugin)), v.disk, true, true, v);
      continue;
    }
    const std::string claim = claim_name_of(pod, v);
    const persistent_volume_claim* c = storage.claim(pod.ns, claim);
    if (c == nullptr) {
      if (!new_pod) continue;  // a pod of the node: its volume is not counted
      out.missing = "looking up PVC " + std::string(pod.ns) + "/" + claim + ": " +
                    not_found_message("persistentvolumeclaim", claim);
      return out;
    }
    if (v.source == volume_source::ephemeral && !claim_is_for_pod(pod, *c)) {
      out.error = detail::owner_error(pod, claim);
      return out;
    }
    const persistent_volume* pv = c->volume_name.empty() ? nullptr : storage.volume(c->volume_name);
    if (pv != nullptr) {
      if (pv->source == volume_source::csi) {
        add(pv->csi_driver, pv->csi_handle, false, false, v);
      } else if (migratable(pv->source) &&
                 detail::migration_counted(in_tree_plugin_name(pv->source))) {
        add(std::string(migrated_driver_name(in_tree_plugin_name(pv->source))), pv->name, true,
            true, v);
      }
      continue;
    }
    // No volume: the class's provisioner and a handle of the claim's own.
    const std::string_view cls = c->class_or_empty();
    const storage_class* sc = cls.empty() ? nullptr : storage.storage_class_named(cls);
    if (sc == nullptr) continue;
    // "<random>-ns/name" upstream: a prefix no real handle has.
    std::string handle = "\x01-" + c->ns + "/" + c->name;
    const std::string_view driver = migrated_driver_name(sc->provisioner);
    if (!driver.empty()) {
      if (detail::migration_counted(sc->provisioner))
        add(std::string(driver), std::move(handle), true, false, v);
    } else {
      add(sc->provisioner, std::move(handle), false, false, v);
    }
  }
  return out;
}

// The interned form of resolve_attachable's volumes (ids from `ids`, added as needed).
inline std::vector<attachable_volume> intern(const attachable_names& names, volume_ids& ids) {
  std::vector<attachable_volume> out;
  out.reserve(names.volumes.size());
  for (const auto& e : names.volumes)
    out.push_back({ids.unique(e.unique), ids.driver(e.driver), e.needs_csi_node, e.untranslated});
  return out;
}

// A node's VolumeAttachments as the plugin counts them (getNodeVolumeAttachmentInfo): those with
// an attacher and a CSI PersistentVolume that exists, as "attacher/handle".
inline std::vector<attachable_volume> node_attachments(std::string_view node,
                                                       const storage_catalog& storage,
                                                       volume_ids& ids) {
  std::vector<attachable_volume> out;
  for (const volume_attachment* a : storage.attachments_on(node)) {
    if (a->attacher.empty() || !a->volume_name) continue;
    const persistent_volume* pv = storage.volume(*a->volume_name);
    if (pv == nullptr || pv->source != volume_source::csi) continue;
    out.push_back({ids.unique(a->attacher + "/" + pv->csi_handle), ids.driver(a->attacher)});
  }
  return out;
}

// The PreFilter and, per node, what the Filter reads besides the node's pods.
//
// node_volume_limits holds the PreFilter (skipped unless the pod has a claim, an ephemeral or a
// migratable inline volume) and, per node, the Filter's inputs: the driver limits of the pod's
// drivers and the node's VolumeAttachments. Its overlay is one node state's count, updated as pods
// join and leave the node (the plugin has no PreFilterExtensions: it reads the node's pods, so the
// dry run's removals are seen). Filter, in upstream's order: a driver of the pod's new volumes
// whose CSIDriver has preventPodSchedulingIfMissing and is not in the node's CSINode:
// Unschedulable "<driver> CSI driver is not installed on the node" (the first such driver of the
// pod's volumes; upstream takes them in map order: ambiguous_missing_driver tells when two are
// missing); then, for each driver with a limit and with volumes of the pod that no pod of the node
// mounts yet: volumes attached (distinct unique names of the node's pods, plus VolumeAttachments of
// the node not among them) plus those, above the limit: Unschedulable "node(s) exceed max volume
// count" (a driver whose volumes are all mounted already is not checked, however full). A
// VolumeAttachment stays when its pod is evicted: its volume keeps counting.
class node_volume_limits {
 public:
  node_volume_limits() = default;
  node_volume_limits(const node_volume_limits&) = delete;
  node_volume_limits& operator=(const node_volume_limits&) = delete;

  // For the pod to place: its volumes, what resolve_attachable found of them (resolved = its
  // `volumes`), the cluster's ids, and the nodes: node_name(i), and node_attachments(i) (the
  // node's VolumeAttachments, as node_attachments() makes them, with the same ids).
  template <class NodeName, class NodeAttachments>
  void prepare(std::span<const pod_volume> volumes, const attachable_names& resolved,
               const volume_ids& ids, const storage_catalog& storage, std::size_t nodes,
               NodeName&& node_name, NodeAttachments&& attachments_of) {
    active_ = std::any_of(volumes.begin(), volumes.end(), [](const pod_volume& v) {
      return v.source == volume_source::claim || v.source == volume_source::ephemeral ||
             migratable(v.source);
    });
    // The pod's own claims first: a missing one, or an ephemeral one not its own, is the
    // Filter's answer on every node.
    failure_message_.clear();
    failure_ = status::ok();
    if (resolved.error) {
      failure_message_ = *resolved.error;
      failure_ = status::error(failure_message_);
    } else if (resolved.missing) {
      failure_message_ = *resolved.missing;
      failure_ = status::unresolvable(failure_message_);
    }
    drivers_.clear();
    driver_names_.clear();
    messages_.clear();
    new_.clear();
    limits_.clear();
    csi_node_.assign(nodes, 0);
    missing_.assign(nodes, -1);
    ambiguous_.assign(nodes, 0);
    attached_.clear();
    attached_from_.assign(nodes + 1, 0);
    if (!active_) return;
    // A map: one entry per unique name. A name no pod or attachment of the cluster has gets an id
    // past the cluster's.
    std::uint32_t fresh_unique = static_cast<std::uint32_t>(ids.uniques());
    for (std::size_t j = 0; j < resolved.volumes.size(); ++j) {
      const auto& e = resolved.volumes[j];
      const auto seen = std::find_if(resolved.volumes.begin(),
                                     resolved.volumes.begin() + static_cast<std::ptrdiff_t>(j),
                                     [&](const auto& f) { return f.unique == e.unique; });
      if (seen != resolved.volumes.begin() + static_cast<std::ptrdiff_t>(j)) continue;
      const auto known = ids.find_unique(e.unique);
      new_.push_back({known ? *known : fresh_unique++, slot_of(e.driver, ids), e.needs_csi_node});
    }
    const std::size_t k = drivers_.size();
    limits_.assign(nodes * k, -1);
    for (std::size_t i = 0; i < nodes; ++i) {
      const std::string_view name = node_name(i);
      const csi_node* cn = storage.csi_node_named(name);
      csi_node_[i] = cn != nullptr;
      // checkCSIDriverOnNode, in the order of the pod's volumes.
      for (const entry& n : new_) {
        if (n.needs_csi_node && cn == nullptr) continue;
        if (missing_[i] == static_cast<int>(n.slot) ||
            installed(driver_names_[n.slot], storage, cn))
          continue;
        if (missing_[i] < 0)
          missing_[i] = static_cast<int>(n.slot);
        else
          ambiguous_[i] = 1;
      }
      if (cn != nullptr)
        for (const csi_node::driver& d : cn->drivers)
          if (d.count)
            for (std::size_t s = 0; s < k; ++s)
              if (driver_names_[s] == d.name) limits_[i * k + s] = *d.count;
      for (const attachable_volume& a : attachments_of(i)) {
        const std::size_t s = find_slot(a.driver);
        if (s == npos) continue;
        const bool seen =
            std::any_of(attached_.begin() + static_cast<std::ptrdiff_t>(attached_from_[i]),
                        attached_.end(), [&](const entry& e) { return e.unique == a.unique; });
        if (!seen) attached_.push_back({a.unique, static_cast<std::uint32_t>(s), false});
      }
      attached_from_[i + 1] = attached_.size();
    }
  }

  bool active() const noexcept { return active_; }
  // The Filter's status on every node when the pod's own claims fail (else success).
  const status& failure() const noexcept { return failure_; }
  // Drivers of the pod's new volumes ("slots"), their ids and names.
  std::size_t slots() const noexcept { return drivers_.size(); }
  std::string_view driver_name(std::size_t slot) const noexcept { return driver_names_[slot]; }
  std::optional<std::int64_t> limit(std::size_t node, std::size_t slot) const noexcept {
    const std::int64_t l = limits_[node * drivers_.size() + slot];
    return l < 0 ? std::nullopt : std::optional<std::int64_t>(l);
  }
  bool has_csi_node(std::size_t node) const noexcept { return csi_node_[node] != 0; }
  // "<driver> CSI driver is not installed on the node", or nullopt.
  std::optional<std::string_view> missing_driver(std::size_t node) const noexcept {
    if (missing_[node] < 0) return std::nullopt;
    return std::string_view(messages_[static_cast<std::size_t>(missing_[node])]);
  }
  // Two drivers of the pod are missing on the node: upstream names either (Go map order).
  bool ambiguous_missing_driver(std::size_t node) const noexcept { return ambiguous_[node] != 0; }
  std::size_t find_slot(std::uint32_t driver) const noexcept {
    for (std::size_t s = 0; s < drivers_.size(); ++s)
      if (drivers_[s] == driver) return s;
    return npos;
  }
  std::size_t find_slot_named(std::string_view driver) const noexcept {
    for (std::size_t s = 0; s < driver_names_.size(); ++s)
      if (driver_names_[s] == driver) return s;
    return npos;
  }
  bool attached_on(std::size_t node, std::uint32_t unique) const noexcept {
    for (std::size_t j = attached_from_[node]; j < attached_from_[node + 1]; ++j)
      if (attached_[j].unique == unique) return true;
    return false;
  }

  // The attach slots a pod with `volumes` holds on `node` against the pod to place's new volumes:
  // visit(driver name) once per driver of the pod to place that has a limit on the node and of
  // which the pod holds a counted volume no VolumeAttachment of the node already counts.
  template <class Visit>
  void for_each_slot_held(std::size_t node, std::span<const attachable_volume> volumes,
                          Visit&& visit) const {
    if (!active_) return;
    for (std::size_t s = 0; s < drivers_.size(); ++s) {
      if (!limit(node, s)) continue;
      const bool wanted = std::any_of(new_.begin(), new_.end(), [&](const entry& n) {
        return n.slot == s && (!n.needs_csi_node || has_csi_node(node));
      });
      if (!wanted) continue;
      const bool held =
          std::any_of(volumes.begin(), volumes.end(), [&](const attachable_volume& v) {
            return v.driver == drivers_[s] && (!v.needs_csi_node || has_csi_node(node)) &&
                   !attached_on(node, v.unique);
          });
      if (held) visit(std::string_view(driver_names_[s]));
    }
  }

  struct entry {
    std::uint32_t unique = 0;
    std::uint32_t slot = 0;
    bool needs_csi_node = false;
  };
  std::span<const entry> new_volumes() const noexcept { return new_; }
  std::span<const entry> attachments(std::size_t node) const noexcept {
    return std::span<const entry>(attached_).subspan(
        attached_from_[node], attached_from_[node + 1] - attached_from_[node]);
  }

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

 private:
  std::uint32_t slot_of(const std::string& driver, const volume_ids& ids) {
    for (std::size_t s = 0; s < driver_names_.size(); ++s)
      if (driver_names_[s] == driver) return static_cast<std::uint32_t>(s);
    const auto known = ids.find_driver(driver);
    // An unknown driver gets an id past the cluster's: no pod or attachment has it.
    drivers_.push_back(known ? *known
                             : static_cast<std::uint32_t>(ids.drivers() + driver_names_.size()));
    driver_names_.push_back(driver);
    messages_.push_back(driver + " CSI driver is not installed on the node");
    return static_cast<std::uint32_t>(drivers_.size() - 1);
  }
  static bool installed(std::string_view driver, const storage_catalog& storage,
                        const csi_node* cn) {
    const csi_driver* d = storage.driver(driver);
    if (d == nullptr || !d->prevent_scheduling_if_missing) return true;
    if (cn == nullptr) return false;
    return std::any_of(cn->drivers.begin(), cn->drivers.end(),
                       [&](const csi_node::driver& x) { return x.name == driver; });
  }

  bool active_ = false;
  std::string failure_message_;
  status failure_;
  std::vector<std::uint32_t> drivers_;
  std::vector<std::string> driver_names_, messages_;
  std::vector<entry> new_;
  std::vector<std::int64_t> limits_;  // node · slots, -1: no limit
  std::vector<char> csi_node_;
  std::vector<int> missing_;  // per node: the slot of the driver not installed, or -1
  std::vector<char> ambiguous_;
  std::vector<entry> attached_;
  std::vector<std::size_t> attached_from_;
};

// One node state's count of attached volumes per driver of the pod.
class node_volume_limits_overlay {
 public:
  // Points the overlay at node i of the prefilter, with the node's VolumeAttachments and no pod.
  void reset(const node_volume_limits* pre, std::size_t node) {
    pre_ = pre;
    node_ = node;
    refs_.clear();
    counts_.assign(pre_->slots(), 0);
    if (!pre_->active()) return;
    for (const auto& a : pre_->attachments(node)) ++counts_[a.slot];
  }
  // A pod joins (+1) or leaves (-1) the node.
  void update(std::span<const attachable_volume> volumes, int sign) {
    if (!pre_->active() || pre_->slots() == 0) return;
    for (const attachable_volume& v : volumes) {
      if (v.needs_csi_node && !pre_->has_csi_node(node_)) continue;
      const std::size_t s = pre_->find_slot(v.driver);
      if (s == node_volume_limits::npos) continue;
      auto it = std::find_if(refs_.begin(), refs_.end(),
                             [&](const auto& r) { return r.first == v.unique; });
      if (sign > 0) {
        if (it != refs_.end()) {
          ++it->second;
          continue;
        }
        refs_.emplace_back(v.unique, 1);
        if (!pre_->attached_on(node_, v.unique)) ++counts_[s];
      } else {
        if (it == refs_.end()) continue;
        if (--it->second > 0) continue;
        refs_.erase(it);
        if (!pre_->attached_on(node_, v.unique)) --counts_[s];
      }
    }
  }
  status filter() const noexcept {
    if (!pre_->active()) return status::ok();
    if (!pre_->failure()) return pre_->failure();
    bool any_new = false;
    for (const auto& n : pre_->new_volumes())
      if (!n.needs_csi_node || pre_->has_csi_node(node_)) any_new = true;
    if (!any_new) return status::ok();
    if (const auto missing = pre_->missing_driver(node_)) return status::unschedulable(*missing);
    for (std::size_t s = 0; s < pre_->slots(); ++s) {
      const auto limit = pre_->limit(node_, s);
      if (!limit) continue;
      std::int64_t wanted = 0;
      for (const auto& n : pre_->new_volumes()) {
        if (n.slot != s || (n.needs_csi_node && !pre_->has_csi_node(node_))) continue;
        const bool attached = std::any_of(refs_.begin(), refs_.end(),
                                          [&](const auto& r) { return r.first == n.unique; });
        if (!attached) ++wanted;
      }
      // Only drivers with volumes still to attach are checked (upstream's newVolumeCount).
      if (wanted > 0 && counts_[s] + wanted > *limit)
        return status::unschedulable(max_volume_count_reason);
    }
    return status::ok();
  }

 private:
  const node_volume_limits* pre_ = nullptr;
  std::size_t node_ = 0;
  std::vector<std::pair<std::uint32_t, int>> refs_;  // volumes of the pod's drivers, by pods
  std::vector<std::int64_t> counts_;                 // per slot: attached volumes
};

}  // namespace kubernetes
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_NODE_VOLUME_LIMITS_HPP
