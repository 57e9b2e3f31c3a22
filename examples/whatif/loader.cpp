// examples/whatif/loader.cpp - inputs → documents → objects → cluster_dump (see loader.hpp); the
// objects themselves are decoded by kinds.cpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "loader.hpp"

#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "decoder.hpp"
#include "json_error.hpp"
#include "kinds.hpp"
#include "one_line.hpp"
#include "yaml_json.hpp"

namespace whatif {

namespace dom = simdjson::dom;
using decode::type_name;

namespace {

// ---- Text encoding ---------------------------------------------------------------------------

void append_utf8(text_buffer& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

// UTF-16 (`bytes` after any byte-order mark, which was `skipped` bytes long) to UTF-8.
std::optional<load_error> from_utf16(const source& src, std::string_view bytes, std::size_t skipped,
                                     bool big_endian, text_buffer& out) {
  const auto fail = [&](std::size_t at, std::string_view what) {
    return load_error{src.name + ": invalid UTF-16 at byte " + std::to_string(skipped + at) + ": " +
                      std::string(what)};
  };
  if (bytes.size() % 2 != 0) return fail(bytes.size() - 1, "an odd number of bytes");
  const auto unit = [&](std::size_t i) {
    const auto a = static_cast<unsigned char>(bytes[i]),
               b = static_cast<unsigned char>(bytes[i + 1]);
    return big_endian ? static_cast<std::uint32_t>(a << 8 | b)
                      : static_cast<std::uint32_t>(b << 8 | a);
  };
  out.reserve(bytes.size() / 2 + bytes.size() / 4);
  for (std::size_t i = 0; i < bytes.size(); i += 2) {
    std::uint32_t cp = unit(i);
    if (cp >= 0xdc00 && cp <= 0xdfff) return fail(i, "a low surrogate without a high one");
    if (cp >= 0xd800 && cp <= 0xdbff) {
      if (i + 2 >= bytes.size()) return fail(i, "a high surrogate at the end");
      const std::uint32_t low = unit(i + 2);
      if (low < 0xdc00 || low > 0xdfff) return fail(i, "a high surrogate without a low one");
      cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
      i += 2;
    }
    append_utf8(out, cp);
  }
  out.resize(out.size());  // clears the padding
  return std::nullopt;
}

// The UTF-8 text of a source: its bytes without a UTF-8 byte-order mark, or their conversion
// from UTF-16 into `converted`. UTF-16 is recognized by its byte-order mark, or, without one, by
// the zero bytes of ASCII text (RFC 4627's rule).
std::optional<load_error> utf8_text(const source& src, text_buffer& converted,
                                    std::string_view& text) {
  const std::string_view b = src.bytes.view();
  const auto starts = [&](std::string_view prefix) { return b.substr(0, prefix.size()) == prefix; };
  using namespace std::string_view_literals;
  if (starts("\xff\xfe\0\0"sv) || starts("\0\0\xfe\xff"sv) ||
      (b.size() >= 4 && b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] != 0) ||
      (b.size() >= 4 && b[0] != 0 && b[1] == 0 && b[2] == 0 && b[3] == 0))
    return load_error{src.name +
                      ": is UTF-32 text; convert it to UTF-8 (e.g. iconv -f UTF-32 -t UTF-8)"};
  std::optional<bool> big_endian;
  std::size_t skip = 0;
  if (starts("\xef\xbb\xbf")) {
    text = b.substr(3);
    return std::nullopt;
  }
  if (starts("\xff\xfe")) {
    big_endian = false;
    skip = 2;
  } else if (starts("\xfe\xff")) {
    big_endian = true;
    skip = 2;
  } else if (b.size() >= 2 && b[0] == 0 && b[1] != 0) {
    big_endian = true;
  } else if (b.size() >= 2 && b[0] != 0 && b[1] == 0) {
    big_endian = false;
  }
  if (!big_endian) {
    text = b;
    return std::nullopt;
  }
  if (auto e = from_utf16(src, b.substr(skip), skip, *big_endian, converted)) return e;
  text = converted.view();
  return std::nullopt;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::size_t skip_space(std::string_view text, std::size_t pos) {
  while (pos < text.size() && is_space(text[pos])) ++pos;
  return pos;
}

// JSON when the text starts with '{' or '[' (or is empty: the JSON path names that); YAML else.
bool is_json(std::string_view text) {
  const std::size_t pos = skip_space(text, 0);
  return pos == text.size() || text[pos] == '{' || text[pos] == '[';
}

// After a document of `kubectl cluster-info dump`: the container logs it writes between the
// JSON documents, from "==== START logs for container C of pod NS/P ====" to the matching END
// line. Returns where the next document may start.
std::size_t skip_container_logs(std::string_view text, std::size_t pos) {
  constexpr std::string_view start = "==== START logs for ";
  constexpr std::string_view end = "==== END logs for ";
  for (;;) {
    pos = skip_space(text, pos);
    if (text.substr(pos, start.size()) != start) return pos;
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) return text.size();
    const std::string_view header = text.substr(pos + start.size(), eol - pos - start.size());
    const std::string closing = "\n" + std::string(end) + std::string(header);
    const std::size_t found = text.find(closing, eol);
    if (found == std::string_view::npos) return text.size();
    pos = found + closing.size();
  }
}

// ---- Documents ------------------------------------------------------------------------------

std::string malformed_json(const source& src, std::string_view text,
                           std::optional<json_error> located, simdjson::error_code code) {
  std::string m = src.name + ": malformed JSON";
  if (located) {
    m += " at ";
    m += format_json_error(text, *located);
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

}  // namespace

namespace {

// Walks one document: lists (nested too) down to their objects.
class document_walker {
 public:
  document_walker(const source& src, std::string_view fallback_kind, detail::object_visitor& visit)
      : src_(src), fallback_kind_(fallback_kind), visit_(visit) {}

  // `label` names the document when the input holds several ("document 2"), else "".
  std::optional<load_error> walk_document(dom::element root, const std::string& label) {
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

 private:
  static std::string index_step(std::string_view name, std::size_t i) {
    std::string s(name);
    s += '[';
    s += std::to_string(i);
    s += ']';
    return s;
  }

  // "items[2]", "items[2].items[0]", "document 2, items[2]".
  static std::string child(const std::string& position, const std::string& step) {
    if (position.empty()) return step;
    return position + (position.back() == ']' ? "." : ", ") + step;
  }

  std::string where(const std::string& position) const {
    return src_.name + ": " + (position.empty() ? std::string("document") : position);
  }

  std::optional<load_error> walk(dom::element v, std::string_view implied_kind,
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
                        ": items: expected an array, found " +
                        std::string(type_name(items.type()))};
    const std::string_view item_kind = kind.substr(0, kind.size() - list_suffix.size());
    std::size_t i = 0;
    for (dom::element e : a)
      if (auto err = walk(e, item_kind, child(position, index_step("items", i++)))) return err;
    return std::nullopt;
  }

  const source& src_;
  std::string_view fallback_kind_;
  detail::object_visitor& visit_;
};

}  // namespace

std::optional<load_error> loader::for_each_object(const source& src, std::string_view top_kind,
                                                  detail::object_visitor& visit) {
  text_buffer converted;
  std::string_view text;
  if (auto e = utf8_text(src, converted, text)) return e;
  document_walker walker(src, top_kind, visit);
  const auto timed_parse = [&](const char* p, std::size_t n, dom::element& root) {
    const std::clock_t c0 = std::clock();
    const auto err = parser_.parse(p, n, false).get(root);
    parse_cpu_seconds_ += static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    return err;
  };

  if (!is_json(text)) {
    text_buffer json;
    std::vector<json_document> docs;
    const std::clock_t c0 = std::clock();
    auto converted_error = yaml_to_json(src.name, text, json, docs);
    parse_cpu_seconds_ += static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    if (converted_error) return converted_error;
    if (docs.empty()) return load_error{src.name + ": holds no YAML document"};
    for (std::size_t d = 0; d < docs.size(); ++d) {
      dom::element root;
      if (const auto err =
              timed_parse(json.data() + docs[d].begin, docs[d].end - docs[d].begin, root))
        return load_error{src.name + ": YAML document at line " + std::to_string(docs[d].line) +
                          ": " + simdjson::error_message(err)};
      const std::string label = docs.size() > 1 ? "document " + std::to_string(d + 1) : "";
      if (auto e = walker.walk_document(root, label)) return e;
    }
    return std::nullopt;
  }

  // One JSON document: the common case, parsed at once.
  dom::element root;
  const auto whole = timed_parse(text.data(), text.size(), root);
  if (whole == simdjson::SUCCESS) return walker.walk_document(root, "");
  if (whole == simdjson::CAPACITY)
    return load_error{src.name + ": a JSON document larger than simdjson's limit of 4 GiB"};
  // Several concatenated documents, or a malformed one: the checker finds where the first
  // value ends, or its first error.
  std::size_t pos = 0;
  for (std::size_t d = 0;; ++d) {
    const json_value_scan scan = scan_json_value(text.substr(pos));
    if (scan.error)
      return load_error{
          malformed_json(src, text, json_error{pos + scan.error->offset, scan.error->what}, whole)};
    if (d == 0 && scan.end == text.size())
      return load_error{malformed_json(src, text, std::nullopt, whole)};
    if (const auto err = timed_parse(text.data() + pos, scan.end, root))
      return load_error{malformed_json(src, text, std::nullopt, err) + " (document " +
                        std::to_string(d + 1) + ")"};
    if (auto e = walker.walk_document(root, "document " + std::to_string(d + 1))) return e;
    pos = skip_container_logs(text, pos + scan.end);
    if (pos == text.size()) return std::nullopt;
    if (!can_start_value(text[pos]))
      return load_error{malformed_json(
          src, text, json_error{pos, "unexpected text after the JSON value"}, whole)};
  }
}

namespace {

struct cluster_visitor : detail::object_visitor {
  const source& src;
  cluster_dump& dump;
  std::uint32_t file;
  std::size_t item = 0;

  cluster_visitor(const source& s, cluster_dump& d, std::uint32_t f) : src(s), dump(d), file(f) {}

  std::optional<load_error> object(std::string_view kind, dom::element obj,
                                   const std::string& position) override {
    const std::size_t index = item++;
    if (!kinds::is_read(kind)) {
      ++dump.ignored[std::string(kind)];
      return std::nullopt;
    }
    return kinds::add_object(kind, obj, kinds::origin{src.name, file, index, position}, dump);
  }
};

struct pod_visitor : detail::object_visitor {
  const source& src;
  pod_object& out;
  std::size_t count = 0;

  pod_visitor(const source& s, pod_object& o) : src(s), out(o) {}

  std::optional<load_error> object(std::string_view kind, dom::element obj,
                                   const std::string& position) override {
    if (count++ > 0) return std::nullopt;
    if (kind != "Pod") return load_error{src.name + ": expected a Pod, found kind " + clip(kind)};
    return kinds::read_preemptor(obj, kinds::origin{src.name, 0, 0, position}, out);
  }
};

}  // namespace

std::optional<load_error> loader::add_cluster(const source& src, cluster_dump& dump) {
  const auto file = static_cast<std::uint32_t>(dump.files.size());
  dump.files.push_back(src.name);
  cluster_visitor visit(src, dump, file);
  return for_each_object(src, "", visit);
}

std::optional<load_error> loader::read_pod(const source& src, pod_object& out) {
  out = pod_object{};
  pod_visitor visit(src, out);
  if (auto e = for_each_object(src, "Pod", visit)) return e;
  if (visit.count != 1)
    return load_error{src.name + ": expected one Pod, found " + std::to_string(visit.count) +
                      " objects"};
  return std::nullopt;
}

}  // namespace whatif
