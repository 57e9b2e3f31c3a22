// preempt/kubernetes/volume_binding.hpp - kube-scheduler's VolumeBinding plugin and the volume
// binder's decisions (FindPodVolumes) for one pod and one node.
//
// volume_binding_prefilter::prefilter is the PreFilter: it sorts the pod's claims (its
// persistentVolumeClaims and generic ephemeral volumes) into bound, delayed (WaitForFirstConsumer)
// and immediate, and rejects the pod everywhere, UnschedulableAndUnresolvable, for a missing,
// lost or deleted claim, or an unbound immediate one. Without a claim the plugin is skipped.
// find_pod_volumes(node) is the Filter (FindPodVolumes): bound volumes' node affinity, delayed
// claims matched to volumes (FindMatchingVolume) or provisioned, storage capacity; every reason is
// UnschedulableAndUnresolvable (evictions cannot help). Cases upstream decides by map order or an
// unstable sort, and migrated in-tree volumes, are status_code::error "not modelled: ...". The
// messages, the order of the checks and the matching rules are at each member.
//
// Complexity: prefilter O(v log c); find_pod_volumes O(v · p) for p volumes of the claims'
// classes. Allocation: prefilter and each find_pod_volumes call (small vectors). No exceptions;
// the prefilter is read-only once made.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_VOLUME_BINDING_HPP
#define PREEMPT_KUBERNETES_VOLUME_BINDING_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/kubernetes/labels.hpp"
#include "preempt/kubernetes/node_affinity.hpp"
#include "preempt/kubernetes/node_volume_limits.hpp"
#include "preempt/kubernetes/storage_objects.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes {

inline constexpr std::string_view node_conflict_reason =
    "node(s) didn't match PersistentVolume's node affinity";
inline constexpr std::string_view bind_conflict_reason =
    "node(s) didn't find available persistent volumes to bind";
inline constexpr std::string_view not_enough_space_reason =
    "node(s) did not have enough free storage";
inline constexpr std::string_view pv_not_exist_reason =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
inline constexpr std::string_view unbound_immediate_reason =
    "pod has unbound immediate PersistentVolumeClaims";
inline constexpr std::string_view no_provisioner = "kubernetes.io/no-provisioner";

// Go's %q of a name (names hold no control characters).
inline std::string go_quoted(std::string_view s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  q += '"';
  return q;
}

// CheckNodeAffinity: does the volume's required node affinity match a node with these labels?
// (A node without a name: matchFields are not checked; an empty term matches nothing.)
inline bool volume_node_affinity_matches(const persistent_volume& pv, const label_set& labels) {
  if (!pv.node_affinity) return true;
  for (const node_selector_term& t : pv.node_affinity->terms) {
    if (t.match_expressions.empty() && t.match_fields.empty()) continue;
    if (!validate(t)) continue;
    if (std::all_of(t.match_expressions.begin(), t.match_expressions.end(),
                    [&](const node_selector_requirement& r) {
                      return detail::requirement_holds(r, labels);
                    }))
      return true;
  }
  return false;
}

// A StorageClass's allowedTopologies against a node's labels (MatchTopologySelectorTerms).
inline bool topology_matches(const std::vector<topology_term>& terms, const label_set& labels) {
  if (terms.empty()) return true;
  for (const topology_term& t : terms) {
    if (t.expressions.empty()) continue;
    const bool all = std::all_of(t.expressions.begin(), t.expressions.end(), [&](const auto& e) {
      const std::string* v = labels.find(e.first);
      return v != nullptr && std::find(e.second.begin(), e.second.end(), *v) != e.second.end();
    });
    if (all) return true;
  }
  return false;
}

// IsVolumeBoundToClaim.
inline bool volume_bound_to_claim(const persistent_volume& pv, const persistent_volume_claim& c) {
  if (!pv.claim || pv.claim->name != c.name || pv.claim->ns != c.ns) return false;
  return pv.claim->uid.empty() || pv.claim->uid == c.uid;
}

