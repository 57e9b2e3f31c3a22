// A kube-scheduler-like scheduling loop in the PreemptionAsync shape, simulated in VIRTUAL
// (discrete-event) time: the numbers it prints do not depend on the machine or its load. It
// measures the headline of KEP-4832 with the real library in the loop: does the loop keep its
// regular-pod throughput while preemptions evict victims through a slow API server?
//
//   preempt-async-loop-sim [--output table|json] [--nodes 5000] [--regular-pods 5000]
//       [--rates 5,20] [--latencies-ms 0,5,20,50] [--jitter 0.2] [--failure-rate 0.01]
//       [--qps 50] [--burst 100] [--cycle-cost-ms 1] [--eval-cost-ms 0.5|measured]
//       [--max-time-s 60] [--seed 1]
//
// Workload (upstream test/integration/scheduler_perf, PreemptionAsync): N nodes of 4 CPU / 32Gi /
// 110 slots, each running 4 priority-0 pods of 900m (3.6 CPU used); all regular pods (100m,
// priority 0, always schedulable) are pending at t = 0 and measured; a 3000m priority-10
// preemptor arrives every 1/r s, fits nowhere, and must evict 3 pods of some node.
//
// The loop is one virtual thread that takes the highest-priority pending pod (preemptors first,
// then regular pods, FIFO within a priority) and spends:
//   * cycle cost c (default 1 ms, i.e. a 1000 pods/s baseline as in PR #127829) on every pod:
//     filtering, scoring, assuming; binding is asynchronous and not modelled as blocking;
//   * plus the evaluation cost d_eval on a preemptor that fits nowhere: preempt::evaluator runs
//     FOR REAL on the simulated cluster (the decision is the library's), but its virtual cost is a
//     fixed, documented number (--eval-cost-ms, default 0.5 ms, an upper bound of what the release
//     benchmarks measure for 5000 nodes x 4 pods); "--eval-cost-ms measured" uses the median real
//     time of evaluate() measured once at startup on this machine instead (printed either way);
//   * plus, in inline dispatch only, the eviction API calls, made one after the other.
// The decision is carried out by preempt::dispatcher, in one of three modes on the same workload:
//   baseline  no preemptors at all
//   inline    dispatcher over preempt::inline_executor: the loop blocks for the k evictions
//             (k · L plus throttling), then nominates
//   async     dispatcher over a preempt::manual_context that the simulator drains as virtual time
//             advances: the nomination is immediate, the evictions run "in the background" (all
//             but the last in parallel, then the last) and take virtual API time without blocking
//             the loop; the preemptor is gated (in_flight_table) until its last victim is gone
// The fake API server answers an eviction after L · U(1 - jitter, 1 + jitter), fails it with
// probability --failure-rate, and the client is limited to --qps requests per second with bursts
// of --burst (a token bucket with reservations, as golang.org/x/time/rate used by client-go).
// Only eviction calls are throttled (bindings are not what is measured here). An evicted victim
// is gone (deleted from the cluster, reported to the in-flight table) when its call completes;
// its deletion requeues the preemptors waiting for room (subject to the gate); a failed
// preemption requeues its preemptor at once (async: dispatcher reactivate) or after a 1 s backoff
// (inline: error).
//
// Virtual time and the asynchronous work: a task queued on the manual context gets the virtual
// time at which it was queued, and runs when the simulation reaches it; an eviction inside it
// starts at that time (the last victim: when the parallel ones have all completed) and completes
// L later, when the victim's deletion event fires. The library's own bookkeeping (in-flight set)
// finishes when the task runs, ahead of virtual time; the simulated gate therefore also stays
// closed until the virtual completion of the background work.
//
// Reported per (r, L, mode): regular-pod throughput (measured pods / time until the last one is
// scheduled, or / --max-time-s if they are not all scheduled by then), time to nominate, time
// until the victims are gone and time to bind (from the preemptor's arrival), evictions/s, failed
// eviction calls and failed background preemptions; per (r, L): async_over_baseline,
// inline_over_baseline, and the cost model's prediction for inline,
//   baseline × (1 − r · (d + k · L_eff)),  d = 2c + d_eval (the preemptor's filter cycle with its
//   evaluation, and the cycle that binds it), k = eviction calls per preemption, L_eff = mean API
//   time per eviction including throttling (= L when not throttled); when evictions fail, each of
//   a preemptor's a attempts costs c + d_eval + k · L_eff (a = 1 without failures),
// with the relative error of the prediction. It exits with status 1 if a run with preemptors
// evicted nothing.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "preempt/manual_executor.hpp"
#include "preempt/preempt.hpp"

