// examples/whatif/analysis/dra_whatif.hpp - kube-scheduler's DynamicResources filter in the
// what-if: the cluster's allocated devices, built once per dump (dra_model), and one decision's
// PreFilter and per-node verdicts (dra_decision), with the refusals for what the tool does not
// model.
//
// A decision's verdicts are computed for the nodes the filters reach (the plugin is the
// profile's last filter) and for the nodes the dry run may evaluate (initially Unschedulable);
// filter_cluster checks them in the dry run, where no eviction changes them (v1.37: the plugin
// has no PreFilterExtensions).
//
// Not thread-safe; a decision's statuses (and their texts) live as long as the dra_decision.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_DRA_WHATIF_HPP
#define PREEMPT_WHATIF_DRA_WHATIF_HPP

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "decode/dump.hpp"
#include "io/input.hpp"
#include "preempt/kubernetes/dra/dynamic_resources.hpp"
#include "preempt/status.hpp"

namespace whatif {

// The cluster's dynamic resources, built once per dump.
class dra_model {
 public:
  // Errors: two ResourceClaims of the same namespace and name.
  std::optional<load_error> build(const cluster_dump& dump);
  const preempt::kubernetes::dra::allocated_state& used() const noexcept { return used_; }

 private:
  preempt::kubernetes::dra::allocated_state used_;
};

// DynamicResources for one decision.
class dra_decision {
 public:
  dra_decision(const cluster_dump& dump, const dra_model& model);
  ~dra_decision();
  dra_decision(const dra_decision&) = delete;
  dra_decision& operator=(const dra_decision&) = delete;

  // PreFilter for `pod`. What is not modelled goes to `refusals`.
  void prefilter(const pod_object& pod, std::vector<std::string>& refusals);

  // The pod claims devices: every node needs a verdict.
  bool active() const noexcept { return active_; }
  // PreFilter rejected the pod (UnschedulableAndUnresolvable on every node): the message.
  const std::optional<std::string>& rejection() const noexcept { return rejection_; }
  // The rejection is PreEnqueue's as well (a claim missing, not created yet, being deleted or
  // not the pod's): kube-scheduler keeps the pod out of its active queue, it is never tried.
  bool held_in_queue() const noexcept { return held_in_queue_; }

  // Node i's verdict (computed once); refusals found on the way go to `refusals`.
  const preempt::status& verdict(std::size_t i, std::vector<std::string>& refusals);
  // Every node's verdict, for filter_cluster (nodes never asked for pass).
  std::span<const preempt::status> verdicts() const noexcept { return statuses_; }

 private:
  const cluster_dump* dump_;
  const dra_model* model_;
  std::string pod_key_;
  std::unique_ptr<preempt::kubernetes::dra::dynamic_resources> plugin_;
  bool active_ = false;
  std::optional<std::string> rejection_;
  bool held_in_queue_ = false;
  std::vector<preempt::status> statuses_;
  std::vector<std::string> reasons_;  // per node: the text its status views (never resized)
  std::vector<char> computed_;
};

}  // namespace whatif

#endif  // PREEMPT_WHATIF_DRA_WHATIF_HPP
