// examples/whatif/analysis/queue_entry.hpp - why kube-scheduler would take no decision at all for a
// pod: it never enters the scheduling queue, or never leaves it.
//
//   running  the manifest (--pod) is a pod of the dump, bound to a node there: it runs already
//            (the API server would refuse to create a second pod of that name: AlreadyExists).
//   bound    spec.nodeName is set (a manifest given with --pod): the pod is created bound and
//            the scheduler never queues it (only unassigned pods are queued); the node's kubelet
//            admits it or not.
//   (another scheduler's pod is never queued either: the caller answers other-scheduler before
//   asking held_in_queue, as the scheduler's event handlers filter it before PreEnqueue runs.)
//   gated    spec.schedulingGates is not empty: the SchedulingGates PreEnqueue plugin keeps the
//            pod out of the active queue ("waiting for scheduling gates: [a b]"), so it is never
//            scheduled and never preempts. Its nomination, if any, still counts: the queue adds
//            every pod to the nominator, gated or not (PriorityQueue.addPod).
//   deleting metadata.deletionTimestamp is set (a finalizer keeps the pod): the pod stays in the
//            queue, and kube-scheduler skips it each time it leaves it ("skip schedule deleting
//            pod", skipPodSchedule), so it is neither scheduled nor preempted for. Asked after
//            the PreEnqueue checks: a gated pod never leaves the queue to be skipped. A manifest
//            (--pod) never arrives so: the API server clears the field on create.
// Pure functions of the objects; no allocation beyond the message; no exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_QUEUE_ENTRY_HPP
#define PREEMPT_WHATIF_QUEUE_ENTRY_HPP

#include <optional>
#include <string>

#include "analysis/analysis.hpp"
#include "decode/dump.hpp"

namespace whatif {

struct no_decision {
  result_kind result;   // bound, running, gated, deleting
  std::string message;  // why, for people (gated: upstream's PreEnqueue message first)
};

// running or bound. `in_dump`: the dump's pod of the same namespace/name, if any (nullptr
// otherwise); it is the pod itself for --pod-name.
std::optional<no_decision> never_queued(const pod_object& pod, const pod_object* in_dump);

// gated.
std::optional<no_decision> held_in_queue(const pod_object& pod);
// The SchedulingGates plugin's status message: "waiting for scheduling gates: [a b]".
std::string scheduling_gates_message(const pod_object& pod);

// deleting.
std::optional<no_decision> skipped_when_popped(const pod_object& pod);

}  // namespace whatif

#endif  // PREEMPT_WHATIF_QUEUE_ENTRY_HPP