namespace {

using pod = preempt::model::resource_pod;
using preempt::model::pod_id;
using nanos = std::int64_t;

constexpr nanos ns_per_ms = 1'000'000;
constexpr nanos ns_per_s = 1'000'000'000;
constexpr std::int64_t Mi = std::int64_t{1} << 20;
constexpr std::int64_t Gi = std::int64_t{1} << 30;

double to_ms(nanos t) { return static_cast<double>(t) / static_cast<double>(ns_per_ms); }
double to_s(nanos t) { return static_cast<double>(t) / static_cast<double>(ns_per_s); }
nanos from_ms(double ms) {
  return static_cast<nanos>(std::llround(ms * static_cast<double>(ns_per_ms)));
}

// ---- options ------------------------------------------------------------------------------

struct options {
  bool json = false;
  std::size_t nodes = 5000;
  std::size_t regular_pods = 5000;
  std::vector<double> rates{5, 20};
  std::vector<double> latencies_ms{0, 5, 20, 50};
  double jitter = 0.2;
  double failure_rate = 0.01;
  double qps = 50;
  double burst = 100;
  double cycle_cost_ms = 1.0;
  double eval_cost_ms = 0.5;
  bool eval_cost_measured = false;
  double measured_eval_ms = 0;
  double max_time_s = 60;
  std::uint64_t seed = 1;
};

std::vector<double> parse_list(const char* s) {
  std::vector<double> out;
  std::string item;
  for (const char* p = s;; ++p) {
    if (*p == ',' || *p == '\0') {
      if (!item.empty()) out.push_back(std::strtod(item.c_str(), nullptr));
      item.clear();
      if (*p == '\0') break;
    } else {
      item += *p;
    }
  }
  return out;
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(
      stderr,
      "%s\nusage: preempt-async-loop-sim [--output table|json] [--nodes N] [--regular-pods N]\n"
      "  [--rates 5,20] [--latencies-ms 0,5,20,50] [--jitter 0.2] [--failure-rate 0.01]\n"
      "  [--qps 50] [--burst 100] [--cycle-cost-ms 1] [--eval-cost-ms 0.5|measured]\n"
      "  [--max-time-s 60] [--seed 1]\n",
      why);
  std::exit(2);
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--help" || a == "-h")
      usage("preempt-async-loop-sim: the scheduling loop with inline and async preemption");
    if (i + 1 >= argc) usage(("missing value for " + std::string(a)).c_str());
    const char* v = argv[++i];
    if (a == "--output") {
      if (std::strcmp(v, "json") == 0)
        o.json = true;
      else if (std::strcmp(v, "table") != 0)
        usage("--output takes table or json");
    } else if (a == "--nodes")
      o.nodes = std::strtoull(v, nullptr, 10);
    else if (a == "--regular-pods")
      o.regular_pods = std::strtoull(v, nullptr, 10);
    else if (a == "--rates")
      o.rates = parse_list(v);
    else if (a == "--latencies-ms")
      o.latencies_ms = parse_list(v);
    else if (a == "--jitter")
      o.jitter = std::strtod(v, nullptr);
    else if (a == "--failure-rate")
      o.failure_rate = std::strtod(v, nullptr);
    else if (a == "--qps")
      o.qps = std::strtod(v, nullptr);
    else if (a == "--burst")
      o.burst = std::strtod(v, nullptr);
    else if (a == "--cycle-cost-ms")
      o.cycle_cost_ms = std::strtod(v, nullptr);
    else if (a == "--eval-cost-ms") {
      if (std::strcmp(v, "measured") == 0)
        o.eval_cost_measured = true;
      else
        o.eval_cost_ms = std::strtod(v, nullptr);
    } else if (a == "--max-time-s")
      o.max_time_s = std::strtod(v, nullptr);
    else if (a == "--seed")
      o.seed = std::strtoull(v, nullptr, 10);
    else
      usage(("unknown option " + std::string(a)).c_str());
  }
  if (o.nodes == 0 || o.regular_pods == 0 || o.rates.empty() || o.latencies_ms.empty())
    usage("need nodes, regular pods, rates and latencies");
  return o;
}

// ---- the cluster --------------------------------------------------------------------------

constexpr std::int32_t low_priority = 0;
constexpr std::int32_t preemptor_priority = 10;

preempt::model::resource_vector node_allocatable() { return {4000, 32 * Gi, 110}; }

// ---- API rate limiter ---------------------------------------------------------------------

// golang.org/x/time/rate semantics: a request reserves a token at time t (tokens may go negative)
// and waits until the debt is repaid.
class token_bucket {
 public:
  token_bucket(double qps, double burst) : qps_(qps), burst_(burst), tokens_(burst) {}
  // The wait before a request made at `t` may start.
  nanos reserve(nanos t) {
    if (qps_ <= 0) return 0;
    if (t > last_) {
      tokens_ = std::min(burst_, tokens_ + to_s(t - last_) * qps_);
      last_ = t;
    }
    tokens_ -= 1;
    if (tokens_ >= 0) return 0;
    return static_cast<nanos>(std::ceil(-tokens_ / qps_ * static_cast<double>(ns_per_s)));
  }

 private:
  double qps_, burst_, tokens_;
  nanos last_ = 0;
};

// ---- results ------------------------------------------------------------------------------

enum class mode { baseline, inline_dispatch, async_dispatch };
const char* name_of(mode m) {
  switch (m) {
    case mode::baseline: return "baseline";
    case mode::inline_dispatch: return "inline";
    case mode::async_dispatch: return "async";
  }
  return "?";
}

struct distribution {
  double mean = 0, p50 = 0, p99 = 0;
  std::size_t count = 0;
};

distribution summarize(std::vector<double> v) {
  distribution d;
  d.count = v.size();
  if (v.empty()) return d;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  d.mean = sum / static_cast<double>(v.size());
  const auto at = [&](double q) {
    return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))];
  };
  d.p50 = at(0.5);
  d.p99 = at(0.99);
  return d;
}

