// preempt reads what a scheduler built on range-v3 hands it: nodes whose pods() is a range-v3 view
// (filter, transform to pods or to pointers, any_view), clusters whose nodes are a range-v3 view
// of the scheduler's own host records, and decisions read with range-v3's algorithms and views.
// Only this test and examples/range_v3 use range-v3; the library includes nothing but the standard
// library.
//
// Every node shape sees the same small world and must reach the same decision: host-b, evicting
// task 2 alone (the scenario below says why). A view that lost a pod, counted a finished task or
// handed the library a dangling reference would change the node, the victims or their order.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <range/v3/algorithm/find.hpp>
#include <range/v3/algorithm/is_sorted.hpp>
#include <range/v3/algorithm/min_element.hpp>
#include <range/v3/iterator/operations.hpp>
#include <range/v3/numeric/accumulate.hpp>
#include <range/v3/range/concepts.hpp>
#include <range/v3/range/conversion.hpp>
#include <range/v3/view/filter.hpp>
#include <range/v3/view/indirect.hpp>
#include <range/v3/view/transform.hpp>
#include <range/v3/view/zip.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "preempt/manual_executor.hpp"
#include "preempt/preempt.hpp"

// range-v3's any_view checks its casts with typeid unless NDEBUG is defined: without run-time type
// information and without NDEBUG (the noexcept preset) its header does not compile, so the
// any_view case is left out there.
#if defined(__cpp_rtti) || defined(__GXX_RTTI) || defined(NDEBUG)
#define PREEMPT_TEST_ANY_VIEW 1
#include <range/v3/view/any_view.hpp>
#else
#define PREEMPT_TEST_ANY_VIEW 0
#endif

namespace sched {

// The scheduler's own records: one table of tasks, hosts that list the ids of their running tasks.
struct task {
  std::uint64_t id = 0;
  std::int32_t prio = 0;
  std::int64_t cpu = 0;  // millicores
  std::size_t host = 0;
  bool finished = false;  // done, still in the table, holds nothing

