// preempt/kubernetes/inter_pod_affinity.hpp - kube-scheduler's InterPodAffinity filter (required
// terms only), with its PreFilter state and the AddPod/RemovePod extensions preemption relies on.
//
// The filter, in upstream's order (the InterPodAffinityHostnameFastPath gate is off by default):
//   1. the pod's required affinity: for every term the node has the topologyKey label and its
//      domain holds a pod matching all the terms; else UnschedulableAndUnresolvable,
//      "node(s) didn't match pod affinity rules" (a node lacking a key always fails). Upstream's
//      special case for the first pod of a group: when no pod anywhere matches all the terms and
//      the pod matches them itself, every node with the keys passes.
//   2. the pod's required anti-affinity: a node whose domain (for a term's topologyKey) holds a
//      pod the term matches: Unschedulable, "node(s) didn't match pod anti-affinity rules".
//   3. the required anti-affinity of the pods already placed: a node sharing a domain with a pod
//      whose term matches this pod: Unschedulable,
//      "node(s) didn't satisfy existing pods anti-affinity rules".
// When no placed pod's anti-affinity matches the pod and the pod has no required terms, the
// plugin is skipped entirely (upstream's PreFilter Skip), also for pods added later.
//
// inter_pod_affinity_prefilter is upstream's PreFilter state: three counts per topology pair
// (key, value) over the whole cluster, computed once per pod to place; read-only afterwards, it
// may be shared by threads. inter_pod_affinity_overlay is the per-node what-if part: reset(node
// labels), update(pod, ±1) as victims are removed and pods added back (upstream's
// updateWithPod), update_elsewhere for a pod of another node, filter(). How terms match
// (AffinityTerm.Matches) is at term_matches; how the overlay avoids copying the tables, at the
// overlay.
//
// Complexity: prefilter O(p · t · s) for p pods, t terms, s selector size, plus sorting the
// pairs; reset O((t + l) · log m) for m pairs and l node labels; update O(t) with the
// PreFilter's findings, else O(t · s), plus O(log l) per term of the updated pod that matches the
// pod to place; filter O(t + l). Allocation: in prefilter (O(p) for the findings); an overlay's
// slots grow to the largest node's once. No exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_INTER_POD_AFFINITY_HPP
#define PREEMPT_KUBERNETES_INTER_POD_AFFINITY_HPP

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/kubernetes/labels.hpp"
#include "preempt/kubernetes/pod_facts.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes {

inline constexpr std::string_view pod_affinity_reason = "node(s) didn't match pod affinity rules";
inline constexpr std::string_view pod_anti_affinity_reason =
    "node(s) didn't match pod anti-affinity rules";
inline constexpr std::string_view existing_anti_affinity_reason =
    "node(s) didn't satisfy existing pods anti-affinity rules";

// The pod to place, as InterPodAffinity reads it.
struct affinity_pod {
  std::string_view ns;
  const label_set* labels = nullptr;
  std::span<const affinity_term> required_affinity;
  std::span<const affinity_term> required_anti_affinity;
};

// Matching (AffinityTerm.Matches): the pod's namespace is listed, or the namespaceSelector
// selects it, and the labelSelector matches its labels. For the pod's own terms the
// namespaceSelector is resolved against the Namespace objects given (a namespace without one is
// never selected); for the placed pods' terms it is matched against the labels of this pod's
// Namespace (none when it has no Namespace object). matchLabelKeys and mismatchLabelKeys of the
// pod's own terms are merged into their selectors first (apply_label_keys).
//
// Whether a placed pod's term (of a pod in namespace `owner_ns`) matches a pod in namespace
// `ns` with these labels; `ns_labels` are the labels of that namespace.
inline bool term_matches(const affinity_term& t, std::string_view owner_ns, std::string_view ns,
                         const label_set& labels, const label_set& ns_labels) {
  bool in_scope = false;
  if (t.namespaces.empty() && !t.namespace_selector)
    in_scope = ns == owner_ns;
  else
    in_scope = std::find(t.namespaces.begin(), t.namespaces.end(), ns) != t.namespaces.end();
  if (!in_scope && t.namespace_selector) in_scope = matches(*t.namespace_selector, ns_labels);
  return in_scope && t.selector && matches(*t.selector, labels);
}

