// preempt-whatif - which node would kube-scheduler nominate for a pending pod, whom would it
// evict, and why? Answers from a cluster dump, with the preempt library.
//
//   kubectl get nodes,pods,pdb,priorityclasses -A -o json > cluster.json
//   preempt-whatif --cluster cluster.json --pod pod.json [--output text|json] [--offset N]
//                  [--min-candidate-nodes-percentage P] [--min-candidate-nodes-absolute A]
//   preempt-whatif --cluster cluster.json --pod-name NAMESPACE/NAME
//   preempt-whatif --cluster cluster.json --all-pending     # every pending pod, in queue order
//   preempt-whatif --cluster cluster.json --pod-group NAMESPACE/NAME  # a pending PodGroup
//   preempt-whatif                 # the bundled example (examples/data/), explained
//   kubectl preempt-whatif --pod-name NAMESPACE/NAME        # as a kubectl plugin: reads the
//                                  # current context's cluster through kubectl
//
// Inputs are JSON or YAML, files or streams (`-` reads standard input). Nodes are taken in input
// order; --offset N starts the dry run at the N-th node preemption may help (upstream draws it at
// random), 0 by default, so the answer is deterministic. Exit status (exit_statuses below, also in
// --help): 0 for every decision taken as kube-scheduler takes it (nominated, fits, not-eligible,
// unschedulable), 2 for bad input, with one message naming the file, the object and the field, 3
// for a decision that depends on something kube-scheduler reads and the tool does not model (the
// output names each in `notModelled` and the warnings).
//
// SPDX-License-Identifier: Apache-2.0
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "bundled_data.hpp"
#include "kubectl.hpp"
#include "loader.hpp"
#include "one_line.hpp"
#include "output.hpp"
#include "preempt/sampling.hpp"
#include "stopwatch.hpp"
#include "whatif.hpp"

namespace {

constexpr int exit_decided = 0;
constexpr int exit_bad_input = 2;
constexpr int exit_not_modelled = 3;

constexpr const char* exit_statuses =
    "Exit status:\n"
    "  0  decided as kube-scheduler decides (nominated, fits, not-eligible, unschedulable, ...)\n"
    "  2  bad input or command line: one line on stderr names the file, the object and the field\n"
    "  3  decided, but the answer depends on something kube-scheduler reads that the tool does\n"
    "     not model: each is named in the output (warnings \"not modelled: ...\", JSON "
    "notModelled)";

int bad_input(const std::string& message) {
  std::cerr << "preempt-whatif: " << whatif::one_line(message) << "\n";
  return exit_bad_input;
}

struct command_line {
  std::vector<std::string> cluster_files;
  std::string pod_file, pod_name, pod_group, output = "text", offset = "0", max_input_size;
  std::string scheduler_name{whatif::default_scheduler_name};
  bool all_pending = false;
  bool timings = false;
  preempt::sampling_args sampling;
  bool plugin = false;  // started as kubectl-preempt_whatif

  bool bundled() const {
    return !plugin && cluster_files.empty() && pod_file.empty() && pod_name.empty() &&
           pod_group.empty() && !all_pending;
  }
  bool from_kubectl() const { return plugin && cluster_files.empty(); }
};

// Parses the command line into `cl`; an exit status when the program is done (help, errors).
std::optional<int> parse_command_line(int argc, char** argv, command_line& cl) {
  cl.plugin = argc > 0 && whatif::invoked_as_kubectl_plugin(argv[0]);
  CLI::App app{
      "What would kube-scheduler's preemption do for a pending pod? Reads a cluster dump\n"
      "(kubectl get nodes,pods,pdb,priorityclasses -A -o json, or -o yaml) and a pod, and "
      "explains\n"
      "the decision: the nominated node, the victims, and why. Without arguments it runs on a\n"
      "bundled example. Installed as kubectl-preempt_whatif it is a kubectl plugin that reads the\n"
      "current context's cluster through kubectl unless --cluster is given.",
      cl.plugin ? "kubectl preempt-whatif" : "preempt-whatif"};
  app.footer(exit_statuses);
  app.add_option("--cluster", cl.cluster_files,
                 "Cluster dump(s): kubectl lists or objects, JSON or YAML; '-' reads stdin")
      ->type_name("FILE");
  auto* pod_opt =
      app.add_option("--pod", cl.pod_file, "The pod to place (a Pod object); '-' reads stdin")
          ->type_name("FILE");
  auto* name_opt =
      app.add_option("--pod-name", cl.pod_name, "Take the pending pod NAMESPACE/NAME from the dump")
          ->type_name("NAMESPACE/NAME")
          ->excludes(pod_opt);
  auto* all_opt =
      app.add_flag("--all-pending", cl.all_pending,
                   "Decide for every pending pod of the dump, in the scheduler's queue order")
          ->excludes(pod_opt)
          ->excludes(name_opt);
  app.add_option("--pod-group", cl.pod_group,
                 "Decide for the pending PodGroup NAMESPACE/NAME of the dump (workload-aware "
                 "preemption; the tool places the group first fit, see the README)")
      ->type_name("NAMESPACE/NAME")
      ->excludes(pod_opt)
      ->excludes(name_opt)
      ->excludes(all_opt);
  app.add_option("--output,-o", cl.output, "text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  app.add_option("--scheduler-name", cl.scheduler_name,
                 "Decide as this scheduler (profile) does: only its pending pods are nominated, "
                 "and a pod of another scheduler is not decided for (default default-scheduler)")
      ->type_name("NAME");
  app.add_option("--offset", cl.offset,
                 "Start the dry run at this index among the nodes preemption may help (default 0; "
                 "less than the number of nodes)")
      ->type_name("N");
  app.add_option("--min-candidate-nodes-percentage", cl.sampling.min_candidate_nodes_percentage,
                 "DefaultPreemptionArgs.minCandidateNodesPercentage (default 10)");
  app.add_option("--min-candidate-nodes-absolute", cl.sampling.min_candidate_nodes_absolute,
                 "DefaultPreemptionArgs.minCandidateNodesAbsolute (default 100)");
  app.add_option("--max-input-size", cl.max_input_size,
                 "Largest input read, per file or stream (default 4GiB; K, M, G, T suffixes)")
      ->type_name("SIZE");
  app.add_flag("--timings", cl.timings, "Print load, build and decide times to stderr");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    return bad_input(std::string(e.what()) + " (see --help)");
  }
  return std::nullopt;
}

