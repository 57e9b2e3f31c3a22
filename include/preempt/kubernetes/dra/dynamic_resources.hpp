// preempt/kubernetes/dra/dynamic_resources.hpp - kube-scheduler's DynamicResources filter
// (v1.37 default profile, the last filter of the profile): can the pod's ResourceClaims be
// used on a node?
//
//   dynamic_resources dr({claims, classes, slices, &used});
//   prefilter_result pre = dr.prefilter(pod);   // once per pod: skip, rejected, not_modelled,
//   ready node_verdict v = dr.filter(node);             // per node, after every other filter
//   passed
//
// PreFilter resolves the pod's claims (pod_claims.hpp) and rejects the pod on every node,
// UnschedulableAndUnresolvable, with upstream's message when a claim is not created yet
// (`pod "ns/name": ResourceClaim not created yet`; kube-scheduler's PreEnqueue also keeps such a
// pod out of the scheduling queue), is missing (`could not find ResourceClaim "ns/name"`), is
// being deleted, is not controlled by the pod although generated for it, or names a device class
// that does not exist (`request r: device class c does not exist`). Filter then rejects a node,
// UnschedulableAndUnresolvable, when an allocated claim's node selector excludes it ("resourceclaim
// not available on the node") or when the unallocated claims cannot all be allocated there
// (allocator.hpp: "cannot allocate all claims", "invalid resource pools were encountered").
// Where upstream's filter fails with an error (which aborts the scheduling attempt), the verdict
// is `error`, with upstream's text; outside what is modelled, `not_modelled`, with what.
//
// Preemption (v1.37): the plugin has no PreFilterExtensions, so neither a victim's removal nor a
// nominated pod changes a node's verdict: devices of allocated claims are never freed by the dry
// run, and a node DynamicResources rejects is never a candidate. The verdict is therefore a
// property of the node for the whole decision (filter_cluster.hpp checks it last, in the dry run
// too). A profile that releases devices (KEP-5690, DRAPreemption) would make the verdict depend on
// the node's removed pods; it would replace this per-node verdict by a state updated by
// remove_pod/add_pod, with the same prefilter.
// ResourceClaim status.reservedFor does not limit the pod: upstream's CanBeReserved always holds.
//
// Complexity: prefilter O(claims of the pod × claims in the cluster by name); filter as
// allocator.hpp. Allocation: prefilter's resolution and the allocator. No exceptions; filter is
// const and thread-safe once prefilter has returned.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_DRA_DYNAMIC_RESOURCES_HPP
#define PREEMPT_KUBERNETES_DRA_DYNAMIC_RESOURCES_HPP

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/kubernetes/dra/allocator.hpp"
#include "preempt/kubernetes/dra/objects.hpp"
#include "preempt/kubernetes/dra/pod_claims.hpp"
#include "preempt/kubernetes/node_affinity.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes::dra {

inline constexpr std::string_view claim_not_available_reason =
    "resourceclaim not available on the node";
inline constexpr std::string_view cannot_allocate_reason = "cannot allocate all claims";

// The cluster's dynamic resources, as the plugin reads them.
struct cluster_devices {
  std::span<const resource_claim> claims;
  std::span<const device_class> classes;
  std::span<const resource_slice> slices;
  const allocated_state* used = nullptr;
};

// What the plugin reads of the pod to place.
struct claiming_pod {
  std::string_view ns, name, uid;
  std::span<const pod_claim> claims;
  std::span<const pod_claim_status> statuses;
};

struct prefilter_result {
  enum class kind_type : std::uint8_t { skip, rejected, error, not_modelled, ready };
  kind_type kind = kind_type::skip;
  std::string message;  // rejected: upstream's status message; error, not_modelled: what
  // rejected: the plugin's PreEnqueue rejects the pod as well (a claim is missing, not created
  // yet, being deleted or not the pod's), so kube-scheduler does not even try it.
  bool pre_enqueue = false;
};

struct node_verdict {
  enum class kind_type : std::uint8_t { pass, rejected, error, not_modelled };
  kind_type kind = kind_type::pass;
  std::string message;  // rejected: the reason (UnschedulableAndUnresolvable)

  bool passed() const noexcept { return kind == kind_type::pass; }
};

class dynamic_resources {
 public:
  explicit dynamic_resources(cluster_devices cluster) : cluster_(cluster) {}
  dynamic_resources(const dynamic_resources&) = delete;
  dynamic_resources& operator=(const dynamic_resources&) = delete;