struct run_result {
  mode m = mode::baseline;
  double rate = 0;
  double latency_ms = 0;
  double throughput = 0;  // regular pods per second
  std::size_t regular_scheduled = 0;
  bool capped = false;
  double duration_s = 0;
  std::size_t preemptors_arrived = 0, preemptors_nominated = 0, preemptors_bound = 0;
  std::size_t evaluations = 0, dispatches = 0, victims_dispatched = 0;
  double attempts_per_preemptor = 0;  // evaluations per preemptor evaluated at least once
  std::size_t eviction_calls = 0, evictions = 0, failed_calls = 0;
  std::size_t async_failed = 0, async_succeeded = 0, inline_failed = 0;
  double evictions_per_s = 0;
  double victims_per_preemption = 0;
  double api_ms_per_eviction = 0;  // including throttling
  double throttle_ms_total = 0;
  distribution to_nominate_ms, to_victims_gone_ms, to_bind_ms;
};

// ---- the simulation -----------------------------------------------------------------------

class simulation;

struct api_client {
  simulation* sim;
  preempt::eviction_result evict(const pod& victim, const pod& preemptor);
};

struct loop_hooks {
  simulation* sim;
  void reactivate(const pod& p);
  void on_preemption_dispatched(const pod& p, std::size_t victims);
  template <class Duration>
  void on_async_finished(const pod& p, bool success, Duration) {
    finished(p, success);
  }
  void finished(const pod& p, bool success);
};

// Hands tasks to the manual context, stamped with the virtual time at which they were queued.
struct virtual_executor {
  simulation* sim;
  void execute(preempt::task_ref t) const;
};

using evaluator_type = preempt::evaluator<preempt::model::resource_cluster>;
using inline_dispatcher =
    preempt::dispatcher<pod, preempt::inline_executor, api_client, loop_hooks>;
using async_dispatcher = preempt::dispatcher<pod, virtual_executor, api_client, loop_hooks>;

class simulation {
 public:
  simulation(const options& o, mode m, double rate, double latency_ms)
      : o_(o),
        m_(m),
        rate_(rate),
        latency_(from_ms(latency_ms)),
        cycle_(from_ms(o.cycle_cost_ms)),
        eval_(from_ms(o.eval_cost_measured ? o.measured_eval_ms : o.eval_cost_ms)),
        max_time_(static_cast<nanos>(o.max_time_s * static_cast<double>(ns_per_s))),
        bucket_(o.qps, o.burst),
        rng_(o.seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(rate * 1000) * 31 +
             static_cast<std::uint64_t>(latency_ms * 1000)),
        statuses_(o.nodes, preempt::status_code::unschedulable) {
    preempt::evaluator_config cfg;
    cfg.seed = o.seed;
    evaluator_ = std::make_unique<evaluator_type>(cfg);
    build_cluster(cluster_, where_, o.nodes, next_uid_);
    ledger_.reserve(1024, o.nodes, 4);
    table_.reserve(1024, 4096);
    if (m_ == mode::inline_dispatch)
      inline_ = std::make_unique<inline_dispatcher>(ledger_, table_, client_,
                                                    preempt::inline_executor{}, loop_hooks{this});
    if (m_ == mode::async_dispatch)
      async_ = std::make_unique<async_dispatcher>(ledger_, table_, client_, virtual_executor{this},
                                                  loop_hooks{this});
  }
  simulation(const simulation&) = delete;
  simulation& operator=(const simulation&) = delete;
  ~simulation() {
    ctx_.drain();  // background work still queued past the end of the run
    inline_.reset();
    async_.reset();
  }

  static void build_cluster(preempt::model::resource_cluster& c,
                            std::unordered_map<pod_id, std::size_t>& where, std::size_t nodes,
                            pod_id& uid) {
    c.reserve_nodes(nodes);
    for (std::size_t n = 0; n < nodes; ++n) {
      c.add_node("node-" + std::to_string(n), node_allocatable());
      c.reserve_pods(n, 12);
      for (int k = 0; k < 4; ++k) {
        // Start times spread over the hour before t = 0.
        const preempt::timestamp start =
            -static_cast<preempt::timestamp>((uid * 7919) % 3600) * ns_per_s;
        where.emplace(uid, n);
        c.add_pod(n, pod({.uid = uid++,
                          .priority = low_priority,
                          .requests = {900, 500 * Mi},
                          .start_time = start}));
      }
    }
  }

