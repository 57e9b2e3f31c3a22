// Completion-based eviction (eviction.hpp: async_eviction_client, eviction_completion) and the
// dispatcher's stop token (dispatcher.hpp):
//   - the same preemptions as with a blocking client give the same bookkeeping: which victims are
//     evicted, in which order relative to the last victim, the gate, the re-activations, the
//     cleared nominations (the fake API of tests/support/eviction_fakes.hpp, its calls completed
//     later from a thread of the client's own);
//   - an eviction completed from another thread, long after start_eviction returned, with an error
//     message the client owns and frees right after: the dispatcher reports its own copy;
//   - inline dispatch waits for the completion;
//   - a stop token: work not yet started fails without calling the client, the preemptor is
//     re-activated, claims are released, and apply refuses new work; wait_idle(stop_token) returns
//     when its own token is stopped.
#include <doctest/doctest.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/eviction_fakes.hpp"
#include "support/fixtures.hpp"

namespace async_eviction_test {

namespace {

using evf::api;
using evf::pod;
using evf::uid;
using fx::high;
using fx::low;

// Completes each eviction later, on a thread of its own, with what the fake API answers: the
// shape of a client over an asynchronous API (a callback from an HTTP library's event loop).
class later_client {
 public:
  explicit later_client(evf::fake_client* api) : api_(api), worker_([this] { work(); }) {}
  later_client(const later_client&) = delete;
  later_client& operator=(const later_client&) = delete;
  ~later_client() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }

  void start_eviction(const pod& victim, const pod& preemptor, preempt::eviction_completion done) {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back({&victim, &preemptor, done});
    }
    cv_.notify_all();
  }

 private:
  struct pending {
    const pod* victim;
    const pod* preemptor;
    preempt::eviction_completion done;
  };

  void work() {
    std::unique_lock lock(mutex_);
    for (;;) {
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      pending p = queue_.front();
      queue_.pop_front();
      lock.unlock();
      const preempt::eviction_result r = api_->evict(*p.victim, *p.preemptor);
      // The message in a buffer of the client's own, gone once done() returned.
      std::string owned(r.message);
      p.done(preempt::eviction_result{r.outcome, owned});
      owned.assign(owned.size(), '#');
      lock.lock();
    }
  }

  evf::fake_client* api_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<pending> queue_;
  bool stopping_ = false;
  std::thread worker_;
};

static_assert(preempt::async_eviction_client<later_client, pod>);
static_assert(!preempt::eviction_client<later_client, pod>);

// Parks completions until the test completes them itself.
struct parked_client {
  struct pending {
    uid victim;
    preempt::eviction_completion done;
  };
  std::mutex mutex;
  std::vector<pending> parked;

  void start_eviction(const pod& victim, const pod&, preempt::eviction_completion done) {
    std::lock_guard lock(mutex);
    parked.push_back({victim.uid(), done});
  }
  std::vector<pending> take() {
    std::lock_guard lock(mutex);
    return std::exchange(parked, {});
  }
};

struct failure_log {
  std::mutex mutex;
  std::vector<std::string> messages;
};

struct hooks {
  evf::recorder* rec = nullptr;
  failure_log* failures = nullptr;
  void reactivate(const pod& p) const { rec->reactivate(p); }
  void nominations_cleared(std::size_t node, std::span<const preempt::pod_uid_t<pod>> pods) const {
    rec->cleared(node, pods);
  }
  void on_eviction_failed(const pod&, const uid&, std::string_view message) const {
    if (failures == nullptr) return;
    std::lock_guard lock(failures->mutex);
    failures->messages.emplace_back(message);
  }
};

// One preemption's outcome, as the tests compare it.
struct outcome {
  std::vector<uid> attempted;  // the victims the API saw, in order of the last one
  bool last_attempted = false;
  std::size_t reactivations = 0;
  bool gated = false;
  std::vector<std::pair<std::size_t, std::vector<uid>>> cleared;
  std::size_t claims_left = 0;
};

