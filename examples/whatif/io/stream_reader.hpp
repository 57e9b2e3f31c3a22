// examples/whatif/io/stream_reader.hpp - a JSON input read a window at a time (json_stream.hpp),
// its objects handed to a document_walker one item at a time. The loader's path for inputs
// larger than a window (loader::add_cluster(open_input&, ...)).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_IO_STREAM_READER_HPP
#define PREEMPT_WHATIF_IO_STREAM_READER_HPP

#include <cstddef>
#include <optional>
#include <string>

#include <simdjson.h>

#include "decode/dump.hpp"
#include "io/documents.hpp"
#include "io/input.hpp"
#include "io/json_stream.hpp"

namespace whatif::detail {

// A JSON input read a window at a time (json_stream.hpp): the documents one after the other,
// a top-level array's values and a List's items each parsed on their own, every other value of
// a List (apiVersion, kind, metadata) parsed to check it. Shapes that need a document whole are
// left to the caller, with `unusual` saying why: a single object larger than the window, `items`
// of an object that is no List, a repeated `items`, and items without `kind` before the list's
// `kind` (kubectl and the API server write it before them or give every item its own).
// Reads the input of `w` from byte `start` on: its objects go to `walker`, the time simdjson takes
// to `parse_seconds`. Without an error, `unusual` is empty when the whole input was read, else
// says which shape stopped the reading.
std::optional<load_error> read_stream(stream_window& w, simdjson::dom::parser& parser,
                                      document_walker& walker, double& parse_seconds,
                                      std::size_t start, cluster_dump& dump, std::string& unusual);

}  // namespace whatif::detail

#endif  // PREEMPT_WHATIF_IO_STREAM_READER_HPP
