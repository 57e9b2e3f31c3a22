package upstream

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/preempt/preempt/tests/conformance/internal/dump"
)

// GroupMember is a pending member of the group and the node it is nominated to ("" none).
type GroupMember struct {
	Name              string `json:"name"`
	NominatedNodeName string `json:"nominatedNodeName"`
}

// GroupReport is the decision for a pending pod group, in preempt-whatif's --pod-group JSON
// contract (examples/whatif/README.md), plus what only the referee can say.
type GroupReport struct {
	PodGroup         string        `json:"podGroup"`
	Priority         int32         `json:"priority"`
	ScheduledMembers int           `json:"scheduledMembers"`
	Result           string        `json:"result"`
	Placement        string        `json:"placement"`
	Members          []GroupMember `json:"members"`
	Victims          []string      `json:"victims"`
	PDBViolations    int64         `json:"pdbViolations"`
	// PodGroupDisruptions is the number of victim units that are pod groups (a pod of a group in
	// disruption mode single counts as one).
	PodGroupDisruptions int `json:"podGroupDisruptions"`
	// DeletingMembers: pending members being deleted, left out of the cycle
	// (skipPodGroupPodSchedule); with result "deleting", every pending member is.
	DeletingMembers int      `json:"deletingMembers,omitempty"`
	Message         string   `json:"message"`
	Warnings        []string `json:"warnings"`
	NotModelled     []string `json:"notModelled,omitempty"`

	// The referee's own fields. Units: as Report.Units, here named by the group evicted whole.
	Units map[string]string `json:"units,omitempty"`
	// VictimsAsSet: upstream made no API call (every victim already terminating), so the
	// referee knows its victims as a set (the pods its evaluation removed from the snapshot and
	// did not add back) and not their order, budget violations or disruptions.
	VictimsAsSet bool `json:"victimsAsSet,omitempty"`
	// Calls: the actuation's API calls, as Report.Calls.
	Calls []string `json:"calls"`
}

// FirstFitPlacement is how both sides place a pending group (preempt-whatif's
// group_placement_method): the pending members in input order, each on the first node in input
// order whose filters pass with the nominated pods and the members placed before it; success as
// upstream's pod-group algorithm judges it (the PlacementFeasible plugins, GangScheduling's
// minCount counting the scheduled members, and at least one member placed).
const FirstFitPlacement = "first fit: the pending members in input order, each on the first node in input " +
	"order that passes the node filters and has room with the nominated pods and the members placed before " +
	"it; no scoring"

// recordingSnapshot is the scheduler's snapshot as the framework's mutable lister: it records
// which pods a mutation session left removed when it ended (the pod-group evaluator removes its
// victims and adds back the ones it reprieves).
type recordingSnapshot struct {
	*internalcache.Snapshot
	mu      sync.Mutex
	net     map[string]int
	order   []string
	removed []string // of the last session, in order of first removal
}

func (r *recordingSnapshot) StartMutations() error {
	r.mu.Lock()
	r.net, r.order = map[string]int{}, nil
	r.mu.Unlock()
	return r.Snapshot.StartMutations()
}

func (r *recordingSnapshot) EndMutations() error {
	r.mu.Lock()
	r.removed = nil
	for _, k := range r.order {
		if r.net[k] < 0 {
			r.removed = append(r.removed, k)
		}
	}
	r.mu.Unlock()
	return r.Snapshot.EndMutations()
}

func (r *recordingSnapshot) AddPod(podInfo fwk.PodInfo, nodeName string) error {
	r.count(dump.Key(podInfo.GetPod()), +1)
	return r.Snapshot.AddPod(podInfo, nodeName)
}

func (r *recordingSnapshot) RemovePod(logger klog.Logger, pod *v1.Pod, nodeName string) error {
	r.count(dump.Key(pod), -1)
	return r.Snapshot.RemovePod(logger, pod, nodeName)
}

func (r *recordingSnapshot) count(key string, d int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.net == nil {
		r.net = map[string]int{}
	}
	if _, ok := r.net[key]; !ok {
		r.order = append(r.order, key)
	}
	r.net[key] += d
}

// proposed is one member placed by the first-fit placement (a fwk.ProposedAssignment).
type proposed struct {
	info  *framework.PodInfo
	node  string
	state *framework.CycleState
}

