// tests/support/eviction_fakes.hpp - fakes for the dispatcher tests: an eviction client that plays
// upstream's fake API server, hooks that record what the dispatcher reports, a clock the test
// moves, and the executors a dispatch test runs on.
//
//   evf::event_log        one ordered log shared by the client and the hooks ("evict v1",
//                         "cleared node0: a b", "reactivate p"), so tests can check the order of
//                         evictions and nomination clearing
//   evf::fake_client      models preempt::eviction_client<pod>. Per victim an `api` behaviour
//                         reproduces upstream's TestPrepareCandidate reactors (PreemptPod):
//                         patch the DisruptionTarget condition unless present, then delete; either
//                         call may fail or answer NotFound. Every call is recorded with what the
//                         in-flight table said when it began (preemptor in flight? last victim?
//                         gate?). hold()/release() park evictions (thread-pool tests); `during`
//                         runs inside evict after the API calls (e.g. to report the victim).
//   evf::recorder         what the hooks saw; evf::recording_hooks / evf::metric_hooks feed it
//   evf::fake_clock       a steady clock moved by hand (async durations)
//   evf::inline_x, manual_fifo, manual_lifo, manual_shuffled, pool_x
//                         executor fixtures: executor(), finish() (drain a manual context in the
//                         fixture's order), `async` and `threaded` flags
//   evf::rig<X, Hooks, Clock>  ledger + in-flight table + log + client + recorder + fixture +
//                         dispatcher, destroyed in a safe order (its destructor settles first)
//
// Thread-safety: the client, the log and the recorder lock; hooks and client calls come from
// executor threads in async mode.
#ifndef PREEMPT_TESTS_SUPPORT_EVICTION_FAKES_HPP
#define PREEMPT_TESTS_SUPPORT_EVICTION_FAKES_HPP

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

#include "preempt/dispatcher.hpp"
#include "preempt/in_flight.hpp"
#include "preempt/manual_executor.hpp"
#include "preempt/metrics.hpp"
#include "preempt/model/resource_pod.hpp"
#include "preempt/nomination_ledger.hpp"
#include "preempt/thread_pool.hpp"
#include "support/pods.hpp"

namespace evf {

using pod = preempt::model::resource_pod;
using uid = preempt::model::pod_id;
using order = preempt::manual_context::order;

// ---- an allocator that counts -----------------------------------------------------------------

// Counts allocate() calls into a shared counter (rebinds share it).
template <class T>
struct counting_allocator {
  using value_type = T;

  explicit counting_allocator(std::size_t* counter) noexcept : count(counter) {}
  template <class U>
  counting_allocator(const counting_allocator<U>& other) noexcept : count(other.count) {}

  T* allocate(std::size_t n) {
    ++*count;
    return std::allocator<T>{}.allocate(n);
  }
  void deallocate(T* p, std::size_t n) noexcept { std::allocator<T>{}.deallocate(p, n); }

  template <class U>
  bool operator==(const counting_allocator<U>& other) const noexcept {
    return count == other.count;
  }

  std::size_t* count;
};

// ---- pods with names ---------------------------------------------------------------------------

// Pods kept at stable addresses (the ledger and the decisions point at them), with their names.
class scene {
 public:
  scene() = default;
  scene(const scene&) = delete;
  scene& operator=(const scene&) = delete;

  // `terminating`: the pod carries a deletion timestamp, without the DisruptionTarget
  // condition unless `by_preemption`.
  const pod& add(const std::string& pod_name, std::int32_t priority, bool terminating = false,
                 bool by_preemption = false) {
    const uid u = next_++;
    names[u] = pod_name;
    ids[pod_name] = u;
    pods_.push_back(fx::make_pod(
        u, priority, {.terminating = terminating, .terminating_by_preemption = by_preemption}));
    return pods_.back();
  }

  const pod& operator[](const std::string& pod_name) const {
    for (const pod& p : pods_)
      if (p.uid() == ids.at(pod_name)) return p;
    return pods_.front();  // unreachable: ids.at throws or aborts first
  }
  uid id(const std::string& pod_name) const { return ids.at(pod_name); }

