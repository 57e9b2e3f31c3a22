// preempt-whatif - which node would kube-scheduler nominate for a pending pod, whom would it
// evict, and why? Answers from a cluster dump, with the preempt library.
//
//   kubectl get <every kind the tool reads that the cluster serves> -A -o json > cluster.json
//                                  # (the line is in examples/whatif/README.md)
//   preempt-whatif --cluster cluster.json --pod pod.json [--output text|json] [--offset N]
//                  [--min-candidate-nodes-percentage P] [--min-candidate-nodes-absolute A]
//   preempt-whatif --cluster cluster.json --pod-name [NAMESPACE/]NAME [-n NAMESPACE]
//   preempt-whatif --cluster cluster.json --pod-name NAMESPACE/NAME --offsets all
//                                  # the decision at every start kube-scheduler may draw
//   preempt-whatif --cluster cluster.json --all-pending     # every pending pod, each on its own
//   preempt-whatif --cluster cluster.json --plan            # every pending pod, one after another
//   preempt-whatif --cluster cluster.json --pod-group NAMESPACE/NAME  # a pending PodGroup
//   preempt-whatif                 # the bundled example (examples/data/), explained
//   kubectl preempt-whatif --pod-name NAME [--context C] [--kubeconfig F] [-n NAMESPACE]
//                  [--request-timeout D]  # as a kubectl plugin: reads the cluster through kubectl
//
// Inputs are JSON or YAML, files or streams (`-` reads standard input). Nodes are taken in input
// order; --offset N starts the dry run at the N-th node preemption may help (upstream draws it at
// random), 0 by default, so the answer is deterministic. Exit status (exit_statuses below, also in
// --help and examples/whatif/README.md): 0 for every decision taken as kube-scheduler takes it
// (nominated, fits, not-eligible, unschedulable, ...) and for --help, 2 for bad input, a bad
// command line or a failed kubectl, with one message naming the file, the object and the field,
// 3 for a decision that depends on something kube-scheduler reads and the tool does not model
// (the output names each in `notModelled` and the warnings). No other status is used.
//
// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
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

#include "analysis/analysis.hpp"
#include "analysis/offsets.hpp"
#include "analysis/plan.hpp"
#include "analysis/policies.hpp"
#include "bundled_data.hpp"
#include "decode/admission.hpp"
#include "decode/kinds.hpp"
#include "io/kubectl.hpp"
#include "io/loader.hpp"
#include "output/offsets_output.hpp"
#include "output/one_line.hpp"
#include "output/output.hpp"
#include "output/pending_output.hpp"
#include "output/plan_output.hpp"
#include "output/policies_output.hpp"
#include "preempt/sampling.hpp"
#include "stopwatch.hpp"

namespace {

constexpr int exit_decided = 0;
constexpr int exit_bad_input = 2;
constexpr int exit_not_modelled = 3;

constexpr const char* exit_statuses =
    "Exit status:\n"
    "  0  decided as kube-scheduler decides (nominated, fits, not-eligible, unschedulable, ...);\n"
    "     also --help\n"
    "  2  bad input, command line or kubectl run: one line on stderr names the file, the object\n"
    "     and the field (or the option, or the kubectl command and its error)\n"
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
  std::string offsets;  // --offsets all
  std::string scheduler_name{whatif::default_scheduler_name};
  bool all_pending = false;
  bool plan = false;  // --plan
  bool timings = false;
  bool complete_dump = false;
  preempt::sampling_args sampling;
  bool plugin = false;              // started as kubectl-preempt_whatif
  whatif::kubectl_options kubectl;  // passed through to kubectl
  whatif::policy_flags policy;      // --kubernetes-version, --policy, ... (policies.hpp)

  bool bundled() const {
    return !plugin && cluster_files.empty() && pod_file.empty() && pod_name.empty() &&
           pod_group.empty() && !all_pending && !plan;
  }
  bool from_kubectl() const { return plugin && cluster_files.empty(); }
};

