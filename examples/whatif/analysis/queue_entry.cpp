// examples/whatif/analysis/queue_entry.cpp - see queue_entry.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "analysis/queue_entry.hpp"

#include <cstddef>

#include "output/one_line.hpp"

namespace whatif {

std::optional<no_decision> never_queued(const pod_object& p, const pod_object* in_dump) {
  if (in_dump != nullptr && in_dump != &p && !in_dump->node_name.empty() &&
      !k8s::is_terminal_phase(in_dump->phase))
    return no_decision{result_kind::running, "the dump holds this pod bound to node " +
                                                 clip(in_dump->node_name) +
                                                 ": it runs already, it is not pending"};
  if (!p.node_name.empty())
    return no_decision{result_kind::bound,
                       "the pod names its node (spec.nodeName " + clip(p.node_name) +
                           "): it is created bound, kube-scheduler never queues it, and "
                           "the node's kubelet admits it or not"};
  return std::nullopt;
}

std::string scheduling_gates_message(const pod_object& p) {
  // Go's %v of a []string: "[a b]".
  std::string gates = "[";
  for (std::size_t i = 0; i < p.scheduling_gates.size(); ++i)
    gates += (i > 0 ? " " : "") + clip(p.scheduling_gates[i]);
  return "waiting for scheduling gates: " + gates + "]";
}

std::optional<no_decision> held_in_queue(const pod_object& p) {
  if (!p.scheduling_gates.empty())
    return no_decision{result_kind::gated,
                       scheduling_gates_message(p) +
                           " (spec.schedulingGates: kube-scheduler keeps the pod in its "
                           "queue until they are removed; it neither schedules nor "
                           "preempts for it)"};
  return std::nullopt;
}

std::optional<no_decision> skipped_when_popped(const pod_object& p) {
  if (!p.deleting) return std::nullopt;
  return no_decision{result_kind::deleting,
                     "skip schedule deleting pod: " + clip(p.key()) +
                         " (metadata.deletionTimestamp is set: kube-scheduler skips the pod each "
                         "time it leaves the queue; it neither schedules nor preempts for it)"};
}

}  // namespace whatif
