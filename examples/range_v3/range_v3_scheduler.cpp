// examples/range_v3/range_v3_scheduler.cpp - a scheduler's own containers, read by preempt
// through range-v3 views: nothing copied, no wrapper types to keep in step.
//
// A batch scheduler keeps one table of jobs (queued, running and finished ones, each naming its
// machine) and a list of machines. preempt reads them as they are:
//   * a job is a pod through preempt::pod_traits<job> (its fields, a std::chrono start time);
//   * a machine is a node whose pods() is a range-v3 view of the job table: the jobs running on
//     it (views::filter), evaluated lazily each time the library walks the node;
//   * the cluster's nodes are a range-v3 view of the machine list (views::transform), each node
//     made on the fly from its index; its node state tracks free CPU and memory;
//   * each machine's filter outcome for the pending job (upstream's NodeToStatus) is a lazy
//     views::transform of the machine list: a drained machine cannot be helped by preemption;
// and the decision is read with range-v3 (the victims' names joined, what evicting them frees).
//
// The run below nominates m2 and evicts batch-2: m1 would need two evictions up to priority 50;
// m3 would need only scratch (priority 0) but is drained; finished jobs hold nothing. The program
// prints the decision and exits 1 if it is another (ctest runs it: examples.range_v3).
// tests/range_v3/range_v3.test.cpp checks the same kinds of adaptation, any_view included.
//
// SPDX-License-Identifier: Apache-2.0
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <range/v3/numeric/accumulate.hpp>
#include <range/v3/range/conversion.hpp>
#include <range/v3/view/filter.hpp>
#include <range/v3/view/join.hpp>
#include <range/v3/view/transform.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "preempt/preempt.hpp"

// ---- The scheduler's own types, as it has them
// ---------------------------------------------------
namespace batch {

enum class job_state { queued, running, finished };

struct job {
  std::string name;
  int priority = 0;
  std::int64_t cpu_m = 0;    // millicores
  std::int64_t mem_mib = 0;  // MiB
  std::chrono::sys_seconds started{};
  job_state state = job_state::queued;
  std::size_t machine = 0;  // where it runs (running jobs only)
};

struct machine {
  std::string hostname;
  std::int64_t cpu_m = 0;
  std::int64_t mem_mib = 0;
  bool drained = false;
};

struct scheduler {
  std::vector<job> jobs;  // every job it knows of
  std::vector<machine> machines;
};

}  // namespace batch

// ---- The adaptation
// ------------------------------------------------------------------------------

// A job is a pod: its name is its identity (an owning std::string), its start a chrono time point.
template <>
struct preempt::pod_traits<batch::job> {
  static const std::string& uid(const batch::job& j) { return j.name; }
  static int priority(const batch::job& j) { return j.priority; }
  static auto start_time(const batch::job& j) { return j.started; }
  static bool terminating_by_preemption(const batch::job&) { return false; }
};

namespace batch {

// A machine as preempt's node: its pods are the jobs running on it, a filter over the job table.
struct machine_node {
  const scheduler* s;
  std::size_t index;

  std::string_view name() const { return s->machines[index].hostname; }
  auto pods() const {
    return s->jobs | ranges::views::filter([i = index](const job& j) {
             return j.state == job_state::running && j.machine == i;
           });
  }
};

// What victim selection changes on a machine: its free CPU and memory.
struct free_resources {
  std::int64_t cpu_m = 0, mem_mib = 0;

  preempt::status remove_pod(const job& j) {
    cpu_m += j.cpu_m;
    mem_mib += j.mem_mib;
    return preempt::status::ok();
  }
  preempt::status add_pod(const job& j) {
    cpu_m -= j.cpu_m;
    mem_mib -= j.mem_mib;
    return preempt::status::ok();
  }
  preempt::status fits(const job& j) const {
    if (j.cpu_m > cpu_m) return preempt::status::unschedulable("Insufficient cpu");
    if (j.mem_mib > mem_mib) return preempt::status::unschedulable("Insufficient memory");
    return preempt::status::ok();
  }
};

// The machines as preempt's cluster: a view that makes node i from machine i.
inline auto nodes_of(const scheduler& s) {
  return s.machines | ranges::views::transform([&s](const machine& m) {
           return machine_node{&s, static_cast<std::size_t>(&m - s.machines.data())};
         });
}

struct machine_cluster {
  using state_type = free_resources;
  decltype(nodes_of(std::declval<const scheduler&>())) nodes;

