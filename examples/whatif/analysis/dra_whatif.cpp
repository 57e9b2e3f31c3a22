// examples/whatif/analysis/dra_whatif.cpp - see dra_whatif.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "analysis/dra_whatif.hpp"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace whatif {

namespace kd = preempt::kubernetes::dra;

std::optional<load_error> dra_model::build(const cluster_dump& dump) {
  std::unordered_map<std::string, std::size_t> seen;
  const auto& claims = dump.dra.claims;
  for (std::size_t i = 0; i < claims.size(); ++i) {
    if (!seen.emplace(claims[i].key(), i).second) {
      const std::uint32_t file = dump.dra.claim_files[i];
      return load_error{(file < dump.files.size() ? dump.files[file] : std::string("<input>")) +
                        ": ResourceClaim " + claims[i].key() +
                        ": metadata.name: duplicate ResourceClaim"};
    }
    used_.add(claims[i]);
  }
  used_.finish();
  return std::nullopt;
}

dra_decision::dra_decision(const cluster_dump& dump, const dra_model& model)
    : dump_(&dump), model_(&model) {}
dra_decision::~dra_decision() = default;

namespace {

void refuse_once(std::vector<std::string>& refusals, std::string what) {
  if (std::find(refusals.begin(), refusals.end(), what) == refusals.end())
    refusals.push_back(std::move(what));
}

// The DeviceClass that serves extended resource `name` (DRAExtendedResource, on in v1.37):
// spec.extendedResourceName, or deviceclass.resource.kubernetes.io/<class name>.
const kd::device_class* extended_resource_class(const dra_objects& dra, std::string_view name) {
  constexpr std::string_view prefix = "deviceclass.resource.kubernetes.io/";
  for (const kd::device_class& c : dra.classes) {
    if (c.extended_resource_name && *c.extended_resource_name == name) return &c;
    if (name.size() > prefix.size() && name.substr(0, prefix.size()) == prefix &&
        name.substr(prefix.size()) == c.name)
      return &c;
  }
  return nullptr;
}

}  // namespace

