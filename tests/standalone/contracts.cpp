// Mistakes that used to be silent undefined behaviour, a hang or an abort without a word, and are
// now contract failures with a message: each case runs in a child process (fork) whose assertion
// handler exits 0 when the expected message comes, and the parent checks that it did. A case that
// returns without the check, crashes, or hangs (an alarm ends it after 20 s) fails:
//   dispatcher_before_its_table      a dispatcher declared before the in-flight table it uses
//                                    (class members), destroyed while its work is in flight: the
//                                    table's destructor says so (it was a use after free on a
//                                    pool thread, then a wait that never ended)
//   dispatcher_undrained_manual      a dispatcher destroyed with its work queued on a manual
//                                    context nobody drains (it waited forever)
//   ledger_node_out_of_range         nominating to node 12345 of a 4-node ledger (was accepted)
//   ledger_node_huge                 nominating to node 2^40 (aborted in an allocation)
//   cluster_changed_during_evaluate  model::resource_cluster changed while an evaluation reads it
//                                    (a use after free; checked in builds without NDEBUG)
//   nodes_copied_with_their_pods     a cluster whose c[i] returns a copy of a node that holds its
//                                    pods (`machine operator[](std::size_t) const`): every pod
//                                    the evaluation read pointed into a gone temporary
//   ranking_node_out_of_range        a pod-group placement comparing a node beyond the
//                                    victim_cost_ranking it was handed (read out of bounds)
//
// SPDX-License-Identifier: Apache-2.0
#define PREEMPT_ASSERT_HANDLER contracts::caught
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace contracts {
inline const char* expected = nullptr;
[[noreturn]] inline void caught(const char* expr, const char* file, int line, const char* msg) {
  if (expected != nullptr && std::strstr(msg, expected) != nullptr) {
    std::printf("  caught as expected: %s\n", msg);
    std::fflush(stdout);
    std::_Exit(0);
  }
  std::printf("  %s:%d: unexpected contract violation: %s (%s)\n", file, line, msg, expr);
  std::fflush(stdout);
  std::_Exit(2);
}
}  // namespace contracts

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "preempt/dispatcher.hpp"
#include "preempt/evaluator.hpp"
#include "preempt/in_flight.hpp"
#include "preempt/manual_executor.hpp"
#include "preempt/model/resource_cluster.hpp"
#include "preempt/nomination_ledger.hpp"
#include "preempt/thread_pool.hpp"
#include "preempt/workload/victim_cost_ranking.hpp"
#include "support/pods.hpp"

namespace {

using pod = preempt::model::resource_pod;

// Evicts after `open` is set (never, in these cases: the child ends first).
struct parked_client {
  std::atomic<bool> open{false};
  std::atomic<int> started{0};
  preempt::eviction_result evict(const pod&, const pod&) {
    started.fetch_add(1);
    while (!open.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return preempt::eviction_result::evicted();
  }
};

struct quick_client {
  preempt::eviction_result evict(const pod&, const pod&) {
    return preempt::eviction_result::evicted();
  }
};

struct wake {
  void reactivate(const pod&) const noexcept {}
};

const pod victim = fx::make_pod(1, 0);
const pod preemptor = fx::make_pod(2, 100);
const pod* const victims[] = {&victim};

// The members in the wrong order: the dispatcher before the table it uses.
struct service {
  preempt::thread_pool pool{1};
  preempt::nomination_ledger<pod> ledger{1};
  parked_client client;
  preempt::dispatcher<pod, preempt::pool_executor, parked_client, wake> dispatch;
  preempt::in_flight_table<pod> table;  // destroyed before the dispatcher

