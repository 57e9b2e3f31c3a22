// examples/whatif/analysis/offsets.cpp - see offsets.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "analysis/offsets.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>

#include "output/output.hpp"
#include "output/text_safety.hpp"
#include "preempt/sampling.hpp"

namespace whatif {

namespace {

// The candidate lists of one offset's dry run, kept between offsets (no allocation once warm).
struct offset_walk {
  std::vector<std::size_t> without_violations, with_violations;

  // The dry run from `offset`: the nodes in ring order, each candidate joining its list while the
  // list holds fewer than `wanted`, stopping once the lists hold `wanted` with one without
  // violations (the evaluator's merge_outcome and may_stop; upstream's candidateList and cancel).
  void run(const report& full, std::size_t offset, std::size_t wanted) {
    without_violations.clear();
    with_violations.clear();
    const std::vector<std::size_t>& ring = full.evaluation_order;
    const std::size_t n = ring.size();
    for (std::size_t k = 0; k < n; ++k) {
      std::size_t at = offset + k;
      if (at >= n) at -= n;
      const node_report& node = full.nodes[ring[at]];
      if (node.status != "Success") continue;
      auto& list = node.pdb_violations == 0 ? without_violations : with_violations;
      if (list.size() < wanted) list.push_back(ring[at]);
      if (!without_violations.empty() &&
          without_violations.size() + with_violations.size() >= wanted)
        break;
    }
  }

  // The choice among the candidates (those without violations first, each list in the order
  // found): the lexicographic maximum of the scores, the first of equals, and the candidates tied
  // with it on every score after it.
  void choose(const report& full, std::vector<std::size_t>& choices) const {
    choices.clear();
    const std::array<std::int64_t, 5>* best = nullptr;
    const auto consider = [&](std::size_t i) {
      const auto& s = full.nodes[i].scores;
      if (best == nullptr || *best < s) {
        best = &s;
        choices.assign(1, i);
      } else if (*best == s) {
        choices.push_back(i);
      }
    };
    for (std::size_t i : without_violations) consider(i);
    for (std::size_t i : with_violations) consider(i);
  }
};

std::string percent(std::size_t part, std::size_t whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%",
                whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return buf;
}

std::string share(std::size_t part, std::size_t whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g",
                whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole));
  return buf;
}

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

}  // namespace

void outcome_at(const offset_distribution& d, std::size_t offset,
                std::vector<std::size_t>& choices) {
  offset_walk walk;
  walk.run(d.decision, offset, d.candidates_wanted);
  walk.choose(d.decision, choices);
}

std::optional<load_error> decide_every_offset(const analysis& a, const pod_object& preemptor,
                                              const options& opts, offset_distribution& out) {
  out = offset_distribution{};
  options every = opts;
  every.sampling = preempt::sampling_args{100, 0};  // every node preemption may help, all kept
  every.offset = 0;
  if (auto e = a.decide(preemptor, every, out.decision)) return e;
  report& full = out.decision;
  out.potential_nodes = full.potential_nodes;
  out.candidates_wanted = preempt::number_of_candidates(opts.sampling, full.potential_nodes);
  if (full.result != result_kind::nominated) return std::nullopt;  // the same at every offset

  const std::size_t n = full.evaluation_order.size();
  std::map<std::vector<std::size_t>, std::size_t> seen;  // sorted choices -> outcome
  offset_walk walk;
  std::vector<std::size_t> choices, key;
  for (std::size_t offset = 0; offset < n; ++offset) {
    walk.run(full, offset, out.candidates_wanted);
    walk.choose(full, choices);
    key = choices;
    std::sort(key.begin(), key.end());
    const auto [it, added] = seen.emplace(key, out.outcomes.size());
    if (added) out.outcomes.push_back(offset_outcome{choices, 0, offset});
    ++out.outcomes[it->second].offsets;
  }
  std::stable_sort(out.outcomes.begin(), out.outcomes.end(),
                   [](const offset_outcome& x, const offset_outcome& y) {
                     return x.offsets > y.offsets;  // stable: first offsets first among equals
                   });
  return std::nullopt;
}

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
  o += ",\n  \"outcomes\": [";
  const std::size_t n = r.evaluation_order.size();
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
  o += ",\n  \"warnings\": ";
  json_strings(o, r.warnings);
  o += ",\n  \"notModelled\": ";
  json_strings(o, r.not_modelled);
  o += "\n}\n";
  return o;
}

std::string to_text(const offset_distribution& d, std::string_view origin) {
  const report r = for_text(d.decision);
  std::string o = "Pod " + r.preemptor;
  if (!origin.empty()) o += " (" + shown(origin) + ")";
  o += "\n  priority " + std::to_string(r.priority);
  if (!r.priority_class.empty()) o += " (PriorityClass " + r.priority_class + ")";
  o += r.may_preempt ? ", may preempt lower-priority pods" : ", preemptionPolicy Never";
  o += "\n  requests:";
  if (r.requests.empty()) o += " nothing";
  bool first = true;
  for (const auto& [name, amount] : r.requests) {
    o += first ? " " : ", ";
    first = false;
    o += name + " " + format_amount(name, amount);
  }
  o += "\n\n";
  const std::size_t n = r.evaluation_order.size();
  if (r.result != result_kind::nominated) {
    o += "Decision at every start offset: the same, " + std::string(to_string(r.result));
    if (r.result == result_kind::unschedulable && d.potential_nodes > 0)
      o += " (the dry run looks at every one of the " + std::to_string(d.potential_nodes) +
           " nodes preemption may help before it gives up, wherever it starts)";
    o += ".\n";
    if (!r.message.empty()) o += "  " + r.message + "\n";
    o += "(--pod-name or --pod without --offsets explains it in full)\n";
  } else {
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
      if (oc.choices.size() > 1) {
        node = "one of " + node;
        ties = true;
      }
      rows.push_back({percent(oc.offsets, n), std::to_string(oc.offsets), node, victims, pdb,
                      std::to_string(oc.first_offset)});
    }
    std::vector<std::size_t> width(rows.front().size(), 0);
    for (const auto& row : rows)
      for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    for (const auto& row : rows) {
      std::string line = " ";
      for (std::size_t c = 0; c < row.size(); ++c)
        line += " " + (c + 1 < row.size() ? pad(row[c], width[c] + 1) : row[c]);
      while (!line.empty() && line.back() == ' ') line.pop_back();
      o += line + "\n";
    }
    if (ties)
      o += "\n\"one of\": candidates tied on every criterion; kube-scheduler picks one of them at "
           "random (its candidates are a Go map).\n";
    o += "\n(--offset N explains the decision at offset N in full)\n";
  }
  if (!r.warnings.empty()) {
    o += "\nWarnings:\n";
    for (const std::string& w : r.warnings) o += "  " + w + "\n";
  }
  return o;
}

}  // namespace whatif