void dra_decision::prefilter(const pod_object& p, std::vector<std::string>& refusals) {
  pod_key_ = p.key();
  const std::string who = "Pod " + pod_key_;
  // An extended resource a DeviceClass serves: NodeResourcesFit leaves it to DynamicResources on
  // nodes that do not list it in allocatable.
  for (const auto& [name, amount] : p.requests) {
    if (amount == 0) continue;
    if (const kd::device_class* c = extended_resource_class(dump_->dra, name))
      refuse_once(
          refusals,
          who + ": resources.requests[" + name +
              "]: the extended resource is served by DeviceClass " + c->name +
              " (DRAExtendedResource: NodeResourcesFit skips it where no node allocatable lists "
              "it, "
              "DynamicResources allocates devices for it): extended resources backed by DRA are "
              "not modelled");
  }
  if (p.resource_claims.empty()) return;
  if (!dump_->dra.not_read.empty()) {
    refuse_once(
        refusals,
        who +
            ": spec.resourceClaims: the cluster's ResourceClaims, ResourceSlices and DeviceClasses "
            "could not be read (" +
            dump_->dra.not_read + ")");
    return;
  }

  plugin_ = std::make_unique<kd::dynamic_resources>(kd::cluster_devices{
      dump_->dra.claims, dump_->dra.classes, dump_->dra.slices, &model_->used()});
  const kd::prefilter_result pre = plugin_->prefilter(
      kd::claiming_pod{p.ns, p.name, p.uid, p.resource_claims, p.claim_statuses});
  using k = kd::prefilter_result::kind_type;
  switch (pre.kind) {
    case k::skip: return;
    case k::rejected:
      // A kind the dump lacks altogether was most likely not fetched, not absent from the cluster.
      if (dump_->dra.claims.empty() && !dump_->holds_every("ResourceClaim") &&
          pre.message.rfind("could not find ResourceClaim", 0) == 0) {
        refuse_once(refusals,
                    who + ": spec.resourceClaims: the dump holds no ResourceClaim at all (" +
                        pre.message + "): add resourceclaims to the kubectl get of the dump");
      } else if (dump_->dra.classes.empty() && !dump_->holds_every("DeviceClass") &&
                 pre.message.find("device class") != std::string::npos) {
        refuse_once(refusals,
                    who + ": spec.resourceClaims: the dump holds no DeviceClass at all (" +
                        pre.message + "): add deviceclasses to the kubectl get of the dump");
      }
      rejection_ = pre.message;
      held_in_queue_ = pre.pre_enqueue;
      return;
    case k::error:
      refuse_once(
          refusals,
          who +
              ": spec.resourceClaims: kube-scheduler's DynamicResources PreFilter fails with an "
              "error (" +
              pre.message + "): the scheduling attempt ends without preemption; not modelled");
      return;
    case k::not_modelled:
      refuse_once(refusals, who + ": spec.resourceClaims: " + pre.message + ": not modelled");
      return;
    case k::ready: break;
  }
  active_ = true;
  const std::size_t n = dump_->nodes.size();
  statuses_.assign(n, preempt::status::ok());
  reasons_.assign(n, std::string());
  computed_.assign(n, 0);
  // What the allocator would read that the tool does not model.
  bool allocates = false;
  for (const kd::resource_claim* c : plugin_->claims())
    if (!c->allocation) allocates = true;
  if (!allocates) return;
  if (dump_->dra.slices.empty() && !dump_->holds_every("ResourceSlice"))
    refuse_once(refusals,
                who +
                    ": spec.resourceClaims: the dump holds no ResourceSlice at all, so no device "
                    "could be allocated: add resourceslices to the kubectl get of the dump");
  for (const std::string& rule : dump_->dra.taint_rules)
    refuse_once(refusals,
                "DeviceTaintRule " + rule +
                    ": device taints from DeviceTaintRules are not modelled (they can keep devices "
                    "from the pod's claims)");
  for (const kd::resource_slice& s : dump_->dra.slices) {
    if (s.unmodelled_fields)
      refuse_once(refusals,
                  "ResourceSlice " + s.name +
                      ": spec.partitionTypeAttribute / spec.skipNodeOperations are not modelled");
    for (const kd::device& d : s.devices)
      if (d.node_allocatable_present)
        refuse_once(refusals, "ResourceSlice " + s.name + ": spec.devices[" + d.name +
                                  "].nodeAllocatableResources is not modelled");
  }
}

const preempt::status& dra_decision::verdict(std::size_t i, std::vector<std::string>& refusals) {
  static const preempt::status pass = preempt::status::ok();
  if (!active_) return pass;
  if (computed_[i] != 0) return statuses_[i];
  computed_[i] = 1;
  const node_object& n = dump_->nodes[i];
  kd::node_verdict v = plugin_->filter(kd::allocation_node{n.name, &n.labels});
  using k = kd::node_verdict::kind_type;
  switch (v.kind) {
    case k::pass: break;
    case k::rejected:
      reasons_[i] = std::move(v.message);
      statuses_[i] = preempt::status::unresolvable(reasons_[i]);
      break;
    case k::error:
      refuse_once(refusals,
                  "Pod " + pod_key_ +
                      ": spec.resourceClaims: kube-scheduler's DynamicResources filter fails "
                      "with an error (" +
                      v.message +
                      "), which ends the scheduling attempt without preemption; not modelled");
      reasons_[i] = std::move(v.message);
      statuses_[i] = preempt::status::error(reasons_[i]);
      break;
    case k::not_modelled:
      refuse_once(refusals,
                  "Pod " + pod_key_ + ": spec.resourceClaims: " + v.message + ": not modelled");
      reasons_[i] = std::move(v.message);
      statuses_[i] = preempt::status::error(reasons_[i]);
      break;
  }
  return statuses_[i];
}

}  // namespace whatif