class inter_pod_affinity_prefilter {
 public:
  enum table : std::uint8_t { existing_anti = 0, affinity = 1, anti = 2 };

  // Computes the state for `pod`: node_at(i) returns node i's labels (const label_set&),
  // pods_at(i, visit) calls visit(const pod_facts&) for each pod of node i; `namespaces` are the
  // Namespace objects.
  template <class NodeAt, class PodsAt>
  void prefilter(const affinity_pod& pod, std::span<const namespace_facts> namespaces,
                 std::size_t node_count, NodeAt&& node_at, PodsAt&& pods_at) {
    const label_set none;
    const label_set& own = pod.labels != nullptr ? *pod.labels : none;
    ns_ = std::string(pod.ns);
    own_labels_ = own;
    ns_labels_ = label_set{};
    for (const namespace_facts& n : namespaces)
      if (n.name == pod.ns && n.labels != nullptr) ns_labels_ = *n.labels;
    const auto resolve = [&](std::span<const affinity_term> in, std::vector<term>& out) {
      out.clear();
      for (const affinity_term& a : in) {
        affinity_term t = a;
        apply_label_keys(t, own);
        term r;
        r.selector = std::move(t.selector);
        r.key = std::move(t.topology_key);
        if (t.namespaces.empty() && !t.namespace_selector)
          r.namespaces.push_back(ns_);
        else
          r.namespaces = std::move(t.namespaces);
        if (t.namespace_selector) {
          if (t.namespace_selector->empty()) {
            r.all_namespaces = true;
          } else {
            for (const namespace_facts& n : namespaces)
              if (matches(*t.namespace_selector, n.labels != nullptr ? *n.labels : none))
                r.namespaces.emplace_back(n.name);
          }
        }
        std::sort(r.namespaces.begin(), r.namespaces.end());
        r.first = out.size();
        for (std::size_t j = 0; j < out.size(); ++j)
          if (out[j].key == r.key) {
            r.first = j;
            break;
          }
        out.push_back(std::move(r));
      }
    };
    resolve(pod.required_affinity, affinity_);
    resolve(pod.required_anti_affinity, anti_);
    for (auto& t : tables_) t.clear();
    std::vector<std::tuple<std::string_view, std::string_view, std::int64_t>> raw[3];
    matches_.clear();
    node_begin_.assign(1, 0);
    for (std::size_t i = 0; i < node_count; ++i) {
      const label_set& labels = node_at(i);
      const auto record = [&](int tab, const std::string& key) {
        if (const std::string* v = labels.find(key)) raw[tab].emplace_back(key, *v, 1);
      };
      pods_at(i, [&](const pod_facts& p) {
        pod_match m;
        m.complete = p.required_anti_affinity.size() <= 64 && anti_.size() <= 64;
        for (std::size_t j = 0; j < p.required_anti_affinity.size(); ++j) {
          const affinity_term& t = p.required_anti_affinity[j];
          if (!term_matches(t, p.ns, pod.ns, own, ns_labels_)) continue;
          record(existing_anti, t.topology_key);
          if (j < 64) m.existing |= std::uint64_t{1} << j;
        }
        m.affinity = matches_all(affinity_, p);
        if (m.affinity)
          for (const term& t : affinity_) record(affinity, t.key);
        for (std::size_t j = 0; j < anti_.size(); ++j) {
          if (!anti_[j].matches(p)) continue;
          record(anti, anti_[j].key);
          if (j < 64) m.anti |= std::uint64_t{1} << j;
        }
        matches_.push_back(m);
      });
      node_begin_.push_back(matches_.size());
    }
    for (int tab = 0; tab < 3; ++tab) {
      auto& r = raw[tab];
      std::sort(r.begin(), r.end());
      for (const auto& [k, v, n] : r) {
        if (!tables_[tab].empty() && tables_[tab].back().key == k && tables_[tab].back().value == v)
          tables_[tab].back().count += n;
        else
          tables_[tab].push_back(entry{std::string(k), std::string(v), n});
      }
    }
    skip_ = tables_[existing_anti].empty() && affinity_.empty() && anti_.empty();
  }