// Runs one async preemption of `defs` victims with the blocking fake client, or through the
// later_client over the same fake API, and reports what happened.
template <bool Later>
outcome run_once(const std::vector<api>& defs) {
  evf::scene s;
  preempt::nomination_ledger<pod> ledger(2);
  preempt::in_flight_table<pod> table;
  evf::event_log log(&s.names);
  evf::fake_client fake(&table, &log);
  evf::recorder rec(&log, &table);
  const pod& p = s.add("p", high);
  const pod& nominee = s.add("nominee", low);
  ledger.nominate(nominee, 1);
  std::vector<const pod*> victims;
  for (std::size_t i = 0; i < defs.size(); ++i) {
    const pod& v = s.add("v" + std::to_string(i), low);
    fake.set(v.uid(), defs[i]);
    victims.push_back(&v);
  }
  outcome o;
  preempt::thread_pool pool(2);
  {
    if constexpr (Later) {
      later_client client(&fake);
      preempt::dispatcher<pod, preempt::pool_executor, later_client, hooks> d(
          ledger, table, client, pool.get_executor(), hooks{&rec, nullptr});
      REQUIRE(d.preempt_on(p, 1, victims).started);
      d.wait_idle();
    } else {
      preempt::dispatcher<pod, preempt::pool_executor, evf::fake_client, hooks> d(
          ledger, table, fake, pool.get_executor(), hooks{&rec, nullptr});
      REQUIRE(d.preempt_on(p, 1, victims).started);
      d.wait_idle();
    }
  }
  std::vector<uid> attempted;
  for (const evf::call& c : fake.calls()) attempted.push_back(c.victim);
  std::sort(attempted.begin(), attempted.end());
  o.attempted = attempted;
  o.last_attempted = fake.attempted(victims.back()->uid());
  o.reactivations = rec.reactivations(p.uid());
  o.gated = table.is_preemption_running(p.uid());
  o.cleared = rec.cleared();
  o.claims_left = table.victims_in_flight();
  return o;
}

}  // namespace

TEST_CASE("async eviction: completed later on the client's thread, the bookkeeping is the same") {
  const std::vector<std::vector<api>> cases = {
      {api::normal},
      {api::normal, api::normal, api::normal},
      {api::delete_fails, api::normal, api::normal},  // the last victim is skipped
      {api::normal, api::normal, api::delete_fails},  // the last victim fails
      {api::gone, api::normal, api::gone},            // the last one already gone: woken
      {api::patch_fails},
      {api::normal, api::delete_not_found},
  };
  for (const std::vector<api>& c : cases) {
    CAPTURE(c.size());
    const outcome blocking = run_once<false>(c);
    const outcome later = run_once<true>(c);
    CHECK(later.attempted == blocking.attempted);
    CHECK(later.last_attempted == blocking.last_attempted);
    CHECK(later.reactivations == blocking.reactivations);
    CHECK(later.gated == blocking.gated);
    CHECK(later.cleared == blocking.cleared);
    CHECK(later.claims_left == blocking.claims_left);
  }
}

TEST_CASE("async eviction: completions from another thread, in any order, gate as blocking does") {
  evf::scene s;
  preempt::nomination_ledger<pod> ledger(1);
  preempt::in_flight_table<pod> table;
  evf::recorder rec;
  failure_log failures;
  parked_client client;
  preempt::manual_context ctx;
  const pod& p = s.add("p", high);
  const pod& v1 = s.add("v1", low);
  const pod& v2 = s.add("v2", low);
  const pod& v3 = s.add("v3", low);
  const std::vector<const pod*> victims{&v1, &v2, &v3};
  preempt::dispatcher<pod, preempt::manual_executor, parked_client, hooks> d(
      ledger, table, client, ctx.get_executor(), hooks{&rec, &failures});
  REQUIRE(d.preempt_on(p, 0, victims).started);
  ctx.drain();
  // The first two evictions started; the last waits for them.
  std::vector<parked_client::pending> first = client.take();
  REQUIRE(first.size() == 2);
  CHECK(d.is_preemption_running(p.uid()));
  CHECK_FALSE(table.last_victim_of(p.uid()).has_value());
  // Completed in reverse order, from another thread.
  std::thread([&] {
    first[1].done.evicted();
    first[0].done.evicted();
  }).join();
  ctx.drain();
  std::vector<parked_client::pending> last = client.take();
  REQUIRE(last.size() == 1);
  CHECK(last[0].victim == v3.uid());
  CHECK(table.last_victim_of(p.uid()) == std::optional<uid>(v3.uid()));
  CHECK(d.jobs_running() == 1);
  std::thread([&] { last[0].done.evicted(); }).join();
  // Accepted: the deletion is still to come, and its event will wake the preemptor.
  CHECK(d.jobs_running() == 0);
  CHECK(rec.reactivations(p.uid()) == 0);
  CHECK_FALSE(d.is_preemption_running(p.uid()));  // the work left the in-flight set
  CHECK(failures.messages.empty());
}

