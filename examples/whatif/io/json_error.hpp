// examples/whatif/io/json_error.hpp - where a JSON text first goes wrong.
//
// simdjson, which preempt-whatif parses with, reports *that* a document is malformed but not
// *where*. When it rejects a document, find_json_error() walks the text once more with a strict
// RFC 8259 checker (UTF-8, escapes and surrogate pairs, numbers, literals, nesting up to
// simdjson's 1024 levels, 64-bit integers, finite doubles) and returns the byte offset of the
// first problem with a short description; format_json_error() turns it into
// "line L, column C (byte B): <what>". Columns count bytes, from 1. scan_json_value() checks
// the first value only, for texts of several concatenated documents.
//
// O(n) time, O(depth) memory; no exceptions of its own. Fuzzed (tests/fuzz).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_JSON_ERROR_HPP
#define PREEMPT_WHATIF_JSON_ERROR_HPP

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace whatif {

struct json_error {
  std::size_t offset;
  std::string_view what;
};

// The first syntax error of `text`, or nullopt when it is a well-formed JSON document.
std::optional<json_error> find_json_error(std::string_view text);

// The first JSON value of `text`: the offset just after it and the whitespace that follows (where
// a next document of a concatenated stream starts), or its first syntax error.
struct json_value_scan {
  std::size_t end = 0;
  std::optional<json_error> error;
};
json_value_scan scan_json_value(std::string_view text);

// "line L, column C (byte B): what".
std::string format_json_error(std::string_view text, const json_error& e);

}  // namespace whatif

#endif  // PREEMPT_WHATIF_JSON_ERROR_HPP