  run_result run() {
    run_result r;
    r.m = m_;
    r.rate = rate_;
    r.latency_ms = to_ms(latency_);
    regular_pending_ = o_.regular_pods;
    if (m_ != mode::baseline && rate_ > 0) schedule(arrival_interval(), event_kind::arrival, 0);
    try_start_cycle();
    while (!events_.empty() && !done_) {
      const event e = events_.top();
      events_.pop();
      if (e.time > max_time_) break;
      now_ = e.time;
      handle(e);
      if (!busy_) try_start_cycle();
    }
    const nanos end = done_ ? finished_at_ : max_time_;
    r.capped = !done_;
    r.regular_scheduled = regular_scheduled_;
    r.duration_s = to_s(end);
    r.throughput = static_cast<double>(regular_scheduled_) / to_s(end);
    r.preemptors_arrived = records_.size();
    std::vector<double> nominate, gone, bind;
    std::size_t evaluated = 0;
    for (const record& rec : records_) {
      evaluated += rec.evaluations > 0;
      if (rec.nominated >= 0) {
        ++r.preemptors_nominated;
        nominate.push_back(to_ms(rec.nominated - rec.arrival));
      }
      if (rec.victims_gone >= 0 && rec.victims_gone <= end)
        gone.push_back(to_ms(rec.victims_gone - rec.arrival));
      if (rec.bound >= 0) {
        ++r.preemptors_bound;
        bind.push_back(to_ms(rec.bound - rec.arrival));
      }
    }
    r.to_nominate_ms = summarize(nominate);
    r.to_victims_gone_ms = summarize(gone);
    r.to_bind_ms = summarize(bind);
    r.evaluations = evaluations_;
    r.attempts_per_preemptor =
        evaluated ? static_cast<double>(evaluations_) / static_cast<double>(evaluated) : 0;
    r.dispatches = dispatches_;
    r.victims_dispatched = victims_dispatched_;
    r.eviction_calls = eviction_calls_;
    r.evictions = evictions_;
    r.failed_calls = failed_calls_;
    r.async_failed = async_failed_;
    r.async_succeeded = async_succeeded_;
    r.inline_failed = inline_failed_;
    r.evictions_per_s = static_cast<double>(evictions_) / to_s(end);
    r.victims_per_preemption =
        dispatches_ ? static_cast<double>(victims_dispatched_) / static_cast<double>(dispatches_)
                    : 0;
    r.api_ms_per_eviction =
        eviction_calls_ ? to_ms(api_time_) / static_cast<double>(eviction_calls_) : 0;
    r.throttle_ms_total = to_ms(throttle_time_);
    return r;
  }

  // --- called by the library through the client, hooks and executor ----------------------------

  preempt::eviction_result api_evict(const pod& victim, const pod& preemptor) {
    record& rec = record_of(preemptor.uid());
    nanos t0 = ctx_clock_;
    // The last victim of an async job starts when all the parallel evictions have completed.
    if (m_ == mode::async_dispatch && table_.last_victim_of(preemptor.uid()) == victim.uid())
      t0 = std::max(t0, rec.job_done);
    const nanos wait = bucket_.reserve(t0);
    std::uniform_real_distribution<double> jitter(1 - o_.jitter, 1 + o_.jitter);
    const nanos latency = static_cast<nanos>(static_cast<double>(latency_) * jitter(rng_));
    const nanos done = t0 + wait + latency;
    const bool fail = std::uniform_real_distribution<double>(0, 1)(rng_) < o_.failure_rate;
    ++eviction_calls_;
    api_time_ += done - t0;
    throttle_time_ += wait;
    rec.job_done = std::max(rec.job_done, done);
    ctx_clock_ = done;
    if (fail) {
      ++failed_calls_;
      return preempt::eviction_result::failed("injected API failure");
    }
    ++evictions_;
    rec.victims_gone = std::max(rec.victims_gone, done);
    schedule(done, event_kind::victim_gone, victim.uid());
    return preempt::eviction_result::evicted();
  }

  void on_dispatched(const pod& p, std::size_t victims) {
    record& rec = record_of(p.uid());
    rec.job_done = ctx_clock_;
    rec.victims_gone = -1;
    ++dispatches_;
    victims_dispatched_ += victims;
  }

  void on_reactivate(const pod& p) {
    record& rec = record_of(p.uid());
    schedule(std::max(ctx_clock_, rec.job_done), event_kind::requeue, rec.index);
  }

  void on_finished(const pod& p, bool success) {
    record& rec = record_of(p.uid());
    rec.gate_until = std::max(ctx_clock_, rec.job_done);
    (success ? async_succeeded_ : async_failed_) += 1;
  }

  void queue_task(preempt::task_ref t) {
    ctx_.get_executor().execute(t);
    ready_.push_back(ctx_clock_);
    schedule(ctx_clock_, event_kind::drain, 0);
  }

 private:
  enum class event_kind { arrival, victim_gone, requeue, drain, loop_free };

  struct event {
    nanos time;
    int cls;  // at equal times: cluster and queue events first, the loop taking its next pod last
    std::uint64_t seq;
    event_kind kind;
    std::uint64_t arg;
    friend bool operator>(const event& a, const event& b) {
      if (a.time != b.time) return a.time > b.time;
      if (a.cls != b.cls) return a.cls > b.cls;
      return a.seq > b.seq;
    }
  };

  struct record {
    std::size_t index = 0;
    nanos arrival = 0;
    nanos nominated = -1;
    nanos victims_gone = -1;
    nanos bound = -1;
    nanos job_done = 0;    // virtual completion of the current dispatch's evictions so far
    nanos gate_until = 0;  // virtual end of the background work (async)
    std::size_t evaluations = 0;
    std::optional<std::size_t> node;
    enum class where_t { active, parked, bound } where = where_t::active;
  };

  nanos arrival_interval() const {
    return static_cast<nanos>(static_cast<double>(ns_per_s) / rate_);
  }

