// preempt/extender.hpp - post-processing of the candidates before the final choice (the role of
// Kubernetes scheduler extenders, as upstream's callExtenders runs them).
//
// A candidate extender for pods of type P is any object with:
//   ext.supports_preemption()               false ⇒ skipped
//   ext.is_interested(preemptor)            false ⇒ skipped
//   ext.is_ignorable()                      may its failures be ignored?
//   ext.process_preemption(preemptor, in, out) -> status
//       `in` is a std::span<const candidate<P>>; the extender appends the candidates it keeps
//       (possibly with other victims) to `out`, a std::vector<candidate<P>>&. Victim spans it
//       creates must stay valid until the decision is no longer used.
// Extenders run in order, each on the previous one's result:
//   - an error from an ignorable extender is skipped; from any other it fails the attempt with
//     its message;
//   - a returned candidate without victims is kept if its node had none in that extender's input
//     (a placeholder: see below); otherwise it is dropped if the extender is ignorable, and the
//     attempt fails with "expected at least one victim pod on node \"<name>\"" if not;
//   - an empty result ends the chain; an empty input runs no extender;
//   - candidates still without victims once every extender ran are dropped.
// Placeholders exist from v1.38 on: when an extender that supports preemption is interested in the
// preemptor, a node whose filters pass with every victim reprieved (which an extender's own
// resources can explain) is a candidate without victims, for the extenders to fill
// (has_interested_preempt_extender). Under v1.37 such a node is an error, so no input holds one.
// Unlike upstream (which rebuilds the list from a Go map) the order the extender returns is kept.
//
// Allocation: the evaluator's candidate buffers, reused. No exceptions of its own.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_EXTENDER_HPP
#define PREEMPT_EXTENDER_HPP

#include <algorithm>
#include <concepts>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "preempt/candidate.hpp"
#include "preempt/config.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN

template <class X, class P>
concept candidate_extender =
    requires(X& x, const P& p, std::span<const candidate<P>> in, std::vector<candidate<P>>& out) {
      { x.supports_preemption() } -> std::convertible_to<bool>;
      { x.is_interested(p) } -> std::convertible_to<bool>;
      { x.is_ignorable() } -> std::convertible_to<bool>;
      { x.process_preemption(p, in, out) } -> std::convertible_to<status>;
    };

// No extenders.
struct no_extenders {};

namespace detail {
template <class T>
constexpr auto& deref(T& x) noexcept {
  if constexpr (std::is_pointer_v<std::remove_cvref_t<T>>)
    return *x;
  else
    return x;
}

// Whether some extender supports preemption and is interested in `preemptor`.
template <class P, class Extenders>
bool has_interested_preempt_extender(const P& preemptor, Extenders& extenders) {
  if constexpr (std::same_as<std::remove_cvref_t<Extenders>, no_extenders>) {
    return false;
  } else {
    for (auto& entry : extenders) {
      auto& ext = ::preempt::detail::deref(entry);
      if (ext.supports_preemption() && ext.is_interested(preemptor)) return true;
    }
    return false;
  }
}

// How a run of the extenders ended: every extender ran, or the attempt failed because one failed
// (`text`: its message) or returned a candidate without victims (`text`: that node's name).
struct extenders_outcome {
  enum class kind : unsigned char { ran, extender_failed, no_victims_on };
  kind ended = kind::ran;
  std::string_view text;
};

// Runs the extenders in order on `candidates` (see the header comment), with `scratch` for their
// output; a failed run leaves `candidates` empty. `*rescored` is set when some extender ran (its
// candidates are scored when chosen).
template <class P, class Extenders>
extenders_outcome run_extenders(const P& preemptor, Extenders& extenders,
                                std::vector<candidate<P>>& candidates,
                                std::vector<candidate<P>>& scratch, bool* rescored) {
  for (auto& entry : extenders) {
    if (candidates.empty()) break;
    auto& ext = ::preempt::detail::deref(entry);
    if (!ext.supports_preemption() || !ext.is_interested(preemptor)) continue;
    scratch.clear();
    const status st =
        ext.process_preemption(preemptor, std::span<const candidate<P>>(candidates), scratch);
    if (!st) {
      if (ext.is_ignorable()) continue;
      candidates.clear();  // upstream returns no candidates with the error
      return {extenders_outcome::kind::extender_failed, st.reason()};
    }
    // A node the extender got without victims may come back without victims: a placeholder.
    const auto placeholder = [&](const candidate<P>& c) {
      return c.victims.empty() &&
             std::any_of(candidates.begin(), candidates.end(), [&](const candidate<P>& in) {
               return in.victims.empty() && in.node_name == c.node_name;
             });
    };
    std::erase_if(scratch, [&](const candidate<P>& c) {
      return c.victims.empty() && !placeholder(c) && ext.is_ignorable();
    });
    for (const candidate<P>& c : scratch)
      if (c.victims.empty() && !placeholder(c)) {
        const std::string_view node = c.node_name;
        candidates.clear();
        return {extenders_outcome::kind::no_victims_on, node};
      }
    candidates.swap(scratch);
    *rescored = true;
  }
  std::erase_if(candidates, [](const candidate<P>& c) { return c.victims.empty(); });
  return {};
}
}  // namespace detail

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_EXTENDER_HPP
