// examples/whatif/decode/storage_kinds.hpp - decoding of the storage kinds preempt-whatif reads
// (PersistentVolumeClaim, PersistentVolume, StorageClass, CSINode, CSIDriver, VolumeAttachment,
// CSIStorageCapacity) and of a pod's spec.volumes, with field tables (decoder.hpp), into the
// adapter's structs (kubernetes/storage_objects.hpp) as the API server defaults them.
//
// Only what kube-scheduler's volume plugins read is kept; a pod's volumes of other sources
// (emptyDir, configMap, secret, projected, ...) are skipped. A volume with more than one source is
// an error, as the API server's validation makes it.
//
// No exceptions of their own; not thread-safe (they write into the caller's dump).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_STORAGE_KINDS_HPP
#define PREEMPT_WHATIF_STORAGE_KINDS_HPP

#include <cstdint>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "decode/decoder.hpp"
#include "decode/dump.hpp"

namespace whatif::kinds {

// Is `kind` one of the storage kinds, and is it namespaced?
bool is_storage_kind(std::string_view kind) noexcept;
bool is_namespaced_storage_kind(std::string_view kind) noexcept;

// Decodes `obj`, of storage kind `kind`, into dump.storage; false after recording an error in x.
bool add_storage_object(decode::context& x, std::string_view kind, simdjson::dom::element obj,
                        std::uint32_t file, cluster_dump& dump);

// Reads a pod's spec.volumes (an array) into `out`, keeping the volumes the plugins read.
bool read_pod_volumes(decode::context& x, simdjson::dom::element e,
                      std::vector<k8s::pod_volume>& out);

}  // namespace whatif::kinds

#endif  // PREEMPT_WHATIF_STORAGE_KINDS_HPP
