// examples/whatif/queue_entry.hpp - why kube-scheduler would take no decision at all for a pod:
// it never enters the scheduling queue, or never leaves it.
//
//   bound    spec.nodeName is set (a manifest given with --pod): the pod is created bound and
//            the scheduler never queues it (only unassigned pods are queued); the node's kubelet
//            admits it or not.
//   running  the manifest (--pod) is a pod of the dump, bound to a node there: it runs already.
//   gated    spec.schedulingGates is not empty: the SchedulingGates PreEnqueue plugin keeps the
//            pod out of the active queue ("waiting for scheduling gates: [a b]"), so it is never
//            scheduled and never preempts. Its nomination, if any, still counts: the queue adds
//            every pod to the nominator, gated or not (PriorityQueue.addPod).
// Pure functions of the objects; no allocation beyond the message; no exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_QUEUE_ENTRY_HPP
#define PREEMPT_WHATIF_QUEUE_ENTRY_HPP

#include <optional>
#include <string>

#include "dump.hpp"

namespace whatif {

struct no_decision {
  std::string result;   // bound, running, gated
  std::string message;  // why, for people (gated: upstream's PreEnqueue message first)
};

// `in_dump`: the dump's pod of the same namespace/name, if any (nullptr otherwise); it is the
// pod itself for --pod-name.
std::optional<no_decision> never_scheduled(const pod_object& pod, const pod_object* in_dump);

}  // namespace whatif

#endif  // PREEMPT_WHATIF_QUEUE_ENTRY_HPP
