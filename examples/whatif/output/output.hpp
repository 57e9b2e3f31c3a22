// examples/whatif/output/output.hpp - preempt-whatif's outputs of one decision: a pod's and a pod
// group's, as JSON and as text.
//
// JSON (the contract pinned by tests/whatif; its schema: examples/whatif/schema/
// whatif-output.schema.json): one object with "apiVersion": "preempt-whatif/v1" and a "kind".
// A decision ("kind": "Decision"):
//   {"preemptor": "ns/name", "result": "nominated" | "fits" | "not-eligible" | "unschedulable" |
//    "other-scheduler", "nominatedNodeName": "", "victims": ["ns/name", ...], "pdbViolations": 0,
//    "victimUnits": {"ns/pod": "PodGroup ns/name", ...} (only when some victim is evicted with its
//    pod group), "clearedNominations": ["ns/name", ...], "message": "...",
//    "dryRun": null | {"potentialNodes", "candidatesWanted", "offset", "sampled",
//                      "tiedCandidates"},
//    "nodes": [{"name", "status", "reason", "victims", "pdbViolations", "evaluated"}, ...],
//    "warnings": ["...", ...], "notModelled": ["...", ...]}
// Text: the decision first, then the victims, the evaluated nodes and the nodes preemption cannot
// help, for people; names from the dump shown as text_safety.hpp escapes them.
// The other modes' outputs: pending_output.hpp (--all-pending), plan_output.hpp (--plan),
// offsets_output.hpp (--offsets all), policies_output.hpp (--policy, --min-runtime).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_OUTPUT_HPP
#define PREEMPT_WHATIF_OUTPUT_HPP

#include <string>
#include <string_view>
#include <vector>

#include "analysis/analysis.hpp"

namespace whatif {

std::string to_json(const report& r);

// `origin` says where the input came from (shown in the header line).
std::string to_text(const report& r, std::string_view origin);

// --pod-group: the decision for a pending pod group. JSON:
//   {"podGroup": "ns/name", "priority": 0, "preemptionPolicy": "PreemptLowerPriority",
//    "schedulingPolicy": "gang, minCount 2", "scheduledMembers": 0,
//    "result": "nominated" | "fits" | "ongoing" | "not-eligible" | "unschedulable" | "error",
//    "placement": "<how the tool places the group>",
//    "members": [{"name": "ns/pod", "nominatedNodeName": "node-a"}, ...],
//    "victims": [...], "victimUnits": {...} (only when some victim goes with its group),
//    "pdbViolations": 0, "podGroupDisruptions": 0, "message": "pod group preemption: ...",
//    "warnings": [...]}
std::string to_json(const group_report& r);
std::string to_text(const group_report& r, std::string_view origin);

// A decision's result as every output names it ("nominated", "not-eligible", ...; "" for none):
// the one place result_kind becomes text.
std::string_view to_string(result_kind r) noexcept;

// The text output's first lines for a pod (its name, where it came from, its priority and
// requests), a blank line after them. `r` as for_text (text_safety.hpp) returns it.
std::string pod_heading(const report& r, std::string_view origin);

// Whether the dry run was sampled (fewer candidates wanted than nodes preemption may help: the
// random start may change the answer), and the candidates tied on every criterion with the
// chosen one (kube-scheduler picks among them at random), the chosen first; empty otherwise.
bool sampled(const report& r);
std::vector<std::string> tied_on_every_criterion(const report& r);

}  // namespace whatif

#endif  // PREEMPT_WHATIF_OUTPUT_HPP
