// preempt/kubernetes/storage_objects.hpp - the storage objects kube-scheduler's volume plugins
// read (a pod's spec.volumes, PersistentVolumeClaim, PersistentVolume, StorageClass, CSINode,
// CSIDriver, VolumeAttachment, CSIStorageCapacity), as plain structs, and storage_catalog, the
// listers over them.
//
// Each struct holds what VolumeRestrictions, NodeVolumeLimits, VolumeBinding and VolumeZone read
// of its kind, already as the API server defaults it: a StorageClass without volumeBindingMode is
// Immediate, a PersistentVolume without status.phase is Pending, a CSIDriver without
// storageCapacity or preventPodSchedulingIfMissing has them false, an RBD volume without a pool
// uses "rbd". A claim's and a volume's class is GetPersistentVolume(Claim)Class's: the beta
// annotation volume.beta.kubernetes.io/storage-class first, then spec.storageClassName. Storage
// sizes are Quantity.Value() (bytes, rounded up).
//
// storage_catalog indexes objects the caller owns (it keeps pointers: they must stay in place
// while it is used): claims by namespace/name, volumes by name and by class (ListPVs, in the
// order added), classes, CSINodes, CSIDrivers by name, attachments by node, capacities in order.
// index() sorts once; lookups are O(log n) and allocate nothing. No exceptions; thread-safe to
// read once indexed.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_STORAGE_OBJECTS_HPP
#define PREEMPT_KUBERNETES_STORAGE_OBJECTS_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/kubernetes/labels.hpp"
#include "preempt/kubernetes/node_affinity.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes {

// spec.accessModes, as a set of bits.
enum access_mode : std::uint8_t {
  read_write_once = 1,
  read_only_many = 2,
  read_write_many = 4,
  read_write_once_pod = 8,
};

// The sources of a volume the plugins tell apart. The in-tree kinds from aws_ebs on are the ones
// csi-translation-lib migrates to CSI drivers.
enum class volume_source : std::uint8_t {
  other,      // emptyDir, configMap, secret, projected, hostPath, nfs, ...: no plugin reads them
  claim,      // persistentVolumeClaim
  ephemeral,  // a generic ephemeral volume: the claim <pod>-<volume>
  csi,        // an inline CSI volume (pods) or a CSI PersistentVolume
  iscsi,
  rbd,
  aws_ebs,
  gce_pd,
  azure_disk,
  azure_file,
  cinder,
  vsphere,
  portworx,
};

// Is the source one csi-translation-lib can translate (IsInlineMigratable / IsPVMigratable)?
constexpr bool migratable(volume_source s) noexcept { return s >= volume_source::aws_ebs; }

// The in-tree plugin's name ("kubernetes.io/aws-ebs"), "" for other sources.
constexpr std::string_view in_tree_plugin_name(volume_source s) noexcept {
  switch (s) {
    case volume_source::aws_ebs: return "kubernetes.io/aws-ebs";
    case volume_source::gce_pd: return "kubernetes.io/gce-pd";
    case volume_source::azure_disk: return "kubernetes.io/azure-disk";
    case volume_source::azure_file: return "kubernetes.io/azure-file";
    case volume_source::cinder: return "kubernetes.io/cinder";
    case volume_source::vsphere: return "kubernetes.io/vsphere-volume";
    case volume_source::portworx: return "kubernetes.io/portworx-volume";
    default: return "";
  }
}

// The CSI driver an in-tree plugin migrates to (GetCSINameFromInTreeName), "" for none.
constexpr std::string_view migrated_driver_name(std::string_view in_tree_plugin) noexcept {
  if (in_tree_plugin == "kubernetes.io/aws-ebs") return "ebs.csi.aws.com";
  if (in_tree_plugin == "kubernetes.io/gce-pd") return "pd.csi.storage.gke.io";
  if (in_tree_plugin == "kubernetes.io/azure-disk") return "disk.csi.azure.com";
  if (in_tree_plugin == "kubernetes.io/azure-file") return "file.csi.azure.com";
  if (in_tree_plugin == "kubernetes.io/cinder") return "cinder.csi.openstack.org";
  if (in_tree_plugin == "kubernetes.io/vsphere-volume") return "csi.vsphere.vmware.com";
  if (in_tree_plugin == "kubernetes.io/portworx-volume") return "pxd.portworx.com";
  return "";
}

