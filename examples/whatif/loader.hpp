// examples/whatif/loader.hpp - reads `kubectl get ... -o json` output into a cluster_dump.
//
// Accepted documents: a `List` (kubectl's shape: {"kind": "List", "items": [...]}), a single
// object, or a JSON array of objects. Items of kind Node, Pod, PodDisruptionBudget and
// PriorityClass are read; other kinds are counted and skipped. JSON is parsed with simdjson (the
// fastest of Debian's JSON libraries on a 5000-node dump, see README); when simdjson rejects a
// document, json_error.hpp's checker locates the error, so the message names line, column and
// byte offset.
//
// Every problem is reported as one message naming the file, the object (kind, namespace/name or
// its position) and the field:
//   cluster.json: Pod team-1/web-0: spec.containers[0].resources.requests.cpu: invalid quantity
//   "12x": unknown suffix "x"
// No function throws on bad input; allocation failure is the only exception that can escape.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_LOADER_HPP
#define PREEMPT_WHATIF_LOADER_HPP

#include <optional>
#include <string>
#include <string_view>

#include <simdjson.h>

#include "dump.hpp"

namespace whatif {

struct load_error {
  std::string message;
};

// One input document: its display name and its bytes (padded for simdjson).
struct source {
  std::string name;
  simdjson::padded_string text;
};

// Reads a file ("-" = standard input) into `out`.
std::optional<load_error> read_source(const std::string& path, source& out);

// A source from bytes in memory (the bundled example, the fuzzer).
source make_source(std::string name, std::string_view bytes);

class loader {
 public:
  // Adds the objects of one cluster document to `dump`.
  std::optional<load_error> add_cluster(const source& src, cluster_dump& dump);
  // Reads the preemptor: a Pod object (a List holding exactly one Pod is accepted too). A
  // missing `kind` is taken as Pod; a missing namespace as "default".
  std::optional<load_error> read_pod(const source& src, pod_object& out);

  // Processor seconds spent in JSON parsing (simdjson) so far; the rest of add_cluster/read_pod
  // is decoding the objects.
  double parse_cpu_seconds() const noexcept { return parse_cpu_seconds_; }

 private:
  simdjson::error_code parse(const source& src, simdjson::dom::element& root);

  simdjson::dom::parser parser_;
  double parse_cpu_seconds_ = 0;
};

}  // namespace whatif

#endif  // PREEMPT_WHATIF_LOADER_HPP
