// examples/whatif/decode/admission.cpp - see admission.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "decode/admission.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "output/one_line.hpp"

namespace whatif {

namespace {

constexpr std::string_view not_ready_key = "node.kubernetes.io/not-ready";
constexpr std::string_view unreachable_key = "node.kubernetes.io/unreachable";

std::string where(const pod_object& pod) { return pod.source + ": Pod " + pod.key(); }

// A LimitRange's defaults for containers: defaultRequest, completed as SetDefaults_LimitRangeItem
// completes a Container item (default from max, defaultRequest from default, then from min);
// later Container items win, as in LimitRanger's defaultContainerResourceRequirements.
k8s::resource_list container_default_requests(const limit_range_object& range) {
  k8s::resource_list out;
  for (const limit_range_object::item& item : range.limits) {
    if (item.type != "Container") continue;
    k8s::resource_list limit = item.default_limit;
    for (const auto& [n, a] : item.max)
      if (!limit.contains(n)) limit.set(n, a);
    k8s::resource_list request = item.default_request;
    for (const auto& [n, a] : limit)
      if (!request.contains(n)) request.set(n, a);
    for (const auto& [n, a] : item.min)
      if (!request.contains(n)) request.set(n, a);
    for (const auto& [n, a] : request) out.set(n, a);
  }
  return out;
}

// A LimitRange's default limits for containers: default, completed from max
// (SetDefaults_LimitRangeItem), later Container items winning.
k8s::resource_list container_default_limits(const limit_range_object& range) {
  k8s::resource_list out;
  for (const limit_range_object::item& item : range.limits) {
    if (item.type != "Container") continue;
    k8s::resource_list limit = item.default_limit;
    for (const auto& [n, a] : item.max)
      if (!limit.contains(n)) limit.set(n, a);
    for (const auto& [n, a] : limit) out.set(n, a);
  }
  return out;
}

// An amount as resource_amount converted it: cpu in millicores, the rest in units.
std::string amount_text(const std::string& resource, std::int64_t amount) {
  return std::to_string(amount) + (resource == "cpu" ? "m" : "");
}

// LimitRanger's validation of one container against a Container item (minConstraint,
// maxConstraint): "" when it passes, else why the API server rejects the pod.
std::string container_violation(const k8s::container_resources& c,
                                const limit_range_object::item& item) {
  const k8s::resource_list requests = c.effective();
  for (const auto& [n, least] : item.min) {
    if (!requests.contains(n))
      return "minimum " + n + " usage per Container is " + amount_text(n, least) +
             ", no request is specified";
    if (requests.get(n) < least)
      return "minimum " + n + " usage per Container is " + amount_text(n, least) +
             ", but request is " + amount_text(n, requests.get(n));
    if (c.limits.contains(n) && c.limits.get(n) < least)
      return "minimum " + n + " usage per Container is " + amount_text(n, least) +
             ", but limit is " + amount_text(n, c.limits.get(n));
  }
  for (const auto& [n, most] : item.max) {
    if (!c.limits.contains(n))
      return "maximum " + n + " usage per Container is " + amount_text(n, most) +
             ", no limit is specified";
    if (c.limits.get(n) > most)
      return "maximum " + n + " usage per Container is " + amount_text(n, most) +
             ", but limit is " + amount_text(n, c.limits.get(n));
    if (requests.contains(n) && requests.get(n) > most)
      return "maximum " + n + " usage per Container is " + amount_text(n, most) +
             ", but request is " + amount_text(n, requests.get(n));
  }
  return {};
}

// 2. LimitRanger.
std::optional<load_error> limit_ranger(const cluster_dump& dump, pod_object& pod,
                                       k8s::pod_resources& resources) {
  const auto each_container = [&](auto&& visit) {
    for (std::size_t i = 0; i < resources.containers.size(); ++i)
      visit(resources.containers[i], "spec.containers[" + std::to_string(i) + "]");
    for (std::size_t i = 0; i < resources.init_containers.size(); ++i)
      visit(resources.init_containers[i], "spec.initContainers[" + std::to_string(i) + "]");
  };
  const auto unset = [](const k8s::container_resources& c, std::string_view r) {
    return !c.requests.contains(r) && !c.limits.contains(r);
  };
  if (dump.limit_ranges.empty() && !dump.holds_every("LimitRange")) {
    each_container([&](const k8s::container_resources& c, const std::string& at) {
      for (std::string_view r : {"cpu", "memory"})
        if (unset(c, r))
          pod.not_modelled.push_back(
              "Pod " + pod.key() + ": " + at + ".resources.requests." + std::string(r) +
              ": not set, and the dump holds no LimitRange objects: LimitRanger sets it from " +
              "the namespace's LimitRanges (add limitranges to the dump)");
    });
    return std::nullopt;
  }
  // The namespace's LimitRanges in the dump's order (the API server's order is a cache's).
  k8s::resource_list defaults, default_limits;
  std::vector<std::string> conflicting, conflicting_limits;
  const auto merge = [](k8s::resource_list& into, std::vector<std::string>& conflicts,
                        const k8s::resource_list& more) {
    for (const auto& [n, a] : more) {
      if (!into.contains(n))
        into.set(n, a);
      else if (into.get(n) != a)
        conflicts.push_back(n);
    }
  };
  bool validates = false;
  for (const limit_range_object& range : dump.limit_ranges) {
    if (range.ns != pod.ns) continue;
    merge(defaults, conflicting, container_default_requests(range));
    merge(default_limits, conflicting_limits, container_default_limits(range));
    for (std::size_t i = 0; i < range.limits.size(); ++i) {
      const limit_range_object::item& item = range.limits[i];
      const bool container = item.type == "Container";
      validates = validates || (container && (!item.min.empty() || !item.max.empty()));
      if ((container || item.type == "Pod") &&
          (!item.max_limit_request_ratio.empty() ||
           (!container && (!item.min.empty() || !item.max.empty()))))
        pod.not_modelled.push_back("LimitRange " + range.ns + "/" + range.name + ": spec.limits[" +
                                   std::to_string(i) + "] (type " + item.type +
                                   "): LimitRanger's " +
                                   (container ? "maxLimitRequestRatio" : "Pod min/max") +
                                   " validation is not modelled (the API server may reject the "
                                   "pod)");
    }
  }
  const auto listed = [](const std::vector<std::string>& l, const std::string& n) {
    return std::find(l.begin(), l.end(), n) != l.end();
  };
  each_container([&](k8s::container_resources& c, const std::string& at) {
    for (const auto& [n, a] : defaults) {
      if (!unset(c, n)) continue;
      if (listed(conflicting, n))
        pod.not_modelled.push_back("Pod " + pod.key() + ": " + at + ".resources.requests." + n +
                                   ": not set, and the LimitRanges of namespace " + pod.ns +
                                   " default it differently (which applies first is not known)");
      c.requests.set(n, a);
    }
    // Default limits matter to the validation alone (the scheduler reads requests).
    for (const auto& [n, a] : default_limits) {
      if (c.limits.contains(n)) continue;
      if (validates && listed(conflicting_limits, n))
        pod.not_modelled.push_back("Pod " + pod.key() + ": " + at + ".resources.limits." + n +
                                   ": not set, and the LimitRanges of namespace " + pod.ns +
                                   " default it differently (which applies first is not known)");
      c.limits.set(n, a);
    }
  });
  if (!validates) return std::nullopt;
  std::optional<load_error> rejection;
  for (const limit_range_object& range : dump.limit_ranges) {
    if (range.ns != pod.ns) continue;
    for (const limit_range_object::item& item : range.limits) {
      if (item.type != "Container") continue;
      each_container([&](const k8s::container_resources& c, const std::string& at) {
        if (rejection) return;
        if (std::string why = container_violation(c, item); !why.empty())
          rejection = load_error{where(pod) + ": " + at + ".resources: " + why + " (LimitRange " +
                                 range.ns + "/" + range.name + "; the API server rejects the pod)"};
      });
      if (rejection) return rejection;
    }
  }
  return std::nullopt;
}

// 4. DefaultTolerationSeconds.
void default_toleration_seconds(pod_object& pod) {
  auto& tolerations = pod.placement.tolerations;
  bool not_ready = false, unreachable = false;
  for (const k8s::toleration& t : tolerations) {
    const bool no_execute = t.effect.empty() || t.effect == k8s::effect_no_execute;
    if (no_execute && (t.key.empty() || t.key == not_ready_key)) not_ready = true;
    if (no_execute && (t.key.empty() || t.key == unreachable_key)) unreachable = true;
  }
  if (!not_ready)
    tolerations.push_back(k8s::toleration{std::string(not_ready_key), "Exists", "",
                                          std::string(k8s::effect_no_execute)});
  if (!unreachable)
    tolerations.push_back(k8s::toleration{std::string(unreachable_key), "Exists", "",
                                          std::string(k8s::effect_no_execute)});
}

// 5. RuntimeClass (mutation, then its validation of the overhead).
std::optional<load_error> runtime_class(const cluster_dump& dump, pod_object& pod,
                                        k8s::pod_resources& resources) {
  const runtime_class_object* rc = nullptr;
  if (pod.runtime_class) {
    for (const runtime_class_object& c : dump.runtime_classes)
      if (c.name == *pod.runtime_class) rc = &c;
    if (rc == nullptr) {
      if (!dump.runtime_classes.empty() || dump.holds_every("RuntimeClass"))
        return load_error{where(pod) + ": spec.runtimeClassName: RuntimeClass \"" +
                          clip(*pod.runtime_class) +
                          "\" not found (the API server rejects the pod)"};
      pod.not_modelled.push_back(
          "Pod " + pod.key() + ": spec.runtimeClassName: RuntimeClass \"" +
          clip(*pod.runtime_class) +
          "\" is not in the dump: RuntimeClass admission sets the pod's overhead and adds its "
          "nodeSelector and tolerations (add runtimeclasses to the dump)");
      return std::nullopt;
    }
  }
  if (rc != nullptr && rc->overhead) {
    if (!resources.overhead.empty() && !(resources.overhead == *rc->overhead))
      return load_error{where(pod) +
                        ": spec.overhead: pod rejected: Pod's Overhead doesn't match "
                        "RuntimeClass's defined Overhead (RuntimeClass " +
                        rc->name + ")"};
    resources.overhead = *rc->overhead;
  } else if (!resources.overhead.empty()) {
    return load_error{where(pod) +
                      ": spec.overhead: pod rejected: Pod Overhead set without corresponding "
                      "RuntimeClass defined Overhead"};
  }
  if (rc == nullptr) return std::nullopt;
  auto& selector = pod.placement.node_selector_map;
  for (const auto& entry : rc->node_selector) {
    const std::string& k = entry.first;
    const std::string& v = entry.second;
    const auto it = std::find_if(selector.begin(), selector.end(),
                                 [&](const auto& kv) { return kv.first == k; });
    if (it == selector.end()) {
      selector.emplace_back(k, v);
    } else if (it->second != v) {
      return load_error{where(pod) + ": spec.nodeSelector: conflict: runtimeClass.scheduling." +
                        "nodeSelector[" + clip(k) + "] = " + clip(v) + "; pod.spec.nodeSelector[" +
                        clip(k) + "] = " + clip(it->second) + " (RuntimeClass " + rc->name + ")"};
    }
  }
  auto& tolerations = pod.placement.tolerations;
  for (const k8s::toleration& t : rc->tolerations) {
    const bool present = std::any_of(tolerations.begin(), tolerations.end(), [&](const auto& u) {
      return u.key == t.key && u.op == t.op && u.value == t.value && u.effect == t.effect;
    });
    if (!present) tolerations.push_back(t);
  }
  return std::nullopt;
}

}  // namespace

std::optional<load_error> admit(const cluster_dump& dump, pod_object& pod) {
  if (!pod.manifest) return std::nullopt;
  k8s::pod_resources resources = *pod.manifest;
  if (auto e = limit_ranger(dump, pod, resources)) return e;
  default_toleration_seconds(pod);
  if (auto e = runtime_class(dump, pod, resources)) return e;
  pod.requests = k8s::effective_requests(resources);
  pod.node_requests.reset();
  if (k8s::resource_list counted = k8s::node_requests(resources); !(counted == pod.requests))
    pod.node_requests = std::move(counted);
  pod.manifest = std::make_shared<const k8s::pod_resources>(std::move(resources));
  return std::nullopt;
}

}  // namespace whatif
