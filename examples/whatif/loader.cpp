// examples/whatif/loader.cpp - JSON → cluster_dump (see loader.hpp).
//
// SPDX-License-Identifier: Apache-2.0
#include "loader.hpp"

#include "json_error.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace whatif {

namespace dom = simdjson::dom;

namespace {

// The largest resource amount accepted: sums of many such amounts stay far from overflow
// (analyze() also checks the totals per node).
constexpr std::int64_t max_amount = std::int64_t{1} << 62;

std::string_view type_name(dom::element_type t) {
  switch (t) {
    case dom::element_type::ARRAY: return "an array";
    case dom::element_type::OBJECT: return "an object";
    case dom::element_type::INT64:
    case dom::element_type::UINT64:
    case dom::element_type::DOUBLE: return "a number";
    case dom::element_type::STRING: return "a string";
    case dom::element_type::BOOL: return "a boolean";
    case dom::element_type::NULL_VALUE: return "null";
  }
  return "a value";
}

// Reads fields of one object with an error context: which file, which object, which field.
// Every read_* returns false after recording the first error; later reads are not attempted by
// the callers (they test `ok()`), so the message is about the first problem found.
class extractor {
 public:
  extractor(std::string_view file, std::string_view kind, std::size_t item, bool in_list)
      : file_(file), kind_(kind), item_(item), in_list_(in_list) {
    path_.reserve(16);
  }

  void identify(std::string_view ns, std::string_view name) {
    ns_ = ns;
    name_ = name;
  }

  bool ok() const noexcept { return !error_; }
  std::optional<load_error> take_error() { return std::move(error_); }

  // A path segment that pops itself.
  class scope {
   public:
    explicit scope(extractor& x) : x_(x) {}
    scope(const scope&) = delete;
    scope& operator=(const scope&) = delete;
    ~scope() { x_.path_.pop_back(); }

   private:
    extractor& x_;
  };
  [[nodiscard]] scope field(std::string_view key) {
    path_.push_back({key, 0, false});
    return scope(*this);
  }
  [[nodiscard]] scope index(std::size_t i) {
    path_.push_back({{}, i, true});
    return scope(*this);
  }

  bool fail(std::string_view problem) {
    if (error_) return false;
    std::string m(file_);
    m += ": ";
    m += kind_;
    m += ' ';
    if (!name_.empty()) {
      if (!ns_.empty()) {
        m += ns_;
        m += '/';
      }
      m += name_;
    } else {
      m += in_list_ ? "items[" + std::to_string(item_) + "]" : std::string("(unnamed)");
    }
    std::string path = render_path();
    if (!path.empty()) {
      m += ": ";
      m += path;
    }
    m += ": ";
    m += problem;
    error_ = load_error{std::move(m)};
    return false;
  }

  bool wrong_type(dom::element e, std::string_view expected) {
    std::string p = "expected ";
    p += expected;
    p += ", found ";
    p += type_name(e.type());
    return fail(p);
  }