// Parses the command line into `cl`; an exit status when the program is done (help, errors).
std::optional<int> parse_command_line(int argc, char** argv, command_line& cl) {
  cl.plugin = argc > 0 && whatif::invoked_as_kubectl_plugin(argv[0]);
  CLI::App app{
      "What would kube-scheduler's preemption do for a pending pod? Reads a cluster dump\n"
      "(kubectl get ... -A -o json, or -o yaml: see the README for the kinds) and a pod, and "
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
      app.add_option("--pod-name", cl.pod_name,
                     "Take the pending pod NAMESPACE/NAME (or NAME, see -n) from the dump")
          ->type_name("[NAMESPACE/]NAME")
          ->excludes(pod_opt);
  auto* all_opt =
      app.add_flag("--all-pending", cl.all_pending,
                   "Decide for every pending pod of the dump, in the scheduler's queue order")
          ->excludes(pod_opt)
          ->excludes(name_opt);
  auto* plan_opt =
      app.add_flag("--plan", cl.plan,
                   "Decide for every pending pod in the scheduler's queue order, each decision "
                   "applied before the next (see the README); --all-pending decides each on its "
                   "own against the same cluster")
          ->excludes(pod_opt)
          ->excludes(name_opt);
  auto* group_opt =
      app.add_option("--pod-group", cl.pod_group,
                     "Decide for the pending PodGroup NAMESPACE/NAME (or NAME, see -n) of the dump "
                     "(workload-aware preemption; the tool places the group first fit, see the "
                     "README)")
          ->type_name("[NAMESPACE/]NAME")
          ->excludes(pod_opt)
          ->excludes(name_opt)
          ->excludes(all_opt)
          ->excludes(plan_opt);
  app.add_option("--namespace,-n", cl.kubectl.ns,
                 "The namespace of --pod-name NAME and --pod-group NAME (as in kubectl; without it "
                 "the plugin takes the current context's, the tool \"default\")")
      ->type_name("NAMESPACE");
  app.add_option("--context", cl.kubectl.context,
                 "The kubeconfig context kubectl reads the cluster from (plugin)")
      ->type_name("NAME");
  app.add_option("--kubeconfig", cl.kubectl.kubeconfig, "The kubeconfig file kubectl uses (plugin)")
      ->type_name("FILE");
  app.add_option("--request-timeout", cl.kubectl.request_timeout,
                 "kubectl's --request-timeout for each request (plugin)")
      ->type_name("DURATION");
  app.add_option("--output,-o", cl.output, "text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  app.add_option("--scheduler-name", cl.scheduler_name,
                 "Decide as this scheduler (profile) does: only its pending pods are nominated, "
                 "and a pod of another scheduler is not decided for (default default-scheduler)")
      ->type_name("NAME");
  auto* offset_opt =
      app.add_option("--offset", cl.offset,
                     "Start the dry run at this index among the nodes preemption may help (default "
                     "0; less than the number of nodes)")
          ->type_name("N");
  app.add_option("--offsets", cl.offsets,
                 "all: the decision at every start offset kube-scheduler may draw, as the "
                 "distribution of outcomes (with --pod or --pod-name)")
      ->type_name("all")
      ->check(CLI::IsMember({"all"}))
      ->excludes(offset_opt)
      ->excludes(all_opt)
      ->excludes(plan_opt)
      ->excludes(group_opt);
  app.add_option("--min-candidate-nodes-percentage", cl.sampling.min_candidate_nodes_percentage,
                 "DefaultPreemptionArgs.minCandidateNodesPercentage (default 10)");
  app.add_option("--min-candidate-nodes-absolute", cl.sampling.min_candidate_nodes_absolute,
                 "DefaultPreemptionArgs.minCandidateNodesAbsolute (default 100)");
  app.add_option("--max-input-size", cl.max_input_size,
                 "Largest input read, per file or stream (default 4GiB; K, M, G, T suffixes)")
      ->type_name("SIZE");
  app.add_flag("--timings", cl.timings, "Print load, build and decide times to stderr");
  app.add_option("--kubernetes-version", cl.policy.kubernetes_version,
                 "Decide as this kube-scheduler release: 1.37 (default) or 1.38 (its merged "
                 "preemption changes; see the README)")
      ->type_name("VERSION");
  app.add_option("--policy", cl.policy.policies,
                 "Opt-in policies beyond upstream, combinable: spare-reschedulable, min-cost, "
                 "hard-budgets. The output sets the default decision beside the policies'")
      ->delimiter(',')
      ->type_name("POLICY[,POLICY...]");
  app.add_option("--victim-cost", cl.policy.victim_cost,
                 "min-cost's cost of a pod: a non-negative integer in this label or annotation "
                 "(1 when absent)")
      ->type_name("label:KEY|annotation:KEY");
  app.add_option("--min-runtime", cl.policy.min_runtime,
                 "A pod that has run for less is no victim (e.g. 90s, 10m, 1h30m); compared "
                 "with the default decision like a policy")
      ->type_name("DURATION");
  app.add_flag("--victim-reasons", cl.policy.victim_reasons,
               "Per victim, the filter condition its eviction relieves (which resource and how "
               "much, which port, which term)");
  app.add_flag("--complete-dump", cl.complete_dump,
               "The dump holds every object of every kind the tool reads that the cluster serves "
               "(it was made with the README's kubectl command): a kind it holds no object of has "
               "none in the cluster. Without it, where kube-scheduler would read objects of a kind "
               "the dump holds none of (LimitRanges, RuntimeClasses, Namespaces, claims, ...), the "
               "decision is refused (exit 3). The kubectl plugin knows the kinds it read");
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
  if (!cl.from_kubectl()) {
    const std::pair<const char*, const std::string*> kubectl_only[] = {
        {"--context", &cl.kubectl.context},
        {"--kubeconfig", &cl.kubectl.kubeconfig},
        {"--request-timeout", &cl.kubectl.request_timeout}};
    for (const auto& [flag, value] : kubectl_only)
      if (!value->empty())
        return bad_input(std::string(flag) +
                         ": only for reading the cluster through kubectl (the kubectl plugin "
                         "without --cluster)");
  }
  if (cl.bundled()) return std::nullopt;
  if (cl.cluster_files.empty() && !cl.from_kubectl())
    return bad_input("--cluster is required (see --help)");
  if (cl.pod_file.empty() && cl.pod_name.empty() && cl.pod_group.empty() && !cl.all_pending &&
      !cl.plan)
    return bad_input(
        "one of --pod, --pod-name, --pod-group, --all-pending or --plan is required (see --help)");
  if ((cl.policy.compare() || !cl.policy.victim_cost.empty()) &&
      (cl.all_pending || cl.plan || !cl.pod_group.empty() || !cl.offsets.empty()))
    return bad_input(
        "--policy, --victim-cost and --min-runtime compare one pod's decision: use them with "
        "--pod or --pod-name (see --help)");
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
  in.dump.complete_dump = cl.complete_dump;
  if (cl.bundled()) {
    in.origin = "bundled example: examples/data/cluster.json and examples/data/pod.json";
    in.dump.complete_dump = true;  // the example's whole cluster
    const auto cluster =
        whatif::make_source("examples/data/cluster.json", whatif::bundled_cluster());
    if (auto e = in.loader.add_cluster(cluster, in.dump)) return e;
    const auto p = whatif::make_source("examples/data/pod.json", whatif::bundled_pod());
    if (auto e = in.loader.read_pod(p, in.pod)) return e;
    return whatif::admit(in.dump, in.pod);
  }
  if (cl.from_kubectl()) {
    in.origin = cl.kubectl.context.empty() ? "the current kubectl context"
                                           : "kubectl context " + cl.kubectl.context;
    if (auto e = whatif::read_cluster_through_kubectl(cl.kubectl, max_size, in.loader, in.dump,
                                                      in.dump.input_warnings))
      return e;
  }
  for (const std::string& f : cl.cluster_files) {
    whatif::open_input src;
    if (auto e = whatif::open_source(f, max_size, in.loader.stream_window_size(), src)) return e;
    if (auto e = in.loader.add_cluster(src, in.dump, max_size)) return e;
  }
  if (!cl.pod_file.empty()) {
    whatif::source src;
    if (auto e = whatif::read_source(cl.pod_file, max_size, src)) return e;
    if (auto e = in.loader.read_pod(src, in.pod)) return e;
    return whatif::admit(in.dump, in.pod);  // as the API server would store it
  }
  if (!cl.pod_name.empty()) return whatif::find_pending_pod(in.dump, cl.pod_name, in.pod);
  return std::nullopt;
}

// --pod-name and --pod-group as NAMESPACE/NAME: a NAME alone is in -n's namespace, else (as kubectl
// has it) the current context's when the cluster is read through kubectl, else "default".
std::optional<int> qualify_names(command_line& cl) {
  std::string context_namespace;
  const std::pair<const char*, std::string*> names[] = {{"--pod-name", &cl.pod_name},
                                                        {"--pod-group", &cl.pod_group}};
  for (const auto& [flag, name] : names) {
    if (name->empty()) continue;
    const std::size_t slash = name->find('/');
    if (slash != std::string::npos) {
      if (!cl.kubectl.ns.empty() && name->substr(0, slash) != cl.kubectl.ns)
        return bad_input(std::string(flag) + " " + *name +
                         ": its namespace is not the one -n/--namespace names (" + cl.kubectl.ns +
                         ")");
      continue;
    }
    std::string ns = cl.kubectl.ns;
    if (ns.empty() && cl.from_kubectl()) {
      if (context_namespace.empty())
        if (auto e = whatif::kubectl_namespace(cl.kubectl, context_namespace))
          return bad_input(e->message);
      ns = context_namespace;
    }
    *name = (ns.empty() ? std::string("default") : ns) + "/" + *name;
  }
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
               "preempt-whatif: %zu nodes, %zu pods (%zu of %zu input%s read a window at a time)\n"
               "  load    %7.3f s wall, %7.3f s cpu (parse %.3f s cpu, read + decode %.3f s cpu)\n"
               "  build   %7.3f s wall, %7.3f s cpu (model, budgets, nominations)\n"
               "  decide  %7.3f s wall, %7.3f s cpu (filters on every node + preemption, %zu "
               "decision%s)\n",
               in.dump.nodes.size(), in.dump.pods.size(), in.loader.streamed_inputs(),
               in.dump.files.size(), in.dump.files.size() == 1 ? "" : "s", load_wall, load_cpu,
               parse, load_cpu - parse, a.build_seconds(), a.build_cpu_seconds(), decide_wall,
               decide_cpu, decisions, decisions == 1 ? "" : "s");
}

}  // namespace

