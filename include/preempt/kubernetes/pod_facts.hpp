// preempt/kubernetes/pod_facts.hpp - what the inter-pod filters (InterPodAffinity,
// PodTopologySpread) read of the pods already on the nodes and of the namespaces.
//
// pod_facts is a view: its pointers and spans refer to the caller's data, which must outlive every
// use. An affinity_term is one required (anti-)affinity term as written in a pod
// (v1.PodAffinityTerm after the API server has merged matchLabelKeys/mismatchLabelKeys into its
// labelSelector): a nil labelSelector matches no pod, an empty one every pod; the term applies to
// the pods of `namespaces`, plus those of the namespaces its namespaceSelector selects (a nil
// namespaceSelector selects none, an empty one all); with neither, to the pods of its own pod's
// namespace (upstream's getNamespacesFromPodAffinityTerm).
//
// Header-only declarations; no allocation; no exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_POD_FACTS_HPP
#define PREEMPT_KUBERNETES_POD_FACTS_HPP

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/kubernetes/labels.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes {

struct affinity_term {
  std::optional<label_selector> selector;  // nullopt: nil (matches no pod)
  std::vector<std::string> namespaces;
  std::optional<label_selector> namespace_selector;  // nullopt: nil (selects no namespace)
  std::string topology_key;
  std::vector<std::string> match_label_keys;  // applied by apply_label_keys
  std::vector<std::string> mismatch_label_keys;
};

// The API server's merge of matchLabelKeys (key In (value)) and mismatchLabelKeys (key NotIn
// (value)) into a term's labelSelector, for the keys the pod has a label of; nothing for a nil
// selector. Applying it to a term that already went through the API server adds the same
// requirements again, which changes nothing.
inline void apply_label_keys(affinity_term& t, const label_set& pod_labels) {
  if (!t.selector) return;
  const auto add = [&](const std::vector<std::string>& keys, selector_operator op) {
    for (const std::string& k : keys)
      if (const std::string* v = pod_labels.find(k))
        t.selector->match_expressions.push_back(label_requirement{k, op, {*v}});
  };
  add(t.match_label_keys, selector_operator::in);
  add(t.mismatch_label_keys, selector_operator::not_in);
}

// What the inter-pod filters read of a pod.
struct pod_facts {
  std::string_view ns;
  const label_set* labels = nullptr;  // nullptr: no labels
  bool terminating = false;           // metadata.deletionTimestamp is set
  // Its required pod anti-affinity terms (pods on the nodes: the terms they impose on newcomers).
  std::span<const affinity_term> required_anti_affinity;

  const label_set& label_or_empty() const noexcept {
    static const label_set none;
    return labels != nullptr ? *labels : none;
  }
};

// A Namespace object: the target of namespaceSelector.
struct namespace_facts {
  std::string_view name;
  const label_set* labels = nullptr;
};

}  // namespace kubernetes
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_POD_FACTS_HPP
