// examples/whatif/io/loader.cpp - inputs → documents → objects → cluster_dump (see loader.hpp),
// the top layer: text.hpp, documents.hpp and stream_reader.hpp (with item_prefetcher.hpp) read
// the inputs; the objects themselves are decoded by decode/kinds.cpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "io/loader.hpp"

#include <sys/stat.h>

#include <cstdint>
#include <ctime>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "decode/kinds.hpp"
#include "io/documents.hpp"
#include "io/json_error.hpp"
#include "io/json_stream.hpp"
#include "io/sniff.hpp"
#include "io/stream_reader.hpp"
#include "io/text.hpp"
#include "io/yaml_json.hpp"
#include "output/one_line.hpp"

namespace whatif {

namespace dom = simdjson::dom;
using detail::can_start_value;
using detail::document_walker;
using detail::is_json;
using detail::malformed_json;
using detail::skip_container_logs;
using detail::skip_space;
using detail::utf8_text;

namespace {

// What a cluster_dump held before an input was added, to take the input back out.
struct dump_mark {
  std::size_t files, nodes, pods, pdbs, namespaces, classes, class_files, groups, workloads;
  std::map<std::string, std::size_t> ignored;

  explicit dump_mark(const cluster_dump& d)
      : files(d.files.size()),
        nodes(d.nodes.size()),
        pods(d.pods.size()),
        pdbs(d.pdbs.size()),
        namespaces(d.namespaces.size()),
        classes(d.classes.size()),
        class_files(d.class_files.size()),
        groups(d.groups.size()),
        workloads(d.workloads),
        ignored(d.ignored) {}

  void restore(cluster_dump& d) const {
    const auto cut = [](auto& v, std::size_t n) {
      v.erase(v.begin() + static_cast<std::ptrdiff_t>(n), v.end());
    };
    cut(d.files, files);
    cut(d.nodes, nodes);
    cut(d.pods, pods);
    cut(d.pdbs, pdbs);
    cut(d.namespaces, namespaces);
    cut(d.classes, classes);
    cut(d.class_files, class_files);
    cut(d.groups, groups);
    d.workloads = workloads;
    d.ignored = ignored;
  }
};

}  // namespace

std::optional<load_error> loader::for_each_object(const source& src, std::string_view top_kind,
                                                  detail::object_visitor& visit) {
  if (auto why = not_text(src.bytes.view())) return load_error{src.name + ": " + *why};
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

std::optional<load_error> loader::add_cluster(open_input& in, cluster_dump& dump,
                                              std::uint64_t max_size) {
  // Named at once: a compressed or binary file is not read whole first.
  if (auto why = not_text(in.head.bytes.view())) return load_error{in.head.name + ": " + *why};
  if (in.complete) return add_cluster(in.head, dump);
  // A UTF-8 JSON text (a byte-order mark skipped) is read a window at a time; anything else
  // (UTF-16, YAML) whole.
  const std::string_view head = in.head.bytes.view();
  std::size_t start = head.substr(0, 3) == "\xef\xbb\xbf" ? 3 : 0;
  start = skip_space(head, start);
  const bool utf16 =
      head.size() >= 2 && (head[0] == 0 || head[1] == 0 || head.substr(0, 2) == "\xff\xfe" ||
                           head.substr(0, 2) == "\xfe\xff");
  if (utf16 || start == head.size() || (head[start] != '{' && head[start] != '[')) {
    if (auto e = read_rest(in, max_size)) return e;
    return add_cluster(in.head, dump);
  }

  const dump_mark mark(dump);
  const auto file = static_cast<std::uint32_t>(dump.files.size());
  dump.files.push_back(in.head.name);
  cluster_visitor visit(in.head, dump, file);
  document_walker walker(in.head, "", visit);
  stream_window window(in.head.name, in.fd, std::move(in.head.bytes), max_size, window_);
  if (in.seekable) {
    struct stat st {};
    if (::fstat(in.fd, &st) == 0) (void)window.map_file(static_cast<std::uint64_t>(st.st_size));
  }
  std::string unusual;
  auto error =
      detail::read_stream(window, parser_, walker, parse_cpu_seconds_, start, dump, unusual);
  ++streamed_;
  if (!error && unusual.empty()) return std::nullopt;
  if (in.seekable) {
    // A regular file is read again, whole: the same answer and the same messages (with line and
    // column) as any input that fits one window.
    mark.restore(dump);
    if (auto e = read_again(in, max_size)) return e;
    return add_cluster(in.head, dump);
  }
  if (error) return error;
  return load_error{in.head.name + ": holds " + unusual +
                    ", which is read whole, and is larger than the stream window: save it to a "
                    "file and name the file"};
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