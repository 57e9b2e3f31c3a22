// examples/whatif/output/plan_output.cpp - see plan_output.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "output/plan_output.hpp"

#include <cstddef>
#include <utility>
#include <vector>

#include "output/json_writing.hpp"
#include "output/output.hpp"
#include "output/text_format.hpp"
#include "output/text_safety.hpp"

namespace whatif {

namespace {

using pod_node_pairs = std::vector<std::pair<std::string, std::string>>;

// A to_json(report) document as the "decision" member of a step (its newline dropped, indented).
std::string step_decision(const report& r) {
  std::string decision = to_json(r);
  decision.pop_back();  // its newline
  std::string indented;
  for (const char c : decision) {
    indented += c;
    if (c == '\n') indented += "    ";
  }
  return indented;
}

void append_steps(std::string& o, const std::vector<plan_step>& steps) {
  o += ",\n  \"steps\": [";
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const plan_step& st = steps[k];
    o += k ? ",\n    {" : "\n    {";
    o += "\"step\": " + std::to_string(k + 1) + ", \"applied\": ";
    json_string(o, to_string(st.applied));
    o += ", \"node\": ";
    json_string(o, st.node);
    o += ",\n     \"decision\": " + step_decision(st.decision) + "}";
  }
  o += steps.empty() ? "]" : "\n  ]";
}

// "name": [{"pod": ..., "<value>": ...}, ...]
void append_pairs(std::string& o, const char* name, const char* value, const pod_node_pairs& list) {
  o += std::string("\"") + name + "\": [";
  for (std::size_t k = 0; k < list.size(); ++k) {
    o += k ? ", {\"pod\": " : "{\"pod\": ";
    json_string(o, list[k].first);
    o += std::string(", \"") + value + "\": ";
    json_string(o, list[k].second);
    o += "}";
  }
  o += "]";
}

void append_final_state_json(std::string& o, const plan_result& p) {
  o += ",\n  \"finalState\": {\n    ";
  append_pairs(o, "bound", "node", p.bound);
  o += ",\n    ";
  append_pairs(o, "nominated", "nominatedNodeName", p.nominated);
  o += ",\n    \"evicted\": ";
  json_strings(o, p.evicted);
  o += ",\n    \"clearedNominations\": ";
  json_strings(o, p.cleared);
  o += ",\n    \"placedByScoring\": ";
  json_strings(o, p.placed_by_scoring);
  o += ",\n    \"pending\": ";
  json_strings(o, p.pending);
  o += "\n  }";
}

// One row of the steps' table: the decision in a few words and what was applied.
std::vector<std::string> step_row(std::size_t k, const plan_step& st) {
  const report r = for_text(st.decision);
  std::string victims = "-", detail;
  if (r.result == result_kind::nominated) {
    victims = victims_summary(r.victims);
    if (r.pdb_violations > 0) detail = std::to_string(r.pdb_violations) + " PDB violation(s)";
  } else if (r.result == result_kind::fits) {
    detail = "fits on " + std::to_string(r.nodes.size()) + " node(s) as they are";
  } else {
    detail = r.message;
  }
  if (r.not_modelled.size() > 0)
    detail += (detail.empty() ? "" : "; ") + std::to_string(r.not_modelled.size()) +
              " not modelled (see below)";
  return {std::to_string(k + 1),
          r.preemptor,
          std::to_string(r.priority),
          std::string(to_string(r.result)),
          std::string(to_string(st.applied)),
          st.node.empty() ? "-" : shown(st.node),
          victims,
          detail};
}

void append_stopped_text(std::string& o, const plan_result& p) {
  if (p.stopped.empty()) return;
  o += "\nStopped at " + shown(p.stopped) + ".\n";
  o += std::to_string(p.undecided.size()) + " later pod(s) undecided:";
  for (const std::string& u : p.undecided) o += " " + shown(u);
  o += "\n";
}

void append_final_state_text(std::string& o, const plan_result& p) {
  const auto list = [&](std::string_view title, const std::vector<std::string>& names) {
    if (names.empty()) return;
    o += "  " + std::string(title) + " (" + std::to_string(names.size()) + "):";
    for (const std::string& n : names) o += " " + shown(n);
    o += "\n";
  };
  const auto pair_list = [&](std::string_view title, const pod_node_pairs& pairs) {
    if (pairs.empty()) return;
    o += "  " + std::string(title) + " (" + std::to_string(pairs.size()) + "):";
    for (std::size_t k = 0; k < pairs.size(); ++k)
      o += (k ? ", " : " ") + shown(pairs[k].first) + " -> " + shown(pairs[k].second);
    o += "\n";
  };
  o += "\nFinal state:\n";
  pair_list("bound", p.bound);
  pair_list("nominated, waiting for their victims to go", p.nominated);
  list("evicted", p.evicted);
  list("nominations cleared", p.cleared);
  list("placed by kube-scheduler's scoring, on a node the tool cannot tell", p.placed_by_scoring);
  list("still pending without a nomination", p.pending);
  if (p.bound.empty() && p.nominated.empty() && p.evicted.empty() && p.cleared.empty() &&
      p.placed_by_scoring.empty() && p.pending.empty())
    o += "  unchanged\n";
}

// The dump's warnings, then each step's own (but its "not modelled: ..." ones, listed apart).
std::vector<std::string> plan_warnings(const plan_result& p) {
  std::vector<std::string> warnings = p.warnings;
  for (const plan_step& st : p.steps) {
    const report& r = st.decision;
    for (std::size_t w = r.dump_warnings; w < r.warnings.size(); ++w)
      if (r.warnings[w].rfind("not modelled: ", 0) != 0)
        warnings.push_back(r.preemptor + ": " + r.warnings[w]);
  }
  return warnings;
}

}  // namespace