  void schedule(nanos t, event_kind k, std::uint64_t arg) {
    events_.push(event{t, k == event_kind::loop_free ? 1 : 0, seq_++, k, arg});
  }

  record& record_of(pod_id uid) { return records_[record_index_.at(uid)]; }

  bool gated(const record& rec) const {
    if (m_ != mode::async_dispatch) return false;
    const pod_id uid = preemptors_[rec.index].uid();
    return async_->is_preemption_running(uid) || now_ < rec.gate_until;
  }

  void park(record& rec) {
    rec.where = record::where_t::parked;
    parked_.push_back(rec.index);
  }

  void activate(record& rec) {
    if (rec.where != record::where_t::parked) return;
    rec.where = record::where_t::active;
    std::erase(parked_, rec.index);
    active_.push_back(rec.index);
  }

  void handle(const event& e) {
    switch (e.kind) {
      case event_kind::arrival: {
        const std::size_t i = records_.size();
        preemptors_.emplace_back(preempt::model::pod_spec{.uid = next_uid_++,
                                                          .priority = preemptor_priority,
                                                          .requests = {3000, 500 * Mi},
                                                          .start_time = {}});
        record rec;
        rec.index = i;
        rec.arrival = now_;
        records_.push_back(rec);
        record_index_.emplace(preemptors_.back().uid(), i);
        active_.push_back(i);
        schedule(now_ + arrival_interval(), event_kind::arrival, 0);
        break;
      }
      case event_kind::victim_gone: {
        const auto it = where_.find(e.arg);
        if (it == where_.end()) break;
        cluster_.remove_pod(it->second, e.arg);
        where_.erase(it);
        table_.report_victim(e.arg, preempt::victim_state::gone);
        // An assigned pod's deletion: the parked preemptors may fit now (if their gate is open).
        const std::vector<std::size_t> waiting = parked_;
        for (std::size_t i : waiting)
          if (!gated(records_[i])) activate(records_[i]);
        break;
      }
      case event_kind::requeue: activate(records_[e.arg]); break;
      case event_kind::drain:
        while (!ready_.empty() && ready_.front() <= now_) {
          ctx_clock_ = ready_.front();
          ready_.pop_front();
          ctx_.run_one();
        }
        break;
      case event_kind::loop_free: busy_ = false; break;
    }
  }

  // Does `p` fit on node n, respecting the pods nominated there (two-pass rule)?
  bool fits_on(const pod& p, std::size_t n) {
    cluster_.prepare_state(n, state_);
    return preempt::fits_with_nominated(state_, p, ledger_.nominated_to_unlocked(n)).is_success();
  }

  void bind(const pod& p, std::size_t n, nanos at) {
    pod placed(preempt::model::pod_spec{
        .uid = p.uid(), .priority = p.priority(), .requests = p.requests(), .start_time = at});
    where_.emplace(p.uid(), n);
    cluster_.add_pod(n, std::move(placed));
  }

  void try_start_cycle() {
    if (busy_ || done_) return;
    if (!active_.empty()) {
      const std::size_t i = active_.front();
      active_.pop_front();
      preemptor_cycle(records_[i]);
      return;
    }
    if (regular_pending_ > 0) regular_cycle();
  }

  void start(nanos duration) {
    busy_ = true;
    schedule(now_ + duration, event_kind::loop_free, 0);
  }

  void regular_cycle() {
    const pod p(preempt::model::pod_spec{.uid = next_uid_++,
                                         .priority = low_priority,
                                         .requests = {100, 500 * Mi},
                                         .start_time = {}});
    for (std::size_t k = 0; k < cluster_.size(); ++k) {
      const std::size_t n = (cursor_ + k) % cluster_.size();
      if (!fits_on(p, n)) continue;
      bind(p, n, now_ + cycle_);
      cursor_ = n + 1;
      --regular_pending_;
      ++regular_scheduled_;
      if (regular_pending_ == 0) {
        done_ = true;
        finished_at_ = now_ + cycle_;
      }
      start(cycle_);
      return;
    }
    std::fprintf(stderr, "async-loop-sim: a regular pod fits nowhere (cluster too small)\n");
    std::exit(1);
  }

  void preemptor_cycle(record& rec) {
    const pod& p = preemptors_[rec.index];
    // Filter: its nominated node first, then every node.
    std::optional<std::size_t> fit;
    if (rec.node && fits_on(p, *rec.node)) fit = rec.node;
    for (std::size_t n = 0; !fit && n < cluster_.size(); ++n)
      if (fits_on(p, n)) fit = n;
    if (fit) {
      bind(p, *fit, now_ + cycle_);
      ledger_.remove(p.uid());
      rec.bound = now_ + cycle_;
      rec.where = record::where_t::bound;
      start(cycle_);
      return;
    }
    // PostFilter: the library's decision, for real; its virtual cost is d_eval.
    ++evaluations_;
    ++rec.evaluations;
    preempt::attempt at;
    at.nominated_node = rec.node;
    const auto& d = evaluator_->evaluate(p, cluster_, statuses_, preempt::no_budgets{},
                                         ledger_.reader(), preempt::inline_executor{}, at);
    ctx_clock_ = now_ + cycle_ + eval_;
    preempt::dispatch_result res;
    if (m_ == mode::inline_dispatch) res = inline_->apply(p, d);
    if (m_ == mode::async_dispatch) res = async_->apply(p, d);
    const nanos end = ctx_clock_;  // inline: after the evictions
    if (d.kind == preempt::decision_kind::nominated && res.outcome.is_success()) {
      if (rec.nominated < 0) rec.nominated = end;
      rec.node = d.node_index;
      park(rec);
    } else if (d.kind == preempt::decision_kind::not_eligible) {
      park(rec);  // its earlier preemption is still terminating victims: wait for them
    } else {
      if (!res.outcome.is_success()) ++inline_failed_;
      if (d.kind == preempt::decision_kind::unschedulable && d.clear_nomination) rec.node.reset();
      park(rec);
      schedule(end + ns_per_s, event_kind::requeue, rec.index);  // backoff
    }
    start(end - now_);
  }

