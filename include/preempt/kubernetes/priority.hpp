// preempt/kubernetes/priority.hpp - a pod's priority and preemption policy (the Priority
// admission plugin).
//
// resolve_priority(pod, classes) answers what the API server would have stored in the pod:
//   priority: spec.priority when set; else the value of the PriorityClass named by
//             spec.priorityClassName; else the value of the global default class (with several,
//             the one of lowest value, as upstream); else 0.
//   policy:   spec.preemptionPolicy when set; else the policy of the class used (named or global
//             default); else PreemptLowerPriority.
// A class name that is neither among `classes` nor a built-in system class
// (system-cluster-critical = 2000000000, system-node-critical = 2000001000, both
// PreemptLowerPriority) is an error, as admission would reject the pod:
// `no PriorityClass with name "x" was found`. An unknown preemption policy string is an error too.
//
// Complexity O(c) for c classes. Allocation: the error message only. No exceptions; thread-safe.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_PRIORITY_HPP
#define PREEMPT_KUBERNETES_PRIORITY_HPP

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "preempt/config.hpp"
#include "preempt/kubernetes/result.hpp"
#include "preempt/pod.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes {

struct priority_class {
  std::string name{};
  std::int32_t value = 0;
  bool global_default = false;
  std::optional<preemption_policy> policy{};  // unset: PreemptLowerPriority
};

// The priority fields of a pod spec (designated initializers welcome).
struct pod_priority_spec {
  std::optional<std::int32_t> priority{};
  std::string priority_class_name{};
  std::optional<preemption_policy> policy{};
};

struct resolved_priority {
  std::int32_t priority = 0;
  preemption_policy policy = preemption_policy::preempt_lower_priority;
  // The class the priority came from ("" when spec.priority was set or none applied).
  std::string class_name;
};

inline constexpr std::int32_t system_cluster_critical = 2000000000;
inline constexpr std::int32_t system_node_critical = 2000001000;

// "PreemptLowerPriority" / "Never"; anything else is an error naming the value.
inline result<preemption_policy> parse_preemption_policy(std::string_view name) {
  if (name == "PreemptLowerPriority") return preemption_policy::preempt_lower_priority;
  if (name == "Never") return preemption_policy::never;
  std::string m = "invalid preemption policy \"";
  m += name;
  m += "\": must be PreemptLowerPriority or Never";
  return error{std::move(m)};
}

inline result<resolved_priority> resolve_priority(const pod_priority_spec& pod,
                                                  std::span<const priority_class> classes) {
  const priority_class* used = nullptr;
  priority_class builtin;
  if (!pod.priority_class_name.empty()) {
    for (const priority_class& c : classes)
      if (c.name == pod.priority_class_name) used = &c;
    if (used == nullptr) {
      if (pod.priority_class_name == "system-cluster-critical" ||
          pod.priority_class_name == "system-node-critical") {
        builtin.name = pod.priority_class_name;
        builtin.value = pod.priority_class_name == "system-node-critical" ? system_node_critical
                                                                          : system_cluster_critical;
        used = &builtin;
      } else if (!pod.priority) {
        std::string m = "no PriorityClass with name \"";
        m += pod.priority_class_name;
        m += "\" was found";
        return error{std::move(m)};
      }
    }
  } else {
    for (const priority_class& c : classes)
      if (c.global_default && (used == nullptr || c.value < used->value)) used = &c;
  }
  resolved_priority r;
  if (pod.priority) {
    r.priority = *pod.priority;
  } else if (used != nullptr) {
    r.priority = used->value;
  }
  if (used != nullptr && !pod.priority) r.class_name = used->name;
  if (pod.policy)
    r.policy = *pod.policy;
  else if (used != nullptr && used->policy)
    r.policy = *used->policy;
  return r;
}

}  // namespace kubernetes
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_PRIORITY_HPP
