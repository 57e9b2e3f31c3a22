// tests/support/filter_state.hpp - a node state with real filters beyond resources.
//
// Shows that preempt::node_state serves upstream's incremental filter plugins, not only resource
// fit. `filter_state` checks, for the node it was made for:
//   * NodeResourcesFit: pod slots, cpu, memory;
//   * InterPodAffinity, required anti-affinity with topology "hostname", in both directions: the
//     incoming pod's term against the node's pods, and every node pod's term against the incoming
//     pod;
//   * PodTopologySpread, whenUnsatisfiable DoNotSchedule: for each constraint of the incoming pod,
//     (matching pods in the node's domain + 1 if the pod matches itself) - (fewest matching pods in
//     any domain) must not exceed maxSkew. The counts are cluster-wide (`spread_counts`, upstream's
//     PreFilter state TpPairToMatchNum); the state holds a pointer to them and updates them on
//     every add_pod/remove_pod, as upstream's AddPod/RemovePod extensions do.
// Upstream clones the cycle state per node evaluation; here `node_evaluation` makes a fresh copy of
// the counts and a state for one node.
//
// Test types: `test_pod` models preempt::pod (uid = name), `test_node` models preempt::node.
#ifndef PREEMPT_TESTS_SUPPORT_FILTER_STATE_HPP
#define PREEMPT_TESTS_SUPPORT_FILTER_STATE_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/fixtures.hpp"

namespace flt {

using label_map = std::map<std::string, std::string>;

// One selector requirement: label `key` exists (empty value) or equals `value`.
struct selector {
  std::string key{};
  std::string value{};

  bool matches(const label_map& labels) const {
    const auto it = labels.find(key);
    return it != labels.end() && (value.empty() || it->second == value);
  }
};

// A topology spread constraint with whenUnsatisfiable: DoNotSchedule.
struct spread_constraint {
  std::string topology_key{};  // a node label, e.g. "zone" or "hostname"
  std::int64_t max_skew = 1;
  selector match{};
};

struct test_pod {
  std::string name{};
  std::int32_t prio = 0;
  std::optional<preempt::timestamp> start = 0;
  label_map labels{};
  std::int64_t cpu = 0, mem = 0;
  std::optional<selector> anti_affinity{};  // required, topologyKey "hostname"
  std::vector<spread_constraint> spread{};

  const std::string& uid() const noexcept { return name; }
  std::int32_t priority() const noexcept { return prio; }
  std::optional<preempt::timestamp> start_time() const noexcept { return start; }
  bool terminating_by_preemption() const noexcept { return false; }
};

struct test_node {
  std::string node_name{};
  label_map labels{};  // topology labels: "hostname" always, "zone" when given
  std::int64_t cpu = 500, mem = 500, max_pods = 32;
  std::vector<test_pod> pod_list{};

  std::string_view name() const noexcept { return node_name; }
  const std::vector<test_pod>& pods() const noexcept { return pod_list; }
};

static_assert(preempt::pod<test_pod>);
static_assert(preempt::node<test_node>);

inline test_node make_node(std::string name, std::string zone = {}) {
  test_node n;
  n.labels["hostname"] = name;
  if (!zone.empty()) n.labels["zone"] = std::move(zone);
  n.node_name = std::move(name);
  return n;
}

// Nodes are filled before any evaluation: states and results point at the pods.
struct test_cluster {
  std::vector<test_node> nodes;
};

// Cluster-wide counts of the pods matching each spread constraint of one incoming pod, per
// topology domain. Every domain that some node has is present, with zero when no pod matches.
class spread_counts {
 public:
  spread_counts(const test_pod& incoming, const test_cluster& c)
      : owner_(incoming.name), constraints_(incoming.spread), counts_(constraints_.size()) {
    for (std::size_t k = 0; k < constraints_.size(); ++k)
      for (const test_node& n : c.nodes)
        if (const auto dom = n.labels.find(constraints_[k].topology_key); dom != n.labels.end())
          counts_[k][dom->second] += 0;
    for (const test_node& n : c.nodes)
      for (const test_pod& p : n.pod_list) update(n, p, 1);
  }

  // Pod p joins (+1) or leaves (-1) node n.
  void update(const test_node& n, const test_pod& p, std::int64_t delta) {
    for (std::size_t k = 0; k < constraints_.size(); ++k) {
      const auto dom = n.labels.find(constraints_[k].topology_key);
      if (dom != n.labels.end() && constraints_[k].match.matches(p.labels))
        counts_[k][dom->second] += delta;
    }
  }

  bool prepared_for(const test_pod& p) const { return p.name == owner_; }

  std::int64_t count(std::size_t k, const std::string& domain) const {
    const auto it = counts_[k].find(domain);
    return it == counts_[k].end() ? 0 : it->second;
  }
  std::int64_t min_count(std::size_t k) const {
    std::int64_t m = std::numeric_limits<std::int64_t>::max();
    for (const auto& [domain, n] : counts_[k]) m = std::min(m, n);
    return counts_[k].empty() ? 0 : m;
  }

 private:
  std::string owner_;
  std::vector<spread_constraint> constraints_;
  std::vector<std::map<std::string, std::int64_t>> counts_;  // per constraint: domain -> pods
};

class filter_state {
 public:
  filter_state(const test_node& n, spread_counts* counts) : node_(&n), counts_(counts) {
    for (const test_pod& p : n.pod_list) {
      on_node_.push_back(&p);
      cpu_ += p.cpu;
      mem_ += p.mem;
    }
  }

