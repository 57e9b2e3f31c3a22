// examples/whatif/admission.cpp - see admission.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "admission.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "one_line.hpp"

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

// 2. LimitRanger.
void limit_ranger(const cluster_dump& dump, pod_object& pod, k8s::pod_resources& resources) {
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
    return;
  }
  // The namespace's LimitRanges in the dump's order (the API server's order is a cache's).
  k8s::resource_list defaults;
  std::vector<std::string> conflicting;
  for (const limit_range_object& range : dump.limit_ranges) {
    if (range.ns != pod.ns) continue;
    for (const auto& [n, a] : container_default_requests(range)) {
      if (!defaults.contains(n))
        defaults.set(n, a);
      else if (defaults.get(n) != a)
        conflicting.push_back(n);
    }
  }
  each_container([&](k8s::container_resources& c, const std::string& at) {
    for (const auto& [n, a] : defaults) {
      if (!unset(c, n)) continue;
      if (std::find(conflicting.begin(), conflicting.end(), n) != conflicting.end())
        pod.not_modelled.push_back("Pod " + pod.key() + ": " + at + ".resources.requests." + n +
                                   ": not set, and the LimitRanges of namespace " + pod.ns +
                                   " default it differently (which applies first is not known)");
      c.requests.set(n, a);
    }
  });
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
  limit_ranger(dump, pod, resources);
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
