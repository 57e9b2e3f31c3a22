// examples/whatif/bench/repeated_evaluation.cpp - see repeated_evaluation.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "bench/repeated_evaluation.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/model.hpp"

namespace whatif {

using plain_evaluator = preempt::evaluator<cluster_view, preempt::default_policy>;

struct repeated_evaluation::state {
  const analysis::model* m = nullptr;
  std::optional<pod> preemptor;
  std::optional<cluster_view> view;
  std::optional<dra_decision> devices;
  k8s::attachable_names resolved;
  k8s::volume_filters volumes;
  filter_pass filters;
  options opts;
  std::optional<std::size_t> nominated_node;
  std::optional<plain_evaluator> inline_ev, pool_ev;
  std::size_t pool_workers = 0;
  const plain_evaluator::decision_type* last = nullptr;

  template <class E>
  std::size_t run(plain_evaluator& ev, const E& ex) {
    last = &ev.evaluate(*preemptor, *view, filters.statuses, m->budgets, m->ledger.reader(), ex,
                        preempt::attempt{.offset = opts.offset, .nominated_node = nominated_node});
    return last->kind == preempt::decision_kind::nominated ? last->node_index : npos;
  }
};

repeated_evaluation::repeated_evaluation() = default;
repeated_evaluation::~repeated_evaluation() = default;

std::optional<load_error> repeated_evaluation::prepare(const analysis& a,
                                                       const pod_object& preemptor,
                                                       const options& opts) {
  state_ = std::make_unique<state>();
  state& st = *state_;
  st.m = a.model_.get();
  st.opts = opts;
  resolved_pod me;
  if (auto e = st.m->make_preemptor(preemptor, me, st.preemptor)) return e;
  if (!st.m->ours(preemptor))
    return load_error{"Pod " + preemptor.key() + " belongs to scheduler \"" +
                      preemptor.scheduler_name + "\", not " + st.m->scheduler_name +
                      ": nothing to evaluate"};
  st.view.emplace(st.m->cluster, pod_facts_of{&st.m->pod_facts}, node_facts_of{&st.m->node_facts});
  st.m->storage.prepare(preemptor, st.m->node_facts, st.resolved, st.volumes);
  st.m->prefilter(*st.view, preemptor, &st.volumes);
  std::vector<std::string> refusals;
  st.devices.emplace(*st.m->dump, st.m->devices);
  st.devices->prefilter(preemptor, refusals);
  run_filters(*st.m->dump, *st.view, st.m->ledger, preemptor, *st.preemptor, &st.volumes,
              *st.devices, refusals, st.filters);
  if (st.devices->active()) st.view->set_dynamic_resources(st.devices->verdicts());
  if (!st.filters.feasible.empty())
    return load_error{"Pod " + preemptor.key() + " fits node " +
                      st.m->dump->nodes[st.filters.feasible.front()].name + ": nothing to preempt"};
  if (!preemptor.nominated_node_name.empty()) {
    const auto it = st.m->node_index.find(preemptor.nominated_node_name);
    if (it != st.m->node_index.end()) st.nominated_node = it->second;
  }
  preempt::evaluator_config config;
  config.sampling = opts.sampling;
  config.report_only_chosen = true;  // only the decision is read: branch and bound
  st.inline_ev.emplace(config, preempt::default_policy{opts.now});
  return std::nullopt;
}

std::size_t repeated_evaluation::evaluate_inline() {
  return state_->run(*state_->inline_ev, preempt::inline_executor{});
}

std::size_t repeated_evaluation::evaluate_on(preempt::thread_pool& pool) {
  state& st = *state_;
  if (!st.pool_ev || st.pool_workers != pool.size() + 1) {
    preempt::evaluator_config config;
    config.sampling = st.opts.sampling;
    config.parallelism = pool.size() + 1;
    config.report_only_chosen = true;
    st.pool_ev.emplace(config, preempt::default_policy{st.opts.now});
    st.pool_workers = config.parallelism;
  }
  return st.run(*st.pool_ev, pool.get_executor());
}

std::string repeated_evaluation::nominated_node() const {
  const auto* d = state_->last;
  return d && d->kind == preempt::decision_kind::nominated ? std::string(d->node_name)
                                                           : std::string();
}

std::vector<std::string> repeated_evaluation::victims() const {
  std::vector<std::string> out;
  if (const auto* d = state_->last; d && d->kind == preempt::decision_kind::nominated)
    for (const pod* p : d->victims) out.push_back(state_->m->pod_name(p));
  return out;
}

std::size_t repeated_evaluation::nodes_evaluated() const {
  return state_->last ? state_->last->diagnosis.size() : 0;
}

}  // namespace whatif