// FindMatchingVolume for a node with these labels; `taken` are the volumes chosen already.
// nullptr: no match. `error` is set when upstream fails (an invalid claim selector).
// `ties`: how many matching volumes are as small as the one returned.
inline const persistent_volume* find_matching_volume(
    const persistent_volume_claim& claim, std::span<const persistent_volume* const> volumes,
    const label_set& node_labels, std::span<const persistent_volume* const> taken, bool& error,
    int* ties = nullptr) {
  error = false;
  if (ties != nullptr) *ties = 0;
  if (claim.selector && !validate(*claim.selector)) {
    error = true;
    return nullptr;
  }
  const std::int64_t requested = claim.storage_request.value_or(0);
  const persistent_volume* smallest = nullptr;
  for (const persistent_volume* pv : volumes) {
    if (std::find(taken.begin(), taken.end(), pv) != taken.end()) continue;
    if (pv->claim && !volume_bound_to_claim(*pv, claim)) continue;
    if (pv->capacity < requested) continue;
    if (pv->block != claim.block) continue;
    if (pv->attributes_class != claim.attributes_class) continue;
    if (pv->deleting) continue;
    const bool affinity = volume_node_affinity_matches(*pv, node_labels);
    if (volume_bound_to_claim(*pv, claim)) {  // wherever it is in the list: no choice
      if (ties != nullptr) *ties = 1;
      return affinity ? pv : nullptr;
    }
    if (pv->phase != "Available") continue;
    if (claim.selector && !matches(*claim.selector, pv->labels)) continue;
    if (pv->class_name != claim.class_or_empty()) continue;
    if (!affinity) continue;
    if ((claim.access_modes & pv->access_modes) != claim.access_modes) continue;
    if (smallest == nullptr || smallest->capacity > pv->capacity) {
      smallest = pv;
      if (ties != nullptr) *ties = 1;
    } else if (ties != nullptr && smallest->capacity == pv->capacity) {
      ++*ties;
    }
  }
  return smallest;
}

class volume_binding_prefilter {
 public:
  volume_binding_prefilter() = default;
  volume_binding_prefilter(const volume_binding_prefilter&) = delete;
  volume_binding_prefilter& operator=(const volume_binding_prefilter&) = delete;

  // volume_binding_prefilter::prefilter is the PreFilter. For each persistentVolumeClaim and
  // generic ephemeral volume (claim <pod>-<volume>) it rejects the pod everywhere,
  // UnschedulableAndUnresolvable, when the claim is missing (`persistentvolumeclaim "x" not found`;
  // for an ephemeral volume `waiting for ephemeral volume controller to create the
  // persistentvolumeclaim "x"`), lost (`persistentvolumeclaim "x" bound to non-existent
  // persistentvolume "y"`), being deleted (`persistentvolumeclaim "x" is being deleted`) or, for an
  // ephemeral volume, not controlled by the pod; then sorts the claims: bound (spec.volumeName and
  // the annotation pv.kubernetes.io/bind-completed), unbound of a WaitForFirstConsumer class
  // without spec.volumeName (delayed), and any other (immediate: an unknown class counts as
  // Immediate), which rejects the pod, `pod has unbound immediate PersistentVolumeClaims`. Without
  // a claim the plugin is skipped.
  void prefilter(const volume_pod_identity& pod, std::span<const pod_volume> volumes,
                 const storage_catalog& storage) {
    storage_ = &storage;
    bound_.clear();
    delayed_.clear();
    message_.clear();
    outcome_ = status::ok();
    active_ = false;
    bool has_claim = false;
    for (const pod_volume& v : volumes) {
      if (v.source != volume_source::claim && v.source != volume_source::ephemeral) continue;
      has_claim = true;
      const std::string name = claim_name_of(pod, v);
      const persistent_volume_claim* c = storage.claim(pod.ns, name);
      if (c == nullptr) {
        if (v.source == volume_source::ephemeral)
          return reject(
              "waiting for ephemeral volume controller to create the persistentvolumeclaim " +
              go_quoted(name));
        return reject(not_found_message("persistentvolumeclaim", name));
      }
      if (c->lost)
        return reject("persistentvolumeclaim " + go_quoted(c->name) +
                      " bound to non-existent persistentvolume " + go_quoted(c->volume_name));
      if (c->deleting)
        return reject("persistentvolumeclaim " + go_quoted(c->name) + " is being deleted");
      if (v.source == volume_source::ephemeral && !claim_is_for_pod(pod, *c)) {
        std::string m = "PVC ";
        m += c->ns + "/" + c->name + " was not created for pod ";
        m += std::string(pod.ns) + "/" + std::string(pod.name) + " (pod is not owner)";
        return reject(std::move(m));
      }
    }
    if (!has_claim) return;
    bool immediate = false;
    for (const pod_volume& v : volumes) {
      if (v.source != volume_source::claim && v.source != volume_source::ephemeral) continue;
      const persistent_volume_claim* c = storage.claim(pod.ns, claim_name_of(pod, v));
      if (!c->volume_name.empty() && c->bind_completed) {
        bound_.push_back(c);
        continue;
      }
      const std::string_view cls = c->class_or_empty();
      const storage_class* sc = cls.empty() ? nullptr : storage.storage_class_named(cls);
      if (sc != nullptr && sc->wait_for_first_consumer && c->volume_name.empty())
        delayed_.push_back(c);
      else
        immediate = true;
    }
    if (immediate) {
      outcome_ = status::unresolvable(unbound_immediate_reason);
      return;
    }
    active_ = true;
  }