  // What the PreFilter found of the placed pod it visited `pos`-th on node `node` (pods_at's
  // order), or nullptr when it visited no such pod or the pod has more than 64 terms to record:
  // which of the pod's own required anti-affinity terms match the pod to place (bit j: term j),
  // whether it matches all of the pod's required affinity terms, which of the pod's required
  // anti-affinity terms match it. inter_pod_affinity_overlay::update takes it instead of matching
  // the selectors again.
  struct pod_match {
    std::uint64_t existing = 0;
    std::uint64_t anti = 0;
    bool affinity = false;
    bool complete = true;
  };
  const pod_match* match_of(std::size_t node, std::size_t pos) const noexcept {
    if (node + 1 >= node_begin_.size() || pos >= node_begin_[node + 1] - node_begin_[node])
      return nullptr;
    const pod_match& m = matches_[node_begin_[node] + pos];
    return m.complete ? &m : nullptr;
  }

  // Whether the plugin filters at all (upstream's PreFilter did not return Skip).
  bool active() const noexcept { return !skip_; }

  // The required anti-affinity a placed pod `p`, on a node with `node_labels`, takes part in
  // against the pod to place (what its presence there makes the filter count): visit(existing,
  // topology_key) for each of p's own terms that matches the pod to place (existing: true,
  // "existing pods anti-affinity") and each of the pod to place's terms that matches p (false,
  // "pod anti-affinity"), where the node has the term's topology key. Nothing when the plugin is
  // skipped. O(t · s).
  template <class Visit>
  void for_each_anti_affinity_match(const pod_facts& p, const label_set& node_labels,
                                    Visit&& visit) const {
    if (skip_) return;
    for (const affinity_term& t : p.required_anti_affinity)
      if (node_labels.find(t.topology_key) != nullptr &&
          term_matches(t, p.ns, ns_, own_labels_, ns_labels_))
        visit(true, std::string_view(t.topology_key));
    for (const term& t : anti_)
      if (node_labels.find(t.key) != nullptr && t.matches(p)) visit(false, std::string_view(t.key));
  }

  // The count of a pair in a table as the PreFilter computed it.
  std::int64_t count(table tab, std::string_view key, std::string_view value) const noexcept {
    const auto& t = tables_[tab];
    const auto it = std::lower_bound(
        t.begin(), t.end(), std::pair(key, value), [](const entry& e, const auto& kv) {
          return std::pair<std::string_view, std::string_view>(e.key, e.value) < kv;
        });
    return it != t.end() && it->key == key && it->value == value ? it->count : 0;
  }
  std::size_t pairs(table tab) const noexcept { return tables_[tab].size(); }

 private:
  friend class inter_pod_affinity_overlay;
  struct term {
    std::optional<label_selector> selector;
    std::vector<std::string> namespaces;  // sorted
    bool all_namespaces = false;
    std::string key;
    std::size_t first = 0;  // the first term of the same list with this topology key

    bool matches(const pod_facts& p) const {
      const bool in_scope =
          all_namespaces || std::binary_search(namespaces.begin(), namespaces.end(), p.ns);
      return in_scope && selector && kubernetes::matches(*selector, p.label_or_empty());
    }
  };
  struct entry {
    std::string key, value;
    std::int64_t count;
  };
  static bool matches_all(const std::vector<term>& terms, const pod_facts& p) {
    if (terms.empty()) return false;
    return std::all_of(terms.begin(), terms.end(), [&](const term& t) { return t.matches(p); });
  }