  bool read_object(dom::element e, dom::object& out) {
    if (e.get_object().get(out) != simdjson::SUCCESS) return wrong_type(e, "an object");
    return true;
  }
  bool read_array(dom::element e, dom::array& out) {
    if (e.get_array().get(out) != simdjson::SUCCESS) return wrong_type(e, "an array");
    return true;
  }
  bool read_string(dom::element e, std::string_view& out) {
    if (e.get_string().get(out) != simdjson::SUCCESS) return wrong_type(e, "a string");
    return true;
  }
  bool read_string(dom::element e, std::string& out) {
    std::string_view v;
    if (!read_string(e, v)) return false;
    out.assign(v);
    return true;
  }
  bool read_bool(dom::element e, bool& out) {
    if (e.get_bool().get(out) != simdjson::SUCCESS) return wrong_type(e, "a boolean");
    return true;
  }
  bool read_int32(dom::element e, std::int32_t& out) {
    std::int64_t v = 0;
    if (e.type() == dom::element_type::DOUBLE || e.type() == dom::element_type::UINT64 ||
        e.get_int64().get(v) != simdjson::SUCCESS) {
      if (e.is_number()) return fail("expected a 32-bit integer");
      return wrong_type(e, "an integer");
    }
    if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max())
      return fail("expected a 32-bit integer, found " + std::to_string(v));
    out = static_cast<std::int32_t>(v);
    return true;
  }
  // A quantity: a JSON string (surrounding spaces trimmed, as Kubernetes does) or a number.
  bool read_quantity(dom::element e, std::string_view resource, std::int64_t& out) {
    std::string text;
    switch (e.type()) {
      case dom::element_type::STRING: {
        std::string_view s;
        if (e.get_string().get(s) != simdjson::SUCCESS) return wrong_type(e, "a string");
        const auto first = s.find_first_not_of(" \t\r\n");
        const auto last = s.find_last_not_of(" \t\r\n");
        text = first == std::string_view::npos ? std::string() : std::string(s.substr(first, last - first + 1));
        break;
      }
      case dom::element_type::INT64: {
        std::int64_t v = 0;
        if (e.get_int64().get(v) != simdjson::SUCCESS) return wrong_type(e, "a number");
        text = std::to_string(v);
        break;
      }
      case dom::element_type::UINT64: {
        std::uint64_t v = 0;
        if (e.get_uint64().get(v) != simdjson::SUCCESS) return wrong_type(e, "a number");
        text = std::to_string(v);
        break;
      }
      case dom::element_type::DOUBLE: {
        double v = 0;
        if (e.get_double().get(v) != simdjson::SUCCESS) return wrong_type(e, "a number");
        std::array<char, 64> buf{};
        const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
        text.assign(buf.data(), r.ptr);
        break;
      }
      default: return wrong_type(e, "a quantity (a string such as \"500m\" or \"1Gi\", or a number)");
    }
    auto amount = k8s::resource_amount(resource, text);
    if (!amount) return fail(amount.message());
    out = *amount;
    return true;
  }
  // A JSON object of string values (labels, nodeSelector, ...).
  template <class F>
  bool read_string_map(dom::element e, F&& each) {
    dom::object o;
    if (!read_object(e, o)) return false;
    for (dom::key_value_pair kv : o) {
      auto s = field(kv.key);
      std::string_view v;
      if (kv.value.is_null()) continue;
      if (!read_string(kv.value, v)) return false;
      each(kv.key, v);
    }
    return true;
  }
  bool read_resource_list(dom::element e, k8s::resource_list& out) {
    dom::object o;
    if (!read_object(e, o)) return false;
    for (dom::key_value_pair kv : o) {
      auto s = field(kv.key);
      if (kv.value.is_null()) continue;
      std::int64_t amount = 0;
      if (!read_quantity(kv.value, kv.key, amount)) return false;
      if (amount < 0) return fail("must not be negative");
      if (amount > max_amount) return fail("too large (more than 2^62)");
      out.set(kv.key, amount);
    }
    return true;
  }
  bool read_time(dom::element e, std::optional<preempt::timestamp>& out) {
    std::string_view s;
    if (!read_string(e, s)) return false;
    auto t = k8s::parse_time(s);
    if (!t) return fail(t.message());
    out = *t;
    return true;
  }

 private:
  struct segment {
    std::string_view key;
    std::size_t index;
    bool is_index;
  };

  std::string render_path() const {
    std::string p;
    for (const segment& s : path_) {
      if (s.is_index) {
        p += '[';
        p += std::to_string(s.index);
        p += ']';
      } else {
        if (!p.empty()) p += '.';
        p += s.key;
      }
    }
    return p;
  }

  std::string_view file_;
  std::string_view kind_;
  std::size_t item_;
  bool in_list_;
  std::string_view ns_, name_;
  std::vector<segment> path_;
  std::optional<load_error> error_;
};

// Looks up a key; false (and no error) when it is absent or null.
bool member(dom::object o, std::string_view key, dom::element& out) {
  if (o.at_key(key).get(out) != simdjson::SUCCESS) return false;
  return !out.is_null();
}