  std::vector<const pod*> list(std::initializer_list<std::string> pod_names) const {
    std::vector<const pod*> out;
    for (const std::string& n : pod_names) out.push_back(&(*this)[n]);
    return out;
  }
  std::vector<std::string> named(const std::vector<uid>& uids) const {
    std::vector<std::string> out;
    for (uid u : uids) out.push_back(names.at(u));
    return out;
  }

  std::map<uid, std::string> names;
  std::map<std::string, uid> ids;

 private:
  std::deque<pod> pods_;
  uid next_ = 1;
};

// ---- names and the shared log ------------------------------------------------------------------

class event_log {
 public:
  explicit event_log(const std::map<uid, std::string>* names = nullptr) : names_(names) {}

  void set_names(const std::map<uid, std::string>* names) { names_ = names; }

  std::string name(uid id) const {
    if (names_ != nullptr)
      if (const auto it = names_->find(id); it != names_->end()) return it->second;
    return "#" + std::to_string(id);
  }

  // Appends an entry; returns its sequence number (0, 1, 2, ...).
  std::size_t add(std::string entry) {
    std::lock_guard lock(mutex_);
    entries_.push_back(std::move(entry));
    return entries_.size() - 1;
  }
  std::size_t next_seq() {
    std::lock_guard lock(mutex_);
    return seq_++;
  }

  std::vector<std::string> entries() const {
    std::lock_guard lock(mutex_);
    return entries_;
  }
  // Position of the first entry equal to `e`, or npos.
  std::size_t index_of(std::string_view e) const {
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < entries_.size(); ++i)
      if (entries_[i] == e) return i;
    return npos;
  }
  // Position of the first entry starting with `prefix`, or npos.
  std::size_t first_with(std::string_view prefix) const {
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < entries_.size(); ++i)
      if (entries_[i].rfind(prefix, 0) == 0) return i;
    return npos;
  }
  std::size_t last_with(std::string_view prefix) const {
    std::lock_guard lock(mutex_);
    std::size_t found = npos;
    for (std::size_t i = 0; i < entries_.size(); ++i)
      if (entries_[i].rfind(prefix, 0) == 0) found = i;
    return found;
  }

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

 private:
  const std::map<uid, std::string>* names_;
  mutable std::mutex mutex_;
  std::vector<std::string> entries_;
  std::size_t seq_ = 0;
};

// ---- the eviction client -----------------------------------------------------------------------

// How the fake API server answers for one victim (upstream TestPrepareCandidate reactors).
enum class api : std::uint8_t {
  normal,            // patch the condition, delete: evicted
  has_condition,     // the condition is already there: no patch; delete: evicted (PC5, PC6)
  gone,              // the pod no longer exists: the patch answers NotFound, no delete (PC4)
  patch_fails,       // the patch fails: "patch pod status failed" (PC9, PC10)
  delete_fails,      // patch, then the delete fails: "delete pod failed" (PC7, "fail-victim")
  delete_not_found,  // patch, then the delete answers NotFound: success (PC8)
};

inline constexpr std::string_view delete_failed = "delete pod failed";
inline constexpr std::string_view patch_failed = "patch pod status failed";

struct call {
  uid victim = 0;
  uid preemptor = 0;
  preempt::eviction_outcome outcome = preempt::eviction_outcome::evicted;
  bool patched = false;            // a status patch was sent
  bool deleted = false;            // a delete was sent and not refused (accepted, or NotFound)
  bool in_flight = false;          // table.in_flight(preemptor) when the call began
  bool gate = false;               // table.is_preemption_running(preemptor) when the call began
  std::optional<uid> last_victim;  // table.last_victim_of(preemptor) when the call began
  std::size_t begin_seq = 0, end_seq = 0;
  bool accepted() const noexcept { return outcome == preempt::eviction_outcome::evicted; }
  bool ok() const noexcept { return outcome != preempt::eviction_outcome::failed; }
};

class fake_client {
 public:
  explicit fake_client(const preempt::in_flight_table<pod>* table = nullptr,
                       event_log* log = nullptr)
      : table_(table), log_(log) {}
  fake_client(const fake_client&) = delete;
  fake_client& operator=(const fake_client&) = delete;

