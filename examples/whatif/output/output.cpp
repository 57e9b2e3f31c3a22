// examples/whatif/output/output.cpp - see output.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "output/output.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "output/text_safety.hpp"
#include "preempt/candidate_choice.hpp"

namespace whatif {

// JSON text of `s`. Besides what JSON requires, DEL and the C1 controls (U+0080-U+009F) are
// written as \u escapes too: output shown on a terminal cannot move it.
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
    case result_kind::ongoing: return "ongoing";
    case result_kind::error: return "error";
  }
  return "";
}

void json_string(std::string& out, std::string_view s) {
  out += '"';
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    const auto c = static_cast<unsigned char>(ch);
    if (c == 0x7f ||
        (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
         static_cast<unsigned char>(s[i + 1]) < 0xa0)) {
      char buf[8];
      const unsigned code = c == 0x7f ? 0x7fu : static_cast<unsigned char>(s[++i]);
      std::snprintf(buf, sizeof buf, "\\u%04x", code);
      out += buf;
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

void json_strings(std::string& out, const std::vector<std::string>& list) {
  out += '[';
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (i) out += ", ";
    json_string(out, list[i]);
  }
  out += ']';
}

void json_header(std::string& out, std::string_view kind) {
  out += "\"apiVersion\": ";
  json_string(out, json_api_version);
  out += ",\n  \"kind\": ";
  json_string(out, kind);
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

namespace {

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

}  // namespace

std::string format_time(preempt::timestamp t) {
  // Times beyond nanoseconds' range are held at its ends (decode::context::read_time).
  if (t == std::numeric_limits<preempt::timestamp>::min()) return "before 1677-09-21T00:12:44Z";
  if (t == std::numeric_limits<preempt::timestamp>::max()) return "after 2262-04-11T23:47:16Z";
  // civil_from_days (Howard Hinnant).
  std::int64_t secs = t / 1'000'000'000;
  std::int64_t nanos = t % 1'000'000'000;
  if (nanos < 0) {
    nanos += 1'000'000'000;
    --secs;
  }
  std::int64_t days = secs / 86400;
  std::int64_t rem = secs % 86400;
  if (rem < 0) {
    rem += 86400;
    --days;
  }
  const std::int64_t z = days + 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const std::int64_t day = doy - (153 * mp + 2) / 5 + 1;
  const std::int64_t month = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const auto digits = [](std::int64_t v, std::size_t width) {
    std::string d = std::to_string(v);
    if (d.size() < width) d.insert(0, width - d.size(), '0');
    return d;
  };
  std::string s = digits(year, 4) + "-" + digits(month, 2) + "-" + digits(day, 2) + "T" +
                  digits(rem / 3600, 2) + ":" + digits(rem / 60 % 60, 2) + ":" +
                  digits(rem % 60, 2);
  if (nanos != 0) {
    std::string frac = digits(nanos, 9);
    while (frac.back() == '0') frac.pop_back();
    s += "." + frac;
  }
  s += 'Z';
  return s;
}

std::string format_amount(std::string_view resource, std::int64_t amount) {
  if (resource == "cpu") {
    if (amount % 1000 == 0) return std::to_string(amount / 1000);
    return std::to_string(amount) + "m";
  }
  if (resource == "memory" || resource == "ephemeral-storage" ||
      resource.substr(0, 10) == "hugepages-") {
    constexpr std::pair<std::string_view, int> units[] = {{"Ei", 60}, {"Pi", 50}, {"Ti", 40},
                                                          {"Gi", 30}, {"Mi", 20}, {"Ki", 10}};
    for (const auto& [suffix, shift] : units) {
      const std::int64_t unit = std::int64_t{1} << shift;
      if (amount != 0 && amount % unit == 0)
        return std::to_string(amount / unit) + std::string(suffix);
    }
  }
  return std::to_string(amount);
}

namespace {

// With pod groups: "victimUnits": {"ns/pod": "PodGroup ns/name", ...} for the victims evicted
// with their group's unit (left out when there are none, as without groups).
void append_victim_units(std::string& o, const std::vector<victim_info>& victims) {
  bool any = false;
  for (const victim_info& v : victims) any = any || !v.unit.empty();
  if (!any) return;
  o += ",\n  \"victimUnits\": {";
  bool first = true;
  for (const victim_info& v : victims) {
    if (v.unit.empty()) continue;
    o += first ? "" : ", ";
    first = false;
    json_string(o, v.name);
    o += ": ";
    json_string(o, v.unit);
  }
  o += "}";
}

// With --victim-reasons: "victimReasons": {"ns/pod": "Insufficient cpu; cpu: 2 asked, 500m
// left", ...}, what keeping each victim alone would leave the preemptor short of.
void append_victim_reasons(std::string& o, const std::vector<victim_info>& victims) {
  bool any = false;
  for (const victim_info& v : victims) any = any || !v.reason.empty();
  if (!any) return;
  o += ",\n  \"victimReasons\": {";
  bool first = true;
  for (const victim_info& v : victims) {
    if (v.reason.empty()) continue;
    o += first ? "" : ", ";
    first = false;
    json_string(o, v.name);
    o += ": ";
    json_string(o, v.reason);
  }
  o += "}";
}

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

// Removes trailing spaces from every line (padded columns of empty cells).
std::string trim_lines(const std::string& o) {
  std::string trimmed;
  trimmed.reserve(o.size());
  std::size_t start = 0;
  while (start < o.size()) {
    std::size_t end = o.find('\n', start);
    if (end == std::string::npos) end = o.size();
    std::size_t last = end;
    while (last > start && o[last - 1] == ' ') --last;
    trimmed.append(o, start, last - start);
    if (end < o.size()) trimmed += '\n';
    start = end + 1;
  }
  return trimmed;
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
  o += ",\n  \"victims\": ";
  std::vector<std::string> victims;
  for (const victim_info& v : r.victims) victims.push_back(v.name);
  json_strings(o, victims);
  append_victim_units(o, r.victims);
  append_victim_conditions(o, r.victims);
  append_victim_reasons(o, r.victims);
  o += ",\n  \"pdbViolations\": " + std::to_string(r.pdb_violations);
  o += ",\n  \"clearedNominations\": ";
  json_strings(o, r.cleared_nominations);
  o += ",\n  \"message\": ";
  json_string(o, r.message);
  // The dry run's sampling: kube-scheduler draws the offset at random; `sampled` says whether
  // another offset could give another answer, `tiedCandidates` the candidates among which it picks
  // at random when they tie on every criterion.
  if (r.potential_nodes == 0) {
    o += ",\n  \"dryRun\": null";
  } else {
    o += ",\n  \"dryRun\": {\"potentialNodes\": " + std::to_string(r.potential_nodes) +
         ", \"candidatesWanted\": " + std::to_string(r.candidates_wanted) +
         ", \"offset\": " + std::to_string(r.offset) +
         ", \"sampled\": " + (sampled(r) ? "true" : "false") + ", \"tiedCandidates\": ";
    json_strings(o, tied_on_every_criterion(r));
    o += "}";
  }
  o += ",\n  \"nodes\": [";
  for (std::size_t i = 0; i < r.nodes.size(); ++i) {
    const node_report& n = r.nodes[i];
    o += i ? ",\n    {" : "\n    {";
    o += "\"name\": ";
    json_string(o, n.name);
    o += ", \"status\": ";
    json_string(o, n.status);
    o += ", \"reason\": ";
    json_string(o, n.reason);
    o += ", \"victims\": ";
    json_strings(o, n.victims);
    o += ", \"pdbViolations\": " + std::to_string(n.pdb_violations);
    o += std::string(", \"evaluated\": ") + (n.evaluated ? "true" : "false") + "}";
  }
  o += r.nodes.empty() ? "]" : "\n  ]";
  o += ",\n  \"warnings\": ";
  json_strings(o, r.warnings);
  o += ",\n  \"notModelled\": ";
  json_strings(o, r.not_modelled);
  o += "\n}\n";
  return o;
}

std::string to_text(const report& decided, std::string_view origin) {
  const report r = for_text(decided);  // names from the dump as text_safety.hpp shows them
  std::string o;
  o += "Pod " + r.preemptor;
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

  if (r.result == result_kind::fits) {
    o += "Decision: no preemption needed. The pod fits on " +
         plural(r.nodes.size(), "node", "nodes") + " as they are:";
    std::size_t shown = 0;
    for (const node_report& n : r.nodes) {
      if (shown++ == 10) {
        o += " ...";
        break;
      }
      o += " " + n.name;
    }
    o += "\n(the scheduler picks one of them by scoring; preemption does not run)\n";
  } else if (r.result == result_kind::nominated) {
    o += "Decision: nominate node " + r.nominated_node + " and evict " +
         plural(r.victims.size(), "pod", "pods") + " (" +
         plural(static_cast<std::size_t>(r.pdb_violations), "PDB violation", "PDB violations") +
         ")" + (sampled(r) ? ", at offset " + std::to_string(r.offset) + " (sampled)" : "") + ".\n";
    if (sampled(r))
      o += "Sampled: kube-scheduler starts its dry run at a random one of the " +
           std::to_string(r.potential_nodes) + " nodes preemption may help and stops at " +
           plural(r.candidates_wanted, "candidate", "candidates") +
           ", so another start may nominate another node (--offsets all shows the answer for "
           "every start).\n";
    if (r.candidates > 1) {
      o += "Chosen among " + std::to_string(r.candidates) +
           " candidate nodes; decided by: " + r.decided_by + ".\n";
      if (r.tie_break.size() > 1) {
        std::size_t w = 0;
        for (const auto& [node, value] : r.tie_break) w = std::max(w, node.size());
        std::size_t shown = 0;
        for (const auto& [node, value] : r.tie_break) {
          if (shown++ == 8) {
            o += "  ... and " +
                 plural(r.tie_break.size() - 8, "more tied candidate", "more tied candidates") +
                 "\n";
            break;
          }
          o += "  " + pad(node, w + 2) + value + (shown == 1 ? "  <- chosen" : "") + "\n";
        }
      }
      if (const auto tied = tied_on_every_criterion(r); tied.size() > 1)
        o += "Tied on every criterion: kube-scheduler picks one of these " +
             std::to_string(tied.size()) +
             " at random (its candidates are a Go map); the tool shows the first it found.\n";
    } else {
      o += "It was the only candidate node.\n";
    }
    if (!r.cleared_nominations.empty()) {
      o += "Pods nominated to " + r.nominated_node + " with lower priority lose their nomination: ";
      for (std::size_t i = 0; i < r.cleared_nominations.size(); ++i)
        o += (i ? ", " : "") + r.cleared_nominations[i];
      o += ".\n";
    }
    o += "\nVictims, most important first:\n";
    append_victims_table(o, r.victims);
    if (std::any_of(r.victims.begin(), r.victims.end(),
                    [](const victim_info& v) { return !v.conditions.empty(); })) {
      o += "\nBlocking the pod beyond resources (every victim frees resources):\n";
      for (const victim_info& v : r.victims) {
        if (v.conditions.empty()) continue;
        std::string line;
        for (const victim_condition_info& c : v.conditions)
          line += (line.empty() ? "" : "; ") + condition_text(c);
        o += "  " + v.name + ": " + line + "\n";
      }
    }
    if (std::any_of(r.victims.begin(), r.victims.end(),
                    [](const victim_info& v) { return !v.reason.empty(); })) {
      o += "\nEvicted for (what keeping the victim alone would leave the pod short of):\n";
      for (const victim_info& v : r.victims)
        if (!v.reason.empty()) o += "  " + v.name + ": " + v.reason + "\n";
    }
  } else if (r.result == result_kind::other_scheduler) {
    o += "Decision: none; the pod is not for this scheduler.\n  " + r.message + "\n";
  } else if (r.result == result_kind::bound || r.result == result_kind::running ||
             r.result == result_kind::gated) {
    o += "Decision: none; the pod is " +
         std::string(r.result == result_kind::gated ? "gated" : "not pending") + ".\n  " +
         r.message + "\n";
  } else if (r.result == result_kind::not_eligible) {
    o += "Decision: the pod may not preempt now; any current nomination is kept.\n  " + r.message +
         "\n";
  } else {
    o += "Decision: preemption cannot help; the pod stays pending and its nomination, if any, is "
         "cleared.\n  " +
         r.message + "\n";
  }

  if (r.result != result_kind::fits && r.result != result_kind::not_eligible &&
      r.result != result_kind::other_scheduler && r.result != result_kind::bound &&
      r.result != result_kind::running && r.result != result_kind::gated) {
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
        const bool chosen = n.name == r.nominated_node;
        if (rows >= max_rows && !chosen) {
          ++hidden;
          continue;
        }
        ++rows;
        const bool success = n.status == "Success";
        std::string detail = n.reason;
        if (success) {
          std::string names;
          for (std::size_t v = 0; v < n.victims.size() && v < 3; ++v)
            names += (v ? ", " : "") + n.victims[v];
          if (n.victims.size() > 3) names += ", +" + std::to_string(n.victims.size() - 3) + " more";
          detail = n.reason.empty() ? names : names + " (" + n.reason + ")";
        }
        const std::string outcome = chosen ? "nominated" : success ? "candidate" : n.status;
        o += "  " + pad(n.name, w + 2) + pad(outcome, 30) +
             pad(success ? std::to_string(n.pdb_violations) : std::string("-"), 5) + detail + "\n";
      }
      if (hidden > 0)
        o += "  ... and " + plural(hidden, "more node", "more nodes") +
             " (--output json lists every node)\n";
    }
    if (r.potential_nodes > r.evaluation_order.size())
      o += "  " +
           plural(r.potential_nodes - r.evaluation_order.size(), "other node", "other nodes") +
           " preemption may help " +
           (r.potential_nodes - r.evaluation_order.size() == 1 ? "was" : "were") +
           " not evaluated: enough candidates were found.\n";
  }

  // Nodes the filters ruled out for good, grouped by reason.
  std::map<std::string, std::size_t> unresolvable;
  for (const node_report& n : r.nodes)
    if (!n.evaluated && n.status == "UnschedulableAndUnresolvable") ++unresolvable[n.reason];
  if (!unresolvable.empty() && r.result != result_kind::fits) {
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
  if (!r.warnings.empty()) {
    o += "\nWarnings:\n";
    for (const std::string& w : r.warnings) o += "  " + w + "\n";
  }
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
  o += ",\n  \"victims\": ";
  std::vector<std::string> victims;
  for (const victim_info& v : r.victims) victims.push_back(v.name);
  json_strings(o, victims);
  append_victim_units(o, r.victims);
  o += ",\n  \"pdbViolations\": " + std::to_string(r.pdb_violations);
  o += ",\n  \"podGroupDisruptions\": " + std::to_string(r.pod_group_disruptions);
  o += ",\n  \"message\": ";
  json_string(o, r.message);
  o += ",\n  \"warnings\": ";
  json_strings(o, r.warnings);
  o += ",\n  \"notModelled\": ";
  json_strings(o, r.not_modelled);
  o += "\n}\n";
  return o;
}

std::string to_text(const group_report& decided, std::string_view origin) {
  const group_report r = for_text(decided);  // as text_safety.hpp shows them
  std::string o = "PodGroup " + r.group;
  if (!origin.empty()) o += " (" + shown(origin) + ")";
  o += "\n  priority " + std::to_string(r.priority) + ", preemptionPolicy " + r.policy + ", " +
       r.scheduling + "; " + plural(r.members.size(), "pending member", "pending members") + ", " +
       std::to_string(r.scheduled_members) + " already scheduled\n";
  o += "  placement by this tool: " + r.placement +
       " (kube-scheduler places with its filters and scores, so it may choose other nodes)\n\n";
  const auto placement = [&](std::string_view heading) {
    o += std::string(heading);
    std::size_t w = 4;
    for (const auto& [name, node] : r.members) w = std::max(w, name.size());
    for (const auto& [name, node] : r.members)
      o += "  " + pad(name, w + 2) + (node.empty() ? std::string("-") : node) + "\n";
  };
  if (r.result == result_kind::fits) {
    o += "Decision: no preemption needed. The group fits as the cluster is.\n";
    placement("\nPlacement:\n");
  } else if (r.result == result_kind::nominated) {
    std::size_t placed = 0;
    for (const auto& m : r.members) placed += m.second.empty() ? 0u : 1u;
    o += "Decision: nominate " + std::to_string(placed) + " of " +
         plural(r.members.size(), "member", "members") + " and evict " +
         plural(r.victims.size(), "pod", "pods") + " (" +
         plural(static_cast<std::size_t>(r.pdb_violations), "PDB violation", "PDB violations") +
         ", " + plural(r.pod_group_disruptions, "group disrupted", "groups disrupted") + ").\n  " +
         r.message + "\n";
    placement("\nNominations (members without a node keep none):\n");
    if (!r.victims.empty()) {
      o += "\nVictims, most important first:\n";
      append_victims_table(o, r.victims);
    }
  } else if (r.result == result_kind::ongoing) {
    o += "Decision: an earlier preemption for the group is still under way; every member keeps "
         "its nomination.\n  " +
         r.message + "\n";
    placement("\nCurrent nominations:\n");
  } else if (r.result == result_kind::not_eligible) {
    o += "Decision: the group may not preempt.\n  " + r.message + "\n";
  } else {
    o += "Decision: preemption cannot help; the group stays pending.\n  " + r.message + "\n";
  }
  if (!r.warnings.empty()) {
    o += "\nWarnings:\n";
    for (const std::string& w : r.warnings) o += "  " + w + "\n";
  }
  return trim_lines(o);
}

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

namespace {

// One row of the --all-pending table: the decision in a few words.
std::vector<std::string> table_row(const report& r) {
  std::string victims = "-", detail;
  if (r.result == result_kind::nominated) {
    victims = std::to_string(r.victims.size());
    for (std::size_t v = 0; v < r.victims.size() && v < 2; ++v)
      victims += (v ? ", " : ": ") + r.victims[v].name;
    if (r.victims.size() > 2) victims += ", ...";
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

}  // namespace

std::string to_text_table(const std::vector<report>& reports, std::string_view origin) {
  std::string o = "Pending pods";
  if (!origin.empty()) o += " (" + shown(origin) + ")";
  if (reports.empty()) return o + ": none.\n";
  o += ", in the scheduler's queue order (priority, then creation time), each decided on its own "
       "against the same cluster:\n\n";
  std::vector<std::vector<std::string>> rows = {
      {"POD", "PRIORITY", "DECISION", "NODE", "VICTIMS", "DETAIL"}};
  for (const report& r : reports) rows.push_back(table_row(for_text(r)));
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
  std::vector<std::string> warnings(reports.front().warnings.begin(),
                                    reports.front().warnings.begin() +
                                        static_cast<std::ptrdiff_t>(reports.front().dump_warnings));
  for (const report& r : reports)
    for (std::size_t w = r.dump_warnings; w < r.warnings.size(); ++w)
      warnings.push_back(r.preemptor + ": " + r.warnings[w]);
  for (std::string& w : warnings) w = shown(w);
  if (!warnings.empty()) {
    o += "\nWarnings:\n";
    for (const std::string& w : warnings) o += "  " + w + "\n";
  }
  o += "\n(--pod-name NAMESPACE/NAME explains one decision in full)\n";
  return o;
}

}  // namespace whatif
