//go:build !k8s138

package upstream

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"
	schedutil "k8s.io/kubernetes/pkg/scheduler/util"
)

// What the shared pod-group placement (podgroup.go) reads differently at v1.37.

// placementProgress is the PlacementFeasible plugins' progress (framework's at v1.37).
type placementProgress = framework.PlacementProgress

// countUnschedulable: v1.37's progress does not count the members left unplaced.
func countUnschedulable(*placementProgress) {}

// rankNodes: v1.37 has no RankNodes extension; the nodes stay in input order.
func rankNodes(_ context.Context, _ framework.Framework, _ *framework.CycleState, _ *v1.Pod, nodes []fwk.NodeInfo) ([]fwk.NodeInfo, *fwk.Status) {
	return nodes, nil
}

// innerGroupState is the pod-group cycle state the members are placed in: v1.37's own.
func innerGroupState(groupState *framework.CycleState) (*framework.CycleState, func()) {
	return groupState, func() {}
}

// joinGroupCycle marks state as part of the pod-group cycle groupState.
func joinGroupCycle(state, groupState *framework.CycleState) {
	state.SetPodGroupSchedulingCycle(groupState)
}

// podGroupDisruptions is the number of victim units that are pod groups.
func podGroupDisruptions(c Candidate) int { return c.NumPodGroupDisruptions() }

// allAncestorUnit names the unit of a pod of PodGroup ns/name: its highest group in disruption
// mode all ("" none).
func (s *Scheduler) allAncestorUnit(ns, name string) string {
	unit := ""
	preemption.TraverseHierarchyUp(ns, fwk.PodGroupKey(ns, name), s.Snapshot.PodGroups(), s.Snapshot.CompositePodGroups(),
		func(key fwk.EntityKey, pg *schedulingv1beta1.PodGroup, cpg *schedulingv1alpha3.CompositePodGroup) bool {
			if pg != nil && pg.Spec.DisruptionMode != nil && pg.Spec.DisruptionMode.All != nil {
				unit = "PodGroup " + ns + "/" + key.Name
			}
			if cpg != nil && cpg.Spec.DisruptionMode != nil && cpg.Spec.DisruptionMode.All != nil {
				unit = "CompositePodGroup " + ns + "/" + key.Name
			}
			return false
		})
	return unit
}

// ValidateGroup is kube-scheduler's check before a pod group's cycle (Scheduler.validatePodGroup
// and validateScheduledPods in schedule_one_podgroup.go, unexported there), with upstream's
// messages: the queued pods (pgInfo.UnscheduledPods, in order), then the group's scheduled pods
// (the snapshot's PodGroupState), have one .spec.schedulerName, the group's priority
// (PodGroupPriority) and one preemption policy (the group's with PodGroupPreemptionPolicy on,
// else the first pod's). A failure fails the cycle before scheduling: no preemption, the
// members' nominations cleared (handlePodGroupFailureBeforeScheduling). For a standalone
// PodGroup only (the referee decides a group of a CompositePodGroup hierarchy alone).
func (s *Scheduler) ValidateGroup(pgInfo *framework.PodGroupInfo) error {
	schedulerName := ""
	podGroupPriority := schedutil.PodGroupPriority(pgInfo.PodGroup)
	var pgPreemptionPolicy v1.PreemptionPolicy
	gateOn := utilfeature.DefaultFeatureGate.Enabled(features.PodGroupPreemptionPolicy)
	if gateOn {
		pgPreemptionPolicy = v1.PreemptLowerPriority
		if pg := pgInfo.PodGroup; pg != nil && pg.Spec.PreemptionPolicy != nil {
			pgPreemptionPolicy = v1.PreemptionPolicy(*pg.Spec.PreemptionPolicy)
		}
	}
	validatePod := func(pod *v1.Pod) error {
		if pod.Spec.SchedulerName != schedulerName {
			return fmt.Errorf("all pods in a single pod group should have the same .spec.schedulerName set, got: %q and %q", pod.Spec.SchedulerName, schedulerName)
		}
		if podPriority := corev1helpers.PodPriority(pod); podPriority != podGroupPriority {
			return fmt.Errorf("all pods in a single pod group should have the same priority as the pod group's priority, got %d and %d", podPriority, podGroupPriority)
		}
		pPreemptionPolicy := v1.PreemptLowerPriority
		if pod.Spec.PreemptionPolicy != nil {
			pPreemptionPolicy = *pod.Spec.PreemptionPolicy
		}
		if gateOn {
			if pPreemptionPolicy != pgPreemptionPolicy {
				return fmt.Errorf("all pods in a single pod group should have the same preemption policy as the pod group's preemption policy, got %v and %v", pPreemptionPolicy, pgPreemptionPolicy)
			}
		} else if pgPreemptionPolicy == "" {
			pgPreemptionPolicy = pPreemptionPolicy
		} else if pPreemptionPolicy != pgPreemptionPolicy {
			return fmt.Errorf("all pods in a single pod group should have the same preemption policy, got %v and %v", pPreemptionPolicy, pgPreemptionPolicy)
		}
		return nil
	}
	for _, pod := range pgInfo.UnscheduledPods {
		if schedulerName == "" {
			schedulerName = pod.Spec.SchedulerName
		}
		if err := validatePod(pod); err != nil {
			return err
		}
	}
	st, err := s.Snapshot.PodGroupStates().Get(pgInfo.Namespace, pgInfo.Name)
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

