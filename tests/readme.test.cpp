// The README's short example, kept compiling and correct.
#include <doctest/doctest.h>

#include "preempt/preempt.hpp"

TEST_CASE("README example: one node, one victim") {
  using preempt::model::resource_pod;

  preempt::model::resource_cluster cluster;
  auto n = cluster.add_node("node-a", {4000, 8LL << 30, 110});
  cluster.add_pod(
      n, resource_pod({.uid = 1, .priority = 0, .requests = {3000, 1LL << 30}, .start_time = 0}));

  const resource_pod preemptor(
      {.uid = 2, .priority = 1000, .requests = {2000, 1LL << 30}, .start_time = {}});

  preempt::filter_statuses statuses(cluster.size(), preempt::status_code::unschedulable);
  preempt::nomination_ledger<resource_pod> nominations(cluster.size());
  preempt::evaluator<preempt::model::resource_cluster> evaluator;

  const auto& d = evaluator.evaluate(preemptor, cluster, statuses, preempt::no_budgets{},
                                     nominations.reader(), preempt::inline_executor{});
  REQUIRE(d.kind == preempt::decision_kind::nominated);
  CHECK(d.node_name == "node-a");
  REQUIRE(d.victims.size() == 1);
  CHECK(d.victims[0]->uid() == 1);

  const resource_pod small({.uid = 3, .priority = 0, .requests = {100, 1}, .start_time = {}});
  const auto& none = evaluator.evaluate(small, cluster, statuses, preempt::no_budgets{},
                                        nominations.reader(), preempt::inline_executor{});
  CHECK(none.kind == preempt::decision_kind::unschedulable);
  CHECK(none.message ==
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.");
}

// ---- The README's integration example (Asynchronous preemption), with a fake HTTP client ------

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "preempt/thread_pool.hpp"

namespace readme {

using preempt::model::resource_pod;

// An asynchronous HTTP client: delete_pod answers later, on its own thread.
class http_client {
 public:
  http_client() : thread_([this] { serve(); }) {}
  ~http_client() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void delete_pod(preempt::model::pod_id uid, std::function<void(int, std::string)> reply) {
    {
      std::lock_guard lock(mutex_);
      calls_.push_back({uid, std::move(reply)});
    }
    cv_.notify_all();
  }
  std::set<preempt::model::pod_id> forbidden;  // answered 403

 private:
  struct call {
    preempt::model::pod_id uid;
    std::function<void(int, std::string)> reply;
  };
  void serve() {
    std::unique_lock lock(mutex_);
    for (;;) {
      cv_.wait(lock, [&] { return stopping_ || !calls_.empty(); });
      if (calls_.empty()) return;
      call c = std::move(calls_.front());
      calls_.pop_front();
      lock.unlock();
      if (forbidden.count(c.uid) != 0)
        c.reply(403, "pods \"" + std::to_string(c.uid) + "\" is forbidden: PodDisruptionBudget");
      else
        c.reply(200, "");
      lock.lock();
    }
  }
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<call> calls_;
  bool stopping_ = false;
  std::thread thread_;
};

struct scheduling_queue {
  std::mutex mutex;
  std::vector<preempt::model::pod_id> activated;
  std::function<bool(preempt::model::pod_id)> gate;
};

struct my_hooks {
  scheduling_queue* queue;
  void reactivate(const resource_pod& p) const {
    std::lock_guard lock(queue->mutex);
    queue->activated.push_back(p.uid());
  }
};

// As in the README.
struct my_api {  // over your async HTTP client
  void start_eviction(const resource_pod& victim, const resource_pod& preemptor,
                      preempt::eviction_completion done) {
    static_cast<void>(preemptor);
    http.delete_pod(victim.uid(), [done](int code, std::string body) {  // any thread, later
      if (code < 300)
        done.evicted();
      else if (code == 404)
        done.not_found();  // already gone: success
      else
        done.failed(body);  // copied before failed() returns
    });
  }
  http_client& http;
};

}  // namespace readme

TEST_CASE("README example: asynchronous preemption with completion-based evictions") {
  using readme::my_api;
  using readme::my_hooks;
  using readme::resource_pod;

  preempt::model::resource_cluster cluster;
  const auto n = cluster.add_node("node-a", {4000, 8LL << 30, 110});
  cluster.add_pod(
      n, resource_pod({.uid = 1, .priority = 0, .requests = {2000, 1LL << 30}, .start_time = 0}));
  cluster.add_pod(
      n, resource_pod({.uid = 2, .priority = 0, .requests = {1500, 1LL << 30}, .start_time = 5}));
  const resource_pod p(
      {.uid = 3, .priority = 1000, .requests = {3500, 1LL << 30}, .start_time = {}});
  const preempt::filter_statuses statuses(cluster.size(), preempt::status_code::unschedulable);
  const preempt::no_budgets budgets;
  const preempt::inline_executor inline_ex;
  preempt::evaluator<preempt::model::resource_cluster> evaluator;
  readme::http_client http;
  my_api api{http};
  readme::scheduling_queue queue;

  // The README's lines:
  preempt::nomination_ledger<resource_pod> ledger(cluster.size());
  preempt::in_flight_table<resource_pod> in_flight;
  preempt::thread_pool pool(4);  // or any executor, a P2300 scheduler
  preempt::dispatcher<resource_pod, preempt::pool_executor, my_api, my_hooks> dispatch(
      ledger, in_flight, api, pool.get_executor(), my_hooks{&queue});

  const auto& d = evaluator.evaluate(p, cluster, statuses, budgets, ledger.reader(), inline_ex);
  dispatch.apply(p, d);  // returns at once; evictions run on the pool
  queue.gate = [&](auto uid) { return dispatch.is_preemption_running(uid); };  // PreEnqueue

  REQUIRE(d.kind == preempt::decision_kind::nominated);
  REQUIRE(d.victims.size() == 2);
  CHECK(ledger.node_of(p.uid()) == std::optional<std::size_t>(n));
  dispatch.wait_idle();
  // Both deletions were accepted; the last victim's is still to come: the gate opens when the
  // informer reports it, and its deletion event wakes the preemptor.
  const auto uid = d.victims.back()->uid();
  in_flight.report_victim(uid, preempt::victim_state::gone);  // from your informer
  CHECK_FALSE(queue.gate(p.uid()));
  CHECK(queue.activated.empty());

  // A forbidden eviction: the API's own message; the preemptor is woken at once.
  const resource_pod q(
      {.uid = 4, .priority = 2000, .requests = {3500, 1LL << 30}, .start_time = {}});
  http.forbidden = {1, 2};
  const resource_pod v1({.uid = 1, .priority = 0, .requests = {2000, 1LL << 30}, .start_time = 0});
  const resource_pod* const victims[] = {&v1};
  in_flight.report_victim(d.victims.front()->uid(), preempt::victim_state::gone);
  CHECK(dispatch.preempt_on(q, n, victims).started);
  dispatch.wait_idle();
  CHECK(queue.activated == std::vector<preempt::model::pod_id>{4});
  CHECK(in_flight.victims_in_flight() == 0);
}
