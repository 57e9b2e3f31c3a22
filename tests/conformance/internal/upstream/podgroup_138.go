//go:build k8s138

package upstream

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/helper"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"
	schedutil "k8s.io/kubernetes/pkg/scheduler/util"
)

// What the shared pod-group placement (podgroup.go) reads differently at v1.38.

// placementProgress is the PlacementFeasible plugins' progress (kube-scheduler/framework's).
type placementProgress = fwk.PlacementProgress

// countUnschedulable counts a member left unplaced (podGroupSchedulingDefaultAlgorithm).
func countUnschedulable(p *placementProgress) { p.Unschedulable++ }

// rankNodes orders the nodes a member may take as upstream's findNodesThatPassFilters does in a
// pod-group cycle: the RankNodes plugins (DefaultPreemption's, inside a preemption: the victims
// the member would condemn on each node), rank by rank in the order they return; unchanged when
// they skip (no PodGroupPreemptionState: the group's own cycle).
func rankNodes(ctx context.Context, fw framework.Framework, state *framework.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) ([]fwk.NodeInfo, *fwk.Status) {
	if len(nodes) <= 1 {
		return nodes, nil
	}
	ranked, st := fw.RunRankNodesPlugins(ctx, state, pod, nodes)
	if !st.IsSuccess() {
		return nil, st
	}
	if len(ranked) == 0 {
		return nodes, nil
	}
	out := make([]fwk.NodeInfo, len(ranked))
	for i, r := range ranked {
		out[i] = r.NodeInfo
	}
	return out, nil
}

// innerGroupState is the pod-group cycle state the members are placed in: a fresh one that
// carries the PodGroupPreemptionState a PodGroupPostFilter wrote into groupState, removed again
// when the placement is done (upstream's BuildPodGroupSchedulingFunc).
func innerGroupState(groupState *framework.CycleState) (*framework.CycleState, func()) {
	inner := framework.NewCycleState()
	if st, err := groupState.Read(preemption.PodGroupPreemptionStateKey); err == nil {
		inner.Write(preemption.PodGroupPreemptionStateKey, st)
	}
	return inner, func() { inner.Delete(preemption.PodGroupPreemptionStateKey) }
}

// joinGroupCycle marks state as part of the pod-group cycle groupState.
func joinGroupCycle(state, groupState *framework.CycleState) {
	state.SetPodGroupCycleState(groupState)
}

// podGroupDisruptions is the number of victim units that are pod groups or composite pod groups.
func podGroupDisruptions(c Candidate) int {
	n := 0
	for kind, count := range c.NumDisruptionsByVictimType() {
		if kind != fwk.PodKeyType {
			n += count
		}
	}
	return n
}

// allAncestorUnit names the unit of a pod of PodGroup ns/name: its highest group in disruption
// mode all ("" none), up to the first group that cannot be resolved (getHighestAllAncestor).
func (s *Scheduler) allAncestorUnit(ns, name string) string {
	unit := ""
	for gpg, err := range helper.TraverseHierarchyUp(s.Snapshot, fwk.PodGroupKey(ns, name)) {
		if err != nil {
			break
		}
		if gpg.HasDisruptionModeAll() {
			kind := "PodGroup "
			if gpg.GetType() == fwk.CompositePodGroupKeyType {
				kind = "CompositePodGroup "
			}
			unit = kind + ns + "/" + gpg.GetName()
		}
	}
	return unit
}

// ValidateGroup is kube-scheduler's check before a pod group's cycle (validatePodGroupHierarchy
// in schedule_one_podgroup.go, unexported there), with upstream's messages, for a standalone
// PodGroup (the referee decides a group of a CompositePodGroup hierarchy alone): the queued pods
// (pgInfo.UnscheduledPods, in order), then the group's scheduled pods (the snapshot's
// PodGroupState), have the first queued pod's .spec.schedulerName, the group's priority, and
// one preemption policy: the group's spec.preemptionPolicy when set, else the first queued pod's.
// A failure fails the cycle before scheduling: no preemption, the members' nominations cleared.
func (s *Scheduler) ValidateGroup(pgInfo *framework.PodGroupInfo) error {
	rootPriority := pgInfo.GetPriority()
	expectedPreemptionPolicy := pgInfo.GetPreemptionPolicy()
	schedulerName, firstPodName := "", ""
	if len(pgInfo.UnscheduledPods) > 0 {
		first := pgInfo.UnscheduledPods[0]
		schedulerName, firstPodName = first.Spec.SchedulerName, first.Name
		if expectedPreemptionPolicy == "" {
			expectedPreemptionPolicy = schedutil.PodPreemptionPolicy(first)
		}
	}
	validatePod := func(pod *v1.Pod) error {
		if pod.Spec.SchedulerName != schedulerName {
			return fmt.Errorf("all pods in a pod group hierarchy should have the same .spec.schedulerName set, got: %q (%q) and %q (%q)",
				pod.Spec.SchedulerName, pod.Name, schedulerName, firstPodName)
		}
		if podPriority := corev1helpers.PodPriority(pod); podPriority != rootPriority {
			return fmt.Errorf("all pods in a pod group hierarchy should have the same priority as the root pod group's priority, got %d (%q) and %d (%q)",
				podPriority, pod.Name, rootPriority, pgInfo.GetKey())
		}
		if podPreemptionPolicy := schedutil.PodPreemptionPolicy(pod); podPreemptionPolicy != expectedPreemptionPolicy {
			return fmt.Errorf("all pods in a pod group hierarchy should have the same preemption policy, got %v (%q) and %v",
				podPreemptionPolicy, pod.Name, expectedPreemptionPolicy)
		}
		return nil
	}
	for _, pod := range pgInfo.UnscheduledPods {
		if err := validatePod(pod); err != nil {
			return err
		}
	}
	st, err := s.Snapshot.PodGroupStates().Get(pgInfo.GetNamespace(), pgInfo.GetName())
	if err != nil {
		return fmt.Errorf("failed to get pod group state: %w", err)
	}
	for _, pod := range st.ScheduledPods() {
		if err := validatePod(pod); err != nil {
			return err
		}
	}
	return nil
}
