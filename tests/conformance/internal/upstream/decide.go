package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	k8stesting "k8s.io/client-go/testing"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/preempt/preempt/tests/conformance/internal/dump"
)

// NodeReport is one node of the report (the JSON contract of preempt-whatif).
type NodeReport struct {
	Name          string   `json:"name"`
	Status        string   `json:"status"`
	Reason        string   `json:"reason"`
	Victims       []string `json:"victims"`
	PDBViolations int64    `json:"pdbViolations"`
	Evaluated     bool     `json:"evaluated"`
}

// Report is the decision, in the JSON contract of preempt-whatif, plus what only the referee
// can say: the nodes upstream may nominate (its final tie-break iterates a Go map) and the API
// calls its actuation made.
type Report struct {
	Preemptor          string       `json:"preemptor"`
	Result             string       `json:"result"`
	NominatedNodeName  string       `json:"nominatedNodeName"`
	Victims            []string     `json:"victims"`
	PDBViolations      int64        `json:"pdbViolations"`
	ClearedNominations []string     `json:"clearedNominations"`
	Message            string       `json:"message"`
	Nodes              []NodeReport `json:"nodes"`
	Warnings           []string     `json:"warnings"`

	// Every node upstream may nominate for this decision: pickOneNodeForPreemption keeps the
	// first of the candidates still tied after its last criterion, in Go map order, which is
	// random. The nominated node is one of them.
	MayNominate []string `json:"mayNominate"`
	// For each node of MayNominate: the nominations its choice clears (the pods nominated to it
	// with a priority below the preemptor's, in the nominator's order).
	Clears map[string][]string `json:"clears"`
	// The API calls of the actuation, in order: "delete ns/name", "patch ns/name DisruptionTarget",
	// "patch ns/name nominatedNodeName=".
	Calls []string `json:"calls"`
	// Units maps each pod of a victim unit of several pods (a PodGroup in disruption mode all,
	// GenericWorkload) to the unit's name, its smallest pod key. Upstream lists a unit's pods from
	// its PodGroupState, a Go map: their order within the unit is random (compare.Compare compares
	// them as a set; known-differences.md).
	Units map[string]string `json:"units,omitempty"`

	// NotModelled is preempt-whatif's: what the decision depends on that the tool does not model
	// (exit status 3). Never set by the referee.
	NotModelled []string `json:"notModelled,omitempty"`
}

// statusReader is the NodeToStatusReader the PostFilter receives: the filter statuses, with
// the nodes of a status code listed in the dump's order. Upstream's NodeToStatus lists them in Go
// map order, which is random; DryRunPreemption then starts at a random offset in that list. With
// both pinned (this order, --offset), the dry run is deterministic.
type statusReader struct {
	*framework.NodeToStatus
	order []string
}

func (r statusReader) NodesForStatusCode(lister fwk.NodeInfoLister, code fwk.Code) ([]fwk.NodeInfo, error) {
	var nodes []fwk.NodeInfo
	for _, name := range r.order {
		if r.Get(name).Code() != code {
			continue
		}
		if info, err := lister.Get(name); err == nil {
			nodes = append(nodes, info)
		}
	}
	return nodes, nil
}

func reasons(s *fwk.Status) string {
	if s == nil {
		return ""
	}
	return strings.Join(s.Reasons(), ", ")
}

