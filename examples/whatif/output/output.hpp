// examples/whatif/output/output.hpp - preempt-whatif's two outputs.
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
// With --all-pending: {"kind": "PendingPods", "mode": "independent", "decisions": [...]}, one per
// pending pod in the scheduler's queue order, or a table. (--plan: plan.hpp; --offsets all:
// offsets.hpp.)
// Text: the decision first, then the victims, the evaluated nodes and the nodes preemption cannot
// help, for people; names from the dump shown as text_safety.hpp escapes them.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_OUTPUT_HPP
#define PREEMPT_WHATIF_OUTPUT_HPP

#include <string>
#include <string_view>
#include <vector>

#include "analysis/analysis.hpp"

namespace whatif {

// The version of the JSON contract, in every JSON output as "apiVersion" (with "kind": Decision,
// PodGroupDecision, PendingPods, Plan or OffsetDistribution). The schema:
// examples/whatif/schema/whatif-output.schema.json.
inline constexpr std::string_view json_api_version = "preempt-whatif/v1";

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

// --all-pending: a JSON array of the decisions (each as to_json writes it), and a table for
// people (one row per pod, the dump's warnings once, each pod's own warnings named).
std::string to_json(const std::vector<report>& reports);
std::string to_text_table(const std::vector<report>& reports, std::string_view origin);

// JSON writing shared by the outputs: a string (control characters, DEL and C1 escaped), a list of
// strings, and the "apiVersion" and "kind" members.
// A decision's result as both outputs name it ("nominated", "not-eligible", ...; "" for none).
std::string_view to_string(result_kind r) noexcept;

void json_string(std::string& out, std::string_view s);
void json_strings(std::string& out, const std::vector<std::string>& list);
void json_header(std::string& out, std::string_view kind);

// Whether the dry run was sampled (fewer candidates wanted than nodes preemption may help: the
// random start may change the answer), and the candidates tied on every criterion with the
// chosen one (kube-scheduler picks among them at random), the chosen first; empty otherwise.
bool sampled(const report& r);
std::vector<std::string> tied_on_every_criterion(const report& r);

// "2024-05-01T10:00:05Z" (fractions of a second when present).
std::string format_time(preempt::timestamp t);

// A resource amount as Kubernetes would write it: "500m" / "6" for cpu, "12Gi" for bytes.
std::string format_amount(std::string_view resource, std::int64_t amount);

}  // namespace whatif

#endif  // PREEMPT_WHATIF_OUTPUT_HPP
