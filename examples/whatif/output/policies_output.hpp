// examples/whatif/output/policies_output.hpp - the outputs of a policy comparison (--policy,
// --min-runtime): kube-scheduler's decision beside the policies' on the same dump
// (analysis/policies.hpp).
//
// JSON: {"apiVersion", "kind": "PolicyComparison", "preemptor": "ns/name",
//        "kubernetesVersion": "1.37", "policies": ["min-cost", ...], "victimCost": "label:KEY" |
//        "", "minRuntime": "10m" | "", "default": {Decision}, "withPolicies": {Decision},
//        "difference": {"sameNode": bool, "sameVictims": bool, "victimsOnlyInDefault": [...],
//                       "victimsOnlyWithPolicies": [...], "victims": {"default", "withPolicies"},
//                       "cost": {...}, "pdbViolations": {...}, "budgetsExceeded": {...}}}
// Text: the two decisions side by side, the victims only one of them evicts, then each decision
// in full.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_POLICIES_OUTPUT_HPP
#define PREEMPT_WHATIF_POLICIES_OUTPUT_HPP

#include <string>
#include <string_view>

#include "analysis/policies.hpp"

namespace whatif {

std::string to_json(const policy_comparison& c);

// `origin` says where the input came from (shown in the header line).
std::string to_text(const policy_comparison& c, std::string_view origin);

}  // namespace whatif

#endif  // PREEMPT_WHATIF_POLICIES_OUTPUT_HPP
