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
