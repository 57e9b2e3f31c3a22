// examples/whatif/decode/shared_fields.hpp - the field tables and readers that several kinds'
// decoders share (kinds.cpp, dra_kinds.cpp, storage_kinds.cpp): label selectors, node selectors,
// and read_named, which reads a named object and requires its metadata.name.
//
// No exceptions of its own; allocation only for decoded values and messages; not thread-safe
// (one decode::context per object), like decoder.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_SHARED_FIELDS_HPP
#define PREEMPT_WHATIF_SHARED_FIELDS_HPP

#include <cstddef>
#include <string_view>

#include <simdjson.h>

#include "decode/decoder.hpp"

namespace whatif::kinds {

// ---- Label selectors (pod affinity, topology spread, PDBs, storage classes) --------------------

inline bool read_selector_operator(decode::context& x, simdjson::dom::element e,
                                   k8s::label_requirement& r) {
  std::string_view op;
  if (!x.read_string(e, op)) return false;
  r.op = k8s::parse_selector_operator(op);
  return true;
}
inline constexpr decode::field<k8s::label_requirement> label_requirement_fields[] = {
    {"key", decode::text<&k8s::label_requirement::key>{}},
    {"operator", read_selector_operator},
    {"values", decode::strings<&k8s::label_requirement::values>{}},
};
inline constexpr decode::field<k8s::label_selector> label_selector_fields[] = {
    {"matchLabels", decode::string_map<&k8s::label_selector::match_labels>{}},
    {"matchExpressions",
     decode::list<label_requirement_fields, &k8s::label_selector::match_expressions>{}},
};

// ---- Node selectors (node affinity, volume node affinity, ResourceSlice, allocations) ----------

inline constexpr decode::field<k8s::node_selector_requirement> node_requirement_fields[] = {
    {"key", decode::text<&k8s::node_selector_requirement::key>{}},
    {"operator", decode::text<&k8s::node_selector_requirement::op>{}},
    {"values", decode::strings<&k8s::node_selector_requirement::values>{}},
};
inline constexpr decode::field<k8s::node_selector_term> node_term_fields[] = {
    {"matchExpressions",
     decode::list<node_requirement_fields, &k8s::node_selector_term::match_expressions>{}},
    {"matchFields",
     decode::list<node_requirement_fields, &k8s::node_selector_term::match_fields>{}},
};
inline k8s::result<void> valid_term(const k8s::node_selector_term& t) { return k8s::validate(t); }
inline constexpr decode::field<k8s::node_selector> node_selector_fields[] = {
    {"nodeSelectorTerms",
     decode::checked_list<node_term_fields, valid_term, &k8s::node_selector::terms>{}},
};

// ---- Named objects ---------------------------------------------------------------------------

// Reads a named object with `table`: metadata.name must be there and not empty. A namespaced
// object (`namespaced`; by default, one whose type has a member `ns`) is named "<ns>/<name>" in
// later messages, its namespace "default" when it has none; any other by its name alone.
template <class T, std::size_t N, class U>
bool read_named(decode::context& x, simdjson::dom::element obj, const decode::field<T> (&table)[N],
                U& t, bool namespaced) {
  if (!decode::read_fields(x, obj, table, t)) return false;
  if (t.name.empty()) {
    auto f = x.field("metadata");
    auto g = x.field("name");
    return x.fail("missing");
  }
  if constexpr (requires { t.ns; }) {
    if (namespaced && t.ns.empty()) t.ns = "default";
    x.identify(namespaced ? std::string_view(t.ns) : std::string_view(), t.name);
  } else {
    x.identify("", t.name);
  }
  return true;
}
template <class T, std::size_t N, class U>
bool read_named(decode::context& x, simdjson::dom::element obj, const decode::field<T> (&table)[N],
                U& t) {
  return kinds::read_named(
      x, obj, table, t, requires { t.ns; });
}

}  // namespace whatif::kinds

#endif  // PREEMPT_WHATIF_SHARED_FIELDS_HPP
