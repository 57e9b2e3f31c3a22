// preempt/eviction_throttle.hpp - throttles on preemption's evictions, beyond upstream: at most so
// many evictions per node, per namespace and in the whole cluster within a sliding window, and a
// grace period between a preemptor's nomination and its evictions.
//
// eviction_throttle<P, Clock> with throttle_limits{window, per_node, per_namespace, cluster,
// grace}:
//   admit(preemptor, node, victims, now)  may this preemption's evictions start now? Yes when the
//       grace period since the preemptor was first nominated to this node (by an earlier admit)
//       is over and adding these victims keeps every count within its limit over the window
//       (now - window, now]; the evictions are then recorded. No: nothing is recorded (but the
//       first nomination's time), and `retry_at` says when the answer can turn yes if nothing
//       else is evicted meanwhile (the grace period's end, or the moment enough earlier evictions
//       leave the window). A batch larger than a limit can never be admitted (retry_at is then
//       time_point::max()).
//   forget(preemptor)                    drops its grace-period record (it was scheduled, or gave
//       up).
// A victim's namespace is namespace_of(pod): p.namespace_id() when the pod has it, else one
// namespace for all. throttle_limits::unlimited turns a limit off; a zero window turns the counts
// off. preempt/throttled_dispatch.hpp applies a decision through a dispatcher under a throttle.
//
// Complexity: O(e + v) per admit for e evictions in the window and v victims (the window is pruned
// as it goes). Allocation: the window's records grow to the most evictions one window held (reserve
// ahead for none). No exceptions of its own. Not thread-safe: one caller (the scheduling loop).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_EVICTION_THROTTLE_HPP
#define PREEMPT_EVICTION_THROTTLE_HPP

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/pod.hpp"

PREEMPT_NAMESPACE_BEGIN

struct throttle_limits {
  static constexpr std::size_t unlimited = std::numeric_limits<std::size_t>::max();

  std::chrono::nanoseconds window{0};
  std::size_t per_node = unlimited;
  std::size_t per_namespace = unlimited;
  std::size_t cluster = unlimited;
  // Between a preemptor's first nomination to a node and its evictions there.
  std::chrono::nanoseconds grace{0};
};

// A victim's namespace for the per-namespace limit.
template <pod P>
constexpr std::uint64_t namespace_of(const P& p) {
  if constexpr (requires { p.namespace_id(); })
    return static_cast<std::uint64_t>(p.namespace_id());
  else
    return 0;
}

template <pod P, class Clock = std::chrono::steady_clock>
class eviction_throttle {
 public:
  using time_point = typename Clock::time_point;
  using uid_type = pod_uid_t<P>;

  struct verdict {
    bool admitted = false;
    time_point retry_at{};  // when not admitted
  };

  explicit eviction_throttle(throttle_limits limits = {}) : limits_(limits) {}

  const throttle_limits& limits() const noexcept { return limits_; }

  // Room for `evictions` records in a window and `preemptors` grace-period records.
  void reserve(std::size_t evictions, std::size_t preemptors) {
    window_.reserve(evictions);
    nominated_.reserve(preemptors);
  }

  verdict admit(const P& preemptor, std::size_t node, std::span<const P* const> victims,
                time_point now) {
    time_point retry = now;
    bool admitted = true;
    if (limits_.grace.count() > 0) {
      const time_point since = first_nominated(::preempt::uid_of(preemptor), node, now);
      const time_point ready =
          since + std::chrono::duration_cast<typename Clock::duration>(limits_.grace);
      if (now < ready) {
        admitted = false;
        retry = std::max(retry, ready);
      }
    }
    if (limits_.window.count() > 0) {
      prune(now);
      const time_point opens = window_opens(node, victims, now);
      if (opens != now) {
        admitted = false;
        retry = std::max(retry, opens);
      }
    }
    if (!admitted) return {false, retry};
    if (limits_.window.count() > 0)
      for (const P* v : victims) window_.push_back({now, node, ::preempt::namespace_of(*v)});
    forget(::preempt::uid_of(preemptor));
    return {true, {}};
  }

  void forget(const uid_type& preemptor) {
    std::erase_if(nominated_, [&](const nomination& n) { return n.uid == preemptor; });
  }

  // Evictions in the current window (after the last admit's pruning).
  std::size_t recorded() const noexcept { return window_.size(); }

 private:
  struct eviction {
    time_point at;
    std::size_t node;
    std::uint64_t ns;
  };
  struct nomination {
    uid_type uid;
    std::size_t node;
    time_point at;
  };

  typename Clock::duration window() const noexcept {
    return std::chrono::duration_cast<typename Clock::duration>(limits_.window);
  }

  void prune(time_point now) {
    const time_point edge = now - window();
    std::erase_if(window_, [&](const eviction& e) { return e.at <= edge; });
  }

  // The first nomination of the preemptor to this node (recorded now if none, or if it was to
  // another node: a new nomination starts a new grace period).
  time_point first_nominated(const uid_type& uid, std::size_t node, time_point now) {
    for (nomination& n : nominated_)
      if (n.uid == uid) {
        if (n.node != node) n = {uid, node, now};
        return n.at;
      }
    nominated_.push_back({uid, node, now});
    return now;
  }

  // `now` when the victims fit every limit; else the earliest moment they would (max() never).
  time_point window_opens(std::size_t node, std::span<const P* const> victims,
                          time_point now) const {
    time_point opens = now;
    const auto limit = [&](std::size_t max, std::size_t adding, auto counts) {
      if (max == throttle_limits::unlimited || adding == 0) return;
      if (adding > max) {
        opens = time_point::max();
        return;
      }
      std::size_t held = 0;
      for (const eviction& e : window_) held += counts(e) ? std::size_t{1} : std::size_t{0};
      if (held + adding <= max) return;
      // The (held + adding - max)-th oldest counted eviction must leave the window.
      std::size_t to_leave = held + adding - max, seen = 0;
      for (const eviction& e : window_) {  // in time order
        if (!counts(e)) continue;
        if (++seen == to_leave) {
          if (opens != time_point::max()) opens = std::max(opens, e.at + window());
          return;
        }
      }
    };
    limit(limits_.cluster, victims.size(), [](const eviction&) { return true; });
    limit(limits_.per_node, victims.size(), [&](const eviction& e) { return e.node == node; });
    // Per namespace: each namespace among the victims, with its own count.
    for (std::size_t i = 0; i < victims.size(); ++i) {
      const std::uint64_t ns = ::preempt::namespace_of(*victims[i]);
      bool seen_before = false;
      for (std::size_t j = 0; j < i && !seen_before; ++j)
        seen_before = ::preempt::namespace_of(*victims[j]) == ns;
      if (seen_before) continue;
      std::size_t adding = 0;
      for (const P* v : victims)
        adding += ::preempt::namespace_of(*v) == ns ? std::size_t{1} : std::size_t{0};
      limit(limits_.per_namespace, adding, [&](const eviction& e) { return e.ns == ns; });
    }
    return opens;
  }

  throttle_limits limits_;
  std::vector<eviction> window_;  // in time order
  std::vector<nomination> nominated_;
};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_EVICTION_THROTTLE_HPP
