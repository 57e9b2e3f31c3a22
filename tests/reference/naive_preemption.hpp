// tests/reference/naive_preemption.hpp - REFERENCE IMPLEMENTATION, not the library.
//
// A deliberately naive port of kube-scheduler's whole preemption decision (DefaultPreemption
// PostFilter: PodEligibleToPreemptOthers, findCandidates, DryRunPreemption with
// SelectVictimsOnNode, SelectCandidate; no extenders) with upstream's structure and upstream's
// costs, written from upstream's behaviour and sharing nothing with the library but the model
// types it reads (model::resource_cluster, model::resource_pod) and the status/decision enums. It
// serves twice:
//   * as the oracle of tests/evaluation/differential.test.cpp (same node, victims, violation count,
//     kind and message as preempt::evaluator on thousands of seeded random clusters) and of
//     tests/evaluation/properties.test.cpp (select_victims node by node, pick_best_candidate);
//   * as the "straightforward implementation" the benchmarks compare with (counter x_reference).
//
// Upstream's structure, kept on purpose:
//   - every node evaluated gets a deep copy of its NodeInfo (name, allocatable, a copy of every
//     pod, the aggregate of requests); removing a pod searches the copy's pod list by uid and
//     swaps the last pod into its place, as NodeInfo.RemovePod does;
//   - the filter (NodeResourcesFit) is re-run on that copy for the first check and for every
//     reprieve; with nominated pods the copy is cloned again and the nominees added (two-pass rule,
//     RunFilterPluginsWithNominatedPods), as addGENominatedPods does;
//   - the potential victims are sorted on every node evaluation with Go's sort.Slice
//     (detail::go_sort_slice, checked against Go by the conformance suite), from the node's pods
//     in the cache's order, as upstream sorts them;
//   - the budget classification copies disruptionsAllowed of EVERY budget per node and tests every
//     budget against every potential victim (namespace, then the selector stand-in: a sorted
//     member list, then disruptedPods), as filterPodsWithPDBViolation does;
//   - sampling: numCandidates from (percentage, absolute), the dry run walks the potential nodes
//     from an offset with two bounded lists and upstream's stop rule, sequentially;
//   - the candidate is chosen with upstream's tie-break chain (pickOneNodeForPreemption), iterating
//     the candidates in the order found (non-violating first) where upstream iterates a Go map.
// Not modelled: extenders, custom policies, parallelism (the library's answer does not depend on
// it). Allocation everywhere; slow by design. Header-only, for tests and benchmarks only.
#ifndef PREEMPT_TESTS_REFERENCE_NAIVE_PREEMPTION_HPP
#define PREEMPT_TESTS_REFERENCE_NAIVE_PREEMPTION_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "preempt/detail/go_sort.hpp"
#include "preempt/preempt.hpp"

namespace naive_reference {

using preempt::status_code;
using preempt::timestamp;
using pod = preempt::model::resource_pod;
using preempt::model::pod_id;

// A disruption budget as upstream lists it: namespace, allowed disruptions, a selector (here the
// sorted uids it matches) and the disruptedPods map (sorted uids).
struct budget {
  std::uint32_t namespace_id = 0;
  std::int32_t allowed = 0;
  std::vector<pod_id> members;    // sorted
  std::vector<pod_id> disrupted;  // sorted
  bool selects(const pod& p) const {
    return std::binary_search(members.begin(), members.end(), p.uid());
  }
  bool already_disrupted(const pod& p) const {
    return std::binary_search(disrupted.begin(), disrupted.end(), p.uid());
  }
};

// What the decision reads besides the preemptor.
struct input {
  const preempt::model::resource_cluster* cluster = nullptr;
  // Filter status code of every node for the preemptor (size() == cluster->size()).
  std::vector<status_code> statuses;
  const std::vector<budget>* budgets = nullptr;  // nullptr: none
  // Pods nominated to each node (index = node); may be shorter than the node count.
  const std::vector<std::vector<const pod*>>* nominated = nullptr;
  preempt::sampling_args sampling;
  std::size_t offset = 0;  // taken modulo the number of potential nodes
  std::optional<std::size_t> nominated_node;
  timestamp now = 0;  // start time of pods that have none
};

struct node_outcome {
  std::size_t node = 0;
  status_code code = status_code::success;
  std::vector<std::string> reasons;
  std::vector<pod_id> victims;  // descending importance
  std::int64_t violations = 0;
};

struct decision {
  preempt::decision_kind kind = preempt::decision_kind::error;
  std::size_t node_index = static_cast<std::size_t>(-1);
  std::vector<pod_id> victims;
  std::int64_t violations = 0;
  bool clear_nomination = false;
  std::string message;
  std::size_t potential = 0;
  std::size_t wanted = 0;
  std::vector<node_outcome> tried;       // every node evaluated, in order
  std::vector<node_outcome> candidates;  // non-violating first, then violating
};

namespace detail {

inline timestamp start_or(const pod& p, timestamp now) { return p.start_time().value_or(now); }

// Upstream MoreImportantVictim on two victims built at positions a_built and b_built of the
// node's pods in cache order: a missing start time reads the clock when the victim is built
// (util.GetPodStartTime in NewVictim), so it is `now`, later for the one built later, and after a
// start time recorded at `now` itself.
inline bool more_important_built(const pod& a, std::size_t a_built, const pod& b,
                                 std::size_t b_built, timestamp now) {
  if (a.priority() != b.priority()) return a.priority() > b.priority();
  if (start_or(a, now) != start_or(b, now)) return start_or(a, now) < start_or(b, now);
  if (a.start_time().has_value() != b.start_time().has_value()) return a.start_time().has_value();
  return !a.start_time() && a_built < b_built;
}

// A deep copy of one node, as NodeInfo.Snapshot() makes it.
struct node_info {
  std::string name;
  std::vector<std::int64_t> allocatable;
  std::vector<pod> pods;
  std::vector<std::int64_t> requested;

