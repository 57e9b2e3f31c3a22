// preempt/workload/group_dispatch.hpp - carrying out a pod group's preemption decision through the
// dispatcher (upstream's actuatePodGroupPreemption, then the members' nominations of
// applyPodGroupPostFilterResult).
//
// dispatch_group(dispatcher, group, preemptor, decision, metrics) acts on a pod_group_evaluator
// decision; `group` is a P that stands for the PodGroup (its uid keys the in-flight gate, its
// priority is the group's):
//   - preempt: the victims are evicted through dispatcher::preempt_cluster_wide, inline or in the
//     background depending on the dispatcher's executor, with every rule of the dispatcher
//     (terminating victims skipped, victims in flight for others not dispatched again, all but the
//     last in parallel then the last, the never-stuck wake-up rule: hooks.reactivate(group) means
//     "re-activate the group's members"). Each placed member is nominated to its node
//     (ModeOverride) in the dispatcher's ledger: before the evictions start when async (as the
//     single-pod path nominates), after they succeed when inline (a failed synchronous
//     preemption nominates nobody: the result is an Error). The gate for any member is
//     dispatcher.is_preemption_running(group uid) (upstream's IsPodGroupRunningPreemption).
//   - ongoing: nothing to do; the members keep their nominations.
//   - not_eligible, unschedulable, error: nothing.
// With a workload_metrics, it records the attempt by final status code, the victim search's
// duration when it ran, and for a preemption the victims, disruptions and budget violations
// (upstream's observeVictims) and, inline, the execution.
// Returns the dispatcher's result (default for decisions that dispatch nothing) and the final
// status code in `code`.
//
// Complexity: O(placed members) plus the dispatcher's work. Allocation: the dispatcher's (none
// after reserve). Exceptions: none of its own. Thread-safety: as dispatcher::apply.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WORKLOAD_GROUP_DISPATCH_HPP
#define PREEMPT_WORKLOAD_GROUP_DISPATCH_HPP

#include <chrono>
#include <cstddef>

#include "preempt/config.hpp"
#include "preempt/dispatcher.hpp"
#include "preempt/executor.hpp"
#include "preempt/pod.hpp"
#include "preempt/status.hpp"
#include "preempt/workload/group_decision.hpp"
#include "preempt/workload/group_metrics.hpp"
#include "preempt/workload/group_preemptor.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace workload {

struct group_dispatch_result {
  dispatch_result dispatch;
  // The final status code of the pod-group preemption (the attempts metric's label).
  status_code code = status_code::success;
};

struct dispatch_group_fn {
  template <pod P, executor E, class Client, class Hooks, class Mutex, class Clock>
  group_dispatch_result operator()(dispatcher<P, E, Client, Hooks, Mutex, Clock>& d, const P& group,
                                   const group_preemptor<P>& preemptor,
                                   const group_decision<P>& decision,
                                   workload_metrics* metrics = nullptr) const {
    group_dispatch_result result;
    result.code = decision.outcome.code();
    if (metrics != nullptr && decision.evaluated)
      metrics->record_evaluation(decision.kind == group_decision_kind::preempt
                                     ? status_code::success
                                     : decision.outcome.code(),
                                 decision.evaluation_time);
    if (decision.kind == group_decision_kind::preempt) {
      if (metrics != nullptr)
        metrics->record_victims(preemptor.kind, decision.victims.size(),
                                decision.pod_group_disruptions, decision.pdb_violations);
      const auto nominate = [&] {
        for (const member_nomination& n : decision.nominations)
          d.ledger().nominate(*preemptor.members[n.member], n.node);
      };
      if constexpr (is_always_inline_v<E>) {
        const auto started = std::chrono::steady_clock::now();
        result.dispatch = d.preempt_cluster_wide(group, decision.victims);
        if (metrics != nullptr)
          metrics->record_execution(preemptor.kind, result.dispatch.outcome.is_success(),
                                    std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now() - started));
        if (result.dispatch.outcome.is_success())
          nominate();
        else
          result.code = result.dispatch.outcome.code();
      } else {
        nominate();
        result.dispatch = d.preempt_cluster_wide(group, decision.victims);
        if (!result.dispatch.outcome.is_success()) result.code = result.dispatch.outcome.code();
      }
    }
    if (metrics != nullptr) metrics->record_attempt(result.code);
    return result;
  }
};
inline constexpr dispatch_group_fn dispatch_group{};

}  // namespace workload
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_WORKLOAD_GROUP_DISPATCH_HPP
