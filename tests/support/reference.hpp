// tests/support/reference.hpp - a deliberately naive victim selection with upstream's structure,
// used as the oracle of the property tests.
//
// It copies the node's pods, recomputes the node's usage from scratch for every fit check, sorts
// (Go's sort.Slice, detail::go_sort_slice, checked against Go by the conformance suite) on every
// call and copies every budget for every node: slow and obvious.
// It shares nothing with the library but the model types it reads.
#ifndef PREEMPT_TESTS_SUPPORT_REFERENCE_HPP
#define PREEMPT_TESTS_SUPPORT_REFERENCE_HPP

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "preempt/detail/go_sort.hpp"
#include "preempt/preempt.hpp"

namespace ref {

using pod = preempt::model::resource_pod;
using preempt::model::pod_id;
using preempt::model::resource_vector;

struct result {
  preempt::status_code code = preempt::status_code::success;
  std::vector<std::string> reasons;
  std::vector<pod_id> victims;
  std::int64_t violations = 0;
};

// Does `p` fit next to `present` on a node with `alloc`? Upstream reason strings, in upstream
// order.
inline std::vector<std::string> shortages(const resource_vector& alloc,
                                          const std::vector<const pod*>& present, const pod& p) {
  std::vector<std::string> reasons;
  const std::size_t dims = std::max<std::size_t>(alloc.size(), 4);
  std::vector<std::int64_t> used(dims, 0);
  for (const pod* q : present)
    for (std::size_t d = 0; d < dims; ++d) used[d] += q->requests()[d];
  if (static_cast<std::int64_t>(present.size()) + 1 > alloc[2]) reasons.push_back("Too many pods");
  const char* names[] = {"Insufficient cpu", "Insufficient memory", "",
                         "Insufficient ephemeral-storage"};
  for (std::size_t d = 0; d < p.requests().size(); ++d) {
    if (d == 2) continue;
    const std::int64_t want = p.requests()[d];
    const std::int64_t left = alloc[d] - (d < dims ? used[d] : 0);
    if (want > 0 && want > left)
      reasons.push_back(d < 4 ? std::string(names[d]) : "Insufficient extended resource");
  }
  return reasons;
}

// Two-pass rule with nominated pods (RunFilterPluginsWithNominatedPods).
inline std::vector<std::string> fit_with_nominated(const resource_vector& alloc,
                                                   const std::vector<const pod*>& present,
                                                   const std::vector<const pod*>& nominated,
                                                   const pod& p) {
  std::vector<const pod*> with = present;
  for (const pod* n : nominated)
    if (n->priority() >= p.priority() && n->uid() != p.uid()) with.push_back(n);
  if (with.size() != present.size()) {
    auto first = shortages(alloc, with, p);
    if (!first.empty()) return first;
  }
  return shortages(alloc, present, p);
}

// Upstream MoreImportantVictim on victims built at positions a_built, b_built of the node's pods
// in cache order: a missing start time is the clock when the victim is built (`now`, later for
// the one built later, after a start time recorded at `now`).
inline bool more_important_built(const pod& a, std::size_t a_built, const pod& b,
                                 std::size_t b_built, preempt::timestamp now) {
  if (a.priority() != b.priority()) return a.priority() > b.priority();
  const preempt::timestamp ta = a.start_time().value_or(now), tb = b.start_time().value_or(now);
  if (ta != tb) return ta < tb;
  if (a.start_time().has_value() != b.start_time().has_value()) return a.start_time().has_value();
  return !a.start_time() && a_built < b_built;
}

inline result select_victims(const preempt::model::resource_node& node, const pod& preemptor,
                             const preempt::model::budget_table& budgets,
                             const std::vector<const pod*>& nominated, preempt::timestamp now) {
  result out;
  // The node's pods in the cache's order (upstream's NodeInfo.Pods), where sort.Slice starts.
  std::vector<const pod*> cached(node.pods().size());
  for (std::size_t i = 0; i < node.pods().size(); ++i)
    cached[node.cache_position(i)] = &node.pods()[i];
  std::vector<const pod*> present, potential;
  for (const pod* p : cached) {
    if (p->priority() < preemptor.priority())
      potential.push_back(p);
    else
      present.push_back(p);
  }
  if (potential.empty()) {
    out.code = preempt::status_code::unschedulable_and_unresolvable;
    out.reasons = {"No preemption victims found for incoming pod"};
    return out;
  }
  if (auto r = fit_with_nominated(node.allocatable(), present, nominated, preemptor); !r.empty()) {
    // fitsRequest: a request above the node's whole allocatable amount is Unresolvable.
    bool beyond = false;
    for (std::size_t d = 0; d < preemptor.requests().size(); ++d)
      if (d != preempt::model::resource::pods && preemptor.requests()[d] > 0 &&
          preemptor.requests()[d] > node.allocatable()[d])
        beyond = true;
    out.code = beyond ? preempt::status_code::unschedulable_and_unresolvable
                      : preempt::status_code::unschedulable;
    out.reasons = r;
    return out;
  }
  // Each potential victim built at its position in cache order.
  const auto built_at = [&](const pod* p) {
    return static_cast<std::size_t>(std::find(cached.begin(), cached.end(), p) - cached.begin());
  };
  const auto importance = [&](const pod* a, const pod* b) {
    return more_important_built(*a, built_at(a), *b, built_at(b), now);
  };
  preempt::detail::go_sort_slice(potential.begin(), potential.end(), importance);
  std::vector<std::int64_t> allowed(budgets.budget_count());
  for (std::size_t i = 0; i < allowed.size(); ++i) allowed[i] = budgets.disruptions_allowed(i);
  std::vector<const pod*> violating, fine;
  for (const pod* p : potential) {
    bool violates = false;
    budgets.for_each_budget_of(*p, [&](std::size_t i, bool disrupted) {
      if (!disrupted && !violates && --allowed[i] < 0) violates = true;  // stops at the first
    });
    (violates ? violating : fine).push_back(p);
  }
  std::vector<const pod*> victims;
  const auto reprieve = [&](const pod* p, bool violates) {
    present.push_back(p);
    if (!fit_with_nominated(node.allocatable(), present, nominated, preemptor).empty()) {
      present.pop_back();
      victims.push_back(p);
      if (violates) ++out.violations;
    }
  };
  for (const pod* p : violating) reprieve(p, true);
  for (const pod* p : fine) reprieve(p, false);
  if (!violating.empty() && !fine.empty()) {
    preempt::detail::go_sort_slice(victims.begin(), victims.end(), importance);
  }
  for (const pod* v : victims) out.victims.push_back(v->uid());
  return out;
}

}  // namespace ref

#endif  // PREEMPT_TESTS_SUPPORT_REFERENCE_HPP
