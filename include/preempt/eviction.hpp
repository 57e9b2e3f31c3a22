// preempt/eviction.hpp - how the library asks the caller to evict one victim.
//
// The library does no I/O. The dispatcher takes either kind of eviction client for pods P:
//   eviction_client<C, P>        blocking: c.evict(victim, preemptor) evicts one victim for a
//                                preemptor and returns an eviction_result: evicted (the API
//                                accepted the deletion), not_found (already gone; counted as
//                                success, as upstream does) or failed with a message;
//   async_eviction_client<C, P>  completion-based: c.start_eviction(victim, preemptor, done)
//                                starts the call and returns; the client completes it later, from
//                                any thread, exactly once, through the eviction_completion `done`:
//                                done.evicted(), done.not_found() or done.failed(message). The
//                                victim and preemptor stay valid until then; done.stop_token()
//                                (with PREEMPT_HAS_STOP_TOKEN) is the dispatcher's, for cancelling
//                                the call (it must still be completed, e.g. as failed).
// Failure messages are the client's own text (an API server's "pods \"x\" is forbidden: ..."):
// the dispatcher copies what it keeps before the call that hands it over returns. In async
// dispatch, evict and start_eviction are called concurrently from executor threads: they must be
// thread-safe, and they must not throw. A client with both members is used through start_eviction.
//
// No allocation; no exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_EVICTION_HPP
#define PREEMPT_EVICTION_HPP

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include "preempt/config.hpp"
#include "preempt/pod.hpp"

#if PREEMPT_HAS_STOP_TOKEN
#include <stop_token>
#endif

PREEMPT_NAMESPACE_BEGIN

enum class eviction_outcome : std::uint8_t { evicted, not_found, failed };

struct eviction_result {
  eviction_outcome outcome = eviction_outcome::evicted;
  std::string_view message;  // with failed; copied by the dispatcher before evict's caller returns

  static constexpr eviction_result evicted() noexcept { return {}; }
  static constexpr eviction_result not_found() noexcept {
    return {eviction_outcome::not_found, {}};
  }
  static constexpr eviction_result failed(std::string_view why) noexcept {
    return {eviction_outcome::failed, why};
  }
  constexpr bool ok() const noexcept { return outcome != eviction_outcome::failed; }
};

// The other end of one eviction started through start_eviction: complete it exactly once, from any
// thread. A small copyable handle; the dispatcher keeps what it refers to alive until then.
class eviction_completion {
 public:
  using function = void (*)(void* target, std::size_t index, eviction_outcome outcome,
                            std::string_view message) noexcept;

  // An empty handle (clients keep arrays of them); completing it is a contract violation.
  eviction_completion() noexcept = default;
  eviction_completion(void* target, std::size_t index, function fn) noexcept
      : target_(target), index_(index), fn_(fn) {}
#if PREEMPT_HAS_STOP_TOKEN
  eviction_completion(void* target, std::size_t index, function fn, std::stop_token stop) noexcept
      : target_(target), index_(index), fn_(fn), stop_(std::move(stop)) {}

  // Requested when the dispatcher stops its outstanding work: the client may cancel its call.
  const std::stop_token& stop_token() const noexcept { return stop_; }
#endif

  void evicted() const noexcept { complete(eviction_outcome::evicted, {}); }
  void not_found() const noexcept { complete(eviction_outcome::not_found, {}); }
  // `message` (the API's error text) is copied before failed returns.
  void failed(std::string_view message) const noexcept {
    complete(eviction_outcome::failed, message);
  }
  void operator()(const eviction_result& r) const noexcept { complete(r.outcome, r.message); }

  // Whether it refers to an eviction (false when default-constructed).
  explicit operator bool() const noexcept { return fn_ != nullptr; }

 private:
  void complete(eviction_outcome outcome, std::string_view message) const noexcept {
    PREEMPT_ASSERT(fn_ != nullptr, "eviction_completion: completing an empty completion");
    fn_(target_, index_, outcome, message);
  }

  void* target_ = nullptr;
  std::size_t index_ = 0;
  function fn_ = nullptr;
#if PREEMPT_HAS_STOP_TOKEN
  std::stop_token stop_;
#endif
};

template <class C, class P>
concept eviction_client = pod<P> && requires(C& c, const P& victim, const P& preemptor) {
  { c.evict(victim, preemptor) } -> std::convertible_to<eviction_result>;
};

template <class C, class P>
concept async_eviction_client =
    pod<P> && requires(C& c, const P& victim, const P& preemptor, eviction_completion done) {
      c.start_eviction(victim, preemptor, done);
    };

// Either kind: what the dispatcher takes.
template <class C, class P>
concept any_eviction_client = eviction_client<C, P> || async_eviction_client<C, P>;

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_EVICTION_HPP
