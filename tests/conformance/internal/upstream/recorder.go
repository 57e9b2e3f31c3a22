package upstream

import (
	"context"

	v1 "k8s.io/api/core/v1"
	policy "k8s.io/api/policy/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"
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
//     outcome per node, in evaluation order, and the candidates DryRunPreemption kept.
type Recorder struct {
	plugin *defaultpreemption.DefaultPreemption
	offset int64

	PotentialNodes   int32
	CandidatesWanted int32
	Offset           int32
	DryRuns          []DryRun
	Kept             []preemption.Candidate
	keptRecorded     bool
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

func (r *Recorder) CandidatesToVictimsMap(candidates []preemption.Candidate) map[string]*extenderv1.Victims {
	if !r.keptRecorded {
		r.Kept = append([]preemption.Candidate(nil), candidates...)
		r.keptRecorded = true
	}
	return r.plugin.CandidatesToVictimsMap(candidates)
}

func (r *Recorder) PodEligibleToPreemptOthers(ctx context.Context, pod *v1.Pod, nominatedNodeStatus *fwk.Status) (bool, string) {
	return r.plugin.PodEligibleToPreemptOthers(ctx, pod, nominatedNodeStatus)
}

func (r *Recorder) SelectVictimsOnNode(ctx context.Context, state fwk.CycleState, preemptor *v1.Pod, nodeInfo fwk.NodeInfo,
	victims []*preemption.DomainVictim, pdbs []*policy.PodDisruptionBudget) ([]*v1.Pod, int, *fwk.Status) {
	name := nodeInfo.Node().Name
	pods, violations, status := r.plugin.SelectVictimsOnNode(ctx, state, preemptor, nodeInfo, victims, pdbs)
	r.DryRuns = append(r.DryRuns, DryRun{Node: name, Victims: pods, PDBViolations: violations, Status: status})
	return pods, violations, status
}

func (r *Recorder) OrderedScoreFuncs(ctx context.Context, nodesToVictims map[string]*extenderv1.Victims) []func(node string) int64 {
	if r.scores != nil {
		return r.scores(nodesToVictims)
	}
	return r.plugin.OrderedScoreFuncs(ctx, nodesToVictims)
}
