// examples/whatif/output/policies_output.cpp - see policies_output.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "output/policies_output.hpp"

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "output/json_writing.hpp"
#include "output/output.hpp"
#include "output/text_format.hpp"
#include "output/text_safety.hpp"

namespace whatif {

namespace {

std::int64_t total_cost(const report& r) {
  std::int64_t sum = 0;
  for (const victim_info& v : r.victims) sum += v.cost;
  return sum;
}

std::vector<std::string> victim_names(const report& r) {
  std::vector<std::string> out;
  for (const victim_info& v : r.victims) out.push_back(v.name);
  return out;
}

// The names in `a` that are not in `b`, in a's order.
std::vector<std::string> only_in(const std::vector<std::string>& a,
                                 const std::vector<std::string>& b) {
  const std::set<std::string> other(b.begin(), b.end());
  std::vector<std::string> out;
  for (const std::string& s : a)
    if (!other.contains(s)) out.push_back(s);
  return out;
}

// A to_json(report) document as a member value (its trailing newline dropped, indented).
std::string nested(const std::string& doc) {
  std::string out;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    if (doc[i] == '\n' && i + 1 == doc.size()) break;
    out += doc[i];
    if (doc[i] == '\n') out += "  ";
  }
  return out;
}

std::string pair_of(std::int64_t a, std::int64_t b) {
  return "{\"default\": " + std::to_string(a) + ", \"withPolicies\": " + std::to_string(b) + "}";
}

std::string policies_line(const policy_comparison& c) {
  std::string o;
  for (const std::string& p : c.flags.policies) o += (o.empty() ? "" : ", ") + p;
  if (!c.flags.victim_cost.empty()) o += " (victim cost from " + shown(c.flags.victim_cost) + ")";
  if (!c.flags.min_runtime.empty())
    o += (o.empty() ? "" : "; ") + std::string("minimum runtime ") + shown(c.flags.min_runtime);
  return o;
}

// The "difference" member: what the policies change.
void append_difference_json(std::string& o, const report& a, const report& b) {
  const std::vector<std::string> va = victim_names(a), vb = victim_names(b);
  o += ",\n  \"difference\": {\"sameNode\": ";
  o += a.result == b.result && a.nominated_node == b.nominated_node ? "true" : "false";
  o += ", \"sameVictims\": ";
  o += std::set<std::string>(va.begin(), va.end()) == std::set<std::string>(vb.begin(), vb.end())
           ? "true"
           : "false";
  o += ",\n    \"victimsOnlyInDefault\": ";
  json_strings(o, only_in(va, vb));
  o += ",\n    \"victimsOnlyWithPolicies\": ";
  json_strings(o, only_in(vb, va));
  o += ",\n    \"victims\": " +
       pair_of(static_cast<std::int64_t>(va.size()), static_cast<std::int64_t>(vb.size()));
  o += ",\n    \"cost\": " + pair_of(total_cost(a), total_cost(b));
  o += ",\n    \"pdbViolations\": " + pair_of(a.pdb_violations, b.pdb_violations);
  o += ",\n    \"budgetsExceeded\": " + pair_of(a.budgets_exceeded, b.budgets_exceeded);
  o += "}";
}

// "node N" for a nomination, else the result's name.
std::string outcome(const report& r) {
  return r.result == result_kind::nominated ? "node " + r.nominated_node
                                            : std::string(to_string(r.result));
}

// The two decisions side by side: decision, victims, cost, PDB violations, budgets exceeded.
void append_side_by_side(std::string& o, const report& a, const report& b) {
  const std::string col1 = "DEFAULT (kube-scheduler)";
  const std::size_t w = std::max(col1.size(), outcome(a).size()) + 3;
  o += "  " + pad("", 18) + pad(col1, w) + "WITH POLICIES\n";
  const auto row = [&](const std::string& what, const std::string& x, const std::string& y) {
    o += "  " + pad(what, 18) + pad(x, w) + y + "\n";
  };
  row("decision", outcome(a), outcome(b));
  row("victims", std::to_string(a.victims.size()), std::to_string(b.victims.size()));
  row("victim cost", std::to_string(total_cost(a)), std::to_string(total_cost(b)));
  row("PDB violations", std::to_string(a.pdb_violations), std::to_string(b.pdb_violations));
  row("budgets exceeded", std::to_string(a.budgets_exceeded), std::to_string(b.budgets_exceeded));
}

// The victims only one of the decisions evicts, or that the two agree.
void append_victim_differences(std::string& o, const report& a, const report& b) {
  const std::vector<std::string> va = victim_names(a), vb = victim_names(b);
  const auto list = [&](const char* title, const std::vector<std::string>& names) {
    if (names.empty()) return;
    o += std::string(title);
    for (std::size_t i = 0; i < names.size(); ++i) o += (i ? ", " : " ") + names[i];
    o += "\n";
  };
  list("Evicted by default only:", only_in(va, vb));
  list("Evicted with the policies only:", only_in(vb, va));
  if (only_in(va, vb).empty() && only_in(vb, va).empty() && a.nominated_node == b.nominated_node)
    o += "The policies decide as kube-scheduler does here.\n";
}

}  // namespace

std::string to_json(const policy_comparison& c) {
  const report& a = c.upstream;
  const report& b = c.with_policies;
  std::string o = "{\n  ";
  json_header(o, "PolicyComparison");
  o += ",\n  \"preemptor\": ";
  json_string(o, a.preemptor);
  o += ",\n  \"kubernetesVersion\": ";
  json_string(o, c.kubernetes_version);
  o += ",\n  \"policies\": ";
  json_strings(o, c.flags.policies);
  o += ",\n  \"victimCost\": ";
  json_string(o, c.flags.victim_cost);
  o += ",\n  \"minRuntime\": ";
  json_string(o, c.flags.min_runtime);
  o += ",\n  \"default\": " + nested(to_json(a));
  o += ",\n  \"withPolicies\": " + nested(to_json(b));
  append_difference_json(o, a, b);
  o += "\n}\n";
  return o;
}

std::string to_text(const policy_comparison& c, std::string_view origin) {
  const report a = for_text(c.upstream);
  const report b = for_text(c.with_policies);
  std::string o = "Pod " + a.preemptor;
  if (!origin.empty()) o += " (" + shown(origin) + ")";
  o += "\nPolicies: " + policies_line(c) + "; as kube-scheduler v" + c.kubernetes_version + ".\n\n";
  append_side_by_side(o, a, b);
  o += "\n";
  append_victim_differences(o, a, b);
  o += "(PDB violations as kube-scheduler counts them; budgets exceeded: victims whose eviction "
       "the API server's budget check would refuse)\n";
  o += "\n=== With the policies ===\n" + to_text(c.with_policies, "");
  o += "\n=== Default (kube-scheduler) ===\n" + to_text(c.upstream, "");
  return o;
}

}  // namespace whatif
