// Your own pod, node and cluster types, as they are: adapted through traits, without wrappers.
//
//   preempt-adapt-own-types
//
// The algorithms read your types only through accessors that are function objects in namespace
// `preempt`: for a pod `uid_of`, `priority_of`, `start_time_of`, `is_terminating_by_preemption`,
// `preemption_policy_of` and, optionally, `is_terminating` (any deletion, not only by preemption:
// the dispatcher never evicts such a pod again); for a node `name_of`, `pods_of`; for a cluster
// `cluster_size`, `cluster_node`, `make_node_state`, `prepare_node_state` and `cluster_state_t`.
// Every internal call is qualified, so functions of the same names in your namespace are never
// called in their place. Each accessor asks `preempt::pod_traits<T>` (or `node_traits<T>`,
// `cluster_traits<T>`) first, then your type's member of the same name (`p.uid()`,
// `p.priority()`, `n.pods()`, `c.size()`, `c[i]`, ...): a type with those members works as it is,
// and any other is adapted in a few lines, as below.
//
// A mistake in an adaptation is said in words, once, by the entry point that meets it (evaluator,
// dispatcher, nomination ledger, in-flight table, select_victims): `preempt: not a pod type: its
// priority, pod_traits<P>::priority(p) or the member p.priority(), is missing or does not return
// a value convertible to std::int32_t (a std::optional is not: read an unset priority as 0)` is
// the whole of g++'s output for that mistake. An optional hook (the dispatcher's
// `nominations_cleared`, an observer's `on_node_evaluated`, a client's `start_eviction`,
// `pod_traits<P>::terminating`) that exists but cannot be called as the library calls it does not
// compile either, and the message names the expected signature.
//
// A node's pods may be the pods themselves or proxies that stand for them: pointers, smart
// pointers (here `std::vector<std::unique_ptr<job>>`), `std::reference_wrapper` or any handle with
// `*` or `get()`; the algorithms read and keep the pods they refer to. `pods()` may also return a
// view over your own containers, made when it is called (a standard or a range-v3 view), and a
// cluster's nodes may be a view of your machine records: examples/range_v3/range_v3_scheduler.cpp
// adapts a scheduler's job table that way; tests/adaptation.test.cpp covers the rest. What it may
// not return is a copy: `pods()` returning a container of the pods by value, or `name()` a
// std::string by value, would hand the library pointers and views into a temporary, so neither
// compiles (the message says which accessor; return a reference or a view).
//
// What the library asks of your types besides the accessors:
//  * A pod's uid must be an owning, hashable value (`preempt::owning_uid`: `std::string` or an
//    integer, not `std::string_view`): the in-flight table keeps victims' uids after their pods
//    may be gone; the dispatcher's `nominations_cleared` hook receives uid copies for the same
//    reason.
//  * The nomination ledger keeps its own copy of each nominated pod (the pod type must be
//    copyable), so you may replace or free your pod objects at any time (`update` refreshes the
//    copy). Nodes are indices that the ledger range-checks; when your cluster loses or renumbers
//    nodes, `ledger.remove_node(i, cleared)` or `renumber_nodes(map, count, cleared)` drops and
//    reports the nominations of removed nodes and moves the others (a dispatcher's background
//    work names its node by the ledger's `node_key`, so it follows).
//  * The evaluator, the nomination ledger and the in-flight table are movable (not while in use;
//    a moved-from ledger or table is empty and usable).
//  * Pass `ledger.reader()`, which holds the ledger's shared lock, where nominations are read: the
//    ledger itself does not model `nominations_of`, so passing it does not compile, and a thread
//    that calls the ledger while it holds one of its readers (a recursive lock) is stopped by a
//    contract check in every build type.
//  * Nobody may change the cluster while an evaluation reads it (the `cluster` concept's rule);
//    `model::resource_cluster` checks it in builds without `NDEBUG`.
//  * Filter statuses that cover fewer nodes than the cluster has, a running pod with the
//    preemptor's uid among the victims, a node beyond the ledger's, and a preemptor that is itself
//    a victim in flight are reported with an error status, not acted on.
//
// Prints the decision; exits 1 unless it is the one described in main().
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "preempt/preempt.hpp"