  std::string ns_;
  label_set own_labels_, ns_labels_;
  std::vector<term> affinity_, anti_;
  std::vector<entry> tables_[3];
  std::vector<pod_match> matches_;       // per pod visited, node after node
  std::vector<std::size_t> node_begin_;  // node i's pods: matches_[node_begin_[i], [i + 1])
  bool skip_ = true;
};

// The per-node what-if part of InterPodAffinity (upstream's updateWithPod and Filter).
// A pod on the node only changes the pairs of that node's labels, so
// reset looks those pairs up once (the node's value of each of the pod's topology keys, and each
// node label for the placed pods' terms) with their shared counts, and the overlay keeps one
// integer delta per pair on top of them instead of copying the tables: update and filter then
// compare no label values and search no table. The PreFilter also keeps, per pod it visited,
// which terms it found matching (match_of); update takes them for a node's own pods, so removing
// and adding back victims matches no selector again (only a pod from elsewhere, such as a
// nominated one, is matched anew). update_elsewhere(pod, ±1, labels) does the same for a pod of
// another node (a pod group's member evicted with its group): a pair the node shares changes its
// count, any other only the number of pairs.
class inter_pod_affinity_overlay {
 public:
  using table = inter_pod_affinity_prefilter::table;

  explicit inter_pod_affinity_overlay(const inter_pod_affinity_prefilter* pre = nullptr) noexcept
      : pre_(pre) {}

  // Starts over on a node with these labels (they must outlive the overlay's use for the node).
  // Resolves here, once per node, every pair the node's pods can change: the node's value of each
  // of the pod's own topology keys and the node's (key, value) labels for the placed pods' terms,
  // with their PreFilter counts; update() and filter() then work on integer slots.
  void reset(const label_set& node_labels) {
    node_ = &node_labels;
    elsewhere_.clear();
    if (pre_ == nullptr || !pre_->active()) return;
    const auto& pre = *pre_;
    const auto resolve = [&](table tab,
                             const std::vector<inter_pod_affinity_prefilter::term>& terms,
                             std::vector<slot>& out) {
      out.resize(terms.size());
      for (std::size_t i = 0; i < terms.size(); ++i) {
        const std::string* v = node_labels.find(terms[i].key);
        out[i] = slot{v, v != nullptr ? pre.count(tab, terms[i].key, *v) : 0, 0};
      }
    };
    resolve(table::affinity, pre.affinity_, affinity_);
    resolve(table::anti, pre.anti_, anti_);
    existing_.resize(node_labels.size());
    std::size_t j = 0;
    for (const auto& [k, v] : node_labels)
      existing_[j++] = slot{&v, pre.count(table::existing_anti, k, v), 0};
  }

  // upstream's updateWithPod for a pod added (+1) or removed (-1) on the current node. `known`:
  // the PreFilter's findings for this pod (prefilter's match_of), which spare matching its terms
  // and the pod's again; nullptr for a pod the PreFilter did not visit.
  void update(const pod_facts& p, std::int64_t delta,
              const inter_pod_affinity_prefilter::pod_match* known = nullptr) {
    if (pre_ == nullptr || !pre_->active()) return;
    const auto& pre = *pre_;
    if (known != nullptr) {
      for (std::uint64_t bits = known->existing; bits != 0; bits &= bits - 1)
        if (const std::size_t j = label_index(
                p.required_anti_affinity[static_cast<std::size_t>(std::countr_zero(bits))]
                    .topology_key);
            j != npos)
          existing_[j].delta += delta;
      if (known->affinity)
        for (std::size_t i = 0; i < pre.affinity_.size(); ++i)
          affinity_[pre.affinity_[i].first].delta += affinity_[i].value != nullptr ? delta : 0;
      for (std::uint64_t bits = known->anti; bits != 0; bits &= bits - 1) {
        const auto i = static_cast<std::size_t>(std::countr_zero(bits));
        if (anti_[i].value != nullptr) anti_[pre.anti_[i].first].delta += delta;
      }
      return;
    }
    for (const affinity_term& t : p.required_anti_affinity)
      if (term_matches(t, p.ns, pre.ns_, pre.own_labels_, pre.ns_labels_))
        if (const std::size_t j = label_index(t.topology_key); j != npos)
          existing_[j].delta += delta;
    if (inter_pod_affinity_prefilter::matches_all(pre.affinity_, p))
      for (std::size_t i = 0; i < pre.affinity_.size(); ++i)
        affinity_[pre.affinity_[i].first].delta += affinity_[i].value != nullptr ? delta : 0;
    for (std::size_t i = 0; i < pre.anti_.size(); ++i)
      if (anti_[i].value != nullptr && pre.anti_[i].matches(p))
        anti_[pre.anti_[i].first].delta += delta;
  }