// One entry of a pod's spec.volumes.
struct pod_volume {
  std::string name;
  std::size_t position = 0;  // its index in spec.volumes (for messages)
  volume_source source = volume_source::other;
  std::string claim_name;  // claim: persistentVolumeClaim.claimName
  bool read_only = false;  // gce_pd, iscsi, rbd: readOnly
  // The disk: gce_pd pdName, aws_ebs volumeID, iscsi iqn, rbd image; the csi driver.
  std::string disk;
  std::string pool;                   // rbd: pool ("rbd" when not set)
  std::vector<std::string> monitors;  // rbd: monitors
};

struct persistent_volume_claim {
  std::string ns, name, uid;
  std::uint8_t access_modes = 0;             // access_mode bits
  std::optional<std::string> class_name;     // nullopt: neither annotation nor spec names one
  std::string volume_name;                   // spec.volumeName
  bool bind_completed = false;               // annotation pv.kubernetes.io/bind-completed
  std::optional<std::string> selected_node;  // annotation volume.kubernetes.io/selected-node
  bool lost = false;                         // status.phase Lost
  bool deleting = false;                     // metadata.deletionTimestamp is set
  // The uid of its controller (the first ownerReference with controller: true).
  std::optional<std::string> controller_uid;
  std::optional<std::int64_t> storage_request;  // spec.resources.requests.storage
  std::optional<label_selector> selector;       // spec.selector
  bool block = false;                           // spec.volumeMode Block (else Filesystem)
  std::string attributes_class;                 // spec.volumeAttributesClassName

  std::string_view class_or_empty() const noexcept {
    return class_name ? std::string_view(*class_name) : std::string_view();
  }
};

struct persistent_volume {
  struct claim_reference {
    std::string ns, name, uid;
  };
  std::string name;
  label_set labels;
  std::int64_t capacity = 0;  // spec.capacity.storage (0 when absent)
  std::uint8_t access_modes = 0;
  std::string class_name;
  std::optional<node_selector> node_affinity;  // spec.nodeAffinity.required
  std::optional<claim_reference> claim;        // spec.claimRef
  std::string phase = "Pending";               // status.phase
  bool block = false;
  std::string attributes_class;
  bool deleting = false;
  volume_source source = volume_source::other;
  std::string csi_driver, csi_handle;  // source csi: spec.csi.driver, spec.csi.volumeHandle
};

// One term of a StorageClass's allowedTopologies: every key must have one of its values.
struct topology_term {
  std::vector<std::pair<std::string, std::vector<std::string>>> expressions;
};

struct storage_class {
  std::string name;
  std::string provisioner;
  bool wait_for_first_consumer = false;  // volumeBindingMode (Immediate when not set)
  std::vector<topology_term> allowed_topologies;
};

struct csi_node {
  struct driver {
    std::string name;
    std::optional<std::int32_t> count;  // allocatable.count
  };
  std::string name;
  std::vector<driver> drivers;
  // The annotation storage.alpha.kubernetes.io/migrated-plugins, split at commas.
  std::vector<std::string> migrated_plugins;
};

struct csi_driver {
  std::string name;
  bool storage_capacity = false;
  bool prevent_scheduling_if_missing = false;  // spec.preventPodSchedulingIfMissing
};

struct volume_attachment {
  std::string name;
  std::string attacher;
  std::string node_name;
  std::optional<std::string> volume_name;  // spec.source.persistentVolumeName
};

struct storage_capacity {
  std::string ns, name;
  std::string class_name;                       // storageClassName
  std::optional<label_selector> node_topology;  // nullopt: nil (no node has access)
  std::optional<std::int64_t> capacity;
  std::optional<std::int64_t> maximum_volume_size;
};

// `resource "name" not found`, the message of a lister's NotFound error ("persistentvolumeclaim",
// "persistentvolume", "storageclass.storage.k8s.io").
inline std::string not_found_message(std::string_view resource, std::string_view name) {
  std::string m(resource);
  m += " \"";
  for (char c : name) {
    if (c == '"' || c == '\\') m += '\\';
    m += c;
  }
  m += "\" not found";
  return m;
}

// The listers, over objects the caller owns.
class storage_catalog {
 public:
  void add(const persistent_volume_claim& c) { claims_.push_back(&c); }
  void add(const persistent_volume& v) { volumes_.push_back(&v); }
  void add(const storage_class& c) { classes_.push_back(&c); }
  void add(const csi_node& n) { csi_nodes_.push_back(&n); }
  void add(const csi_driver& d) { drivers_.push_back(&d); }
  void add(const volume_attachment& a) { attachments_.push_back(&a); }
  void add(const storage_capacity& c) { capacities_.push_back(&c); }