std::string_view to_string(plan_change c) noexcept {
  switch (c) {
    case plan_change::none: return "none";
    case plan_change::nominated: return "nominated";
    case plan_change::bound: return "bound";
    case plan_change::nomination_cleared: return "nomination cleared";
  }
  return "none";
}

std::string to_json(const plan_result& p) {
  std::string o = "{\n  ";
  json_header(o, "Plan");
  o += ",\n  \"mode\": \"plan\",\n  \"assumptions\": ";
  json_strings(o, plan_assumptions());
  append_steps(o, p.steps);
  o += ",\n  \"stopped\": ";
  json_string(o, p.stopped);
  o += ",\n  \"undecided\": ";
  json_strings(o, p.undecided);
  append_final_state_json(o, p);
  append_warnings_json(o, p.warnings, p.not_modelled);
  return o;
}

std::string to_text(const plan_result& p, std::string_view origin) {
  std::string o = "Plan for the pending pods";
  if (!origin.empty()) o += " (" + shown(origin) + ")";
  if (p.steps.empty() && p.undecided.empty()) return o + ": none pending.\n";
  o += ": in kube-scheduler's queue order, each decision applied before the next (victims "
       "removed, the preemptor's nomination held, lower nominations on its node cleared, a pod "
       "that fits one node bound there):\n\n";
  std::vector<std::vector<std::string>> rows = {
      {"STEP", "POD", "PRIORITY", "DECISION", "APPLIED", "NODE", "VICTIMS", "DETAIL"}};
  for (std::size_t k = 0; k < p.steps.size(); ++k) rows.push_back(step_row(k, p.steps[k]));
  o += aligned_rows(rows);
  append_stopped_text(o, p);
  append_final_state_text(o, p);
  o += "\nAssumptions:\n";
  for (const std::string& a : plan_assumptions()) o += "  " + a + "\n";
  if (const std::vector<std::string> warnings = plan_warnings(p); !warnings.empty()) {
    o += "\nWarnings:\n";
    for (const std::string& w : warnings) o += "  " + shown(w) + "\n";
  }
  if (!p.not_modelled.empty()) {
    o += "\nNot modelled (the answer may not be kube-scheduler's):\n";
    for (const std::string& w : p.not_modelled) o += "  " + shown(w) + "\n";
  }
  o += "\n(--pod-name NAMESPACE/NAME explains one decision in full, against the dump as it is)\n";
  return o;
}

}  // namespace whatif
