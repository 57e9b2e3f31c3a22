// preempt/victim_reasons.hpp - why each victim: the filter condition its eviction relieves.
//
// explain_victims(preemptor, state, victims, nominated, out), on a node state that has the
// victims removed (as victim selection leaves it, or a prepared state with them removed): for
// each victim i, in order, the victim alone is given back and the preemptor's fit is checked with
// the nominated pods (fits_with_nominated); out(i, explanation) then receives
//   fit        that check's status: what would stop the preemptor were this victim kept (e.g.
//              "Insufficient cpu", "node(s) didn't have free ports for the requested pod ports",
//              an anti-affinity or spread reason, from your filters), or success when keeping it
//              alone would leave room (it is evicted along with others: the reprieve met it before
//              later victims were gone)
//   shortages  when the state can tell amounts (model::resource_fit_state::for_each_shortage,
//              directly or through the state's base(), as kubernetes::filter_cluster's state): up
//              to max_shortages dimensions, each with what the preemptor asks and what would be
//              left, e.g. cpu: 2000m asked, 500m left (so 1500m short)
// and the victim is removed again: the state ends as it began. An error from the state stops it
// and is returned.
//
// Complexity: one add, one remove and one or two fit checks per victim. No allocation; no
// exceptions of its own; the state is mutated (one thread).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_VICTIM_REASONS_HPP
#define PREEMPT_VICTIM_REASONS_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "preempt/config.hpp"
#include "preempt/nominated_fit.hpp"
#include "preempt/pod.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN

// One dimension the preemptor would be short of: its index (the model's resource order), what
// the preemptor asks and what would be left.
struct victim_shortage {
  std::size_t dimension = 0;
  std::int64_t wanted = 0;
  std::int64_t left = 0;

  constexpr std::int64_t missing() const noexcept { return wanted - left; }
};

struct victim_explanation {
  static constexpr std::size_t max_shortages = 4;

  status fit;
  std::array<victim_shortage, max_shortages> shortage_storage{};
  std::size_t shortage_count = 0;

  constexpr std::span<const victim_shortage> shortages() const noexcept {
    return {shortage_storage.data(), shortage_count};
  }
};

namespace detail {

// The state's for_each_shortage, or its base()'s, or nothing.
template <class S, class P, class Visit>
void visit_shortages(S& state, const P& p, Visit&& visit) {
  if constexpr (requires { state.for_each_shortage(p, visit); })
    state.for_each_shortage(p, visit);
  else if constexpr (requires { state.base().for_each_shortage(p, visit); })
    state.base().for_each_shortage(p, visit);
}

}  // namespace detail

template <pod P, class S, class Nominated, class Out>
status explain_victims(const P& preemptor, S& state, std::span<const P* const> victims,
                       const Nominated& nominated, Out&& out) {
  for (std::size_t i = 0; i < victims.size(); ++i) {
    if (status st = state.add_pod(*victims[i]); !st) return st;
    victim_explanation e;
    e.fit = ::preempt::fits_with_nominated(state, preemptor, nominated);
    if (e.fit.code() == status_code::error) return e.fit;
    if (!e.fit.is_success())
      ::preempt::detail::visit_shortages(
          state, preemptor, [&](std::size_t d, std::int64_t wanted, std::int64_t left) {
            if (e.shortage_count < victim_explanation::max_shortages)
              e.shortage_storage[e.shortage_count++] = {d, wanted, left};
          });
    out(i, static_cast<const victim_explanation&>(e));
    if (status st = state.remove_pod(*victims[i]); !st) return st;
  }
  return status::ok();
}

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_VICTIM_REASONS_HPP
