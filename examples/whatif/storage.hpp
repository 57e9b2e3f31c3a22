// examples/whatif/storage.hpp - the pending pod's volumes as kube-scheduler's volume plugins read
// them (VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone), and what the tool says
// about those it does not model.
//
// volume_field(v) names a volume's source as spec.volumes writes it ("persistentVolumeClaim").
// refuse_volumes(pod, refuse) calls refuse(text) once for each volume of the pod that one of the
// four plugins reads: "Pod ns/name: spec.volumes[2].persistentVolumeClaim: ...".
//
// No exceptions of its own; thread-safe (reads only).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_STORAGE_HPP
#define PREEMPT_WHATIF_STORAGE_HPP

#include <functional>
#include <string>
#include <string_view>

#include "dump.hpp"

namespace whatif {

std::string_view volume_field(const k8s::pod_volume& v) noexcept;

// "Pod ns/name: spec.volumes[i].<source>"
std::string volume_where(const pod_object& p, const k8s::pod_volume& v);

void refuse_volumes(const pod_object& p, const std::function<void(std::string)>& refuse);

}  // namespace whatif

#endif  // PREEMPT_WHATIF_STORAGE_HPP
