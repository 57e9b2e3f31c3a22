// examples/whatif/decode/admission.hpp - a pod manifest given with --pod as the API server would
// store it: the defaulting and the admission plugins whose output kube-scheduler v1.37 reads, in
// the API server's order. A pod of the dump was stored so already, and nothing here applies to it.
//
//   1. v1 defaulting (SetDefaults_Pod): a container's missing request is its limit, and with
//      spec.hostNetwork a port's missing hostPort is its containerPort (the loader applies both
//      to every pod; a stored pod carries them already).
//   2. LimitRanger: a container's request it does not set (nor a limit for) is the defaultRequest
//      of its namespace's LimitRange objects (their Container items, defaulted as
//      SetDefaults_LimitRangeItem does: from default, itself from max, else from min). With no
//      LimitRange object in the dump, a container without a cpu or memory request is refused:
//      its namespace may default it. Two LimitRanges defaulting one resource differently: refused.
//      Missing limits are defaulted likewise (default, itself from max), and the Container items'
//      min and max are checked as LimitRanger's validation does (minConstraint, maxConstraint:
//      a request at least min, a limit, if any, at least min; a limit at most max and required,
//      a request at most max): a violation is an error (the API server rejects the pod).
//      maxLimitRequestRatio, and min/max of Pod items (the pod's totals): refused.
//   3. Priority: spec.priority from spec.priorityClassName or the global default (the analysis
//      resolves every pod so).
//   4. DefaultTolerationSeconds: tolerations of node.kubernetes.io/not-ready:NoExecute and
//      node.kubernetes.io/unreachable:NoExecute (300 s) unless one for that key (or every key)
//      and NoExecute (or every effect) is there (TaintToleration reads them).
//   5. RuntimeClass: spec.overhead from the class's overhead.podFixed (an overhead already set
//      that differs is rejected), its scheduling.nodeSelector merged into spec.nodeSelector (a
//      conflicting value is rejected) and its scheduling.tolerations added. An overhead without
//      a class defining one is rejected (the plugin's validation). A class not in the dump is an
//      error when the dump holds RuntimeClass objects (the API server rejects the pod), else
//      refused.
//   6. Pod-level resources (DefaultPodLevelResources, in PrepareForCreate):
//      kubernetes::effective_requests.
// Errors (the API server would reject the pod) name the file, the pod and the field; what the
// decision depends on and the dump cannot tell is added to pod.not_modelled.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_ADMISSION_HPP
#define PREEMPT_WHATIF_ADMISSION_HPP

#include <optional>

#include "decode/dump.hpp"
#include "io/loader.hpp"

namespace whatif {

// Applies the steps above to `pod` (read with loader::read_pod, pod.manifest set).
std::optional<load_error> admit(const cluster_dump& dump, pod_object& pod);

}  // namespace whatif

#endif  // PREEMPT_WHATIF_ADMISSION_HPP