  std::uint64_t uid() const noexcept { return id; }
  std::int32_t priority() const noexcept { return prio; }
  std::optional<preempt::timestamp> start_time() const noexcept { return 1000; }
  bool terminating_by_preemption() const noexcept { return false; }
};

struct host {
  std::string name;
  std::int64_t cpu = 0;
  bool cordoned = false;
  std::vector<std::size_t> running;  // indices into world::tasks
};

struct world {
  std::vector<task> tasks;
  std::vector<host> hosts;
};

// Three hosts of 4 CPUs; the preemptor (priority 1000) asks for 2 CPUs.
//   host-a: task 1 (priority 5, 3 CPUs): evicting it makes room. Victim priority 5.
//   host-b: tasks 2 and 3 (priorities 1 and 2, 1.5 CPUs each) and finished task 5 (priority 3,
//           1 CPU, not the host's any more). Both removed, task 3 is reprieved (2.5 CPUs free),
//           task 2 is not: one victim of priority 1, so host-b wins (lowest highest-priority
//           victim). Were task 5 counted, it would be reprieved first and both 2 and 3 evicted.
//   host-c: task 4 (priority 2000, 4 CPUs): nothing may go.
world small_world() {
  world w;
  w.tasks = {{.id = 1, .prio = 5, .cpu = 3000, .host = 0},
             {.id = 2, .prio = 1, .cpu = 1500, .host = 1},
             {.id = 3, .prio = 2, .cpu = 1500, .host = 1},
             {.id = 4, .prio = 2000, .cpu = 4000, .host = 2},
             {.id = 5, .prio = 3, .cpu = 1000, .host = 1, .finished = true}};
  w.hosts = {{.name = "host-a", .cpu = 4000, .running = {0}},
             {.name = "host-b", .cpu = 4000, .running = {1, 2}},
             {.name = "host-c", .cpu = 4000, .running = {3}}};
  return w;
}

bool is_running(const task& t) { return !t.finished; }

// Node shapes: each refers to the scheduler's records (never copies them) and offers pods() as a
// range-v3 view of another kind.

// pods(): the whole task table filtered to this host's running tasks (views::filter).
struct filtered_node {
  const world* w;
  std::size_t index;
  std::string_view name() const { return w->hosts[index].name; }
  std::int64_t capacity() const { return w->hosts[index].cpu; }
  auto pods() const {
    return w->tasks | ranges::views::filter(
                          [i = index](const task& t) { return t.host == i && is_running(t); });
  }
};

// pods(): the host's list of running task ids, each looked up in the table (views::transform to
// task lvalues).
struct transformed_node {
  const world* w;
  std::size_t index;
  std::string_view name() const { return w->hosts[index].name; }
  std::int64_t capacity() const { return w->hosts[index].cpu; }
  auto pods() const {
    return w->hosts[index].running |
           ranges::views::transform(
               [t = &w->tasks](std::size_t id) -> const task& { return (*t)[id]; });
  }
};

// pods(): the same ids made into pointers (views::transform to proxies the library dereferences).
struct pointer_node {
  const world* w;
  std::size_t index;
  std::string_view name() const { return w->hosts[index].name; }
  std::int64_t capacity() const { return w->hosts[index].cpu; }
  auto pods() const {
    return w->hosts[index].running |
           ranges::views::transform([t = &w->tasks](std::size_t id) { return &(*t)[id]; });
  }
};

#if PREEMPT_TEST_ANY_VIEW
// pods(): a type-erased forward view (any_view) over the filtered table, as a scheduler whose node
// interface is not a template would declare it.
struct erased_node {
  const world* w;
  std::size_t index;
  std::string_view name() const { return w->hosts[index].name; }
  std::int64_t capacity() const { return w->hosts[index].cpu; }
  ranges::any_view<const task&, ranges::category::forward> pods() const {
    return filtered_node{w, index}.pods();
  }
};
#endif

// The one filter: CPU.
struct cpu_state {
  std::int64_t free = 0;
  preempt::status remove_pod(const task& t) {
    free += t.cpu;
    return preempt::status::ok();
  }
  preempt::status add_pod(const task& t) {
    free -= t.cpu;
    return preempt::status::ok();
  }
  preempt::status fits(const task& t) const {
    return free >= t.cpu ? preempt::status::ok()
                         : preempt::status::unschedulable("Insufficient cpu");
  }
};

// A cluster whose nodes are a random-access range-v3 view (e.g. views::transform over the
// scheduler's hosts): c[i] is a node made on the fly (a prvalue), as the view yields it.
template <class Nodes>
struct view_cluster {
  using state_type = cpu_state;
  Nodes nodes;

  std::size_t size() const { return static_cast<std::size_t>(ranges::size(nodes)); }
  auto operator[](std::size_t i) const { return nodes[static_cast<std::ptrdiff_t>(i)]; }
  state_type make_state() const { return {}; }
  void prepare_state(std::size_t i, state_type& s) const {
    const auto node = (*this)[i];
    s.free = node.capacity();
    for (const task& t : preempt::pods_of(node)) s.free -= t.cpu;
  }
};

template <class Nodes>
view_cluster<Nodes> make_view_cluster(Nodes nodes) {
  return view_cluster<Nodes>{std::move(nodes)};
}

// Every host of the world, as nodes of shape Node.
template <class Node>
auto cluster_of(const world& w) {
  return make_view_cluster(ranges::views::transform(w.hosts, [&w](const host& h) {
    return Node{&w, static_cast<std::size_t>(&h - w.hosts.data())};
  }));
}

const task preemptor{.id = 100, .prio = 1000, .cpu = 2000};

struct all_unschedulable {
  preempt::status_code code_of(std::size_t) const noexcept {
    return preempt::status_code::unschedulable;
  }
};

template <class Cluster>
const preempt::decision<task>& decide(preempt::evaluator<Cluster>& ev, const Cluster& cluster) {
  return ev.evaluate(preemptor, cluster, all_unschedulable{}, preempt::no_budgets{},
                     preempt::no_nominations{}, preempt::inline_executor{},
                     preempt::attempt{.offset = 0, .nominated_node = std::nullopt});
}

std::vector<std::uint64_t> victim_uids(const preempt::decision<task>& d) {
  return d.victims | ranges::views::transform([](const task* t) { return t->id; }) |
         ranges::to<std::vector>();
}

// The decision every node shape must reach.
template <class Node>
void check_the_decision() {
  using cluster_type = decltype(cluster_of<Node>(std::declval<const world&>()));
  static_assert(preempt::node<Node>);
  static_assert(std::same_as<preempt::node_pod_t<Node>, task>);
  static_assert(preempt::cluster<cluster_type>);
  static_assert(std::same_as<preempt::cluster_node_t<cluster_type>, Node>);

  const world w = small_world();
  const auto cluster = cluster_of<Node>(w);
  preempt::evaluator<cluster_type> ev;
  const auto& d = decide(ev, cluster);
  REQUIRE(d.kind == preempt::decision_kind::nominated);
  CHECK(d.node_name == "host-b");
  CHECK(victim_uids(d) == std::vector<std::uint64_t>{2});
  CHECK(d.victims[0] == &w.tasks[1]);  // the scheduler's own record, not a copy
}

}  // namespace sched

