// examples/whatif/io/documents.hpp - the documents of an input walked down to their objects:
// lists (nested too), arrays, items that leave their kind to the list; and the message for a
// malformed JSON document. The second layer of the loader (loader.hpp).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_IO_DOCUMENTS_HPP
#define PREEMPT_WHATIF_IO_DOCUMENTS_HPP

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <simdjson.h>

#include "io/input.hpp"
#include "io/json_error.hpp"
#include "io/loader.hpp"

namespace whatif::detail {

// "SOURCE: malformed JSON at line L, column C (byte B): what", or simdjson's message for `code`
// when the error was not located.
std::string malformed_json(const source& src, std::string_view text,
                           std::optional<json_error> located, simdjson::error_code code);

// Whether a JSON value may start with `c`.
bool can_start_value(char c);

// Walks one document: lists (nested too) down to their objects.
class document_walker {
 public:
  document_walker(const source& src, std::string_view fallback_kind, object_visitor& visit)
      : src_(src), fallback_kind_(fallback_kind), visit_(visit) {}

  // `label` names the document when the input holds several ("document 2"), else "".
  std::optional<load_error> walk_document(simdjson::dom::element root, const std::string& label);

  // One value of a document read piece by piece: an item of a top-level list or array.
  std::optional<load_error> walk_item(simdjson::dom::element v, std::string_view implied_kind,
                                      std::string position) {
    return walk(v, implied_kind, std::move(position));
  }

  // "items[2]", "items[2].items[0]", "document 2, items[2]".
  static std::string child(const std::string& position, const std::string& step) {
    if (position.empty()) return step;
    return position + (position.back() == ']' ? "." : ", ") + step;
  }

  static std::string index_step(std::string_view name, std::size_t i) {
    std::string s(name);
    s += '[';
    s += std::to_string(i);
    s += ']';
    return s;
  }

 private:
  std::string where(const std::string& position) const {
    return src_.name + ": " + (position.empty() ? std::string("document") : position);
  }

  std::optional<load_error> walk(simdjson::dom::element v, std::string_view implied_kind,
                                 std::string position);

  const source& src_;
  std::string_view fallback_kind_;
  object_visitor& visit_;
};

}  // namespace whatif::detail

#endif  // PREEMPT_WHATIF_IO_DOCUMENTS_HPP