  service() : dispatch(ledger, table, client, pool.get_executor()) {}
};

int dispatcher_before_its_table() {
  contracts::expected = "declare the table before the dispatcher";
  {
    service s;
    s.dispatch.preempt_on(preemptor, 0, victims);
    while (s.client.started.load() == 0) std::this_thread::yield();
  }
  return 1;
}

int dispatcher_undrained_manual() {
  contracts::expected = "drain it first";
  preempt::manual_context ctx;
  preempt::nomination_ledger<pod> ledger(1);
  preempt::in_flight_table<pod> table;
  quick_client client;
  {
    preempt::dispatcher<pod, preempt::manual_executor, quick_client, wake> d(ledger, table, client,
                                                                             ctx.get_executor());
    d.preempt_on(preemptor, 0, victims);
  }  // destroyed with the job in ctx's queue
  return 1;
}

int ledger_node_out_of_range() {
  contracts::expected = "no such node";
  preempt::nomination_ledger<pod> ledger(4);
  ledger.nominate(preemptor, 12345);
  return 1;
}

int ledger_node_huge() {
  contracts::expected = "no such node";
  preempt::nomination_ledger<pod> ledger(4);
  ledger.nominate(preemptor, std::size_t{1} << 40);
  return 1;
}

// Changes the cluster from inside the evaluation (any other thread would do the same).
struct meddler {
  preempt::model::resource_cluster* cluster = nullptr;
  void on_node_evaluated(std::size_t, const preempt::status&, std::span<const pod* const>,
                         std::int64_t) const {
    cluster->add_pod(0, fx::make_pod(99, 0));
  }
};

int cluster_changed_during_evaluate() {
#if PREEMPT_CHECK_CLUSTER_READS
  contracts::expected = "changed while an evaluation reads it";
  preempt::model::resource_cluster c;
  const std::size_t n = c.add_node("n", {1000, 1000, 10});
  c.add_pod(n, pod({.uid = 1, .priority = 0, .requests = {1000, 1000}, .start_time = 0}));
  const preempt::filter_statuses statuses(c.size(), preempt::status_code::unschedulable);
  preempt::evaluator<preempt::model::resource_cluster, preempt::default_policy, meddler> ev(
      {}, preempt::default_policy{0}, meddler{&c});
  (void)ev.evaluate(preemptor, c, statuses, preempt::no_budgets{}, preempt::no_nominations{},
                    preempt::inline_executor{});
  return 1;
#else
  std::printf("  skipped: PREEMPT_CHECK_CLUSTER_READS is off in this build (NDEBUG)\n");
  return 0;
#endif
}

// A node that holds its pods, and a cluster that hands out copies of it: the slip of a missing &.
struct machine {
  std::string hostname;
  std::vector<pod> running;
  std::string_view name() const { return hostname; }
  const std::vector<pod>& pods() const { return running; }
};

struct slots {
  preempt::status remove_pod(const pod&) { return preempt::status::ok(); }
  preempt::status add_pod(const pod&) { return preempt::status::ok(); }
  preempt::status fits(const pod&) const {
    return preempt::status(preempt::status_code::unschedulable, "full");
  }
};

struct copying_fleet {
  using state_type = slots;
  std::vector<machine> machines;
  std::size_t size() const noexcept { return machines.size(); }
  machine operator[](std::size_t i) const { return machines[i]; }  // a copy: the missing &
  slots make_state() const { return {}; }
  void prepare_state(std::size_t, slots&) const {}
};

int nodes_copied_with_their_pods() {
  contracts::expected = "as copies that hold their pods";
  copying_fleet f;
  f.machines.push_back({"n", {fx::make_pod(1, 0), fx::make_pod(3, 0)}});
  const preempt::filter_statuses statuses(f.size(), preempt::status_code::unschedulable);
  preempt::evaluator<copying_fleet> ev({}, preempt::default_policy{0});
  (void)ev.evaluate(preemptor, f, statuses, preempt::no_budgets{}, preempt::no_nominations{},
                    preempt::inline_executor{});
  return 1;
}

int ranking_node_out_of_range() {
  contracts::expected = "victim_cost_ranking: no such node";
  preempt::workload::victim_cost_ranking<> ranking;
  const preempt::workload::unit_scratch<pod> scratch;
  ranking.build(3, {}, {}, scratch);
  (void)ranking.compare(0, 3);
  return 1;
}

struct test_case {
  const char* name;
  int (*run)();
};

const test_case cases[] = {
    {"dispatcher_before_its_table", dispatcher_before_its_table},
    {"dispatcher_undrained_manual", dispatcher_undrained_manual},
    {"ledger_node_out_of_range", ledger_node_out_of_range},
    {"ledger_node_huge", ledger_node_huge},
    {"cluster_changed_during_evaluate", cluster_changed_during_evaluate},
    {"nodes_copied_with_their_pods", nodes_copied_with_their_pods},
    {"ranking_node_out_of_range", ranking_node_out_of_range},
};

// Runs one case in a child; true when it was caught as expected.
bool run_case(const test_case& t) {
  std::printf("%s\n", t.name);
  std::fflush(stdout);
  const pid_t child = fork();
  if (child == 0) {
    alarm(20);  // a hang is a failure
    std::_Exit(t.run());
  }
  int st = 0;
  if (child < 0 || waitpid(child, &st, 0) != child) {
    std::printf("  FAILED: could not run the case\n");
    return false;
  }
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return true;
  if (WIFSIGNALED(st))
    std::printf("  FAILED: ended by signal %d%s\n", WTERMSIG(st),
                WTERMSIG(st) == SIGALRM ? " (it hung)" : "");
  else
    std::printf(
        "  FAILED: exit status %d (%s)\n", WEXITSTATUS(st),
        WEXITSTATUS(st) == 1 ? "the mistake went through unchecked" : "another contract failed");
  return false;
}

}  // namespace

int main() {
  int failed = 0;
  for (const test_case& t : cases)
    if (!run_case(t)) ++failed;
  std::printf("%d of %zu cases failed\n", failed, std::size(cases));
  return failed == 0 ? 0 : 1;
}
