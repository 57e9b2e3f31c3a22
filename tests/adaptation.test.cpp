// The caller's types as they are: a pod that is a plain struct with fields (uid, priority, a
// std::chrono start time), and a node whose pods are held by std::unique_ptr, model the concepts
// through preempt::pod_traits and preempt::node_traits in a few lines, and a decision reads them.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "preempt/preempt.hpp"

namespace theirs {

using clock = std::chrono::system_clock;

// Another scheduler's pod: fields, no member functions.
struct pod_row {
  std::string uid;
  int priority = 0;
  std::optional<clock::time_point> start_time;  // empty: not started
  bool preempted = false;
};

// Its node: a host name and pods owned by std::unique_ptr.
struct machine {
  std::string hostname;
  std::vector<std::unique_ptr<pod_row>> running;
  std::size_t slots = 0;
};

}  // namespace theirs

// The whole adaptation: a few lines per type.
template <>
struct preempt::pod_traits<theirs::pod_row> {
  static const std::string& uid(const theirs::pod_row& p) { return p.uid; }
  static int priority(const theirs::pod_row& p) { return p.priority; }
  static auto start_time(const theirs::pod_row& p) { return p.start_time; }
  static bool terminating_by_preemption(const theirs::pod_row& p) { return p.preempted; }
};
template <>
struct preempt::node_traits<theirs::machine> {
  static std::string_view name(const theirs::machine& m) { return m.hostname; }
  static const auto& pods(const theirs::machine& m) { return m.running; }  // unique_ptr proxies
};

namespace theirs {

// A slot count per machine is the only filter.
struct slots_state {
  std::size_t used = 0, slots = 0;
  preempt::status remove_pod(const pod_row&) {
    --used;
    return preempt::status::ok();
  }
  preempt::status add_pod(const pod_row&) {
    ++used;
    return preempt::status::ok();
  }
  preempt::status fits(const pod_row&) const {
    return used < slots ? preempt::status::ok() : preempt::status::unschedulable("No free slot");
  }
};

struct fleet {
  using state_type = slots_state;
  std::vector<machine> machines;
  std::size_t size() const noexcept { return machines.size(); }
  const machine& operator[](std::size_t i) const noexcept { return machines[i]; }
  state_type make_state() const { return {}; }
  void prepare_state(std::size_t i, state_type& s) const {
    s.used = machines[i].running.size();
    s.slots = machines[i].slots;
  }
};

struct all_unschedulable {
  preempt::status_code code_of(std::size_t) const noexcept {
    return preempt::status_code::unschedulable;
  }
};

// The same struct, not adapted.
struct unadapted_row {
  std::string uid;
  int priority = 0;
};

std::unique_ptr<pod_row> row(std::string uid, int priority, std::optional<clock::time_point> t) {
  return std::make_unique<pod_row>(pod_row{std::move(uid), priority, t, false});
}

}  // namespace theirs

