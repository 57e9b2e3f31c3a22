// examples/whatif/analysis/storage.cpp - see storage.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "analysis/storage.hpp"

#include <algorithm>
#include <utility>

namespace whatif {

namespace {

// The first object of `objects` whose key repeats an earlier one's, as a message.
template <class T, class Key>
std::optional<load_error> duplicate(const cluster_dump& dump, const std::vector<T>& objects,
                                    std::string_view kind, Key&& key) {
  std::unordered_set<std::string> seen;
  for (const T& o : objects)
    if (!seen.insert(key(o)).second)
      return load_error{object_where(dump, o.file, kind, key(o)) + ": metadata.name: duplicate " +
                        std::string(kind)};
  return std::nullopt;
}

k8s::volume_pod_identity identity(const pod_object& p) {
  return k8s::volume_pod_identity{p.ns, p.name, p.uid};
}

}  // namespace

std::string_view volume_field(const k8s::pod_volume& v) noexcept { return source_field(v.source); }

std::string_view source_field(k8s::volume_source s) noexcept {
  switch (s) {
    case k8s::volume_source::claim: return "persistentVolumeClaim";
    case k8s::volume_source::ephemeral: return "ephemeral";
    case k8s::volume_source::csi: return "csi";
    case k8s::volume_source::iscsi: return "iscsi";
    case k8s::volume_source::rbd: return "rbd";
    case k8s::volume_source::aws_ebs: return "awsElasticBlockStore";
    case k8s::volume_source::gce_pd: return "gcePersistentDisk";
    case k8s::volume_source::azure_disk: return "azureDisk";
    case k8s::volume_source::azure_file: return "azureFile";
    case k8s::volume_source::cinder: return "cinder";
    case k8s::volume_source::vsphere: return "vsphereVolume";
    case k8s::volume_source::portworx: return "portworxVolume";
    case k8s::volume_source::other: break;
  }
  return "";
}

std::string volume_where(const pod_object& p, const k8s::pod_volume& v) {
  return "Pod " + p.key() + ": spec.volumes[" + std::to_string(v.position) + "]." +
         std::string(volume_field(v));
}

void refuse_volumes(const pod_object& p, const std::function<void(std::string)>& refuse) {
  for (const k8s::pod_volume& v : p.volumes) {
    // Inline CSI volumes: none of the four plugins reads them in v1.37 (NodeVolumeLimits counts
    // claims, generic ephemeral volumes and migratable in-tree volumes only).
    if (v.source == k8s::volume_source::csi) continue;
    refuse(volume_where(p, v) +
           ": volumes are not modelled in a pod group's placement (VolumeRestrictions, "
           "NodeVolumeLimits, VolumeBinding and VolumeZone read them)");
  }
}

std::optional<load_error> storage_model::build(const cluster_dump& dump,
                                               const std::vector<std::size_t>& bound_node,
                                               std::size_t unbound) {
  dump_ = &dump;
  bound_node_ = &bound_node;
  not_bound_ = unbound;
  const storage_dump& s = dump.storage;
  if (auto e = duplicate(dump, s.claims, "PersistentVolumeClaim",
                         [](const auto& c) { return c.ns + "/" + c.name; }))
    return e;
  const auto by_name = [](const auto& o) { return o.name; };
  if (auto e = duplicate(dump, s.volumes, "PersistentVolume", by_name)) return e;
  if (auto e = duplicate(dump, s.classes, "StorageClass", by_name)) return e;
  if (auto e = duplicate(dump, s.csi_nodes, "CSINode", by_name)) return e;
  if (auto e = duplicate(dump, s.drivers, "CSIDriver", by_name)) return e;
  if (auto e = duplicate(dump, s.attachments, "VolumeAttachment", by_name)) return e;
  if (auto e = duplicate(dump, s.capacities, "CSIStorageCapacity",
                         [](const auto& c) { return c.ns + "/" + c.name; }))
    return e;
  for (const auto& o : s.claims) catalog_.add(o);
  for (const auto& o : s.volumes) catalog_.add(o);
  for (const auto& o : s.classes) catalog_.add(o);
  for (const auto& o : s.csi_nodes) catalog_.add(o);
  for (const auto& o : s.drivers) catalog_.add(o);
  for (const auto& o : s.attachments) catalog_.add(o);
  for (const auto& o : s.capacities) catalog_.add(o);
  catalog_.index();

  const auto& pods = dump.pods;
  attachable_.assign(pods.size(), {});
  untranslated_.assign(pods.size(), {});
  errors_.assign(pods.size(), std::nullopt);
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const pod_object& p = pods[i];
    if (p.volumes.empty()) continue;
    if (bound_node[i] != unbound)
      for (const k8s::pod_volume& v : p.volumes)
        if (v.source == k8s::volume_source::claim) used_claims_.insert(p.ns + "/" + v.claim_name);
    const k8s::attachable_names names =
        k8s::resolve_attachable(identity(p), p.volumes, catalog_, false);
    if (names.error) errors_[i] = names.error;
    attachable_[i] = k8s::intern(names, ids_);
    for (const auto& e : names.volumes)
      if (e.untranslated) untranslated_[i].emplace_back(*ids_.find_driver(e.driver), e.volume);
  }
  attachments_.assign(dump.nodes.size(), {});
  for (std::size_t n = 0; n < dump.nodes.size(); ++n)
    attachments_[n] = k8s::node_attachments(dump.nodes[n].name, catalog_, ids_);
  return std::nullopt;
}

