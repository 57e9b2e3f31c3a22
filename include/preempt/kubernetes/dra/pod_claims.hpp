// preempt/kubernetes/dra/pod_claims.hpp - a pod's ResourceClaims (spec.resourceClaims) and the
// claims generated for it (status.resourceClaimStatuses), resolved to claim names as
// kube-scheduler's DynamicResources plugin resolves them (k8s.io/dynamic-resource-allocation
// resourceclaim.Name, v0.37).
//
// claim_name(pod, claim) answers one of:
//   named      the ResourceClaim to read: resourceClaimName as written, or the name the claim
//              controller recorded for resourceClaimTemplateName in status.resourceClaimStatuses
//              (the claim must then be controlled by the pod: must_check_owner)
//   skipped    the status names the entry with a null resourceClaimName: the controller chose not
//              to create a claim, and the entry is ignored
//   failed     no status entry yet for a template ("ResourceClaim not created yet"), or neither
//              field set; `message` is upstream's error text
//
// Complexity O(status entries). Allocation: the message of a failure. No exceptions;
// thread-safe (pure).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_DRA_POD_CLAIMS_HPP
#define PREEMPT_KUBERNETES_DRA_POD_CLAIMS_HPP

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "preempt/config.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes::dra {

// One entry of spec.resourceClaims.
struct pod_claim {
  std::string name;
  std::optional<std::string> claim_name;     // resourceClaimName
  std::optional<std::string> template_name;  // resourceClaimTemplateName
};

// One entry of status.resourceClaimStatuses.
struct pod_claim_status {
  std::string name;
  std::optional<std::string> claim_name;  // null: intentionally not created
};

// How a pod's claim entry resolves.
struct claim_reference {
  enum class kind_type : std::uint8_t { named, skipped, failed };
  kind_type kind = kind_type::failed;
  std::string name;  // named: the ResourceClaim's name; failed: upstream's message
  bool must_check_owner = false;

  bool named() const noexcept { return kind == kind_type::named; }
};

// resourceclaim.Name for the pod `ns/pod_name` and its entry `claim`.
inline claim_reference claim_name(std::string_view ns, std::string_view pod_name,
                                  const pod_claim& claim,
                                  std::span<const pod_claim_status> statuses) {
  using kind = claim_reference::kind_type;
  const std::string pod = "\"" + std::string(ns) + "/" + std::string(pod_name) + "\"";
  if (claim.claim_name) return {kind::named, *claim.claim_name, false};
  if (claim.template_name) {
    for (const pod_claim_status& s : statuses) {
      if (s.name != claim.name) continue;
      if (!s.claim_name) return {kind::skipped, {}, false};
      return {kind::named, *s.claim_name, true};
    }
    return {kind::failed, "pod " + pod + ": ResourceClaim not created yet", false};
  }
  return {kind::failed,
          "pod " + pod + ", spec.resourceClaim \"" + claim.name +
              "\": none of the supported fields are set",
          false};
}

}  // namespace kubernetes::dra
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_DRA_POD_CLAIMS_HPP
