// examples/whatif/analysis/policies.hpp - the release and the opt-in policies on preempt-whatif's
// command line, and the view that sets the policies' decision beside kube-scheduler's on the same
// dump.
//
//   --kubernetes-version 1.37|1.38      decide as that release (preempt::upstream_profile)
//   --policy spare-reschedulable,min-cost,hard-budgets   (repeatable, combinable)
//   --victim-cost label:KEY | annotation:KEY             a pod's cost (a non-negative integer;
//                                                        1 when absent)
//   --min-runtime DURATION              a pod that ran for less is no victim ("90s", "10m",
//   "1h30m")
//   --victim-reasons                    per victim, the filter condition its eviction relieves
// Any policy (or a minimum runtime) turns the single-pod output into a PolicyComparison: the
// default decision, the decision with the policies, and their difference in node, victims, cost
// and budget violations (output/policies_output.hpp writes it).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_POLICIES_HPP
#define PREEMPT_WHATIF_POLICIES_HPP

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/analysis.hpp"

namespace whatif {

struct policy_flags {
  std::string kubernetes_version;
  std::vector<std::string> policies;
  std::string victim_cost;
  std::string min_runtime;
  bool victim_reasons = false;

  // Whether the decision is compared with the policies' (a policy or a minimum runtime).
  bool compare() const { return !policies.empty() || !min_runtime.empty(); }
};

// Fills opts (profile, policies, cost source, reasons) from the flags; a message naming the flag
// for a bad value.
std::optional<std::string> apply_policy_flags(const policy_flags& flags, options& opts);

// "90s", "10m", "1h30m", "2h", "500ms" in nanoseconds; nullopt when it is not a duration.
std::optional<preempt::timestamp> parse_duration(std::string_view s);

struct policy_comparison {
  report upstream;       // without the policies
  report with_policies;  // with them
  policy_flags flags;
  std::string kubernetes_version;  // "1.37"
};

}  // namespace whatif

#endif  // PREEMPT_WHATIF_POLICIES_HPP
