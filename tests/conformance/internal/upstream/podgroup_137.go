//go:build !k8s138

package upstream

import (
	"context"
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"
	schedutil "k8s.io/kubernetes/pkg/scheduler/util"

	"github.com/preempt/preempt/tests/conformance/internal/dump"
)

// firstFitNode runs PreFilter, then Filter with the nominated pods on each node in input order,
// and returns the first node that passes ("" when none does).
func (s *Scheduler) firstFitNode(ctx context.Context, state *framework.CycleState, pod *v1.Pod) (string, *fwk.Status) {
	preRes, st, _ := s.Framework.RunPreFilterPlugins(ctx, state, pod)
	if st.IsRejected() {
		return "", st
	}
	if !st.IsSuccess() {
		return "", st
	}
	for _, name := range s.NodeOrder {
		if !preRes.AllNodes() && !preRes.NodeNames.Has(name) {
			continue
		}
		info, err := s.Snapshot.NodeInfos().Get(name)
		if err != nil {
			return "", fwk.AsStatus(err)
		}
		fs := s.Framework.RunFilterPluginsWithNominatedPods(ctx, state, pod, info)
		if fs.Code() == fwk.Error {
			return "", fs
		}
		if fs.IsSuccess() {
			return name, nil
		}
	}
	return "", fwk.NewStatus(fwk.Unschedulable, "no node fits")
}

// placeFirstFit places the group's pending members (FirstFitPlacement) the way upstream's
// podGroupSchedulingDefaultAlgorithm steps through them: PlacementFeasible before the first
// member and after each, a placed member assumed in the snapshot (its nomination set aside
// meanwhile, as the scheduler's assume does) and reserved, the whole reverted before it returns
// (upstream's runRootSchedulingAlgorithm reverts too). The message of a failure is the shared
// placement's ("k of n pending member(s) placed, m needed"), as preempt-whatif words it.
func (s *Scheduler) placeFirstFit(ctx context.Context, pgInfo *framework.PodGroupInfo, groupState *framework.CycleState) (*fwk.PodGroupAssignments, *fwk.Status) {
	logger := klog.FromContext(ctx)
	members := pgInfo.UnscheduledPods
	placement := framework.NewCycleState()
	placement.SetPodGroupSchedulingCycle(groupState)
	var reverts []func()
	defer func() {
		for i := len(reverts) - 1; i >= 0; i-- {
			reverts[i]()
		}
	}()
	scheduled := 0
	if st, err := s.Snapshot.PodGroupStates().Get(pgInfo.Namespace, pgInfo.Name); err == nil {
		scheduled = st.ScheduledPodsCount()
	}
	progress := framework.PlacementProgress{Remaining: len(members), Scheduled: scheduled}
	status := s.Framework.RunPlacementFeasiblePlugins(ctx, placement, pgInfo, progress)
	var out []fwk.ProposedAssignment
	placed := 0
	unplaceable := func() *fwk.Status {
		need := 1
		if g := pgInfo.PodGroup.Spec.SchedulingPolicy.Gang; g != nil && int(g.MinCount)-scheduled > need {
			need = int(g.MinCount) - scheduled
		}
		return fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("%d of %d pending member(s) placed, %d needed", placed, len(members), need))
	}
	if status.IsError() {
		return nil, status
	}
	if status.Code() == fwk.Unschedulable {
		return &fwk.PodGroupAssignments{}, unplaceable()
	}
	for _, pod := range members {
		state := framework.NewCycleState()
		state.Write(framework.PodsToActivateKey, framework.NewPodsToActivate())
		state.SetPodGroupSchedulingCycle(groupState)
		state.SetPlacementCycleState(placement)
		node, st := s.firstFitNode(ctx, state, pod)
		if st.Code() == fwk.Error {
			return nil, st
		}
		if node != "" {
			info, err := framework.NewPodInfo(pod)
			if err != nil {
				return nil, fwk.AsStatus(err)
			}
			assumed, _ := framework.NewPodInfo(pod.DeepCopy())
			assumed.Pod.Spec.NodeName = node
			if err := s.Snapshot.AssumePod(assumed); err != nil {
				return nil, fwk.AsStatus(err)
			}
			s.Queue.DeleteNominatedPodIfExists(assumed.Pod)
			reverts = append(reverts, func() {
				_ = s.Snapshot.ForgetPod(logger, assumed.Pod)
				if pod.Status.NominatedNodeName != "" {
					s.Queue.AddNominatedPod(logger, assumed, &fwk.NominatingInfo{
						NominatedNodeName: pod.Status.NominatedNodeName, NominatingMode: fwk.ModeOverride})
				}
			})
			if rs := s.Framework.RunReservePluginsReserve(ctx, state, assumed.Pod, node); !rs.IsSuccess() {
				s.Framework.RunReservePluginsUnreserve(ctx, state, assumed.Pod, node)
				if !rs.IsRejected() {
					return nil, rs
				}
				node = ""
			} else {
				reverts = append(reverts, func() { s.Framework.RunReservePluginsUnreserve(ctx, state, assumed.Pod, node) })
				out = append(out, &proposed{info: info, node: node, state: state})
				placed++
			}
		}
		progress.Remaining--
		if node != "" {
			progress.Scheduled++
		}
		status = s.Framework.RunPlacementFeasiblePlugins(ctx, placement, pgInfo, progress)
		if status.IsError() {
			return nil, status
		}
		if status.Code() == fwk.Unschedulable {
			break
		}
	}
	if !status.IsSuccess() || placed == 0 {
		return &fwk.PodGroupAssignments{ProposedAssignments: out}, unplaceable()
	}
	return &fwk.PodGroupAssignments{ProposedAssignments: out}, nil
}

