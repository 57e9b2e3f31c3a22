// examples/whatif/output/offsets_output.hpp - the outputs of --offsets all: the decision at every
// start of the dry run (analysis/offsets.hpp).
//
// JSON: {"apiVersion", "kind": "OffsetDistribution", "preemptor": "ns/name", "result", "message"
//        ("" when nominated), "potentialNodes", "candidatesWanted", "sampled", "offsets",
//        "outcomes": [{"offsets", "share", "firstOffset",
//                      "choices": [{"nominatedNodeName", "victims", "pdbViolations"}, ...]}],
//        "warnings": [...], "notModelled": [...]}
// Text: the pod, then a table of the outcomes (share, offsets, node, victims, PDB violations,
// first offset), or the one decision taken at every offset.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_OFFSETS_OUTPUT_HPP
#define PREEMPT_WHATIF_OFFSETS_OUTPUT_HPP

#include <string>
#include <string_view>

#include "analysis/offsets.hpp"

namespace whatif {

std::string to_json(const offset_distribution& d);

// `origin` says where the input came from (shown in the header line).
std::string to_text(const offset_distribution& d, std::string_view origin);

}  // namespace whatif

#endif  // PREEMPT_WHATIF_OFFSETS_OUTPUT_HPP
