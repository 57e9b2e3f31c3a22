// examples/whatif/output/offsets_output.cpp - see offsets_output.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "output/offsets_output.hpp"

#include <cstddef>
#include <cstdio>
#include <vector>

#include "output/json_writing.hpp"
#include "output/output.hpp"
#include "output/text_format.hpp"
#include "output/text_safety.hpp"

namespace whatif {

namespace {

// "37.5%"
std::string percent(std::size_t part, std::size_t whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%",
                whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return buf;
}

// "0.375"
std::string share(std::size_t part, std::size_t whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g",
                whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole));
  return buf;
}

void append_outcomes_json(std::string& o, const offset_distribution& d) {
  const report& r = d.decision;
  const std::size_t n = r.evaluation_order.size();
  o += ",\n  \"outcomes\": [";
  for (std::size_t k = 0; k < d.outcomes.size(); ++k) {
    const offset_outcome& oc = d.outcomes[k];
    o += k ? ",\n    {" : "\n    {";
    o += "\"offsets\": " + std::to_string(oc.offsets) + ", \"share\": " + share(oc.offsets, n) +
         ", \"firstOffset\": " + std::to_string(oc.first_offset) + ", \"choices\": [";
    for (std::size_t c = 0; c < oc.choices.size(); ++c) {
      const node_report& node = r.nodes[oc.choices[c]];
      o += c ? ", {" : "{";
      o += "\"nominatedNodeName\": ";
      json_string(o, node.name);
      o += ", \"victims\": ";
      json_strings(o, node.victims);
      o += ", \"pdbViolations\": " + std::to_string(node.pdb_violations) + "}";
    }
    o += "]}";
  }
  o += d.outcomes.empty() ? "]" : "\n  ]";
}

// The decision taken at every offset (not "nominated"), in a few lines.
void append_same_everywhere(std::string& o, const offset_distribution& d, const report& r) {
  o += "Decision at every start offset: the same, " + std::string(to_string(r.result));
  if (r.result == result_kind::unschedulable && d.potential_nodes > 0)
    o += " (the dry run looks at every one of the " + std::to_string(d.potential_nodes) +
         " nodes preemption may help before it gives up, wherever it starts)";
  o += ".\n";
  if (!r.message.empty()) o += "  " + r.message + "\n";
  o += "(--pod-name or --pod without --offsets explains it in full)\n";
}

// One row of the outcomes' table; `tied` is set when the outcome is a tie of several nodes.
std::vector<std::string> outcome_row(const offset_outcome& oc, const report& r, bool& tied) {
  std::string node, victims, pdb;
  for (std::size_t c = 0; c < oc.choices.size(); ++c) {
    const node_report& nr = r.nodes[oc.choices[c]];
    node += (c ? " | " : "") + nr.name;
    std::string v = std::to_string(nr.victims.size());
    for (std::size_t i = 0; i < nr.victims.size() && i < 2; ++i)
      v += (i ? ", " : ": ") + nr.victims[i];
    if (nr.victims.size() > 2) v += ", ...";
    victims += (c ? " | " : "") + v;
    pdb += (c ? " | " : "") + std::to_string(nr.pdb_violations);
  }
  tied = oc.choices.size() > 1;
  if (tied) node = "one of " + node;
  const std::size_t n = r.evaluation_order.size();
  return {percent(oc.offsets, n),         std::to_string(oc.offsets), node, victims, pdb,
          std::to_string(oc.first_offset)};
}

// The outcomes of a nominated decision, most offsets first.
void append_outcomes_text(std::string& o, const offset_distribution& d, const report& r) {
  const std::size_t n = r.evaluation_order.size();
  o += "Decision at every start offset: kube-scheduler starts its dry run at a random one of "
       "the " +
       std::to_string(n) + " nodes preemption may help and stops at " +
       std::to_string(d.candidates_wanted) +
       (d.candidates_wanted == 1 ? " candidate" : " candidates") +
       (d.candidates_wanted < n ? "" : " (every node: the start changes nothing)") + "; " +
       std::to_string(d.outcomes.size()) + (d.outcomes.size() == 1 ? " outcome" : " outcomes") +
       ":\n\n";
  std::vector<std::vector<std::string>> rows = {
      {"SHARE", "OFFSETS", "NODE", "VICTIMS", "PDB", "FIRST OFFSET"}};
  bool ties = false;
  for (const offset_outcome& oc : d.outcomes) {
    bool tied = false;
    rows.push_back(outcome_row(oc, r, tied));
    ties = ties || tied;
  }
  o += aligned_rows(rows);
  if (ties)
    o += "\n\"one of\": candidates tied on every criterion; kube-scheduler picks one of them at "
         "random (its candidates are a Go map).\n";
  o += "\n(--offset N explains the decision at offset N in full)\n";
}

}  // namespace

std::string to_json(const offset_distribution& d) {
  const report& r = d.decision;
  const bool every_node = r.result == result_kind::nominated;
  std::string o = "{\n  ";
  json_header(o, "OffsetDistribution");
  o += ",\n  \"preemptor\": ";
  json_string(o, r.preemptor);
  o += ",\n  \"result\": ";
  json_string(o, to_string(r.result));
  o += ",\n  \"message\": ";
  json_string(o, every_node ? std::string() : r.message);
  o += ",\n  \"potentialNodes\": " + std::to_string(d.potential_nodes);
  o += ",\n  \"candidatesWanted\": " + std::to_string(d.candidates_wanted);
  o += ",\n  \"sampled\": ";
  o += d.candidates_wanted < d.potential_nodes ? "true" : "false";
  o += ",\n  \"offsets\": " + std::to_string(every_node ? r.evaluation_order.size() : 0);
  append_outcomes_json(o, d);
  append_warnings_json(o, r.warnings, r.not_modelled);
  return o;
}

std::string to_text(const offset_distribution& d, std::string_view origin) {
  const report r = for_text(d.decision);
  std::string o = pod_heading(r, origin);
  if (r.result != result_kind::nominated)
    append_same_everywhere(o, d, r);
  else
    append_outcomes_text(o, d, r);
  if (!r.warnings.empty()) {
    o += "\nWarnings:\n";
    for (const std::string& w : r.warnings) o += "  " + w + "\n";
  }
  return o;
}

}  // namespace whatif