// metadata.name and metadata.namespace (namespaced objects).
bool read_metadata(extractor& x, dom::object obj, bool namespaced, std::string_view default_ns,
                   std::string& ns, std::string& name, dom::object& metadata) {
  dom::element e;
  if (!member(obj, "metadata", e)) {
    auto f = x.field("metadata");
    return x.fail("missing");
  }
  {
    auto f = x.field("metadata");
    if (!x.read_object(e, metadata)) return false;
  }
  {
    auto f = x.field("metadata");
    auto g = x.field("name");
    dom::element n;
    if (!member(metadata, "name", n)) return x.fail("missing");
    if (!x.read_string(n, name)) return false;
    if (name.empty()) return x.fail("empty");
  }
  if (namespaced) {
    dom::element n;
    if (member(metadata, "namespace", n)) {
      auto f = x.field("metadata");
      auto g = x.field("namespace");
      if (!x.read_string(n, ns)) return false;
    }
    if (ns.empty()) ns = default_ns;
  }
  x.identify(ns, name);
  return true;
}

bool read_labels(extractor& x, dom::object metadata, k8s::label_set& labels) {
  dom::element e;
  if (!member(metadata, "labels", e)) return true;
  auto f = x.field("metadata");
  auto g = x.field("labels");
  return x.read_string_map(e, [&](std::string_view k, std::string_view v) {
    labels.set(std::string(k), std::string(v));
  });
}

bool read_container(extractor& x, dom::element e, k8s::container_resources& out, bool init) {
  dom::object c;
  if (!x.read_object(e, c)) return false;
  dom::element r;
  if (member(c, "resources", r)) {
    auto f = x.field("resources");
    dom::object res;
    if (!x.read_object(r, res)) return false;
    dom::element v;
    if (member(res, "requests", v)) {
      auto g = x.field("requests");
      if (!x.read_resource_list(v, out.requests)) return false;
    }
    if (member(res, "limits", v)) {
      auto g = x.field("limits");
      if (!x.read_resource_list(v, out.limits)) return false;
    }
  }
  if (init && member(c, "restartPolicy", r)) {
    auto f = x.field("restartPolicy");
    std::string_view policy;
    if (!x.read_string(r, policy)) return false;
    out.restart_always = policy == "Always";
  }
  return true;
}

bool read_containers(extractor& x, dom::element e, std::string_view key,
                     std::vector<k8s::container_resources>& out, bool init) {
  auto f = x.field(key);
  dom::array a;
  if (!x.read_array(e, a)) return false;
  std::size_t i = 0;
  for (dom::element c : a) {
    auto g = x.index(i++);
    out.emplace_back();
    if (!read_container(x, c, out.back(), init)) return false;
  }
  return true;
}

bool read_strings(extractor& x, dom::element e, std::vector<std::string>& out) {
  dom::array a;
  if (!x.read_array(e, a)) return false;
  std::size_t i = 0;
  for (dom::element v : a) {
    auto g = x.index(i++);
    out.emplace_back();
    if (!x.read_string(v, out.back())) return false;
  }
  return true;
}

bool read_node_requirements(extractor& x, dom::object term, std::string_view key,
                            std::vector<k8s::node_selector_requirement>& out) {
  dom::element e;
  if (!member(term, key, e)) return true;
  auto f = x.field(key);
  dom::array a;
  if (!x.read_array(e, a)) return false;
  std::size_t i = 0;
  for (dom::element r : a) {
    auto g = x.index(i++);
    dom::object o;
    if (!x.read_object(r, o)) return false;
    k8s::node_selector_requirement req;
    dom::element v;
    if (member(o, "key", v)) {
      auto h = x.field("key");
      if (!x.read_string(v, req.key)) return false;
    }
    if (member(o, "operator", v)) {
      auto h = x.field("operator");
      if (!x.read_string(v, req.op)) return false;
    }
    if (member(o, "values", v)) {
      auto h = x.field("values");
      if (!read_strings(x, v, req.values)) return false;
    }
    out.push_back(std::move(req));
  }
  return true;
}

