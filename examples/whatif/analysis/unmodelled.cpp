// examples/whatif/analysis/unmodelled.cpp - see unmodelled.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "analysis/unmodelled.hpp"

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>

namespace whatif {

namespace {

bool selects_by_label(const k8s::affinity_term& t) {
  return t.namespace_selector && !t.namespace_selector->empty();
}

constexpr std::string_view add_namespaces =
    "selects namespaces by label, and the dump holds no Namespace objects (add namespaces to "
    "the dump)";

// The preemptor's own required terms.
void own_terms(const pod_object& p, std::span<const k8s::affinity_term> terms,
               std::string_view field, report& out) {
  for (std::size_t i = 0; i < terms.size(); ++i)
    if (selects_by_label(terms[i]))
      out.refuse("Pod " + p.key() + ": spec.affinity." + std::string(field) +
                 ".requiredDuringSchedulingIgnoredDuringExecution[" + std::to_string(i) +
                 "].namespaceSelector: " + std::string(add_namespaces));
}

}  // namespace

void refuse_unmodelled(const cluster_dump& dump, const pod_object& preemptor, report& out) {
  if (!dump.namespaces.empty() || dump.holds_every("Namespace")) return;
  own_terms(preemptor, preemptor.affinity_terms, "podAffinity", out);
  own_terms(preemptor, preemptor.anti_affinity_terms, "podAntiAffinity", out);
  // Placed and nominated pods whose anti-affinity may bind the preemptor, depending on the
  // labels of its namespace.
  constexpr std::size_t shown = 5;
  std::size_t found = 0;
  for (const pod_object& p : dump.pods) {
    if (k8s::is_terminal_phase(p.phase)) continue;
    if (p.node_name.empty() && p.nominated_node_name.empty()) continue;
    if (p.key() == preemptor.key()) continue;
    for (std::size_t j = 0; j < p.anti_affinity_terms.size(); ++j) {
      const k8s::affinity_term& t = p.anti_affinity_terms[j];
      if (!selects_by_label(t) || !t.selector || !k8s::matches(*t.selector, preemptor.labels))
        continue;
      if (std::find(t.namespaces.begin(), t.namespaces.end(), preemptor.ns) != t.namespaces.end())
        continue;
      if (found++ < shown)
        out.refuse(
            "Pod " + p.key() +
            ": spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[" +
            std::to_string(j) + "].namespaceSelector: " + std::string(add_namespaces) +
            ": whether it keeps Pod " + preemptor.key() + " away depends on namespace " +
            preemptor.ns + "'s labels");
    }
  }
  if (found > shown)
    out.refuse("and " + std::to_string(found - shown) +
               " more anti-affinity term(s) of placed pods with a namespaceSelector (add "
               "namespaces to the dump)");
}

}  // namespace whatif
