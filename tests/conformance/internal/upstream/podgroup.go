package upstream

import (
	"sync"

	v1 "k8s.io/api/core/v1"
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
