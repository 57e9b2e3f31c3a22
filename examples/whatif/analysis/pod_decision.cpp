// examples/whatif/analysis/pod_decision.cpp - the decision for one pod (analysis::decide): the
// reasons kube-scheduler takes none, its filters on every node, and, when no node fits, the
// preemption dry run and its explanation; see analysis.hpp and model.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/model.hpp"
#include "analysis/queue_entry.hpp"
#include "analysis/unmodelled.hpp"
#include "output/one_line.hpp"
#include "output/text_format.hpp"
#include "preempt/policy_1_38.hpp"
#include "preempt/preemption_policies.hpp"
#include "preempt/victim_reasons.hpp"
#include "stopwatch.hpp"

namespace whatif {

namespace {

// The policies' hooks (preempt::preemption_policies): the cost (1 without --victim-cost) and
// whether a pod could run elsewhere (asked of the model, remembered per pod for the decision).
struct cost_of {
  const victim_costs* costs = nullptr;
  std::int64_t operator()(const pod& p) const { return costs != nullptr ? costs->of(p) : 1; }
};
struct reschedulable_of {
  const std::function<bool(const pod&)>* ask = nullptr;
  bool operator()(const pod& p) const { return ask == nullptr || (*ask)(p); }
};
using policy_type = preempt::preemption_policies<cost_of, reschedulable_of>;

using policy_1_38_type = preempt::kubernetes_1_38_policy<metadata_uid_less>;

// What a missing start time counts as when candidates are compared: the decision's time (v1.37's
// time.Now()), or v1.38's latest instant.
preempt::timestamp unstarted_time(const options& opts) {
  return opts.profile == preempt::upstream_profile::kubernetes_1_38 ? preempt::unstarted_time_1_38
                                                                    : opts.now;
}

std::string join_reasons(std::span<const std::string_view> reasons) {
  std::string r;
  for (std::string_view s : reasons) {
    if (!r.empty()) r += ", ";
    r += s;
  }
  return r;
}

// The candidates tied with the winner on every criterion before the deciding one, with their
// value for the deciding criterion.
// `k` is upstream's criterion that decided (d.choice.deciding_score without policies);
// `same_before(c)` whether c ties with the chosen candidate on the policy's criteria before
// upstream's (none without policies).
template <class Decision, class SameBefore>
void explain_tie_break(const Decision& d, preempt::timestamp now,
                       std::vector<std::pair<std::string, std::string>>& out, std::size_t k,
                       const SameBefore& same_before) {
  const preempt::default_scores scores{now};
  const auto& best = d.candidates[d.choice.index];
  const auto value = [&](const auto& c) -> std::string {
    if (k >= preempt::default_scores::count) return "tied on every criterion";
    const std::int64_t v = scores(k, c);
    switch (k) {
      case 0: return std::to_string(-v) + " PDB violation(s)";
      case 1: return "highest victim priority " + std::to_string(-v);
      case 2: return "sum of (priority + 2^31) over the victims " + std::to_string(-v);
      case 3: return std::to_string(-v) + " victim(s)";
      default:
        // v1.38 reads a missing start time as the latest instant (`now` is that instant then).
        return v == now && now == preempt::unstarted_time_1_38
                   ? std::string("none of them started (v1.38: the latest instant)")
                   : "earliest start among them " + format_time(v);
    }
  };
  const auto tied_before_k = [&](const auto& c) {
    if (!same_before(c)) return false;
    for (std::size_t j = 0; j < k && j < preempt::default_scores::count; ++j)
      if (scores(j, c) != scores(j, best)) return false;
    return true;
  };
  out.emplace_back(std::string(best.node_name), value(best));
  for (const auto& c : d.candidates)
    if (&c != &best && tied_before_k(c)) out.emplace_back(std::string(c.node_name), value(c));
}

using policy_evaluator_type = preempt::evaluator<cluster_view, policy_type, victim_recorder>;
using evaluator_1_38_type = preempt::evaluator<cluster_view, policy_1_38_type, victim_recorder>;

// The preemptor as the model sees it. It keeps the uid of its pending copy in the dump, if any,
// so that it never counts as nominated against itself.
struct preemptor_pod {
  resolved_pod resolved;
  pod model_pod;
};

}  // namespace

// DynamicResources is the profile's last filter: `devices` gives its verdict on the nodes every
// other filter passes, and computes it for the nodes the dry run may evaluate (Unschedulable).
void run_filters(const cluster_dump& dump, const cluster_view& cluster,
                 const preempt::nomination_ledger<pod, preempt::null_mutex>& ledger,
                 const pod_object& preemptor_object, const pod& preemptor,
                 const k8s::volume_filters* volumes, dra_decision& devices,
                 std::vector<std::string>& refusals, filter_pass& out) {
  const std::size_t n_nodes = dump.nodes.size();
  out.statuses = preempt::filter_statuses(n_nodes);
  out.verdicts.assign(n_nodes, node_report{});
  out.reached.assign(n_nodes, 0);
  cluster_view::state_type state = cluster.make_state();
  // NodeAffinity's PreFilter: a required affinity naming nodes rules out every other node
  // before any filter runs. (Conflicting terms, an empty list, fall through to the filters.)
  const auto named = k8s::prefilter_node_names(preemptor_object.placement.required_node_affinity);
  const bool prefiltered = named && !named->empty();
  // The volume plugins' PreFilters come next: a rejection is every node's status.
  if (volumes != nullptr && !(named && named->empty()) &&
      !volumes->prefilter_outcome().is_success()) {
    const preempt::status& st = volumes->prefilter_outcome();
    for (std::size_t i = 0; i < n_nodes; ++i) {
      out.verdicts[i].name = dump.nodes[i].name;
      out.verdicts[i].status = st.code();
      out.verdicts[i].reason = join_reasons(st.reasons());
      out.statuses.set(i, st.code());
    }
    return;
  }
  // DynamicResources' PreFilter, the last: a rejection is every node's status too.
  if (devices.rejection() && !(named && named->empty())) {
    for (std::size_t i = 0; i < n_nodes; ++i) {
      out.statuses.set(i, preempt::status_code::unschedulable_and_unresolvable);
      out.verdicts[i].name = dump.nodes[i].name;
      out.verdicts[i].status = preempt::status_code::unschedulable_and_unresolvable;
      out.verdicts[i].reason = *devices.rejection();
    }
    return;
  }
  for (std::size_t i = 0; i < n_nodes; ++i) {
    const node_object& n = dump.nodes[i];
    node_report& v = out.verdicts[i];
    v.name = n.name;
    if (prefiltered && !std::binary_search(named->begin(), named->end(), n.name)) {
      out.statuses.set(i, preempt::status_code::unschedulable_and_unresolvable);
      v.status = preempt::status_code::unschedulable_and_unresolvable;
      v.reason = std::string(k8s::prefilter_node_affinity_reason);
      continue;
    }
    const k8s::filter_verdict f = k8s::filter_node(
        preemptor_object.placement, k8s::node_facts{n.name, &n.labels, n.taints, n.unschedulable});
    if (!f.passed()) {
      out.statuses.set(i, f.code);
      v.status = f.code;
      v.reason = f.reason;
      continue;
    }
    out.reached[i] = 1;
    cluster.prepare_state(i, state);
    const preempt::status fit =
        preempt::fits_with_nominated(state, preemptor, ledger.nominated_to_unlocked(i));
    if (fit.is_success()) {
      if (const preempt::status& d = devices.verdict(i, refusals); !d.is_success()) {
        out.statuses.set(i, d.code());
        v.status = d.code();
        v.reason = join_reasons(d.reasons());
        continue;
      }
      out.statuses.set(i, preempt::status_code::success);
      v.status = preempt::status_code::success;
      out.feasible.push_back(i);
      continue;
    }
    if (fit.code() == preempt::status_code::unschedulable) (void)devices.verdict(i, refusals);
    // NodeResourcesFit's shortage beyond the node's whole allocatable amount is
    // UnschedulableAndUnresolvable in the node state itself (model::resource_fit_state), so that
    // a node another filter rejected first (NodePorts) gets the same status in the dry run.
    const auto code = fit.code();
    out.statuses.set(i, code);
    v.status = code;
    v.reason = join_reasons(fit.reasons());
  }
}

std::optional<load_error> analysis::decide(const pod_object& preemptor_object, const options& opts,
                                           report& out) const {
  const model& m = *model_;
  const cluster_dump& dump = *m.dump;
  out = report{};
  out.preemptor = preemptor_object.key();
  out.total_nodes = dump.nodes.size();
  out.build_seconds = m.build_seconds;
  out.build_cpu_seconds = m.build_cpu_seconds;
  out.warnings = m.warnings;
  out.dump_warnings = m.warnings.size();
  const stopwatch clock;

  resolved_pod me;
  std::optional<pod> made;
  if (auto e = m.make_preemptor(preemptor_object, me, made)) return e;
  const pod& preemptor = *made;
  out.priority = me.priority;
  out.priority_class = me.class_name;
  out.may_preempt = me.policy != preempt::preemption_policy::never;
  out.requests = preemptor_object.requests;
  for (const std::string& w : preemptor_object.not_modelled) out.refuse(w);
  for (const std::string& w : dump.input_refusals) out.refuse(w);
  for (const std::string& w : m.dump_refusals) out.refuse(w);
  const auto copy = m.pod_by_key.find(out.preemptor);
  std::optional<no_decision> none = never_queued(
      preemptor_object, copy != m.pod_by_key.end() ? &dump.pods[copy->second] : nullptr);
  if (!none && !m.ours(preemptor_object))
    // Another scheduler's pod: this scheduler never sees it, so there is nothing to decide.
    none = no_decision{result_kind::other_scheduler,
                       "the pod's spec.schedulerName is \"" + preemptor_object.scheduler_name +
                           "\", not " + m.scheduler_name +
                           " (--scheduler-name): that scheduler decides for it"};
  if (!none) none = held_in_queue(preemptor_object);
  // Skipped when it leaves the queue; DynamicResources' PreEnqueue, below, may hold it first.
  if (!none && preemptor_object.resource_claims.empty())
    none = skipped_when_popped(preemptor_object);
  if (none) {
    out.result = none->result;  // running, bound, other-scheduler, gated or deleting
    out.message = std::move(none->message);
    out.decide_seconds = clock.wall_seconds();
    out.decide_cpu_seconds = clock.cpu_seconds();
    return std::nullopt;
  }

  refuse_unmodelled(dump, preemptor_object, out);
  if (opts.profile != preempt::default_upstream_profile)
    out.warnings.push_back("decided as kube-scheduler v" +
                           std::string(preempt::to_string(opts.profile)) +
                           " (--kubernetes-version): its preemption as v1.38.0-beta.0's code has "
                           "it, as the README lists the changes");
  std::vector<std::string> refusals;
  dra_decision devices(dump, m.devices);
  devices.prefilter(preemptor_object, refusals);
  if (devices.held_in_queue()) {
    // DynamicResources' PreEnqueue makes PreFilter's check first: the pod never leaves the queue.
    out.result = result_kind::gated;
    out.message = *devices.rejection() +
                  " (spec.resourceClaims: DynamicResources' PreEnqueue keeps the pod in kube-"
                  "scheduler's queue until its claims exist and are its own; it neither "
                  "schedules nor preempts for it)";
    for (std::string& r : refusals) out.refuse(std::move(r));
    out.decide_seconds = clock.wall_seconds();
    out.decide_cpu_seconds = clock.cpu_seconds();
    return std::nullopt;
  }
  if (std::optional<no_decision> skipped = skipped_when_popped(preemptor_object)) {
    out.result = skipped->result;  // deleting: left the queue, skipped before any decision
    out.message = std::move(skipped->message);
    out.decide_seconds = clock.wall_seconds();
    out.decide_cpu_seconds = clock.cpu_seconds();
    return std::nullopt;
  }
  if (dump.nodes.empty()) {
    // schedulePod answers ErrNoNodesAvailable before any filter: PostFilter (preemption) never
    // runs, and the pod's nomination is cleared.
    out.result = result_kind::unschedulable;
    out.message = "no nodes available to schedule pods";
    out.decide_seconds = clock.wall_seconds();
    out.decide_cpu_seconds = clock.cpu_seconds();
    return std::nullopt;
  }

  k8s::attachable_names resolved;
  k8s::volume_filters volumes;
  m.storage.prepare(preemptor_object, m.node_facts, resolved, volumes);
  cluster_view view(m.cluster, pod_facts_of{&m.pod_facts}, node_facts_of{&m.node_facts});
  m.prefilter(view, preemptor_object, &volumes);
  if (preemptor_object.pod_group)
    out.warnings.push_back(
        "the pod belongs to PodGroup " + preemptor_object.ns + "/" + *preemptor_object.pod_group +
        ": with GenericWorkload, kube-scheduler schedules it in its group's cycle "
        "(--pod-group decides for the group); decided here as a single pod");

  filter_pass filters;
  run_filters(dump, view, m.ledger, preemptor_object, preemptor, &volumes, devices, refusals,
              filters);
  if (devices.active()) view.set_dynamic_resources(devices.verdicts());
  for (std::string& r : refusals) out.refuse(std::move(r));
  m.storage.refuse_absent_kinds(preemptor_object,
                                [&](std::string what) { out.refuse(std::move(what)); });
  m.storage.refuse_unmodelled(
      preemptor_object, resolved, volumes, filters.reached,
      [&](std::size_t node, const std::function<void(std::size_t)>& visit) {
        for (const pod* q : m.ledger.nominated_to_unlocked(node))
          if (q->uid() != preemptor.uid()) visit(static_cast<std::size_t>(q->uid() - 1));
      },
      [&](std::string what) { out.refuse(std::move(what)); });
  if (!filters.feasible.empty()) {
    out.result = result_kind::fits;
    for (std::size_t i : filters.feasible) out.nodes.push_back(std::move(filters.verdicts[i]));
  } else {
    if (auto e = m.preempt(view, preemptor_object, preemptor, opts, filters, out)) return e;
  }
  out.decide_seconds = clock.wall_seconds();
  out.decide_cpu_seconds = clock.cpu_seconds();
  return std::nullopt;
}

// The preemptor as the model sees it: its priority and policy resolved, its requests in the
// model's resource names. It keeps the uid of its pending copy in the dump, if any, so that it
// never counts as nominated against itself.
std::optional<load_error> analysis::model::make_preemptor(const pod_object& p, resolved_pod& me,
                                                          std::optional<pod>& out) const {
  const std::string key = p.key();
  const std::string where =
      p.source.empty() ? object_where(*dump, p.file, "Pod", key) : p.source + ": Pod " + key;
  if (auto e = resolve(*dump, p, where, me)) return e;
  const auto in_dump = pod_by_key.find(key);
  const bool pending_in_dump = in_dump != pod_by_key.end() &&
                               bound_node[in_dump->second] == not_bound &&
                               dump->pods[in_dump->second].node_name.empty() &&
                               !k8s::is_terminal_phase(dump->pods[in_dump->second].phase);
  const auto ns = find_namespace(p.ns);
  out.emplace(preempt::model::pod_spec{
      .uid = pending_in_dump ? in_dump->second + 1 : dump->pods.size() + 1,
      .priority = me.priority,
      .requests = k8s::to_resource_vector(p.requests, names),
      .start_time = p.start_time,
      .namespace_id = ns ? *ns : static_cast<std::uint32_t>(namespaces.size()),
      .preemption_policy = me.policy});
  return std::nullopt;
}

void analysis::model::prefilter(cluster_view& view, const pod_object& p,
                                const k8s::volume_filters* volumes) const {
  view.prefilter(
      k8s::placing_pod{k8s::pod_facts{p.ns, &p.labels, p.deleting, p.anti_affinity_terms},
                       p.host_ports, p.affinity_terms, p.anti_affinity_terms, p.spread,
                       &p.placement, p.required_features, volumes},
      namespace_facts);
}

// Runs the preemption evaluation and explains it: every evaluated node with its outcome and
// victims, then the decision (victims with their budgets, cleared nominations, the tie-break).
// With opt-in policies (opts.policies) the evaluator takes them (preempt::preemption_policies);
// an invalid --victim-cost value met on the way is bad input.
std::optional<load_error> analysis::model::preempt(const cluster_view& view,
                                                   const pod_object& preemptor_object,
                                                   const pod& preemptor, const options& opts,
                                                   filter_pass& filters, report& out) const {
  recorded_nodes recorded(dump->nodes.size());
  preempt::evaluator_config config;
  config.sampling = opts.sampling;
  std::optional<std::size_t> nominated_node;
  if (!preemptor_object.nominated_node_name.empty()) {
    const auto it = node_index.find(preemptor_object.nominated_node_name);
    if (it != node_index.end()) nominated_node = it->second;
  }
  const auto reader = ledger.reader();
  const preempt::attempt at{.offset = opts.offset, .nominated_node = nominated_node};
  std::optional<victim_costs> costs;
  if (!opts.cost_key.empty())
    costs.emplace(victim_costs{dump, opts.cost_from_annotation, opts.cost_key, {}, {}});
  const victim_costs* cost_table = costs ? &*costs : nullptr;
  // The decision with evaluator `ev` (of whichever policy), described and explained.
  const auto decide_with = [&](auto& ev) {
    const auto& d = grouped ? ev.evaluate(preemptor, view, groups, filters.statuses, budgets,
                                          reader, preempt::inline_executor{}, at)
                            : ev.evaluate(preemptor, view, filters.statuses, budgets, reader,
                                          preempt::inline_executor{}, at);
    describe(d, recorded, filters, out);
    if (d.kind == preempt::decision_kind::nominated)
      explain_nomination(view, d, preemptor, preemptor_object, opts, cost_table, out);
  };

  if (opts.profile == preempt::upstream_profile::kubernetes_1_38 && !opts.policies.any()) {
    const pod_object* unknown_uid = nullptr;
    policy_1_38_type policy;
    policy.now = opts.now;
    policy.identity_less = metadata_uid_less{&dump->pods, &unknown_uid};
    evaluator_1_38_type ev(config, policy, recorded.recorder(opts.now));
    decide_with(ev);
    if (unknown_uid != nullptr)
      out.refuse("Pod " + unknown_uid->key() +
                 ": metadata.uid: missing, and v1.38 orders equally important victims by UID (the "
                 "API server assigns a random one at creation)");
  } else if (!opts.policies.any()) {
    evaluator_type ev(config, preempt::default_policy{opts.now}, recorded.recorder(opts.now));
    decide_with(ev);
  } else {
    std::vector<std::int8_t> elsewhere(dump->pods.size(), -1);  // by uid - 1; -1: not asked
    const std::function<bool(const pod&)> ask = [&](const pod& p) {
      const std::size_t i = static_cast<std::size_t>(p.uid()) - 1;
      if (i >= elsewhere.size()) return true;
      if (elsewhere[i] < 0) elsewhere[i] = can_run_elsewhere(p) ? 1 : 0;
      return elsewhere[i] == 1;
    };
    policy_type policy;
    policy.now = opts.now;
    policy.options = opts.policies;
    policy.cost = cost_of{cost_table};
    policy.reschedulable = reschedulable_of{&ask};
    if (grouped && opts.policies.selects_differently())
      out.warnings.push_back(
          "--policy: the dump has pod groups, whose victims are whole units: minimum cost, hard "
          "budgets and spare-reschedulable apply to pods only and were not applied (a minimum "
          "runtime was)");
    policy_evaluator_type ev(config, policy, recorded.recorder(opts.now));
    decide_with(ev);
  }
  if (costs && costs->error) return costs->error;
  return std::nullopt;
}

// The dry run as the report shows it: the outcome, every evaluated node with its victims.
void analysis::model::describe(const evaluator_type::decision_type& d,
                               const recorded_nodes& recorded, filter_pass& filters,
                               report& out) const {
  const std::size_t n_nodes = dump->nodes.size();
  out.message = std::string(d.message);
  out.potential_nodes = d.potential_nodes;
  out.candidates_wanted = d.candidates_wanted;
  out.offset = d.offset;
  out.candidates = d.candidates.size();
  switch (d.kind) {
    case preempt::decision_kind::nominated: out.result = result_kind::nominated; break;
    case preempt::decision_kind::not_eligible: out.result = result_kind::not_eligible; break;
    default: out.result = result_kind::unschedulable; break;
  }

  std::vector<bool> kept(n_nodes, false);
  for (const auto& c : d.candidates) kept[c.node_index] = true;
  for (const auto diag : d.diagnosis) {
    node_report& v = filters.verdicts[diag.node_index];
    v.evaluated = true;
    v.status = diag.outcome.code();
    v.reason = join_reasons(diag.outcome.reasons());
    if (diag.outcome.is_success()) {
      for (const pod* p : recorded.victims[diag.node_index]) v.victims.push_back(pod_name(p));
      v.pdb_violations = recorded.violations[diag.node_index];
      v.scores = recorded.scores[diag.node_index];
      if (!kept[diag.node_index])
        v.reason = "not kept: enough candidates with budget violations were found before";
    }
    out.evaluation_order.push_back(diag.node_index);
  }
  out.nodes = std::move(filters.verdicts);
}

// The chosen node: its victims with the budgets they count in, the lower-priority nominations
// it clears (reported, not applied: every decision sees the same cluster), and the tie-break.
void analysis::model::explain_nomination(const cluster_view& view,
                                         const evaluator_type::decision_type& d,
                                         const pod& preemptor, const pod_object& preemptor_object,
                                         const options& opts, const victim_costs* costs,
                                         report& out) const {
  out.nominated_node = std::string(d.node_name);
  out.pdb_violations = d.pdb_violations;
  out.budgets_exceeded = preempt::count_budget_violations(d.victims, budgets);
  for (const pod* p : d.victims) {
    out.victims.push_back(victim(p));
    if (costs != nullptr) out.victims.back().cost = costs->of(*p);
  }
  victim_conditions(view, d, out);
  if (opts.victim_reasons) explain_victims(view, d, preemptor, preemptor_object, out);
  // Upstream clears the nominations of strictly lower-priority pods on the chosen node. With
  // asynchronous preemption (the default since v1.33) that happens in the goroutine
  // prepareCandidateAsync starts only when some victim is not being deleted already: when every
  // victim is terminating, nothing is cleared. (The synchronous path clears in any case.)
  const bool any_to_delete = std::any_of(d.victims.begin(), d.victims.end(),
                                         [](const pod* p) { return !p->terminating(); });
  if (any_to_delete)
    for (const pod* p : ledger.nominated_to_unlocked(d.node_index))
      if (p->priority() < preemptor.priority()) out.cleared_nominations.push_back(pod_name(p));
  std::size_t k = d.choice.deciding_score;
  if (k == preempt::best_candidate::none) {
    out.decided_by = "the only candidate";
  } else if (opts.policies.min_cost && k == 0) {
    out.decided_by = "lowest total victim cost (--policy min-cost)";
  } else {
    if (opts.policies.min_cost) --k;  // the policy's scores: the cost, then upstream's
    out.decided_by = std::string(preempt::default_scores::name(k));
    const auto total_cost = [&](const auto& c) {
      std::int64_t sum = 0;
      for (const pod* v : c.victims) sum += costs != nullptr ? costs->of(*v) : 1;
      return sum;
    };
    const std::int64_t chosen_cost = total_cost(d.candidates[d.choice.index]);
    explain_tie_break(d, unstarted_time(opts), out.tie_break, k, [&](const auto& c) {
      return !opts.policies.min_cost || total_cost(c) == chosen_cost;
    });
  }
}

// Per victim on the chosen node, the preemptor's filter conditions beyond resources that its
// presence triggers (kubernetes::filter_cluster's for_each_victim_condition), read from the
// PreFilter state of the cluster as the dry run saw it; nominated pods are not considered.
void analysis::model::victim_conditions(const cluster_view& view,
                                        const evaluator_type::decision_type& d, report& out) const {
  cluster_view::state_type state = view.make_state();
  view.prepare_state(d.node_index, state);
  for (std::size_t i = 0; i < d.victims.size(); ++i) {
    bool here = false;
    for (const pod& q : ::preempt::pods_of(view[d.node_index])) here = here || &q == d.victims[i];
    if (!here) continue;  // evicted with its group's unit, on another node
    state.for_each_victim_condition(*d.victims[i], [&](const k8s::victim_condition& c) {
      out.victims[i].conditions.push_back(describe_condition(c));
    });
  }
}

victim_condition_info describe_condition(const k8s::victim_condition& c) {
  std::string detail(c.subject);
  if (c.port != nullptr) {
    const std::string_view ip = c.port->host_ip;
    detail = (ip.empty() || ip == k8s::bind_all_host_ip ? std::string() : std::string(ip) + ":") +
             std::to_string(c.port->port) + "/" +
             (c.port->protocol.empty() ? std::string("TCP") : c.port->protocol);
  }
  return {std::string(k8s::to_string(c.kind)), std::move(detail)};
}

// --victim-reasons: on the chosen node with its victims gone, each victim given back alone; what
// the preemptor would then be short of (preempt::explain_victims).
void analysis::model::explain_victims(const cluster_view& view,
                                      const evaluator_type::decision_type& d, const pod& preemptor,
                                      const pod_object& preemptor_object, report& out) const {
  cluster_view::state_type state = view.make_state();
  view.prepare_state(d.node_index, state);
  const auto on_node = [&](const pod* v) {
    for (const pod& q : ::preempt::pods_of(view[d.node_index]))
      if (&q == v) return true;
    return false;
  };
  std::vector<const pod*> here;  // victims of the node (a group's unit may reach other nodes)
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < d.victims.size(); ++i) {
    if (!on_node(d.victims[i])) {
      out.victims[i].reason = "evicted with its group's unit (on another node)";
      continue;
    }
    if (!state.remove_pod(*d.victims[i]).is_success()) return;
    here.push_back(d.victims[i]);
    at.push_back(i);
  }
  // The host ports of the preemptor that the victim holds (NodePorts' conflict).
  const auto ports_held = [&](const pod* v) {
    k8s::used_ports held;
    held.add(std::span<const k8s::host_port>(dump->pods[v->uid() - 1].host_ports));
    std::string r;
    for (const k8s::host_port& w : preemptor_object.host_ports)
      if (held.conflicts(w))
        r += (r.empty() ? "" : ", ") + std::to_string(w.port) + "/" +
             (w.protocol.empty() ? std::string("TCP") : w.protocol);
    return r;
  };
  const pod* explained = nullptr;
  const auto format = [&](const preempt::victim_explanation& e) {
    if (e.fit.is_success()) return std::string("not needed alone (evicted with the others)");
    std::string r = join_reasons(e.fit.reasons());
    if (const std::string ports = ports_held(explained); !ports.empty())
      r += "; host port " + ports + " held by this victim";
    for (const preempt::victim_shortage& s : e.shortages()) {
      const std::string name(names.name(s.dimension));
      const auto amount = [&](std::int64_t v) {
        return v < 0 ? "-" + format_amount(name, -v) : format_amount(name, v);
      };
      r += "; " + name + ": " + amount(s.wanted) + " asked, " + amount(s.left) + " left (" +
           amount(s.missing()) + " short)";
    }
    return r;
  };
  (void)preempt::explain_victims(preemptor, state, std::span<const pod* const>(here),
                                 ledger.nominated_to_unlocked(d.node_index),
                                 [&](std::size_t i, const preempt::victim_explanation& e) {
                                   explained = here[i];
                                   out.victims[at[i]].reason = format(e);
                                 });
}