  preempt::status remove_pod(const test_pod& p) {
    const auto it = find(p);
    if (it == on_node_.end()) return preempt::status::error("remove_pod: pod is not on the node");
    on_node_.erase(it);
    cpu_ -= p.cpu;
    mem_ -= p.mem;
    if (counts_ != nullptr) counts_->update(*node_, p, -1);
    return preempt::status::ok();
  }

  preempt::status add_pod(const test_pod& p) {
    if (find(p) != on_node_.end()) return preempt::status::error("add_pod: pod is already there");
    on_node_.push_back(&p);
    cpu_ += p.cpu;
    mem_ += p.mem;
    if (counts_ != nullptr) counts_->update(*node_, p, 1);
    return preempt::status::ok();
  }

  preempt::status fits(const test_pod& p) const {
    // NodeResourcesFit
    preempt::status res;
    const auto shortage = [&](std::string_view reason) {
      if (res.is_success()) res = preempt::status(preempt::status_code::unschedulable);
      res.add_reason(reason);
    };
    if (static_cast<std::int64_t>(on_node_.size()) + 1 > node_->max_pods) shortage("Too many pods");
    if (p.cpu > 0 && p.cpu > node_->cpu - cpu_) shortage("Insufficient cpu");
    if (p.mem > 0 && p.mem > node_->mem - mem_) shortage("Insufficient memory");
    if (!res) return res;

    // InterPodAffinity: required anti-affinity on "hostname", both directions.
    for (const test_pod* q : on_node_) {
      if (p.anti_affinity && p.anti_affinity->matches(q->labels))
        return preempt::status::unschedulable("node(s) didn't match pod anti-affinity rules");
      if (q->anti_affinity && q->anti_affinity->matches(p.labels))
        return preempt::status::unschedulable(
            "node(s) didn't satisfy existing pods anti-affinity rules");
    }

    // PodTopologySpread (DoNotSchedule)
    if (p.spread.empty()) return preempt::status::ok();
    if (counts_ == nullptr || !counts_->prepared_for(p))
      return preempt::status::error("topology spread counts were prepared for another pod");
    for (std::size_t k = 0; k < p.spread.size(); ++k) {
      const spread_constraint& c = p.spread[k];
      const auto dom = node_->labels.find(c.topology_key);
      if (dom == node_->labels.end())
        return preempt::status::unresolvable(
            "node(s) didn't match pod topology spread constraints (missing required label)");
      const std::int64_t self = c.match.matches(p.labels) ? 1 : 0;
      if (counts_->count(k, dom->second) + self - counts_->min_count(k) > c.max_skew)
        return preempt::status::unschedulable(
            "node(s) didn't match pod topology spread constraints");
    }
    return preempt::status::ok();
  }

  std::size_t pod_count() const noexcept { return on_node_.size(); }
  bool has(std::string_view name) const {
    return std::any_of(on_node_.begin(), on_node_.end(),
                       [&](const test_pod* q) { return q->name == name; });
  }

 private:
  std::vector<const test_pod*>::iterator find(const test_pod& p) {
    return std::find_if(on_node_.begin(), on_node_.end(),
                        [&](const test_pod* q) { return q->uid() == p.uid(); });
  }
  std::vector<const test_pod*>::const_iterator find(const test_pod& p) const {
    return std::find_if(on_node_.begin(), on_node_.end(),
                        [&](const test_pod* q) { return q->uid() == p.uid(); });
  }

  const test_node* node_;
  spread_counts* counts_;
  std::vector<const test_pod*> on_node_;
  std::int64_t cpu_ = 0, mem_ = 0;
};

static_assert(preempt::node_state<filter_state, test_pod>);

// One node evaluation as upstream's dry run prepares it: a fresh copy of the cycle's spread counts
// for `incoming` and a state for node i that keeps them up to date.
struct node_evaluation {
  node_evaluation(const test_cluster& c, std::size_t i, const test_pod& incoming)
      : counts(incoming, c), state(c.nodes[i], &counts) {}
  node_evaluation(const node_evaluation&) = delete;
  node_evaluation& operator=(const node_evaluation&) = delete;

  spread_counts counts;
  filter_state state;
};

struct node_result {
  std::size_t node_index = 0;
  std::string node;
  preempt::status outcome;
  std::vector<std::string> victims;
  std::vector<const test_pod*> victim_pods;
  std::int64_t violations = 0;
  int fit_checks = 0;
};

// Runs select_victims on every node (fresh evaluation per node, shared scratch), counting fit
// checks. `nominated` holds pointers to pods nominated to each node, by node name.
inline std::vector<node_result> select_on_each_node(
    const test_cluster& c, const test_pod& preemptor,
    const std::map<std::string, std::vector<const test_pod*>>& nominated = {}) {
  std::vector<node_result> out;
  preempt::victim_scratch<test_pod> scratch;
  const std::vector<const test_pod*> none;
  for (std::size_t i = 0; i < c.nodes.size(); ++i) {
    node_evaluation ev(c, i, preemptor);
    fx::counting_state<filter_state, std::string> counted(ev.state);
    const auto nom = nominated.find(c.nodes[i].node_name);
    const auto r = preempt::select_victims(preemptor, c.nodes[i], counted, preempt::no_budgets{},
                                           nom == nominated.end() ? none : nom->second, scratch);
    node_result res{i, c.nodes[i].node_name, r.outcome, {}, {}, r.pdb_violations, counted.checks()};
    for (const test_pod* v : r.victims) {
      res.victims.push_back(v->name);
      res.victim_pods.push_back(v);
    }
    out.push_back(std::move(res));
  }
  return out;
}

}  // namespace flt

#endif  // PREEMPT_TESTS_SUPPORT_FILTER_STATE_HPP