  const options& o_;
  mode m_;
  double rate_;
  nanos latency_, cycle_, eval_, max_time_;
  token_bucket bucket_;
  std::mt19937_64 rng_;

  preempt::model::resource_cluster cluster_;
  std::unordered_map<pod_id, std::size_t> where_;  // assigned pod -> node
  pod_id next_uid_ = 1;
  preempt::filter_statuses statuses_;
  preempt::model::resource_fit_state state_;
  std::unique_ptr<evaluator_type> evaluator_;

  preempt::nomination_ledger<pod> ledger_;
  preempt::in_flight_table<pod> table_;
  api_client client_{this};
  preempt::manual_context ctx_;
  std::deque<nanos> ready_;  // virtual ready time of each task in ctx_, in queue order
  nanos ctx_clock_ = 0;      // virtual time of the code running now (loop cycle or background task)
  std::unique_ptr<inline_dispatcher> inline_;
  std::unique_ptr<async_dispatcher> async_;

  std::deque<pod> preemptors_;  // stable addresses: the ledger points at them
  std::vector<record> records_;
  std::unordered_map<pod_id, std::size_t> record_index_;
  std::deque<std::size_t> active_;   // preemptors ready to be scheduled (before regular pods)
  std::vector<std::size_t> parked_;  // preemptors waiting for an event
  std::size_t regular_pending_ = 0, regular_scheduled_ = 0, cursor_ = 0;

  std::priority_queue<event, std::vector<event>, std::greater<event>> events_;
  std::uint64_t seq_ = 0;
  nanos now_ = 0, finished_at_ = 0;
  bool busy_ = false, done_ = false;

  std::size_t evaluations_ = 0, dispatches_ = 0, victims_dispatched_ = 0;
  std::size_t eviction_calls_ = 0, evictions_ = 0, failed_calls_ = 0;
  std::size_t async_failed_ = 0, async_succeeded_ = 0, inline_failed_ = 0;
  nanos api_time_ = 0, throttle_time_ = 0;
};

preempt::eviction_result api_client::evict(const pod& victim, const pod& preemptor) {
  return sim->api_evict(victim, preemptor);
}
void loop_hooks::reactivate(const pod& p) { sim->on_reactivate(p); }
void loop_hooks::on_preemption_dispatched(const pod& p, std::size_t victims) {
  sim->on_dispatched(p, victims);
}
void loop_hooks::finished(const pod& p, bool success) { sim->on_finished(p, success); }
void virtual_executor::execute(preempt::task_ref t) const { sim->queue_task(t); }

