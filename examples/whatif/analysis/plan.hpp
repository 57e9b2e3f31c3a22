// examples/whatif/analysis/plan.hpp - the pending pods as kube-scheduler's queue takes them, each
// decision applied before the next (--plan).
//
// make_plan() decides for each pending pod of the scheduler, in its queue order (PrioritySort:
// priority, then the time the pod entered the queue; the dump holds no queue times, so the
// analysis orders equal priorities by metadata.creationTimestamp, then namespace/name), and
// applies what kube-scheduler would do with the answer before the next pod is decided:
//   nominated      the victims are deleted (gone from their nodes), the preemptor holds its
//                  nomination (it binds once its victims are gone, after the plan), and the
//                  lower-priority pods nominated to that node lose their nominations;
//   fits           bound: to its nominated node when that node fits it (upstream tries the
//                  nominated node first and takes it), else to the one node that fits it;
//   unschedulable  its nomination, if any, is cleared (upstream's FitError result);
//   not-eligible   nothing changes.
// The tool does not score nodes: a pod that fits several nodes is placed by kube-scheduler's
// scoring. The plan does not guess where: when later pods remain, it stops there, names the pod
// in notModelled (exit status 3) and lists the later pods as undecided. It stops the same way at
// a pod of a PodGroup (kube-scheduler schedules it in its group's cycle).
// A decision that depends on something the tool does not model (its notModelled) is applied as
// decided; every later decision is then marked as depending on it. A decision whose dry run looks
// at pods of a PodDisruptionBudget whose pods an earlier step evicted or bound is marked too: the
// plan keeps the budget's status as the dump has it, and the disruption controller's recount
// after those changes is not in the dump.
//
// Its outputs: output/plan_output.hpp.
//
// Cost: one decision per pending pod plus O(the node's pods) per change. Not thread-safe.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_PLAN_HPP
#define PREEMPT_WHATIF_PLAN_HPP

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/analysis.hpp"

namespace whatif {

// What a step applied to the cluster before the next decision (output/plan_output.hpp names it).
enum class plan_change {
  none,                // nothing (not-eligible, or nothing to clear)
  nominated,           // the victims deleted, the nomination held, lower ones on the node cleared
  bound,               // the pod bound to the one node it fits
  nomination_cleared,  // unschedulable: its nomination cleared
};

struct plan_step {
  std::size_t pod = 0;  // index into cluster_dump::pods
  report decision;
  plan_change applied = plan_change::none;
  std::string node;  // the node bound to or nominated to ("" otherwise)
};

struct plan_result {
  std::vector<plan_step> steps;
  // Where the plan stopped ("" when every pending pod was decided) and the pods left undecided
  // after it, in queue order.
  std::string stopped;
  std::vector<std::string> undecided;
  // The state after the plan: pods bound (pod, node), pods still pending with a nomination (pod,
  // node), pods evicted, pods whose nomination was cleared, pods that fit several nodes (placed by
  // kube-scheduler's scoring, where the tool cannot say), pods decided and still pending without a
  // nomination (the undecided ones are listed above).
  std::vector<std::pair<std::string, std::string>> bound, nominated;
  std::vector<std::string> evicted, cleared, placed_by_scoring, pending;
  // The dump's warnings (once); the plan's own refusals, each also in the step's decision.
  std::vector<std::string> warnings;
  std::vector<std::string> not_modelled;
};

// What the plan assumes, shown with it.
const std::vector<std::string>& plan_assumptions();

// Runs the plan on `a` (built from `dump`), which it changes.
std::optional<load_error> make_plan(analysis& a, const cluster_dump& dump, const options& opts,
                                    plan_result& out);

}  // namespace whatif

#endif  // PREEMPT_WHATIF_PLAN_HPP