TEST_CASE("range-v3: a node whose pods() is views::filter over the scheduler's task table") {
  sched::check_the_decision<sched::filtered_node>();
  const sched::world w = sched::small_world();
  std::vector<std::uint64_t> seen;
  for (const sched::task& t : preempt::pods_of(sched::filtered_node{&w, 1})) seen.push_back(t.id);
  CHECK(seen == std::vector<std::uint64_t>{2, 3});  // finished task 5 is not the host's
}

TEST_CASE("range-v3: a node whose pods() is views::transform from task ids to task lvalues") {
  sched::check_the_decision<sched::transformed_node>();
}

TEST_CASE("range-v3: a node whose pods() is views::transform from task ids to pointers") {
  // Proxies: the library reads them through its own view, which yields the tasks themselves.
  static_assert(
      std::is_pointer_v<
          ranges::range_value_t<decltype(std::declval<const sched::pointer_node&>().pods())>>);
  sched::check_the_decision<sched::pointer_node>();
}

#if PREEMPT_TEST_ANY_VIEW
TEST_CASE("range-v3: a node whose pods() is an any_view (type-erased, forward)") {
  sched::check_the_decision<sched::erased_node>();
}
#endif

TEST_CASE("range-v3: a cluster of the schedulable hosts, built with filter, indirect, transform") {
  // Cordoned hosts are no candidates: the cluster holds the others, in the scheduler's order. The
  // decision's node_index is a position in that view.
  sched::world w = sched::small_world();
  w.hosts[1].cordoned = true;
  const std::vector<const sched::host*> schedulable =
      w.hosts | ranges::views::filter([](const sched::host& h) { return !h.cordoned; }) |
      ranges::views::transform([](const sched::host& h) { return &h; }) | ranges::to<std::vector>();
  const auto cluster = sched::make_view_cluster(
      schedulable | ranges::views::indirect | ranges::views::transform([&w](const sched::host& h) {
        return sched::transformed_node{&w, static_cast<std::size_t>(&h - w.hosts.data())};
      }));
  static_assert(preempt::cluster<std::remove_cvref_t<decltype(cluster)>>);
  REQUIRE(cluster.size() == 2);

  preempt::evaluator<std::remove_cvref_t<decltype(cluster)>> ev;
  const auto& d = sched::decide(ev, cluster);
  REQUIRE(d.kind == preempt::decision_kind::nominated);
  CHECK(d.node_index == 0);
  CHECK(schedulable[d.node_index]->name == "host-a");
  CHECK(sched::victim_uids(d) == std::vector<std::uint64_t>{1});
}