// " (PersistentVolume x, spec.awsElasticBlockStore)" for a claim bound to an in-tree volume.
std::string storage_model::untranslated_volume(const pod_object& p,
                                               const k8s::pod_volume& v) const {
  if (v.source != k8s::volume_source::claim && v.source != k8s::volume_source::ephemeral) return "";
  const k8s::persistent_volume_claim* c =
      catalog_.claim(p.ns, k8s::claim_name_of(k8s::volume_pod_identity{p.ns, p.name, p.uid}, v));
  const k8s::persistent_volume* pv =
      c == nullptr || c->volume_name.empty() ? nullptr : catalog_.volume(c->volume_name);
  if (pv == nullptr) return "";
  return " (PersistentVolume " + pv->name + ", spec." + std::string(source_field(pv->source)) + ")";
}

k8s::pod_volume_facts storage_model::facts(std::size_t i) const noexcept {
  if (dump_ == nullptr || i >= attachable_.size()) return {};
  return k8s::pod_volume_facts{dump_->pods[i].volumes, attachable_[i]};
}

void storage_model::prepare(const pod_object& p, const std::vector<k8s::node_facts>& nodes,
                            k8s::attachable_names& resolved, k8s::volume_filters& out) const {
  resolved = k8s::resolve_attachable(identity(p), p.volumes, catalog_, true);
  out.prepare(
      k8s::volume_pod{identity(p), p.volumes, &resolved}, catalog_, ids_, nodes.size(),
      [&](std::size_t i) -> const k8s::node_facts& { return nodes[i]; },
      [&](std::size_t i) -> std::span<const k8s::attachable_volume> { return attachments_[i]; },
      [&](std::string_view ns, std::string_view claim) {
        std::string key(ns);
        key += '/';
        key += claim;
        return used_claims_.count(key) > 0;
      });
}

