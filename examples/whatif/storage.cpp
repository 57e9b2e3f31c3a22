// examples/whatif/storage.cpp - see storage.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "storage.hpp"

namespace whatif {

std::string_view volume_field(const k8s::pod_volume& v) noexcept {
  switch (v.source) {
    case k8s::volume_source::claim: return "persistentVolumeClaim";
    case k8s::volume_source::ephemeral: return "ephemeral";
    case k8s::volume_source::csi: return "csi";
    case k8s::volume_source::iscsi: return "iscsi";
    case k8s::volume_source::rbd: return "rbd";
    case k8s::volume_source::aws_ebs: return "awsElasticBlockStore";
    case k8s::volume_source::gce_pd: return "gcePersistentDisk";
    case k8s::volume_source::azure_disk: return "azureDisk";
    case k8s::volume_source::azure_file: return "azureFile";
    case k8s::volume_source::cinder: return "cinder";
    case k8s::volume_source::vsphere: return "vsphereVolume";
    case k8s::volume_source::portworx: return "portworxVolume";
    case k8s::volume_source::other: break;
  }
  return "";
}

std::string volume_where(const pod_object& p, const k8s::pod_volume& v) {
  return "Pod " + p.key() + ": spec.volumes[" + std::to_string(v.position) + "]." +
         std::string(volume_field(v));
}

void refuse_volumes(const pod_object& p, const std::function<void(std::string)>& refuse) {
  for (const k8s::pod_volume& v : p.volumes) {
    // Inline CSI volumes: none of the four plugins reads them in v1.37 (NodeVolumeLimits counts
    // claims, generic ephemeral volumes and migratable in-tree volumes only).
    if (v.source == k8s::volume_source::csi) continue;
    refuse(volume_where(p, v) +
           ": volumes are not modelled (VolumeRestrictions, NodeVolumeLimits, VolumeBinding and "
           "VolumeZone read them)");
  }
}

}  // namespace whatif