  // upstream's updateWithPod for a pod of another node, with that node's labels (a pod group's
  // member evicted or added back with its group: upstream calls RemovePod/AddPod with that
  // node). A pair the current node shares changes its count here; any other pair only counts
  // toward pairs() (the emptiness upstream's first-pod rule and its filters test).
  void update_elsewhere(const pod_facts& p, std::int64_t delta, const label_set& node_labels,
                        const inter_pod_affinity_prefilter::pod_match* known = nullptr) {
    if (pre_ == nullptr || !pre_->active()) return;
    const auto& pre = *pre_;
    const auto change = [&](table tab, std::string_view key) {
      const std::string* there = node_labels.find(key);
      if (there == nullptr) return;  // upstream counts a pair only where the node has the key
      const std::string* here = node_->find(key);
      if (here != nullptr && *here == *there) {
        if (tab == table::existing_anti) {
          existing_[label_index(key)].delta += delta;
        } else {
          const auto& terms = tab == table::affinity ? pre.affinity_ : pre.anti_;
          auto& slots = tab == table::affinity ? affinity_ : anti_;
          for (std::size_t i = 0; i < terms.size(); ++i)
            if (terms[i].key == key) {
              slots[terms[i].first].delta += delta;
              break;
            }
        }
        return;
      }
      for (elsewhere& e : elsewhere_)
        if (e.tab == tab && e.key == key && e.value == *there) {
          e.delta += delta;
          return;
        }
      elsewhere_.push_back(elsewhere{tab, key, *there, pre.count(tab, key, *there), delta});
    };
    const auto existing_matches = [&](std::size_t j) {
      if (known != nullptr) return j < 64 && ((known->existing >> j) & 1) != 0;
      return term_matches(p.required_anti_affinity[j], p.ns, pre.ns_, pre.own_labels_,
                          pre.ns_labels_);
    };
    for (std::size_t j = 0; j < p.required_anti_affinity.size(); ++j)
      if (existing_matches(j))
        change(table::existing_anti, p.required_anti_affinity[j].topology_key);
    if (known != nullptr ? known->affinity
                         : inter_pod_affinity_prefilter::matches_all(pre.affinity_, p))
      for (const auto& t : pre.affinity_) change(table::affinity, t.key);
    for (std::size_t i = 0; i < pre.anti_.size(); ++i)
      if (known != nullptr ? i < 64 && ((known->anti >> i) & 1) != 0 : pre.anti_[i].matches(p))
        change(table::anti, pre.anti_[i].key);
  }

