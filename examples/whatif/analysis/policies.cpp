// examples/whatif/analysis/policies.cpp - see policies.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "analysis/policies.hpp"

#include <charconv>
#include <cstdint>
#include <string>

#include "output/one_line.hpp"

namespace whatif {

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
  if (opts.policies.any() && opts.profile != preempt::default_upstream_profile)
    return "--kubernetes-version " + std::string(preempt::to_string(opts.profile)) +
           ": the policies (--policy, --min-runtime) compare against v1.37's decision only; "
           "leave one of them out";
  opts.victim_reasons = flags.victim_reasons;
  return std::nullopt;
}

}  // namespace whatif