  void set(uid victim, api behaviour) {
    std::lock_guard lock(mutex_);
    behaviour_[victim] = behaviour;
  }

  // Runs inside evict, after the simulated API calls, with the result about to be returned.
  std::function<void(const pod& victim, const pod& preemptor, preempt::eviction_result)> during;

  // Evictions started after hold() block until release().
  void hold() {
    std::lock_guard lock(mutex_);
    held_ = true;
  }
  void release() {
    {
      std::lock_guard lock(mutex_);
      held_ = false;
    }
    cv_.notify_all();
  }
  // Waits until `n` evictions are parked by hold().
  void wait_parked(std::size_t n) {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return parked_ >= n; });
  }

  preempt::eviction_result evict(const pod& victim, const pod& preemptor) {
    call c;
    c.victim = victim.uid();
    c.preemptor = preemptor.uid();
    if (table_ != nullptr) {
      c.in_flight = table_->in_flight(preemptor.uid());
      c.gate = table_->is_preemption_running(preemptor.uid());
      c.last_victim = table_->last_victim_of(preemptor.uid());
    }
    if (log_ != nullptr) {
      c.begin_seq = log_->next_seq();
      log_->add("evict " + log_->name(c.victim));
    }
    api b = api::normal;
    {
      std::unique_lock lock(mutex_);
      if (held_) {
        ++parked_;
        cv_.notify_all();
        cv_.wait(lock, [&] { return !held_; });
        --parked_;
      }
      if (const auto it = behaviour_.find(c.victim); it != behaviour_.end()) b = it->second;
    }
    preempt::eviction_result r = preempt::eviction_result::evicted();
    switch (b) {
      case api::normal: c.patched = c.deleted = true; break;
      case api::has_condition: c.deleted = true; break;
      case api::gone:
        c.patched = true;
        r = preempt::eviction_result::not_found();
        break;
      case api::patch_fails:
        c.patched = true;
        r = preempt::eviction_result::failed(patch_failed);
        break;
      case api::delete_fails:
        c.patched = true;
        r = preempt::eviction_result::failed(delete_failed);
        break;
      case api::delete_not_found:
        c.patched = c.deleted = true;
        r = preempt::eviction_result::not_found();
        break;
    }
    c.outcome = r.outcome;
    if (during) during(victim, preemptor, r);
    if (log_ != nullptr) c.end_seq = log_->next_seq();
    {
      std::lock_guard lock(mutex_);
      calls_.push_back(c);
    }
    return r;
  }

  std::vector<call> calls() const {
    std::lock_guard lock(mutex_);
    return calls_;
  }
  std::size_t call_count() const {
    std::lock_guard lock(mutex_);
    return calls_.size();
  }
  // Calls for this victim.
  std::size_t count(uid victim) const {
    std::lock_guard lock(mutex_);
    std::size_t n = 0;
    for (const call& c : calls_) n += c.victim == victim ? 1 : 0;
    return n;
  }
  bool attempted(uid victim) const { return count(victim) != 0; }
  // The victims whose delete went through (accepted or NotFound), in call order: upstream's
  // "deleted pods" of TestPrepareCandidate.
  std::vector<uid> deleted() const {
    std::lock_guard lock(mutex_);
    std::vector<uid> out;
    for (const call& c : calls_)
      if (c.deleted && c.ok()) out.push_back(c.victim);
    return out;
  }
  // The victims whose deletion the API accepted (eviction_outcome::evicted).
  std::vector<uid> accepted() const {
    std::lock_guard lock(mutex_);
    std::vector<uid> out;
    for (const call& c : calls_)
      if (c.accepted()) out.push_back(c.victim);
    return out;
  }

 private:
  const preempt::in_flight_table<pod>* table_;
  event_log* log_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::map<uid, api> behaviour_;
  std::vector<call> calls_;
  bool held_ = false;
  std::size_t parked_ = 0;
};

static_assert(preempt::eviction_client<fake_client, pod>);

// ---- hooks -------------------------------------------------------------------------------------

