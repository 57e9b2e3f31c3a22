package whatif

import (
	"context"
	"errors"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/features"

	"github.com/preempt/preempt/tests/conformance/internal/dump"
	"github.com/preempt/preempt/tests/conformance/internal/upstream"
)

// DecideGroup decides for the pending PodGroup o.PodGroup with upstream's code: its pending
// members (the dump's pending pods naming it, in input order) placed by the placement both sides
// share (upstream.FirstFitPlacement), then DefaultPreemption's PodGroupPostFilter. GenericWorkload
// must be on (--feature-gates). A PodGroup under a CompositePodGroup (CompositePodGroup on) is
// decided for itself alone, with a warning: kube-scheduler schedules the whole hierarchy as one
// unit, which the referee does not place.
func DecideGroup(o Options) (*upstream.GroupReport, error) {
	if o.SchedulerName == "" {
		o.SchedulerName = v1.DefaultSchedulerName
	}
	if o.FeatureGates != "" {
		if err := utilfeature.DefaultMutableFeatureGate.Set(o.FeatureGates); err != nil {
			return nil, BadInput{Err: fmt.Errorf("--feature-gates: %v", err)}
		}
	}
	if !utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload) {
		return nil, BadInput{Err: errors.New("--pod-group: needs --feature-gates GenericWorkload=true (pod groups are scheduled only with it)")}
	}
	if len(o.Clusters) == 0 {
		return nil, BadInput{Err: errors.New("--cluster is required")}
	}
	ns, name, ok := strings.Cut(o.PodGroup, "/")
	if !ok || ns == "" || name == "" {
		return nil, BadInput{Err: fmt.Errorf("--pod-group %s: expected NAMESPACE/NAME", o.PodGroup)}
	}
	d := &dump.Dump{}
	for _, f := range o.Clusters {
		fname, data, err := dump.ReadFile(f)
		if err != nil {
			return nil, BadInput{Err: err}
		}
		if err := d.AddFile(fname, data); err != nil {
			return nil, BadInput{Err: err}
		}
	}
	if err := d.Validate(); err != nil {
		return nil, BadInput{Err: err}
	}
	d.SystemClasses()
	if err := d.AdmitGroups(); err != nil {
		return nil, BadInput{Err: err}
	}
	var pg *schedulingv1beta1.PodGroup
	for _, g := range d.PodGroups {
		if g.Namespace == ns && g.Name == name {
			pg = g
		}
	}
	if pg == nil {
		return nil, BadInput{Err: fmt.Errorf("--pod-group %s: no such PodGroup in the cluster dump", o.PodGroup)}
	}
	var pods, members []*v1.Pod
	for _, p := range d.Pods {
		if dump.IsTerminal(p) {
			continue
		}
		if err := d.Admit(p, "Pod "+dump.Key(p)); err != nil {
			return nil, BadInput{Err: err}
		}
		pods = append(pods, p)
		// The queue holds only the pods of the scheduler's profiles (responsibleForPod).
		if p.Spec.NodeName == "" && p.Namespace == ns && p.Spec.SchedulingGroup != nil &&
			p.Spec.SchedulingGroup.PodGroupName != nil && *p.Spec.SchedulingGroup.PodGroupName == name &&
			responsible(p, o.SchedulerName) {
			members = append(members, p)
		}
	}
	if len(members) == 0 {
		return nil, BadInput{Err: fmt.Errorf("--pod-group %s: the PodGroup has no pending member pod (spec.schedulingGroup.podGroupName %s, no spec.nodeName)",
			o.PodGroup, name)}
	}
	if o.StampStartTimes {
		stampStartTimes(pods)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx = klog.NewContext(ctx, klog.Background())
	s, err := upstream.New(ctx, d, pods, upstream.Options{SchedulerName: o.SchedulerName, Offset: o.Offset,
		Parallelism: o.Parallelism})
	if err != nil {
		return nil, err
	}
	pgInfo := upstream.NewPodGroupInfo(pg, members)
	// The queue's PreEnqueue plugins first (GangScheduling holds every pod of a gang with fewer
	// than minCount pods; SchedulingGates a pod with gates): only the pods they let in are queued.
	var queued []*v1.Pod
	var held *upstream.Report
	for _, p := range members {
		if r := preEnqueue(ctx, s, p); r != nil {
			if held == nil {
				held = r
			}
			continue
		}
		queued = append(queued, p)
	}
	if len(queued) == 0 {
		r := s.NewGroupReport(pgInfo)
		r.Result, r.Message = "gated", held.Message
		for _, p := range members {
			r.Members = append(r.Members, upstream.GroupMember{Name: dump.Key(p), NominatedNodeName: p.Status.NominatedNodeName})
		}
		return r, nil
	}
	members = queued
	pgInfo.UnscheduledPods = members
	// Before the cycle (scheduleOnePodGroup): the group's validation over every queued member,
	// then skipPodGroupPodSchedule leaves out the members being deleted.
	if err := s.ValidateGroup(pgInfo); err != nil {
		r := s.NewGroupReport(pgInfo)
		r.Result, r.Message = "error", err.Error()
		for _, p := range members {
			r.Members = append(r.Members, upstream.GroupMember{Name: dump.Key(p)})
		}
		return r, nil
	}
	var live, deleting []*v1.Pod
	for _, p := range members {
		if p.DeletionTimestamp != nil {
			deleting = append(deleting, p)
		} else {
			live = append(live, p)
		}
	}
	if len(live) == 0 {
		// No cycle runs (upstream logs each skip; the message is preempt-whatif's).
		r := s.NewGroupReport(pgInfo)
		r.Result, r.DeletingMembers = "deleting", len(deleting)
		r.Message = "every pending member is being deleted (metadata.deletionTimestamp): kube-scheduler skips them " +
			"(skipPodGroupPodSchedule) and runs no cycle for the group"
		for _, p := range deleting {
			r.Members = append(r.Members, upstream.GroupMember{Name: dump.Key(p)})
		}
		return r, nil
	}
	pgInfo.UnscheduledPods = live
	r, err := s.DecideGroup(ctx, pgInfo)
	if err != nil {
		return nil, err
	}
	r.DeletingMembers = len(deleting)
	if pg.Spec.ParentCompositePodGroupName != nil && utilfeature.DefaultFeatureGate.Enabled(features.CompositePodGroup) {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the PodGroup belongs to CompositePodGroup %s/%s: kube-scheduler schedules the whole hierarchy as one unit; decided here for this PodGroup alone",
			ns, *pg.Spec.ParentCompositePodGroupName))
	}
	return r, nil
}

// responsible tells whether the scheduler's queue holds the pod (responsibleForPod: its
// spec.schedulerName is the profile's; unset is the default scheduler's).
func responsible(p *v1.Pod, schedulerName string) bool {
	name := p.Spec.SchedulerName
	if name == "" {
		name = v1.DefaultSchedulerName
	}
	return name == schedulerName
}