  std::size_t size() const { return static_cast<std::size_t>(ranges::size(nodes)); }
  machine_node operator[](std::size_t i) const { return nodes[static_cast<std::ptrdiff_t>(i)]; }
  state_type make_state() const { return {}; }
  void prepare_state(std::size_t i, state_type& free) const {
    const machine_node node = (*this)[i];
    const machine& m = node.s->machines[i];
    free = {m.cpu_m, m.mem_mib};
    for (const job& j : preempt::pods_of(node)) free.add_pod(j);
  }
};

// Each machine's filter outcome for the pending job, computed when the library asks for it: a
// drained machine is unschedulable and unresolvable (preemption cannot help there), the others
// unschedulable (the job does not fit as they stand, which is why it preempts).
inline auto filter_outcomes(const scheduler& s) {
  return s.machines | ranges::views::transform([](const machine& m) {
           return m.drained ? preempt::status_code::unschedulable_and_unresolvable
                            : preempt::status_code::unschedulable;
         });
}

struct outcomes_view {
  decltype(filter_outcomes(std::declval<const scheduler&>())) codes;
  preempt::status_code code_of(std::size_t i) const {
    return codes[static_cast<std::ptrdiff_t>(i)];
  }
};

}  // namespace batch

static_assert(preempt::pod<batch::job>);
static_assert(preempt::node<batch::machine_node>);
static_assert(preempt::cluster<batch::machine_cluster>);
static_assert(preempt::node_statuses<batch::outcomes_view>);

int main() {
  using batch::job_state;
  const auto t0 = std::chrono::sys_seconds(std::chrono::seconds(1'700'000'000));
  batch::scheduler s;
  s.machines = {{"m1", 8000, 32768, false}, {"m2", 8000, 32768, false}, {"m3", 8000, 32768, true}};
  s.jobs = {
      {"etl-1", 10, 4000, 8192, t0, job_state::running, 0},
      {"web-1", 50, 3000, 4096, t0, job_state::running, 0},
      {"old-batch", 0, 8000, 8192, t0, job_state::finished, 0},  // done: holds nothing
      {"batch-2", 20, 5000, 8192, t0, job_state::running, 1},
      {"notebook", 200, 2000, 4096, t0, job_state::running, 1},
      {"scratch", 0, 7000, 4096, t0, job_state::running, 2},  // m3 is drained
      {"report", 5, 1000, 1024, {}, job_state::queued, 0},
  };
  const batch::job pending{"train-large", 100, 6000, 16384, {}, job_state::queued, 0};

  const batch::machine_cluster cluster{batch::nodes_of(s)};
  const batch::outcomes_view outcomes{batch::filter_outcomes(s)};
  preempt::evaluator<batch::machine_cluster> evaluator;
  const auto& d = evaluator.evaluate(pending, cluster, outcomes, preempt::no_budgets{},
                                     preempt::no_nominations{}, preempt::inline_executor{},
                                     preempt::attempt{.offset = 0, .nominated_node = std::nullopt});
  if (d.kind != preempt::decision_kind::nominated) {
    std::printf("%s: not nominated: %.*s\n", pending.name.c_str(),
                static_cast<int>(d.message.size()), d.message.data());
    return 1;
  }

  // The decision, read with range-v3: the victims' names joined, and what evicting them frees.
  const std::string victims =
      d.victims | ranges::views::transform([](const batch::job* j) { return j->name; }) |
      ranges::views::join(std::string_view(", ")) | ranges::to<std::string>();
  const std::int64_t freed_cpu = ranges::accumulate(d.victims, std::int64_t{0}, std::plus<>{},
                                                    [](const batch::job* j) { return j->cpu_m; });
  const std::string candidates =
      d.candidates | ranges::views::transform([](const auto& c) {
        return std::string(c.node_name) + " (" + std::to_string(c.victims.size()) + " to evict)";
      }) |
      ranges::views::join(std::string_view(", ")) | ranges::to<std::string>();

  std::printf("%s (priority %d, %lldm CPU): nominate %.*s, evict %s (frees %lldm CPU)\n",
              pending.name.c_str(), pending.priority, static_cast<long long>(pending.cpu_m),
              static_cast<int>(d.node_name.size()), d.node_name.data(), victims.c_str(),
              static_cast<long long>(freed_cpu));
  std::printf("candidates: %s\n", candidates.c_str());
  return d.node_name == "m2" && victims == "batch-2" ? 0 : 1;
}