// The real cost of one evaluate() on the initial cluster, median of 31 runs (informational, or
// the virtual d_eval with --eval-cost-ms measured).
double measure_eval_ms(std::size_t nodes) {
  preempt::model::resource_cluster c;
  std::unordered_map<pod_id, std::size_t> where;
  pod_id uid = 1;
  simulation::build_cluster(c, where, nodes, uid);
  const pod p(preempt::model::pod_spec{.uid = uid++,
                                       .priority = preemptor_priority,
                                       .requests = {3000, 500 * Mi},
                                       .start_time = {}});
  const preempt::filter_statuses statuses(nodes, preempt::status_code::unschedulable);
  evaluator_type ev;
  std::vector<double> times;
  for (int i = 0; i < 31; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto& d = ev.evaluate(p, c, statuses, preempt::no_budgets{}, preempt::no_nominations{},
                                preempt::inline_executor{});
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (d.kind != preempt::decision_kind::nominated) {
      std::fprintf(stderr, "async-loop-sim: the startup evaluation did not nominate\n");
      std::exit(1);
    }
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// ---- report -------------------------------------------------------------------------------

struct summary_row {
  double rate, latency_ms;
  const run_result *baseline, *inl, *async;
  double predicted_inline, predicted_async, inline_error;
};

// The cost model: every preemptor costs the loop one binding cycle c, and each of its a attempts
// (a = 1 unless evictions fail) a filter cycle c plus d_eval plus, inline, k calls of L_eff each.
double predicted(const options& o, double baseline, double rate, const run_result& r, bool async) {
  const double c = o.cycle_cost_ms / 1e3;
  const double d_eval = (o.eval_cost_measured ? o.measured_eval_ms : o.eval_cost_ms) / 1e3;
  const double a = std::max(1.0, r.attempts_per_preemptor);
  const double k =
      r.dispatches ? static_cast<double>(r.eviction_calls) / static_cast<double>(r.dispatches) : 0;
  const double l = r.api_ms_per_eviction / 1e3;
  return std::max(0.0, baseline * (1 - rate * (c + a * (c + d_eval + (async ? 0.0 : k * l)))));
}

void print_distribution(std::FILE* f, const char* name, const distribution& d, bool last = false) {
  std::fprintf(f, "\"%s\": {\"mean\": %.3f, \"p50\": %.3f, \"p99\": %.3f, \"count\": %zu}%s", name,
               d.mean, d.p50, d.p99, d.count, last ? "" : ", ");
}

void print_json(const options& o, const std::vector<run_result>& runs,
                const std::vector<summary_row>& rows, bool target_met, bool model_ok) {
  std::FILE* f = stdout;
  std::fprintf(f,
               "{\n  \"simulation\": \"preempt-async-loop-sim\",\n  \"time\": \"virtual "
               "(discrete-event)\",\n");
  std::fprintf(f,
               "  \"config\": {\"nodes\": %zu, \"low_pods_per_node\": 4, \"low_pod_cpu_m\": 900, "
               "\"preemptor_cpu_m\": "
               "3000, \"regular_pod_cpu_m\": 100, \"regular_pods\": %zu, \"cycle_cost_ms\": %.3f, "
               "\"eval_cost_ms\": "
               "%.4f, \"eval_cost_source\": \"%s\", \"measured_eval_ms\": %.4f, \"jitter\": %.3f, "
               "\"failure_rate\": "
               "%.4f, \"qps\": %.1f, \"burst\": %.1f, \"max_time_s\": %.1f, \"seed\": %llu},\n",
               o.nodes, o.regular_pods, o.cycle_cost_ms,
               o.eval_cost_measured ? o.measured_eval_ms : o.eval_cost_ms,
               o.eval_cost_measured ? "measured" : "fixed", o.measured_eval_ms, o.jitter,
               o.failure_rate, o.qps, o.burst, o.max_time_s,
               static_cast<unsigned long long>(o.seed));
  std::fprintf(f, "  \"runs\": [\n");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const run_result& r = runs[i];
    std::fprintf(
        f,
        "    {\"mode\": \"%s\", \"rate\": %.1f, \"latency_ms\": %.1f, \"throughput\": %.2f, "
        "\"regular_scheduled\": %zu, \"capped\": %s, \"duration_s\": %.4f, \"preemptors_arrived\": "
        "%zu, "
        "\"preemptors_nominated\": %zu, \"preemptors_bound\": %zu, \"evaluations\": %zu, "
        "\"dispatches\": "
        "%zu, \"eviction_calls\": %zu, \"evictions\": %zu, \"failed_calls\": %zu, "
        "\"async_failed\": %zu, "
        "\"inline_failed\": %zu, \"attempts_per_preemptor\": %.3f, \"evictions_per_s\": %.2f, "
        "\"victims_per_preemption\": %.3f, "
        "\"api_ms_per_eviction\": %.3f, \"throttle_ms_total\": %.1f, ",
        name_of(r.m), r.rate, r.latency_ms, r.throughput, r.regular_scheduled,
        r.capped ? "true" : "false", r.duration_s, r.preemptors_arrived, r.preemptors_nominated,
        r.preemptors_bound, r.evaluations, r.dispatches, r.eviction_calls, r.evictions,
        r.failed_calls, r.async_failed, r.inline_failed, r.attempts_per_preemptor,
        r.evictions_per_s, r.victims_per_preemption, r.api_ms_per_eviction, r.throttle_ms_total);
    print_distribution(f, "to_nominate_ms", r.to_nominate_ms);
    print_distribution(f, "to_victims_gone_ms", r.to_victims_gone_ms);
    print_distribution(f, "to_bind_ms", r.to_bind_ms, true);
    std::fprintf(f, "}%s\n", i + 1 < runs.size() ? "," : "");
  }
  std::fprintf(f, "  ],\n  \"summary\": [\n");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const summary_row& s = rows[i];
    const double b = s.baseline->throughput;
    std::fprintf(f,
                 "    {\"rate\": %.1f, \"latency_ms\": %.1f, \"baseline\": %.2f, \"inline\": %.2f, "
                 "\"async\": %.2f, "
                 "\"async_over_baseline\": %.4f, \"inline_over_baseline\": %.4f, "
                 "\"inline_predicted\": %.2f, "
                 "\"inline_predicted_over_baseline\": %.4f, \"inline_prediction_error\": %.4f, "
                 "\"async_predicted\": %.2f}%s\n",
                 s.rate, s.latency_ms, b, s.inl->throughput, s.async->throughput,
                 s.async->throughput / b, s.inl->throughput / b, s.predicted_inline,
                 s.predicted_inline / b, s.inline_error, s.predicted_async,
                 i + 1 < rows.size() ? "," : "");
  }
  std::fprintf(f,
               "  ],\n  \"targets\": {\"async_over_baseline_at_L50_r5_ge_0_9\": %s, "
               "\"inline_within_10pct_of_model\": %s}\n}\n",
               target_met ? "true" : "false", model_ok ? "true" : "false");
}

