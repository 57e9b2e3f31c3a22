// preempt/workload/group_decision.hpp - what a pod-group evaluation returns (upstream's
// PodGroupPostFilterResult and status, with the victims its executor receives).
//
//   kind            preempt: victims chosen (possibly none) and members placed; ongoing: an
//                   earlier preemption for the group is still terminating pods on a member's
//                   nominated node; not_eligible; unschedulable (no lower-priority unit, or the
//                   group does not fit even without them: outcome.code() tells which); error
//   outcome         upstream's status, without the plugin's "pod group preemption: " prefix
//                   (pod_group_preemption_prefix)
//   victims         the pods to evict: whole units in descending importance, each unit's
//                   members in scan order
//   pdb_violations  the violating member pods of the evicted violating units (NumPDBViolations)
//   pod_group_disruptions  evicted units that are, or stand for, a pod group
//                   (numPodGroupDisruptions)
//   nominations     for `preempt`: every placed member and its node (ModeOverride); for
//                   `ongoing`: every member and its current nominated node (no_node if none)
//   evaluated, evaluation_time  whether the victim search ran, and how long it took
//                   (scheduler_preemption_evaluation_duration_seconds)
// The spans refer to the evaluator (valid until its next evaluation) and to the cluster's pods,
// so, like preempt::decision, it is not copyable: bind the evaluator's by reference.
//
// Header-only declarations; no allocation; no exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WORKLOAD_GROUP_DECISION_HPP
#define PREEMPT_WORKLOAD_GROUP_DECISION_HPP

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "preempt/config.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace workload {

inline constexpr std::string_view pod_group_preemption_prefix = "pod group preemption: ";
inline constexpr std::string_view no_victims_for_group =
    "No preemption victims found for incoming preemptor";

enum class group_decision_kind : std::uint8_t {
  preempt,
  ongoing,
  not_eligible,
  unschedulable,
  error
};

// A member of the preemptor (index into group_preemptor::members) and its node.
struct member_nomination {
  std::size_t member = 0;
  std::size_t node = 0;

  friend constexpr bool operator==(const member_nomination&,
                                   const member_nomination&) noexcept = default;
};

template <class P>
struct group_decision {
  group_decision() = default;
  group_decision(const group_decision&) = delete;  // bind it: const auto& d = ev.evaluate(...)
  group_decision& operator=(const group_decision&) = delete;
  group_decision(group_decision&&) noexcept = default;
  group_decision& operator=(group_decision&&) noexcept = default;

  group_decision_kind kind = group_decision_kind::unschedulable;
  status outcome;
  std::span<const P* const> victims;
  std::int64_t pdb_violations = 0;
  std::size_t pod_group_disruptions = 0;
  std::span<const member_nomination> nominations;
  bool evaluated = false;
  std::chrono::nanoseconds evaluation_time{0};
};

}  // namespace workload
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_WORKLOAD_GROUP_DECISION_HPP