  // Sorts the indices; call once every object is added, before any lookup. Objects of one kind
  // with the same key: the first added wins (a caller that wants an error checks duplicates()).
  void index() {
    const auto by_name = [](const auto* a, const auto* b) { return a->name < b->name; };
    std::stable_sort(claims_.begin(), claims_.end(), [](const auto* a, const auto* b) {
      return std::tie(a->ns, a->name) < std::tie(b->ns, b->name);
    });
    by_class_ = volumes_;
    std::stable_sort(volumes_.begin(), volumes_.end(), by_name);
    std::stable_sort(by_class_.begin(), by_class_.end(),
                     [](const auto* a, const auto* b) { return a->class_name < b->class_name; });
    std::stable_sort(classes_.begin(), classes_.end(), by_name);
    std::stable_sort(csi_nodes_.begin(), csi_nodes_.end(), by_name);
    std::stable_sort(drivers_.begin(), drivers_.end(), by_name);
    std::stable_sort(attachments_.begin(), attachments_.end(),
                     [](const auto* a, const auto* b) { return a->node_name < b->node_name; });
  }

  const persistent_volume_claim* claim(std::string_view ns, std::string_view name) const noexcept {
    const auto it = std::lower_bound(
        claims_.begin(), claims_.end(), std::pair(ns, name), [](const auto* c, const auto& key) {
          return std::pair<std::string_view, std::string_view>(c->ns, c->name) < key;
        });
    return it != claims_.end() && (*it)->ns == ns && (*it)->name == name ? *it : nullptr;
  }
  const persistent_volume* volume(std::string_view name) const noexcept {
    return find(volumes_, name);
  }
  const storage_class* storage_class_named(std::string_view name) const noexcept {
    return find(classes_, name);
  }
  const csi_node* csi_node_named(std::string_view name) const noexcept {
    return find(csi_nodes_, name);
  }
  const csi_driver* driver(std::string_view name) const noexcept { return find(drivers_, name); }

  // The volumes of a class, in the order added (the PV cache's ListPVs).
  std::span<const persistent_volume* const> volumes_of_class(std::string_view cls) const noexcept {
    const auto [first, last] =
        std::equal_range(by_class_.begin(), by_class_.end(), cls, class_less{});
    return {first, last};
  }
  std::span<const volume_attachment* const> attachments_on(std::string_view node) const noexcept {
    const auto [first, last] =
        std::equal_range(attachments_.begin(), attachments_.end(), node, node_less{});
    return {first, last};
  }
  std::span<const storage_capacity* const> capacities() const noexcept { return capacities_; }
  std::span<const persistent_volume* const> volumes() const noexcept { return volumes_; }

  bool empty() const noexcept {
    return claims_.empty() && volumes_.empty() && classes_.empty() && csi_nodes_.empty() &&
           drivers_.empty() && attachments_.empty() && capacities_.empty();
  }

 private:
  struct class_less {
    bool operator()(const persistent_volume* v, std::string_view c) const noexcept {
      return v->class_name < c;
    }
    bool operator()(std::string_view c, const persistent_volume* v) const noexcept {
      return c < v->class_name;
    }
  };
  struct node_less {
    bool operator()(const volume_attachment* a, std::string_view n) const noexcept {
      return a->node_name < n;
    }
    bool operator()(std::string_view n, const volume_attachment* a) const noexcept {
      return n < a->node_name;
    }
  };
  template <class T>
  static const T* find(const std::vector<const T*>& sorted, std::string_view name) noexcept {
    const auto it = std::lower_bound(sorted.begin(), sorted.end(), name,
                                     [](const T* t, std::string_view n) { return t->name < n; });
    return it != sorted.end() && (*it)->name == name ? *it : nullptr;
  }

  std::vector<const persistent_volume_claim*> claims_;
  std::vector<const persistent_volume*> volumes_, by_class_;
  std::vector<const storage_class*> classes_;
  std::vector<const csi_node*> csi_nodes_;
  std::vector<const csi_driver*> drivers_;
  std::vector<const volume_attachment*> attachments_;
  std::vector<const storage_capacity*> capacities_;
};

}  // namespace kubernetes
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_STORAGE_OBJECTS_HPP