int main(int argc, char** argv) {
  command_line cl;
  if (auto done = parse_command_line(argc, argv, cl)) return *done;
  std::uint64_t offset = 0, max_size = 0;
  if (auto done = check_command_line(cl, offset, max_size)) return *done;
  if (auto done = qualify_names(cl)) return *done;

  const whatif::stopwatch load_clock;
  loaded in;
  whatif::options opts;
  if (auto e = whatif::apply_policy_flags(cl.policy, opts)) return bad_input(*e);
  whatif::kinds::read_extra_fields(
      {.cost_annotation = opts.cost_from_annotation ? opts.cost_key : std::string(),
       .bound_pods_placement = opts.policies.spare_reschedulable});
  if (auto e = load_inputs(cl, max_size, in)) return bad_input(e->message);
  const double load_wall = load_clock.wall_seconds(), load_cpu = load_clock.cpu_seconds();
  if (offset > 0 && offset >= in.dump.nodes.size())
    return bad_input(
        "--offset " + cl.offset + ": out of range: the dump has " +
        std::to_string(in.dump.nodes.size()) + " node(s), so the offset is at most " +
        (in.dump.nodes.empty() ? std::string("0") : std::to_string(in.dump.nodes.size() - 1)));

  whatif::analysis analysis;
  if (auto e = analysis.build(in.dump, cl.scheduler_name, opts.profile))
    return bad_input(e->message);
  opts.sampling = cl.sampling;
  opts.offset = static_cast<std::size_t>(offset);
  opts.now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();

  const whatif::stopwatch decide_clock;
  std::vector<whatif::report> reports;
  std::size_t decisions = 0;  // besides `reports` (--offsets all: one per offset)
  bool not_modelled = false;
  if (!cl.pod_group.empty()) {
    whatif::group_report r;
    if (auto e = analysis.decide_group(cl.pod_group, opts, r)) return bad_input(e->message);
    not_modelled = !r.not_modelled.empty();
    print(cl.output == "json" ? whatif::to_json(r) : whatif::to_text(r, in.origin));
  } else if (cl.plan) {
    whatif::plan_result p;
    if (auto e = whatif::make_plan(analysis, in.dump, opts, p)) return bad_input(e->message);
    not_modelled = !p.not_modelled.empty();
    decisions = p.steps.size();
    print(cl.output == "json" ? whatif::to_json(p) : whatif::to_text(p, in.origin));
  } else if (cl.all_pending) {
    for (std::size_t i : analysis.pending_in_queue_order()) {
      reports.emplace_back();
      if (auto e = analysis.decide(in.dump.pods[i], opts, reports.back()))
        return bad_input(e->message);
    }
    print(cl.output == "json" ? whatif::to_json(reports)
                              : whatif::to_text_table(reports, in.origin));
  } else if (!cl.offsets.empty()) {
    whatif::offset_distribution d;
    if (auto e = whatif::decide_every_offset(analysis, in.pod, opts, d))
      return bad_input(e->message);
    not_modelled = !d.decision.not_modelled.empty();
    decisions = std::max<std::size_t>(d.decision.evaluation_order.size(), 1);
    print(cl.output == "json" ? whatif::to_json(d) : whatif::to_text(d, in.origin));
  } else if (cl.policy.compare()) {
    whatif::policy_comparison c;
    c.flags = cl.policy;
    c.kubernetes_version = std::string(preempt::to_string(opts.profile));
    whatif::options upstream = opts;
    upstream.policies = {};
    if (auto e = analysis.decide(in.pod, upstream, c.upstream)) return bad_input(e->message);
    if (auto e = analysis.decide(in.pod, opts, c.with_policies)) return bad_input(e->message);
    not_modelled = !c.upstream.not_modelled.empty() || !c.with_policies.not_modelled.empty();
    decisions = 2;
    print(cl.output == "json" ? whatif::to_json(c) : whatif::to_text(c, in.origin));
  } else {
    reports.emplace_back();
    if (auto e = analysis.decide(in.pod, opts, reports.back())) return bad_input(e->message);
    print(cl.output == "json" ? whatif::to_json(reports.back())
                              : whatif::to_text(reports.back(), in.origin));
  }
  for (const whatif::report& r : reports) not_modelled = not_modelled || !r.not_modelled.empty();
  if (cl.timings)
    print_timings(in, load_wall, load_cpu, analysis, decide_clock.wall_seconds(),
                  decide_clock.cpu_seconds(), reports.size() + decisions);
  // The model's memory goes back with the process: freeing 150,000 pods one by one would take a
  // tenth of a second more.
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(not_modelled ? exit_not_modelled : exit_decided);
}
