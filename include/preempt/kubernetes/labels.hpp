// preempt/kubernetes/labels.hpp - label sets and label selectors (metav1.LabelSelector).
//
// `label_set` is a pod's or node's labels, sorted by key for O(log n) look-up.
// `label_selector` is `matchLabels` plus `matchExpressions` with the operators In, NotIn, Exists
// and DoesNotExist. Semantics follow Kubernetes' LabelSelectorAsSelector and labels.Requirement:
//   validate(sel)        the errors LabelSelectorAsSelector reports: unknown operator, In/NotIn
//                        without values, Exists/DoesNotExist with values, a key that is not a
//                        qualified name, a value that is not a valid label value
//   matches(sel, labels) every requirement holds; an empty selector matches everything
//   budget_selects(sel, labels)   the PodDisruptionBudget reading used by preemption
//                        (filterPodsWithPDBViolation): an invalid or empty selector matches
//                        nothing, and a pod without labels matches no budget
//   budget_selects(sel, labels, profile)  the same as the release `profile` reads it
//                        (preempt/upstream_profile.hpp): from kubernetes_1_38 on, an empty
//                        selector matches every pod and unlabelled pods are matched like others
//                        (a PDB without any selector, nil, still matches nothing)
//
// Complexity: matches is O(r log n) for r requirements and n labels. Allocation: building sets
// and selectors. No exceptions; const functions are thread-safe.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_LABELS_HPP
#define PREEMPT_KUBERNETES_LABELS_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/kubernetes/result.hpp"
#include "preempt/upstream_profile.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes {

class label_set {
 public:
  using entry = std::pair<std::string, std::string>;

  label_set() = default;
  label_set(std::initializer_list<entry> entries) {
    for (const entry& e : entries) set(e.first, e.second);
  }

  // Sets a label (replacing an earlier value of the key).
  void set(std::string key, std::string value) {
    const auto it = lower(key);
    if (it != entries_.end() && it->first == key)
      it->second = std::move(value);
    else
      entries_.emplace(it, std::move(key), std::move(value));
  }

  // The value of a key, or nullptr.
  const std::string* find(std::string_view key) const noexcept {
    const auto it =
        std::lower_bound(entries_.begin(), entries_.end(), key,
                         [](const entry& e, std::string_view k) { return e.first < k; });
    return it != entries_.end() && it->first == key ? &it->second : nullptr;
  }

  bool empty() const noexcept { return entries_.empty(); }
  std::size_t size() const noexcept { return entries_.size(); }
  auto begin() const noexcept { return entries_.begin(); }
  auto end() const noexcept { return entries_.end(); }
  void reserve(std::size_t n) { entries_.reserve(n); }

 private:
  std::vector<entry>::iterator lower(std::string_view key) {
    return std::lower_bound(entries_.begin(), entries_.end(), key,
                            [](const entry& e, std::string_view k) { return e.first < k; });
  }
  std::vector<entry> entries_;
};

enum class selector_operator : std::uint8_t { in, not_in, exists, does_not_exist, invalid };

// "In" → in, ...; anything else → invalid (validate reports it).
constexpr selector_operator parse_selector_operator(std::string_view name) noexcept {
  if (name == "In") return selector_operator::in;
  if (name == "NotIn") return selector_operator::not_in;
  if (name == "Exists") return selector_operator::exists;
  if (name == "DoesNotExist") return selector_operator::does_not_exist;
  return selector_operator::invalid;
}

struct label_requirement {
  std::string key;
  selector_operator op = selector_operator::invalid;
  std::vector<std::string> values;
};

struct label_selector {
  std::vector<std::pair<std::string, std::string>> match_labels;
  std::vector<label_requirement> match_expressions;

  bool empty() const noexcept { return match_labels.empty() && match_expressions.empty(); }
};

namespace detail {

inline bool is_alnum(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], at most 63 characters, non-empty.
inline bool is_qualified_name_part(std::string_view s) noexcept {
  if (s.empty() || s.size() > 63 || !is_alnum(s.front()) || !is_alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return is_alnum(c) || c == '-' || c == '_' || c == '.'; });
}