// Filter runs PreFilter, then Filter on every node (with the nominated pods), as kube-scheduler's
// scheduling cycle does before PostFilter: the cycle state, the statuses of the nodes that do not
// fit, and the nodes that do.
func (s *Scheduler) Filter(ctx context.Context, pod *v1.Pod) (*framework.CycleState, *framework.NodeToStatus, sets.Set[string], error) {
	fw := s.Framework
	state := framework.NewCycleState()
	statuses := framework.NewDefaultNodeToStatus()

	feasible := sets.New[string]()
	preRes, st, plugins := fw.RunPreFilterPlugins(ctx, state, pod)
	switch {
	case st.IsSuccess():
		candidates := s.NodeOrder
		if !preRes.AllNodes() {
			candidates = nil
			for _, name := range s.NodeOrder {
				if preRes.NodeNames.Has(name) {
					candidates = append(candidates, name)
				}
			}
			statuses.SetAbsentNodesStatus(fwk.NewStatus(fwk.UnschedulableAndUnresolvable,
				fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", sets.List(plugins))))
		}
		for _, name := range candidates {
			info, err := s.Snapshot.NodeInfos().Get(name)
			if err != nil {
				return nil, nil, nil, err
			}
			fs := fw.RunFilterPluginsWithNominatedPods(ctx, state, pod, info)
			if fs.Code() == fwk.Error {
				return nil, nil, nil, fmt.Errorf("filter on node %s: %v", name, fs.AsError())
			}
			if fs.IsSuccess() {
				feasible.Insert(name)
			} else {
				statuses.Set(name, fs)
			}
		}
	case st.IsRejected():
		// As the scheduler does: every node gets PreFilter's status.
		statuses.SetAbsentNodesStatus(st)
	default:
		return nil, nil, nil, fmt.Errorf("prefilter: %v", st.AsError())
	}

	return state, statuses, feasible, nil
}

// Decide runs kube-scheduler's scheduling cycle for the pod up to PostFilter: PreFilter, Filter
// on every node (with the nominated pods), and, when no node fits, DefaultPreemption's PostFilter
// including its actuation on the fake clientset.
func (s *Scheduler) Decide(ctx context.Context, pod *v1.Pod) (*Report, error) {
	s.Recorder.reset()
	r := &Report{Preemptor: dump.Key(pod), Victims: []string{}, ClearedNominations: []string{},
		Nodes: []NodeReport{}, Warnings: []string{}, MayNominate: []string{}, Calls: []string{}}
	if len(s.NodeOrder) == 0 {
		// schedulePod returns ErrNoNodesAvailable before any filter: PostFilter never runs, and
		// the failure handler clears the pod's nomination.
		r.Result, r.Message = "unschedulable", scheduler.ErrNoNodesAvailable.Error()
		return r, nil
	}
	state, statuses, feasible, err := s.Filter(ctx, pod)
	if err != nil {
		return nil, err
	}

	if feasible.Len() > 0 {
		r.Result = "fits"
		for _, name := range s.NodeOrder {
			if feasible.Has(name) {
				r.Nodes = append(r.Nodes, NodeReport{Name: name, Status: "Success", Victims: []string{}})
			}
		}
		return r, nil
	}

	result, pst := s.Plugin.PostFilter(ctx, state, pod, statusReader{statuses, s.NodeOrder})
	switch {
	case pst.IsSuccess():
		r.Result = "nominated"
		r.NominatedNodeName = result.NominatingInfo.NominatedNodeName
	case pst.Code() == fwk.Unschedulable && result != nil:
		r.Result = "unschedulable"
		r.Message = pst.Message()
	case pst.Code() == fwk.Unschedulable:
		r.Result = "not-eligible"
		r.Message = pst.Message()
	default:
		r.Result = "error"
		r.Message = pst.Message()
	}

	dry := map[string]DryRun{}
	for _, d := range s.Recorder.DryRuns {
		dry[d.Node] = d
	}
	kept := sets.New[string]()
	for _, c := range s.Recorder.Kept {
		kept.Insert(c.Name())
	}
	if !s.Recorder.keptRecorded && r.NominatedNodeName != "" {
		kept.Insert(r.NominatedNodeName) // a single candidate: SelectCandidate returned it as is
	}
	for _, name := range s.NodeOrder {
		n := NodeReport{Name: name, Victims: []string{}}
		if d, ok := dry[name]; ok {
			n.Evaluated = true
			st := d.Status
			if st.IsSuccess() && len(d.Victims) == 0 {
				// DryRunPreemption's own verdict on such a node.
				st = zeroVictimsStatus(name)
			}
			n.Status = st.Code().String()
			n.Reason = reasons(st)
			if st.IsSuccess() {
				for _, v := range d.Victims {
					n.Victims = append(n.Victims, dump.Key(v))
				}
				n.PDBViolations = int64(d.PDBViolations)
				if !kept.Has(name) {
					n.Reason = "not kept: enough candidates with budget violations were found before"
				}
			}
		} else {
			fs := statuses.Get(name)
			n.Status = fs.Code().String()
			n.Reason = reasons(fs)
		}
		r.Nodes = append(r.Nodes, n)
	}

	if len(s.Recorder.Units) > 0 {
		r.Units = s.Recorder.Units
	}
	if r.Result == "nominated" {
		d := dry[r.NominatedNodeName]
		for _, v := range d.Victims {
			r.Victims = append(r.Victims, dump.Key(v))
		}
		r.PDBViolations = int64(d.PDBViolations)
		if s.holdActuation {
			return r, nil
		}
		if err := s.waitForActuation(pod); err != nil {
			return nil, err
		}
		r.MayNominate = s.mayNominate(ctx, r.NominatedNodeName)
		r.Clears = map[string][]string{}
		for _, node := range r.MayNominate {
			r.Clears[node] = []string{}
			for _, pi := range nominatedPodsForNode(s.Queue, klog.FromContext(ctx), node) {
				if corev1helpers.PodPriority(pi.GetPod()) < corev1helpers.PodPriority(pod) {
					r.Clears[node] = append(r.Clears[node], dump.Key(pi.GetPod()))
				}
			}
		}
	}
	s.recordCalls(r)
	return r, nil
}

// waitForActuation waits until the asynchronous preemption (a goroutine) has made its API calls.
func (s *Scheduler) waitForActuation(pod *v1.Pod) error {
	return s.waitFor(func() bool { return s.Plugin.Executor.IsPodRunningPreemption(pod.UID) }, dump.Key(pod))
}

// waitFor waits while running says the preemption of what is still running.
func (s *Scheduler) waitFor(running func() bool, what string) error {
	deadline := time.Now().Add(30 * time.Second)
	for running() {
		if time.Now().After(deadline) {
			return fmt.Errorf("the preemption of %s did not finish", what)
		}
		time.Sleep(100 * time.Microsecond)
	}
	return nil
}

// mayNominate returns every node SelectCandidate may choose among the candidates it chose from
// (the kept ones, less those the extenders dropped: Recorder.Selectable). Its
// scores are a strict order on the candidates except for full ties, which Go's map iteration
// breaks at random. A candidate c is tied with the chosen node w when SelectCandidate on {w, c}
// ever returns c: if c scores lower it never does; if tied, each run returns c with probability
// at least 1/8 (Go randomizes a small map's iteration start among 8 slots), so 400 runs miss a
// tie with probability below 1e-23.
//
// With victim units of several pods (GenericWorkload) one score is random too:
// pickOneNodeForPreemption reads the priority of a candidate's first victim pod (the pod's own
// priority, not its group's), the first pod of the most important unit, which upstream lists in
// Go map order: any member of that unit may come first. Then c may be chosen when, with its own
// first pod of the lowest priority among those members and every other candidate's of the
// highest, no other candidate scores above it (every other score reads all victims, in any
// order). The pairs {c, d} are checked with those first pods, as above.
func (s *Scheduler) mayNominate(ctx context.Context, chosen string) []string {
	s.Recorder.freeze()
	all := s.Recorder.Selectable
	out := sets.New(chosen)
	var winner Candidate
	for _, c := range all {
		if c.Name() == chosen {
			winner = c
		}
	}
	if winner == nil || len(all) < 2 {
		return sets.List(out)
	}
	ev := s.Plugin.Evaluator
	beats := func(a, b Candidate) bool { // SelectCandidate on {a, b} may return a
		pair := []Candidate{a, b}
		for i := 0; i < 400; i++ {
			if ev.SelectCandidate(ctx, pair).Name() == a.Name() {
				return true
			}
		}
		return false
	}
	low, high := map[string]Candidate{}, map[string]Candidate{}
	mixed := false
	for _, c := range all {
		lo, hi, varies := s.firstPodChoices(c)
		low[c.Name()], high[c.Name()] = lo, hi
		mixed = mixed || varies
	}
	if !mixed {
		for _, c := range all {
			if c != winner && beats(c, winner) {
				out.Insert(c.Name())
			}
		}
		return sets.List(out)
	}
	for _, c := range all {
		if c == winner {
			continue
		}
		possible := beats(low[c.Name()], high[winner.Name()])
		for _, d := range all {
			if !possible {
				break
			}
			if d != c && d != winner {
				possible = beats(low[c.Name()], high[d.Name()])
			}
		}
		if possible {
			out.Insert(c.Name())
		}
	}
	return sets.List(out)
}

// orderedCandidate is a kept candidate with its victims in another order.
type orderedCandidate struct {
	Candidate
	victims *extenderv1.Victims
}

func (c orderedCandidate) Victims() *extenderv1.Victims { return c.victims }

// firstPodChoices returns the candidate with the member of its first victim unit of the lowest
// pod priority first, and with that of the highest first, and whether they differ.
func (s *Scheduler) firstPodChoices(c Candidate) (low, high Candidate, varies bool) {
	pods := c.Victims().Pods
	if len(pods) < 2 || s.Recorder.Units[dump.Key(pods[0])] == "" {
		return c, c, false
	}
	unit := s.Recorder.Units[dump.Key(pods[0])]
	n := 0
	for n < len(pods) && s.Recorder.Units[dump.Key(pods[n])] == unit {
		n++
	}
	lo, hi := 0, 0
	for i := 1; i < n; i++ {
		if corev1helpers.PodPriority(pods[i]) < corev1helpers.PodPriority(pods[lo]) {
			lo = i
		}
		if corev1helpers.PodPriority(pods[i]) > corev1helpers.PodPriority(pods[hi]) {
			hi = i
		}
	}
	first := func(i int) Candidate {
		reordered := append([]*v1.Pod{pods[i]}, append(append([]*v1.Pod(nil), pods[:i]...), pods[i+1:]...)...)
		return orderedCandidate{c, &extenderv1.Victims{Pods: reordered, NumPDBViolations: c.Victims().NumPDBViolations}}
	}
	return first(lo), first(hi), corev1helpers.PodPriority(pods[lo]) != corev1helpers.PodPriority(pods[hi])
}

// recordCalls lists the fake clientset's writes (the actuation's API calls) and the pods whose
// nomination the actuation cleared.
func (s *Scheduler) recordCalls(r *Report) {
	for _, a := range s.Client.Actions() {
		switch act := a.(type) {
		case k8stesting.DeleteAction:
			if act.GetResource().Resource == "pods" {
				r.Calls = append(r.Calls, "delete "+act.GetNamespace()+"/"+act.GetName())
			}
		case k8stesting.PatchAction:
			if act.GetResource().Resource != "pods" {
				continue
			}
			key := act.GetNamespace() + "/" + act.GetName()
			var patch struct {
				Status map[string]json.RawMessage `json:"status"`
			}
			_ = json.Unmarshal(act.GetPatch(), &patch)
			var parts []string
			if _, ok := patch.Status["nominatedNodeName"]; ok {
				parts = append(parts, "nominatedNodeName=")
				r.ClearedNominations = append(r.ClearedNominations, key)
			}
			if _, ok := patch.Status["conditions"]; ok {
				parts = append(parts, "DisruptionTarget")
			}
			sort.Strings(parts)
			r.Calls = append(r.Calls, "patch "+key+" "+strings.Join(parts, ","))
		}
	}
}
