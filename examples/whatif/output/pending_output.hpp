// examples/whatif/output/pending_output.hpp - the outputs of --all-pending: every pending pod's
// decision, each taken on its own against the same cluster.
//
// JSON: {"apiVersion", "kind": "PendingPods", "mode": "independent", "decisions": [...]}, each
// decision as output.hpp's to_json writes it, in the scheduler's queue order. Text: a table, one
// row per pod (pod, priority, decision, node, victims, detail), then the dump's warnings once and
// each pod's own warnings named.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_PENDING_OUTPUT_HPP
#define PREEMPT_WHATIF_PENDING_OUTPUT_HPP

#include <string>
#include <string_view>
#include <vector>

#include "analysis/analysis.hpp"

namespace whatif {

std::string to_json(const std::vector<report>& reports);

// `origin` says where the input came from (shown in the header line).
std::string to_text_table(const std::vector<report>& reports, std::string_view origin);

}  // namespace whatif

#endif  // PREEMPT_WHATIF_PENDING_OUTPUT_HPP
