// preempt/eviction.hpp - how the library asks the caller to evict one victim.
//
// The library does no I/O. A type C models `eviction_client<C, P>` when
// `c.evict(victim, preemptor)` evicts one victim pod for a preemptor and returns an
// eviction_result: evicted (the API accepted the deletion), not_found (the victim was already
// gone; counted as success, as upstream does), or failed with a message (e.g. "delete pod
// failed"; the string must outlive the dispatch that reported it, so use static text). In async
// dispatch, evict is called concurrently from executor threads: it must be thread-safe, and it
// must not throw.
//
// No allocation; no exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_EVICTION_HPP
#define PREEMPT_EVICTION_HPP

#include <concepts>
#include <cstdint>
#include <string_view>

#include "preempt/config.hpp"
#include "preempt/pod.hpp"

PREEMPT_NAMESPACE_BEGIN

enum class eviction_outcome : std::uint8_t { evicted, not_found, failed };

struct eviction_result {
  eviction_outcome outcome = eviction_outcome::evicted;
  std::string_view message;

  static constexpr eviction_result evicted() noexcept { return {}; }
  static constexpr eviction_result not_found() noexcept {
    return {eviction_outcome::not_found, {}};
  }
  static constexpr eviction_result failed(std::string_view why) noexcept {
    return {eviction_outcome::failed, why};
  }
  constexpr bool ok() const noexcept { return outcome != eviction_outcome::failed; }
};

template <class C, class P>
concept eviction_client = pod<P> && requires(C& c, const P& victim, const P& preemptor) {
  { c.evict(victim, preemptor) } -> std::convertible_to<eviction_result>;
};

namespace detail {
// Whether a pod already carries a deletion timestamp (optional member `terminating()`).
template <class P>
constexpr bool is_terminating(const P& p) {
  if constexpr (requires {
                  { p.terminating() } -> std::convertible_to<bool>;
                })
    return p.terminating();
  else
    return ::preempt::is_terminating_by_preemption(p);
}
}  // namespace detail

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_EVICTION_HPP