bool read_affinity(extractor& x, dom::element e, pod_object& pod) {
  dom::object aff;
  if (!x.read_object(e, aff)) return false;
  dom::element v;
  pod.pod_affinity = member(aff, "podAffinity", v);
  pod.pod_anti_affinity = member(aff, "podAntiAffinity", v);
  if (!member(aff, "nodeAffinity", v)) return true;
  auto f = x.field("nodeAffinity");
  dom::object na;
  if (!x.read_object(v, na)) return false;
  dom::element req;
  if (!member(na, "requiredDuringSchedulingIgnoredDuringExecution", req)) return true;
  auto g = x.field("requiredDuringSchedulingIgnoredDuringExecution");
  dom::object sel;
  if (!x.read_object(req, sel)) return false;
  k8s::node_selector ns;
  dom::element terms;
  if (member(sel, "nodeSelectorTerms", terms)) {
    auto h = x.field("nodeSelectorTerms");
    dom::array a;
    if (!x.read_array(terms, a)) return false;
    std::size_t i = 0;
    for (dom::element t : a) {
      auto k = x.index(i++);
      dom::object to;
      if (!x.read_object(t, to)) return false;
      k8s::node_selector_term term;
      if (!read_node_requirements(x, to, "matchExpressions", term.match_expressions) ||
          !read_node_requirements(x, to, "matchFields", term.match_fields))
        return false;
      if (auto valid = k8s::validate(term); !valid) return x.fail(valid.message());
      ns.terms.push_back(std::move(term));
    }
  }
  pod.placement.required_node_affinity = std::move(ns);
  return true;
}

bool read_tolerations(extractor& x, dom::element e, std::vector<k8s::toleration>& out) {
  dom::array a;
  if (!x.read_array(e, a)) return false;
  std::size_t i = 0;
  for (dom::element t : a) {
    auto g = x.index(i++);
    dom::object o;
    if (!x.read_object(t, o)) return false;
    k8s::toleration tol;
    const std::pair<std::string_view, std::string*> fields[] = {
        {"key", &tol.key}, {"operator", &tol.op}, {"value", &tol.value}, {"effect", &tol.effect}};
    for (const auto& [k, dst] : fields) {
      dom::element v;
      if (!member(o, k, v)) continue;
      auto h = x.field(k);
      if (!x.read_string(v, *dst)) return false;
    }
    out.push_back(std::move(tol));
  }
  return true;
}

// One pass over spec; the fields that need more work are kept and read afterwards. Placement
// (nodeSelector, affinity, tolerations) is read only for pods without spec.nodeName, or when
// `always_placement` is set (the preemptor).
bool read_pod_spec(extractor& x, dom::object spec, pod_object& pod, bool always_placement) {
  auto f = x.field("spec");
  k8s::pod_resources res;
  dom::element containers, init_containers, node_selector, affinity, tolerations;
  bool has_containers = false, has_init = false, has_selector = false, has_affinity = false,
       has_tolerations = false;
  for (dom::key_value_pair kv : spec) {
    const std::string_view key = kv.key;
    if (kv.value.is_null()) continue;
    if (key == "containers") {
      containers = kv.value;
      has_containers = true;
    } else if (key == "initContainers") {
      init_containers = kv.value;
      has_init = true;
    } else if (key == "nodeName") {
      auto g = x.field(key);
      if (!x.read_string(kv.value, pod.node_name)) return false;
    } else if (key == "priority") {
      auto g = x.field(key);
      std::int32_t p = 0;
      if (!x.read_int32(kv.value, p)) return false;
      pod.priority.priority = p;
    } else if (key == "priorityClassName") {
      auto g = x.field(key);
      if (!x.read_string(kv.value, pod.priority.priority_class_name)) return false;
    } else if (key == "preemptionPolicy") {
      auto g = x.field(key);
      std::string_view v;
      if (!x.read_string(kv.value, v)) return false;
      auto policy = k8s::parse_preemption_policy(v);
      if (!policy) return x.fail(policy.message());
      pod.priority.policy = *policy;
    } else if (key == "overhead") {
      auto g = x.field(key);
      if (!x.read_resource_list(kv.value, res.overhead)) return false;
    } else if (key == "resources") {
      // Pod-level resources (Kubernetes 1.34+), see kubernetes/requests.hpp.
      auto g = x.field(key);
      dom::object o;
      if (!x.read_object(kv.value, o)) return false;
      k8s::container_resources level;
      dom::element v;
      if (member(o, "requests", v)) {
        auto h = x.field("requests");
        if (!x.read_resource_list(v, level.requests)) return false;
      }
      if (member(o, "limits", v)) {
        auto h = x.field("limits");
        if (!x.read_resource_list(v, level.limits)) return false;
      }
      res.pod_level = std::move(level);
    } else if (key == "topologySpreadConstraints") {
      dom::array a;
      pod.topology_spread = kv.value.get_array().get(a) == simdjson::SUCCESS && a.size() > 0;
    } else if (key == "nodeSelector") {
      node_selector = kv.value;
      has_selector = true;
    } else if (key == "affinity") {
      affinity = kv.value;
      has_affinity = true;
    } else if (key == "tolerations") {
      tolerations = kv.value;
      has_tolerations = true;
    }
  }
  if (has_containers && !read_containers(x, containers, "containers", res.containers, false))
    return false;
  if (has_init && !read_containers(x, init_containers, "initContainers", res.init_containers, true))
    return false;
  pod.requests = k8s::effective_requests(res);
  if (!always_placement && !pod.node_name.empty()) return true;
  if (has_selector) {
    auto g = x.field("nodeSelector");
    if (!x.read_string_map(node_selector, [&](std::string_view k, std::string_view val) {
          pod.placement.node_selector_map.emplace_back(std::string(k), std::string(val));
        }))
      return false;
  }
  if (has_affinity) {
    auto g = x.field("affinity");
    if (!read_affinity(x, affinity, pod)) return false;
  }
  if (has_tolerations) {
    auto g = x.field("tolerations");
    if (!read_tolerations(x, tolerations, pod.placement.tolerations)) return false;
  }
  pod.placement.node_name = pod.node_name;
  return true;
}

