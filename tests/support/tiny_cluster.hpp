// tests/support/tiny_cluster.hpp - a foreign scheduler's types, as small as they get: pods with an
// integer uid, nodes that hold at most `capacity` pods, and nothing else. Built for the tests that
// must not depend on the library's own model (preempt::model): the argument-dependent-lookup
// test, the error-path allocation test and the bare-metal program (which shares its scenario
// with the x86-64 tests: tests/support/tiny_scenario.hpp).
//
// Every type takes a Tag, so a test can put same-named functions in the Tag's namespace: its
// namespace is then associated with the pod type, as the caller's own namespace would be.
// Only the standard library: no threads, no exceptions, no RTTI needed.
#ifndef PREEMPT_TESTS_SUPPORT_TINY_CLUSTER_HPP
#define PREEMPT_TESTS_SUPPORT_TINY_CLUSTER_HPP

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "preempt/eviction.hpp"
#include "preempt/status.hpp"

namespace tiny {

struct default_tag {};

template <class Tag = default_tag>
struct pod {
  std::uint32_t id = 0;
  std::int32_t prio = 0;
  std::int64_t start = 0;
  bool preempting_termination = false;

  std::uint32_t uid() const noexcept { return id; }
  std::int32_t priority() const noexcept { return prio; }
  std::optional<std::int64_t> start_time() const noexcept { return start; }
  bool terminating_by_preemption() const noexcept { return preempting_termination; }
};

template <class Tag = default_tag>
struct node {
  std::string_view node_name;
  std::span<const pod<Tag>> node_pods;
  std::size_t capacity = 0;
  bool broken = false;  // every remove_pod fails (a filter plugin's error)

  std::string_view name() const noexcept { return node_name; }
  std::span<const pod<Tag>> pods() const noexcept { return node_pods; }
};

inline constexpr std::string_view too_many_pods = "Too many pods";
inline constexpr std::string_view remove_failed = "tiny: cannot remove a pod from this node";

template <class Tag = default_tag>
struct state {
  std::size_t used = 0;
  std::size_t capacity = 0;
  bool broken = false;

  preempt::status remove_pod(const pod<Tag>&) {
    if (broken) return preempt::status::error(remove_failed);
    --used;
    return preempt::status::ok();
  }
  preempt::status add_pod(const pod<Tag>&) {
    ++used;
    return preempt::status::ok();
  }
  preempt::status fits(const pod<Tag>&) const {
    return used + 1 <= capacity ? preempt::status::ok()
                                : preempt::status::unschedulable(too_many_pods);
  }
};

template <class Tag = default_tag>
struct cluster {
  using state_type = state<Tag>;
  std::span<const node<Tag>> nodes;

  std::size_t size() const noexcept { return nodes.size(); }
  const node<Tag>& operator[](std::size_t i) const noexcept { return nodes[i]; }
  state_type make_state() const { return {}; }
  void prepare_state(std::size_t i, state_type& s) const {
    s.used = nodes[i].node_pods.size();
    s.capacity = nodes[i].capacity;
    s.broken = nodes[i].broken;
  }
};

// Every node failed the filters with a resolvable reason: all are potential nodes.
struct all_unschedulable {
  preempt::status_code code_of(std::size_t) const noexcept {
    return preempt::status_code::unschedulable;
  }
};

// Records what it evicts; every eviction succeeds.
template <class Tag = default_tag>
struct recording_client {
  std::uint32_t evicted[8] = {};
  std::size_t count = 0;
  preempt::eviction_result evict(const pod<Tag>& victim, const pod<Tag>&) {
    if (count < 8) evicted[count] = victim.id;
    ++count;
    return preempt::eviction_result::evicted();
  }
};

}  // namespace tiny

#endif  // PREEMPT_TESTS_SUPPORT_TINY_CLUSTER_HPP
