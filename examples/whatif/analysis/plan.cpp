// examples/whatif/analysis/plan.cpp - see plan.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "analysis/plan.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

namespace whatif {

namespace {

constexpr std::size_t nowhere = static_cast<std::size_t>(-1);

bool selects(const pdb_object& b, const pod_object& p) {
  return b.selector && !b.selector->empty() && k8s::validate(*b.selector) && b.ns == p.ns &&
         k8s::matches(*b.selector, p.labels);
}

// What the plan tracks beside the analysis: where each pod is, each pending pod's nomination,
// and the budgets whose pods an applied step removed or added.
class plan_state {
 public:
  plan_state(const cluster_dump& dump, analysis& a) : dump_(dump), a_(a) {
    for (std::size_t n = 0; n < dump.nodes.size(); ++n) node_index_.emplace(dump.nodes[n].name, n);
    on_node_.resize(dump.nodes.size());
    node_of_.assign(dump.pods.size(), nowhere);
    nomination_.resize(dump.pods.size());
    for (std::size_t i = 0; i < dump.pods.size(); ++i) {
      const pod_object& p = dump.pods[i];
      pod_index_.emplace(p.key(), i);
      if (k8s::is_terminal_phase(p.phase)) continue;
      if (p.node_name.empty()) {
        nomination_[i] = p.nominated_node_name;
        continue;
      }
      if (const std::size_t n = node(p.node_name); n != nowhere) {
        node_of_[i] = n;
        on_node_[n].push_back(i);
      }
    }
    touched_by_.resize(dump.pdbs.size());
  }

  std::size_t node(std::string_view name) const {
    const auto it = node_index_.find(name);
    return it == node_index_.end() ? nowhere : it->second;
  }
  std::size_t pod(const std::string& key) const {
    const auto it = pod_index_.find(key);
    return it == pod_index_.end() ? nowhere : it->second;
  }
  const std::string& nomination(std::size_t i) const { return nomination_[i]; }
  bool bound(std::size_t i) const { return node_of_[i] != nowhere; }

  void evict(std::size_t i, const std::string& step) {
    if (node_of_[i] == nowhere) return;
    a_.remove_bound_pod(i);
    auto& pods = on_node_[node_of_[i]];
    pods.erase(std::remove(pods.begin(), pods.end(), i), pods.end());
    node_of_[i] = nowhere;
    touch_budgets_of(i, step);
  }
  void bind(std::size_t i, std::size_t n, const std::string& step) {
    a_.bind_pending_pod(i, n);
    node_of_[i] = n;
    on_node_[n].push_back(i);
    nomination_[i].clear();
    touch_budgets_of(i, step);
  }
  void nominate(std::size_t i, const std::string& node_name) {
    const std::size_t n = node(node_name);
    a_.set_nomination(i, n == nowhere ? std::nullopt : std::optional<std::size_t>(n));
    nomination_[i] = node_name;
  }

  // The budgets an earlier step changed the pods of, that this decision's dry run looked at (a
  // pod of theirs on a node it evaluated), each with the step that changed it.
  std::vector<std::pair<std::size_t, std::string>> touched_budgets_read(const report& r) {
    std::vector<std::pair<std::size_t, std::string>> read;
    if (!any_touched_) return read;
    std::vector<char> seen(touched_by_.size(), 0);
    for (const node_report& nr : r.nodes) {
      if (!nr.evaluated) continue;
      const std::size_t n = node(nr.name);
      if (n == nowhere) continue;
      for (std::size_t i : on_node_[n])
        for (const std::uint32_t b : budgets_of(i))
          if (!touched_by_[b].empty() && !seen[b]) {
            seen[b] = 1;
            read.emplace_back(b, touched_by_[b]);
          }
    }
    std::sort(read.begin(), read.end());
    return read;
  }

 private:
  // The budgets whose selector matches pod i, found once (budgets indexed by namespace).
  const std::vector<std::uint32_t>& budgets_of(std::size_t i) {
    if (budgets_of_.empty()) {
      budgets_of_.resize(dump_.pods.size());
      known_.assign(dump_.pods.size(), 0);
      for (std::size_t b = 0; b < dump_.pdbs.size(); ++b)
        budgets_in_[dump_.pdbs[b].ns].push_back(static_cast<std::uint32_t>(b));
    }
    if (!known_[i]) {
      known_[i] = 1;
      const auto it = budgets_in_.find(dump_.pods[i].ns);
      if (it != budgets_in_.end())
        for (const std::uint32_t b : it->second)
          if (selects(dump_.pdbs[b], dump_.pods[i])) budgets_of_[i].push_back(b);
    }
    return budgets_of_[i];
  }

  void touch_budgets_of(std::size_t i, const std::string& step) {
    for (const std::uint32_t b : budgets_of(i))
      if (touched_by_[b].empty()) {
        touched_by_[b] = step;
        any_touched_ = true;
      }
  }

