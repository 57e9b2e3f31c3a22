// preempt-x-upstream - preempt's side of the speed comparison with kube-scheduler
// (benchmarks/results/x_upstream.sh runs both sides on the same dumps).
//
//   preempt-x-upstream --cluster FILE --pod FILE --expect UPSTREAM_JSON
//                      [--runs R] [--run-seconds S] [--pool-workers W]
//
// UPSTREAM_JSON is the output of tests/conformance's `speed` on the same dump: for each of its
// samplings ("default": upstream's 10% / 100 candidates; or a percentage) the decision
// kube-scheduler took. The dump is read and the model built once (not timed), the preemptor's
// filters run once (whatif::repeated_evaluation); then, per sampling, preempt::evaluator's
// decision must be upstream's (nominated node and victims, in order: else exit 1), and is timed
// on the inline executor and on a thread pool of W workers (default 2; the caller helps too):
// one decision to warm up, 50 ms of decisions to calibrate (unless the warm-up took that
// long), R runs (default 7) of as many decisions as fit in S seconds (default 0.2; at least
// one), the median of the runs' wall-clock ns per decision, and the median of the calling
// thread's processor time per decision (for the inline executor the whole decision, which other
// load on the machine does not inflate; on the pool the caller's share only). Prints JSON. Exit
// status 2 for bad input.
//
// SPDX-License-Identifier: Apache-2.0
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <time.h>

#include "analysis/analysis.hpp"
#include "bench/repeated_evaluation.hpp"
#include "io/input.hpp"
#include "io/loader.hpp"
#include "preempt/thread_pool.hpp"

namespace {

struct expected {
  std::string sampling;  // "default" or a percentage
  std::string node;      // "" when preemption cannot help
  std::vector<std::string> victims;
};

struct timing {
  double ns = 0;
  std::vector<double> runs;
  double cpu_ns = 0;  // the calling thread's processor time, median of the runs
  std::vector<double> cpu_runs;
  std::size_t per_run = 0;
};

// The calling thread's processor time in ns (insensitive to other load on the machine, as long
// as the work stays on this thread: the inline executor's).
double thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

[[noreturn]] void die(int code, const std::string& message) {
  std::fprintf(stderr, "preempt-x-upstream: %s\n", message.c_str());
  std::exit(code);
}

std::vector<expected> read_expected(const std::string& path) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.load(path).get(doc)) die(2, path + ": not a JSON document");
  simdjson::dom::array results;
  if (doc["results"].get_array().get(results))
    die(2, path + ": no results array (the output of `speed`)");
  std::vector<expected> out;
  for (simdjson::dom::element r : results) {
    expected e;
    std::string_view s, node;
    simdjson::dom::array victims;
    if (r["sampling"].get_string().get(s) ||
        r["decision"]["nominatedNodeName"].get_string().get(node) ||
        r["decision"]["victims"].get_array().get(victims))
      die(2, path + ": results[" + std::to_string(out.size()) + "]: needs sampling and decision");
    e.sampling = std::string(s);
    e.node = std::string(node);
    for (simdjson::dom::element v : victims) {
      std::string_view name;
      if (v.get_string().get(name)) die(2, path + ": a victim is not a string");
      e.victims.emplace_back(name);
    }
    out.push_back(std::move(e));
  }
  return out;
}

preempt::sampling_args sampling_of(const std::string& s, const std::string& where) {
  preempt::sampling_args a;  // upstream's defaults
  if (s == "default") return a;
  char* end = nullptr;
  const long v = std::strtol(s.c_str(), &end, 10);
  if (end == s.c_str() || *end != '\0' || v < 1 || v > 100)
    die(2, where + ": sampling " + s + " is neither default nor a percentage in 1..100");
  a.min_candidate_nodes_percentage = static_cast<std::int32_t>(v);
  return a;
}

template <class F>
timing measure(F&& decide, int runs, double run_seconds) {
  using clock = std::chrono::steady_clock;
  auto t0 = clock::now();
  decide();  // warm-up
  double per = std::chrono::duration<double>(clock::now() - t0).count();
  if (per < 0.05) {  // calibration: at least 50 ms of decisions
    t0 = clock::now();
    std::size_t calls = 0;
    for (; calls == 0 || clock::now() - t0 < std::chrono::milliseconds(50); ++calls) decide();
    per = std::chrono::duration<double>(clock::now() - t0).count() / static_cast<double>(calls);
  }
  timing t;
  t.per_run = std::max<std::size_t>(1, static_cast<std::size_t>(run_seconds / std::max(per, 1e-9)));
  for (int r = 0; r < runs; ++r) {
    const double cpu0 = thread_cpu_ns();
    t0 = clock::now();
    for (std::size_t i = 0; i < t.per_run; ++i) decide();
    const double ns = std::chrono::duration<double, std::nano>(clock::now() - t0).count();
    t.runs.push_back(ns / static_cast<double>(t.per_run));
    t.cpu_runs.push_back((thread_cpu_ns() - cpu0) / static_cast<double>(t.per_run));
  }
  t.ns = median(t.runs);
  t.cpu_ns = median(t.cpu_runs);
  return t;
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string json_timing(const timing& t) {
  std::string out = "{\"nsPerDecision\": " + std::to_string(t.ns) +
                    ", \"threadCpuNsPerDecision\": " + std::to_string(t.cpu_ns) +
                    ", \"decisionsPerRun\": " + std::to_string(t.per_run) + ", \"runs\": [";
  for (std::size_t i = 0; i < t.runs.size(); ++i)
    out += (i ? ", " : "") + std::to_string(t.runs[i]);
  out += "], \"threadCpuRuns\": [";
  for (std::size_t i = 0; i < t.cpu_runs.size(); ++i)
    out += (i ? ", " : "") + std::to_string(t.cpu_runs[i]);
  return out + "]}";
}

}  // namespace

