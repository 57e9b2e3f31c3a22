// Package gen generates realistic cluster dumps for the conformance suite: one seeded
// implementation both deciders read (kube-whatif and preempt-whatif read its JSON; the model
// driver reads its text form of the resource-only clusters).
//
// A cluster is drawn from a seed alone. Families of features can be switched on and off; each
// enabled family is used by about half of the clusters (resources always), so that every family
// meets every other. Clusters are built to exercise preemption: nodes filled with lower-priority
// pods, a preemptor that fits nowhere as the nodes are but on some once victims are gone.
package gen

import (
	"fmt"
	"sort"
	"strings"
)

// The families. The model families are those the model driver's text form expresses (the ready
// model: model::resource_cluster, budget_table, nomination_ledger; the node filters of
// kubernetes::filter_node; kubernetes::filter_cluster): the model driver runs on clusters that
// use no other family.
const (
	Resources    = "resources"     // cpu, memory, pods, ephemeral storage, extended resources, init containers, sidecars, overhead, pod-level resources
	Priorities   = "priorities"    // negative and equal priorities, missing start times, PriorityClasses (global default, preemptionPolicy)
	PDBs         = "pdbs"          // minAvailable, maxUnavailable, percentages, matchExpressions, disruptedPods, zero allowed
	Nominated    = "nominated"     // pending pods nominated to nodes: higher and lower priority, another scheduler; a nominated preemptor
	Terminating  = "terminating"   // pods being deleted, by preemption or not
	Sampling     = "sampling"      // minCandidateNodesPercentage/Absolute and offsets
	Taints       = "taints"        // taints and tolerations, unschedulable nodes
	NodeAffinity = "node-affinity" // nodeSelector, required node affinity (matchExpressions, matchFields)
	HostPorts    = "host-ports"    // hostPort conflicts (NodePorts)
	PodAffinity  = "pod-affinity"  // inter-pod affinity and anti-affinity, the preemptor's and existing pods', namespaceSelector
	Spread       = "spread"        // topology spread constraints (DoNotSchedule, minDomains, node affinity/taints policies)
	PodGroups    = "pod-groups"    // PodGroups (all, single, unset disruption mode; group priorities), pods naming them or a missing one, members across nodes that the preemptor's affinity or spread counts; the referee runs with GenericWorkload

	// The families below draw from streams of their own (one per family, from the seed), so
	// that a cluster none of them applies to is what its seed made before they existed.

	Dense         = "dense"          // nodes holding up to 110 pods, a preemptor that needs 60 or more of them evicted (pdqsort beyond insertion sort, many-victim nodes)
	Ties          = "ties"           // forced full ties: nodes whose pods are copies of another's (equal priorities, start times, requests), equal start times within a node
	SamplingHeavy = "sampling-heavy" // 150 to 400 nodes, small minCandidateNodesPercentage/Absolute, any offset: the dry run stops early
	StartTimes    = "start-times"    // bound pods without status.startTime, many per node (whole nodes of them, dense ones too)
	Resize        = "resize"         // in-place resizes: containerStatuses' allocatedResources and resources above or below the spec, PodResizePending Infeasible or Deferred, pod-level status resources
	Gates         = "gates"          // spec.schedulingGates on the preemptor and on pending pods; pending pods being deleted
	Manifests     = "manifests"      // the preemptor as a manifest (--pod): hostNetwork with containerPort only, runtimeClassName without overhead (RuntimeClasses with overhead, nodeSelector, tolerations), no not-ready/unreachable tolerations on nodes tainted so
	Namespaces    = "namespaces"     // Namespace objects with several labels, namespaceSelector terms (matchLabels, matchExpressions) on the preemptor and on bound pods, namespaces without objects, dumps without any
	Volumes       = "volumes"        // PVCs bound and unbound (Immediate, WaitForFirstConsumer), local and zonal PVs, RWOP claims, CSI attach limits (CSINode, VolumeAttachments), provisioners with allowedTopologies and storage capacity, missing PVCs/PVs, generic ephemeral volumes
	DRA           = "dra"            // ResourceSlices per node and network-attached, DeviceClasses with CEL selectors, allocated and unallocated ResourceClaims, templates with and without generated claims, shared claims, extended resources backed by devices
)

// All lists every family, in a stable order.
var All = []string{Resources, Priorities, PDBs, Nominated, Terminating, Sampling, Taints, NodeAffinity,
	HostPorts, PodAffinity, Spread, PodGroups, Dense, Ties, SamplingHeavy, StartTimes, Resize, Gates,
	Manifests, Namespaces, Volumes, DRA}

// ModelFamilies tells the families the model driver's text form expresses (what the library
// represents without a JSON loader: resources with the ready model, the node filters of
// kubernetes::filter_node, NodePorts, PodTopologySpread and InterPodAffinity through
// kubernetes::filter_cluster with namespaces' labels for namespaceSelector terms, and pod
// groups as victim units through the workload API's group_set).
var ModelFamilies = map[string]bool{Resources: true, Priorities: true, PDBs: true, Nominated: true,
	Terminating: true, Sampling: true, Taints: true, NodeAffinity: true, HostPorts: true,
	PodAffinity: true, Spread: true, PodGroups: true, Dense: true, Ties: true, SamplingHeavy: true,
	StartTimes: true, Resize: true, Namespaces: true}

// ResourceOnly is ModelFamilies under its former name ("resource-only" in --families).
var ResourceOnly = ModelFamilies

// Unsupported lists the families preempt-whatif does not model yet: their disagreements are
// reported apart and do not fail a run unless asked. A family leaves it (one line each) once
// preempt-whatif models what it generates.
var Unsupported = map[string]bool{}

// UpstreamRandom lists the families where kube-scheduler v1.37 itself answers differently from
// run to run on the same cluster (a victim unit's pods are listed from the PodGroupState in Go map
// order; pickOneNodeForPreemption reads the priority of a unit's first pod, a random member).
// `--families deterministic` leaves them out; in every other draw their clusters count like the
// others, compared as known-differences.md says (units' pods as sets, mayNominate, reruns).
var UpstreamRandom = map[string]bool{PodGroups: true}

// ParseFamilies reads a comma-separated list ("" or "all": every family; "supported": those
// preempt-whatif models; "deterministic": those of them on which upstream answers the same every
// run; "resource-only": those the model driver expresses, gen.ModelFamilies).
func ParseFamilies(s string) ([]string, error) {
	if s == "" || s == "all" {
		return append([]string(nil), All...), nil
	}
	known := map[string]bool{}
	for _, f := range All {
		known[f] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "supported" {
			for _, g := range All {
				if !Unsupported[g] && !seen[g] {
					out = append(out, g)
					seen[g] = true
				}
			}
			continue
		}
		if f == "deterministic" { // the supported families on which upstream answers the same every run
			for _, g := range All {
				if !Unsupported[g] && !UpstreamRandom[g] && !seen[g] {
					out = append(out, g)
					seen[g] = true
				}
			}
			continue
		}
		if f == "resource-only" {
			for _, g := range All {
				if ResourceOnly[g] && !seen[g] {
					out = append(out, g)
					seen[g] = true
				}
			}
			continue
		}
		if !known[f] {
			return nil, fmt.Errorf("unknown family %q (known: %s, or all, supported, deterministic, resource-only)", f, strings.Join(All, ", "))
		}
		if !seen[f] {
			out = append(out, f)
			seen[f] = true
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return index(out[i]) < index(out[j]) })
	return out, nil
}

func index(f string) int {
	for i, g := range All {
		if g == f {
			return i
		}
	}
	return len(All)
}