// A DNS-1123 subdomain: lowercase alphanumerics, '-' and '.', alphanumeric at both ends of each
// label, at most 253 characters.
inline bool is_dns_subdomain(std::string_view s) noexcept {
  if (s.empty() || s.size() > 253) return false;
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = s.find('.', start);
    const std::string_view label =
        s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    const auto lower_alnum = [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    };
    if (label.empty() || !lower_alnum(label.front()) || !lower_alnum(label.back())) return false;
    if (!std::all_of(label.begin(), label.end(),
                     [&](char c) { return lower_alnum(c) || c == '-'; }))
      return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

}  // namespace detail

// Kubernetes IsQualifiedName: [prefix/]name.
inline bool is_valid_label_key(std::string_view key) noexcept {
  const std::size_t slash = key.find('/');
  if (slash == std::string_view::npos) return detail::is_qualified_name_part(key);
  if (key.find('/', slash + 1) != std::string_view::npos) return false;
  return detail::is_dns_subdomain(key.substr(0, slash)) &&
         detail::is_qualified_name_part(key.substr(slash + 1));
}

// Kubernetes IsValidLabelValue: empty, or a qualified-name part.
inline bool is_valid_label_value(std::string_view value) noexcept {
  return value.empty() || detail::is_qualified_name_part(value);
}

// The errors Kubernetes' LabelSelectorAsSelector reports for this selector (the first one).
inline result<void> validate(const label_selector& sel) {
  const auto fail = [](std::string what, std::string_view subject) {
    what += " \"";
    what += subject;
    what += '"';
    return result<void>(error{std::move(what)});
  };
  for (const auto& [k, v] : sel.match_labels) {
    if (!is_valid_label_key(k)) return fail("invalid label key", k);
    if (!is_valid_label_value(v)) return fail("invalid label value", v);
  }
  for (const label_requirement& r : sel.match_expressions) {
    if (!is_valid_label_key(r.key)) return fail("invalid label key", r.key);
    switch (r.op) {
      case selector_operator::in:
      case selector_operator::not_in:
        if (r.values.empty())
          return fail("values must be non-empty for operator In/NotIn of key", r.key);
        break;
      case selector_operator::exists:
      case selector_operator::does_not_exist:
        if (!r.values.empty())
          return fail("values must be empty for operator Exists/DoesNotExist of key", r.key);
        break;
      case selector_operator::invalid:
        return fail("operator must be In, NotIn, Exists or DoesNotExist for key", r.key);
    }
    for (const std::string& v : r.values)
      if (!is_valid_label_value(v)) return fail("invalid label value", v);
  }
  return {};
}

// Whether one requirement holds for the labels (labels.Requirement.Matches).
inline bool matches(const label_requirement& r, const label_set& labels) {
  const std::string* value = labels.find(r.key);
  const auto listed = [&] {
    return value != nullptr &&
           std::find(r.values.begin(), r.values.end(), *value) != r.values.end();
  };
  switch (r.op) {
    case selector_operator::in: return listed();
    case selector_operator::not_in: return !listed();
    case selector_operator::exists: return value != nullptr;
    case selector_operator::does_not_exist: return value == nullptr;
    case selector_operator::invalid: return false;
  }
  return false;
}

// Whether the labels satisfy every requirement. Expects a valid selector; an empty one matches
// everything (Kubernetes' labels.Everything()).
inline bool matches(const label_selector& sel, const label_set& labels) {
  for (const auto& [k, v] : sel.match_labels) {
    const std::string* value = labels.find(k);
    if (value == nullptr || *value != v) return false;
  }
  return std::all_of(sel.match_expressions.begin(), sel.match_expressions.end(),
                     [&](const label_requirement& r) { return matches(r, labels); });
}

// A PodDisruptionBudget's selector as preemption reads it: an invalid or empty selector matches
// nothing, and a pod without labels matches no budget.
inline bool budget_selects(const label_selector& sel, const label_set& pod_labels) {
  if (pod_labels.empty() || sel.empty() || !validate(sel)) return false;
  return matches(sel, pod_labels);
}

// The same as the release `profile` reads it: v1.38 (kubernetes/kubernetes#141785) converts the
// selector as the API does, so `{}` selects every pod of the namespace and a pod without labels
// is matched like any other; only an invalid selector matches nothing.
inline bool budget_selects(const label_selector& sel, const label_set& pod_labels,
                           upstream_profile profile) {
  if (!::preempt::budgets_select_unlabelled_pods(profile))
    return ::preempt::kubernetes::budget_selects(sel, pod_labels);
  if (!validate(sel)) return false;
  return matches(sel, pod_labels);
}

}  // namespace kubernetes
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_LABELS_HPP
