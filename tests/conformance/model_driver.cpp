// tests/conformance/model_driver.cpp - the library itself against kube-scheduler: reads the text
// form of a cluster of the model families (internal/gen/model.go documents it), builds the ready
// model (model::resource_cluster, model::budget_table, a nomination_ledger) under
// kubernetes::filter_cluster (NodePorts, PodTopologySpread, InterPodAffinity), pod groups as
// victim units (a workload::group_set: the evaluator's grouped overload), filters the
// preemptor on every node (NodeAffinity's PreFilter, kubernetes::filter_node, then the view's
// state with fits_with_nominated),
// runs preempt::evaluator with the case's hooks (candidate extenders, custom score functions, a
// thread_pool of `parallelism` workers), and prints preempt-whatif's JSON contract.
//
//   preempt_conformance_model_driver FILE [--output json]
//   preempt_conformance_model_driver --gosort
//
// --gosort checks detail::go_sort_slice against Go's sort.Slice (`conform gosort`): each input line
// "n k0 ... k(n-1)" is sorted as the indices 0..n-1 ordered by ascending key, and the line
// answered is the indices in the order go_sort_slice leaves them.
//
// Feeds the evaluator as kube-scheduler v1.37 does: a node where a request exceeds the whole
// allocatable amount is UnschedulableAndUnresolvable (kubernetes::exceeds_allocatable). The hooks
// are those internal/upstream/hooks.go gives upstream (gen.Hooks): the extenders act on nodes by
// their position in the node order; "result" is "error" when an extender fails the attempt, and
// "not-eligible" when the extenders left no candidate (upstream's nil result: the nomination is
// kept); a node's "not kept" reason refers to the candidates before the extenders (what
// upstream's CandidatesToVictimsMap first saw). Exit status 0 for a decision, 2 for an unreadable
// file.
//
// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "preempt/detail/go_sort.hpp"
#include "preempt/kubernetes/filter_cluster.hpp"
#include "preempt/kubernetes/filters.hpp"
#include "preempt/preempt.hpp"
#include "preempt/thread_pool.hpp"
#include "preempt/workload/group_set.hpp"
#include "preempt/workload/unit_grouping.hpp"

namespace {

namespace model = preempt::model;
namespace k8s = preempt::kubernetes;
using pod = model::resource_pod;
using candidate = preempt::candidate<pod>;

struct recorder {  // the dry run's victims on every node it evaluates
  std::vector<std::vector<const pod*>>* victims;
  std::vector<std::int64_t>* violations;
  void on_node_evaluated(std::size_t node, const preempt::status&, std::span<const pod* const> v,
                         std::int64_t pdb_violations) {
    (*victims)[node].assign(v.begin(), v.end());
    (*violations)[node] = pdb_violations;
  }
};

struct line {
  std::string kind, key;
  std::map<std::string, std::string> fields;  // key=value before "req"
  std::vector<std::pair<std::string, std::int64_t>> amounts;
};

// A whole decimal integer, or nullopt.
std::optional<std::int64_t> integer(std::string_view s) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<line> parse(const std::string& text) {
  std::istringstream in(text);
  line l;
  in >> l.kind;
  if (l.kind != "args") in >> l.key;
  bool amounts = l.kind == "node";
  for (std::string tok; in >> tok;) {
    if (tok == "req") {
      amounts = true;
      continue;
    }
    const auto eq = tok.find('=');
    if (eq == std::string::npos) return std::nullopt;
    if (amounts) {
      const auto v = integer(std::string_view(tok).substr(eq + 1));
      if (!v) return std::nullopt;
      l.amounts.emplace_back(tok.substr(0, eq), *v);
    } else {
      l.fields[tok.substr(0, eq)] = tok.substr(eq + 1);
    }
  }
  return l;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::string part;
  for (std::istringstream in(s); std::getline(in, part, ',');)
    if (!part.empty()) out.push_back(part);
  return out;
}

// The candidates before the extenders ran: the input of the first extender that processed them
// (upstream records them in callExtenders' CandidatesToVictimsMap).
struct first_input {
  bool recorded = false;
  std::vector<std::size_t> nodes;
};

// A candidate extender (gen.ExtenderActions) on nodes by their index.
struct hook_extender {
  std::string name, action, failure;
  bool supports = true, interested = true, ignorable = false;
  first_input* seen = nullptr;

