// examples/whatif/dra_kinds.hpp - what preempt-whatif reads for kube-scheduler's
// DynamicResources plugin: a pod's spec.resourceClaims and status.resourceClaimStatuses (read
// into the Pod's own field tables, kinds.cpp).
//
// No exceptions of their own; not thread-safe (they write into the caller's objects).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_DRA_KINDS_HPP
#define PREEMPT_WHATIF_DRA_KINDS_HPP

#include <simdjson.h>

#include "decoder.hpp"
#include "dump.hpp"

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

}  // namespace whatif::kinds::dra

#endif  // PREEMPT_WHATIF_DRA_KINDS_HPP
