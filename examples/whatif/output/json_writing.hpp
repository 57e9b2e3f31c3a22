// examples/whatif/output/json_writing.hpp - the pieces the JSON outputs of preempt-whatif are
// written with: a string, a list of strings, the "apiVersion" and "kind" members that start every
// document, and the "warnings" and "notModelled" members that end a decision (a pod's or a pod
// group's), a plan and an offset distribution.
//
// Strings are escaped as JSON requires, and DEL and the C1 controls (U+0080-U+009F) as \u escapes
// too, so output shown on a terminal cannot move it. O(length); no exceptions but allocation's.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_JSON_WRITING_HPP
#define PREEMPT_WHATIF_JSON_WRITING_HPP

#include <string>
#include <string_view>
#include <vector>

namespace whatif {

// The version of the JSON contract, in every JSON output as "apiVersion" (with "kind": Decision,
// PodGroupDecision, PendingPods, Plan, OffsetDistribution or PolicyComparison). The schema:
// examples/whatif/schema/whatif-output.schema.json.
inline constexpr std::string_view json_api_version = "preempt-whatif/v1";

// Appends `s` as a JSON string.
void json_string(std::string& out, std::string_view s);

// Appends `list` as a JSON array of strings on one line: ["a", "b"].
void json_strings(std::string& out, const std::vector<std::string>& list);

// Appends the members `"apiVersion": "preempt-whatif/v1",\n  "kind": "<kind>"`.
void json_header(std::string& out, std::string_view kind);

// Appends the last members, `,\n  "warnings": [...],\n  "notModelled": [...]`, and the end of the
// document (`\n}\n`).
void append_warnings_json(std::string& out, const std::vector<std::string>& warnings,
                          const std::vector<std::string>& not_modelled);

}  // namespace whatif

#endif  // PREEMPT_WHATIF_JSON_WRITING_HPP
