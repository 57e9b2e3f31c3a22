// preempt/kubernetes/node_affinity.hpp - nodeSelector and required node affinity (the
// NodeAffinity filter).
//
// A pod fits a node's labels when
//   * every spec.nodeSelector entry is a label of the node with that value, and
//   * spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution, when present,
//     has at least one term that matches: all of its matchExpressions (operators In, NotIn,
//     Exists, DoesNotExist, Gt, Lt against node labels) and all of its matchFields (only
//     metadata.name with In or NotIn) hold. A term with no requirement matches nothing, an
//     invalid term (unknown operator, wrong number of values, a Gt/Lt value that is not an
//     integer, a field other than metadata.name) matches nothing, and an empty list of terms
//     matches nothing (Kubernetes' nodeaffinity.NodeSelector).
// validate(selector) reports the first invalid requirement, for callers that want to reject the
// pod rather than silently never match (the API server would have refused it).
// The filter's reason is `node_affinity_reason`. prefilter_node_names is the plugin's PreFilter
// (the nodes a required affinity names by metadata.name).
//
// Complexity O(t · r · log n) for t terms of r requirements and n node labels. Allocation: none
// when matching. No exceptions; thread-safe.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_NODE_AFFINITY_HPP
#define PREEMPT_KUBERNETES_NODE_AFFINITY_HPP

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/kubernetes/labels.hpp"
#include "preempt/kubernetes/result.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes {

inline constexpr std::string_view node_affinity_reason =
    "node(s) didn't match Pod's node affinity/selector";

struct node_selector_requirement {
  std::string key;
  std::string op;  // In, NotIn, Exists, DoesNotExist, Gt, Lt
  std::vector<std::string> values;
};

struct node_selector_term {
  std::vector<node_selector_requirement> match_expressions;
  std::vector<node_selector_requirement> match_fields;
};

struct node_selector {
  std::vector<node_selector_term> terms;
};

namespace detail {

inline std::optional<std::int64_t> parse_int64(std::string_view s) noexcept {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// Validates one requirement; `field` selects the matchFields rules.
inline result<void> check_requirement(const node_selector_requirement& r, bool field) {
  const auto fail = [&](std::string what) {
    what += " (key \"";
    what += r.key;
    what += "\", operator \"";
    what += r.op;
    what += "\")";
    return result<void>(error{std::move(what)});
  };
  if (field) {
    if (r.key != "metadata.name") return fail("matchFields supports only metadata.name");
    if (r.op != "In" && r.op != "NotIn") return fail("matchFields supports only In and NotIn");
    if (r.values.size() != 1) return fail("matchFields needs exactly one value");
    return {};
  }
  if (!is_valid_label_key(r.key)) return fail("invalid label key");
  if (r.op == "In" || r.op == "NotIn") {
    if (r.values.empty()) return fail("values must be non-empty");
  } else if (r.op == "Exists" || r.op == "DoesNotExist") {
    if (!r.values.empty()) return fail("values must be empty");
  } else if (r.op == "Gt" || r.op == "Lt") {
    if (r.values.size() != 1 || !parse_int64(r.values[0])) return fail("needs one integer value");
  } else {
    return fail("unknown operator");
  }
  return {};
}

inline bool listed(const std::vector<std::string>& values, std::string_view v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

inline bool requirement_holds(const node_selector_requirement& r, const label_set& labels) {
  const std::string* value = labels.find(r.key);
  if (r.op == "In") return value != nullptr && listed(r.values, *value);
  if (r.op == "NotIn") return value == nullptr || !listed(r.values, *value);
  if (r.op == "Exists") return value != nullptr;
  if (r.op == "DoesNotExist") return value == nullptr;
  if (value == nullptr) return false;  // Gt, Lt
  const auto have = parse_int64(*value);
  const auto want = parse_int64(r.values.front());
  if (!have || !want) return false;
  return r.op == "Gt" ? *have > *want : *have < *want;
}

}  // namespace detail

inline result<void> validate(const node_selector_term& term) {
  for (const auto& r : term.match_expressions)
    if (auto c = detail::check_requirement(r, false); !c) return c;
  for (const auto& r : term.match_fields)
    if (auto c = detail::check_requirement(r, true); !c) return c;
  return {};
}

inline result<void> validate(const node_selector& sel) {
  for (const node_selector_term& t : sel.terms)
    if (auto c = validate(t); !c) return c;
  return {};
}

// Whether a term matches the node (an invalid or empty term never does).
inline bool matches(const node_selector_term& term, const label_set& node_labels,
                    std::string_view node_name) {
  if (term.match_expressions.empty() && term.match_fields.empty()) return false;
  if (!validate(term)) return false;
  for (const auto& r : term.match_expressions)
    if (!detail::requirement_holds(r, node_labels)) return false;
  for (const auto& r : term.match_fields) {
    const bool in = detail::listed(r.values, node_name);
    if (r.op == "In" ? !in : in) return false;
  }
  return true;
}

// Whether any term matches (an empty list of terms matches nothing).
inline bool matches(const node_selector& sel, const label_set& node_labels,
                    std::string_view node_name) {
  return std::any_of(sel.terms.begin(), sel.terms.end(), [&](const node_selector_term& t) {
    return matches(t, node_labels, node_name);
  });
}

// The NodeAffinity filter: nodeSelector, then the required node affinity if any.
inline bool matches_node_selector_and_affinity(
    const std::vector<std::pair<std::string, std::string>>& node_selector_map,
    const std::optional<node_selector>& required_affinity, const label_set& node_labels,
    std::string_view node_name) {
  for (const auto& [k, v] : node_selector_map) {
    const std::string* value = node_labels.find(k);
    if (value == nullptr || *value != v) return false;
  }
  return !required_affinity || matches(*required_affinity, node_labels, node_name);
}

// NodeAffinity's PreFilter: when every term of the required node affinity names nodes
// (matchFields metadata.name In, intersected within a term), the union of those names; the
// scheduler then filters only those nodes and gives every other one
// `prefilter_node_affinity_reason` (UnschedulableAndUnresolvable). nullopt: every node is filtered
// (no required affinity, no terms, or a term naming no node). An empty list: the terms conflict.
inline std::optional<std::vector<std::string>> prefilter_node_names(
    const std::optional<node_selector>& required_affinity) {
  if (!required_affinity || required_affinity->terms.empty()) return std::nullopt;
  std::vector<std::string> names;
  for (const node_selector_term& t : required_affinity->terms) {
    std::optional<std::vector<std::string>> term_names;
    for (const node_selector_requirement& r : t.match_fields) {
      if (r.key != "metadata.name" || r.op != "In") continue;
      std::vector<std::string> values = r.values;
      std::sort(values.begin(), values.end());
      values.erase(std::unique(values.begin(), values.end()), values.end());
      if (!term_names) {
        term_names = std::move(values);
      } else {
        std::vector<std::string> both;
        std::set_intersection(term_names->begin(), term_names->end(), values.begin(), values.end(),
                              std::back_inserter(both));
        term_names = std::move(both);
      }
    }
    if (!term_names) return std::nullopt;  // this term names no node: every node is eligible
    names.insert(names.end(), term_names->begin(), term_names->end());
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

inline constexpr std::string_view prefilter_node_affinity_reason =
    "node(s) didn't satisfy plugin(s) [NodeAffinity]";

}  // namespace kubernetes
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_NODE_AFFINITY_HPP