// Checks what CLI11 cannot: combinations, --offset, --max-input-size.
std::optional<int> check_command_line(const command_line& cl, std::uint64_t& offset,
                                      std::uint64_t& max_size) {
  if (const std::string invalid = preempt::validate(cl.sampling); !invalid.empty())
    return bad_input(invalid);
  if (cl.scheduler_name.empty())
    return bad_input("--scheduler-name: must not be empty (see --help)");
  if (!cl.offset.empty() && cl.offset.front() == '-')
    return bad_input("--offset: must not be negative (see --help)");
  const auto [end, ec] =
      std::from_chars(cl.offset.data(), cl.offset.data() + cl.offset.size(), offset);
  if (ec == std::errc::result_out_of_range)
    return bad_input("--offset " + cl.offset +
                     ": out of range (it must be less than the number of nodes)");
  if (ec != std::errc() || end != cl.offset.data() + cl.offset.size())
    return bad_input("--offset: not a number: \"" + whatif::clip(cl.offset) + "\" (see --help)");
  max_size = whatif::default_max_input_size;
  if (!cl.max_input_size.empty()) {
    const auto parsed = whatif::parse_size(cl.max_input_size);
    if (!parsed)
      return bad_input("--max-input-size: invalid size \"" + whatif::clip(cl.max_input_size) +
                       "\" (expected bytes, or a number with K, M, G or T, e.g. 8G)");
    max_size = *parsed;
  }
  if (cl.bundled()) return std::nullopt;
  if (cl.cluster_files.empty() && !cl.from_kubectl())
    return bad_input("--cluster is required (see --help)");
  if (cl.pod_file.empty() && cl.pod_name.empty() && cl.pod_group.empty() && !cl.all_pending)
    return bad_input(
        "one of --pod, --pod-name, --pod-group or --all-pending is required (see --help)");
  std::size_t stdin_uses = cl.pod_file == "-" ? 1u : 0u;
  for (const std::string& f : cl.cluster_files) stdin_uses += f == "-" ? 1u : 0u;
  if (stdin_uses > 1) return bad_input("'-' (standard input) can be used only once");
  return std::nullopt;
}

struct loaded {
  whatif::loader loader;
  whatif::cluster_dump dump;
  whatif::pod_object pod;  // with --pod or --pod-name
  std::string origin;      // shown in the text output's header
};