  const cluster_dump& dump_;
  analysis& a_;
  std::unordered_map<std::string_view, std::size_t> node_index_;
  std::unordered_map<std::string, std::size_t> pod_index_;
  std::vector<std::vector<std::size_t>> on_node_;
  std::vector<std::size_t> node_of_;
  std::vector<std::string> nomination_;
  std::vector<std::string> touched_by_;  // per budget: the first step that changed its pods
  bool any_touched_ = false;
  std::unordered_map<std::string_view, std::vector<std::uint32_t>> budgets_in_;  // by namespace
  std::vector<std::vector<std::uint32_t>> budgets_of_;                           // per pod
  std::vector<char> known_;  // per pod: budgets_of_ is filled
};

}  // namespace

const std::vector<std::string>& plan_assumptions() {
  static const std::vector<std::string> a = {
      "queue order: priority, then metadata.creationTimestamp (kube-scheduler orders pods of equal "
      "priority by the time each last entered its queue, which a dump does not hold: a pod it "
      "tried before re-entered at its last attempt)",
      "each pending pod is tried once, in that order, with nothing else happening in between: "
      "victims are gone before the next decision, a preemptor holds its nomination (it binds once "
      "its victims are gone, after the plan), PodDisruptionBudgets keep the dump's status",
      "a pod that fits only its nominated node or only one node is bound there; one that fits "
      "several is placed by kube-scheduler's scoring, which the tool does not model: the plan "
      "stops there when later pods remain (exit status 3)"};
  return a;
}

std::optional<load_error> make_plan(analysis& a, const cluster_dump& dump, const options& opts,
                                    plan_result& out) {
  out = plan_result{};
  out.warnings = a.warnings();
  plan_state state(dump, a);
  const std::vector<std::size_t> order = a.pending_in_queue_order();
  std::string uncertain;  // the first applied step whose decision depends on what is not modelled
  std::vector<std::size_t> placed;  // pods whose placement the plan cannot tell
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::size_t i = order[k];
    const pod_object& object = dump.pods[i];
    if (!out.stopped.empty()) {
      out.undecided.push_back(object.key());
      continue;
    }
    const std::string step = "step " + std::to_string(k + 1) + " (Pod " + object.key() + ")";
    const bool later = k + 1 < order.size();
    plan_step st;
    st.pod = i;
    st.applied = plan_change::none;
    pod_object p = object;
    p.nominated_node_name = state.nomination(i);
    if (auto e = a.decide(p, opts, st.decision)) return e;
    report& r = st.decision;
    if (!uncertain.empty())
      r.refuse("the plan's state after " + uncertain +
               " depends on inputs the tool does not model (see that step), and so does this "
               "decision");
    for (const auto& [b, by] : state.touched_budgets_read(r))
      r.refuse("PodDisruptionBudget " + dump.pdbs[b].ns + "/" + dump.pdbs[b].name +
               ": status.disruptionsAllowed after " + by +
               " changed its pods is the disruption controller's recount, which the dump does not "
               "hold (the plan keeps the dump's status)");

    if (object.pod_group && later) {
      placed.push_back(i);  // where its group's cycle puts it is not known: in no final list
      out.stopped = step + ": the pod belongs to PodGroup " + object.ns + "/" + *object.pod_group +
                    ": kube-scheduler schedules it in its group's cycle, which the plan does not "
                    "model; the later pods depend on it";
    } else if (r.result == result_kind::fits) {
      std::size_t target = nowhere;
      for (const node_report& n : r.nodes)
        if (!p.nominated_node_name.empty() && n.name == p.nominated_node_name)
          target = state.node(n.name);
      if (target == nowhere && r.nodes.size() == 1) target = state.node(r.nodes.front().name);
      if (target != nowhere) {
        state.bind(i, target, step);
        st.applied = plan_change::bound;
        st.node = dump.nodes[target].name;
        out.bound.emplace_back(object.key(), st.node);
      } else {
        placed.push_back(i);
        out.placed_by_scoring.push_back(object.key());
        if (later)
          out.stopped = step + ": the pod fits " + std::to_string(r.nodes.size()) +
                        " nodes: kube-scheduler places it by scoring, which the tool does not "
                        "model, and the later pods depend on where";
      }
    } else if (r.result == result_kind::nominated) {
      for (const victim_info& v : r.victims)
        if (const std::size_t vi = state.pod(v.name); vi != nowhere) {
          state.evict(vi, step);
          out.evicted.push_back(v.name);
        }
      for (const std::string& c : r.cleared_nominations)
        if (const std::size_t ci = state.pod(c); ci != nowhere) {
          state.nominate(ci, "");
          out.cleared.push_back(c);
        }
      state.nominate(i, r.nominated_node);
      st.applied = plan_change::nominated;
      st.node = r.nominated_node;
    } else if (r.result == result_kind::unschedulable && !state.nomination(i).empty()) {
      state.nominate(i, "");
      st.applied = plan_change::nomination_cleared;
      out.cleared.push_back(object.key());
    }
    for (const std::string& what : r.not_modelled) out.not_modelled.push_back(step + ": " + what);
    if (!out.stopped.empty()) {
      r.refuse(out.stopped);
      out.not_modelled.push_back(out.stopped);
    }
    if (uncertain.empty() && st.applied != plan_change::none && !r.not_modelled.empty())
      uncertain = step;
    out.steps.push_back(std::move(st));
  }
  const std::size_t decided = out.steps.size();
  for (std::size_t k = 0; k < decided; ++k) {
    const std::size_t i = order[k];
    if (state.bound(i) || std::find(placed.begin(), placed.end(), i) != placed.end()) continue;
    if (!state.nomination(i).empty())
      out.nominated.emplace_back(dump.pods[i].key(), state.nomination(i));
    else
      out.pending.push_back(dump.pods[i].key());
  }
  for (std::size_t k = decided; k < order.size(); ++k)
    if (!state.nomination(order[k]).empty())
      out.nominated.emplace_back(dump.pods[order[k]].key(), state.nomination(order[k]));
  return std::nullopt;
}

}  // namespace whatif
