// Bare metal: the library without threads and without exceptions, on the host.
//
//   preempt-bare-metal
//
// When the standard library has no threads (newlib's libstdc++; libc++ built without them) or
// `PREEMPT_NO_THREADS` is defined, as here, the library includes no <mutex>, <shared_mutex>,
// <thread> or <condition_variable>: the nomination ledger and the in-flight table lock nothing
// (preempt::null_mutex), the evaluator needs an always-inline executor and has no helper crew,
// and the dispatcher dispatches inline. The library also builds with `-fno-exceptions -fno-rtti`
// (examples/CMakeLists.txt compiles this program so, with g++ and clang), allocates nothing per
// decision once warmed up, and depends on nothing but the standard library.
//
// The real target is checked by `bash .ci/bare-metal`: it builds one decision and one inline
// dispatch for a Cortex-M4 (arm-none-eabi-gcc, newlib with semihosting, `-Os -fno-exceptions
// -fno-rtti`, the start-up code and linker script in tests/bare_metal/), runs it under
// `qemu-system-arm -M mps2-an386`, checks the same answer as the x86-64 tests
// (tests/support/tiny_scenario.hpp), and measures the flash the library costs (the table in the
// README's "Bare metal" paragraph, which `bash .ci/bare-metal --readme` writes). There the default
// assertion handler uses no stdio: it records the violation in
// `preempt::detail::last_contract_violation` for a debugger or a fault handler, then aborts;
// define `PREEMPT_ASSERT_HANDLER` (in `preempt_user_config.hpp` on the include path) to report it
// your way.
//
// This program runs the same shape on the host: three full nodes, a preemptor, one decision and
// its inline dispatch through a blocking eviction client, on fixed arrays; exits 1 unless the
// answer is node "c" and its priority-1 pod.
#define PREEMPT_NO_THREADS 1

#include <cstdio>
#include <span>
#include <string_view>

#include "preempt/preempt.hpp"

#if defined(__cpp_exceptions) && defined(PREEMPT_EXAMPLE_NO_EXCEPTIONS)
#error "examples/CMakeLists.txt builds this program with -fno-exceptions"
#endif

namespace {

// A pod and a node as a firmware might keep them: fixed arrays, integer uids, no strings owned.
struct task {
  std::uint32_t id;
  std::int32_t prio;
  std::uint32_t uid() const noexcept { return id; }
  std::int32_t priority() const noexcept { return prio; }
  preempt::timestamp start_time() const noexcept { return 0; }
  bool terminating_by_preemption() const noexcept { return false; }
};

struct board {
  std::string_view label;
  std::span<const task> tasks;
  std::string_view name() const noexcept { return label; }
  std::span<const task> pods() const noexcept { return tasks; }
};

// Each board runs two tasks at most.
struct slots {
  std::size_t used = 0;
  preempt::status remove_pod(const task&) {
    --used;
    return preempt::status::ok();
  }
  preempt::status add_pod(const task&) {
    ++used;
    return preempt::status::ok();
  }
  preempt::status fits(const task&) const {
    return used < 2 ? preempt::status::ok() : preempt::status::unschedulable("No free slot");
  }
};

struct rack {
  using state_type = slots;
  std::span<const board> boards;
  std::size_t size() const noexcept { return boards.size(); }
  const board& operator[](std::size_t i) const noexcept { return boards[i]; }
  slots make_state() const noexcept { return {}; }
  void prepare_state(std::size_t i, slots& s) const noexcept { s.used = boards[i].tasks.size(); }
};

struct all_unschedulable {
  preempt::status_code code_of(std::size_t) const noexcept {
    return preempt::status_code::unschedulable;
  }
};

// A blocking eviction client: stops the task and answers at once.
struct stopper {
  std::uint32_t stopped = 0;
  preempt::eviction_result evict(const task& victim, const task&) {
    stopped = victim.id;
    return preempt::eviction_result::evicted();
  }
};

constexpr task a_tasks[] = {{1, 10}, {2, 20}};
constexpr task b_tasks[] = {{3, 5}, {4, 50}};
constexpr task c_tasks[] = {{5, 200}, {6, 1}};
constexpr board boards[] = {{"a", a_tasks}, {"b", b_tasks}, {"c", c_tasks}};

}  // namespace

int main() {
  const rack r{boards};
  const task preemptor{100, 100};

  preempt::evaluator<rack> ev;
  const auto& d = ev.evaluate(preemptor, r, all_unschedulable{}, preempt::no_budgets{},
                              preempt::no_nominations{}, preempt::inline_executor{},
                              preempt::attempt{.offset = 0, .nominated_node = std::nullopt});
  if (d.kind != preempt::decision_kind::nominated || d.victims.size() != 1) {
    std::printf("bare-metal: FAILED: no nomination\n");
    return 1;
  }
  std::printf("decision: node %.*s, victim %u\n", static_cast<int>(d.node_name.size()),
              d.node_name.data(), static_cast<unsigned>(d.victims[0]->uid()));

  preempt::nomination_ledger<task> ledger(r.size());
  preempt::in_flight_table<task> in_flight;
  stopper client;
  preempt::dispatcher<task, preempt::inline_executor, stopper> dispatch(ledger, in_flight, client,
                                                                        preempt::inline_executor{});
  const preempt::dispatch_result done = dispatch.apply(preemptor, d);
  const auto nominated = ledger.node_of(preemptor.uid());
  std::printf("dispatch: %zu eviction(s), task %u stopped, nominated to node %zu\n", done.evictions,
              static_cast<unsigned>(client.stopped),
              nominated ? *nominated : static_cast<std::size_t>(99));

  const bool ok = d.node_name == "c" && d.victims[0]->uid() == 6 && done.evictions == 1 &&
                  client.stopped == 6 && nominated == std::optional<std::size_t>(2) &&
                  in_flight.victims_in_flight() == 0;
  std::printf("%s\n", ok ? "bare-metal: the expected answer" : "bare-metal: FAILED: WRONG ANSWER");
  return ok ? 0 : 1;
}
