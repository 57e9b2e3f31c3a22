// examples/whatif/output/json_writing.hpp - the pieces every JSON output of preempt-whatif is
// written with: a string, a list of strings, and the "apiVersion" and "kind" members.
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

}  // namespace whatif

#endif  // PREEMPT_WHATIF_JSON_WRITING_HPP
