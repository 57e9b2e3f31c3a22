// libFuzzer harness of preempt-whatif's input path: the stream reader, text encodings (byte-order
// marks, UTF-16), JSON and YAML parsing (simdjson; libyaml through yaml_json), concatenated
// documents, decoding of Kubernetes objects, the analysis (one pod and every pending pod) and the
// outputs. Nothing may crash, whatever the bytes.
//
// An input is a cluster document, optionally followed by "\n---\n" and a pod document. Without a
// pod part, the input is also tried as the pod against a small fixed cluster, and the whole input
// as a cluster (YAML's "---" separates documents there). When both load, the analysis runs (with
// the input-derived offset and sampling) and its reports are printed to strings. Properties
// checked besides "no crash, no sanitizer report":
//   - the stream reader returns exactly the bytes written into a pipe, and fails exactly when
//     there are more than its limit;
//   - the JSON error locator finds an error whenever simdjson rejects the text;
//   - every JSON document yaml_to_json writes parses with simdjson.
//
// SPDX-License-Identifier: Apache-2.0
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <unistd.h>

#include <vector>

#include "analysis/analysis.hpp"
#include "io/input.hpp"
#include "io/json_error.hpp"
#include "io/loader.hpp"
#include "io/yaml_json.hpp"
#include "output/output.hpp"
#include "output/pending_output.hpp"

namespace {

constexpr std::string_view fixed_cluster = R"({"kind":"List","items":[
 {"kind":"Node","metadata":{"name":"n1","labels":{"zone":"a"}},"status":{"allocatable":{"cpu":"1","memory":"1Gi","pods":"2"}}},
 {"kind":"Node","metadata":{"name":"n2"},"spec":{"taints":[{"key":"k","value":"v","effect":"NoSchedule"}]},"status":{"allocatable":{"cpu":"2","pods":"3"}}},
 {"kind":"Pod","metadata":{"name":"v1","namespace":"default","labels":{"app":"a"}},"spec":{"nodeName":"n1","priority":1,"containers":[{"resources":{"requests":{"cpu":"600m"}}}]},"status":{"startTime":"2024-01-01T00:00:00Z"}},
 {"kind":"Pod","metadata":{"name":"v2","namespace":"default"},"spec":{"nodeName":"n2","priority":5,"containers":[{"resources":{"requests":{"cpu":"2"}}}]}},
 {"kind":"Pod","metadata":{"name":"nom","namespace":"default"},"spec":{"priority":7,"containers":[{"resources":{"requests":{"cpu":"100m"}}}]},"status":{"nominatedNodeName":"n1"}},
 {"kind":"PodDisruptionBudget","metadata":{"name":"b","namespace":"default"},"spec":{"selector":{"matchLabels":{"app":"a"}}},"status":{"disruptionsAllowed":0}},
 {"kind":"PriorityClass","metadata":{"name":"high"},"value":100,"globalDefault":true}]})";

constexpr std::string_view fixed_pod =
    R"({"kind":"Pod","metadata":{"name":"p"},"spec":{"priorityClassName":"high","containers":[{"resources":{"requests":{"cpu":"1"}}}]}})";

void run(std::string_view cluster_text, std::string_view pod_text, std::size_t salt) {
  whatif::loader loader;
  whatif::cluster_dump dump;
  if (loader.add_cluster(whatif::make_source("cluster.json", cluster_text), dump)) return;
  whatif::pod_object pod;
  if (loader.read_pod(whatif::make_source("pod.json", pod_text), pod)) return;
  whatif::options opts;
  opts.offset = salt % 7;
  opts.sampling.min_candidate_nodes_percentage = static_cast<std::int32_t>(salt % 101);
  opts.sampling.min_candidate_nodes_absolute = static_cast<std::int32_t>(1 + salt % 3);
  opts.now = 1'700'000'000'000'000'000;
  whatif::analysis analysis;
  if (analysis.build(dump)) return;
  whatif::report report;
  if (analysis.decide(pod, opts, report)) return;
  const std::string json = whatif::to_json(report);
  const std::string text = whatif::to_text(report, "fuzz");
  if (json.empty() || text.empty()) __builtin_trap();
  std::vector<whatif::report> all;
  for (std::size_t i : analysis.pending_in_queue_order()) {
    all.emplace_back();
    if (analysis.decide(dump.pods[i], opts, all.back())) __builtin_trap();  // built: no error
  }
  if (whatif::to_json(all).empty() || whatif::to_text_table(all, "fuzz").empty()) __builtin_trap();
}

// The stream reader on a pipe holding the input (small inputs fit the pipe's buffer).
void read_through_pipe(std::string_view input, std::size_t salt) {
  if (input.size() > 60000) return;
  int fds[2];
  if (::pipe(fds) != 0) return;
  const ssize_t written = ::write(fds[1], input.data(), input.size());
  ::close(fds[1]);
  if (written != static_cast<ssize_t>(input.size())) {
    ::close(fds[0]);
    return;
  }
  const std::uint64_t limit = 1 + salt % (input.size() + 16);
  whatif::source src;
  const auto error = whatif::read_descriptor(fds[0], "pipe", limit, src);
  ::close(fds[0]);
  if (error.has_value() != (input.size() > limit)) __builtin_trap();
  if (!error && src.bytes.view() != input) __builtin_trap();
}

// Every document of a successful YAML conversion is JSON simdjson accepts.
void check_yaml_conversion(std::string_view input) {
  whatif::text_buffer json;
  std::vector<whatif::json_document> docs;
  if (whatif::yaml_to_json("fuzz.yaml", input, json, docs)) return;
  simdjson::dom::parser parser;
  for (const whatif::json_document& d : docs) {
    simdjson::dom::element root;
    if (d.end < d.begin || d.end > json.size()) __builtin_trap();
    if (parser.parse(json.data() + d.begin, d.end - d.begin, false).get(root) != simdjson::SUCCESS)
      __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t salt = size;
  const std::size_t sep = input.find("\n---\n");
  if (sep != std::string_view::npos) {
    run(input.substr(0, sep), input.substr(sep + 5), salt);
    run(input, fixed_pod, salt);
  } else {
    run(input, fixed_pod, salt);
    run(fixed_cluster, input, salt);
  }
  read_through_pipe(input, salt);
  check_yaml_conversion(input);
  const whatif::json_value_scan scan = whatif::scan_json_value(input);
  if (scan.end > input.size() || (scan.error && scan.error->offset > input.size()))
    __builtin_trap();
  // The locator must name a position whenever simdjson rejects the text (else the message
  // would have no position).
  const auto located = whatif::find_json_error(input);
  if (located) {
    if (located->offset > input.size()) __builtin_trap();
    (void)whatif::format_json_error(input, *located);
  }
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  const simdjson::padded_string padded(input);
  if (parser.parse(padded).get(root) != simdjson::SUCCESS && !located) __builtin_trap();
  return 0;
}
