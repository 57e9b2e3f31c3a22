// examples/whatif/decode/dra_kinds.hpp - what preempt-whatif reads for kube-scheduler's
// DynamicResources plugin (resource.k8s.io/v1): ResourceClaim, DeviceClass and ResourceSlice
// (what the plugin and its allocator read of them, dra_dump.hpp), ResourceClaimTemplate (counted:
// kube-scheduler reads the claims generated from it) and DeviceTaintRule (named: not modelled);
// and a pod's spec.resourceClaims and status.resourceClaimStatuses (read into the Pod's own field
// tables, kinds.cpp). Quantities are read exactly (dra/amount.hpp).
//
// No exceptions of their own; not thread-safe (they write into the caller's objects).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_DRA_KINDS_HPP
#define PREEMPT_WHATIF_DRA_KINDS_HPP

#include <cstdint>

#include <simdjson.h>

#include "decode/decoder.hpp"
#include "decode/dump.hpp"

namespace whatif::kinds::dra {

// spec.resourceClaims of a Pod.
struct pod_claims_field {
  static bool read(decode::context& x, simdjson::dom::element e, pod_object& p);
  static void clear(pod_object& p) { p.resource_claims.clear(); }
  static constexpr void (*on_null)(pod_object&) = &clear;
};

// status.resourceClaimStatuses of a Pod.
struct pod_claim_statuses_field {
  static bool read(decode::context& x, simdjson::dom::element e, pod_object& p);
  static void clear(pod_object& p) { p.claim_statuses.clear(); }
  static constexpr void (*on_null)(pod_object&) = &clear;
};

// Decode one object of each kind into `dump` (kinds.cpp's kind table calls them).
bool add_resource_claim(decode::context& x, simdjson::dom::element obj, std::uint32_t file,
                        cluster_dump& dump);
bool add_device_class(decode::context& x, simdjson::dom::element obj, cluster_dump& dump);
bool add_resource_slice(decode::context& x, simdjson::dom::element obj, cluster_dump& dump);
bool add_claim_template(decode::context& x, simdjson::dom::element obj, cluster_dump& dump);
bool add_taint_rule(decode::context& x, simdjson::dom::element obj, cluster_dump& dump);

}  // namespace whatif::kinds::dra

#endif  // PREEMPT_WHATIF_DRA_KINDS_HPP