  // The count of a pair with the node's changes.
  std::int64_t count(table tab, std::string_view key, std::string_view value) const noexcept {
    const std::string* v = node_->find(key);
    if (v == nullptr || *v != value) return pre_->count(tab, key, value);
    if (tab == table::existing_anti) return at(existing_, label_index(key));
    const auto& terms = tab == table::affinity ? pre_->affinity_ : pre_->anti_;
    for (std::size_t i = 0; i < terms.size(); ++i)
      if (terms[i].key == key)
        return at(tab == table::affinity ? affinity_ : anti_, terms[i].first);
    return pre_->count(tab, key, value);
  }
  // How many pairs of a table have a non-zero count (upstream's len() of its map).
  std::size_t pairs(table tab) const noexcept {
    std::size_t n = pre_->pairs(tab);
    const auto adjust = [&n](const slot& s) {
      if (s.base != 0 && s.base + s.delta == 0) --n;
      if (s.base == 0 && s.delta != 0) ++n;
    };
    if (tab == table::existing_anti) {
      for (const slot& s : existing_) adjust(s);
    } else {
      const auto& terms = tab == table::affinity ? pre_->affinity_ : pre_->anti_;
      const auto& slots = tab == table::affinity ? affinity_ : anti_;
      for (std::size_t i = 0; i < terms.size(); ++i)
        if (terms[i].first == i && slots[i].value != nullptr) adjust(slots[i]);
    }
    for (const elsewhere& e : elsewhere_)
      if (e.tab == tab) adjust(slot{nullptr, e.base, e.delta});
    return n;
  }

  status filter() const {
    if (pre_ == nullptr || !pre_->active()) return status::ok();
    const auto& pre = *pre_;
    if (!pre.affinity_.empty()) {
      bool pods_exist = true;
      for (std::size_t i = 0; i < pre.affinity_.size(); ++i) {
        if (affinity_[i].value == nullptr) return status::unresolvable(pod_affinity_reason);
        if (at(affinity_, pre.affinity_[i].first) <= 0) pods_exist = false;
      }
      if (!pods_exist) {
        const pod_facts self{pre.ns_, &pre.own_labels_, false, {}};
        if (!(pairs(table::affinity) == 0 &&
              inter_pod_affinity_prefilter::matches_all(pre.affinity_, self)))
          return status::unresolvable(pod_affinity_reason);
      }
    }
    if (pairs(table::anti) > 0)
      for (std::size_t i = 0; i < pre.anti_.size(); ++i)
        if (anti_[i].value != nullptr && at(anti_, pre.anti_[i].first) > 0)
          return status::unschedulable(pod_anti_affinity_reason);
    if (pairs(table::existing_anti) > 0)
      for (const slot& s : existing_)
        if (s.base + s.delta > 0) return status::unschedulable(existing_anti_affinity_reason);
    return status::ok();
  }

 private:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  // One pair (key, the node's value) of a table: its PreFilter count and the node's change.
  struct slot {
    const std::string* value;  // the node's value of the key; nullptr: the node lacks the key
    std::int64_t base;
    std::int64_t delta;
  };
  static std::int64_t at(const std::vector<slot>& slots, std::size_t i) noexcept {
    return i == npos ? 0 : slots[i].base + slots[i].delta;
  }
  // The position of a key among the node's labels, or npos.
  std::size_t label_index(std::string_view key) const noexcept {
    const auto it = std::lower_bound(node_->begin(), node_->end(), key,
                                     [](const auto& e, std::string_view k) { return e.first < k; });
    return it != node_->end() && it->first == key ? static_cast<std::size_t>(it - node_->begin())
                                                  : npos;
  }

  // A pair of another node's labels changed by update_elsewhere (the labels outlive the overlay's
  // use for the current node).
  struct elsewhere {
    table tab;
    std::string_view key, value;
    std::int64_t base;
    std::int64_t delta;
  };

  const inter_pod_affinity_prefilter* pre_;
  const label_set* node_ = nullptr;
  std::vector<elsewhere> elsewhere_;
  // Per term of the pod's required affinity and anti-affinity (terms sharing a topology key share
  // the slot of the first of them, term::first), and per node label for the placed pods' terms.
  std::vector<slot> affinity_, anti_, existing_;
};

}  // namespace kubernetes
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_INTER_POD_AFFINITY_HPP
