// examples/whatif/output/plan_output.hpp - the outputs of --plan: the pending pods in the queue's
// order, each decision applied before the next (analysis/plan.hpp).
//
// JSON: {"apiVersion", "kind": "Plan", "mode": "plan", "assumptions": [...],
//        "steps": [{"step": 1, "applied": "nominated" | "bound" | "nomination cleared" | "none",
//                   "node": "", "decision": {Decision}}, ...],
//        "stopped": "", "undecided": [...],
//        "finalState": {"bound": [{"pod", "node"}], "nominated": [{"pod", "nominatedNodeName"}],
//                       "evicted", "clearedNominations", "placedByScoring", "pending"},
//        "warnings": [...], "notModelled": [...]}
// Text: a table of the steps, where the plan stopped, the final state, the assumptions, the
// warnings and what is not modelled.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_PLAN_OUTPUT_HPP
#define PREEMPT_WHATIF_PLAN_OUTPUT_HPP

#include <string>
#include <string_view>

#include "analysis/plan.hpp"

namespace whatif {

std::string to_json(const plan_result& p);

// What a step applied as both outputs name it: "none", "nominated", "bound", "nomination cleared".
std::string_view to_string(plan_change c) noexcept;

// `origin` says where the input came from (shown in the header line).
std::string to_text(const plan_result& p, std::string_view origin);

}  // namespace whatif

#endif  // PREEMPT_WHATIF_PLAN_OUTPUT_HPP