void storage_model::refuse_absent_kinds(const pod_object& p,
                                        const std::function<void(std::string)>& refuse) const {
  const storage_dump& s = dump_->storage;
  const auto absent = [&](bool empty, std::string_view kind) {
    return empty && !dump_->holds_every(kind);
  };
  const auto say = [&](std::string_view kind, std::string_view resource, std::string_view why) {
    refuse("Pod " + p.key() + ": spec.volumes: the dump holds no " + std::string(kind) +
           " at all, and " + std::string(why) + " (add " + std::string(resource) +
           " to the dump, or --complete-dump if it holds every object)");
  };
  bool claims = false, attachable = false;
  for (const k8s::pod_volume& v : p.volumes) {
    claims = claims || v.source == k8s::volume_source::claim ||
             v.source == k8s::volume_source::ephemeral;
    // Inline CSI volumes are not counted by NodeVolumeLimits; every other source may be.
    attachable = attachable ||
                 (v.source != k8s::volume_source::other && v.source != k8s::volume_source::csi);
  }
  if (claims && absent(s.claims.empty(), "PersistentVolumeClaim")) {
    say("PersistentVolumeClaim", "persistentvolumeclaims",
        "VolumeBinding and VolumeRestrictions read the pod's claims");
    return;  // the rest depends on the claims
  }
  // The pod's claims the dump holds: bound ones read their volume, unbound ones their class
  // (its binding mode) and the volumes they may bind to.
  bool bound = false, unbound = false;
  for (const k8s::pod_volume& v : p.volumes) {
    if (v.source != k8s::volume_source::claim && v.source != k8s::volume_source::ephemeral)
      continue;
    const std::string name =
        v.source == k8s::volume_source::claim ? v.claim_name : p.name + "-" + v.name;
    for (const auto& c : s.claims)
      if (c.ns == p.ns && c.name == name) (c.volume_name.empty() ? unbound : bound) = true;
  }
  if ((bound || unbound) && absent(s.volumes.empty(), "PersistentVolume"))
    say("PersistentVolume", "persistentvolumes",
        "VolumeBinding and VolumeZone read the volumes the pod's claims are or may be bound to");
  if (unbound && absent(s.classes.empty(), "StorageClass"))
    say("StorageClass", "storageclasses",
        "VolumeBinding reads the classes of the pod's unbound claims");
  if (attachable && absent(s.csi_nodes.empty(), "CSINode"))
    say("CSINode", "csinodes", "NodeVolumeLimits reads the nodes' attach limits there");
  if (attachable && absent(s.drivers.empty(), "CSIDriver"))
    say("CSIDriver", "csidrivers",
        "NodeVolumeLimits and VolumeBinding read the drivers of the pod's volumes");
  if (attachable && !s.csi_nodes.empty() && absent(s.attachments.empty(), "VolumeAttachment"))
    say("VolumeAttachment", "volumeattachments",
        "NodeVolumeLimits counts the volumes attached to each node");
  const bool capacity_tracked = std::any_of(s.drivers.begin(), s.drivers.end(),
                                            [](const auto& d) { return d.storage_capacity; });
  if (claims && capacity_tracked && absent(s.capacities.empty(), "CSIStorageCapacity"))
    say("CSIStorageCapacity", "csistoragecapacities",
        "VolumeBinding reads the storage capacity of drivers that publish it");
}