bool read_pod_status(extractor& x, dom::object status, pod_object& pod,
                     std::vector<k8s::pod_condition>& conditions) {
  auto f = x.field("status");
  for (dom::key_value_pair kv : status) {
    const std::string_view key = kv.key;
    if (kv.value.is_null()) continue;
    if (key == "phase") {
      auto g = x.field(key);
      if (!x.read_string(kv.value, pod.phase)) return false;
    } else if (key == "nominatedNodeName") {
      auto g = x.field(key);
      if (!x.read_string(kv.value, pod.nominated_node_name)) return false;
    } else if (key == "startTime") {
      auto g = x.field(key);
      if (!x.read_time(kv.value, pod.start_time)) return false;
    } else if (key == "conditions" && pod.deleting) {
      // Only read for terminating pods: they tell whether the termination is a preemption.
      auto g = x.field(key);
      dom::array a;
      if (!x.read_array(kv.value, a)) return false;
      std::size_t i = 0;
      for (dom::element c : a) {
        auto h = x.index(i++);
        dom::object o;
        if (!x.read_object(c, o)) return false;
        k8s::pod_condition cond;
        const std::pair<std::string_view, std::string*> fields[] = {
            {"type", &cond.type}, {"status", &cond.status}, {"reason", &cond.reason}};
        for (const auto& [k, dst] : fields) {
          dom::element v;
          if (!member(o, k, v)) continue;
          auto j = x.field(k);
          if (!x.read_string(v, *dst)) return false;
        }
        conditions.push_back(std::move(cond));
      }
    }
  }
  return true;
}

bool read_pod_object(extractor& x, dom::object obj, pod_object& pod, bool full_placement) {
  dom::object metadata;
  if (!read_metadata(x, obj, true, "default", pod.ns, pod.name, metadata)) return false;
  if (!read_labels(x, metadata, pod.labels)) return false;
  dom::element e;
  if (member(metadata, "deletionTimestamp", e)) {
    auto f = x.field("metadata");
    auto g = x.field("deletionTimestamp");
    std::optional<preempt::timestamp> t;
    if (!x.read_time(e, t)) return false;
    pod.deleting = true;
  }
  dom::object spec;
  if (member(obj, "spec", e)) {
    {
      auto f = x.field("spec");
      if (!x.read_object(e, spec)) return false;
    }
    if (!read_pod_spec(x, spec, pod, full_placement)) return false;
  } else {
    auto f = x.field("spec");
    return x.fail("missing");
  }
  std::vector<k8s::pod_condition> conditions;
  if (member(obj, "status", e)) {
    dom::object status;
    {
      auto f = x.field("status");
      if (!x.read_object(e, status)) return false;
    }
    if (!read_pod_status(x, status, pod, conditions)) return false;
  }
  pod.terminating_by_preemption = k8s::terminating_by_preemption(pod.deleting, conditions);
  return true;
}