  const status& outcome() const noexcept { return outcome_; }
  bool active() const noexcept { return active_; }
  std::span<const persistent_volume_claim* const> bound_claims() const noexcept { return bound_; }
  std::span<const persistent_volume_claim* const> delayed_claims() const noexcept {
    return delayed_;
  }

  // FindPodVolumes for the node `node_name` with `labels` (node_csi: its CSINode or nullptr).
  //
  // find_pod_volumes(node) is the Filter (FindPodVolumes); every reason is
  // UnschedulableAndUnresolvable (evictions cannot help), in this order:
  //   "node(s) didn't match PersistentVolume's node affinity"   a bound claim's volume (checked in
  //       order, up to the first missing or mismatching one) does not match the node's labels;
  //   "node(s) didn't find available persistent volumes to bind"   a delayed claim selected another
  //       node (annotation volume.kubernetes.io/selected-node; the rest is not checked), or a
  //       delayed claim matches no volume and its class cannot provision on the node (no
  //       provisioner or kubernetes.io/no-provisioner, or allowedTopologies not matching the node's
  //       labels);
  //   "node(s) did not have enough free storage"   a class whose CSIDriver has storageCapacity: no
  //       CSIStorageCapacity of the class, reachable from the node (nodeTopology), holds the
  //       claim's request (maximumVolumeSize, else capacity);
  //   "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"   a bound claim's
  //       volume is missing.
  // Matching (FindMatchingVolume): delayed claims in increasing order of requested storage, each
  // takes the smallest volume of its class that is bound to it (then its node affinity decides
  // alone) or is Available, large enough, of the same volume mode and attributes class, not being
  // deleted, selected by the claim's selector, with every access mode of the claim, and whose node
  // affinity matches; a volume is taken once. A volume's node affinity is matched against the
  // node's labels only: kube-scheduler builds a node without a name, so matchFields are not checked
  // and a term of matchFields alone matches every node.
  // Not modelled, reported as status_code::error with a text starting "not modelled: ": a bound
  // in-tree volume (aws-ebs, gce-pd, azure-disk, cinder, portworx) on a node whose CSINode lists
  // its plugin as migrated (upstream matches the node affinity csi-translation-lib rewrites); a
  // claim matched while several volumes tie for the smallest and more claims follow (upstream's PV
  // cache lists them in map order); more than 12 claims to match with equal requests (Go's
  // sort.Sort is no longer an insertion sort). Errors upstream's Filter returns (an invalid claim
  // selector) are status_code::error too.
  status find_pod_volumes(std::string_view node_name, const label_set& labels,
                          const csi_node* node_csi) const {
    if (!active_) return status::ok();
    bool bound_satisfied = true, bound_found = true, unbound_satisfied = true, space = true;
    const auto result = [&] {
      status out(status_code::unschedulable_and_unresolvable);
      if (!bound_satisfied) out.add_reason(node_conflict_reason);
      if (!unbound_satisfied) out.add_reason(bind_conflict_reason);
      if (!space) out.add_reason(not_enough_space_reason);
      if (!bound_found) out.add_reason(pv_not_exist_reason);
      return out.reasons().empty() ? status::ok() : out;
    };
    for (const persistent_volume_claim* c : bound_) {
      const persistent_volume* pv = storage_->volume(c->volume_name);
      if (pv == nullptr) {
        bound_found = false;
        break;
      }
      if (migrated_on(*pv, node_csi))
        return status::error(
            "not modelled: the in-tree volume is migrated to CSI on this node (its translated node "
            "affinity)");
      if (!volume_node_affinity_matches(*pv, labels)) {
        bound_satisfied = false;
        break;
      }
    }
    if (delayed_.empty()) return result();
    std::vector<const persistent_volume_claim*> to_match, to_provision;
    for (const persistent_volume_claim* c : delayed_) {
      if (c->selected_node) {
        if (*c->selected_node != node_name) {
          unbound_satisfied = false;
          return result();
        }
        to_provision.push_back(c);
      } else {
        to_match.push_back(c);
      }
    }
    std::vector<const persistent_volume*> taken;
    if (!to_match.empty()) {
      // By increasing request; equal ones keep the pod's order (Go's sort.Sort is an insertion
      // sort up to 12 elements).
      const auto by_request = [](const auto* a, const auto* b) {
        return a->storage_request.value_or(0) < b->storage_request.value_or(0);
      };
      std::stable_sort(to_match.begin(), to_match.end(), by_request);
      if (to_match.size() > 12 &&
          std::adjacent_find(to_match.begin(), to_match.end(), [&](const auto* a, const auto* b) {
            return !by_request(a, b);
          }) != to_match.end())
        return status::error(
            "not modelled: the order in which the binder matches more than 12 claims of equal "
            "requests (Go's sort.Sort)");
      bool found = true;
      for (std::size_t k = 0; k < to_match.size(); ++k) {
        const persistent_volume_claim* c = to_match[k];
        bool error = false;
        int ties = 0;
        const persistent_volume* pv = find_matching_volume(
            *c, storage_->volumes_of_class(c->class_or_empty()), labels, taken, error, &ties);
        if (error) return status::error("error creating internal label selector for claim");
        if (ties > 1 && k + 1 < to_match.size())
          return status::error(
              "not modelled: which of several equally small volumes the binder takes for a claim "
              "(its cache lists them in no fixed order), with more claims of the pod to match");
        if (pv == nullptr) {
          to_provision.push_back(c);
          found = false;
          continue;
        }
        taken.push_back(pv);
      }
      unbound_satisfied = found;
    }
    if (!to_provision.empty()) {
      unbound_satisfied = true;
      for (const persistent_volume_claim* c : to_provision) {
        const storage_class* sc = storage_->storage_class_named(c->class_or_empty());
        if (sc == nullptr) return status::error("failed to find storage class");
        if (sc->provisioner.empty() || sc->provisioner == no_provisioner ||
            !topology_matches(sc->allowed_topologies, labels)) {
          unbound_satisfied = false;
          break;
        }
        if (!enough_capacity(*c, *sc, labels)) {
          space = false;
          break;
        }
      }
    }
    return result();
  }