struct finished_work {
  uid preemptor = 0;
  bool success = false;
  std::chrono::nanoseconds elapsed{0};
};

class recorder {
 public:
  explicit recorder(event_log* log = nullptr, const preempt::in_flight_table<pod>* table = nullptr)
      : log_(log), table_(table) {}
  recorder(const recorder&) = delete;
  recorder& operator=(const recorder&) = delete;

  void reactivate(const pod& p) {
    const bool still_in_flight = table_ != nullptr && table_->in_flight(p.uid());
    if (log_ != nullptr) log_->add("reactivate " + log_->name(p.uid()));
    std::lock_guard lock(mutex_);
    reactivated_.push_back(p.uid());
    if (still_in_flight) ++reactivated_in_flight_;
  }
  void cleared(std::size_t node, std::span<const uid> pods) {
    std::vector<uid> ids;
    std::string entry = "cleared node" + std::to_string(node) + ":";
    for (const uid& p : pods) {
      ids.push_back(p);
      if (log_ != nullptr) entry += " " + log_->name(p);
    }
    if (log_ != nullptr) log_->add(entry);
    std::lock_guard lock(mutex_);
    cleared_.emplace_back(node, std::move(ids));
  }
  void dispatched(const pod& p, std::size_t victims) {
    std::lock_guard lock(mutex_);
    dispatched_.emplace_back(p.uid(), victims);
  }
  void finished(const pod& p, bool success, std::chrono::nanoseconds elapsed) {
    if (log_ != nullptr) log_->add("finished " + log_->name(p.uid()));
    std::lock_guard lock(mutex_);
    finished_.push_back({p.uid(), success, elapsed});
  }

  std::size_t reactivations(uid p) const {
    std::lock_guard lock(mutex_);
    std::size_t n = 0;
    for (uid r : reactivated_) n += r == p ? 1 : 0;
    return n;
  }
  std::vector<uid> reactivated() const {
    std::lock_guard lock(mutex_);
    return reactivated_;
  }
  // Reactivations that happened while the preemptor was still in the in-flight set.
  std::size_t reactivated_in_flight() const {
    std::lock_guard lock(mutex_);
    return reactivated_in_flight_;
  }
  std::vector<std::pair<std::size_t, std::vector<uid>>> cleared() const {
    std::lock_guard lock(mutex_);
    return cleared_;
  }
  std::vector<std::pair<uid, std::size_t>> dispatched() const {
    std::lock_guard lock(mutex_);
    return dispatched_;
  }
  std::vector<finished_work> finished() const {
    std::lock_guard lock(mutex_);
    return finished_;
  }
  std::optional<finished_work> finished_of(uid p) const {
    std::lock_guard lock(mutex_);
    for (const finished_work& f : finished_)
      if (f.preemptor == p) return f;
    return std::nullopt;
  }

 private:
  event_log* log_;
  const preempt::in_flight_table<pod>* table_;
  mutable std::mutex mutex_;
  std::vector<uid> reactivated_;
  std::size_t reactivated_in_flight_ = 0;
  std::vector<std::pair<std::size_t, std::vector<uid>>> cleared_;
  std::vector<std::pair<uid, std::size_t>> dispatched_;
  std::vector<finished_work> finished_;
};

// Every dispatcher hook, forwarded to a recorder.
struct recording_hooks {
  recorder* rec = nullptr;

  void reactivate(const pod& p) const { rec->reactivate(p); }
  void nominations_cleared(std::size_t node, std::span<const preempt::pod_uid_t<pod>> pods) const {
    rec->cleared(node, pods);
  }
  void on_preemption_dispatched(const pod& p, std::size_t victims) const {
    rec->dispatched(p, victims);
  }
  template <class Duration>
  void on_async_finished(const pod& p, bool success, Duration elapsed) const {
    rec->finished(p, success, std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed));
  }
};

// preempt::metrics_hooks (the library's metric forwarding) plus reactivate and clearing.
struct metric_hooks : preempt::metrics_hooks {
  recorder* rec = nullptr;