TEST_CASE("async eviction: a failure's message is the client's own text, copied") {
  evf::scene s;
  preempt::nomination_ledger<pod> ledger(1);
  preempt::in_flight_table<pod> table;
  evf::recorder rec;
  failure_log failures;
  parked_client client;
  preempt::manual_context ctx;
  const pod& p = s.add("p", high);
  const pod& v1 = s.add("v1", low);
  const pod& v2 = s.add("v2", low);
  const std::vector<const pod*> victims{&v1, &v2};
  preempt::dispatcher<pod, preempt::manual_executor, parked_client, hooks> d(
      ledger, table, client, ctx.get_executor(), hooks{&rec, &failures});
  REQUIRE(d.preempt_on(p, 0, victims).started);
  ctx.drain();
  std::vector<parked_client::pending> first = client.take();
  REQUIRE(first.size() == 1);
  std::thread([&] {
    auto text = std::make_unique<std::string>("pods \"v1\" is forbidden: unable to evict");
    first[0].done.failed(*text);
    text.reset();  // the client's buffer is gone once failed() returned
  }).join();
  ctx.drain();
  CHECK(client.take().empty());  // the last victim is skipped
  CHECK(rec.reactivations(p.uid()) == 1);
  CHECK_FALSE(d.is_preemption_running(p.uid()));
  CHECK(table.victims_in_flight() == 0);
  REQUIRE(failures.messages.size() == 1);
  CHECK(failures.messages[0] == "pods \"v1\" is forbidden: unable to evict");
}

TEST_CASE("async eviction: inline dispatch waits for the completion, and keeps the message") {
  evf::scene s;
  preempt::nomination_ledger<pod> ledger(1);
  preempt::in_flight_table<pod> table;
  const pod& p = s.add("p", high);
  const pod& v1 = s.add("v1", low);
  const pod& v2 = s.add("v2", low);
  struct threaded_client {
    int calls = 0;
    void start_eviction(const pod& victim, const pod&, preempt::eviction_completion done) {
      ++calls;
      const bool fail = victim.uid() == 3;
      std::thread([done, fail] {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        if (fail) {
          std::string text = "the API server is unavailable";
          done.failed(text);
        } else {
          done.evicted();
        }
      }).detach();
    }
  } client;
  REQUIRE(v2.uid() == 3);
  preempt::dispatcher<pod, preempt::inline_executor, threaded_client> d(ledger, table, client,
                                                                        preempt::inline_executor{});
  const std::vector<const pod*> victims{&v1, &v2};
  const preempt::dispatch_result r = d.preempt_on(p, 0, victims);
  CHECK(client.calls == 2);
  CHECK(r.evictions == 2);
  CHECK(r.outcome.code() == preempt::status_code::error);
  CHECK(r.outcome.reason() == "the API server is unavailable");
  CHECK(ledger.node_of(p.uid()) == std::nullopt);  // a failed inline preemption nominates nothing
  CHECK(table.victims_in_flight() == 0);
}