  bool supports_preemption() const { return supports; }
  bool is_interested(const pod&) const { return interested; }
  bool is_ignorable() const { return ignorable; }
  preempt::status process_preemption(const pod&, std::span<const candidate> in,
                                     std::vector<candidate>& out) {
    if (!seen->recorded) {
      seen->recorded = true;
      for (const candidate& c : in) seen->nodes.push_back(c.node_index);
    }
    if (action == "fail") return preempt::status::error(failure);
    std::size_t first = std::numeric_limits<std::size_t>::max();
    for (const candidate& c : in) first = std::min(first, c.node_index);
    for (const candidate& c : in) {
      if (action == "drop-all" || (action == "drop-odd" && c.node_index % 2 == 1)) continue;
      if (action == "no-victims-first" && c.node_index == first)
        out.push_back({c.node_index, c.node_name, {}, 0});
      else
        out.push_back(c);
    }
    return preempt::status::ok();
  }
};
static_assert(preempt::candidate_extender<hook_extender, pod>);

using score_function = std::function<std::int64_t(const candidate&)>;

// A policy (default_policy, or v1.38's) with the case's score functions (gen.ScoreKinds).
template <class Base>
struct scored_policy : Base {
  const std::vector<score_function>* scores = nullptr;
  const std::vector<score_function>& score_functions() const { return *scores; }
};

// v1.38's order of equally important victims: their metadata.uid (the case's uid=), ascending.
struct metadata_uid_less {
  const std::vector<std::string>* uids = nullptr;
  bool operator()(const pod& a, const pod& b) const { return (*uids)[a.uid()] < (*uids)[b.uid()]; }
};

std::optional<score_function> score_of(const std::string& kind) {
  if (kind == "fewest-victims")
    return [](const candidate& c) { return -static_cast<std::int64_t>(c.victims.size()); };
  if (kind == "last-node")
    return [](const candidate& c) { return static_cast<std::int64_t>(c.node_index); };
  if (kind == "lowest-top-priority")
    return [](const candidate& c) {
      std::int64_t top = -(std::int64_t{1} << 62);
      for (const pod* v : c.victims) top = std::max<std::int64_t>(top, v->priority());
      return -top;
    };
  return std::nullopt;
}

// A label selector in the text form's syntax: "nil", "" (every pod), or KEY:OP:VALUE,...
// requirements joined by ";" (OP Eq: a matchLabels entry).
std::optional<std::optional<k8s::label_selector>> selector_of(const std::string& text) {
  if (text == "nil") return std::optional<k8s::label_selector>();
  k8s::label_selector sel;
  std::string part;
  for (std::istringstream in(text); std::getline(in, part, ';');) {
    if (part.empty()) continue;
    const auto a = part.find(':');
    const auto b = a == std::string::npos ? a : part.find(':', a + 1);
    if (b == std::string::npos) return std::nullopt;
    std::string key = part.substr(0, a), op = part.substr(a + 1, b - a - 1),
                values = part.substr(b + 1);
    if (op == "Eq")
      sel.match_labels.emplace_back(std::move(key), std::move(values));
    else
      sel.match_expressions.push_back(
          k8s::label_requirement{std::move(key), k8s::parse_selector_operator(op), split(values)});
  }
  return std::optional<k8s::label_selector>(std::move(sel));
}

// What the pod-dependent filters read of one pod, kept until the facts are assembled.
struct pod_extra {
  std::optional<k8s::label_set> labels;
  std::vector<k8s::host_port> ports;
  std::vector<k8s::affinity_term> affinity, anti;
  std::vector<k8s::spread_constraint> spread;
};

void json_string(std::string& o, std::string_view s) {
  o += '"';
  for (const char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  o += '"';
}

void json_list(std::string& o, const std::vector<std::string>& l) {
  o += '[';
  for (std::size_t i = 0; i < l.size(); ++i) {
    if (i) o += ", ";
    json_string(o, l[i]);
  }
  o += ']';
}

std::string reasons(const preempt::status& s) {
  std::string r;
  for (const std::string_view x : s.reasons()) r += (r.empty() ? "" : ", ") + std::string(x);
  return r;
}

}  // namespace

// --gosort: one sorted permutation per input line (see the header).
int gosort() {
  std::vector<std::int64_t> keys;
  std::vector<std::size_t> order;
  for (std::string text; std::getline(std::cin, text);) {
    std::istringstream in(text);
    std::size_t n = 0;
    if (!(in >> n)) {
      std::cerr << "preempt_conformance_model_driver --gosort: bad line: " << text << "\n";
      return 2;
    }
    keys.resize(n);
    for (auto& k : keys)
      if (!(in >> k)) {
        std::cerr << "preempt_conformance_model_driver --gosort: short line: " << text << "\n";
        return 2;
      }
    order.resize(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = i;
    preempt::detail::go_sort_slice(order.begin(), order.end(),
                                   [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
    std::string line;
    for (std::size_t i = 0; i < n; ++i) {
      if (i) line += ' ';
      line += std::to_string(order[i]);
    }
    std::cout << line << '\n';
  }
  std::cout.flush();
  return 0;
}

namespace {

namespace wl = preempt::workload;

// The text form's PodGroups as the library reads them (a workload::group_set): `group` lines,
// and each pod's spec.schedulingGroup by uid. No CompositePodGroups: every group is a root.
struct group_table {
  struct entry {
    bool all = false;
    std::int32_t priority = 0;
  };
  std::vector<entry> entries;
  std::vector<wl::group_link> links;  // by uid
  std::size_t group_count() const noexcept { return entries.size(); }
  wl::group_link group_of(const pod& p) const noexcept {
    return p.uid() < links.size() ? links[p.uid()] : wl::group_link{};
  }
  wl::group_kind kind(std::size_t) const noexcept { return wl::group_kind::pod_group; }
  std::size_t parent(std::size_t) const noexcept { return wl::no_group; }
  bool disrupts_all(std::size_t g) const noexcept { return entries[g].all; }
  std::int32_t priority(std::size_t g) const noexcept { return entries[g].priority; }
};
static_assert(wl::group_set<group_table, pod>);

// Everything the text form says, built into the library's types.
struct model_case {
  model::resource_names names;
  model::resource_cluster cluster{&names};
  std::vector<std::string> node_names, pod_keys{""};  // uid i is pod_keys[i]
  std::vector<std::string> pod_uids{""};  // uid i's metadata.uid (uid=; "" when the case has none)
  std::vector<model::resource_vector> allocatable;
  std::vector<k8s::label_set> labels;
  std::vector<std::vector<k8s::taint>> taints;
  std::vector<bool> unschedulable;
  // The pod-dependent filters' facts: per uid (pod_ns, pod_deleting, facts), per node, per
  // namespace, and each pod's extras by key.
  std::vector<std::string> pod_ns{""};
  std::vector<bool> pod_deleting{false};
  std::map<std::string, pod_extra> extras;
  std::deque<std::pair<std::string, k8s::label_set>> namespace_objects;
  std::vector<k8s::pod_filter_facts> facts;
  std::vector<k8s::node_facts> node_facts;
  std::vector<k8s::namespace_facts> namespaces;
  std::vector<pod> pending;
  std::optional<preempt::nomination_ledger<pod, preempt::null_mutex>> ledger;
  model::budget_table budgets;
  std::optional<pod> preemptor;
  std::optional<std::size_t> preemptor_nominated;
  k8s::pod_placement placement;
  std::vector<hook_extender> extenders;
  std::vector<score_function> scores;
  first_input seen;
  preempt::sampling_args sampling;
  std::size_t offset = 0;
  std::size_t parallelism = 1;
  // Pod groups: with any pod naming one, the evaluator selects whole victim units (as
  // kube-scheduler does with GenericWorkload).
  group_table groups;
  bool grouped = false;
};

// What the pod-dependent filters read of a pod of the model (by uid).
struct pod_facts_of {
  const std::vector<k8s::pod_filter_facts>* facts;
  const k8s::pod_filter_facts& operator()(const pod& p) const noexcept {
    static const k8s::pod_filter_facts none{};
    return p.uid() < facts->size() ? (*facts)[p.uid()] : none;
  }
};
struct node_facts_of {
  const std::vector<k8s::node_facts>* facts;
  const k8s::node_facts& operator()(std::size_t i) const noexcept { return (*facts)[i]; }
};
using cluster_view = k8s::filter_cluster<model::resource_cluster, pod_facts_of, node_facts_of>;

// The filter pass: statuses and reasons per node, the nodes that fit.
struct filter_pass {
  preempt::filter_statuses statuses;
  std::vector<std::string> status_names, reason_texts;
  std::vector<std::size_t> feasible;
};

void node_json(std::string& o, const model_case& m, const filter_pass& f, std::size_t i,
               const std::vector<std::string>& victims, std::int64_t pdb, bool evaluated) {
  o += "    {\"name\": ";
  json_string(o, m.node_names[i]);
  o += ", \"status\": ";
  json_string(o, f.status_names[i]);
  o += ", \"reason\": ";
  json_string(o, f.reason_texts[i]);
  o += ", \"victims\": ";
  json_list(o, victims);
  o += ", \"pdbViolations\": " + std::to_string(pdb) +
       ", \"evaluated\": " + (evaluated ? "true" : "false") + "}";
}

// Runs the evaluator (Policy, with the extenders when there are any, on the executor) and prints
// the decision.
template <class Policy, class Executor>
int decide(model_case& m, const cluster_view& view, filter_pass& f, const Policy& policy,
           Executor executor, preempt::timestamp now) {
  const std::size_t n = m.node_names.size();
  std::vector<std::vector<const pod*>> recorded(n);
  std::vector<std::int64_t> recorded_violations(n, 0);
  preempt::evaluator_config config;
  config.sampling = m.sampling;
  config.parallelism = m.parallelism;
  config.min_parallel_nodes = 0;           // the helpers take any dry run
  config.workers_within_hardware = false;  // every worker, whatever the machine
  (void)now;
  preempt::evaluator<cluster_view, Policy, recorder> ev(config, policy,
                                                        recorder{&recorded, &recorded_violations});
  const preempt::attempt at{.offset = m.offset, .nominated_node = m.preemptor_nominated};
  const auto& d = [&]() -> const auto& {
    if (m.grouped)
      return m.extenders.empty() ? ev.evaluate(*m.preemptor, view, m.groups, f.statuses, m.budgets,
                                               m.ledger->reader(), executor, at)
                                 : ev.evaluate(*m.preemptor, view, m.groups, f.statuses, m.budgets,
                                               m.ledger->reader(), executor, at, m.extenders);
    return m.extenders.empty() ? ev.evaluate(*m.preemptor, view, f.statuses, m.budgets,
                                             m.ledger->reader(), executor, at)
                               : ev.evaluate(*m.preemptor, view, f.statuses, m.budgets,
                                             m.ledger->reader(), executor, at, m.extenders);
  }();
  const auto keys = [&](const auto& pods) {
    std::vector<std::string> out;
    for (const pod* p : pods) out.push_back(m.pod_keys[p->uid()]);
    return out;
  };
  const char* result = "unschedulable";
  switch (d.kind) {
    case preempt::decision_kind::nominated: result = "nominated"; break;
    case preempt::decision_kind::not_eligible: result = "not-eligible"; break;
    case preempt::decision_kind::error: result = "error"; break;
    case preempt::decision_kind::unschedulable:
      // The extenders left no candidate: upstream's nil result (the nomination is kept).
      result = d.clear_nomination || m.extenders.empty() ? "unschedulable" : "not-eligible";
      break;
  }
  std::vector<std::string> cleared;
  // Asynchronous preemption clears them only when some victim is not being deleted already (the
  // dispatcher's rule too: no eviction, no clearing).
  const bool any_to_delete = std::any_of(d.victims.begin(), d.victims.end(),
                                         [](const pod* p) { return !p->terminating(); });
  if (d.kind == preempt::decision_kind::nominated && any_to_delete) {
    std::vector<const pod*> out;
    m.ledger->clear_lower_priority(d.node_index, m.preemptor->priority(), out);
    cleared = keys(out);
  }
  std::string o = "{\n  \"preemptor\": ";
  json_string(o, m.pod_keys[m.preemptor->uid()]);
  o += ",\n  \"result\": \"" + std::string(result) + "\",\n  \"nominatedNodeName\": ";
  json_string(
      o, d.kind == preempt::decision_kind::nominated ? std::string(d.node_name) : std::string());
  o += ",\n  \"victims\": ";
  json_list(o, d.kind == preempt::decision_kind::nominated ? keys(d.victims)
                                                           : std::vector<std::string>{});
  o += ",\n  \"pdbViolations\": " +
       std::to_string(d.kind == preempt::decision_kind::nominated ? d.pdb_violations : 0);
  o += ",\n  \"clearedNominations\": ";
  json_list(o, cleared);
  o += ",\n  \"message\": ";
  json_string(o, d.message);
  o += ",\n  \"nodes\": [\n";
  std::vector<bool> evaluated(n, false), kept(n, false);
  if (m.seen.recorded) {
    for (const std::size_t i : m.seen.nodes) kept[i] = true;
  } else {
    for (const auto& c : d.candidates) kept[c.node_index] = true;
  }
  for (const auto diag : d.diagnosis) {
    const std::size_t i = diag.node_index;
    evaluated[i] = true;
    f.status_names[i] = std::string(preempt::to_string(diag.outcome.code()));
    f.reason_texts[i] = reasons(diag.outcome);
    if (diag.outcome.is_success() && !kept[i])
      f.reason_texts[i] = "not kept: enough candidates with budget violations were found before";
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (i) o += ",\n";
    const bool success = evaluated[i] && f.status_names[i] == "Success";
    node_json(o, m, f, i, success ? keys(recorded[i]) : std::vector<std::string>{},
              success ? recorded_violations[i] : 0, evaluated[i]);
  }
  std::cout << o << "\n  ]\n}\n";
  return 0;
}

// decide on the case's executor: inline, or a thread_pool of parallelism - 1 threads beside the
// calling one.
template <class Policy>
int decide_on_executor(model_case& m, const cluster_view& view, filter_pass& f,
                       const Policy& policy, preempt::timestamp now) {
  if (m.parallelism <= 1) return decide(m, view, f, policy, preempt::inline_executor{}, now);
  preempt::thread_pool pool(m.parallelism - 1);
  return decide(m, view, f, policy, pool.get_executor(), now);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string_view(argv[1]) == "--gosort") return gosort();
  if (argc < 2) {
    std::cerr << "usage: preempt_conformance_model_driver FILE [--output json] "
                 "[--kubernetes-version V]\n";
    return 2;
  }
  // FILE [--output json] [--kubernetes-version 1.37|1.38]
  preempt::upstream_profile profile = preempt::default_upstream_profile;
  for (int i = 2; i + 1 < argc; ++i)
    if (std::string_view(argv[i]) == "--kubernetes-version") {
      const auto p = preempt::parse_upstream_profile(argv[i + 1]);
      if (!p) {
        std::cerr << "preempt_conformance_model_driver: --kubernetes-version " << argv[i + 1]
                  << ": expected 1.37 or 1.38\n";
        return 2;
      }
      profile = *p;
    }
  std::ifstream file(argv[1]);
  if (!file) {
    std::cerr << "preempt_conformance_model_driver: " << argv[1] << ": cannot read\n";
    return 2;
  }
  std::vector<line> lines;
  std::size_t pending_count = 0, node_count = 0;
  for (std::string text; std::getline(file, text);) {
    if (text.empty() || text[0] == '#') continue;
    auto l = parse(text);
    if (!l) {
      std::cerr << "preempt_conformance_model_driver: " << argv[1] << ": bad line: " << text
                << "\n";
      return 2;
    }
    if (l->kind == "pod" && l->fields["node"] == "-") ++pending_count;
    if (l->kind == "node") ++node_count;
    lines.push_back(std::move(*l));
  }

  model_case m;
  std::map<std::string, std::size_t> node_index, namespaces, uid_of, group_index;
  std::vector<std::pair<model::pod_id, std::string>> pod_groups;  // a pod's group=KEY
  m.pending.reserve(pending_count);
  m.ledger.emplace(node_count);
  const preempt::timestamp now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count();
  std::string bad;  // the first unknown node or pod, or malformed field
  const auto find = [&](const std::map<std::string, std::size_t>& map,
                        const std::string& k) -> std::size_t {
    const auto it = map.find(k);
    if (it != map.end()) return it->second;
    if (bad.empty()) bad = k;
    return 0;
  };
  const auto number = [&](const std::string& field, const line& l) -> std::int64_t {
    const auto it = l.fields.find(field);
    const auto v = it == l.fields.end() ? std::nullopt : integer(it->second);
    if (!v && bad.empty()) bad = l.kind + " " + l.key + ": " + field;
    return v.value_or(0);
  };
  const auto vector_of = [&](const line& l) {
    model::resource_vector v;
    for (const auto& [name, amount] : l.amounts) v.set(m.names.dimension(name), amount);
    return v;
  };
  const auto namespace_id = [&](const std::string& ns) {
    return static_cast<std::uint32_t>(namespaces.emplace(ns, namespaces.size()).first->second);
  };
  const auto spec_of = [&](line& l, model::pod_id uid) {
    const std::string& start = l.fields["start"];
    return model::pod_spec{
        .uid = uid,
        .priority = static_cast<std::int32_t>(number("prio", l)),
        .requests = vector_of(l),
        .start_time =
            start == "-" ? std::nullopt : std::optional<preempt::timestamp>(number("start", l)),
        .namespace_id = namespace_id(l.fields["ns"]),
        .terminating = l.fields["deleting"] == "1",
        .terminating_by_preemption = l.fields["preempting"] == "1",
        .preemption_policy = l.fields["policy"] == "never"
                                 ? preempt::preemption_policy::never
                                 : preempt::preemption_policy::preempt_lower_priority};
  };
  for (line& l : lines) {
    if (l.kind == "node") {
      node_index[l.key] = m.node_names.size();
      m.node_names.push_back(l.key);
      m.allocatable.push_back(vector_of(l));
      m.labels.emplace_back();
      m.taints.emplace_back();
      m.unschedulable.push_back(false);
      m.cluster.add_node(l.key, m.allocatable.back());
    } else if (l.kind == "labels") {
      const std::size_t i = find(node_index, l.key);
      for (const auto& [k, v] : l.fields) m.labels[i].set(k, v);
    } else if (l.kind == "taint") {
      m.taints[find(node_index, l.key)].push_back(
          k8s::taint{l.fields["key"], l.fields["value"], l.fields["effect"]});
    } else if (l.kind == "unschedulable") {
      m.unschedulable[find(node_index, l.key)] = true;
    } else if (l.kind == "pod") {
      const model::pod_id uid = m.pod_keys.size();
      m.pod_keys.push_back(l.key);
      m.pod_uids.push_back(l.fields["uid"]);
      m.pod_ns.push_back(l.fields["ns"]);
      m.pod_deleting.push_back(l.fields["deleting"] == "1");
      uid_of[l.key] = uid;
      if (const auto g = l.fields.find("group"); g != l.fields.end())
        pod_groups.emplace_back(uid, g->second);
      if (l.fields["node"] != "-") {
        m.cluster.add_pod(find(node_index, l.fields["node"]), pod(spec_of(l, uid)));
      } else {
        m.pending.emplace_back(spec_of(l, uid));
        m.ledger->nominate(m.pending.back(), find(node_index, l.fields["nominated"]));
      }
    } else if (l.kind == "group") {
      group_index[l.key] = m.groups.entries.size();
      m.groups.entries.push_back(
          group_table::entry{l.fields["all"] == "1", static_cast<std::int32_t>(number("prio", l))});
    } else if (l.kind == "pdb") {
      const std::size_t b = m.budgets.add_budget(namespace_id(l.fields["ns"]),
                                                 static_cast<std::int32_t>(number("allowed", l)));
      for (const std::string& k : split(l.fields["members"]))
        m.budgets.add_member(b, find(uid_of, k));
      for (const std::string& k : split(l.fields["disrupted"]))
        if (uid_of.count(k)) m.budgets.add_disrupted(b, uid_of.at(k));
    } else if (l.kind == "preemptor") {
      m.pod_keys.push_back(l.key);
      m.pod_uids.push_back(l.fields["uid"]);
      m.pod_ns.push_back(l.fields["ns"]);
      m.pod_deleting.push_back(false);
      m.preemptor.emplace(spec_of(l, m.pod_keys.size() - 1));
      if (l.fields["nominated"] != "-")
        m.preemptor_nominated = find(node_index, l.fields["nominated"]);
    } else if (l.kind == "namespace") {
      k8s::label_set labels;
      for (const auto& [k, v] : l.fields) labels.set(k, v);
      m.namespace_objects.emplace_back(l.key, std::move(labels));
    } else if (l.kind == "pod-labels") {
      auto& labels = m.extras[l.key].labels.emplace();
      for (const auto& [k, v] : l.fields) labels.set(k, v);
    } else if (l.kind == "port") {
      m.extras[l.key].ports.push_back(k8s::host_port{l.fields["ip"], l.fields["protocol"],
                                                     static_cast<std::int32_t>(number("port", l))});
    } else if (l.kind == "term") {
      const auto sel = selector_of(l.fields["sel"]);
      const auto nssel = selector_of(l.fields["nssel"]);
      if ((!sel || !nssel) && bad.empty()) bad = "term " + l.key + ": selector";
      k8s::affinity_term t{sel.value_or(std::nullopt),    split(l.fields["namespaces"]),
                           nssel.value_or(std::nullopt),  l.fields["topology"],
                           split(l.fields["match-keys"]), split(l.fields["mismatch-keys"])};
      auto& extra = m.extras[l.key];
      (l.fields["kind"] == "anti" ? extra.anti : extra.affinity).push_back(std::move(t));
    } else if (l.kind == "spread") {
      const auto sel = selector_of(l.fields["sel"]);
      if (!sel && bad.empty()) bad = "spread " + l.key + ": selector";
      const auto policy =
          [&](const std::string& field) -> std::optional<k8s::node_inclusion_policy> {
        const std::string& v = l.fields[field];
        if (v == "Honor") return k8s::node_inclusion_policy::honor;
        if (v == "Ignore") return k8s::node_inclusion_policy::ignore;
        return std::nullopt;
      };
      k8s::spread_constraint c;
      c.max_skew = static_cast<std::int32_t>(number("maxskew", l));
      c.topology_key = l.fields["topology"];
      c.do_not_schedule = l.fields["when"] == "DoNotSchedule";
      c.selector = sel.value_or(std::nullopt);
      if (l.fields["mindomains"] != "-")
        c.min_domains = static_cast<std::int32_t>(number("mindomains", l));
      c.node_affinity_policy = policy("affinity-policy");
      c.node_taints_policy = policy("taints-policy");
      c.match_label_keys = split(l.fields["match-keys"]);
      m.extras[l.key].spread.push_back(std::move(c));
    } else if (l.kind == "toleration") {
      m.placement.tolerations.push_back(
          k8s::toleration{l.fields["key"], l.fields["op"], l.fields["value"], l.fields["effect"]});
    } else if (l.kind == "node-selector") {
      for (const auto& [k, v] : l.fields) m.placement.node_selector_map.emplace_back(k, v);
    } else if (l.kind == "affinity") {
      const std::int64_t term = integer(l.key).value_or(-1);
      if (term < 0 && bad.empty()) bad = "affinity " + l.key;
      if (!m.placement.required_node_affinity) m.placement.required_node_affinity.emplace();
      auto& terms = m.placement.required_node_affinity->terms;
      if (terms.size() <= static_cast<std::size_t>(std::max<std::int64_t>(term, 0)))
        terms.resize(static_cast<std::size_t>(std::max<std::int64_t>(term, 0)) + 1);
      auto& t = terms[static_cast<std::size_t>(std::max<std::int64_t>(term, 0))];
      const std::string& kind = l.fields["kind"];
      if (kind == "empty") continue;
      k8s::node_selector_requirement r{l.fields["key"], l.fields["op"], split(l.fields["values"])};
      (kind == "field" ? t.match_fields : t.match_expressions).push_back(std::move(r));
    } else if (l.kind == "extender") {
      hook_extender e;
      e.name = l.key;
      e.action = l.fields["action"];
      e.failure = "extender " + l.key + ": preemption failed";
      e.supports = l.fields["supports"] == "1";
      e.interested = l.fields["interested"] == "1";
      e.ignorable = l.fields["ignorable"] == "1";
      e.seen = &m.seen;
      m.extenders.push_back(std::move(e));
    } else if (l.kind == "score") {
      auto fn = score_of(l.key);
      if (!fn && bad.empty()) bad = "score " + l.key;
      if (fn) m.scores.push_back(std::move(*fn));
    } else if (l.kind == "args") {
      m.sampling.min_candidate_nodes_percentage =
          static_cast<std::int32_t>(number("percentage", l));
      m.sampling.min_candidate_nodes_absolute = static_cast<std::int32_t>(number("absolute", l));
      m.offset = static_cast<std::size_t>(number("offset", l));
      if (l.fields.count("parallelism"))
        m.parallelism =
            static_cast<std::size_t>(std::max<std::int64_t>(1, number("parallelism", l)));
    }
  }
  if (!bad.empty()) {
    std::cerr << "preempt_conformance_model_driver: " << argv[1] << ": unknown or malformed " << bad
              << "\n";
    return 2;
  }
  if (!m.preemptor) {
    std::cerr << "preempt_conformance_model_driver: " << argv[1] << ": no preemptor line\n";
    return 2;
  }

  // Each pod's group, now that every group is known: a PodGroup that does not exist leaves the
  // pod a victim of its own with its own priority (group_link{true, no_group}).
  m.groups.links.assign(m.pod_keys.size(), wl::group_link{});
  for (const auto& [uid, key] : pod_groups) {
    const auto it = group_index.find(key);
    m.groups.links[uid] = wl::group_link{true, it == group_index.end() ? wl::no_group : it->second};
    m.grouped = true;
  }

  // The facts of the pod-dependent filters, now that nothing moves any more.
  static const pod_extra no_extra;
  const auto extra_of = [&](const std::string& key) -> const pod_extra& {
    const auto it = m.extras.find(key);
    return it == m.extras.end() ? no_extra : it->second;
  };
  m.facts.resize(m.pod_keys.size());
  for (std::size_t uid = 1; uid < m.pod_keys.size(); ++uid) {
    const pod_extra& e = extra_of(m.pod_keys[uid]);
    m.facts[uid] =
        k8s::pod_filter_facts{k8s::pod_facts{m.pod_ns[uid], e.labels ? &*e.labels : nullptr,
                                             static_cast<bool>(m.pod_deleting[uid]), e.anti},
                              e.ports};
  }
  for (std::size_t i = 0; i < m.node_names.size(); ++i)
    m.node_facts.push_back(k8s::node_facts{m.node_names[i], &m.labels[i], m.taints[i],
                                           static_cast<bool>(m.unschedulable[i])});
  for (const auto& [name, labels] : m.namespace_objects)
    m.namespaces.push_back(k8s::namespace_facts{name, &labels});
  cluster_view view(m.cluster, pod_facts_of{&m.facts}, node_facts_of{&m.node_facts});
  {
    const pod_extra& e = extra_of(m.pod_keys[m.preemptor->uid()]);
    view.prefilter(k8s::placing_pod{k8s::pod_facts{m.pod_ns[m.preemptor->uid()],
                                                   e.labels ? &*e.labels : nullptr, false, e.anti},
                                    e.ports, e.affinity, e.anti, e.spread, &m.placement},
                   m.namespaces);
  }

  // Filters, in the default profile's order: NodeAffinity's PreFilter (a required affinity naming
  // nodes rules out every other one), the node filters (NodeUnschedulable, NodeName,
  // TaintToleration, NodeAffinity), then NodePorts, resources (a request beyond the node's whole
  // allocatable amount is UnschedulableAndUnresolvable in the node state itself),
  // PodTopologySpread and InterPodAffinity with the nominated pods (the filter_cluster's state).
  const std::size_t n = m.node_names.size();
  filter_pass f{
      preempt::filter_statuses(n), std::vector<std::string>(n), std::vector<std::string>(n), {}};
  const auto named = k8s::prefilter_node_names(m.placement.required_node_affinity);
  const bool prefiltered = named && !named->empty();
  auto state = view.make_state();
  for (std::size_t i = 0; i < n; ++i) {
    if (prefiltered && !std::binary_search(named->begin(), named->end(), m.node_names[i])) {
      f.statuses.set(i, preempt::status_code::unschedulable_and_unresolvable);
      f.status_names[i] =
          std::string(preempt::to_string(preempt::status_code::unschedulable_and_unresolvable));
      f.reason_texts[i] = std::string(k8s::prefilter_node_affinity_reason);
      continue;
    }
    const k8s::filter_verdict verdict =
        k8s::filter_node(m.placement, k8s::node_facts{m.node_names[i], &m.labels[i], m.taints[i],
                                                      static_cast<bool>(m.unschedulable[i])});
    if (!verdict.passed()) {
      f.statuses.set(i, verdict.code);
      f.status_names[i] = std::string(preempt::to_string(verdict.code));
      f.reason_texts[i] = verdict.reason;
      continue;
    }
    view.prepare_state(i, state);
    const preempt::status fit =
        preempt::fits_with_nominated(state, *m.preemptor, m.ledger->nominated_to_unlocked(i));
    const auto code = fit.code();
    f.statuses.set(i, code);
    f.status_names[i] = std::string(preempt::to_string(code));
    f.reason_texts[i] = reasons(fit);
    if (fit.is_success()) f.feasible.push_back(i);
  }

  if (!f.feasible.empty()) {
    std::string o = "{\n  \"preemptor\": ";
    json_string(o, m.pod_keys[m.preemptor->uid()]);
    o += ",\n  \"result\": \"fits\",\n  \"nominatedNodeName\": \"\",\n  \"victims\": [],\n  "
         "\"pdbViolations\": 0,"
         "\n  \"clearedNominations\": [],\n  \"message\": \"\",\n  \"nodes\": [\n";
    for (std::size_t k = 0; k < f.feasible.size(); ++k) {
      if (k) o += ",\n";
      node_json(o, m, f, f.feasible[k], {}, 0, false);
    }
    std::cout << o << "\n  ]\n}\n";
    return 0;
  }
  if (profile == preempt::upstream_profile::kubernetes_1_38) {
    using policy_1_38 = preempt::kubernetes_1_38_policy<metadata_uid_less>;
    policy_1_38 plain;
    plain.now = now;
    plain.identity_less = metadata_uid_less{&m.pod_uids};
    if (m.scores.empty()) return decide_on_executor(m, view, f, plain, now);
    scored_policy<policy_1_38> policy;
    static_cast<policy_1_38&>(policy) = plain;
    policy.scores = &m.scores;
    return decide_on_executor(m, view, f, policy, now);
  }
  if (m.scores.empty()) return decide_on_executor(m, view, f, preempt::default_policy{now}, now);
  scored_policy<preempt::default_policy> policy;
  policy.now = now;
  policy.scores = &m.scores;
  return decide_on_executor(m, view, f, policy, now);
}