// Whether the pod's own constraints let it run on some other node: its node selector and
// required node affinity, and the taints it must tolerate (the proposal of
// kubernetes/kubernetes#141227); resources are not considered.
bool analysis::model::can_run_elsewhere(const pod& p) const {
  const std::size_t i = static_cast<std::size_t>(p.uid()) - 1;
  if (i >= dump->pods.size()) return true;
  const pod_object& o = dump->pods[i];
  k8s::pod_placement placement = o.placement;
  placement.node_name.clear();
  for (std::size_t n = 0; n < dump->nodes.size(); ++n) {
    const node_object& node = dump->nodes[n];
    if (node.name == o.node_name) continue;
    if (k8s::filter_node(placement,
                         k8s::node_facts{node.name, &node.labels, node.taints, node.unschedulable})
            .passed())
      return true;
  }
  return false;
}

std::optional<load_error> analyze(const cluster_dump& dump, const pod_object& preemptor,
                                  const options& opts, report& out) {
  analysis a;
  if (auto e = a.build(dump)) {
    out = report{};
    return e;
  }
  return a.decide(preemptor, opts, out);
}

std::optional<load_error> find_pending_pod(const cluster_dump& dump, const std::string& key,
                                           pod_object& out) {
  for (const pod_object& p : dump.pods) {
    if (p.key() != key) continue;
    if (!p.node_name.empty())
      return load_error{"--pod-name " + key + ": the pod is not pending: it is bound to node " +
                        p.node_name};
    if (k8s::is_terminal_phase(p.phase))
      return load_error{"--pod-name " + key + ": the pod is not pending: its phase is " + p.phase};
    out = p;
    return std::nullopt;
  }
  return load_error{"--pod-name " + key + ": no such pod in the cluster dump"};
}

}  // namespace whatif
