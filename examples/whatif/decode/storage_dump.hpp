// examples/whatif/decode/storage_dump.hpp - the storage objects preempt-whatif reads
// (PersistentVolumeClaim, PersistentVolume, StorageClass, CSINode, CSIDriver, VolumeAttachment,
// CSIStorageCapacity), each the adapter's struct (kubernetes/storage_objects.hpp) plus the input it
// came from.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_STORAGE_DUMP_HPP
#define PREEMPT_WHATIF_STORAGE_DUMP_HPP

#include <cstdint>
#include <vector>

#include "preempt/kubernetes/storage_objects.hpp"

namespace whatif {

// An object of kind T and the index of its input (cluster_dump::files).
template <class T>
struct located : T {
  std::uint32_t file = 0;
};

struct storage_dump {
  std::vector<located<preempt::kubernetes::persistent_volume_claim>> claims;
  std::vector<located<preempt::kubernetes::persistent_volume>> volumes;
  std::vector<located<preempt::kubernetes::storage_class>> classes;
  std::vector<located<preempt::kubernetes::csi_node>> csi_nodes;
  std::vector<located<preempt::kubernetes::csi_driver>> drivers;
  std::vector<located<preempt::kubernetes::volume_attachment>> attachments;
  std::vector<located<preempt::kubernetes::storage_capacity>> capacities;
};

}  // namespace whatif

#endif  // PREEMPT_WHATIF_STORAGE_DUMP_HPP