  static constexpr std::size_t pods_dim = 2;

  void grow(std::size_t dims) {
    if (requested.size() < dims) requested.resize(dims, 0);
    if (allocatable.size() < dims) allocatable.resize(dims, 0);
  }
  void add_pod(const pod& p) {
    grow(p.requests().size());
    pods.push_back(p);
    for (std::size_t d = 0; d < p.requests().size(); ++d) requested[d] += p.requests()[d];
  }
  // NodeInfo.RemovePod: find by uid, move the last pod into its place.
  void remove_pod(const pod& p) {
    for (std::size_t i = 0; i < pods.size(); ++i) {
      if (pods[i].uid() != p.uid()) continue;
      for (std::size_t d = 0; d < p.requests().size(); ++d) requested[d] -= p.requests()[d];
      pods[i] = pods.back();
      pods.pop_back();
      return;
    }
  }
};

inline node_info copy_node(const preempt::model::resource_node& n) {
  node_info info;
  info.name = std::string(n.name());
  for (std::size_t d = 0; d < n.allocatable().size(); ++d)
    info.allocatable.push_back(n.allocatable()[d]);
  info.grow(4);
  for (const pod& p : n.pods()) info.add_pod(p);
  return info;
}

inline const char* dimension_reason(std::size_t d) {
  switch (d) {
    case 0: return "Insufficient cpu";
    case 1: return "Insufficient memory";
    case 3: return "Insufficient ephemeral-storage";
    default: return "Insufficient extended resource";
  }
}

// NodeResourcesFit: "Too many pods", then every short dimension in order. Empty = fits.
inline std::vector<std::string> resource_fit(const node_info& n, const pod& p) {
  // (At most four reasons can arise from the dimensions the tests and benchmarks use: pods, cpu,
  // memory and one extended resource; the library's status keeps four.)
  std::vector<std::string> reasons;
  const auto at = [](const std::vector<std::int64_t>& v, std::size_t d) {
    return d < v.size() ? v[d] : std::int64_t{0};
  };
  if (static_cast<std::int64_t>(n.pods.size()) + 1 > at(n.allocatable, node_info::pods_dim))
    reasons.emplace_back("Too many pods");
  for (std::size_t d = 0; d < p.requests().size(); ++d) {
    if (d == node_info::pods_dim) continue;
    const std::int64_t want = p.requests()[d];
    if (want > 0 && want > at(n.allocatable, d) - at(n.requested, d))
      reasons.emplace_back(dimension_reason(d));
  }
  return reasons;
}

// fitsRequest's Unresolvable: a request above the node's whole allocatable amount (pods aside);
// such a dimension is short in every pass, and NodeResourcesFit says UnschedulableAndUnresolvable.
inline bool beyond_allocatable(const node_info& n, const pod& p) {
  for (std::size_t d = 0; d < p.requests().size(); ++d) {
    const std::int64_t allocatable = d < n.allocatable.size() ? n.allocatable[d] : 0;
    if (d != node_info::pods_dim && p.requests()[d] > 0 && p.requests()[d] > allocatable)
      return true;
  }
  return false;
}

// RunFilterPluginsWithNominatedPods: with nominees of priority >= the pod's on a clone of the
// node, then (if any were added) without them.
inline std::vector<std::string> filters_with_nominated(const node_info& n, const pod& p,
                                                       const std::vector<const pod*>& nominated) {
  bool any = false;
  for (const pod* q : nominated)
    if (q->priority() >= p.priority() && q->uid() != p.uid()) any = true;
  if (any) {
    node_info with = n;  // upstream clones the NodeInfo
    for (const pod* q : nominated)
      if (q->priority() >= p.priority() && q->uid() != p.uid()) with.add_pod(*q);
    if (auto r = resource_fit(with, p); !r.empty()) return r;
  }
  return resource_fit(n, p);
}

// SelectVictimsOnNode on a copy of node `index`.
inline node_outcome select_victims_on_node(const input& in, std::size_t index,
                                           const pod& preemptor) {
  const auto& original = (*in.cluster)[index];
  static const std::vector<const pod*> none;
  const std::vector<const pod*>& nominated =
      in.nominated != nullptr && index < in.nominated->size() ? (*in.nominated)[index] : none;
  node_outcome out;
  out.node = index;
  node_info n = copy_node(original);  // deep copy per node

  // Copies, in the cache's order of the node's pods (upstream's NodeInfo.Pods).
  std::vector<const pod*> cached(original.pods().size());
  for (std::size_t i = 0; i < cached.size(); ++i)
    cached[original.cache_position(i)] = &original.pods()[i];
  std::vector<pod> potential;
  for (const pod* p : cached)
    if (p->priority() < preemptor.priority()) potential.push_back(*p);
  for (const pod& p : potential) n.remove_pod(p);
  if (potential.empty()) {
    out.code = status_code::unschedulable_and_unresolvable;
    out.reasons = {"No preemption victims found for incoming pod"};
    return out;
  }
  if (auto r = filters_with_nominated(n, preemptor, nominated); !r.empty()) {
    out.code = beyond_allocatable(n, preemptor) ? status_code::unschedulable_and_unresolvable
                                                : status_code::unschedulable;
    out.reasons = std::move(r);
    return out;
  }
  // Sort by descending importance on every evaluation, as Go's sort.Slice does; each victim built
  // at its position among the potential victims (cache order).
  std::vector<std::pair<pod_id, std::size_t>> built;
  for (std::size_t i = 0; i < potential.size(); ++i) built.emplace_back(potential[i].uid(), i);
  const auto built_at = [&](const pod& p) {
    for (const auto& [uid, at] : built)
      if (uid == p.uid()) return at;
    return std::size_t{0};
  };
  const auto importance = [&](const pod& a, const pod& b) {
    return more_important_built(a, built_at(a), b, built_at(b), in.now);
  };
  preempt::detail::go_sort_slice(potential.begin(), potential.end(), importance);

  // filterPodsWithPDBViolation: a fresh copy of every budget's allowance for this node, every
  // budget tested against every pod.
  std::vector<const pod*> violating, non_violating;
  if (in.budgets != nullptr && !in.budgets->empty()) {
    std::vector<std::int64_t> allowed(in.budgets->size());
    for (std::size_t b = 0; b < allowed.size(); ++b) allowed[b] = (*in.budgets)[b].allowed;
    for (const pod& p : potential) {
      bool violates = false;
      for (std::size_t b = 0; b < in.budgets->size(); ++b) {
        const budget& pdb = (*in.budgets)[b];
        if (pdb.namespace_id != p.namespace_id()) continue;
        if (!pdb.selects(p)) continue;
        if (pdb.already_disrupted(p)) continue;
        if (--allowed[b] < 0) {
          violates = true;
          break;  // upstream stops at the first budget the pod exhausts
        }
      }
      (violates ? violating : non_violating).push_back(&p);
    }
  } else {
    for (const pod& p : potential) non_violating.push_back(&p);
  }

  std::vector<const pod*> victims;
  const auto reprieve = [&](const pod* p, bool violates) {
    n.add_pod(*p);
    if (!filters_with_nominated(n, preemptor, nominated).empty()) {
      n.remove_pod(*p);
      victims.push_back(p);
      if (violates) ++out.violations;
    }
  };
  for (const pod* p : violating) reprieve(p, true);
  for (const pod* p : non_violating) reprieve(p, false);
  if (!violating.empty() && !non_violating.empty()) {
    // Re-sort with sort.Slice, as upstream does.
    preempt::detail::go_sort_slice(victims.begin(), victims.end(),
                                   [&](const pod* a, const pod* b) { return importance(*a, *b); });
  }
  for (const pod* v : victims) out.victims.push_back(v->uid());
  return out;
}

// GetEarliestPodStartTime over the victims of the highest priority.
inline std::int64_t earliest_start_of_top(const std::vector<const pod*>& victims, timestamp now) {
  if (victims.empty()) return std::numeric_limits<std::int64_t>::min();
  std::int32_t top = std::numeric_limits<std::int32_t>::min();
  for (const pod* v : victims) top = std::max(top, v->priority());
  timestamp earliest = std::numeric_limits<timestamp>::max();
  for (const pod* v : victims)
    if (v->priority() == top) earliest = std::min(earliest, start_or(*v, now));
  return earliest;
}

inline const pod* find_pod(const preempt::model::resource_node& n, pod_id uid) {
  for (const pod& p : n.pods())
    if (p.uid() == uid) return &p;
  return nullptr;
}

// pickOneNodeForPreemption with the default score functions; returns an index into `cands`.
inline std::size_t pick_one(const input& in, const std::vector<node_outcome>& cands) {
  std::vector<std::size_t> remaining;
  for (std::size_t i = 0; i < cands.size(); ++i) remaining.push_back(i);
  const auto victims_of = [&](std::size_t i) {
    std::vector<const pod*> v;
    for (pod_id uid : cands[i].victims) v.push_back(find_pod((*in.cluster)[cands[i].node], uid));
    return v;
  };
  using score_fn = std::int64_t (*)(const node_outcome&, const std::vector<const pod*>&, timestamp);
  const score_fn scores[] = {
      [](const node_outcome& c, const std::vector<const pod*>&, timestamp) {
        return -c.violations;
      },
      [](const node_outcome&, const std::vector<const pod*>& v, timestamp) {
        return v.empty() ? std::int64_t{0} : -std::int64_t{v[0]->priority()};
      },
      [](const node_outcome&, const std::vector<const pod*>& v, timestamp) {
        std::int64_t sum = 0;
        for (const pod* p : v) sum += std::int64_t{p->priority()} + (std::int64_t{1} << 31);
        return -sum;
      },
      [](const node_outcome&, const std::vector<const pod*>& v, timestamp) {
        return -static_cast<std::int64_t>(v.size());
      },
      [](const node_outcome&, const std::vector<const pod*>& v, timestamp now) {
        return earliest_start_of_top(v, now);
      },
  };
  for (score_fn f : scores) {
    std::int64_t best = std::numeric_limits<std::int64_t>::min();
    std::vector<std::pair<std::size_t, std::int64_t>> scored;
    for (std::size_t i : remaining) {
      const std::int64_t s = f(cands[i], victims_of(i), in.now);
      scored.emplace_back(i, s);
      best = std::max(best, s);
    }
    remaining.clear();
    for (auto [i, s] : scored)
      if (s == best) remaining.push_back(i);
    if (remaining.size() == 1) return remaining[0];
  }
  return remaining[0];
}

}  // namespace detail

// The whole decision for `preemptor` (Evaluator.Preempt without extenders).
inline decision preempt(const pod& preemptor, const input& in) {
  using preempt::decision_kind;
  decision d;
  const auto& c = *in.cluster;
  // 2.2 eligibility.
  if (preemptor.preemption_policy() == preempt::preemption_policy::never) {
    d.kind = decision_kind::not_eligible;
    d.message = "preemption: not eligible due to preemptionPolicy=Never.";
    return d;
  }
  if (in.nominated_node && *in.nominated_node < c.size() &&
      in.statuses[*in.nominated_node] != status_code::unschedulable_and_unresolvable) {
    for (const pod& p : c[*in.nominated_node].pods()) {
      if (p.priority() < preemptor.priority() && p.terminating_by_preemption()) {
        d.kind = decision_kind::not_eligible;
        d.message = "preemption: not eligible due to a terminating pod on the nominated node.";
        return d;
      }
    }
  }
  if (c.size() == 0) {
    d.kind = decision_kind::error;
    d.message = "preemption: no nodes available";
    return d;
  }
  // 2.3 potential nodes and sampling.
  std::vector<std::size_t> potential;
  for (std::size_t i = 0; i < c.size(); ++i)
    if (in.statuses[i] == status_code::unschedulable) potential.push_back(i);
  const std::size_t n = potential.size();
  d.potential = n;
  if (n > 0) {
    const auto pct = static_cast<std::size_t>(in.sampling.min_candidate_nodes_percentage);
    const auto abs = static_cast<std::size_t>(in.sampling.min_candidate_nodes_absolute);
    d.wanted = std::min(n, std::max(n * pct / 100, abs));
    const std::size_t offset = in.offset % n;
    // 2.4 dry run: two bounded lists, upstream's stop rule.
    std::vector<node_outcome> non_violating, violating;
    for (std::size_t i = 0; i < n; ++i) {
      node_outcome o = detail::select_victims_on_node(in, potential[(offset + i) % n], preemptor);
      if (o.code == status_code::success && o.victims.empty()) {
        o.code = status_code::error;
        o.reasons = {"expected at least one victim pod on node \"" + std::string(c[o.node].name()) +
                     "\""};
      }
      d.tried.push_back(o);
      if (o.code != status_code::success) continue;
      auto& list = o.violations == 0 ? non_violating : violating;
      if (list.size() < d.wanted) list.push_back(o);  // bounded: overflow is dropped
      if (!non_violating.empty() && non_violating.size() + violating.size() >= d.wanted) break;
    }
    d.candidates = non_violating;
    d.candidates.insert(d.candidates.end(), violating.begin(), violating.end());
  }
  if (!d.candidates.empty()) {
    const std::size_t best = detail::pick_one(in, d.candidates);
    d.kind = decision_kind::nominated;
    d.node_index = d.candidates[best].node;
    d.victims = d.candidates[best].victims;
    d.violations = d.candidates[best].violations;
    return d;
  }
  // Errors and no candidate: the aggregate error.
  std::vector<std::string> errors;
  for (const auto& o : d.tried)
    if (o.code == status_code::error &&
        std::find(errors.begin(), errors.end(), o.reasons[0]) == errors.end())
      errors.push_back(o.reasons[0]);
  if (!errors.empty()) {
    d.kind = decision_kind::error;
    d.message = "preemption: ";
    if (errors.size() > 1) d.message += "[";
    for (std::size_t i = 0; i < errors.size(); ++i) d.message += (i ? ", " : "") + errors[i];
    if (errors.size() > 1) d.message += "]";
    return d;
  }
  // 2.7.1 FitError: failed nodes count their reasons, every other node is "not helpful".
  std::vector<std::pair<std::string, std::size_t>> histogram;
  const auto count = [&](const std::string& reason, std::size_t k) {
    for (auto& [r, m] : histogram)
      if (r == reason) {
        m += k;
        return;
      }
    histogram.emplace_back(reason, k);
  };
  std::size_t failed = 0;
  for (const auto& o : d.tried) {
    if (o.code == status_code::success) continue;
    ++failed;
    for (const auto& r : o.reasons) count(r, 1);
  }
  if (c.size() > failed) count("Preemption is not helpful for scheduling", c.size() - failed);
  std::vector<std::string> lines;
  for (const auto& [r, k] : histogram) lines.push_back(std::to_string(k) + " " + r);
  std::sort(lines.begin(), lines.end());
  d.kind = decision_kind::unschedulable;
  d.clear_nomination = true;
  d.message = "preemption: 0/" + std::to_string(c.size()) + " nodes are available: ";
  for (std::size_t i = 0; i < lines.size(); ++i) d.message += (i ? ", " : "") + lines[i];
  d.message += ".";
  return d;
}

// pickOneNodeForPreemption alone: the index in `candidates` of the node upstream's default score
// functions choose (the first of a full tie).
inline std::size_t pick_one_node(const input& in, const std::vector<node_outcome>& candidates) {
  return detail::pick_one(in, candidates);
}

// SelectVictimsOnNode alone (for the per-node benchmark and the property tests): node `index`, no
// sampling.
inline node_outcome select_victims(const pod& preemptor, const input& in, std::size_t index) {
  return detail::select_victims_on_node(in, index, preemptor);
}

}  // namespace naive_reference

#endif  // PREEMPT_TESTS_REFERENCE_NAIVE_PREEMPTION_HPP
