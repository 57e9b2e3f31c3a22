// Plugging a foreign runtime into preempt: a few lines of adapter.
//
//   preempt-foreign-executor-adapter
//
// `event_loop` stands for any runtime with a "post a std::function" API (an Asio io_context, a
// Folly executor, a GUI loop, an embedded scheduler). The adapter is the six-line
// `loop_executor`: it wraps the library's task_ref (two pointers) in the runtime's callable. The
// evaluator then runs its dry run on the loop's thread and on the calling thread together, and
// gives the same decision as the inline executor.
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "preempt/preempt.hpp"

namespace {

// A minimal foreign runtime: one thread running posted callables in order.
class event_loop {
 public:
  event_loop() : thread_([this] { run(); }) {}
  ~event_loop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  void post(std::function<void()> work) {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(std::move(work));
    }
    wake_.notify_one();
  }

 private:
  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      auto work = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      work();
      lock.lock();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

// The adapter: everything preempt needs from a runtime.
struct loop_executor {
  event_loop* loop;
  void execute(preempt::task_ref t) const {
    loop->post([t] { t(); });
  }
};
static_assert(preempt::executor<loop_executor>);

}  // namespace

int main() {
  using pod = preempt::model::resource_pod;
  preempt::model::resource_cluster cluster;
  for (int n = 0; n < 64; ++n) {
    const auto i = cluster.add_node("node-" + std::to_string(n), {4000, 8LL << 30, 110});
    for (int k = 0; k < 4; ++k)
      cluster.add_pod(i, pod({.uid = static_cast<preempt::model::pod_id>(n * 10 + k + 1),
                              .priority = (n + k) % 3 * 100,
                              .requests = {900, 1LL << 29},
                              .start_time = n * 100 + k}));
  }
  const pod preemptor(
      {.uid = 100000, .priority = 1000, .requests = {3000, 1LL << 29}, .start_time = {}});
  preempt::filter_statuses statuses(cluster.size(), preempt::status_code::unschedulable);

  preempt::evaluator_config config;
  config.parallelism = 2;         // the calling thread and one helper on the loop
  config.min_parallel_nodes = 0;  // the helpers take any dry run
  config.chunk = 4;
  config.sampling.min_candidate_nodes_absolute = 64;
  config.sampling.min_candidate_nodes_percentage = 100;
  preempt::evaluator<preempt::model::resource_cluster> sequential(config);
  event_loop loop;
  {
    preempt::evaluator<preempt::model::resource_cluster> on_loop(config);
    const auto& a = sequential.evaluate(preemptor, cluster, statuses, preempt::no_budgets{},
                                        preempt::no_nominations{}, preempt::inline_executor{},
                                        preempt::attempt{.offset = 0, .nominated_node = {}});
    const auto& b = on_loop.evaluate(preemptor, cluster, statuses, preempt::no_budgets{},
                                     preempt::no_nominations{}, loop_executor{&loop},
                                     preempt::attempt{.offset = 0, .nominated_node = {}});
    std::printf("inline executor:     nominate %s, %zu victims, %zu nodes evaluated\n",
                std::string(a.node_name).c_str(), a.victims.size(), a.diagnosis.size());
    std::printf("event-loop executor: nominate %s, %zu victims, %zu nodes evaluated\n",
                std::string(b.node_name).c_str(), b.victims.size(), b.diagnosis.size());
    if (a.node_index != b.node_index || a.victims.size() != b.victims.size()) {
      std::printf("the executors disagree\n");
      return 1;
    }
  }  // on_loop waits here for any helper it lent to the loop
  std::printf("same decision on both executors\n");
  return 0;
}
