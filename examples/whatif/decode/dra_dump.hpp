// examples/whatif/decode/dra_dump.hpp - the dynamic resource allocation objects of a cluster dump
// (resource.k8s.io/v1), decoded by dra_kinds.cpp into the adapter's plain types
// (include/preempt/kubernetes/dra/objects.hpp).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_DRA_DUMP_HPP
#define PREEMPT_WHATIF_DRA_DUMP_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "preempt/kubernetes/dra/objects.hpp"

namespace whatif {

struct dra_objects {
  std::vector<preempt::kubernetes::dra::resource_claim> claims;
  std::vector<std::uint32_t> claim_files;  // per claim: index into cluster_dump::files
  std::vector<preempt::kubernetes::dra::device_class> classes;
  std::vector<preempt::kubernetes::dra::resource_slice> slices;
  std::size_t claim_templates = 0;  // read, not used: kube-scheduler reads the generated claims
  std::vector<std::string> taint_rules;  // DeviceTaintRule names (not modelled)
  // Why the DRA kinds could not be read (the kubectl plugin's second call failed); "" when read.
  std::string not_read;

  bool empty() const noexcept {
    return claims.empty() && classes.empty() && slices.empty() && claim_templates == 0 &&
           taint_rules.empty();
  }
};

}  // namespace whatif

#endif  // PREEMPT_WHATIF_DRA_DUMP_HPP
