// preempt-whatif - which node would kube-scheduler nominate for a pending pod, whom would it
// evict, and why? Answers from a cluster dump, with the preempt library.
//
//   kubectl get nodes,pods,pdb,priorityclasses -A -o json > cluster.json
//   preempt-whatif --cluster cluster.json --pod pod.json [--output text|json] [--offset N]
//                  [--min-candidate-nodes-percentage P] [--min-candidate-nodes-absolute A]
//   preempt-whatif --cluster cluster.json --pod-name NAMESPACE/NAME
//   preempt-whatif                 # the bundled example (examples/data/), explained
//
// `-` reads standard input. Nodes are taken in input order; --offset N starts the dry run at the
// N-th node preemption may help (upstream draws it at random), 0 by default, so the answer is
// deterministic. Exit status: 0 for every decision (nominated, fits, not-eligible,
// unschedulable), 2 for bad input, with one message naming the file, the object and the field.
//
// SPDX-License-Identifier: Apache-2.0
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "bundled_data.hpp"
#include "loader.hpp"
#include "one_line.hpp"
#include "output.hpp"
#include "preempt/sampling.hpp"
#include "whatif.hpp"

namespace {

constexpr int exit_bad_input = 2;

int bad_input(const std::string& message) {
  std::cerr << "preempt-whatif: " << whatif::one_line(message) << "\n";
  return exit_bad_input;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "What would kube-scheduler's preemption do for a pending pod? Reads a cluster dump\n"
      "(kubectl get nodes,pods,pdb,priorityclasses -A -o json) and a pod, and explains the\n"
      "decision: the nominated node, the victims, and why. Without arguments it runs on a bundled\n"
      "example.",
      "preempt-whatif"};
  std::vector<std::string> cluster_files;
  std::string pod_file, pod_name, output = "text";
  std::int64_t offset = 0;
  preempt::sampling_args sampling;
  bool timings = false;
  std::string max_input_size;
  app.add_option("--cluster", cluster_files,
                 "Cluster dump(s): a kubectl List or single objects, JSON; '-' reads stdin")
      ->type_name("FILE");
  auto* pod_opt =
      app.add_option("--pod", pod_file, "The pod to place (a Pod object, JSON); '-' reads stdin")
          ->type_name("FILE");
  app.add_option("--pod-name", pod_name, "Take the pending pod NAMESPACE/NAME from the dump instead")
      ->type_name("NAMESPACE/NAME")
      ->excludes(pod_opt);
  app.add_option("--output,-o", output, "text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  app.add_option("--offset", offset,
                 "Start the dry run at this index among the nodes preemption may help (default 0)")
      ->check(CLI::Validator(
          [](std::string& value) {
            return value.empty() || value[0] != '-' ? std::string()
                                                    : std::string("must not be negative");
          },
          "N", "non-negative"));
  app.add_option("--min-candidate-nodes-percentage", sampling.min_candidate_nodes_percentage,
                 "DefaultPreemptionArgs.minCandidateNodesPercentage (default 10)");
  app.add_option("--min-candidate-nodes-absolute", sampling.min_candidate_nodes_absolute,
                 "DefaultPreemptionArgs.minCandidateNodesAbsolute (default 100)");
  app.add_option("--max-input-size", max_input_size,
                 "Largest input read, per file or stream (default 4GiB; K, M, G, T suffixes)")
      ->type_name("SIZE");
  app.add_flag("--timings", timings, "Print load, build and decide times to stderr");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    return bad_input(std::string(e.what()) + " (see --help)");
  }
  if (const std::string invalid = preempt::validate(sampling); !invalid.empty())
    return bad_input(invalid);
  std::uint64_t max_size = whatif::default_max_input_size;
  if (!max_input_size.empty()) {
    const auto parsed = whatif::parse_size(max_input_size);
    if (!parsed)
      return bad_input("--max-input-size: invalid size \"" + whatif::clip(max_input_size) +
                       "\" (expected bytes, or a number with K, M, G or T, e.g. 8G)");
    max_size = *parsed;
  }

  const bool bundled = cluster_files.empty() && pod_file.empty() && pod_name.empty();
  if (!bundled) {
    if (cluster_files.empty()) return bad_input("--cluster is required (see --help)");
    if (pod_file.empty() && pod_name.empty())
      return bad_input("one of --pod or --pod-name is required (see --help)");
    std::size_t stdin_uses = pod_file == "-" ? 1u : 0u;
    for (const std::string& f : cluster_files) stdin_uses += f == "-" ? 1u : 0u;
    if (stdin_uses > 1) return bad_input("'-' (standard input) can be used only once");
  }

  const auto t_load = std::chrono::steady_clock::now();
  const std::clock_t c_load = std::clock();
  whatif::loader loader;
  whatif::cluster_dump dump;
  whatif::pod_object pod;
  std::string origin;
  if (bundled) {
    origin = "bundled example: examples/data/cluster.json and examples/data/pod.json";
    const auto cluster = whatif::make_source("examples/data/cluster.json", whatif::bundled_cluster());
    if (auto e = loader.add_cluster(cluster, dump)) return bad_input(e->message);
    const auto p = whatif::make_source("examples/data/pod.json", whatif::bundled_pod());
    if (auto e = loader.read_pod(p, pod)) return bad_input(e->message);
  } else {
    for (const std::string& f : cluster_files) {
      whatif::source src;
      if (auto e = whatif::read_source(f, max_size, src)) return bad_input(e->message);
      if (auto e = loader.add_cluster(src, dump)) return bad_input(e->message);
    }
    if (!pod_file.empty()) {
      whatif::source src;
      if (auto e = whatif::read_source(pod_file, max_size, src)) return bad_input(e->message);
      if (auto e = loader.read_pod(src, pod)) return bad_input(e->message);
    } else {
      if (auto e = whatif::find_pending_pod(dump, pod_name, pod)) return bad_input(e->message);
    }
  }
  const double load_seconds = seconds_since(t_load);
  const double load_cpu_seconds = static_cast<double>(std::clock() - c_load) / CLOCKS_PER_SEC;

  whatif::options opts;
  opts.sampling = sampling;
  opts.offset = static_cast<std::size_t>(offset);
  opts.now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();
  whatif::report report;
  if (auto e = whatif::analyze(dump, pod, opts, report)) return bad_input(e->message);

  const std::string text = output == "json" ? whatif::to_json(report) : whatif::to_text(report, origin);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  if (timings) {
    const double parse = loader.parse_cpu_seconds();
    std::fprintf(stderr,
                 "preempt-whatif: %zu nodes, %zu pods\n"
                 "  load    %7.3f s wall, %7.3f s cpu (JSON parse %.3f s cpu, read + decode %.3f s cpu)\n"
                 "  build   %7.3f s wall, %7.3f s cpu (model, budgets, nominations)\n"
                 "  decide  %7.3f s wall, %7.3f s cpu (filters on every node + preemption)\n",
                 dump.nodes.size(), dump.pods.size(), load_seconds, load_cpu_seconds, parse,
                 load_cpu_seconds - parse, report.build_seconds, report.build_cpu_seconds,
                 report.decide_seconds, report.decide_cpu_seconds);
  }
  return 0;
}