bool read_node(extractor& x, dom::object obj, node_object& node) {
  std::string unused_ns;
  dom::object metadata;
  if (!read_metadata(x, obj, false, "", unused_ns, node.name, metadata)) return false;
  if (!read_labels(x, metadata, node.labels)) return false;
  dom::element e;
  if (member(obj, "spec", e)) {
    auto f = x.field("spec");
    dom::object spec;
    if (!x.read_object(e, spec)) return false;
    dom::element v;
    if (member(spec, "unschedulable", v)) {
      auto g = x.field("unschedulable");
      if (!x.read_bool(v, node.unschedulable)) return false;
    }
    if (member(spec, "taints", v)) {
      auto g = x.field("taints");
      dom::array a;
      if (!x.read_array(v, a)) return false;
      std::size_t i = 0;
      for (dom::element t : a) {
        auto h = x.index(i++);
        dom::object o;
        if (!x.read_object(t, o)) return false;
        k8s::taint taint;
        const std::pair<std::string_view, std::string*> fields[] = {
            {"key", &taint.key}, {"value", &taint.value}, {"effect", &taint.effect}};
        for (const auto& [k, dst] : fields) {
          dom::element fv;
          if (!member(o, k, fv)) continue;
          auto j = x.field(k);
          if (!x.read_string(fv, *dst)) return false;
        }
        node.taints.push_back(std::move(taint));
      }
    }
  }
  if (member(obj, "status", e)) {
    auto f = x.field("status");
    dom::object status;
    if (!x.read_object(e, status)) return false;
    dom::element v;
    // Kubernetes schedules against status.allocatable; a hand-written node may give capacity only.
    if (member(status, "allocatable", v)) {
      auto g = x.field("allocatable");
      if (!x.read_resource_list(v, node.allocatable)) return false;
    } else if (member(status, "capacity", v)) {
      auto g = x.field("capacity");
      if (!x.read_resource_list(v, node.allocatable)) return false;
    }
  }
  return true;
}

bool read_label_selector(extractor& x, dom::element e, k8s::label_selector& sel) {
  dom::object o;
  if (!x.read_object(e, o)) return false;
  dom::element v;
  if (member(o, "matchLabels", v)) {
    auto f = x.field("matchLabels");
    if (!x.read_string_map(v, [&](std::string_view k, std::string_view val) {
          sel.match_labels.emplace_back(std::string(k), std::string(val));
        }))
      return false;
  }
  if (member(o, "matchExpressions", v)) {
    auto f = x.field("matchExpressions");
    dom::array a;
    if (!x.read_array(v, a)) return false;
    std::size_t i = 0;
    for (dom::element r : a) {
      auto g = x.index(i++);
      dom::object ro;
      if (!x.read_object(r, ro)) return false;
      k8s::label_requirement req;
      dom::element fv;
      if (member(ro, "key", fv)) {
        auto h = x.field("key");
        if (!x.read_string(fv, req.key)) return false;
      }
      if (member(ro, "operator", fv)) {
        auto h = x.field("operator");
        std::string_view op;
        if (!x.read_string(fv, op)) return false;
        req.op = k8s::parse_selector_operator(op);
      }
      if (member(ro, "values", fv)) {
        auto h = x.field("values");
        if (!read_strings(x, fv, req.values)) return false;
      }
      sel.match_expressions.push_back(std::move(req));
    }
  }
  return true;
}