std::optional<whatif::load_error> load_inputs(const command_line& cl, std::uint64_t max_size,
                                              loaded& in) {
  if (cl.bundled()) {
    in.origin = "bundled example: examples/data/cluster.json and examples/data/pod.json";
    const auto cluster =
        whatif::make_source("examples/data/cluster.json", whatif::bundled_cluster());
    if (auto e = in.loader.add_cluster(cluster, in.dump)) return e;
    const auto p = whatif::make_source("examples/data/pod.json", whatif::bundled_pod());
    return in.loader.read_pod(p, in.pod);
  }
  if (cl.from_kubectl()) {
    in.origin = "the current kubectl context";
    whatif::source src;
    if (auto e = whatif::read_kubectl(whatif::kubectl_get_arguments(), max_size, src)) return e;
    if (auto e = in.loader.add_cluster(src, in.dump)) return e;
    whatif::source devices;
    if (auto e = whatif::read_kubectl(whatif::kubectl_get_devices_arguments(), max_size, devices))
      in.dump.dra.not_read = e->message;  // pods that claim devices are refused
    else if (auto e2 = in.loader.add_cluster(devices, in.dump))
      return e2;
  }
  for (const std::string& f : cl.cluster_files) {
    whatif::open_input src;
    if (auto e = whatif::open_source(f, max_size, in.loader.stream_window_size(), src)) return e;
    if (auto e = in.loader.add_cluster(src, in.dump, max_size)) return e;
  }
  if (!cl.pod_file.empty()) {
    whatif::source src;
    if (auto e = whatif::read_source(cl.pod_file, max_size, src)) return e;
    return in.loader.read_pod(src, in.pod);
  }
  if (!cl.pod_name.empty()) return whatif::find_pending_pod(in.dump, cl.pod_name, in.pod);
  return std::nullopt;
}

void print(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

void print_timings(const loaded& in, double load_wall, double load_cpu, const whatif::analysis& a,
                   double decide_wall, double decide_cpu, std::size_t decisions) {
  const double parse = in.loader.parse_cpu_seconds();
  std::fprintf(stderr,
               "preempt-whatif: %zu nodes, %zu pods\n"
               "  load    %7.3f s wall, %7.3f s cpu (parse %.3f s cpu, read + decode %.3f s cpu)\n"
               "  build   %7.3f s wall, %7.3f s cpu (model, budgets, nominations)\n"
               "  decide  %7.3f s wall, %7.3f s cpu (filters on every node + preemption, %zu "
               "decision%s)\n",
               in.dump.nodes.size(), in.dump.pods.size(), load_wall, load_cpu, parse,
               load_cpu - parse, a.build_seconds(), a.build_cpu_seconds(), decide_wall, decide_cpu,
               decisions, decisions == 1 ? "" : "s");
}

}  // namespace

int main(int argc, char** argv) {
  command_line cl;
  if (auto done = parse_command_line(argc, argv, cl)) return *done;
  std::uint64_t offset = 0, max_size = 0;
  if (auto done = check_command_line(cl, offset, max_size)) return *done;

  const whatif::stopwatch load_clock;
  loaded in;
  if (auto e = load_inputs(cl, max_size, in)) return bad_input(e->message);
  const double load_wall = load_clock.wall_seconds(), load_cpu = load_clock.cpu_seconds();
  if (offset > 0 && offset >= in.dump.nodes.size())
    return bad_input(
        "--offset " + cl.offset + ": out of range: the dump has " +
        std::to_string(in.dump.nodes.size()) + " node(s), so the offset is at most " +
        (in.dump.nodes.empty() ? std::string("0") : std::to_string(in.dump.nodes.size() - 1)));

  whatif::analysis analysis;
  if (auto e = analysis.build(in.dump, cl.scheduler_name)) return bad_input(e->message);
  whatif::options opts;
  opts.sampling = cl.sampling;
  opts.offset = static_cast<std::size_t>(offset);
  opts.now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();

  const whatif::stopwatch decide_clock;
  std::vector<whatif::report> reports;
  bool not_modelled = false;
  if (!cl.pod_group.empty()) {
    whatif::group_report r;
    if (auto e = analysis.decide_group(cl.pod_group, opts, r)) return bad_input(e->message);
    not_modelled = !r.not_modelled.empty();
    print(cl.output == "json" ? whatif::to_json(r) : whatif::to_text(r, in.origin));
  } else if (cl.all_pending) {
    for (std::size_t i : analysis.pending_in_queue_order()) {
      reports.emplace_back();
      if (auto e = analysis.decide(in.dump.pods[i], opts, reports.back()))
        return bad_input(e->message);
    }
    print(cl.output == "json" ? whatif::to_json(reports)
                              : whatif::to_text_table(reports, in.origin));
  } else {
    reports.emplace_back();
    if (auto e = analysis.decide(in.pod, opts, reports.back())) return bad_input(e->message);
    print(cl.output == "json" ? whatif::to_json(reports.back())
                              : whatif::to_text(reports.back(), in.origin));
  }
  for (const whatif::report& r : reports) not_modelled = not_modelled || !r.not_modelled.empty();
  if (cl.timings)
    print_timings(in, load_wall, load_cpu, analysis, decide_clock.wall_seconds(),
                  decide_clock.cpu_seconds(), reports.size());
  // The model's memory goes back with the process: freeing 150,000 pods one by one would take a
  // tenth of a second more.
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(not_modelled ? exit_not_modelled : exit_decided);
}
