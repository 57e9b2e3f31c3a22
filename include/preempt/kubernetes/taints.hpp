// preempt/kubernetes/taints.hpp - node taints and pod tolerations (the TaintToleration filter).
//
//   tolerates(toleration, taint)          Kubernetes Toleration.ToleratesTaint: the effect matches
//                                         (an empty toleration effect matches all), the key
//                                         matches (an empty key with Exists matches every key),
//                                         and Exists, or Equal (also "") with the same value.
//                                         Other operators tolerate nothing.
//   first_untolerated(taints, tolerations)   the first NoSchedule or NoExecute taint no toleration
//                                         tolerates (what the filter rejects a node for), or null
//   untolerated_taint_reason(taint)       "node(s) had untolerated taint {key: value}" (the filter
//                                         reason of Kubernetes 1.26-1.31, which names the taint;
//                                         1.32+ says `untolerated_taints_reason`)
// Effects and operators are kept as the API's strings.
//
// Complexity O(t · k) for t taints and k tolerations. Allocation: the reason string only.
// No exceptions; thread-safe.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_TAINTS_HPP
#define PREEMPT_KUBERNETES_TAINTS_HPP

#include <span>
#include <string>
#include <string_view>

#include "preempt/config.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes {

inline constexpr std::string_view effect_no_schedule = "NoSchedule";
inline constexpr std::string_view effect_prefer_no_schedule = "PreferNoSchedule";
inline constexpr std::string_view effect_no_execute = "NoExecute";

// The reason Kubernetes 1.32+ gives for any untolerated taint.
inline constexpr std::string_view untolerated_taints_reason = "node(s) had untolerated taint(s)";

struct taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule or NoExecute
};

struct toleration {
  std::string key;  // "" with operator Exists: every key
  std::string op;   // "Equal" (also ""), "Exists"
  std::string value;
  std::string effect;  // "" = every effect
};

inline bool tolerates(const toleration& t, const taint& x) noexcept {
  if (!t.effect.empty() && t.effect != x.effect) return false;
  if (!t.key.empty() && t.key != x.key) return false;
  if (t.op.empty() || t.op == "Equal") return t.value == x.value;
  return t.op == "Exists";
}

inline bool tolerated(const taint& x, std::span<const toleration> tolerations) noexcept {
  for (const toleration& t : tolerations)
    if (tolerates(t, x)) return true;
  return false;
}

// The first taint with effect NoSchedule or NoExecute that no toleration tolerates, or nullptr.
inline const taint* first_untolerated(std::span<const taint> taints,
                                      std::span<const toleration> tolerations) noexcept {
  for (const taint& x : taints) {
    if (x.effect != effect_no_schedule && x.effect != effect_no_execute) continue;
    if (!tolerated(x, tolerations)) return &x;
  }
  return nullptr;
}

inline std::string untolerated_taint_reason(const taint& x) {
  std::string r = "node(s) had untolerated taint {";
  r += x.key;
  r += ": ";
  r += x.value;
  r += '}';
  return r;
}

}  // namespace kubernetes
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_TAINTS_HPP
