package upstream

import (
	"context"
	"sort"
	"sync"

	v1 "k8s.io/api/core/v1"
	policy "k8s.io/api/policy/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"

	"github.com/preempt/preempt/tests/conformance/internal/dump"
)

// DryRun is the outcome of SelectVictimsOnNode on one node.
type DryRun struct {
	Node          string
	Victims       []*v1.Pod
	PDBViolations int
	Status        *fwk.Status
}

// Recorder is the preemption.Interface of the evaluator: DefaultPreemption's own methods, with
// two changes that make upstream deterministic and observable.
//   - GetOffsetAndNumCandidates returns the offset given on the command line instead of
//     rand.Int31n (the number of candidates is the plugin's).
//   - SelectVictimsOnNode and CandidatesToVictimsMap record what they return: the dry run's
//     outcome per node, in evaluation order, the candidates DryRunPreemption kept, and the
//     victim units of several pods (a PodGroup in disruption mode all, GenericWorkload).
//
// At a parallelism above 1 the dry run calls SelectVictimsOnNode from several goroutines: the
// records are taken under a lock.
type Recorder struct {
	plugin *defaultpreemption.DefaultPreemption
	offset int64

	mu sync.Mutex
	// Units maps each pod of a victim unit of several pods to the unit's name (its smallest
	// pod key): the pods evicted together, listed by upstream in Go map order.
	Units map[string]string

	PotentialNodes   int32
	CandidatesWanted int32
	Offset           int32
	DryRuns          []DryRun
	Kept             []Candidate
	keptRecorded     bool
	// Selectable are the candidates SelectCandidate chose among: the last CandidatesToVictimsMap
	// call of the decision (after the extenders, which call it first), until frozen (mayNominate
	// calls SelectCandidate itself).
	Selectable []Candidate
	frozen     bool
	// calls counts the decision's CandidatesToVictimsMap calls: with extenders, callExtenders
	// makes the first and SelectCandidate a second only when two or more candidates are left.
	calls     int
	extenders bool // the framework runs extenders (a model case's hooks)
	// scores replaces the plugin's OrderedScoreFuncs when set (a model case's hooks).
	scores func(map[string]*extenderv1.Victims) []func(string) int64
}

var _ preemption.Interface = &Recorder{}

func (r *Recorder) GetOffsetAndNumCandidates(nodes int32) (int32, int32) {
	_, n := r.plugin.GetOffsetAndNumCandidates(nodes)
	r.PotentialNodes = nodes
	r.CandidatesWanted = n
	r.Offset = int32(r.offset % int64(nodes))
	return r.Offset, n
}

// freeze keeps Selectable as the decision left it; with extenders and a single call, the
// extenders left SelectCandidate one candidate at most (it returned it without the call).
func (r *Recorder) freeze() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.frozen = true
	if r.extenders && r.calls < 2 {
		r.Selectable = nil
	}
}

// reset forgets the records of an earlier decision.
func (r *Recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.DryRuns, r.Kept, r.keptRecorded, r.Units = nil, nil, false, nil
	r.Selectable, r.frozen, r.calls = nil, false, 0
}

// recordUnit names the unit of several pods by its smallest pod key.
func (r *Recorder) recordUnit(pods []fwk.PodInfo) {
	if len(pods) < 2 {
		return
	}
	keys := make([]string, 0, len(pods))
	for _, p := range pods {
		keys = append(keys, dump.Key(p.GetPod()))
	}
	sort.Strings(keys)
	if r.Units == nil {
		r.Units = map[string]string{}
	}
	for _, k := range keys {
		r.Units[k] = keys[0]
	}
}

func (r *Recorder) CandidatesToVictimsMap(candidates []Candidate) map[string]*extenderv1.Victims {
	r.mu.Lock()
	if !r.keptRecorded {
		r.Kept = append([]Candidate(nil), candidates...)
		r.keptRecorded = true
	}
	if !r.frozen {
		r.Selectable = append([]Candidate(nil), candidates...)
		r.calls++
	}
	r.mu.Unlock()
	return r.plugin.CandidatesToVictimsMap(candidates)
}

func (r *Recorder) PodEligibleToPreemptOthers(ctx context.Context, pod *v1.Pod, nominatedNodeStatus *fwk.Status) (bool, string) {
	return r.plugin.PodEligibleToPreemptOthers(ctx, pod, nominatedNodeStatus)
}

func (r *Recorder) SelectVictimsOnNode(ctx context.Context, state fwk.CycleState, preemptor *v1.Pod, nodeInfo fwk.NodeInfo,
	victims []*preemption.DomainVictim, pdbs []*policy.PodDisruptionBudget) ([]*v1.Pod, int, *fwk.Status) {
	name := nodeInfo.Node().Name
	pods, violations, status := r.plugin.SelectVictimsOnNode(ctx, state, preemptor, nodeInfo, victims, pdbs)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.DryRuns = append(r.DryRuns, DryRun{Node: name, Victims: pods, PDBViolations: violations, Status: status})
	for _, v := range victims {
		r.recordUnit(v.Pods())
	}
	return pods, violations, status
}

func (r *Recorder) OrderedScoreFuncs(ctx context.Context, nodesToVictims map[string]*extenderv1.Victims) []func(node string) int64 {
	if r.scores != nil {
		return r.scores(nodesToVictims)
	}
	return r.plugin.OrderedScoreFuncs(ctx, nodesToVictims)
}