bool read_pdb(extractor& x, dom::object obj, pdb_object& pdb) {
  dom::object metadata;
  if (!read_metadata(x, obj, true, "default", pdb.ns, pdb.name, metadata)) return false;
  dom::element e;
  if (member(obj, "spec", e)) {
    auto f = x.field("spec");
    dom::object spec;
    if (!x.read_object(e, spec)) return false;
    dom::element v;
    if (member(spec, "selector", v)) {
      auto g = x.field("selector");
      k8s::label_selector sel;
      if (!read_label_selector(x, v, sel)) return false;
      pdb.selector = std::move(sel);
    }
  }
  if (member(obj, "status", e)) {
    auto f = x.field("status");
    dom::object status;
    if (!x.read_object(e, status)) return false;
    dom::element v;
    if (member(status, "disruptionsAllowed", v)) {
      auto g = x.field("disruptionsAllowed");
      if (!x.read_int32(v, pdb.disruptions_allowed)) return false;
    }
    if (member(status, "disruptedPods", v)) {
      auto g = x.field("disruptedPods");
      dom::object d;
      if (!x.read_object(v, d)) return false;
      for (dom::key_value_pair kv : d) pdb.disrupted_pods.emplace_back(kv.key);
    }
  }
  return true;
}

bool read_priority_class(extractor& x, dom::object obj, k8s::priority_class& pc) {
  std::string unused_ns;
  dom::object metadata;
  if (!read_metadata(x, obj, false, "", unused_ns, pc.name, metadata)) return false;
  dom::element v;
  {
    auto f = x.field("value");
    if (!member(obj, "value", v)) return x.fail("missing");
    if (!x.read_int32(v, pc.value)) return false;
  }
  if (member(obj, "globalDefault", v)) {
    auto f = x.field("globalDefault");
    if (!x.read_bool(v, pc.global_default)) return false;
  }
  if (member(obj, "preemptionPolicy", v)) {
    auto f = x.field("preemptionPolicy");
    std::string_view s;
    if (!x.read_string(v, s)) return false;
    auto policy = k8s::parse_preemption_policy(s);
    if (!policy) return x.fail(policy.message());
    pc.policy = *policy;
  }
  return true;
}

std::string syntax_error(const source& src, simdjson::error_code code) {
  std::string m = src.name;
  m += ": malformed JSON";
  const std::string_view text(src.text.data(), src.text.size());
  if (const auto e = find_json_error(text)) {
    m += " at ";
    m += format_json_error(text, *e);
  } else {
    m += ": ";
    m += simdjson::error_message(code);
  }
  return m;
}

// The items of a document: a List's items, an array's elements, or the object itself.
struct document_items {
  std::vector<dom::element> items;
  bool in_list = false;
};

std::optional<load_error> collect_items(const source& src, dom::element root, document_items& out) {
  dom::array arr;
  if (root.get_array().get(arr) == simdjson::SUCCESS) {
    out.in_list = true;
    for (dom::element e : arr) out.items.push_back(e);
    return std::nullopt;
  }
  dom::object obj;
  if (root.get_object().get(obj) != simdjson::SUCCESS)
    return load_error{src.name + ": expected a Kubernetes object or List, found " +
                      std::string(type_name(root.type()))};
  dom::element kind, items;
  std::string_view kind_name;
  if (member(obj, "kind", kind) && kind.get_string().get(kind_name) == simdjson::SUCCESS &&
      kind_name.size() >= 4 && kind_name.substr(kind_name.size() - 4) == "List") {
    if (!member(obj, "items", items))
      return load_error{src.name + ": " + std::string(kind_name) + ": items: missing"};
    if (items.get_array().get(arr) != simdjson::SUCCESS)
      return load_error{src.name + ": " + std::string(kind_name) + ": items: expected an array, found " +
                        std::string(type_name(items.type()))};
    out.in_list = true;
    for (dom::element e : arr) out.items.push_back(e);
    return std::nullopt;
  }
  out.items.push_back(root);
  return std::nullopt;
}

