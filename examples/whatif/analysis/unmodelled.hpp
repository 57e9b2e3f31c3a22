// examples/whatif/analysis/unmodelled.hpp - inputs kube-scheduler v1.37 reads for a decision that
// the dump does not hold, refused (report::refuse: the warning "not modelled: ...", notModelled in
// JSON, exit status 3) rather than guessed.
//
//   Namespaces: a required (anti-)affinity term's namespaceSelector that is not empty selects
//   namespaces by their labels (InterPodAffinity: mergeAffinityTermNamespacesIfNotEmpty for the
//   pod's own terms, the pod's namespace labels for a placed pod's terms). With no Namespace
//   object in the dump those labels are not known: the pod's own such terms are refused, and a
//   placed (or nominated) pod's anti-affinity term whose labelSelector matches the pod and
//   whose namespaces do not list the pod's namespace. (An empty selector selects every
//   namespace: it needs no Namespace object.)
// O(pods · terms) per decision; allocation: the messages. No exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_UNMODELLED_HPP
#define PREEMPT_WHATIF_UNMODELLED_HPP

#include "analysis/analysis.hpp"
#include "decode/dump.hpp"

namespace whatif {

void refuse_unmodelled(const cluster_dump& dump, const pod_object& preemptor, report& out);

}  // namespace whatif

#endif  // PREEMPT_WHATIF_UNMODELLED_HPP
