// examples/whatif/decode/kinds.hpp - the Kubernetes kinds preempt-whatif reads, each decoded by one
// field table per JSON object (decoder.hpp): Node, Pod, PodDisruptionBudget, PriorityClass.
//
// Only what the decision needs is read. A Pod's placement (nodeSelector, affinity, tolerations)
// is read for pods without spec.nodeName and for the preemptor only, and its conditions only when
// it is being deleted; effective requests (containers, init containers, sidecars, pod-level
// resources, overhead) are computed on the way. Objects are named in messages as soon as their
// metadata has a name, whatever the member order.
//
// No exceptions of their own; not thread-safe (they write into the caller's dump).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_KINDS_HPP
#define PREEMPT_WHATIF_KINDS_HPP

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <simdjson.h>

#include "decode/dump.hpp"
#include "io/input.hpp"

namespace whatif::kinds {

// Where an object was found, for messages and for the dump's bookkeeping.
struct origin {
  std::string_view file_name;  // as messages show it
  std::uint32_t file = 0;      // index into cluster_dump::files
  std::size_t item = 0;        // position among the objects of the file
  std::string position;        // "items[3]", "items[2].items[0]", or "" for a lone object
};

// True for the kinds add_object() reads.
bool is_read(std::string_view kind) noexcept;

// Decodes `obj`, of kind `kind` (is_read(kind)), into `dump`.
std::optional<load_error> add_object(std::string_view kind, simdjson::dom::element obj,
                                     const origin& where, cluster_dump& dump);

// What the opt-in policies read beyond the decision's needs (set before any object is decoded;
// read by the decoding threads): the annotation holding a pod's cost (--victim-cost
// annotation:KEY; only that key is kept), and the placement of bound pods too (--policy
// spare-reschedulable: could a victim run elsewhere?).
struct extra_fields {
  std::string cost_annotation;
  bool bound_pods_placement = false;
};
void read_extra_fields(extra_fields wanted);

// Decodes the preemptor (placement read whatever spec.nodeName says).
std::optional<load_error> read_preemptor(simdjson::dom::element obj, const origin& where,
                                         pod_object& out);

}  // namespace whatif::kinds

#endif  // PREEMPT_WHATIF_KINDS_HPP