  prefilter_result prefilter(const claiming_pod& pod) {
    using k = prefilter_result::kind_type;
    claims_.clear();
    selectors_.clear();
    to_allocate_.clear();
    allocator_.reset();
    for (const pod_claim& entry : pod.claims) {
      const claim_reference ref = claim_name(pod.ns, pod.name, entry, pod.statuses);
      if (ref.kind == claim_reference::kind_type::skipped) continue;
      if (ref.kind == claim_reference::kind_type::failed) return {k::rejected, ref.name, true};
      const resource_claim* claim = find_claim(pod.ns, ref.name);
      if (claim == nullptr)
        return {k::rejected,
                "could not find ResourceClaim \"" + std::string(pod.ns) + "/" + ref.name + "\"",
                true};
      if (claim->deleting)
        return {k::rejected, "resourceclaim \"" + claim->name + "\" is being deleted", true};
      // IsForPod: generated for the pod, so controlled by it (the UIDs compared).
      if (ref.must_check_owner && (!claim->controller_uid || *claim->controller_uid != pod.uid))
        return {k::rejected,
                "ResourceClaim " + claim->key() + " was not created for Pod " +
                    std::string(pod.ns) + "/" + std::string(pod.name) + " (Pod is not owner)",
                true};
      for (const resource_claim* seen : claims_)
        if (seen == claim)
          return {k::not_modelled,
                  "ResourceClaim " + claim->key() + " is referenced twice by the pod"};
      claims_.push_back(claim);
    }
    if (claims_.empty()) return {k::skip, {}, false};
    for (const resource_claim* claim : claims_) {
      if (claim->allocation) {
        for (const allocated_device& d : claim->allocation->devices)
          if (!d.binding_conditions.empty())
            return {k::not_modelled, "ResourceClaim " + claim->key() +
                                         ": status.allocation has devices with binding conditions "
                                         "(their readiness and timeout are not modelled)"};
        if (claim->allocation->node_selector && !validate(*claim->allocation->node_selector))
          return {k::error,
                  "ResourceClaim " + claim->key() + ": invalid status.allocation.nodeSelector"};
        selectors_.push_back(claim->allocation->node_selector ? &*claim->allocation->node_selector
                                                              : nullptr);
        continue;
      }
      selectors_.push_back(nullptr);
      to_allocate_.push_back(claim);
      for (const device_request& r : claim->requests) {
        if (r.exactly) {
          if (auto st = check_class(r.exactly->class_name, r.name); st.kind != k::skip) return st;
        } else if (!r.first_available.empty()) {
          for (const exact_request& sub : r.first_available)
            if (auto st = check_class(sub.class_name, r.name + "/" + sub.name); st.kind != k::skip)
              return st;
        } else {
          return {k::rejected, "resource claim " + claim->key() + ", request " + r.name +
                                   ": unknown request type"};
        }
      }
    }
    if (!to_allocate_.empty())
      allocator_.emplace(cluster_.slices, cluster_.classes, *cluster_.used,
                         std::span<const resource_claim* const>(to_allocate_));
    return {k::ready, {}};
  }

  // The verdict for `node` (prefilter must have returned ready).
  node_verdict filter(const allocation_node& node) const {
    using k = node_verdict::kind_type;
    bool unavailable = false;
    static const label_set no_labels;
    for (const node_selector* sel : selectors_)
      if (sel != nullptr &&
          !matches(*sel, node.labels != nullptr ? *node.labels : no_labels, node.name))
        unavailable = true;
    if (allocator_) {
      allocation_outcome o = allocator_->allocate(node);
      switch (o.kind) {
        case allocation_outcome::kind_type::allocated: break;
        case allocation_outcome::kind_type::unsatisfiable:
          return {k::rejected, std::string(cannot_allocate_reason)};
        case allocation_outcome::kind_type::failed_on_node:
          return {k::rejected, std::move(o.message)};
        case allocation_outcome::kind_type::error: return {k::error, std::move(o.message)};
        case allocation_outcome::kind_type::not_modelled:
          return {k::not_modelled, std::move(o.message)};
      }
    }
    if (unavailable) return {k::rejected, std::string(claim_not_available_reason)};
    return {k::pass, {}};
  }

  // The claims prefilter resolved, in the pod's order.
  std::span<const resource_claim* const> claims() const noexcept { return claims_; }

 private:
  const resource_claim* find_claim(std::string_view ns, std::string_view name) const {
    for (const resource_claim& c : cluster_.claims)
      if (c.name == name && c.ns == ns) return &c;
    return nullptr;
  }

  prefilter_result check_class(const std::string& class_name, const std::string& request) const {
    using k = prefilter_result::kind_type;
    if (class_name.empty()) return {k::error, "request " + request + ": unsupported request type"};
    for (const device_class& c : cluster_.classes)
      if (c.name == class_name) return {k::skip, {}};
    return {k::rejected, "request " + request + ": device class " + class_name + " does not exist"};
  }

  cluster_devices cluster_;
  std::vector<const resource_claim*> claims_;
  std::vector<const node_selector*> selectors_;  // per claim: its allocation's, if allocated
  std::vector<const resource_claim*> to_allocate_;
  std::optional<structured_allocator> allocator_;
};

}  // namespace kubernetes::dra
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_DRA_DYNAMIC_RESOURCES_HPP
