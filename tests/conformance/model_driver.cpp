// tests/conformance/model_driver.cpp - the library itself against kube-scheduler: reads the text
// form of a resource-only cluster (internal/gen/model.go documents it), builds the ready model
// (model::resource_cluster, model::budget_table, a nomination_ledger), filters the preemptor on
// every node with fits_with_nominated, runs preempt::evaluator, and prints preempt-whatif's JSON
// contract.
//
//   preempt_conformance_model_driver FILE [--output json]
//   preempt_conformance_model_driver --gosort
//
// --gosort checks detail::go_sort_slice against Go's sort.Slice (`conform gosort`): each input line
// "n k0 ... k(n-1)" is sorted as the indices 0..n-1 ordered by ascending key, and the line
// answered is the indices in the order go_sort_slice leaves them.
//
// Feeds the evaluator as kube-scheduler v1.37 does: a node where a request exceeds the whole
// allocatable amount is UnschedulableAndUnresolvable (kubernetes::exceeds_allocatable). Exit
// status 0 for a decision, 2 for an unreadable file.
//
// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "preempt/detail/go_sort.hpp"
#include "preempt/kubernetes/filters.hpp"
#include "preempt/preempt.hpp"

namespace {

namespace model = preempt::model;
using pod = model::resource_pod;

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

int main(int argc, char** argv) {
  if (argc == 2 && std::string_view(argv[1]) == "--gosort") return gosort();
  if (argc < 2) {
    std::cerr << "usage: preempt_conformance_model_driver FILE [--output json]\n";
    return 2;
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

  model::resource_names names;
  model::resource_cluster cluster(&names);
  std::map<std::string, std::size_t> node_index, namespaces, uid_of;
  std::vector<std::string> node_names, pod_keys{""};  // uid i is pod_keys[i]
  std::vector<model::resource_vector> allocatable;
  std::vector<pod> pending;
  pending.reserve(pending_count);
  preempt::nomination_ledger<pod, preempt::null_mutex> ledger(node_count);
  model::budget_table budgets;
  std::optional<pod> preemptor;
  std::optional<std::size_t> preemptor_nominated;
  preempt::sampling_args sampling;
  std::size_t offset = 0;
  const preempt::timestamp now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count();
  std::string bad;  // the first unknown node or pod, or malformed field
  const auto find = [&](const std::map<std::string, std::size_t>& m,
                        const std::string& k) -> std::size_t {
    const auto it = m.find(k);
    if (it != m.end()) return it->second;
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
    for (const auto& [name, amount] : l.amounts) v.set(names.dimension(name), amount);
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
      node_index[l.key] = node_names.size();
      node_names.push_back(l.key);
      allocatable.push_back(vector_of(l));
      cluster.add_node(l.key, allocatable.back());
    } else if (l.kind == "pod") {
      const model::pod_id uid = pod_keys.size();
      pod_keys.push_back(l.key);
      uid_of[l.key] = uid;
      if (l.fields["node"] != "-") {
        cluster.add_pod(find(node_index, l.fields["node"]), pod(spec_of(l, uid)));
      } else {
        pending.emplace_back(spec_of(l, uid));
        ledger.nominate(pending.back(), find(node_index, l.fields["nominated"]));
      }
    } else if (l.kind == "pdb") {
      const std::size_t b = budgets.add_budget(namespace_id(l.fields["ns"]),
                                               static_cast<std::int32_t>(number("allowed", l)));
      for (const std::string& k : split(l.fields["members"]))
        budgets.add_member(b, find(uid_of, k));
      for (const std::string& k : split(l.fields["disrupted"]))
        if (uid_of.count(k)) budgets.add_disrupted(b, uid_of.at(k));
    } else if (l.kind == "preemptor") {
      pod_keys.push_back(l.key);
      preemptor.emplace(spec_of(l, pod_keys.size() - 1));
      if (l.fields["nominated"] != "-")
        preemptor_nominated = find(node_index, l.fields["nominated"]);
    } else if (l.kind == "args") {
      sampling.min_candidate_nodes_percentage = static_cast<std::int32_t>(number("percentage", l));
      sampling.min_candidate_nodes_absolute = static_cast<std::int32_t>(number("absolute", l));
      offset = static_cast<std::size_t>(number("offset", l));
    }
  }
  if (!bad.empty()) {
    std::cerr << "preempt_conformance_model_driver: " << argv[1] << ": unknown or malformed " << bad
              << "\n";
    return 2;
  }
  if (!preemptor) {
    std::cerr << "preempt_conformance_model_driver: " << argv[1] << ": no preemptor line\n";
    return 2;
  }

  // Filters: resources with the nominated pods; the verdict per node.
  const std::size_t n = node_names.size();
  preempt::filter_statuses statuses(n);
  std::vector<std::string> status_names(n), reason_texts(n);
  std::vector<std::size_t> feasible;
  auto state = cluster.make_state();
  for (std::size_t i = 0; i < n; ++i) {
    cluster.prepare_state(i, state);
    const preempt::status fit =
        preempt::fits_with_nominated(state, *preemptor, ledger.nominated_to_unlocked(i));
    auto code = fit.code();
    if (!fit.is_success() &&
        preempt::kubernetes::exceeds_allocatable(preemptor->requests(), allocatable[i]))
      code = preempt::status_code::unschedulable_and_unresolvable;
    statuses.set(i, code);
    status_names[i] = std::string(preempt::to_string(code));
    reason_texts[i] = reasons(fit);
    if (fit.is_success()) feasible.push_back(i);
  }

  std::string o = "{\n  \"preemptor\": ";
  json_string(o, pod_keys[preemptor->uid()]);
  const auto node_json = [&](std::size_t i, const std::vector<std::string>& victims,
                             std::int64_t pdb, bool evaluated) {
    o += "    {\"name\": ";
    json_string(o, node_names[i]);
    o += ", \"status\": ";
    json_string(o, status_names[i]);
    o += ", \"reason\": ";
    json_string(o, reason_texts[i]);
    o += ", \"victims\": ";
    json_list(o, victims);
    o += ", \"pdbViolations\": " + std::to_string(pdb) +
         ", \"evaluated\": " + (evaluated ? "true" : "false") + "}";
  };
  if (!feasible.empty()) {
    o += ",\n  \"result\": \"fits\",\n  \"nominatedNodeName\": \"\",\n  \"victims\": [],\n  "
         "\"pdbViolations\": 0,"
         "\n  \"clearedNominations\": [],\n  \"message\": \"\",\n  \"nodes\": [\n";
    for (std::size_t k = 0; k < feasible.size(); ++k) {
      if (k) o += ",\n";
      node_json(feasible[k], {}, 0, false);
    }
    std::cout << o << "\n  ]\n}\n";
    return 0;
  }

  std::vector<std::vector<const pod*>> recorded(n);
  std::vector<std::int64_t> recorded_violations(n, 0);
  preempt::evaluator_config config;
  config.sampling = sampling;
  preempt::evaluator<model::resource_cluster, preempt::default_policy, recorder> ev(
      config, preempt::default_policy{now}, recorder{&recorded, &recorded_violations});
  const auto& d = ev.evaluate(
      *preemptor, cluster, statuses, budgets, ledger.reader(), preempt::inline_executor{},
      preempt::attempt{.offset = offset, .nominated_node = preemptor_nominated});
  const auto keys = [&](const auto& pods) {
    std::vector<std::string> out;
    for (const pod* p : pods) out.push_back(pod_keys[p->uid()]);
    return out;
  };
  const char* result = d.kind == preempt::decision_kind::nominated      ? "nominated"
                       : d.kind == preempt::decision_kind::not_eligible ? "not-eligible"
                                                                        : "unschedulable";
  std::vector<std::string> cleared;
  // Asynchronous preemption clears them only when some victim is not being deleted already (the
  // dispatcher's rule too: no eviction, no clearing).
  const bool any_to_delete = std::any_of(d.victims.begin(), d.victims.end(),
                                         [](const pod* p) { return !p->terminating(); });
  if (d.kind == preempt::decision_kind::nominated && any_to_delete) {
    std::vector<const pod*> out;
    ledger.clear_lower_priority(d.node_index, preemptor->priority(), out);
    cleared = keys(out);
  }
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
  for (const auto& c : d.candidates) kept[c.node_index] = true;
  for (const preempt::node_diagnosis& diag : d.diagnosis) {
    const std::size_t i = diag.node_index;
    evaluated[i] = true;
    status_names[i] = std::string(preempt::to_string(diag.outcome.code()));
    reason_texts[i] = reasons(diag.outcome);
    if (diag.outcome.is_success() && !kept[i])
      reason_texts[i] = "not kept: enough candidates with budget violations were found before";
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (i) o += ",\n";
    const bool success = evaluated[i] && status_names[i] == "Success";
    node_json(i, success ? keys(recorded[i]) : std::vector<std::string>{},
              success ? recorded_violations[i] : 0, evaluated[i]);
  }
  std::cout << o << "\n  ]\n}\n";
  return 0;
}
