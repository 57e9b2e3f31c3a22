// libFuzzer harness of preempt-whatif's input path: JSON parsing, decoding of Kubernetes objects,
// the analysis and both outputs. Nothing may crash, whatever the bytes.
//
// An input is a cluster document, optionally followed by "\n---\n" and a pod document. Without a
// pod part, the input is also tried as the pod against a small fixed cluster. When both load, the
// analysis runs (with the input-derived offset and sampling) and its report is printed to strings.
// The JSON error locator also runs on every input, and must find an error whenever simdjson
// rejects the text.
//
// SPDX-License-Identifier: Apache-2.0
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "json_error.hpp"
#include "loader.hpp"
#include "output.hpp"
#include "whatif.hpp"

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
  whatif::report report;
  if (whatif::analyze(dump, pod, opts, report)) return;
  const std::string json = whatif::to_json(report);
  const std::string text = whatif::to_text(report, "fuzz");
  if (json.empty() || text.empty()) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t salt = size;
  const std::size_t sep = input.find("\n---\n");
  if (sep != std::string_view::npos) {
    run(input.substr(0, sep), input.substr(sep + 5), salt);
  } else {
    run(input, fixed_pod, salt);
    run(fixed_cluster, input, salt);
  }
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