// groupUnits names the unit each pod belongs to as upstream's workload preemption forms them: a
// pod whose group hierarchy has an ancestor in disruption mode all goes with the highest such
// one (preemption.TraverseHierarchyUp over the snapshot's listers; without CompositePodGroup,
// the pod's own PodGroup).
func (s *Scheduler) groupUnits(pods []*v1.Pod) map[string]string {
	pgs, cpgs := s.Snapshot.PodGroups(), s.Snapshot.CompositePodGroups()
	units := map[string]string{}
	for _, p := range pods {
		if p.Spec.SchedulingGroup == nil || p.Spec.SchedulingGroup.PodGroupName == nil {
			continue
		}
		name := *p.Spec.SchedulingGroup.PodGroupName
		unit := ""
		if !s.compositePodGroups {
			if pg, err := pgs.Get(p.Namespace, name); err == nil && pg != nil && pg.Spec.DisruptionMode != nil && pg.Spec.DisruptionMode.All != nil {
				unit = "PodGroup " + p.Namespace + "/" + name
			}
		} else {
			preemption.TraverseHierarchyUp(p.Namespace, fwk.PodGroupKey(p.Namespace, name), pgs, cpgs,
				func(key fwk.EntityKey, pg *schedulingv1beta1.PodGroup, cpg *schedulingv1alpha3.CompositePodGroup) bool {
					if pg != nil && pg.Spec.DisruptionMode != nil && pg.Spec.DisruptionMode.All != nil {
						unit = "PodGroup " + p.Namespace + "/" + key.Name
					}
					if cpg != nil && cpg.Spec.DisruptionMode != nil && cpg.Spec.DisruptionMode.All != nil {
						unit = "CompositePodGroup " + p.Namespace + "/" + key.Name
					}
					return false
				})
		}
		if unit != "" {
			units[dump.Key(p)] = unit
		}
	}
	return units
}

