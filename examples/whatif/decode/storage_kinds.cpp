// examples/whatif/decode/storage_kinds.cpp - see storage_kinds.hpp. One field table per JSON object
// of each kind, from the innermost up.
//
// SPDX-License-Identifier: Apache-2.0
#include "decode/storage_kinds.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "decode/shared_fields.hpp"
#include "output/one_line.hpp"

namespace whatif::kinds {

namespace {

namespace dom = simdjson::dom;
using decode::context;
using decode::field;
using decode::required;

// ---- Shared pieces -----------------------------------------------------------------------------

// spec.accessModes: the modes as bits (unknown ones, which validation rejects, are ignored).
bool read_access_modes(context& x, dom::element e, std::uint8_t& out) {
  dom::array a;
  if (!x.read_array(e, a)) return false;
  out = 0;
  std::size_t i = 0;
  for (dom::element m : a) {
    auto s = x.index(i++);
    std::string_view mode;
    if (!x.read_string(m, mode)) return false;
    if (mode == "ReadWriteOnce") out |= k8s::read_write_once;
    if (mode == "ReadOnlyMany") out |= k8s::read_only_many;
    if (mode == "ReadWriteMany") out |= k8s::read_write_many;
    if (mode == "ReadWriteOncePod") out |= k8s::read_write_once_pod;
  }
  return true;
}

// spec.volumeMode: Block or Filesystem.
bool read_volume_mode(context& x, dom::element e, bool& block) {
  std::string_view mode;
  if (!x.read_string(e, mode)) return false;
  if (mode != "Block" && mode != "Filesystem")
    return x.fail("must be Block or Filesystem, not \"" + clip(mode) + "\"");
  block = mode == "Block";
  return true;
}

// A storage size (bytes, Quantity.Value()).
bool read_size(context& x, dom::element e, std::optional<std::int64_t>& out) {
  std::int64_t v = 0;
  if (!x.read_quantity(e, "storage", v)) return false;
  out = v;
  return true;
}

// {"storage": quantity, ...}: the storage entry of a resource map.
bool read_storage_entry(context& x, dom::element e, std::optional<std::int64_t>& out) {
  dom::object o;
  if (!x.read_object(e, o)) return false;
  for (dom::key_value_pair kv : o) {
    if (kv.key != "storage") continue;
    auto s = x.field("storage");
    if (kv.value.is_null()) {
      out.reset();
      continue;
    }
    if (!read_size(x, kv.value, out)) return false;
  }
  return true;
}

// The annotations a kind reads, each into an optional string.
struct annotation_reader {
  std::string_view key;
  std::optional<std::string>* target;
};
bool read_annotations(context& x, dom::element e, std::initializer_list<annotation_reader> keys) {
  dom::object o;
  if (!x.read_object(e, o)) return false;
  for (dom::key_value_pair kv : o)
    for (const annotation_reader& k : keys) {
      if (kv.key != k.key) continue;
      if (kv.value.is_null()) {
        k.target->reset();
        continue;
      }
      auto s = x.field(k.key);
      std::string v;
      if (!x.read_string(kv.value, v)) return false;
      *k.target = std::move(v);
    }
  return true;
}

template <class T>
bool read_deleting(context& x, dom::element e, T& t) {
  preempt::timestamp unused = 0;
  t.deleting = true;
  return x.read_time(e, unused);
}

// ---- A pod's spec.volumes ----------------------------------------------------------------------

struct volume_decoding : k8s::pod_volume {
  std::vector<std::string_view> sources;  // the source keys given (one is valid)
};

// Marks the volume's source (the caller checks there is only one).
template <k8s::volume_source S>
void set_source(volume_decoding& v, std::string_view key) {
  v.source = S;
  v.sources.push_back(key);
}

constexpr field<k8s::pod_volume> claim_source_fields[] = {
    {"claimName", decode::text<&k8s::pod_volume::claim_name>{}},
};
constexpr field<k8s::pod_volume> disk_read_only_fields[] = {
    {"pdName", decode::text<&k8s::pod_volume::disk>{}},    // gcePersistentDisk
    {"volumeID", decode::text<&k8s::pod_volume::disk>{}},  // awsElasticBlockStore, cinder, ...
    {"iqn", decode::text<&k8s::pod_volume::disk>{}},       // iscsi
    {"image", decode::text<&k8s::pod_volume::disk>{}},     // rbd
    {"pool", decode::text<&k8s::pod_volume::pool>{}},      // rbd
    {"monitors", decode::strings<&k8s::pod_volume::monitors>{}},  // rbd
    {"readOnly", decode::boolean<&k8s::pod_volume::read_only>{}},
};
constexpr field<k8s::pod_volume> csi_source_fields[] = {
    {"driver", decode::text<&k8s::pod_volume::disk>{}},
};
constexpr field<k8s::pod_volume> named_disk_fields[] = {
    {"diskURI", decode::text<&k8s::pod_volume::disk>{}},     // azureDisk
    {"shareName", decode::text<&k8s::pod_volume::disk>{}},   // azureFile
    {"volumePath", decode::text<&k8s::pod_volume::disk>{}},  // vsphereVolume
    {"volumeID", decode::text<&k8s::pod_volume::disk>{}},    // cinder, portworxVolume
};

// A source the plugins read: its fields with `Table`.
template <k8s::volume_source S, const auto& Table>
bool read_source(context& x, dom::element e, volume_decoding& v) {
  set_source<S>(v, "");
  return decode::read_fields(x, e, Table, v);
}
// A source no plugin reads: only counted (one source per volume).
bool other_source(context&, dom::element, volume_decoding& v) {
  v.sources.push_back("");
  return true;
}

constexpr field<volume_decoding> volume_fields[] = {
    {"name", decode::text<&k8s::pod_volume::name>{}},
    {"persistentVolumeClaim", read_source<k8s::volume_source::claim, claim_source_fields>},
    {"ephemeral",
     [](context&, dom::element, volume_decoding& v) {
       set_source<k8s::volume_source::ephemeral>(v, "");
       return true;
     }},
    {"csi", read_source<k8s::volume_source::csi, csi_source_fields>},
    {"gcePersistentDisk", read_source<k8s::volume_source::gce_pd, disk_read_only_fields>},
    {"awsElasticBlockStore", read_source<k8s::volume_source::aws_ebs, disk_read_only_fields>},
    {"iscsi", read_source<k8s::volume_source::iscsi, disk_read_only_fields>},
    {"rbd", read_source<k8s::volume_source::rbd, disk_read_only_fields>},
    {"azureDisk", read_source<k8s::volume_source::azure_disk, named_disk_fields>},
    {"azureFile", read_source<k8s::volume_source::azure_file, named_disk_fields>},
    {"cinder", read_source<k8s::volume_source::cinder, named_disk_fields>},
    {"vsphereVolume", read_source<k8s::volume_source::vsphere, named_disk_fields>},
    {"portworxVolume", read_source<k8s::volume_source::portworx, named_disk_fields>},
    {"hostPath", other_source},
    {"emptyDir", other_source},
    {"gitRepo", other_source},
    {"secret", other_source},
    {"nfs", other_source},
    {"glusterfs", other_source},
    {"flexVolume", other_source},
    {"cephfs", other_source},
    {"flocker", other_source},
    {"downwardAPI", other_source},
    {"fc", other_source},
    {"configMap", other_source},
    {"quobyte", other_source},
    {"photonPersistentDisk", other_source},
    {"projected", other_source},
    {"scaleIO", other_source},
    {"storageos", other_source},
    {"image", other_source},
};

// ---- PersistentVolumeClaim ---------------------------------------------------------------------

struct claim_decoding : located<k8s::persistent_volume_claim> {
  std::optional<std::string> beta_class, spec_class, bind_completed_annotation,
      selected_node_annotation;
};

struct owner_reference {
  std::string uid;
  bool controller = false;
};
constexpr field<owner_reference> owner_fields[] = {
    {"uid", decode::text<&owner_reference::uid>{}},
    {"controller", decode::boolean<&owner_reference::controller>{}},
};
struct owner_list {
  std::vector<owner_reference> owners;
};

constexpr field<claim_decoding> claim_metadata_fields[] = {
    {"name", decode::text<&k8s::persistent_volume_claim::name>{}},
    {"namespace", decode::text<&k8s::persistent_volume_claim::ns>{}},
    {"uid", decode::text<&k8s::persistent_volume_claim::uid>{}},
    {"annotations",
     [](context& x, dom::element e, claim_decoding& c) {
       return read_annotations(
           x, e,
           {{"volume.beta.kubernetes.io/storage-class", &c.beta_class},
            {"pv.kubernetes.io/bind-completed", &c.bind_completed_annotation},
            {"volume.kubernetes.io/selected-node", &c.selected_node_annotation}});
     },
     [](claim_decoding& c) {
       c.beta_class.reset();
       c.bind_completed_annotation.reset();
       c.selected_node_annotation.reset();
     }},
    {"deletionTimestamp", read_deleting<claim_decoding>,
     [](claim_decoding& c) { c.deleting = false; }},
    {"ownerReferences",
     [](context& x, dom::element e, claim_decoding& c) {
       owner_list l;
       if (!decode::list<owner_fields, &owner_list::owners>::read(x, e, l)) return false;
       c.controller_uid.reset();
       for (const owner_reference& o : l.owners)
         if (o.controller) {
           c.controller_uid = o.uid;
           break;
         }
       return true;
     },
     [](claim_decoding& c) { c.controller_uid.reset(); }},
};
constexpr field<claim_decoding> claim_resources_fields[] = {
    {"requests",
     [](context& x, dom::element e, claim_decoding& c) {
       return read_storage_entry(x, e, c.storage_request);
     },
     [](claim_decoding& c) { c.storage_request.reset(); }},
};
constexpr field<claim_decoding> claim_spec_fields[] = {
    {"accessModes",
     [](context& x, dom::element e, claim_decoding& c) {
       return read_access_modes(x, e, c.access_modes);
     },
     [](claim_decoding& c) { c.access_modes = 0; }},
    {"storageClassName",
     [](context& x, dom::element e, claim_decoding& c) {
       std::string v;
       if (!x.read_string(e, v)) return false;
       c.spec_class = std::move(v);
       return true;
     },
     [](claim_decoding& c) { c.spec_class.reset(); }},
    {"volumeName", decode::text<&k8s::persistent_volume_claim::volume_name>{}},
    {"resources", decode::flatten<claim_resources_fields>{}},
    {"selector", decode::object<label_selector_fields, &k8s::persistent_volume_claim::selector>{}},
    {"volumeMode",
     [](context& x, dom::element e, claim_decoding& c) { return read_volume_mode(x, e, c.block); },
     [](claim_decoding& c) { c.block = false; }},
    {"volumeAttributesClassName", decode::text<&k8s::persistent_volume_claim::attributes_class>{},
     [](claim_decoding& c) { c.attributes_class.clear(); }},
};
constexpr field<claim_decoding> claim_status_fields[] = {
    {"phase",
     [](context& x, dom::element e, claim_decoding& c) {
       std::string_view phase;
       if (!x.read_string(e, phase)) return false;
       c.lost = phase == "Lost";
       return true;
     }},
};
constexpr field<claim_decoding> claim_fields[] = {
    {"metadata", decode::flatten<claim_metadata_fields>{}, required},
    {"spec", decode::flatten<claim_spec_fields>{}},
    {"status", decode::flatten<claim_status_fields>{}},
};

// ---- PersistentVolume --------------------------------------------------------------------------

struct volume_object_decoding : located<k8s::persistent_volume> {
  std::optional<std::string> beta_class;
  std::string spec_class;
  std::vector<std::string_view> sources;
};

constexpr field<k8s::persistent_volume::claim_reference> claim_ref_fields[] = {
    {"namespace", decode::text<&k8s::persistent_volume::claim_reference::ns>{}},
    {"name", decode::text<&k8s::persistent_volume::claim_reference::name>{}},
    {"uid", decode::text<&k8s::persistent_volume::claim_reference::uid>{}},
};
constexpr field<k8s::persistent_volume> volume_node_affinity_fields[] = {
    {"required", decode::object<node_selector_fields, &k8s::persistent_volume::node_affinity>{}},
};
constexpr field<k8s::persistent_volume> csi_volume_fields[] = {
    {"driver", decode::text<&k8s::persistent_volume::csi_driver>{}},
    {"volumeHandle", decode::text<&k8s::persistent_volume::csi_handle>{}},
};
template <k8s::volume_source S>
bool volume_source_kind(context&, dom::element, volume_object_decoding& v) {
  v.source = S;
  v.sources.push_back("");
  return true;
}
constexpr field<volume_object_decoding> volume_metadata_fields[] = {
    {"name", decode::text<&k8s::persistent_volume::name>{}},
    {"labels", decode::string_map<&k8s::persistent_volume::labels>{}},
    {"annotations",
     [](context& x, dom::element e, volume_object_decoding& v) {
       return read_annotations(x, e, {{"volume.beta.kubernetes.io/storage-class", &v.beta_class}});
     },
     [](volume_object_decoding& v) { v.beta_class.reset(); }},
    {"deletionTimestamp", read_deleting<volume_object_decoding>,
     [](volume_object_decoding& v) { v.deleting = false; }},
};
constexpr field<volume_object_decoding> volume_spec_fields[] = {
    {"capacity",
     [](context& x, dom::element e, volume_object_decoding& v) {
       std::optional<std::int64_t> size;
       if (!read_storage_entry(x, e, size)) return false;
       v.capacity = size.value_or(0);
       return true;
     },
     [](volume_object_decoding& v) { v.capacity = 0; }},
    {"accessModes",
     [](context& x, dom::element e, volume_object_decoding& v) {
       return read_access_modes(x, e, v.access_modes);
     },
     [](volume_object_decoding& v) { v.access_modes = 0; }},
    {"storageClassName", decode::text<&volume_object_decoding::spec_class>{}},
    {"nodeAffinity", decode::flatten<volume_node_affinity_fields>{},
     [](volume_object_decoding& v) { v.node_affinity.reset(); }},
    {"claimRef", decode::object<claim_ref_fields, &k8s::persistent_volume::claim>{}},
    {"volumeMode",
     [](context& x, dom::element e, volume_object_decoding& v) {
       return read_volume_mode(x, e, v.block);
     },
     [](volume_object_decoding& v) { v.block = false; }},
    {"volumeAttributesClassName", decode::text<&k8s::persistent_volume::attributes_class>{},
     [](volume_object_decoding& v) { v.attributes_class.clear(); }},
    {"csi",
     [](context& x, dom::element e, volume_object_decoding& v) {
       volume_source_kind<k8s::volume_source::csi>(x, e, v);
       return decode::read_fields(x, e, csi_volume_fields, v);
     }},
    {"awsElasticBlockStore", volume_source_kind<k8s::volume_source::aws_ebs>},
    {"gcePersistentDisk", volume_source_kind<k8s::volume_source::gce_pd>},
    {"azureDisk", volume_source_kind<k8s::volume_source::azure_disk>},
    {"azureFile", volume_source_kind<k8s::volume_source::azure_file>},
    {"cinder", volume_source_kind<k8s::volume_source::cinder>},
    {"vsphereVolume", volume_source_kind<k8s::volume_source::vsphere>},
    {"portworxVolume", volume_source_kind<k8s::volume_source::portworx>},
    {"iscsi", volume_source_kind<k8s::volume_source::iscsi>},
    {"rbd", volume_source_kind<k8s::volume_source::rbd>},
};
constexpr field<volume_object_decoding> volume_status_fields[] = {
    {"phase", decode::text<&k8s::persistent_volume::phase>{}},
};
constexpr field<volume_object_decoding> volume_object_fields[] = {
    {"metadata", decode::flatten<volume_metadata_fields>{}, required},
    {"spec", decode::flatten<volume_spec_fields>{}},
    {"status", decode::flatten<volume_status_fields>{}},
};

// ---- StorageClass ------------------------------------------------------------------------------

struct topology_requirement {
  std::string key;
  std::vector<std::string> values;
};
constexpr field<topology_requirement> topology_requirement_fields[] = {
    {"key", decode::text<&topology_requirement::key>{}},
    {"values", decode::strings<&topology_requirement::values>{}},
};
struct topology_term_decoding {
  std::vector<topology_requirement> requirements;
};
constexpr field<topology_term_decoding> topology_term_fields[] = {
    {"matchLabelExpressions",
     decode::list<topology_requirement_fields, &topology_term_decoding::requirements>{}},
};
struct storage_class_decoding : located<k8s::storage_class> {
  std::vector<topology_term_decoding> terms;
};
constexpr field<storage_class_decoding> storage_class_metadata_fields[] = {
    {"name", decode::text<&k8s::storage_class::name>{}},
};
constexpr field<storage_class_decoding> storage_class_fields[] = {
    {"metadata", decode::flatten<storage_class_metadata_fields>{}, required},
    {"provisioner", decode::text<&k8s::storage_class::provisioner>{}},
    {"volumeBindingMode",
     [](context& x, dom::element e, storage_class_decoding& c) {
       std::string_view mode;
       if (!x.read_string(e, mode)) return false;
       if (mode != "Immediate" && mode != "WaitForFirstConsumer")
         return x.fail("must be Immediate or WaitForFirstConsumer, not \"" + clip(mode) + "\"");
       c.wait_for_first_consumer = mode == "WaitForFirstConsumer";
       return true;
     },
     [](storage_class_decoding& c) { c.wait_for_first_consumer = false; }},
    {"allowedTopologies", decode::list<topology_term_fields, &storage_class_decoding::terms>{}},
};

// ---- CSINode, CSIDriver, VolumeAttachment, CSIStorageCapacity ----------------------------------

struct csi_node_decoding : located<k8s::csi_node> {
  std::optional<std::string> migrated;
};
constexpr field<k8s::csi_node::driver> csi_node_allocatable_fields[] = {
    {"count", decode::int32<&k8s::csi_node::driver::count>{}},
};
constexpr field<k8s::csi_node::driver> csi_node_driver_fields[] = {
    {"name", decode::text<&k8s::csi_node::driver::name>{}},
    {"allocatable", decode::flatten<csi_node_allocatable_fields>{},
     [](k8s::csi_node::driver& d) { d.count.reset(); }},
};
constexpr field<csi_node_decoding> csi_node_metadata_fields[] = {
    {"name", decode::text<&k8s::csi_node::name>{}},
    {"annotations",
     [](context& x, dom::element e, csi_node_decoding& n) {
       return read_annotations(x, e,
                               {{"storage.alpha.kubernetes.io/migrated-plugins", &n.migrated}});
     },
     [](csi_node_decoding& n) { n.migrated.reset(); }},
};
constexpr field<csi_node_decoding> csi_node_spec_fields[] = {
    {"drivers", decode::list<csi_node_driver_fields, &k8s::csi_node::drivers>{}},
};
constexpr field<csi_node_decoding> csi_node_fields[] = {
    {"metadata", decode::flatten<csi_node_metadata_fields>{}, required},
    {"spec", decode::flatten<csi_node_spec_fields>{}},
};

constexpr field<k8s::csi_driver> csi_driver_metadata_fields[] = {
    {"name", decode::text<&k8s::csi_driver::name>{}},
};
constexpr field<k8s::csi_driver> csi_driver_spec_fields[] = {
    {"storageCapacity", decode::boolean<&k8s::csi_driver::storage_capacity>{},
     [](k8s::csi_driver& d) { d.storage_capacity = false; }},
    {"preventPodSchedulingIfMissing",
     decode::boolean<&k8s::csi_driver::prevent_scheduling_if_missing>{},
     [](k8s::csi_driver& d) { d.prevent_scheduling_if_missing = false; }},
};
constexpr field<k8s::csi_driver> csi_driver_fields[] = {
    {"metadata", decode::flatten<csi_driver_metadata_fields>{}, required},
    {"spec", decode::flatten<csi_driver_spec_fields>{}},
};

constexpr field<k8s::volume_attachment> attachment_metadata_fields[] = {
    {"name", decode::text<&k8s::volume_attachment::name>{}},
};
constexpr field<k8s::volume_attachment> attachment_source_fields[] = {
    {"persistentVolumeName",
     [](context& x, dom::element e, k8s::volume_attachment& a) {
       std::string v;
       if (!x.read_string(e, v)) return false;
       a.volume_name = std::move(v);
       return true;
     },
     [](k8s::volume_attachment& a) { a.volume_name.reset(); }},
};
constexpr field<k8s::volume_attachment> attachment_spec_fields[] = {
    {"attacher", decode::text<&k8s::volume_attachment::attacher>{}},
    {"nodeName", decode::text<&k8s::volume_attachment::node_name>{}},
    {"source", decode::flatten<attachment_source_fields>{}},
};
constexpr field<k8s::volume_attachment> attachment_fields[] = {
    {"metadata", decode::flatten<attachment_metadata_fields>{}, required},
    {"spec", decode::flatten<attachment_spec_fields>{}},
};

constexpr field<k8s::storage_capacity> capacity_metadata_fields[] = {
    {"name", decode::text<&k8s::storage_capacity::name>{}},
    {"namespace", decode::text<&k8s::storage_capacity::ns>{}},
};
constexpr field<k8s::storage_capacity> capacity_fields[] = {
    {"metadata", decode::flatten<capacity_metadata_fields>{}, required},
    {"storageClassName", decode::text<&k8s::storage_capacity::class_name>{}},
    {"nodeTopology",
     decode::object<label_selector_fields, &k8s::storage_capacity::node_topology>{}},
    {"capacity",
     [](context& x, dom::element e, k8s::storage_capacity& c) {
       return read_size(x, e, c.capacity);
     },
     [](k8s::storage_capacity& c) { c.capacity.reset(); }},
    {"maximumVolumeSize",
     [](context& x, dom::element e, k8s::storage_capacity& c) {
       return read_size(x, e, c.maximum_volume_size);
     },
     [](k8s::storage_capacity& c) { c.maximum_volume_size.reset(); }},
};

// ---- Dispatch ----------------------------------------------------------------------------------

bool one_source(context& x, const std::vector<std::string_view>& sources) {
  if (sources.size() <= 1) return true;
  return x.fail("more than one volume source (" + std::to_string(sources.size()) + ")");
}

struct storage_kind {
  std::string_view kind;
  bool namespaced;
  bool (*add)(context&, dom::element, std::uint32_t, cluster_dump&);
};

constexpr storage_kind storage_kinds[] = {
    {"PersistentVolumeClaim", true,
     [](context& x, dom::element obj, std::uint32_t file, cluster_dump& dump) {
       claim_decoding c;
       c.file = file;
       if (!read_named(x, obj, claim_fields, c)) return false;
       c.class_name = c.beta_class ? c.beta_class : c.spec_class;
       c.bind_completed = c.bind_completed_annotation.has_value();
       c.selected_node = c.selected_node_annotation;
       dump.storage.claims.push_back(
           std::move(static_cast<located<k8s::persistent_volume_claim>&>(c)));
       return true;
     }},
    {"PersistentVolume", false,
     [](context& x, dom::element obj, std::uint32_t file, cluster_dump& dump) {
       volume_object_decoding v;
       v.file = file;
       if (!read_named(x, obj, volume_object_fields, v)) return false;
       {
         auto s = x.field("spec");
         if (!one_source(x, v.sources)) return false;
       }
       v.class_name = v.beta_class ? *v.beta_class : v.spec_class;
       if (v.phase.empty()) v.phase = "Pending";
       dump.storage.volumes.push_back(std::move(static_cast<located<k8s::persistent_volume>&>(v)));
       return true;
     }},
    {"StorageClass", false,
     [](context& x, dom::element obj, std::uint32_t file, cluster_dump& dump) {
       storage_class_decoding c;
       c.file = file;
       if (!read_named(x, obj, storage_class_fields, c)) return false;
       for (topology_term_decoding& t : c.terms) {
         k8s::topology_term term;
         for (topology_requirement& r : t.requirements)
           term.expressions.emplace_back(std::move(r.key), std::move(r.values));
         c.allowed_topologies.push_back(std::move(term));
       }
       dump.storage.classes.push_back(std::move(static_cast<located<k8s::storage_class>&>(c)));
       return true;
     }},
    {"CSINode", false,
     [](context& x, dom::element obj, std::uint32_t file, cluster_dump& dump) {
       csi_node_decoding n;
       n.file = file;
       if (!read_named(x, obj, csi_node_fields, n)) return false;
       if (n.migrated && !n.migrated->empty()) {
         // strings.Split(annotation, ","), as the binder reads it.
         std::string_view rest = *n.migrated;
         for (;;) {
           const std::size_t comma = rest.find(',');
           n.migrated_plugins.emplace_back(rest.substr(0, comma));
           if (comma == std::string_view::npos) break;
           rest.remove_prefix(comma + 1);
         }
       }
       dump.storage.csi_nodes.push_back(std::move(static_cast<located<k8s::csi_node>&>(n)));
       return true;
     }},
    {"CSIDriver", false,
     [](context& x, dom::element obj, std::uint32_t file, cluster_dump& dump) {
       located<k8s::csi_driver> d;
       d.file = file;
       if (!read_named(x, obj, csi_driver_fields, d)) return false;
       dump.storage.drivers.push_back(std::move(d));
       return true;
     }},
    {"VolumeAttachment", false,
     [](context& x, dom::element obj, std::uint32_t file, cluster_dump& dump) {
       located<k8s::volume_attachment> a;
       a.file = file;
       if (!read_named(x, obj, attachment_fields, a)) return false;
       dump.storage.attachments.push_back(std::move(a));
       return true;
     }},
    {"CSIStorageCapacity", true,
     [](context& x, dom::element obj, std::uint32_t file, cluster_dump& dump) {
       located<k8s::storage_capacity> c;
       c.file = file;
       if (!read_named(x, obj, capacity_fields, c)) return false;
       dump.storage.capacities.push_back(std::move(c));
       return true;
     }},
};

const storage_kind* find_storage_kind(std::string_view kind) noexcept {
  for (const storage_kind& k : storage_kinds)
    if (k.kind == kind) return &k;
  return nullptr;
}

}  // namespace

bool is_storage_kind(std::string_view kind) noexcept { return find_storage_kind(kind) != nullptr; }

bool is_namespaced_storage_kind(std::string_view kind) noexcept {
  const storage_kind* k = find_storage_kind(kind);
  return k != nullptr && k->namespaced;
}

bool add_storage_object(context& x, std::string_view kind, dom::element obj, std::uint32_t file,
                        cluster_dump& dump) {
  const storage_kind* k = find_storage_kind(kind);
  return k != nullptr && k->add(x, obj, file, dump);
}

bool read_pod_volumes(context& x, dom::element e, std::vector<k8s::pod_volume>& out) {
  out.clear();
  dom::array a;
  if (!x.read_array(e, a)) return false;
  std::size_t i = 0;
  for (dom::element item : a) {
    auto s = x.index(i);
    volume_decoding v;
    v.position = i++;
    if (!decode::read_fields(x, item, volume_fields, v)) return false;
    if (!one_source(x, v.sources)) return false;
    if (v.source == k8s::volume_source::rbd && v.pool.empty()) v.pool = "rbd";
    if (v.source != k8s::volume_source::other)
      out.push_back(std::move(static_cast<k8s::pod_volume&>(v)));
  }
  return true;
}

}  // namespace whatif::kinds
