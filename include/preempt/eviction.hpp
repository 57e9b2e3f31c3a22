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
// How victims are removed (beyond upstream, opt-in): kube-scheduler DELETEs its victims, and the
// API server does not check PodDisruptionBudgets then. dispatcher::set_eviction_mode(
// eviction_mode::evict_respecting_budgets) asks the client to go through the Eviction API instead
// (POST pods/<name>/eviction, which the API server refuses with 429 TooManyRequests while a budget
// allows no disruption). The mode reaches the client as an extra argument, eviction_request, which
// a client may take: c.evict(victim, preemptor, request) or c.start_eviction(victim, preemptor,
// request, done) (takes_eviction_request<C, P>: the member the dispatcher uses takes it). A client
// that takes it always receives it (delete_pod by default); one that does not can only delete, and
// setting a mode on its dispatcher does not compile. A refusal because of a budget is a failure
// like any other (the preemptor is re-activated, the message kept): report it as
// eviction_result::refused_by_budget(message) or done.refused_by_budget(message) so that the
// dispatcher's hook on_budget_refusal can count it apart.
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

// refused_by_budget: failed because the API server refused the eviction for a
// PodDisruptionBudget (HTTP 429); the dispatcher treats it as failed.
enum class eviction_outcome : std::uint8_t { evicted, not_found, failed, refused_by_budget };

// Whether the eviction failed (for whatever reason, a budget's refusal included).
constexpr bool is_failure(eviction_outcome o) noexcept {
  return o == eviction_outcome::failed || o == eviction_outcome::refused_by_budget;
}

struct eviction_result {
  eviction_outcome outcome = eviction_outcome::evicted;
  // With a failure; copied by the dispatcher before evict's caller returns.
  std::string_view message;

  static constexpr eviction_result evicted() noexcept { return {}; }
  static constexpr eviction_result not_found() noexcept {
    return {eviction_outcome::not_found, {}};
  }
  static constexpr eviction_result failed(std::string_view why) noexcept {
    return {eviction_outcome::failed, why};
  }
  // The API server refused the eviction: a PodDisruptionBudget allows no disruption now (429).
  static constexpr eviction_result refused_by_budget(std::string_view why) noexcept {
    return {eviction_outcome::refused_by_budget, why};
  }
  constexpr bool ok() const noexcept { return !::preempt::is_failure(outcome); }
};

// How the client removes a victim (the dispatcher's set_eviction_mode).
enum class eviction_mode : std::uint8_t {
  delete_pod,               // DELETE the pod, as kube-scheduler does: budgets are not enforced
  evict_respecting_budgets  // POST pods/<name>/eviction: the API server enforces the budgets
};

// What the dispatcher asks of the client, beside the victim and the preemptor.
struct eviction_request {
  eviction_mode mode = eviction_mode::delete_pod;
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
  // Refused by a PodDisruptionBudget (429): a failure; `message` is copied before it returns.
  void refused_by_budget(std::string_view message) const noexcept {
    complete(eviction_outcome::refused_by_budget, message);
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

// The forms that take the request (the mode).
template <class C, class P>
concept eviction_client_with_request =
    pod<P> && requires(C& c, const P& victim, const P& preemptor, const eviction_request& request) {
      { c.evict(victim, preemptor, request) } -> std::convertible_to<eviction_result>;
    };

template <class C, class P>
concept async_eviction_client_with_request =
    pod<P> &&
    requires(C& c, const P& victim, const P& preemptor, const eviction_request& request,
             eviction_completion done) { c.start_eviction(victim, preemptor, request, done); };

namespace detail {
// The forms without the request.
template <class C, class P>
concept evicts_without_request = requires(C& c, const P& victim, const P& preemptor) {
  { c.evict(victim, preemptor) } -> std::convertible_to<eviction_result>;
};
template <class C, class P>
concept starts_without_request =
    requires(C& c, const P& victim, const P& preemptor, eviction_completion done) {
      c.start_eviction(victim, preemptor, done);
    };
}  // namespace detail

// A blocking client, with or without the request.
template <class C, class P>
concept eviction_client =
    pod<P> && (detail::evicts_without_request<C, P> || eviction_client_with_request<C, P>);

// A completion-based client, with or without the request.
template <class C, class P>
concept async_eviction_client =
    pod<P> && (detail::starts_without_request<C, P> || async_eviction_client_with_request<C, P>);

// Either kind: what the dispatcher takes.
template <class C, class P>
concept any_eviction_client = eviction_client<C, P> || async_eviction_client<C, P>;

// Whether the member the dispatcher calls (start_eviction when there is one) takes the request:
// only such a client can be asked for anything but eviction_mode::delete_pod.
template <class C, class P>
concept takes_eviction_request =
    (async_eviction_client<C, P> && async_eviction_client_with_request<C, P>) ||
    (!async_eviction_client<C, P> && eviction_client_with_request<C, P>);

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_EVICTION_HPP