TEST_CASE("range-v3: a decision read with range-v3's algorithms and views") {
  const sched::world w = sched::small_world();
  const auto cluster = sched::cluster_of<sched::transformed_node>(w);
  preempt::evaluator<std::remove_cvref_t<decltype(cluster)>> ev;
  const auto& d = sched::decide(ev, cluster);
  REQUIRE(d.kind == preempt::decision_kind::nominated);

  // The decision's ranges model range-v3's concepts, not only the standard's.
  static_assert(ranges::random_access_range<decltype(d.victims)>);
  static_assert(ranges::random_access_range<decltype(d.diagnosis)>);
  static_assert(ranges::sized_range<decltype(d.diagnosis)>);
  static_assert(ranges::random_access_range<decltype(d.candidates)>);

  // Victims: in descending importance, and what evicting them frees.
  CHECK(ranges::is_sorted(d.victims, std::greater<>{},
                          [](const sched::task* t) { return t->priority(); }));
  CHECK(ranges::accumulate(d.victims, std::int64_t{0}, std::plus<>{},
                           [](const sched::task* t) { return t->cpu; }) == 1500);

  // Diagnosis: every host was tried; host-c (index 2) has no victim to offer.
  CHECK(ranges::distance(d.diagnosis) == 3);
  const auto failed =
      d.diagnosis | ranges::views::filter([](auto nd) { return !nd.outcome.is_success(); }) |
      // The view yields node_diagnosis_ref (references into the decision): project through a
      // lambda; a member-pointer projection does not compile (it would refer into a temporary).
      ranges::views::transform([](auto nd) { return nd.node_index; }) | ranges::to<std::vector>();
  CHECK(failed == std::vector<std::size_t>{2});
  // Its distinct outcomes, each with how many nodes it covers: one node failed, three in all.
  const auto outcomes = ranges::views::zip(d.diagnosis.outcomes(), d.diagnosis.counts());
  CHECK(ranges::accumulate(outcomes, std::size_t{0}, std::plus<>{},
                           [](const auto& pair) { return pair.second; }) == 3);
  CHECK(ranges::accumulate(
            outcomes |
                ranges::views::filter([](const auto& pair) { return !pair.first.is_success(); }),
            std::size_t{0}, std::plus<>{}, [](const auto& pair) { return pair.second; }) == 1);

  // Candidates: host-a and host-b; the chosen one found by node index, the one with the fewest
  // victims found by projection.
  const auto chosen =
      ranges::find(d.candidates, d.node_index, &preempt::candidate<sched::task>::node_index);
  REQUIRE(chosen != ranges::end(d.candidates));
  CHECK(chosen->node_name == "host-b");
  CHECK(static_cast<std::size_t>(chosen - ranges::begin(d.candidates)) == d.choice.index);
  const auto fewest = ranges::min_element(
      d.candidates, std::less<>{},
      [](const preempt::candidate<sched::task>& c) { return c.victims.size(); });
  CHECK(fewest->victims.size() == 1);
  CHECK(ranges::to<std::vector<std::string>>(d.candidates |
                                             ranges::views::transform([](const auto& c) {
                                               return std::string(c.node_name);
                                             })) == std::vector<std::string>{"host-a", "host-b"});
}

TEST_CASE("range-v3: the evaluator counts an unsized views::filter of pods to decide on helpers") {
  // Hand out by pods only (min_parallel_pods 1, min_parallel_nodes above the cluster's size): the
  // helpers are called only if the filtered ranges were counted.
  const sched::world w = sched::small_world();
  const auto cluster = sched::cluster_of<sched::filtered_node>(w);
  using cluster_type = std::remove_cvref_t<decltype(cluster)>;
  static_assert(
      !std::ranges::sized_range<decltype(std::declval<const sched::filtered_node&>().pods())>);
  preempt::evaluator_config cfg;
  cfg.parallelism = 2;
  cfg.min_parallel_nodes = 1000;
  cfg.min_parallel_pods = 1;
  cfg.workers_within_hardware = false;
  preempt::evaluator<cluster_type> ev(cfg);
  preempt::manual_context ctx;
  const auto& d = ev.evaluate(sched::preemptor, cluster, sched::all_unschedulable{},
                              preempt::no_budgets{}, preempt::no_nominations{}, ctx.get_executor(),
                              preempt::attempt{.offset = 0, .nominated_node = std::nullopt});
  REQUIRE(d.kind == preempt::decision_kind::nominated);
  CHECK(d.node_name == "host-b");
  CHECK(sched::victim_uids(d) == std::vector<std::uint64_t>{2});
  ctx.drain();
  CHECK(ctx.ran() > 0);
}