// ---- Your scheduler's types: fields, no member functions the library knows --------------------
namespace batch {

using clock = std::chrono::system_clock;

struct job {
  std::string id;                            // an owning uid
  int rank = 0;                              // the priority
  std::optional<clock::time_point> started;  // empty: not started yet (counts as "now")
  bool deleting = false;
};

struct host {
  std::string hostname;
  std::vector<std::unique_ptr<job>> jobs;  // proxies: the library reads the jobs they own
  std::size_t slots = 0;
};

struct inventory {
  std::vector<host> hosts;
};

// Your filter: the what-if view of one host that victim selection changes (here, job slots).
struct slot_state {
  std::size_t used = 0, slots = 0;
  preempt::status remove_pod(const job&) {
    --used;
    return preempt::status::ok();
  }
  preempt::status add_pod(const job&) {
    ++used;
    return preempt::status::ok();
  }
  preempt::status fits(const job&) const {
    return used < slots ? preempt::status::ok() : preempt::status::unschedulable("No free slot");
  }
};

}  // namespace batch

// ---- The whole adaptation ----------------------------------------------------------------------
template <>
struct preempt::pod_traits<batch::job> {
  static const std::string& uid(const batch::job& j) { return j.id; }
  static int priority(const batch::job& j) { return j.rank; }
  static auto start_time(const batch::job& j) { return j.started; }  // any std::chrono::sys_time
  static bool terminating_by_preemption(const batch::job&) { return false; }
  static bool terminating(const batch::job& j) { return j.deleting; }  // optional
};

template <>
struct preempt::node_traits<batch::host> {
  static std::string_view name(const batch::host& h) { return h.hostname; }
  static const auto& pods(const batch::host& h) { return h.jobs; }
};

template <>
struct preempt::cluster_traits<batch::inventory> {
  using state_type = batch::slot_state;
  static std::size_t size(const batch::inventory& c) { return c.hosts.size(); }
  static const batch::host& node(const batch::inventory& c, std::size_t i) { return c.hosts[i]; }
  static batch::slot_state make_state(const batch::inventory&) { return {}; }
  static void prepare_state(const batch::inventory& c, std::size_t i, batch::slot_state& s) {
    s.used = c.hosts[i].jobs.size();
    s.slots = c.hosts[i].slots;
  }
};

static_assert(preempt::pod<batch::job>);
static_assert(preempt::node<batch::host>);
static_assert(preempt::cluster<batch::inventory>);

namespace {

std::unique_ptr<batch::job> make_job(std::string id, int rank, batch::clock::time_point t) {
  return std::make_unique<batch::job>(batch::job{std::move(id), rank, t, false});
}

}  // namespace

int main() {
  using namespace std::chrono_literals;
  const auto t0 = batch::clock::time_point(std::chrono::seconds(1'700'000'000));

  // Two full hosts (2 slots each), each with one low-rank job. The victims tie on priority and
  // count, so upstream's last tie-break decides: the candidate whose highest-priority victim
  // started latest, host-b's (an hour later).
  batch::inventory inv;
  inv.hosts.push_back({"host-a", {}, 2});
  inv.hosts.back().jobs.push_back(make_job("a-low", 1, t0));
  inv.hosts.back().jobs.push_back(make_job("a-high", 100, t0));
  inv.hosts.push_back({"host-b", {}, 2});
  inv.hosts.back().jobs.push_back(make_job("b-low", 1, t0 + 1h));
  inv.hosts.back().jobs.push_back(make_job("b-high", 100, t0));

  const batch::job incoming{"incoming", 50, std::nullopt, false};
  // Filter statuses: a ready table, every host unschedulable (full) for the incoming job.
  const preempt::filter_statuses statuses(preempt::cluster_size(inv),
                                          preempt::status_code::unschedulable);
  preempt::nomination_ledger<batch::job> ledger(preempt::cluster_size(inv));
  preempt::evaluator<batch::inventory> evaluator;
  const auto& d = evaluator.evaluate(incoming, inv, statuses, preempt::no_budgets{},
                                     ledger.reader(), preempt::inline_executor{});

  if (d.kind != preempt::decision_kind::nominated) {
    std::printf("adapt-own-types: FAILED: no nomination: %s\n", std::string(d.message).c_str());
    return 1;
  }
  std::printf("nominate %s, evict", std::string(d.node_name).c_str());
  for (const batch::job* v : d.victims) std::printf(" %s", v->id.c_str());
  std::printf("\n");
  // The victim is your own object (through the unique_ptr), not a copy.
  const bool ok =
      d.node_index == 1 && d.victims.size() == 1 && d.victims[0] == inv.hosts[1].jobs[0].get();
  if (!ok) {
    std::printf("adapt-own-types: FAILED: expected host-b and its job b-low\n");
    return 1;
  }
  return 0;
}