// DecideGroup runs kube-scheduler's pod-group cycle for a pending group up to its
// PodGroupPostFilter, with the members placed by FirstFitPlacement: the placement on the
// cluster as it is (success: "fits"); else DefaultPreemption's PodGroupPostFilter (upstream's
// PodGroupEvaluator: eligibility, an ongoing preemption, every lower-priority unit removed, the
// placement, units reprieved) and its actuation on the fake clientset.
func (s *Scheduler) DecideGroup(ctx context.Context, pgInfo *framework.PodGroupInfo) (*GroupReport, error) {
	r := s.NewGroupReport(pgInfo)
	groupState := framework.NewCycleState()
	place := func(ctx context.Context) (*fwk.PodGroupAssignments, *fwk.Status) {
		return s.placeFirstFit(ctx, pgInfo, groupState)
	}

	// The pod-group cycle itself: if the group fits as the cluster is, nothing is preempted.
	if err := s.Snapshot.StartMutations(); err != nil {
		return nil, err
	}
	assignments, st := place(ctx)
	if err := s.Snapshot.EndMutations(); err != nil {
		return nil, err
	}
	if st.Code() == fwk.Error {
		return nil, st.AsError()
	}
	where := map[string]string{}
	if st.IsSuccess() {
		r.Result = "fits"
		for _, a := range assignments.ProposedAssignments {
			where[dump.Key(a.GetPod())] = a.GetNodeName()
		}
		for _, p := range pgInfo.UnscheduledPods {
			r.Members = append(r.Members, GroupMember{Name: dump.Key(p), NominatedNodeName: where[dump.Key(p)]})
		}
		return r, nil
	}

	s.candidate = nil
	res, pst := s.Plugin.PodGroupPostFilter(ctx, groupState, pgInfo, place)
	r.Message = pst.Message()
	switch {
	case pst.IsSuccess() && strings.HasSuffix(pst.Message(), "ongoing preemption on nominated nodes"):
		r.Result = "ongoing"
	case pst.IsSuccess():
		r.Result = "nominated"
	case pst.Code() == fwk.Unschedulable && strings.Contains(pst.Message(), "not eligible"):
		r.Result = "not-eligible"
	case pst.IsRejected():
		r.Result = "unschedulable"
	default:
		r.Result = "error"
	}
	if res != nil {
		for _, p := range pgInfo.UnscheduledPods {
			if ni := res.NominatingInfos[typesName(p)]; ni != nil {
				where[dump.Key(p)] = ni.NominatedNodeName
			}
		}
	}
	for _, p := range pgInfo.UnscheduledPods {
		r.Members = append(r.Members, GroupMember{Name: dump.Key(p), NominatedNodeName: where[dump.Key(p)]})
	}
	if r.Result == "nominated" {
		if err := s.waitForGroupActuation(pgInfo); err != nil {
			return nil, err
		}
		var victims []*v1.Pod
		s.mu.Lock()
		c := s.candidate
		s.mu.Unlock()
		if c != nil {
			victims = c.Victims().Pods
			r.PDBViolations = c.Victims().NumPDBViolations
			r.PodGroupDisruptions = c.NumPodGroupDisruptions()
			for _, v := range victims {
				r.Victims = append(r.Victims, dump.Key(v))
			}
		} else {
			// No API call: every victim was terminating already (or there were none).
			r.Victims = append(r.Victims, s.mutable.removed...)
			sort.Strings(r.Victims)
			r.VictimsAsSet = len(r.Victims) > 0
			for _, k := range r.Victims {
				if p := s.pods[k]; p != nil {
					victims = append(victims, p)
				}
			}
		}
		if units := s.groupUnits(victims); len(units) > 0 {
			r.Units = units
		}
	}
	calls := &Report{}
	s.recordCalls(calls)
	r.Calls = calls.Calls
	return r, nil
}

// NewGroupReport is the report's part that does not depend on the decision: the group, its
// priority, its members already scheduled.
func (s *Scheduler) NewGroupReport(pgInfo *framework.PodGroupInfo) *GroupReport {
	r := &GroupReport{PodGroup: pgInfo.Namespace + "/" + pgInfo.Name, Placement: FirstFitPlacement,
		Members: []GroupMember{}, Victims: []string{}, Warnings: []string{}, Calls: []string{}}
	if pgInfo.PodGroup != nil && pgInfo.PodGroup.Spec.Priority != nil {
		r.Priority = *pgInfo.PodGroup.Spec.Priority
	}
	if st, err := s.Snapshot.PodGroupStates().Get(pgInfo.Namespace, pgInfo.Name); err == nil {
		r.ScheduledMembers = st.ScheduledPodsCount()
	}
	return r
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

func typesName(p *v1.Pod) types.NamespacedName {
	return types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
}

// waitForGroupActuation waits until the asynchronous preemption of the group has made its calls.
func (s *Scheduler) waitForGroupActuation(pgInfo *framework.PodGroupInfo) error {
	uid := pgInfo.PodGroup.UID
	return s.waitFor(func() bool { return s.Plugin.Executor.IsPodGroupRunningPreemption(uid) }, "pod group "+pgInfo.Namespace+"/"+pgInfo.Name)
}
