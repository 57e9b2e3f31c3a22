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

// The families. Resource-only families are those the library's ready model expresses
// (model::resource_cluster, budget_table, nomination_ledger): the model driver runs on clusters that use
// no other family.
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
	PodGroups    = "pod-groups"    // PodGroups (all, single, unset disruption mode; group priorities), pods naming them or a missing one; the referee runs with GenericWorkload
)

// All lists every family, in a stable order.
var All = []string{Resources, Priorities, PDBs, Nominated, Terminating, Sampling, Taints, NodeAffinity,
	HostPorts, PodAffinity, Spread, PodGroups}

// ResourceOnly tells the families the ready model expresses.
var ResourceOnly = map[string]bool{Resources: true, Priorities: true, PDBs: true, Nominated: true,
	Terminating: true, Sampling: true}

// Unsupported lists the families preempt-whatif does not model yet: their disagreements are
// reported apart and do not fail a run unless asked.
var Unsupported = map[string]bool{}

// UpstreamRandom lists the families where kube-scheduler v1.37 itself answers differently from
// run to run on the same cluster (a victim unit's pods are listed from the PodGroupState in Go map
// order; pickOneNodeForPreemption reads the priority of a unit's first pod, a random member): their
// disagreements are reported apart, as the unsupported ones are, and fail a run only with --strict.
var UpstreamRandom = map[string]bool{PodGroups: true}

// ParseFamilies reads a comma-separated list ("" or "all": every family; "supported": those
// preempt-whatif models; "deterministic": those of them on which upstream answers the same every
// run; "resource-only": those the ready model expresses).
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
