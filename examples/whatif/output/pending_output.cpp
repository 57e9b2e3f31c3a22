// examples/whatif/output/pending_output.cpp - see pending_output.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "output/pending_output.hpp"

#include <cstddef>

#include "output/json_writing.hpp"
#include "output/output.hpp"
#include "output/text_format.hpp"
#include "output/text_safety.hpp"

namespace whatif {

namespace {

// One row of the table: the decision in a few words.
std::vector<std::string> table_row(const report& r) {
  std::string victims = "-", detail;
  if (r.result == result_kind::nominated) {
    victims = victims_summary(r.victims);
    if (r.pdb_violations > 0)
      detail =
          plural(static_cast<std::size_t>(r.pdb_violations), "PDB violation", "PDB violations");
  } else if (r.result == result_kind::fits) {
    detail = "fits on " + plural(r.nodes.size(), "node", "nodes") + " as they are";
  } else {
    detail = r.message;
  }
  return {r.preemptor,
          std::to_string(r.priority),
          std::string(to_string(r.result)),
          r.nominated_node.empty() ? "-" : r.nominated_node,
          victims,
          detail};
}

// The dump's warnings (the first report's first dump_warnings), then each pod's own, named.
std::vector<std::string> table_warnings(const std::vector<report>& reports) {
  std::vector<std::string> warnings(reports.front().warnings.begin(),
                                    reports.front().warnings.begin() +
                                        static_cast<std::ptrdiff_t>(reports.front().dump_warnings));
  for (const report& r : reports)
    for (std::size_t w = r.dump_warnings; w < r.warnings.size(); ++w)
      warnings.push_back(r.preemptor + ": " + r.warnings[w]);
  for (std::string& w : warnings) w = shown(w);
  return warnings;
}

}  // namespace

std::string to_json(const std::vector<report>& reports) {
  std::string o = "{\n  ";
  json_header(o, "PendingPods");
  o += ",\n  \"mode\": \"independent\",\n  \"decisions\": [";
  for (std::size_t i = 0; i < reports.size(); ++i) {
    std::string one = to_json(reports[i]);
    one.pop_back();  // its newline
    o += i ? ",\n" : "\n";
    o += one;
  }
  o += reports.empty() ? "]\n}\n" : "\n]\n}\n";
  return o;
}

std::string to_text_table(const std::vector<report>& reports, std::string_view origin) {
  std::string o = "Pending pods";
  if (!origin.empty()) o += " (" + shown(origin) + ")";
  if (reports.empty()) return o + ": none.\n";
  o += ", in the scheduler's queue order (priority, then creation time), each decided on its own "
       "against the same cluster:\n\n";
  std::vector<std::vector<std::string>> rows = {
      {"POD", "PRIORITY", "DECISION", "NODE", "VICTIMS", "DETAIL"}};
  for (const report& r : reports) rows.push_back(table_row(for_text(r)));
  o += aligned_rows(rows);
  if (const std::vector<std::string> warnings = table_warnings(reports); !warnings.empty()) {
    o += "\nWarnings:\n";
    for (const std::string& w : warnings) o += "  " + w + "\n";
  }
  o += "\n(--pod-name NAMESPACE/NAME explains one decision in full)\n";
  return o;
}

}  // namespace whatif
