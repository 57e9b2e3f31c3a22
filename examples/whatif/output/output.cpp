// examples/whatif/output/output.cpp - see output.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "output/output.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "output/json_writing.hpp"
#include "output/text_format.hpp"
#include "output/text_safety.hpp"
#include "preempt/candidate_choice.hpp"
#include "preempt/status.hpp"

namespace whatif {

std::string_view to_string(result_kind r) noexcept {
  switch (r) {
    case result_kind::none: return "";
    case result_kind::nominated: return "nominated";
    case result_kind::fits: return "fits";
    case result_kind::not_eligible: return "not-eligible";
    case result_kind::unschedulable: return "unschedulable";
    case result_kind::other_scheduler: return "other-scheduler";
    case result_kind::running: return "running";
    case result_kind::bound: return "bound";
    case result_kind::gated: return "gated";
    case result_kind::deleting: return "deleting";
    case result_kind::ongoing: return "ongoing";
    case result_kind::error: return "error";
  }
  return "";
}

bool sampled(const report& r) {
  return r.potential_nodes > 0 && r.candidates_wanted < r.potential_nodes;
}

std::vector<std::string> tied_on_every_criterion(const report& r) {
  std::vector<std::string> nodes;
  if (r.result == result_kind::nominated &&
      r.decided_by == preempt::default_scores::name(preempt::default_scores::count))
    for (const auto& [node, value] : r.tie_break) nodes.push_back(node);
  return nodes;
}

std::string pod_heading(const report& r, std::string_view origin) {
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
  return o;
}

namespace {

// --- JSON ---

// "victims": the victims' names.
void append_victim_names(std::string& o, const std::vector<victim_info>& victims) {
  o += ",\n  \"victims\": ";
  std::vector<std::string> names;
  for (const victim_info& v : victims) names.push_back(v.name);
  json_strings(o, names);
}

// `"<member>": {"ns/pod": "<value>", ...}` for the victims whose `field` is not empty (left out
// when there are none).
void append_victim_map(std::string& o, std::string_view member,
                       const std::vector<victim_info>& victims, std::string victim_info::*field) {
  bool any = false;
  for (const victim_info& v : victims) any = any || !(v.*field).empty();
  if (!any) return;
  o += ",\n  \"" + std::string(member) + "\": {";
  bool first = true;
  for (const victim_info& v : victims) {
    if ((v.*field).empty()) continue;
    o += first ? "" : ", ";
    first = false;
    json_string(o, v.name);
    o += ": ";
    json_string(o, v.*field);
  }
  o += "}";
}

// With pod groups: "victimUnits": {"ns/pod": "PodGroup ns/name", ...} for the victims evicted
// with their group's unit (left out when there are none, as without groups).
void append_victim_units(std::string& o, const std::vector<victim_info>& victims) {
  append_victim_map(o, "victimUnits", victims, &victim_info::unit);
}

// With --victim-reasons: "victimReasons": {"ns/pod": "Insufficient cpu; cpu: 2 asked, 500m
// left", ...}, what keeping each victim alone would leave the preemptor short of.
void append_victim_reasons(std::string& o, const std::vector<victim_info>& victims) {
  append_victim_map(o, "victimReasons", victims, &victim_info::reason);
}

// The dry run's sampling: kube-scheduler draws the offset at random; `sampled` says whether
// another offset could give another answer, `tiedCandidates` the candidates among which it picks
// at random when they tie on every criterion.
void append_dry_run(std::string& o, const report& r) {
  if (r.potential_nodes == 0) {
    o += ",\n  \"dryRun\": null";
    return;
  }
  o += ",\n  \"dryRun\": {\"potentialNodes\": " + std::to_string(r.potential_nodes) +
       ", \"candidatesWanted\": " + std::to_string(r.candidates_wanted) +
       ", \"offset\": " + std::to_string(r.offset) +
       ", \"sampled\": " + (sampled(r) ? "true" : "false") + ", \"tiedCandidates\": ";
  json_strings(o, tied_on_every_criterion(r));
  o += "}";
}

void append_nodes_json(std::string& o, const std::vector<node_report>& nodes) {
  o += ",\n  \"nodes\": [";
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const node_report& n = nodes[i];
    o += i ? ",\n    {" : "\n    {";
    o += "\"name\": ";
    json_string(o, n.name);
    o += ", \"status\": ";
    json_string(o, preempt::to_string(n.status));
    o += ", \"reason\": ";
    json_string(o, n.reason);
    o += ", \"victims\": ";
    json_strings(o, n.victims);
    o += ", \"pdbViolations\": " + std::to_string(n.pdb_violations);
    o += std::string(", \"evaluated\": ") + (n.evaluated ? "true" : "false") + "}";
  }
  o += nodes.empty() ? "]" : "\n  ]";
}

// --- text ---

// "victimConditions": {"ns/pod": [{"condition": "host-port", "detail": "80/TCP"}, ...], ...}
// for every victim, when some victim triggers a condition of the preemptor's beyond resources
// (left out otherwise, so such a decision reads as before).
void append_victim_conditions(std::string& o, const std::vector<victim_info>& victims) {
  bool any = false;
  for (const victim_info& v : victims) any = any || !v.conditions.empty();
  if (!any) return;
  o += ",\n  \"victimConditions\": {";
  bool first = true;
  for (const victim_info& v : victims) {
    o += first ? "" : ", ";
    first = false;
    json_string(o, v.name);
    o += ": [";
    for (std::size_t k = 0; k < v.conditions.size(); ++k) {
      o += k ? ", {\"condition\": " : "{\"condition\": ";
      json_string(o, v.conditions[k].condition);
      o += ", \"detail\": ";
      json_string(o, v.conditions[k].detail);
      o += "}";
    }
    o += "]";
  }
  o += "}";
}

// A victim condition in words.
std::string condition_text(const victim_condition_info& c) {
  const std::string& d = c.detail;
  if (c.condition == "host-port") return "holds host port " + d;
  if (c.condition == "victim-anti-affinity")
    return "its anti-affinity rejects the pod (topologyKey " + d + ")";
  if (c.condition == "preemptor-anti-affinity")
    return "the pod's anti-affinity rejects it (topologyKey " + d + ")";
  if (c.condition == "topology-spread")
    return "counted by the pod's spread (topologyKey " + d + ")";
  if (c.condition == "disk-conflict") return "its volume conflicts with the pod's disk " + d;
  if (c.condition == "read-write-once-pod") return "uses the ReadWriteOncePod claim " + d;
  if (c.condition == "csi-attach-slot") return "holds an attach slot of CSI driver " + d;
  return c.condition + (d.empty() ? "" : " " + d);
}

// "Blocking the pod beyond resources": each victim's conditions in words, when some victim has one.
void append_victim_conditions_text(std::string& o, const std::vector<victim_info>& victims) {
  if (std::none_of(victims.begin(), victims.end(),
                   [](const victim_info& v) { return !v.conditions.empty(); }))
    return;
  o += "\nBlocking the pod beyond resources (every victim frees resources):\n";
  for (const victim_info& v : victims) {
    if (v.conditions.empty()) continue;
    std::string line;
    for (const victim_condition_info& c : v.conditions)
      line += (line.empty() ? "" : "; ") + condition_text(c);
    o += "  " + v.name + ": " + line + "\n";
  }
}

// The victims table of the text output; a GROUP column when some victim goes with its group.
void append_victims_table(std::string& o, const std::vector<victim_info>& victims) {
  std::size_t w = 4, started_width = 22, unit_width = 0;
  const auto started = [](const victim_info& v) {
    return v.start_time ? format_time(*v.start_time) : std::string("-");
  };
  const auto priority = [](const victim_info& v) {
    return v.effective_priority == v.priority
               ? std::to_string(v.priority)
               : std::to_string(v.priority) + " (" + std::to_string(v.effective_priority) + ")";
  };
  std::size_t priority_width = 12;
  for (const victim_info& v : victims) {
    w = std::max(w, v.name.size());
    started_width = std::max(started_width, started(v).size());
    unit_width = std::max(unit_width, v.unit.size());
    priority_width = std::max(priority_width, priority(v).size() + 2);
  }
  if (unit_width > 0) unit_width = std::max<std::size_t>(unit_width, 5) + 2;
  o += "  " + pad("POD", w + 2) + pad("PRIORITY", priority_width) +
       (unit_width > 0 ? pad("GROUP", unit_width) : std::string()) +
       pad("STARTED", started_width + 2) + "BUDGETS\n";
  for (const victim_info& v : victims) {
    std::string budgets;
    for (const std::string& b : v.budgets) budgets += (budgets.empty() ? "" : ", ") + b;
    o += "  " + pad(v.name, w + 2) + pad(priority(v), priority_width) +
         (unit_width > 0 ? pad(v.unit.empty() ? std::string("-") : v.unit, unit_width)
                         : std::string()) +
         pad(started(v), started_width + 2) + (budgets.empty() ? std::string("-") : budgets) + "\n";
  }
  if (unit_width > 0 || priority_width > 12)
    o += "  (GROUP: evicted with every member of that group, on any node; PRIORITY (N): the pod's "
         "own, and its group's, which preemption compares)\n";
}

void append_warnings_text(std::string& o, const std::vector<std::string>& warnings) {
  if (warnings.empty()) return;
  o += "\nWarnings:\n";
  for (const std::string& w : warnings) o += "  " + w + "\n";
}

void append_fits(std::string& o, const report& r) {
  o += "Decision: no preemption needed. The pod fits on " +
       plural(r.nodes.size(), "node", "nodes") + " as they are:";
  std::size_t listed = 0;
  for (const node_report& n : r.nodes) {
    if (listed++ == 10) {
      o += " ...";
      break;
    }
    o += " " + n.name;
  }
  o += "\n(the scheduler picks one of them by scoring; preemption does not run)\n";
}

// How the nominated node was chosen among the candidates, and the ties on the deciding criterion.
void append_choice(std::string& o, const report& r) {
  if (r.candidates <= 1) {
    o += "It was the only candidate node.\n";
    return;
  }
  o += "Chosen among " + std::to_string(r.candidates) +
       " candidate nodes; decided by: " + r.decided_by + ".\n";
  if (r.tie_break.size() > 1) {
    std::size_t w = 0;
    for (const auto& [node, value] : r.tie_break) w = std::max(w, node.size());
    std::size_t listed = 0;
    for (const auto& [node, value] : r.tie_break) {
      if (listed++ == 8) {
        o += "  ... and " +
             plural(r.tie_break.size() - 8, "more tied candidate", "more tied candidates") + "\n";
        break;
      }
      o += "  " + pad(node, w + 2) + value + (listed == 1 ? "  <- chosen" : "") + "\n";
    }
  }
  if (const auto tied = tied_on_every_criterion(r); tied.size() > 1)
    o += "Tied on every criterion: kube-scheduler picks one of these " +
         std::to_string(tied.size()) +
         " at random (its candidates are a Go map); the tool shows the first it found.\n";
}

void append_nomination(std::string& o, const report& r) {
  o += "Decision: nominate node " + r.nominated_node + " and evict " +
       plural(r.victims.size(), "pod", "pods") + " (" +
       plural(static_cast<std::size_t>(r.pdb_violations), "PDB violation", "PDB violations") + ")" +
       (sampled(r) ? ", at offset " + std::to_string(r.offset) + " (sampled)" : "") + ".\n";
  if (sampled(r))
    o += "Sampled: kube-scheduler starts its dry run at a random one of the " +
         std::to_string(r.potential_nodes) + " nodes preemption may help and stops at " +
         plural(r.candidates_wanted, "candidate", "candidates") +
         ", so another start may nominate another node (--offsets all shows the answer for "
         "every start).\n";
  append_choice(o, r);
  if (!r.cleared_nominations.empty()) {
    o += "Pods nominated to " + r.nominated_node + " with lower priority lose their nomination: ";
    for (std::size_t i = 0; i < r.cleared_nominations.size(); ++i)
      o += (i ? ", " : "") + r.cleared_nominations[i];
    o += ".\n";
  }
  o += "\nVictims, most important first:\n";
  append_victims_table(o, r.victims);
  append_victim_conditions_text(o, r.victims);
  if (std::any_of(r.victims.begin(), r.victims.end(),
                  [](const victim_info& v) { return !v.reason.empty(); })) {
    o += "\nEvicted for (what keeping the victim alone would leave the pod short of):\n";
    for (const victim_info& v : r.victims)
      if (!v.reason.empty()) o += "  " + v.name + ": " + v.reason + "\n";
  }
}

// The decision's paragraph, by its result.
void append_decision(std::string& o, const report& r) {
  switch (r.result) {
    case result_kind::fits: append_fits(o, r); return;
    case result_kind::nominated: append_nomination(o, r); return;
    case result_kind::other_scheduler:
      o += "Decision: none; the pod is not for this scheduler.\n  " + r.message + "\n";
      return;
    case result_kind::bound:
    case result_kind::running:
    case result_kind::gated:
    case result_kind::deleting:
      o += "Decision: none; the pod is " +
           std::string(r.result == result_kind::gated      ? "gated"
                       : r.result == result_kind::deleting ? "being deleted"
                                                           : "not pending") +
           ".\n  " + r.message + "\n";
      return;
    case result_kind::not_eligible:
      o += "Decision: the pod may not preempt now; any current nomination is kept.\n  " +
           r.message + "\n";
      return;
    default:
      o += "Decision: preemption cannot help; the pod stays pending and its nomination, if any, "
           "is cleared.\n  " +
           r.message + "\n";
  }
}

// Whether the dry run ran (its evaluated nodes are shown).
bool dry_run_shown(result_kind r) {
  return r != result_kind::fits && r != result_kind::not_eligible &&
         r != result_kind::other_scheduler && r != result_kind::bound &&
         r != result_kind::running && r != result_kind::gated && r != result_kind::deleting;
}

// One row of the evaluated nodes' table.
std::string evaluated_row(const report& r, const node_report& n, std::size_t w) {
  const bool chosen = n.name == r.nominated_node;
  const bool success = n.status == preempt::status_code::success;
  std::string detail = n.reason;
  if (success) {
    std::string names;
    for (std::size_t v = 0; v < n.victims.size() && v < 3; ++v)
      names += (v ? ", " : "") + n.victims[v];
    if (n.victims.size() > 3) names += ", +" + std::to_string(n.victims.size() - 3) + " more";
    detail = n.reason.empty() ? names : names + " (" + n.reason + ")";
  }
  const std::string outcome = chosen    ? "nominated"
                              : success ? "candidate"
                                        : std::string(preempt::to_string(n.status));
  return "  " + pad(n.name, w + 2) + pad(outcome, 30) +
         pad(success ? std::to_string(n.pdb_violations) : std::string("-"), 5) + detail + "\n";
}

// The nodes the dry run evaluated, in its order (the first 30 and the nominated one).
void append_evaluated_nodes(std::string& o, const report& r) {
  o += "\nEvaluated nodes (" + std::to_string(r.evaluation_order.size()) + " of " +
       plural(r.potential_nodes, "node", "nodes") + " preemption may help, starting at offset " +
       std::to_string(r.offset) + ", looking for " +
       plural(r.candidates_wanted, "candidate", "candidates") + "):\n";
  if (!r.evaluation_order.empty()) {
    std::size_t w = 4;
    for (std::size_t i : r.evaluation_order) w = std::max(w, r.nodes[i].name.size());
    o += "  " + pad("NODE", w + 2) + pad("OUTCOME", 30) + pad("PDB", 5) + "VICTIMS OR REASON\n";
    constexpr std::size_t max_rows = 30;
    std::size_t rows = 0, hidden = 0;
    for (std::size_t i : r.evaluation_order) {
      const node_report& n = r.nodes[i];
      if (rows >= max_rows && n.name != r.nominated_node) {
        ++hidden;
        continue;
      }
      ++rows;
      o += evaluated_row(r, n, w);
    }
    if (hidden > 0)
      o += "  ... and " + plural(hidden, "more node", "more nodes") +
           " (--output json lists every node)\n";
  }
  if (r.potential_nodes > r.evaluation_order.size())
    o += "  " + plural(r.potential_nodes - r.evaluation_order.size(), "other node", "other nodes") +
         " preemption may help " +
         (r.potential_nodes - r.evaluation_order.size() == 1 ? "was" : "were") +
         " not evaluated: enough candidates were found.\n";
}

// Nodes the filters ruled out for good, grouped by reason, most nodes first.
void append_unresolvable(std::string& o, const report& r) {
  std::map<std::string, std::size_t> unresolvable;
  for (const node_report& n : r.nodes)
    if (!n.evaluated && n.status == preempt::status_code::unschedulable_and_unresolvable)
      ++unresolvable[n.reason];
  if (unresolvable.empty() || r.result == result_kind::fits) return;
  std::vector<std::pair<std::size_t, std::string>> groups;
  std::size_t total = 0;
  for (const auto& [reason, count] : unresolvable) {
    groups.emplace_back(count, reason);
    total += count;
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  o += "\nNodes preemption cannot help (" + std::to_string(total) + "):\n";
  for (const auto& [count, reason] : groups)
    o += "  " + pad(std::to_string(count), 6) + reason + "\n";
}

// A pod group's members and their nodes, under `heading`.
void append_members(std::string& o, const group_report& r, std::string_view heading) {
  o += std::string(heading);
  std::size_t w = 4;
  for (const auto& [name, node] : r.members) w = std::max(w, name.size());
  for (const auto& [name, node] : r.members)
    o += "  " + pad(name, w + 2) + (node.empty() ? std::string("-") : node) + "\n";
}

void append_group_nomination(std::string& o, const group_report& r) {
  std::size_t placed = 0;
  for (const auto& m : r.members) placed += m.second.empty() ? 0u : 1u;
  o += "Decision: nominate " + std::to_string(placed) + " of " +
       plural(r.members.size(), "member", "members") + " and evict " +
       plural(r.victims.size(), "pod", "pods") + " (" +
       plural(static_cast<std::size_t>(r.pdb_violations), "PDB violation", "PDB violations") +
       ", " + plural(r.pod_group_disruptions, "group disrupted", "groups disrupted") + ").\n  " +
       r.message + "\n";
  append_members(o, r, "\nNominations (members without a node keep none):\n");
  if (!r.victims.empty()) {
    o += "\nVictims, most important first:\n";
    append_victims_table(o, r.victims);
    append_victim_conditions_text(o, r.victims);
  }
}

// The group decision's paragraph, by its result.
void append_group_decision(std::string& o, const group_report& r) {
  switch (r.result) {
    case result_kind::fits:
      o += "Decision: no preemption needed. The group fits as the cluster is.\n";
      append_members(o, r, "\nPlacement:\n");
      return;
    case result_kind::nominated: append_group_nomination(o, r); return;
    case result_kind::ongoing:
      o += "Decision: an earlier preemption for the group is still under way; every member keeps "
           "its nomination.\n  " +
           r.message + "\n";
      append_members(o, r, "\nCurrent nominations:\n");
      return;
    case result_kind::not_eligible:
      o += "Decision: the group may not preempt.\n  " + r.message + "\n";
      return;
    case result_kind::deleting:
      o += "Decision: none; no cycle runs for the group.\n  " + r.message + "\n";
      return;
    case result_kind::gated:
      o += "Decision: none; the group's pods are held in the queue (its PreEnqueue plugins) and "
           "keep their nominations.\n  " +
           r.message + "\n";
      append_members(o, r, "\nCurrent nominations:\n");
      return;
    case result_kind::error:
      o += "Decision: none; the group's cycle fails with an error.\n  " + r.message + "\n";
      return;
    default:
      o += "Decision: preemption cannot help; the group stays pending.\n  " + r.message + "\n";
  }
}

}  // namespace

std::string to_json(const report& r) {
  std::string o = "{\n  ";
  json_header(o, "Decision");
  o += ",\n  \"preemptor\": ";
  json_string(o, r.preemptor);
  o += ",\n  \"result\": ";
  json_string(o, to_string(r.result));
  o += ",\n  \"nominatedNodeName\": ";
  json_string(o, r.nominated_node);
  append_victim_names(o, r.victims);
  append_victim_units(o, r.victims);
  append_victim_conditions(o, r.victims);
  append_victim_reasons(o, r.victims);
  o += ",\n  \"pdbViolations\": " + std::to_string(r.pdb_violations);
  o += ",\n  \"clearedNominations\": ";
  json_strings(o, r.cleared_nominations);
  o += ",\n  \"message\": ";
  json_string(o, r.message);
  append_dry_run(o, r);
  append_nodes_json(o, r.nodes);
  append_warnings_json(o, r.warnings, r.not_modelled);
  return o;
}

std::string to_text(const report& decided, std::string_view origin) {
  const report r = for_text(decided);  // names from the dump as text_safety.hpp shows them
  std::string o = pod_heading(r, origin);
  append_decision(o, r);
  if (dry_run_shown(r.result)) append_evaluated_nodes(o, r);
  append_unresolvable(o, r);
  append_warnings_text(o, r.warnings);
  return trim_lines(o);
}

std::string to_json(const group_report& r) {
  std::string o = "{\n  ";
  json_header(o, "PodGroupDecision");
  o += ",\n  \"podGroup\": ";
  json_string(o, r.group);
  o += ",\n  \"priority\": " + std::to_string(r.priority);
  o += ",\n  \"preemptionPolicy\": ";
  json_string(o, r.policy);
  o += ",\n  \"schedulingPolicy\": ";
  json_string(o, r.scheduling);
  o += ",\n  \"scheduledMembers\": " + std::to_string(r.scheduled_members);
  if (r.deleting_members > 0)
    o += ",\n  \"deletingMembers\": " + std::to_string(r.deleting_members);
  o += ",\n  \"result\": ";
  json_string(o, to_string(r.result));
  o += ",\n  \"placement\": ";
  json_string(o, r.placement);
  o += ",\n  \"members\": [";
  for (std::size_t i = 0; i < r.members.size(); ++i) {
    o += i ? ",\n    {" : "\n    {";
    o += "\"name\": ";
    json_string(o, r.members[i].first);
    o += ", \"nominatedNodeName\": ";
    json_string(o, r.members[i].second);
    o += "}";
  }
  o += r.members.empty() ? "]" : "\n  ]";
  append_victim_names(o, r.victims);
  append_victim_units(o, r.victims);
  append_victim_conditions(o, r.victims);
  o += ",\n  \"pdbViolations\": " + std::to_string(r.pdb_violations);
  o += ",\n  \"podGroupDisruptions\": " + std::to_string(r.pod_group_disruptions);
  o += ",\n  \"message\": ";
  json_string(o, r.message);
  append_warnings_json(o, r.warnings, r.not_modelled);
  return o;
}

std::string to_text(const group_report& decided, std::string_view origin) {
  const group_report r = for_text(decided);  // as text_safety.hpp shows them
  std::string o = "PodGroup " + r.group;
  if (!origin.empty()) o += " (" + shown(origin) + ")";
  o += "\n  priority " + std::to_string(r.priority) + ", preemptionPolicy " + r.policy + ", " +
       r.scheduling + "; " + plural(r.members.size(), "pending member", "pending members") + ", " +
       std::to_string(r.scheduled_members) + " already scheduled" +
       (r.deleting_members > 0 && r.result != result_kind::deleting
            ? ", " + std::to_string(r.deleting_members) + " being deleted (left out)"
            : std::string()) +
       "\n";
  o += "  placement by this tool: " + r.placement +
       " (kube-scheduler places with its filters and scores, so it may choose other nodes)\n\n";
  append_group_decision(o, r);
  append_warnings_text(o, r.warnings);
  return trim_lines(o);
}

}  // namespace whatif
