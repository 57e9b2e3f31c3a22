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
//   - a returned candidate without victims is dropped if the extender is ignorable; otherwise the
//     attempt fails with "expected at least one victim pod on node \"<name>\"";
//   - an empty result ends the chain; an empty input runs no extender.
// Unlike upstream (which rebuilds the list from a Go map) the order the extender returns is kept.
//
// Allocation: the evaluator's candidate buffers, reused. No exceptions of its own.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_EXTENDER_HPP
#define PREEMPT_EXTENDER_HPP

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
    std::erase_if(scratch,
                  [&](const candidate<P>& c) { return c.victims.empty() && ext.is_ignorable(); });
    for (const candidate<P>& c : scratch)
      if (c.victims.empty()) {
        const std::string_view node = c.node_name;
        candidates.clear();
        return {extenders_outcome::kind::no_victims_on, node};
      }
    candidates.swap(scratch);
    *rescored = true;
  }
  return {};
}
}  // namespace detail

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_EXTENDER_HPP
