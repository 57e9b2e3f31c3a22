// examples/whatif/io/documents.cpp - see documents.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "io/documents.hpp"

#include <algorithm>

#include "decode/decoder.hpp"
#include "io/sniff.hpp"
#include "output/one_line.hpp"

namespace whatif::detail {

namespace dom = simdjson::dom;
using decode::type_name;

std::string malformed_json(const source& src, std::string_view text,
                           std::optional<json_error> located, simdjson::error_code code) {
  std::string m = src.name + ": malformed JSON";
  if (located) {
    m += " at ";
    m += format_json_error(text, *located);
    // kubectl's standard error written into the dump between its lines (`2>&1`).
    const std::size_t at = std::min(located->offset, text.size());
    const std::size_t begin = text.rfind('\n', at == 0 ? 0 : at - 1);
    std::string_view line = text.substr(begin == std::string_view::npos ? 0 : begin + 1);
    line = line.substr(0, line.find('\n'));
    if (is_kubectl_message(line))
      m += " (the line there is kubectl's standard error: write it elsewhere, `kubectl get ... "
           "2>/dev/null`)";
  } else {
    m += ": ";
    m += simdjson::error_message(code);
  }
  return one_line(m);
}

bool can_start_value(char c) {
  return c == '{' || c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' ||
         c == 'f' || c == 'n';
}

std::optional<load_error> document_walker::walk_document(dom::element root,
                                                         const std::string& label) {
  dom::array a;
  if (root.get_array().get(a) == simdjson::SUCCESS) {
    std::size_t i = 0;
    for (dom::element e : a)
      if (auto err = walk(e, "", child(label, index_step("", i++)))) return err;
    return std::nullopt;
  }
  if (!root.is_object())
    return load_error{src_.name + ": " + (label.empty() ? "" : label + ": ") +
                      "expected a Kubernetes object or List, found " +
                      std::string(type_name(root.type()))};
  return walk(root, "", label);
}

std::optional<load_error> document_walker::walk(dom::element v, std::string_view implied_kind,
                                                std::string position) {
  dom::object obj;
  if (v.get_object().get(obj) != simdjson::SUCCESS)
    return load_error{where(position) + ": expected a Kubernetes object, found " +
                      std::string(type_name(v.type()))};
  std::string_view kind;
  dom::element items;
  bool has_items = false;
  for (dom::key_value_pair kv : obj) {  // the last of a repeated key wins
    if (kv.key == "kind") {
      if (kv.value.is_null()) {
        kind = {};
      } else if (kv.value.get_string().get(kind) != simdjson::SUCCESS) {
        return load_error{where(position) + ": kind: expected a string, found " +
                          std::string(type_name(kv.value.type()))};
      }
    } else if (kv.key == "items") {
      items = kv.value;
      has_items = true;
    }
  }
  if (kind.empty()) kind = !implied_kind.empty() ? implied_kind : fallback_kind_;
  if (kind.empty()) return load_error{where(position) + ": kind: missing"};
  constexpr std::string_view list_suffix = "List";
  if (kind.size() < list_suffix.size() ||
      kind.substr(kind.size() - list_suffix.size()) != list_suffix)
    return visit_.object(kind, v, position);
  // A List (items carry their kind) or a <Kind>List (items may leave it out).
  if (!has_items || items.is_null()) return std::nullopt;
  dom::array a;
  if (items.get_array().get(a) != simdjson::SUCCESS)
    return load_error{src_.name + ": " + (position.empty() ? "" : position + ": ") + clip(kind) +
                      ": items: expected an array, found " + std::string(type_name(items.type()))};
  const std::string_view item_kind = kind.substr(0, kind.size() - list_suffix.size());
  std::size_t i = 0;
  for (dom::element e : a)
    if (auto err = walk(e, item_kind, child(position, index_step("items", i++)))) return err;
  return std::nullopt;
}

}  // namespace whatif::detail
