package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/preempt/preempt/tests/conformance/internal/compare"
	"github.com/preempt/preempt/tests/conformance/internal/gen"
	"github.com/preempt/preempt/tests/conformance/internal/upstream"
	"github.com/preempt/preempt/tests/conformance/internal/whatif"
)

// GroupPreemptor is the pseudo-family of the clusters decided for a pending PodGroup
// (`--pod-group`, upstream's PodGroupPostFilter) instead of a pod.
const GroupPreemptor = "group-preemptor"

// groupDraw tells whether cluster seed is decided for a pending group: a draw of its own stream,
// so that the clusters of the other families stay what their seeds made.
func groupDraw(seed int64, share float64) bool {
	return share > 0 && rand.New(rand.NewSource(seed*104729+7)).Float64() < share
}

// groupCase turns a generated cluster into a pending-group decision: the pod to place becomes
// the template of 1 to 4 pending members of a new PodGroup "pending" in its namespace (basic, or
// a gang whose minCount may count members already running or exceed what can be placed), each
// member a share of the pod's requests, some nominated to a node already, some members already
// running (bound pods of that namespace joining the group), now and then a member with
// preemptionPolicy Never; the group's priority is the pod's (set, or from its class by admission).
func groupCase(c *gen.Case) (*gen.Case, string) {
	r := rand.New(rand.NewSource(c.Seed*7727 + 3))
	tmpl := c.Preemptor
	ns := tmpl.Namespace
	var pods []*v1.Pod
	for _, p := range c.Pods {
		if p != tmpl {
			pods = append(pods, p)
		}
	}
	c.Pods = pods
	pg := &schedulingv1beta1.PodGroup{
		TypeMeta:   metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1beta1", Kind: "PodGroup"},
		ObjectMeta: metav1.ObjectMeta{Name: "pending", Namespace: ns, UID: types.UID("uid-pg-" + ns + "-pending")},
	}
	if tmpl.Spec.Priority != nil && r.Float64() < 0.8 {
		v := *tmpl.Spec.Priority
		pg.Spec.Priority = &v
		pg.Spec.PriorityClassName = tmpl.Spec.PriorityClassName
	} else {
		pg.Spec.PriorityClassName = tmpl.Spec.PriorityClassName // admission resolves it
	}
	members := 1 + r.Intn(4)
	running := 0
	if r.Float64() < 0.25 {
		name := "pending"
		for _, p := range c.Pods {
			if p.Namespace == ns && p.Spec.NodeName != "" && p.DeletionTimestamp == nil && running < 2 && r.Float64() < 0.3 {
				p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &name}
				running++
			}
		}
	}
	if r.Float64() < 0.5 {
		pg.Spec.SchedulingPolicy.Basic = &schedulingv1beta1.BasicSchedulingPolicy{}
	} else {
		minCount := int32(1 + r.Intn(members+running+1))
		pg.Spec.SchedulingPolicy.Gang = &schedulingv1beta1.GangSchedulingPolicy{MinCount: minCount}
	}
	share := int64(1 + r.Intn(members))
	for i := 0; i < members; i++ {
		m := tmpl.DeepCopy()
		m.Name = fmt.Sprintf("member-%d", i)
		m.UID = types.UID(fmt.Sprintf("uid-%s-member-%d", ns, i))
		m.Status = v1.PodStatus{Phase: v1.PodPending}
		name := "pending"
		m.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &name}
		for k := range m.Spec.Containers {
			scale(m.Spec.Containers[k].Resources.Requests, share)
		}
		for k := range m.Spec.InitContainers {
			scale(m.Spec.InitContainers[k].Resources.Requests, share)
		}
		if r.Float64() < 0.25 && len(c.Nodes) > 0 {
			m.Status.NominatedNodeName = c.Nodes[r.Intn(len(c.Nodes))].Name
		}
		if r.Float64() < 0.04 {
			never := v1.PreemptNever
			m.Spec.PreemptionPolicy = &never
		}
		c.Pods = append(c.Pods, m)
	}
	c.PodGroups = append(c.PodGroups, pg)
	c.Families = append(c.Families, GroupPreemptor)
	validationAndDeletion(c, r, tmpl, ns)
	return c, ns + "/pending"
}