func (p *proposed) GetPod() *v1.Pod               { return p.info.Pod }
func (p *proposed) GetPodInfo() fwk.PodInfo       { return p.info }
func (p *proposed) GetNodeName() string           { return p.node }
func (p *proposed) GetCycleState() fwk.CycleState { return p.state }

// firstFitNode runs PreFilter, then Filter with the nominated pods on each node in input order
// (v1.38: in RankNodes' order, rankNodes), and returns the first node that passes ("" when none
// does).
func (s *Scheduler) firstFitNode(ctx context.Context, state *framework.CycleState, pod *v1.Pod) (string, *fwk.Status) {
	preRes, st, _ := s.Framework.RunPreFilterPlugins(ctx, state, pod)
	if st.IsRejected() {
		return "", st
	}
	if !st.IsSuccess() {
		return "", st
	}
	var infos []fwk.NodeInfo
	for _, name := range s.NodeOrder {
		if !preRes.AllNodes() && !preRes.NodeNames.Has(name) {
			continue
		}
		info, err := s.Snapshot.NodeInfos().Get(name)
		if err != nil {
			return "", fwk.AsStatus(err)
		}
		infos = append(infos, info)
	}
	infos, st = rankNodes(ctx, s.Framework, state, pod, infos)
	if !st.IsSuccess() {
		return "", st
	}
	for _, info := range infos {
		name := info.Node().Name
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
	groupState, done := innerGroupState(groupState)
	defer done()
	placement := framework.NewCycleState()
	joinGroupCycle(placement, groupState)
	var reverts []func()
	defer func() {
		for i := len(reverts) - 1; i >= 0; i-- {
			reverts[i]()
		}
	}()
	scheduled := 0
	if st, err := s.Snapshot.PodGroupStates().Get(pgInfo.GetNamespace(), pgInfo.GetName()); err == nil {
		scheduled = st.ScheduledPodsCount()
	}
	progress := placementProgress{Remaining: len(members), Scheduled: scheduled}
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
		joinGroupCycle(state, groupState)
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
		} else {
			countUnschedulable(&progress)
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
// one (allAncestorUnit, over the snapshot's listers; without CompositePodGroup, the pod's own
// PodGroup).
func (s *Scheduler) groupUnits(pods []*v1.Pod) map[string]string {
	units := map[string]string{}
	for _, p := range pods {
		if p.Spec.SchedulingGroup == nil || p.Spec.SchedulingGroup.PodGroupName == nil {
			continue
		}
		name := *p.Spec.SchedulingGroup.PodGroupName
		unit := ""
		if !s.compositePodGroups {
			if pg, err := s.Snapshot.PodGroups().Get(p.Namespace, name); err == nil && pg != nil && pg.Spec.DisruptionMode != nil && pg.Spec.DisruptionMode.All != nil {
				unit = "PodGroup " + p.Namespace + "/" + name
			}
		} else {
			unit = s.allAncestorUnit(p.Namespace, name)
		}
		if unit != "" {
			units[dump.Key(p)] = unit
		}
	}
	return units
}

// DecideGroup runs kube-scheduler's pod-group cycle for a pending group up to its
// PodGroupPostFilter, with the members placed by FirstFitPlacement (v1.38: in RankNodes' order
// inside the preemption): the placement on the
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
			r.PodGroupDisruptions = podGroupDisruptions(c)
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
	r := &GroupReport{PodGroup: pgInfo.GetNamespace() + "/" + pgInfo.GetName(), Placement: FirstFitPlacement,
		Members: []GroupMember{}, Victims: []string{}, Warnings: []string{}, Calls: []string{}}
	if pgInfo.PodGroup != nil && pgInfo.PodGroup.Spec.Priority != nil {
		r.Priority = *pgInfo.PodGroup.Spec.Priority
	}
	if st, err := s.Snapshot.PodGroupStates().Get(pgInfo.GetNamespace(), pgInfo.GetName()); err == nil {
		r.ScheduledMembers = st.ScheduledPodsCount()
	}
	return r
}

func typesName(p *v1.Pod) types.NamespacedName {
	return types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
}

// waitForGroupActuation waits until the asynchronous preemption of the group has made its calls.
func (s *Scheduler) waitForGroupActuation(pgInfo *framework.PodGroupInfo) error {
	uid := pgInfo.PodGroup.UID
	return s.waitFor(func() bool { return executorOf(s.Plugin).IsPodGroupRunningPreemption(uid) }, "pod group "+pgInfo.GetNamespace()+"/"+pgInfo.GetName())
}
