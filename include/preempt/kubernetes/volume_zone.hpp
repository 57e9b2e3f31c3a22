// preempt/kubernetes/volume_zone.hpp - kube-scheduler's VolumeZone plugin: the zone and region
// labels of the PersistentVolumes a pod's claims are bound to.
//
// PreFilter (volume_zone_prefilter::prefilter) reads each persistentVolumeClaim volume of the pod
// (not generic ephemeral ones) and rejects the pod everywhere, UnschedulableAndUnresolvable, on the
// first of: a claim without a name ("PersistentVolumeClaim had no name"); a missing claim
// (`persistentvolumeclaim "x" not found`); a claim without spec.volumeName and without a class
// ("PersistentVolumeClaim had no pv name and storageClass name"), whose class is missing
// (`storageclass.storage.k8s.io "x" not found`) or is not WaitForFirstConsumer ("PersistentVolume
// had no name"; a WaitForFirstConsumer claim is skipped); a missing volume (`persistentvolume "x"
// not found`). It keeps the volumes' labels failure-domain.beta.kubernetes.io/zone,
// failure-domain.beta.kubernetes.io/region, topology.kubernetes.io/zone and
// topology.kubernetes.io/region, each a set of values separated by "__" (a value with an empty
// element is ignored). Without any, the plugin is skipped.
// Filter (filter(node labels)): a node without any of the four labels passes; otherwise each kept
// label must be on the node (a beta key may be matched by the node's GA key, not the reverse) with
// one of the values, else UnschedulableAndUnresolvable "node(s) had no available volume zone".
//
// Complexity: prefilter O(v log c); filter O(t · log labels). Allocation: prefilter only. No
// exceptions; read-only once made.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_VOLUME_ZONE_HPP
#define PREEMPT_KUBERNETES_VOLUME_ZONE_HPP

#include <algorithm>
#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/kubernetes/labels.hpp"
#include "preempt/kubernetes/storage_objects.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes {

inline constexpr std::string_view volume_zone_conflict_reason =
    "node(s) had no available volume zone";

inline constexpr std::array<std::string_view, 4> volume_topology_labels = {
    "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region",
    "topology.kubernetes.io/zone", "topology.kubernetes.io/region"};

// The GA key of a beta topology key (translateToGALabel); other keys as they are.
constexpr std::string_view ga_topology_label(std::string_view key) noexcept {
  if (key == volume_topology_labels[0]) return volume_topology_labels[2];
  if (key == volume_topology_labels[1]) return volume_topology_labels[3];
  return key;
}

// LabelZonesToSet: the values of a "__"-separated label, spaces trimmed; nullopt when an element
// is empty.
inline std::optional<std::vector<std::string>> label_zones(std::string_view value) {
  std::vector<std::string> out;
  for (;;) {
    const std::size_t sep = value.find("__");
    std::string_view part = value.substr(0, sep);
    while (!part.empty() && (part.front() == ' ' || part.front() == '\t')) part.remove_prefix(1);
    while (!part.empty() && (part.back() == ' ' || part.back() == '\t')) part.remove_suffix(1);
    if (part.empty()) return std::nullopt;
    if (std::find(out.begin(), out.end(), part) == out.end()) out.emplace_back(part);
    if (sep == std::string_view::npos) return out;
    value.remove_prefix(sep + 2);
  }
}

class volume_zone_prefilter {
 public:
  volume_zone_prefilter() = default;
  volume_zone_prefilter(const volume_zone_prefilter&) = delete;
  volume_zone_prefilter& operator=(const volume_zone_prefilter&) = delete;

  void prefilter(std::string_view ns, std::span<const pod_volume> volumes,
                 const storage_catalog& storage) {
    topologies_.clear();
    message_.clear();
    outcome_ = status::ok();
    for (const pod_volume& v : volumes) {
      if (v.source != volume_source::claim) continue;
      if (v.claim_name.empty()) return reject("PersistentVolumeClaim had no name");
      const persistent_volume_claim* c = storage.claim(ns, v.claim_name);
      if (c == nullptr) return reject(not_found_message("persistentvolumeclaim", v.claim_name));
      if (c->volume_name.empty()) {
        const std::string_view cls = c->class_or_empty();
        if (cls.empty())
          return reject("PersistentVolumeClaim had no pv name and storageClass name");
        const storage_class* sc = storage.storage_class_named(cls);
        if (sc == nullptr) return reject(not_found_message("storageclass.storage.k8s.io", cls));
        if (sc->wait_for_first_consumer) continue;
        return reject("PersistentVolume had no name");
      }
      const persistent_volume* pv = storage.volume(c->volume_name);
      if (pv == nullptr) return reject(not_found_message("persistentvolume", c->volume_name));
      for (std::string_view key : volume_topology_labels) {
        const std::string* value = pv->labels.find(key);
        if (value == nullptr) continue;
        auto zones = label_zones(*value);
        if (!zones) continue;
        topologies_.push_back(topology{key, std::move(*zones)});
      }
    }
  }

  const status& outcome() const noexcept { return outcome_; }
  bool active() const noexcept { return outcome_.is_success() && !topologies_.empty(); }

  status filter(const label_set& node_labels) const {
    if (!active()) return status::ok();
    const bool constrained =
        std::any_of(volume_topology_labels.begin(), volume_topology_labels.end(),
                    [&](std::string_view key) { return node_labels.find(key) != nullptr; });
    if (!constrained) return status::ok();
    for (const topology& t : topologies_) {
      const std::string* v = node_labels.find(t.key);
      if (v == nullptr) v = node_labels.find(ga_topology_label(t.key));
      if (v == nullptr || std::find(t.values.begin(), t.values.end(), *v) == t.values.end())
        return status::unresolvable(volume_zone_conflict_reason);
    }
    return status::ok();
  }

 private:
  struct topology {
    std::string_view key;
    std::vector<std::string> values;
  };
  void reject(std::string message) {
    topologies_.clear();
    message_ = std::move(message);
    outcome_ = status::unresolvable(message_);
  }

  std::vector<topology> topologies_;
  std::string message_;
  status outcome_;
};

}  // namespace kubernetes
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_VOLUME_ZONE_HPP