int main(int argc, char** argv) {
  std::string cluster, pod_file, expect;
  int runs = 7;
  double run_seconds = 0.2;
  std::size_t pool_workers = 2;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (i + 1 >= argc)
      die(2, std::string(a) + ": missing value (see the header of benchmarks/x_upstream.cpp)");
    const char* v = argv[++i];
    if (a == "--cluster")
      cluster = v;
    else if (a == "--pod")
      pod_file = v;
    else if (a == "--expect")
      expect = v;
    else if (a == "--runs")
      runs = std::atoi(v);
    else if (a == "--run-seconds")
      run_seconds = std::atof(v);
    else if (a == "--pool-workers")
      pool_workers = static_cast<std::size_t>(std::atoi(v));
    else
      die(2, "unknown option " + std::string(a));
  }
  if (cluster.empty() || pod_file.empty() || expect.empty())
    die(2, "--cluster, --pod and --expect are required");
  if (runs < 1 || run_seconds <= 0 || pool_workers < 1)
    die(2, "--runs, --run-seconds and --pool-workers must be positive");
  const std::vector<expected> want = read_expected(expect);

  whatif::loader loader;
  whatif::cluster_dump dump;
  whatif::pod_object pod;
  constexpr std::uint64_t max_size = std::uint64_t{16} << 30;
  {
    whatif::source src;
    if (auto e = whatif::read_source(cluster, max_size, src)) die(2, e->message);
    if (auto e = loader.add_cluster(src, dump)) die(2, e->message);
  }
  {
    whatif::source src;
    if (auto e = whatif::read_source(pod_file, max_size, src)) die(2, e->message);
    if (auto e = loader.read_pod(src, pod)) die(2, e->message);
  }
  whatif::analysis analysis;
  if (auto e = analysis.build(dump)) die(2, e->message);
  preempt::thread_pool pool(pool_workers);

  std::string out = "{\n  \"nodes\": " + std::to_string(dump.nodes.size()) +
                    ",\n  \"pods\": " + std::to_string(dump.pods.size()) +
                    ",\n  \"poolWorkers\": " + std::to_string(pool_workers) + ",\n  \"results\": [";
  for (std::size_t k = 0; k < want.size(); ++k) {
    const expected& w = want[k];
    whatif::options opts;
    opts.sampling = sampling_of(w.sampling, expect);
    whatif::repeated_evaluation ev;
    if (auto e = ev.prepare(analysis, pod, opts)) die(2, e->message);
    for (const bool on_pool : {false, true}) {
      if (on_pool)
        ev.evaluate_on(pool);
      else
        ev.evaluate_inline();
      if (ev.nominated_node() != w.node || ev.victims() != w.victims) {
        std::string got;
        for (const auto& v : ev.victims()) got += " " + v;
        std::string exp;
        for (const auto& v : w.victims) exp += " " + v;
        die(1, "sampling " + w.sampling + (on_pool ? " (pool)" : " (inline)") +
                   ": preempt nominates '" + ev.nominated_node() + "' evicting" + got +
                   "; upstream nominates '" + w.node + "' evicting" + exp);
      }
    }
    const std::size_t evaluated = ev.nodes_evaluated();
    const timing inl = measure([&] { (void)ev.evaluate_inline(); }, runs, run_seconds);
    const timing pl = measure([&] { (void)ev.evaluate_on(pool); }, runs, run_seconds);
    out += std::string(k ? "," : "") + "\n    {\"sampling\": " + json_string(w.sampling) +
           ", \"nominatedNodeName\": " + json_string(w.node) +
           ", \"victims\": " + std::to_string(w.victims.size()) +
           ", \"nodesEvaluated\": " + std::to_string(evaluated) +
           ",\n     \"inline\": " + json_timing(inl) + ",\n     \"pool\": " + json_timing(pl) + "}";
  }
  out += "\n  ]\n}\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}
