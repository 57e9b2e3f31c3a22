// preempt-whatif-yaml-bench - how fast Debian's YAML libraries parse a cluster dump written as
// `kubectl get -o yaml` writes it. This is the measurement behind preempt-whatif's choice of YAML
// library.
//
//   preempt-whatif-yaml-bench DUMP.json [REPEAT] [--write-yaml OUT.yaml] [--skip-yaml-cpp]
//
// The JSON dump (preempt-whatif-gen's) is converted to block-style YAML first (kubectl's layout:
// two-space indentation, sequences of a mapping not indented, strings quoted where YAML 1.1 would
// read them as something else); --write-yaml keeps it. Then, for each library, the best of REPEAT
// (default 3) full parses in processor and wall time:
//   libyaml 0.2.5     events (yaml_parser_parse), and documents (yaml_parser_load)
//   libfyaml 0.7.12   events (fy_parser_parse), and documents (fy_document_build_from_string)
//   yaml-cpp 0.7.0    documents (YAML::LoadAll)
//   preempt-whatif    its YAML path: libyaml events to JSON text, then simdjson on that text
// Built only with -DPREEMPT_WHATIF_YAML_BENCH=ON (it needs libyaml-cpp-dev and libfyaml-dev too).
//
// SPDX-License-Identifier: Apache-2.0
#include <array>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <string_view>

#include <libfyaml.h>
#include <simdjson.h>

#include <yaml-cpp/yaml.h>
#include <yaml.h>
#include "stopwatch.hpp"

#include "io/loader.hpp"
#include "io/yaml_json.hpp"

namespace {

using timing = whatif::best_time;

timing best_of(int repeat, const std::function<std::size_t()>& run, std::size_t& check) {
  return whatif::best_time::of(repeat, run, check);
}

// ---- JSON to kubectl-style YAML ----------------------------------------------------------------

bool plain_safe(std::string_view s) {
  if (s.empty()) return false;
  const char c0 = s.front();
  if (!((c0 >= 'a' && c0 <= 'z') || (c0 >= 'A' && c0 <= 'Z') || c0 == '/' || c0 == '_'))
    return false;
  for (const char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
          c == '_' || c == '.' || c == '/'))
      return false;
  // Words YAML 1.1 reads as booleans or null.
  static constexpr std::string_view words[] = {"y",     "yes", "n",   "no",  "true",
                                               "false", "on",  "off", "null"};
  std::string lower;
  for (const char c : s) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  for (std::string_view w : words)
    if (lower == w) return false;
  return true;
}

void scalar_string(std::string& out, std::string_view s) {
  if (plain_safe(s)) {
    out += s;
    return;
  }
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += ch;
    }
  }
  out += '"';
}

void scalar(std::string& out, simdjson::dom::element e) {
  using t = simdjson::dom::element_type;
  switch (e.type()) {
    case t::STRING: scalar_string(out, e.get_string().value_unsafe()); break;
    case t::INT64: out += std::to_string(e.get_int64().value_unsafe()); break;
    case t::UINT64: out += std::to_string(e.get_uint64().value_unsafe()); break;
    case t::DOUBLE: {
      std::array<char, 64> buf{};
      const auto r =
          std::to_chars(buf.data(), buf.data() + buf.size(), e.get_double().value_unsafe());
      out.append(buf.data(), r.ptr);
      break;
    }
    case t::BOOL: out += e.get_bool().value_unsafe() ? "true" : "false"; break;
    case t::NULL_VALUE: out += "null"; break;
    default: break;
  }
}

bool is_empty_container(simdjson::dom::element e) {
  if (e.is_object()) return e.get_object().value_unsafe().size() == 0;
  if (e.is_array()) return e.get_array().value_unsafe().size() == 0;
  return false;
}

void block(std::string& out, simdjson::dom::element e, std::size_t indent,
           std::string_view first_lead);

// A mapping member or sequence item's value after "key:" or "-".
void value_after(std::string& out, simdjson::dom::element v, std::size_t indent, bool in_sequence) {
  if (is_empty_container(v)) {
    out += v.is_object() ? " {}\n" : " []\n";
  } else if (v.is_object()) {
    if (in_sequence) {
      block(out, v, indent + 2, " ");
    } else {
      out += '\n';
      block(out, v, indent + 2, {});
    }
  } else if (v.is_array()) {
    out += '\n';
    block(out, v, in_sequence ? indent + 2 : indent, {});
  } else {
    out += ' ';
    scalar(out, v);
    out += '\n';
  }
}

// A non-empty mapping or sequence at `indent`; the first line starts with `first_lead` instead of
// the indentation when given (an object that is a sequence item continues the "- " line).
void block(std::string& out, simdjson::dom::element e, std::size_t indent,
           std::string_view first_lead) {
  bool first = true;
  const auto lead = [&] {
    if (first && !first_lead.empty()) {
      out += first_lead;
    } else {
      out.append(indent, ' ');
    }
    first = false;
  };
  if (e.is_object()) {
    const simdjson::dom::object o = e.get_object().value_unsafe();
    for (auto kv : o) {
      lead();
      scalar_string(out, kv.key);
      out += ':';
      value_after(out, kv.value, indent, false);
    }
  } else {
    const simdjson::dom::array a = e.get_array().value_unsafe();
    for (simdjson::dom::element item : a) {
      lead();
      out += '-';
      value_after(out, item, indent, true);
    }
  }
}

std::string to_yaml(simdjson::dom::element root) {
  std::string out;
  block(out, root, 0, {});
  return out;
}

// ---- Parsers ----------------------------------------------------------------------------------

