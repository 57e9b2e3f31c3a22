// examples/whatif/loader.cpp - documents → cluster_dump (see loader.hpp); the objects themselves
// are decoded by kinds.cpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "loader.hpp"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "decoder.hpp"
#include "json_error.hpp"
#include "kinds.hpp"

namespace whatif {

namespace dom = simdjson::dom;
using decode::type_name;

namespace {

// The value of the last member `key` of `o` (the last wins, as in Go), if any and not null.
bool member(dom::object o, std::string_view key, dom::element& out) {
  bool found = false;
  for (dom::key_value_pair kv : o) {
    if (kv.key != key) continue;
    out = kv.value;
    found = true;
  }
  return found && !out.is_null();
}

std::string syntax_error(const source& src, simdjson::error_code code) {
  std::string m = src.name;
  m += ": malformed JSON";
  const std::string_view text(src.text.data(), src.text.size());
  if (const auto e = find_json_error(text)) {
    m += " at ";
    m += format_json_error(text, *e);
  } else {
    m += ": ";
    m += simdjson::error_message(code);
  }
  return m;
}

// The items of a document: a List's items, an array's elements, or the object itself.
struct document_items {
  std::vector<dom::element> items;
  bool in_list = false;
};

std::optional<load_error> collect_items(const source& src, dom::element root, document_items& out) {
  dom::array arr;
  if (root.get_array().get(arr) == simdjson::SUCCESS) {
    out.in_list = true;
    for (dom::element e : arr) out.items.push_back(e);
    return std::nullopt;
  }
  dom::object obj;
  if (root.get_object().get(obj) != simdjson::SUCCESS)
    return load_error{src.name + ": expected a Kubernetes object or List, found " +
                      std::string(type_name(root.type()))};
  dom::element kind, items;
  std::string_view kind_name;
  if (member(obj, "kind", kind) && kind.get_string().get(kind_name) == simdjson::SUCCESS &&
      kind_name.size() >= 4 && kind_name.substr(kind_name.size() - 4) == "List") {
    if (!member(obj, "items", items))
      return load_error{src.name + ": " + std::string(kind_name) + ": items: missing"};
    if (items.get_array().get(arr) != simdjson::SUCCESS)
      return load_error{src.name + ": " + std::string(kind_name) + ": items: expected an array, found " +
                        std::string(type_name(items.type()))};
    out.in_list = true;
    for (dom::element e : arr) out.items.push_back(e);
    return std::nullopt;
  }
  out.items.push_back(root);
  return std::nullopt;
}

std::optional<load_error> item_kind(const source& src, dom::element item, std::size_t i,
                                    bool in_list, std::string_view default_kind,
                                    dom::object& obj, std::string_view& kind) {
  const std::string where = in_list ? "items[" + std::to_string(i) + "]" : std::string("document");
  if (item.get_object().get(obj) != simdjson::SUCCESS)
    return load_error{src.name + ": " + where + ": expected a Kubernetes object, found " +
                      std::string(type_name(item.type()))};
  dom::element k;
  if (!member(obj, "kind", k)) {
    if (default_kind.empty()) return load_error{src.name + ": " + where + ": kind: missing"};
    kind = default_kind;
    return std::nullopt;
  }
  if (k.get_string().get(kind) != simdjson::SUCCESS)
    return load_error{src.name + ": " + where + ": kind: expected a string, found " +
                      std::string(type_name(k.type()))};
  return std::nullopt;
}

}  // namespace

std::optional<load_error> read_source(const std::string& path, source& out) {
  out.name = path == "-" ? std::string("<stdin>") : path;
  if (path == "-") {
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    out.text = simdjson::padded_string(text);
    return std::nullopt;
  }
  auto loaded = simdjson::padded_string::load(path);
  if (loaded.error() != simdjson::SUCCESS) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    const std::string why = f == nullptr ? std::string(std::strerror(errno)) : "read error";
    if (f != nullptr) std::fclose(f);
    return load_error{path + ": cannot read: " + why};
  }
  out.text = std::move(loaded).value_unsafe();
  return std::nullopt;
}

source make_source(std::string name, std::string_view bytes) {
  return source{std::move(name), simdjson::padded_string(bytes)};
}

simdjson::error_code loader::parse(const source& src, dom::element& root) {
  const std::clock_t c0 = std::clock();
  const auto err = parser_.parse(src.text).get(root);
  parse_cpu_seconds_ += static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  return err;
}

std::optional<load_error> loader::add_cluster(const source& src, cluster_dump& dump) {
  dom::element root;
  if (const auto err = parse(src, root); err != simdjson::SUCCESS)
    return load_error{syntax_error(src, err)};
  document_items items;
  if (auto e = collect_items(src, root, items)) return e;
  const auto file = static_cast<std::uint32_t>(dump.files.size());
  dump.files.push_back(src.name);
  for (std::size_t i = 0; i < items.items.size(); ++i) {
    dom::object obj;
    std::string_view kind;
    if (auto e = item_kind(src, items.items[i], i, items.in_list, "", obj, kind)) return e;
    if (!kinds::is_read(kind)) {
      ++dump.other_objects;
      continue;
    }
    const kinds::origin where{src.name, file, i,
                              items.in_list ? "items[" + std::to_string(i) + "]" : std::string()};
    if (auto e = kinds::add_object(kind, items.items[i], where, dump)) return e;
  }
  return std::nullopt;
}

std::optional<load_error> loader::read_pod(const source& src, pod_object& out) {
  dom::element root;
  if (const auto err = parse(src, root); err != simdjson::SUCCESS)
    return load_error{syntax_error(src, err)};
  document_items items;
  if (auto e = collect_items(src, root, items)) return e;
  if (items.items.size() != 1)
    return load_error{src.name + ": expected one Pod, found " + std::to_string(items.items.size()) +
                      " objects"};
  dom::object obj;
  std::string_view kind;
  if (auto e = item_kind(src, items.items[0], 0, items.in_list, "Pod", obj, kind)) return e;
  if (kind != "Pod")
    return load_error{src.name + ": expected a Pod, found kind " + std::string(kind)};
  out = pod_object{};
  const kinds::origin where{src.name, 0, 0, items.in_list ? "items[0]" : std::string()};
  return kinds::read_preemptor(items.items[0], where, out);
}

}  // namespace whatif