// validationAndDeletion draws what kube-scheduler checks before a group's cycle (validatePodGroup:
// every queued and scheduled member has the group's priority and one preemption policy) and what
// it leaves out of it (members being deleted): the running members joined to the group mostly
// take the group's priority and policy (else the cycle fails), now and then a pending member has
// another priority, and members are being deleted (a finalizer keeps them), now and then all.
func validationAndDeletion(c *gen.Case, r *rand.Rand, tmpl *v1.Pod, ns string) {
	var pending, running []*v1.Pod
	for _, p := range c.Pods {
		if p.Namespace != ns || p.Spec.SchedulingGroup == nil || p.Spec.SchedulingGroup.PodGroupName == nil ||
			*p.Spec.SchedulingGroup.PodGroupName != "pending" {
			continue
		}
		if p.Spec.NodeName == "" {
			pending = append(pending, p)
		} else {
			running = append(running, p)
		}
	}
	if r.Float64() < 0.8 {
		for _, p := range running {
			p.Spec.Priority, p.Spec.PriorityClassName = nil, tmpl.Spec.PriorityClassName
			if tmpl.Spec.Priority != nil {
				v := *tmpl.Spec.Priority
				p.Spec.Priority = &v
			}
			p.Spec.PreemptionPolicy = tmpl.Spec.PreemptionPolicy
		}
	}
	if len(pending) > 0 && r.Float64() < 0.08 {
		p := pending[r.Intn(len(pending))]
		v := int32(0)
		if p.Spec.Priority != nil {
			v = *p.Spec.Priority - 1
		}
		p.Spec.Priority = &v
	}
	deleting := 0.0
	switch x := r.Float64(); {
	case x < 0.04:
		deleting = 1
	case x < 0.15:
		deleting = 0.4
	}
	for _, p := range pending {
		if r.Float64() < deleting {
			t := metav1.NewTime(time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC))
			p.DeletionTimestamp = &t
			zero := int64(0)
			p.DeletionGracePeriodSeconds = &zero
			p.Finalizers = append(p.Finalizers, "example.com/cleanup")
		}
	}
}

// scale divides each request by n (a member asks for its share of the template's).
func scale(l v1.ResourceList, n int64) {
	for k, q := range l {
		if k == v1.ResourceCPU {
			l[k] = *resource.NewMilliQuantity(max(1, q.MilliValue()/n), resource.DecimalSI)
		} else if q.Value() >= n {
			l[k] = *resource.NewQuantity(q.Value()/n, q.Format)
		}
	}
}

// writeGroupCase stores the case in dir as a pending-group case (gen.Case.Write with PodGroup).
func writeGroupCase(c *gen.Case, key, dir string) error {
	c.PodGroup = key
	return c.Write(dir)
}

// upstreamGroup runs kube-whatif --pod-group in this process.
func upstreamGroup(args []string) (*upstream.GroupReport, error) {
	o, err := whatif.ParseArgs(args)
	if err != nil {
		return nil, err
	}
	return whatif.DecideGroup(o)
}

// compareGroups lists the disagreements of preempt's group decision with upstream's: result,
// members and their nominations (in order), victims (the pods of a unit as a set, as for pods;
// all of them as a set when upstream made no API call), budget violations, pod-group
// disruptions (not when upstream made no API call: it does not tell them then), message,
// priority and the members already scheduled.
func compareGroups(up, pr *upstream.GroupReport) ([]compare.Diff, bool) {
	var out []compare.Diff
	add := func(field, u, p string) { out = append(out, compare.Diff{Field: field, Upstream: u, Preempt: p}) }
	q := func(s string) string { return fmt.Sprintf("%q", s) }
	l := func(s []string) string { return "[" + strings.Join(s, ", ") + "]" }
	if up.Result != pr.Result {
		add("result", up.Result, pr.Result)
	}
	members := func(m []upstream.GroupMember) string {
		var s []string
		for _, x := range m {
			s = append(s, x.Name+"@"+x.NominatedNodeName)
		}
		return l(s)
	}
	if members(up.Members) != members(pr.Members) {
		add("members", members(up.Members), members(pr.Members))
	}
	unitSets := false
	uv, pv := up.Victims, pr.Victims
	if up.VictimsAsSet {
		uv, pv = append([]string(nil), uv...), append([]string(nil), pv...)
		sort.Strings(uv)
		sort.Strings(pv)
		unitSets = strings.Join(pr.Victims, ",") != strings.Join(pv, ",")
	}
	if strings.Join(uv, ",") != strings.Join(pv, ",") {
		cu, cp := compare.InUnitOrder(uv, up.Units), compare.InUnitOrder(pv, up.Units)
		if strings.Join(cu, ",") == strings.Join(cp, ",") {
			unitSets = true
		} else {
			add("victims", l(up.Victims), l(pr.Victims))
		}
	}
	if !up.VictimsAsSet {
		if up.PDBViolations != pr.PDBViolations {
			add("pdbViolations", fmt.Sprint(up.PDBViolations), fmt.Sprint(pr.PDBViolations))
		}
		if up.PodGroupDisruptions != pr.PodGroupDisruptions {
			add("podGroupDisruptions", fmt.Sprint(up.PodGroupDisruptions), fmt.Sprint(pr.PodGroupDisruptions))
		}
	}
	// A placement failure's message is the shared placement's own ("k of n pending member(s)
	// placed, m needed"): where the placement stops (upstream's PlacementFeasible stops it once
	// minCount is out of reach) changes k, and upstream has no word of its own for it.
	placementFailure := func(m string) bool { return strings.HasSuffix(m, " needed") }
	if up.Message != pr.Message && !(up.Result == "unschedulable" && placementFailure(up.Message) && placementFailure(pr.Message)) {
		add("message", q(up.Message), q(pr.Message))
	}
	if up.Priority != pr.Priority {
		add("priority", fmt.Sprint(up.Priority), fmt.Sprint(pr.Priority))
	}
	if up.ScheduledMembers != pr.ScheduledMembers {
		add("scheduledMembers", fmt.Sprint(up.ScheduledMembers), fmt.Sprint(pr.ScheduledMembers))
	}
	if up.DeletingMembers != pr.DeletingMembers {
		add("deletingMembers", fmt.Sprint(up.DeletingMembers), fmt.Sprint(pr.DeletingMembers))
	}
	return out, unitSets
}