std::optional<load_error> item_kind(const source& src, dom::element item, std::size_t i,
                                    bool in_list, std::string_view default_kind,
                                    dom::object& obj, std::string_view& kind) {
  const std::string where = in_list ? "items[" + std::to_string(i) + "]" : std::string("document");
  if (item.get_object().get(obj) != simdjson::SUCCESS)
    return load_error{src.name + ": " + where + ": expected a Kubernetes object, found " +
                      std::string(type_name(item.type()))};
  dom::element k;
  if (!member(obj, "kind", k)) {
    if (default_kind.empty()) return load_error{src.name + ": " + where + ": kind: missing"};
    kind = default_kind;
    return std::nullopt;
  }
  if (k.get_string().get(kind) != simdjson::SUCCESS)
    return load_error{src.name + ": " + where + ": kind: expected a string, found " +
                      std::string(type_name(k.type()))};
  return std::nullopt;
}

}  // namespace

std::optional<load_error> read_source(const std::string& path, source& out) {
  out.name = path == "-" ? std::string("<stdin>") : path;
  if (path == "-") {
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    out.text = simdjson::padded_string(text);
    return std::nullopt;
  }
  auto loaded = simdjson::padded_string::load(path);
  if (loaded.error() != simdjson::SUCCESS) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    const std::string why = f == nullptr ? std::string(std::strerror(errno)) : "read error";
    if (f != nullptr) std::fclose(f);
    return load_error{path + ": cannot read: " + why};
  }
  out.text = std::move(loaded).value_unsafe();
  return std::nullopt;
}

source make_source(std::string name, std::string_view bytes) {
  return source{std::move(name), simdjson::padded_string(bytes)};
}

simdjson::error_code loader::parse(const source& src, dom::element& root) {
  const std::clock_t c0 = std::clock();
  const auto err = parser_.parse(src.text).get(root);
  parse_cpu_seconds_ += static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  return err;
}

std::optional<load_error> loader::add_cluster(const source& src, cluster_dump& dump) {
  dom::element root;
  if (const auto err = parse(src, root); err != simdjson::SUCCESS)
    return load_error{syntax_error(src, err)};
  document_items items;
  if (auto e = collect_items(src, root, items)) return e;
  const auto file = static_cast<std::uint32_t>(dump.files.size());
  dump.files.push_back(src.name);
  for (std::size_t i = 0; i < items.items.size(); ++i) {
    dom::object obj;
    std::string_view kind;
    if (auto e = item_kind(src, items.items[i], i, items.in_list, "", obj, kind)) return e;
    extractor x(src.name, kind, i, items.in_list);
    if (kind == "Pod") {
      pod_object pod;
      pod.file = file;
      pod.item = i;
      if (!read_pod_object(x, obj, pod, false)) return x.take_error();
      dump.pods.push_back(std::move(pod));
    } else if (kind == "Node") {
      node_object node;
      node.file = file;
      if (!read_node(x, obj, node)) return x.take_error();
      dump.nodes.push_back(std::move(node));
    } else if (kind == "PodDisruptionBudget") {
      pdb_object pdb;
      pdb.file = file;
      if (!read_pdb(x, obj, pdb)) return x.take_error();
      dump.pdbs.push_back(std::move(pdb));
    } else if (kind == "PriorityClass") {
      k8s::priority_class pc;
      if (!read_priority_class(x, obj, pc)) return x.take_error();
      dump.classes.push_back(std::move(pc));
      dump.class_files.push_back(file);
    } else {
      ++dump.other_objects;
    }
  }
  return std::nullopt;
}

std::optional<load_error> loader::read_pod(const source& src, pod_object& out) {
  dom::element root;
  if (const auto err = parse(src, root); err != simdjson::SUCCESS)
    return load_error{syntax_error(src, err)};
  document_items items;
  if (auto e = collect_items(src, root, items)) return e;
  if (items.items.size() != 1)
    return load_error{src.name + ": expected one Pod, found " + std::to_string(items.items.size()) +
                      " objects"};
  dom::object obj;
  std::string_view kind;
  if (auto e = item_kind(src, items.items[0], 0, items.in_list, "Pod", obj, kind)) return e;
  if (kind != "Pod")
    return load_error{src.name + ": expected a Pod, found kind " + std::string(kind)};
  extractor x(src.name, kind, 0, items.in_list);
  out = pod_object{};
  out.source = src.name;
  if (!read_pod_object(x, obj, out, true)) return x.take_error();
  return std::nullopt;
}

}  // namespace whatif