void storage_model::refuse_unmodelled(
    const pod_object& p, const k8s::attachable_names& resolved, const k8s::volume_filters& filters,
    const std::vector<char>& reached,
    const std::function<void(std::size_t, const std::function<void(std::size_t)>&)>& nominated,
    const std::function<void(std::string)>& refuse) const {
  if (!filters.checks()) return;
  std::vector<std::string> said;
  const auto say = [&](std::string text) {
    if (std::find(said.begin(), said.end(), text) != said.end()) return;
    said.push_back(text);
    refuse(std::move(text));
  };
  const auto& nodes = dump_->nodes;
  const auto node_of = [&](std::size_t i) { return "node " + nodes[i].name; };

  // VolumeBinding: what it cannot decide on a node the pod may go to.
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!reached[i]) continue;
    const preempt::status st = filters.static_verdict(i);
    if (st.code() != preempt::status_code::error) continue;
    const std::string why(st.reason());
    if (why.rfind("not modelled: ", 0) != 0) {
      say("Pod " + p.key() + ": spec.volumes: kube-scheduler's VolumeBinding Filter fails on " +
          node_of(i) + " with an error (" + why + "); the scheduling cycle ends there");
      continue;
    }
    // A bound in-tree volume migrated to CSI on the node: name it.
    const k8s::csi_node* cn = catalog_.csi_node_named(nodes[i].name);
    for (const k8s::persistent_volume_claim* c : filters.binding().bound_claims()) {
      const k8s::persistent_volume* pv = catalog_.volume(c->volume_name);
      if (pv == nullptr || cn == nullptr) continue;
      const std::string_view plugin = k8s::in_tree_plugin_name(pv->source);
      if (plugin.empty() || std::find(cn->migrated_plugins.begin(), cn->migrated_plugins.end(),
                                      plugin) == cn->migrated_plugins.end())
        continue;
      say("PersistentVolume " + pv->name + " (claim " + c->ns + "/" + c->name + " of Pod " +
          p.key() + "): spec." + std::string(source_field(pv->source)) + ": migrated to CSI on " +
          node_of(i) +
          " (CSINode annotation storage.alpha.kubernetes.io/migrated-plugins): VolumeBinding "
          "matches the node affinity csi-translation-lib rewrites, which is not modelled");
    }
  }

  // NodeVolumeLimits: handles it would translate, and pods whose volumes it cannot count.
  const k8s::node_volume_limits& limits = filters.limits();
  if (!limits.active() || limits.slots() == 0) return;
  const auto counts_on = [&](std::size_t node) {
    for (const auto& n : limits.new_volumes())
      if (!n.needs_csi_node || limits.has_csi_node(node)) return true;
    return false;
  };
  const auto limited = [&](std::size_t node, std::uint32_t driver) {
    const std::size_t s = limits.find_slot(driver);
    return s != k8s::node_volume_limits::npos && limits.limit(node, s).has_value();
  };
  const auto any_limit = [&](std::size_t node) {
    const k8s::csi_node* cn = catalog_.csi_node_named(nodes[node].name);
    return cn != nullptr && std::any_of(cn->drivers.begin(), cn->drivers.end(),
                                        [](const auto& d) { return d.count.has_value(); });
  };
  std::vector<std::vector<std::size_t>> pods_on(nodes.size());
  for (std::size_t i = 0; i < dump_->pods.size(); ++i)
    if ((*bound_node_)[i] != not_bound_ &&
        (!attachable_[i].empty() || errors_[i] || !untranslated_[i].empty()))
      pods_on[(*bound_node_)[i]].push_back(i);
  for (std::size_t node = 0; node < nodes.size(); ++node) {
    if (reached[node] && limits.ambiguous_missing_driver(node))
      say("Pod " + p.key() +
          ": spec.volumes: two CSI drivers of its volumes are not installed on " + node_of(node) +
          " (CSIDriver preventPodSchedulingIfMissing): kube-scheduler's message "
          "names either, in map order");
    if (!reached[node] || !counts_on(node) || !limits.has_csi_node(node)) continue;
    for (const auto& e : resolved.volumes) {
      if (!e.untranslated) continue;
      const std::size_t s = limits.find_slot_named(e.driver);
      if (s != k8s::node_volume_limits::npos && limits.limit(node, s))
        say(volume_where(p, *e.volume) + untranslated_volume(p, *e.volume) +
            ": NodeVolumeLimits counts it on " + node_of(node) + " as " + e.driver +
            " under the volume handle csi-translation-lib makes, which is not modelled");
    }
    const auto check_pod = [&](std::size_t i) {
      const pod_object& q = dump_->pods[i];
      if (errors_[i] && any_limit(node))
        say("Pod " + q.key() + " on " + node_of(node) + ": spec.volumes: " + *errors_[i] +
            ": kube-scheduler's NodeVolumeLimits Filter fails there with this error");
      for (const auto& [driver, volume] : untranslated_[i])
        if (limited(node, driver))
          say(volume_where(q, *volume) + untranslated_volume(q, *volume) +
              ": NodeVolumeLimits counts it on " + node_of(node) + " as " +
              std::string(ids_.driver_name(driver)) +
              " under the volume handle csi-translation-lib makes, which is not modelled");
    };
    for (std::size_t i : pods_on[node]) check_pod(i);
    nominated(node, check_pod);
  }
}

}  // namespace whatif