// groupKey identifies an answer of upstream for a group, its units' pods as sets.
func groupKey(r *upstream.GroupReport) string {
	c := *r
	c.Calls = nil
	c.Victims = compare.InUnitOrder(r.Victims, r.Units)
	data, _ := json.Marshal(c)
	return string(data)
}

// decideGroupCase decides a pending-group case with upstream (again, up to d.runs times, while
// preempt disagrees and victim units make upstream random) and with preempt-whatif.
func (d deciders) decideGroupCase(dir string, args []string) (outcome, *upstream.GroupReport, *upstream.GroupReport, error) {
	var o outcome
	refArgs := append(append([]string(nil), args...), d.refereeArgs...)
	up, err := upstreamGroup(refArgs)
	var bad whatif.BadInput
	if err != nil && errors.As(err, &bad) {
		// Input kube-whatif refuses (the API server's admission, or a group with no pending
		// member): preempt-whatif must refuse it too, as bad input (exit status 2).
		o.up, o.upstreamRuns, o.distinct = rejected(err.Error()), 1, 1
		var pr upstream.GroupReport
		_, perr := runJSON(d.preempt, preemptArgs(args), &pr)
		var exit exitStatus
		if perr != nil && errors.As(perr, &exit) && exit.code == exitBadInput {
			o.pr = rejected(exit.stderr)
		} else {
			o.diffs = []compare.Diff{{Field: "result", Upstream: "rejected (" + err.Error() + ")",
				Preempt: fmt.Sprintf("a decision (%v)", perr)}}
		}
		return o, nil, nil, nil
	}
	if err != nil {
		return o, nil, nil, fmt.Errorf("%s: upstream: %v", dir, err)
	}
	o.up = &upstream.Report{Result: up.Result}
	o.upstreamRuns, o.distinct = 1, 1
	var pr upstream.GroupReport
	refused, err := runJSON(d.preempt, preemptArgs(args), &pr)
	if err != nil {
		o.diffs = failure(err)
		return o, up, nil, nil
	}
	o.pr = &upstream.Report{Result: pr.Result, NotModelled: pr.NotModelled}
	o.refused = refused
	o.diffs, o.unitSets = compareGroups(up, &pr)
	// Upstream's pod-group path is random beyond victim units of several pods (seed 1534 of
	// `run --count 1700`: tied single-pod victims under budgets, several distinct answers over
	// reruns). So any disagreement is decided again; preempt's answer passes when upstream gives it.
	// As for single pods (rerun), certainAfter runs of one answer end the reruns, and a refused
	// cluster, which counts in neither number, is decided refusedCertainAfter times at most (seed
	// 638 of `run --count 3000`: 128 runs of 1.8 s, several answers, for a refused group).
	if len(o.diffs) > 0 {
		seen := map[string]bool{groupKey(up): true}
		limit := d.runs
		for run := 2; run <= limit && len(o.diffs) > 0; run++ {
			if (run > certainAfter && len(seen) == 1) || (refused && run > refusedCertainAfter) {
				break
			}
			again, err := upstreamGroup(refArgs)
			if err != nil {
				return o, up, &pr, fmt.Errorf("%s: upstream: %v", dir, err)
			}
			o.upstreamRuns = run
			seen[groupKey(again)] = true
			if diffs, unitSets := compareGroups(again, &pr); len(diffs) == 0 {
				up, o.diffs, o.unitSets, o.matchedRun = again, nil, unitSets, run
				o.up.Result = again.Result
			}
			limit = d.runLimit(run, limit, len(seen), len(o.diffs) > 0, refused)
		}
		o.distinct = len(seen)
	}
	if len(o.diffs) > 0 {
		if stamped, err := upstreamGroup(append(refArgs, "--stamp-start-times")); err == nil {
			if diffs, _ := compareGroups(stamped, &pr); len(diffs) == 0 {
				markCause(o.diffs, startTimeCause)
			}
		}
	}
	return o, up, &pr, nil
}