void print_table(const options& o, const std::vector<run_result>& runs,
                 const std::vector<summary_row>& rows, bool target_met, bool model_ok) {
  std::printf(
      "preempt-async-loop-sim: virtual (discrete-event) time; %zu nodes x 4 pods of 900m, %zu "
      "regular pods "
      "of 100m, preemptors 3000m\n",
      o.nodes, o.regular_pods);
  std::printf(
      "cycle cost %.3f ms, evaluation cost %.3f ms (%s; evaluate() measured here: %.3f ms), jitter "
      "%.0f%%, "
      "failure rate %.1f%%, QPS %.0f burst %.0f\n\n",
      o.cycle_cost_ms, o.eval_cost_measured ? o.measured_eval_ms : o.eval_cost_ms,
      o.eval_cost_measured ? "measured" : "fixed", o.measured_eval_ms, o.jitter * 100,
      o.failure_rate * 100, o.qps, o.burst);
  std::printf("%5s %6s %-8s %9s %6s %9s %9s %9s %9s %8s %7s %6s %6s\n", "r/s", "L ms", "mode",
              "pods/s", "x base", "nominate", "gone", "bound", "evict/s", "k", "L_eff", "fails",
              "cap");
  std::printf("%5s %6s %-8s %9s %6s %9s %9s %9s %9s %8s %7s %6s %6s\n", "", "", "", "", "",
              "ms p50", "ms p50", "ms p50", "", "", "ms", "", "");
  for (const run_result& r : runs) {
    double base = 0;
    for (const summary_row& s : rows)
      if (s.rate == r.rate && s.latency_ms == r.latency_ms) base = s.baseline->throughput;
    std::printf("%5.0f %6.0f %-8s %9.1f %6.3f %9.1f %9.1f %9.1f %9.1f %8.2f %7.1f %6zu %6s\n",
                r.rate, r.latency_ms, name_of(r.m), r.throughput,
                base > 0 ? r.throughput / base : 0, r.to_nominate_ms.p50, r.to_victims_gone_ms.p50,
                r.to_bind_ms.p50, r.evictions_per_s, r.victims_per_preemption,
                r.api_ms_per_eviction, r.failed_calls, r.capped ? "yes" : "");
  }
  std::printf("\n%5s %6s %10s %10s %10s %8s %8s %12s %8s\n", "r/s", "L ms", "baseline", "inline",
              "async", "async/b", "inline/b", "inline model", "error");
  for (const summary_row& s : rows) {
    const double b = s.baseline->throughput;
    std::printf("%5.0f %6.0f %10.1f %10.1f %10.1f %8.3f %8.3f %12.1f %7.1f%%\n", s.rate,
                s.latency_ms, b, s.inl->throughput, s.async->throughput, s.async->throughput / b,
                s.inl->throughput / b, s.predicted_inline, s.inline_error * 100);
  }
  std::printf("\ntarget async >= 0.9 x baseline at L = 50 ms, r = 5/s: %s\n",
              target_met ? "met" : "MISSED");
  std::printf(
      "inline within 10%% of the cost model (relative, or 10%% of baseline when the model predicts "
      "< 10%%): "
      "%s\n",
      model_ok ? "yes" : "NO");
}

}  // namespace

int main(int argc, char** argv) {
  options o = parse(argc, argv);
  o.measured_eval_ms = measure_eval_ms(o.nodes);
  std::vector<run_result> runs;
  runs.reserve(o.rates.size() * o.latencies_ms.size() * 3);
  std::vector<summary_row> rows;
  bool target_met = true, model_ok = true, evicted_everywhere = true;
  // The baseline does not depend on r or L: one run serves every row.
  const run_result baseline = simulation(o, mode::baseline, 0, 0).run();
  for (const double rate : o.rates)
    for (const double latency : o.latencies_ms) {
      run_result b = baseline;
      b.rate = rate;
      b.latency_ms = latency;
      runs.push_back(b);
      const run_result* pb = &runs.back();
      runs.push_back(simulation(o, mode::inline_dispatch, rate, latency).run());
      const run_result* pi = &runs.back();
      runs.push_back(simulation(o, mode::async_dispatch, rate, latency).run());
      const run_result* pa = &runs.back();
      for (const run_result* r : {pi, pa})
        if (r->evictions == 0) evicted_everywhere = false;
      const double pred_inline = predicted(o, pb->throughput, rate, *pi, false);
      const double pred_async = predicted(o, pb->throughput, rate, *pa, true);
      // Relative error; when the model predicts (almost) nothing left, the error relative to the
      // baseline.
      const double err = pred_inline >= 0.1 * pb->throughput
                             ? (pi->throughput - pred_inline) / pred_inline
                             : (pi->throughput - pred_inline) / pb->throughput;
      if (std::abs(err) > 0.10) model_ok = false;
      if (rate == 5 && latency == 50 && pa->throughput < 0.9 * pb->throughput) target_met = false;
      rows.push_back({rate, latency, pb, pi, pa, pred_inline, pred_async, err});
    }
  if (o.json)
    print_json(o, runs, rows, target_met, model_ok);
  else
    print_table(o, runs, rows, target_met, model_ok);
  if (!evicted_everywhere) {
    std::fprintf(
        stderr,
        "async-loop-sim: a run with preemptors evicted nothing: preemption did not happen\n");
    return 1;
  }
  return 0;
}