 private:
  void reject(std::string message) {
    message_ = std::move(message);
    outcome_ = status::unresolvable(message_);
  }
  // tryTranslatePVToCSI applies: a migratable plugin the binder migrates, listed in the node's
  // CSINode annotation.
  static bool migrated_on(const persistent_volume& pv, const csi_node* node_csi) {
    if (node_csi == nullptr) return false;
    const std::string_view plugin = in_tree_plugin_name(pv.source);
    if (plugin.empty() || pv.source == volume_source::azure_file ||
        pv.source == volume_source::vsphere)
      return false;
    return std::find(node_csi->migrated_plugins.begin(), node_csi->migrated_plugins.end(),
                     plugin) != node_csi->migrated_plugins.end();
  }
  // hasEnoughCapacity.
  bool enough_capacity(const persistent_volume_claim& c, const storage_class& sc,
                       const label_set& labels) const {
    if (!c.storage_request) return true;
    const csi_driver* d = storage_->driver(sc.provisioner);
    if (d == nullptr || !d->storage_capacity) return true;
    for (const storage_capacity* cap : storage_->capacities()) {
      if (cap->class_name != sc.name) continue;
      const auto& limit = cap->maximum_volume_size ? cap->maximum_volume_size : cap->capacity;
      if (!limit || *limit < *c.storage_request) continue;
      if (!cap->node_topology || !validate(*cap->node_topology)) continue;
      if (matches(*cap->node_topology, labels)) return true;
    }
    return false;
  }

  const storage_catalog* storage_ = nullptr;
  std::vector<const persistent_volume_claim*> bound_, delayed_;
  std::string message_;
  status outcome_;
  bool active_ = false;
};

}  // namespace kubernetes
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_VOLUME_BINDING_HPP