  void reactivate(const pod& p) const { rec->reactivate(p); }
  void nominations_cleared(std::size_t node, std::span<const preempt::pod_uid_t<pod>> pods) const {
    rec->cleared(node, pods);
  }
};

// ---- a clock moved by hand -------------------------------------------------------------------

struct fake_clock {
  using duration = std::chrono::nanoseconds;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<fake_clock>;
  static constexpr bool is_steady = true;

  static time_point now() noexcept { return time_point(duration(ticks.load())); }
  static void advance(duration d) noexcept { ticks.fetch_add(d.count()); }

  static inline std::atomic<rep> ticks{0};
};

// ---- executor fixtures -------------------------------------------------------------------------

struct inline_x {
  static constexpr std::string_view name = "inline";
  static constexpr bool async = false;
  static constexpr bool threaded = false;
  using executor_type = preempt::inline_executor;

  executor_type executor() const noexcept { return {}; }
  std::size_t finish() noexcept { return 0; }
};

template <order O>
struct manual_x {
  static constexpr std::string_view name = O == order::fifo   ? "manual-fifo"
                                           : O == order::lifo ? "manual-lifo"
                                                              : "manual-shuffled";
  static constexpr bool async = true;
  static constexpr bool threaded = false;
  using executor_type = preempt::manual_executor;

  manual_x() { ctx.seed(0xD15EA5E); }
  manual_x(const manual_x&) = delete;
  manual_x& operator=(const manual_x&) = delete;
  ~manual_x() { finish(); }

  executor_type executor() noexcept { return ctx.get_executor(); }
  std::size_t finish() { return ctx.drain(O); }

  preempt::manual_context ctx;
};

using manual_fifo = manual_x<order::fifo>;
using manual_lifo = manual_x<order::lifo>;
using manual_shuffled = manual_x<order::shuffled>;

struct pool_x {
  static constexpr std::string_view name = "pool";
  static constexpr bool async = true;
  static constexpr bool threaded = true;
  using executor_type = preempt::pool_executor;

  executor_type executor() noexcept { return pool.get_executor(); }
  std::size_t finish() noexcept { return 0; }

  preempt::thread_pool pool{3};
};

// ---- a dispatcher with its collaborators -------------------------------------------------------

template <class Hooks>
struct default_hooks_factory {
  Hooks operator()(recorder& r) const { return Hooks{&r}; }
};

template <class X, class Hooks = recording_hooks, class Clock = std::chrono::steady_clock>
struct rig {
  using dispatcher_type = preempt::dispatcher<pod, typename X::executor_type, fake_client, Hooks,
                                              std::shared_mutex, Clock>;

  template <class MakeHooks = default_hooks_factory<Hooks>>
  explicit rig(const std::map<uid, std::string>* names = nullptr, std::size_t nodes = 4,
               MakeHooks make_hooks = {})
      : ledger(nodes),
        log(names),
        client(&table, &log),
        rec(&log, &table),
        disp(ledger, table, client, x.executor(), make_hooks(rec)) {}
  rig(const rig&) = delete;
  rig& operator=(const rig&) = delete;
  ~rig() { settle(); }

  // Runs everything queued and waits for the background work.
  void settle() {
    x.finish();
    disp.wait_idle();
  }

  preempt::nomination_ledger<pod> ledger;
  preempt::in_flight_table<pod> table;
  event_log log;
  fake_client client;
  recorder rec;
  X x;
  dispatcher_type disp;
};

}  // namespace evf

TYPE_TO_STRING(evf::inline_x);
TYPE_TO_STRING(evf::manual_fifo);
TYPE_TO_STRING(evf::manual_lifo);
TYPE_TO_STRING(evf::manual_shuffled);
TYPE_TO_STRING(evf::pool_x);

// Executor fixtures for TEST_CASE_TEMPLATE.
#define EVF_EXECUTORS \
  evf::inline_x, evf::manual_fifo, evf::manual_lifo, evf::manual_shuffled, evf::pool_x
#define EVF_ASYNC_EXECUTORS evf::manual_fifo, evf::manual_lifo, evf::manual_shuffled, evf::pool_x

#endif  // PREEMPT_TESTS_SUPPORT_EVICTION_FAKES_HPP