std::size_t libyaml_events(const std::string& text) {
  yaml_parser_t parser;
  yaml_parser_initialize(&parser);
  yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.data()),
                               text.size());
  std::size_t n = 0;
  for (;;) {
    yaml_event_t event;
    if (!yaml_parser_parse(&parser, &event)) {
      std::fprintf(stderr, "libyaml: %s\n", parser.problem);
      break;
    }
    const bool end = event.type == YAML_STREAM_END_EVENT;
    yaml_event_delete(&event);
    ++n;
    if (end) break;
  }
  yaml_parser_delete(&parser);
  return n;
}

std::size_t libyaml_documents(const std::string& text) {
  yaml_parser_t parser;
  yaml_parser_initialize(&parser);
  yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.data()),
                               text.size());
  std::size_t nodes = 0;
  for (;;) {
    yaml_document_t doc;
    if (!yaml_parser_load(&parser, &doc)) {
      std::fprintf(stderr, "libyaml: %s\n", parser.problem);
      break;
    }
    const yaml_node_t* root = yaml_document_get_root_node(&doc);
    const bool end = root == nullptr;
    if (!end) nodes += static_cast<std::size_t>(doc.nodes.top - doc.nodes.start);
    yaml_document_delete(&doc);
    if (end) break;
  }
  yaml_parser_delete(&parser);
  return nodes;
}

std::size_t fyaml_events(const std::string& text) {
  fy_parse_cfg cfg{};
  cfg.flags = static_cast<fy_parse_cfg_flags>(FYPCF_QUIET | FYPCF_DEFAULT_VERSION_1_1);
  fy_parser* p = fy_parser_create(&cfg);
  fy_parser_set_string(p, text.data(), text.size());
  std::size_t n = 0;
  while (fy_event* e = fy_parser_parse(p)) {
    ++n;
    fy_parser_event_free(p, e);
  }
  if (fy_parser_get_stream_error(p)) std::fputs("libfyaml: stream error\n", stderr);
  fy_parser_destroy(p);
  return n;
}

std::size_t fyaml_documents(const std::string& text) {
  fy_parse_cfg cfg{};
  cfg.flags = static_cast<fy_parse_cfg_flags>(FYPCF_QUIET | FYPCF_DEFAULT_VERSION_1_1);
  fy_document* d = fy_document_build_from_string(&cfg, text.data(), text.size());
  if (d == nullptr) {
    std::fputs("libfyaml: no document\n", stderr);
    return 0;
  }
  const std::size_t n = fy_node_mapping_item_count(fy_document_root(d)) >= 0 ? 1 : 0;
  fy_document_destroy(d);
  return n;
}

std::size_t yaml_cpp_documents(const std::string& text) {
  const std::vector<YAML::Node> docs = YAML::LoadAll(text);
  return docs.empty() ? 0 : docs.front()["items"].size();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(
        "usage: preempt-whatif-yaml-bench DUMP.json [REPEAT] [--write-yaml OUT.yaml] "
        "[--skip-yaml-cpp]\n",
        stderr);
    return 2;
  }
  int repeat = 3;
  std::string write_yaml;
  bool skip_yaml_cpp = false;
  for (int i = 2; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--write-yaml" && i + 1 < argc) {
      write_yaml = argv[++i];
    } else if (a == "--skip-yaml-cpp") {
      skip_yaml_cpp = true;
    } else {
      repeat = std::atoi(argv[i]);
    }
  }
  std::string text;
  {
    simdjson::dom::parser parser;
    simdjson::padded_string json;
    if (simdjson::padded_string::load(argv[1]).get(json)) {
      std::fprintf(stderr, "%s: cannot read\n", argv[1]);
      return 1;
    }
    simdjson::dom::element root;
    if (parser.parse(json).get(root)) {
      std::fprintf(stderr, "%s: not JSON\n", argv[1]);
      return 1;
    }
    text = to_yaml(root);
  }
  if (!write_yaml.empty()) {
    std::ofstream out(write_yaml, std::ios::binary);
    out << text;
  }
  const double mb = static_cast<double>(text.size()) / 1e6;
  std::printf("%s as YAML: %.1f MB, best of %d\n", argv[1], mb, repeat);
  std::size_t check = 0;
  auto report = [&](const char* name, timing t) {
    std::printf("  %-44s cpu %7.3f s (%5.0f MB/s)  wall %7.3f s  (check %zu)\n", name, t.cpu,
                mb / t.cpu, t.wall, check);
    std::fflush(stdout);
  };
  report("libyaml 0.2.5 events", best_of(
                                     repeat, [&] { return libyaml_events(text); }, check));
  report("libfyaml 0.7.12 events", best_of(
                                       repeat, [&] { return fyaml_events(text); }, check));
  report("libyaml 0.2.5 documents (yaml_parser_load)",
         best_of(
             repeat, [&] { return libyaml_documents(text); }, check));
  report("libfyaml 0.7.12 documents", best_of(
                                          repeat, [&] { return fyaml_documents(text); }, check));
  if (!skip_yaml_cpp)
    report("yaml-cpp 0.7.0 documents (YAML::LoadAll)",
           best_of(
               repeat, [&] { return yaml_cpp_documents(text); }, check));

  whatif::text_buffer json;
  std::vector<whatif::json_document> docs;
  report("preempt-whatif YAML to JSON text",
         best_of(
             repeat,
             [&] {
               json.clear();
               docs.clear();
               if (auto e = whatif::yaml_to_json("dump.yaml", text, json, docs)) {
                 std::fprintf(stderr, "%s\n", e->message.c_str());
                 return std::size_t{0};
               }
               return json.size();
             },
             check));
  simdjson::dom::parser parser;
  report("  then simdjson on that JSON text",
         best_of(
             repeat,
             [&] {
               simdjson::dom::element root;
               if (parser.parse(json.data(), json.size(), false).get(root)) return std::size_t{0};
               return std::size_t{1};
             },
             check));
  return 0;
}
