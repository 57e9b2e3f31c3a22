// examples/whatif/analysis/policies.cpp - see policies.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "analysis/policies.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "output/one_line.hpp"
#include "output/output.hpp"
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

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string policies_line(const policy_comparison& c) {
  std::string o;
  for (const std::string& p : c.flags.policies) o += (o.empty() ? "" : ", ") + p;
  if (!c.flags.victim_cost.empty()) o += " (victim cost from " + shown(c.flags.victim_cost) + ")";
  if (!c.flags.min_runtime.empty())
    o += (o.empty() ? "" : "; ") + std::string("minimum runtime ") + shown(c.flags.min_runtime);
  return o;
}

}  // namespace

std::optional<preempt::timestamp> parse_duration(std::string_view s) {
  if (s.empty()) return std::nullopt;
  struct unit {
    std::string_view name;
    std::int64_t ns;
  };
  constexpr unit units[] = {
      {"ms", 1'000'000}, {"s", 1'000'000'000}, {"m", 60'000'000'000}, {"h", 3'600'000'000'000}};
  std::int64_t total = 0;
  while (!s.empty()) {
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec != std::errc() || n < 0 || end == s.data()) return std::nullopt;
    s.remove_prefix(static_cast<std::size_t>(end - s.data()));
    const unit* found = nullptr;
    for (const unit& u : units)
      if (s.starts_with(u.name) && (found == nullptr || u.name.size() > found->name.size()))
        found = &u;
    if (found == nullptr) return std::nullopt;
    s.remove_prefix(found->name.size());
    std::int64_t part = 0;
    if (__builtin_mul_overflow(n, found->ns, &part) || __builtin_add_overflow(total, part, &total))
      return std::nullopt;
  }
  return total;
}

std::optional<std::string> apply_policy_flags(const policy_flags& flags, options& opts) {
  if (!flags.kubernetes_version.empty()) {
    const auto profile = preempt::parse_upstream_profile(flags.kubernetes_version);
    if (!profile)
      return "--kubernetes-version " + clip(flags.kubernetes_version) +
             ": expected 1.37 or 1.38 (see --help)";
    opts.profile = *profile;
  }
  for (const std::string& p : flags.policies) {
    if (p == "spare-reschedulable")
      opts.policies.spare_reschedulable = true;
    else if (p == "min-cost")
      opts.policies.min_cost = true;
    else if (p == "hard-budgets")
      opts.policies.hard_budgets = true;
    else
      return "--policy " + clip(p) +
             ": expected spare-reschedulable, min-cost or hard-budgets (see --help)";
  }
  if (!flags.victim_cost.empty()) {
    const std::string& v = flags.victim_cost;
    const std::size_t colon = v.find(':');
    const std::string from = v.substr(0, colon);
    if (colon == std::string::npos || colon + 1 == v.size() ||
        (from != "label" && from != "annotation"))
      return "--victim-cost " + clip(v) + ": expected label:KEY or annotation:KEY (see --help)";
    opts.cost_from_annotation = from == "annotation";
    opts.cost_key = v.substr(colon + 1);
  }
  if (!flags.min_runtime.empty()) {
    const auto d = parse_duration(flags.min_runtime);
    if (!d)
      return "--min-runtime " + clip(flags.min_runtime) +
             ": expected a duration such as 90s, 10m or 1h30m (see --help)";
    opts.policies.min_runtime = *d;
  }
  opts.victim_reasons = flags.victim_reasons;
  return std::nullopt;
}

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
  o += "}\n}\n";
  return o;
}

std::string to_text(const policy_comparison& c, std::string_view origin) {
  const report a = for_text(c.upstream);
  const report b = for_text(c.with_policies);
  const auto outcome = [](const report& r) {
    return r.result == result_kind::nominated ? "node " + r.nominated_node
                                              : std::string(to_string(r.result));
  };
  std::string o = "Pod " + a.preemptor;
  if (!origin.empty()) o += " (" + shown(origin) + ")";
  o += "\nPolicies: " + policies_line(c) + "; as kube-scheduler v" + c.kubernetes_version + ".\n\n";
  const std::string col1 = "DEFAULT (kube-scheduler)";
  std::size_t w = std::max(col1.size(), outcome(a).size()) + 3;
  o += "  " + pad("", 18) + pad(col1, w) + "WITH POLICIES\n";
  const auto row = [&](const std::string& what, const std::string& x, const std::string& y) {
    o += "  " + pad(what, 18) + pad(x, w) + y + "\n";
  };
  row("decision", outcome(a), outcome(b));
  row("victims", std::to_string(a.victims.size()), std::to_string(b.victims.size()));
  row("victim cost", std::to_string(total_cost(a)), std::to_string(total_cost(b)));
  row("PDB violations", std::to_string(a.pdb_violations), std::to_string(b.pdb_violations));
  row("budgets exceeded", std::to_string(a.budgets_exceeded), std::to_string(b.budgets_exceeded));
  const std::vector<std::string> va = victim_names(a), vb = victim_names(b);
  const auto list = [&](const char* title, const std::vector<std::string>& names) {
    if (names.empty()) return;
    o += std::string(title);
    for (std::size_t i = 0; i < names.size(); ++i) o += (i ? ", " : " ") + names[i];
    o += "\n";
  };
  o += "\n";
  list("Evicted by default only:", only_in(va, vb));
  list("Evicted with the policies only:", only_in(vb, va));
  if (only_in(va, vb).empty() && only_in(vb, va).empty() && a.nominated_node == b.nominated_node)
    o += "The policies decide as kube-scheduler does here.\n";
  o += "(PDB violations as kube-scheduler counts them; budgets exceeded: victims whose eviction "
       "the API server's budget check would refuse)\n";
  o += "\n=== With the policies ===\n" + to_text(c.with_policies, "");
  o += "\n=== Default (kube-scheduler) ===\n" + to_text(c.upstream, "");
  return o;
}

}  // namespace whatif
