// examples/whatif/io/loader.hpp - reads cluster dumps and pod files into a cluster_dump, whatever
// shape real tools write them in.
//
// Text: UTF-8 (a byte-order mark is skipped) or UTF-16 with or without a byte-order mark (what
// Windows PowerShell's `>` writes), converted; UTF-32 is named in an error. JSON or YAML, told
// apart by content: a text whose first character is '{' or '[' is JSON, any other is YAML
// (`kubectl get -o yaml`, several documents separated by `---` too), converted to JSON text by
// yaml_json.hpp. JSON is parsed with simdjson (the fastest of Debian's JSON libraries on a
// 5000-node dump, see README); several concatenated documents are read one after the other, with
// the container logs `kubectl cluster-info dump` writes between them ("==== START logs for
// container ... ====" to its END line) skipped. When simdjson rejects a document,
// json_error.hpp's checker locates the error, so the message names line, column and byte.
//
// Shapes: a single object; a List or any <Kind>List ({"kind": "...List", "items": [...]}), whose
// items may omit `kind` when the list names it (NodeList items are Nodes; items of a plain List
// must carry their kind); lists nested in lists; `"items": null` (an empty list); a JSON array of
// objects. Items of kind Node, Pod, PodDisruptionBudget and PriorityClass are read (kinds.hpp);
// other kinds are counted by kind in cluster_dump::ignored, which the analysis names in its
// warnings.
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

#include "decode/dump.hpp"
#include "io/input.hpp"
#include "io/json_stream.hpp"

namespace whatif {

namespace detail {
// Receives each object of an input: its kind, the element and its position ("items[3]").
struct object_visitor {
  virtual ~object_visitor() = default;
  virtual std::optional<load_error> object(std::string_view kind, simdjson::dom::element obj,
                                           const std::string& position) = 0;
};
}  // namespace detail

class loader {
 public:
  // Adds the objects of one cluster input to `dump`.
  std::optional<load_error> add_cluster(const source& src, cluster_dump& dump);
  // Adds the objects of one cluster input opened with open_source(): an input larger than its
  // first window that is JSON is read a window at a time (stream_window), each item of a List
  // (or value of a top-level array) parsed and decoded on its own, so memory holds a window and
  // one item, not the text and its parse. Shapes that need a document whole (see
  // stream_reader.hpp) and every error in a regular file send it to the whole-text path (the file
  // is read again), so answers and messages are those of add_cluster(source); a stream that cannot
  // be read again gets a message with the byte offset and the item instead.
  std::optional<load_error> add_cluster(open_input& in, cluster_dump& dump, std::uint64_t max_size);
  // The window add_cluster(open_input&, ...) reads in; open_source() should read the same.
  std::size_t stream_window_size() const noexcept { return window_; }
  void set_stream_window_size(std::size_t bytes) noexcept { window_ = bytes; }
  // How many inputs were read a window at a time.
  std::size_t streamed_inputs() const noexcept { return streamed_; }

  // Reads the preemptor: one Pod object (a List holding exactly one Pod is accepted too). A
  // missing `kind` is taken as Pod; a missing namespace as "default".
  std::optional<load_error> read_pod(const source& src, pod_object& out);

  // Processor seconds spent parsing (YAML conversion and simdjson) so far; the rest of
  // add_cluster/read_pod is reading and decoding the objects. For a stream read a window at a
  // time, the wall time of the simdjson calls; for a large file, the processor time of the thread
  // that delimits and parses its items ahead (scanning included), plus the wall time of the items
  // the decoding thread parses itself when that thread is behind.
  double parse_cpu_seconds() const noexcept { return parse_cpu_seconds_; }

 private:
  std::optional<load_error> for_each_object(const source& src, std::string_view top_kind,
                                            detail::object_visitor& visit);

  simdjson::dom::parser parser_;
  double parse_cpu_seconds_ = 0;
  std::size_t window_ = default_stream_window;
  std::size_t streamed_ = 0;
};

}  // namespace whatif

#endif  // PREEMPT_WHATIF_LOADER_HPP