#if PREEMPT_HAS_STOP_TOKEN
TEST_CASE("stop token: outstanding evictions fail without the client, apply refuses new work") {
  evf::scene s;
  preempt::nomination_ledger<pod> ledger(2);
  preempt::in_flight_table<pod> table;
  evf::recorder rec;
  failure_log failures;
  evf::fake_client fake(&table);
  preempt::manual_context ctx;
  std::stop_source stop;
  const pod& p = s.add("p", high);
  const pod& v1 = s.add("v1", low);
  const pod& v2 = s.add("v2", low);
  const std::vector<const pod*> victims{&v1, &v2};
  preempt::dispatcher<pod, preempt::manual_executor, evf::fake_client, hooks> d(
      ledger, table, fake, ctx.get_executor(), hooks{&rec, &failures}, stop.get_token());
  REQUIRE(d.preempt_on(p, 0, victims).started);
  CHECK(table.victims_in_flight() == 2);
  stop.request_stop();
  CHECK(d.stop_requested());
  ctx.drain();
  CHECK(fake.call_count() == 0);  // nothing reached the API
  CHECK(rec.reactivations(p.uid()) == 1);
  CHECK_FALSE(d.is_preemption_running(p.uid()));
  CHECK(table.victims_in_flight() == 0);
  REQUIRE_FALSE(failures.messages.empty());
  CHECK(failures.messages[0] == preempt::dispatch_stopped);
  // New work is refused, changing nothing.
  const pod& q = s.add("q", high);
  const preempt::dispatch_result r = d.preempt_on(q, 1, victims);
  CHECK(r.outcome.reason() == preempt::dispatch_stopped);
  CHECK(ledger.node_of(q.uid()) == std::nullopt);
  CHECK(d.jobs_running() == 0);
}

TEST_CASE("stop token: the completion carries it, a client cancels its call and completes it") {
  evf::scene s;
  preempt::nomination_ledger<pod> ledger(1);
  preempt::in_flight_table<pod> table;
  evf::recorder rec;
  parked_client client;
  preempt::manual_context ctx;
  std::stop_source stop;
  const pod& p = s.add("p", high);
  const pod& v1 = s.add("v1", low);
  const std::vector<const pod*> victims{&v1};
  preempt::dispatcher<pod, preempt::manual_executor, parked_client, hooks> d(
      ledger, table, client, ctx.get_executor(), hooks{&rec, nullptr}, stop.get_token());
  REQUIRE(d.preempt_on(p, 0, victims).started);
  ctx.drain();
  std::vector<parked_client::pending> started = client.take();
  REQUIRE(started.size() == 1);
  bool cancelled = false;
  std::stop_callback on_stop(started[0].done.stop_token(), [&] { cancelled = true; });
  stop.request_stop();
  CHECK(cancelled);
  started[0].done.failed("context canceled");
  CHECK(rec.reactivations(p.uid()) == 1);
  CHECK(d.jobs_running() == 0);
}

TEST_CASE("stop token: wait_idle returns when its own token is stopped") {
  evf::scene s;
  preempt::nomination_ledger<pod> ledger(1);
  preempt::in_flight_table<pod> table;
  evf::recorder rec;
  parked_client client;
  preempt::manual_context ctx;
  const pod& p = s.add("p", high);
  const pod& v1 = s.add("v1", low);
  const std::vector<const pod*> victims{&v1};
  preempt::dispatcher<pod, preempt::manual_executor, parked_client, hooks> d(
      ledger, table, client, ctx.get_executor(), hooks{&rec, nullptr});
  REQUIRE(d.preempt_on(p, 0, victims).started);
  ctx.drain();  // the eviction started; its completion is parked
  std::stop_source give_up;
  std::thread waker([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    give_up.request_stop();
  });
  CHECK_FALSE(d.wait_idle(give_up.get_token()));  // the work is still outstanding
  waker.join();
  for (parked_client::pending& pending : client.take()) pending.done.evicted();
  std::stop_source unused;
  CHECK(d.wait_idle(unused.get_token()));
}
#endif

}  // namespace async_eviction_test
