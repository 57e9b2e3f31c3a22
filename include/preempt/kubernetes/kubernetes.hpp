// preempt/kubernetes/kubernetes.hpp - the Kubernetes adapter, in one include.
//
// Turns Kubernetes API objects, already decoded into plain C++ values by the caller (no JSON or
// YAML dependency), into what the core algorithms read:
//   quantity.hpp       resource quantities → millicores and bytes
//   labels.hpp         label sets and label selectors (PodDisruptionBudget semantics included)
//   requests.hpp       a pod's effective requests (init containers, sidecars, overhead)
//   priority.hpp       priority and preemption policy through PriorityClasses
//   pod_status.hpp     RFC 3339 times, termination because of preemption, terminal phases
//   taints.hpp         taints and tolerations
//   node_affinity.hpp  nodeSelector and required node affinity
//   filters.hpp        the pod-independent node filters in kube-scheduler's order, with reasons
//   node_ports.hpp     NodePorts: host ports in use against the ports a pod wants
//   pod_facts.hpp      what the inter-pod filters read of pods and namespaces
//   topology_spread.hpp    PodTopologySpread with its PreFilter state and a per-node overlay
//   inter_pod_affinity.hpp InterPodAffinity (required terms), the same way
//   storage_objects.hpp    pods' volumes, claims, volumes, classes, CSI objects, their listers
//   volume_filters.hpp     VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone
//                          (volume_restrictions.hpp, node_volume_limits.hpp, volume_binding.hpp,
//                          volume_zone.hpp) with a per-node overlay
//   filter_cluster.hpp a cluster view adding those filters to another cluster's node state
//   dra/dynamic_resources.hpp  DynamicResources: ResourceClaims, the structured allocator, CEL
// Every fallible function returns kubernetes::result<T> with a message naming the bad value; no
// exceptions, no RTTI, no global state. Each header states its own complexity and allocation.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_KUBERNETES_HPP
#define PREEMPT_KUBERNETES_KUBERNETES_HPP

#include "preempt/kubernetes/dra/dynamic_resources.hpp"
#include "preempt/kubernetes/filter_cluster.hpp"
#include "preempt/kubernetes/filters.hpp"
#include "preempt/kubernetes/inter_pod_affinity.hpp"
#include "preempt/kubernetes/labels.hpp"
#include "preempt/kubernetes/node_affinity.hpp"
#include "preempt/kubernetes/node_ports.hpp"
#include "preempt/kubernetes/node_volume_limits.hpp"
#include "preempt/kubernetes/pod_facts.hpp"
#include "preempt/kubernetes/pod_status.hpp"
#include "preempt/kubernetes/priority.hpp"
#include "preempt/kubernetes/quantity.hpp"
#include "preempt/kubernetes/requests.hpp"
#include "preempt/kubernetes/result.hpp"
#include "preempt/kubernetes/storage_objects.hpp"
#include "preempt/kubernetes/taints.hpp"
#include "preempt/kubernetes/topology_spread.hpp"
#include "preempt/kubernetes/volume_binding.hpp"
#include "preempt/kubernetes/volume_filters.hpp"
#include "preempt/kubernetes/volume_restrictions.hpp"
#include "preempt/kubernetes/volume_zone.hpp"

#endif  // PREEMPT_KUBERNETES_KUBERNETES_HPP