TEST_CASE("adaptation: plain structs model the concepts through the traits") {
  using theirs::pod_row;
  static_assert(preempt::pod<pod_row>);
  static_assert(preempt::node<theirs::machine>);
  static_assert(preempt::cluster<theirs::fleet>);
  static_assert(std::same_as<preempt::node_pod_t<theirs::machine>, pod_row>);
  static_assert(std::same_as<preempt::pod_uid_t<pod_row>, std::string>);
  CHECK_FALSE(preempt::pod<theirs::unadapted_row>);

  const auto noon = theirs::clock::time_point(std::chrono::seconds(1'700'000'000));
  const pod_row started{"a", 7, noon, true};
  const pod_row pending{"b", -3, std::nullopt, false};
  CHECK(preempt::uid_of(started) == "a");
  CHECK(preempt::priority_of(pending) == -3);
  CHECK(preempt::start_time_of(started) ==
        std::optional<preempt::timestamp>(1'700'000'000'000'000'000));
  CHECK_FALSE(preempt::start_time_of(pending).has_value());
  CHECK(preempt::start_time_or(pending, 42) == 42);
  CHECK(preempt::is_terminating_by_preemption(started));
  CHECK(preempt::preemption_policy_of(started) ==
        preempt::preemption_policy::preempt_lower_priority);

  theirs::machine m{"host-1", {}, 2};
  m.running.push_back(theirs::row("x", 1, noon));
  m.running.push_back(theirs::row("y", 2, noon));
  CHECK(preempt::name_of(m) == "host-1");
  std::vector<const pod_row*> seen;
  for (const pod_row& p : preempt::pods_of(m)) seen.push_back(&p);
  CHECK(seen == std::vector<const pod_row*>{m.running[0].get(), m.running[1].get()});
}

TEST_CASE("adaptation: a decision over adapted types reads their chrono start times") {
  using namespace std::chrono_literals;
  const auto t0 = theirs::clock::time_point(std::chrono::seconds(1'700'000'000));
  theirs::fleet f;
  // Two full machines; each has one low-priority pod that must go. The victims tie on priority
  // and count, so upstream's last criterion decides: the candidate whose highest-priority victim
  // started latest (host-b's, an hour later).
  f.machines.push_back({"host-a", {}, 2});
  f.machines.back().running.push_back(theirs::row("a-low", 1, t0));
  f.machines.back().running.push_back(theirs::row("a-high", 100, t0));
  f.machines.push_back({"host-b", {}, 2});
  f.machines.back().running.push_back(theirs::row("b-low", 1, t0 + 1h));
  f.machines.back().running.push_back(theirs::row("b-high", 100, t0));

  const theirs::pod_row preemptor{"new", 50, std::nullopt, false};
  preempt::evaluator<theirs::fleet> ev;
  const auto& d = ev.evaluate(preemptor, f, theirs::all_unschedulable{}, preempt::no_budgets{},
                              preempt::no_nominations{}, preempt::inline_executor{},
                              preempt::attempt{.offset = 0, .nominated_node = std::nullopt});
  REQUIRE(d.kind == preempt::decision_kind::nominated);
  CHECK(d.node_index == 1);
  REQUIRE(d.victims.size() == 1);
  CHECK(d.victims[0] == f.machines[1].running[0].get());  // the pod itself, not a copy

  // Started at the same instant, the first candidate wins: the time was what decided.
  f.machines[1].running[0]->start_time = t0;
  const auto& tie = ev.evaluate(preemptor, f, theirs::all_unschedulable{}, preempt::no_budgets{},
                                preempt::no_nominations{}, preempt::inline_executor{},
                                preempt::attempt{.offset = 0, .nominated_node = std::nullopt});
  CHECK(tie.node_index == 0);
}

namespace proxies {

// Members as the library expects them, but pods() yields std::reference_wrapper proxies made on
// the fly (a prvalue range), and start times are std::chrono::sys_time of seconds.
struct task {
  std::uint64_t id;
  std::int32_t prio;
  std::uint64_t uid() const noexcept { return id; }
  std::int32_t priority() const noexcept { return prio; }
  std::chrono::sys_seconds start_time() const noexcept {
    return std::chrono::sys_seconds(std::chrono::seconds(10));
  }
  bool terminating_by_preemption() const noexcept { return false; }
};

struct worker {
  std::vector<task> tasks;
  std::string_view name() const noexcept { return "worker"; }
  std::vector<std::reference_wrapper<const task>> pods() const {
    return {tasks.begin(), tasks.end()};
  }
};

}  // namespace proxies

TEST_CASE("adaptation: a range of proxies is read as the pods they stand for") {
  static_assert(preempt::node<proxies::worker>);
  static_assert(std::same_as<preempt::node_pod_t<proxies::worker>, proxies::task>);
  const proxies::worker w{{{1, 5}, {2, 6}}};
  std::vector<const proxies::task*> seen;
  for (const proxies::task& t : preempt::pods_of(w)) seen.push_back(&t);
  CHECK(seen == std::vector<const proxies::task*>{&w.tasks[0], &w.tasks[1]});
  CHECK(preempt::start_time_of(w.tasks[0]) == std::optional<preempt::timestamp>(10'000'000'000));
}

// ---- the rest of the adaptation surface ---------------------------------------------------------

namespace theirs {

// A scheduler's own cluster: no member of the names the library looks for, adapted through
// preempt::cluster_traits instead of a wrapper.
struct inventory {
  std::vector<machine> hosts;
};

// A pod deleted by a user (deletionTimestamp set, not by preemption): said through the traits.
struct deleted_row {
  std::string uid;
  int priority = 0;
  bool deleting = false;
};

}  // namespace theirs

template <>
struct preempt::cluster_traits<theirs::inventory> {
  using state_type = theirs::slots_state;
  static std::size_t size(const theirs::inventory& c) { return c.hosts.size(); }
  static const theirs::machine& node(const theirs::inventory& c, std::size_t i) {
    return c.hosts[i];
  }
  static state_type make_state(const theirs::inventory&) { return {}; }
  static void prepare_state(const theirs::inventory& c, std::size_t i, state_type& s) {
    s.used = c.hosts[i].running.size();
    s.slots = c.hosts[i].slots;
  }
};

template <>
struct preempt::pod_traits<theirs::deleted_row> {
  static const std::string& uid(const theirs::deleted_row& p) { return p.uid; }
  static int priority(const theirs::deleted_row& p) { return p.priority; }
  static std::optional<preempt::timestamp> start_time(const theirs::deleted_row&) { return 0; }
  static bool terminating_by_preemption(const theirs::deleted_row&) { return false; }
  static bool terminating(const theirs::deleted_row& p) { return p.deleting; }
};

TEST_CASE("adaptation: a cluster adapted through cluster_traits decides as its wrapper does") {
  using namespace std::chrono_literals;
  const auto t0 = theirs::clock::time_point(std::chrono::seconds(1'700'000'000));
  theirs::inventory inv;
  theirs::fleet wrapped;
  for (const char* host : {"host-a", "host-b"}) {
    for (theirs::machine* m : {&inv.hosts.emplace_back(), &wrapped.machines.emplace_back()}) {
      m->hostname = host;
      m->slots = 2;
      m->running.push_back(theirs::row(std::string(host) + "-low", 1, t0));
      m->running.push_back(theirs::row(std::string(host) + "-high", 100, t0));
    }
  }
  inv.hosts[1].running[0]->start_time = t0 + 1h;
  wrapped.machines[1].running[0]->start_time = t0 + 1h;
  static_assert(preempt::cluster<theirs::inventory>);
  static_assert(std::same_as<preempt::cluster_state_t<theirs::inventory>, theirs::slots_state>);
  CHECK(preempt::cluster_size(inv) == 2);
  CHECK(preempt::name_of(preempt::cluster_node(inv, 1)) == "host-b");

  const theirs::pod_row preemptor{"new", 50, std::nullopt, false};
  preempt::evaluator<theirs::inventory> adapted;
  preempt::evaluator<theirs::fleet> reference;
  const auto& d = adapted.evaluate(
      preemptor, inv, theirs::all_unschedulable{}, preempt::no_budgets{}, preempt::no_nominations{},
      preempt::inline_executor{}, {.offset = 0, .nominated_node = std::nullopt});
  const auto& w =
      reference.evaluate(preemptor, wrapped, theirs::all_unschedulable{}, preempt::no_budgets{},
                         preempt::no_nominations{}, preempt::inline_executor{},
                         {.offset = 0, .nominated_node = std::nullopt});
  REQUIRE(d.kind == preempt::decision_kind::nominated);
  CHECK(d.kind == w.kind);
  CHECK(d.node_index == w.node_index);
  CHECK(d.node_name == "host-b");
  REQUIRE(d.victims.size() == 1);
  CHECK(d.victims[0] == inv.hosts[1].running[0].get());
  // A view with the members, for code that wants one (the pod-group evaluator).
  const preempt::cluster_view<theirs::inventory> view(inv);
  CHECK(view.size() == 2);
  CHECK(preempt::name_of(view[0]) == "host-a");
}

TEST_CASE("adaptation: a pod the traits call terminating is not evicted again") {
  static_assert(preempt::pod<theirs::deleted_row>);
  const theirs::deleted_row preemptor{"p", 100, false};
  const theirs::deleted_row deleting{"by-user", 0, true};
  const theirs::deleted_row running{"running", 0, false};
  CHECK(preempt::is_terminating(deleting));
  CHECK_FALSE(preempt::is_terminating(running));
  CHECK_FALSE(preempt::is_terminating_by_preemption(deleting));
  // Without the traits member, the pod's own terminating() answers, else
  // terminating_by_preemption.
  const theirs::pod_row plain{"x", 1, std::nullopt, true};
  CHECK(preempt::is_terminating(plain));

  struct api {
    std::vector<std::string> evicted;
    preempt::eviction_result evict(const theirs::deleted_row& v, const theirs::deleted_row&) {
      evicted.push_back(v.uid);
      return preempt::eviction_result::evicted();
    }
  } client;
  preempt::nomination_ledger<theirs::deleted_row> ledger(1);
  preempt::in_flight_table<theirs::deleted_row> table;
  preempt::dispatcher<theirs::deleted_row, preempt::inline_executor, api> d(
      ledger, table, client, preempt::inline_executor{});
  const theirs::deleted_row* const victims[] = {&deleting, &running};
  const preempt::dispatch_result r = d.preempt_on(preemptor, 0, victims);
  CHECK(r.skipped == 1);
  CHECK(client.evicted == std::vector<std::string>{"running"});
}

TEST_CASE("adaptation: the clock, a pod without a start time is the newest, as upstream's now") {
  // Two candidates whose victims tie on everything but time: one victim started at t0, the other
  // has no start time. Upstream reads time.Now() for it: later than t0, so that node wins the
  // "latest start" criterion. The default policy reads the system clock (it used to be 0, the
  // epoch, which made the pod without a start time the oldest: the other node won).
  const auto t0 = theirs::clock::time_point(std::chrono::seconds(1'700'000'000));
  theirs::fleet f;
  f.machines.push_back({"started", {}, 1});
  f.machines.back().running.push_back(theirs::row("a", 1, t0));
  f.machines.push_back({"not-started", {}, 1});
  f.machines.back().running.push_back(theirs::row("b", 1, std::nullopt));
  const theirs::pod_row preemptor{"new", 50, std::nullopt, false};
  preempt::evaluator<theirs::fleet> ev;  // the system clock
  const auto& d = ev.evaluate(preemptor, f, theirs::all_unschedulable{}, preempt::no_budgets{},
                              preempt::no_nominations{}, preempt::inline_executor{},
                              {.offset = 0, .nominated_node = std::nullopt});
  REQUIRE(d.kind == preempt::decision_kind::nominated);
  CHECK(d.node_name == "not-started");
  CHECK_FALSE(ev.policy().now.has_value());  // the clock was held for the evaluation only
  // An injected instant before t0 makes the missing start time the older one.
  preempt::evaluator<theirs::fleet> injected({}, preempt::default_policy{0});
  const auto& e = injected.evaluate(
      preemptor, f, theirs::all_unschedulable{}, preempt::no_budgets{}, preempt::no_nominations{},
      preempt::inline_executor{}, {.offset = 0, .nominated_node = std::nullopt});
  CHECK(e.node_name == "started");
  // The policy's own comparisons see the same instant during the evaluation.
  const preempt::default_policy unset{};
  const theirs::pod_row old_one{"o", 1, t0, false}, fresh{"f", 1, std::nullopt, false};
  CHECK(unset.more_important(old_one, fresh));
}
