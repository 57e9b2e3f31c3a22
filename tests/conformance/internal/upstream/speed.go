package upstream

import (
	"context"
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	fwk "k8s.io/kube-scheduler/framework"
	schedulerapi "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework/parallelize"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	plfeature "k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"
)

// parallelHandle is the framework's handle with its own parallelism: DryRunPreemption spreads
// the nodes over Handler.Parallelizer().
type parallelHandle struct {
	fwk.Handle
	p parallelize.Parallelizer
}

func (h parallelHandle) Parallelizer() fwk.Parallelizer { return h.p }

// Evaluation is the DefaultPreemption evaluator alone, for timing its decision: a plugin of its
// own (DefaultPreemption's New, with the given sampling arguments and parallelism) over the
// scheduler's framework, and the filter outcome of one pod, computed once.
type Evaluation struct {
	Evaluator *preemption.Evaluator
	pod       *v1.Pod
	state     fwk.CycleState
	statuses  fwk.NodeToStatusReader
	offset    int32
}

// NewEvaluation runs PreFilter and Filter for pod (no node may fit it) and makes the evaluator.
// The dry run starts at offset (modulo the potential nodes) instead of a random one.
func (s *Scheduler) NewEvaluation(ctx context.Context, pod *v1.Pod, args PreemptionArgs, parallelism int, offset int32) (*Evaluation, error) {
	state, statuses, feasible, err := s.Filter(ctx, pod)
	if err != nil {
		return nil, err
	}
	if feasible.Len() > 0 {
		return nil, fmt.Errorf("pod %s fits %d node(s): nothing to preempt", pod.Name, feasible.Len())
	}
	prof, err := defaultProfile(args)
	if err != nil {
		return nil, err
	}
	var dpArgs *schedulerapi.DefaultPreemptionArgs
	for _, pc := range prof.PluginConfig {
		if a, ok := pc.Args.(*schedulerapi.DefaultPreemptionArgs); ok {
			dpArgs = a
		}
	}
	if dpArgs == nil {
		return nil, errors.New("the default profile has no DefaultPreemptionArgs")
	}
	fts := plfeature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
	h := parallelHandle{s.Framework, parallelize.NewParallelizer(max(1, parallelism))}
	pl, err := defaultpreemption.New(ctx, dpArgs, h, fts)
	if err != nil {
		return nil, err
	}
	ev := pl.Evaluator
	ev.PdbLister = orderedPDBs{ev.PdbLister, s.pdbs}
	return &Evaluation{Evaluator: ev, pod: pod, state: state, statuses: statusReader{statuses, s.NodeOrder},
		offset: offset}, nil
}

// Decide is the evaluator's decision without actuation, as Evaluator.Preempt takes it before
// any API call: the eligibility check, the potential nodes, the budgets, DryRunPreemption from
// the offset for the plugin's number of candidates, and SelectCandidate. No extender is
// configured. It returns the chosen candidate, nil when preemption cannot help.
func (e *Evaluation) Decide(ctx context.Context) (Candidate, error) {
	ev := e.Evaluator
	if ok, msg := ev.PodEligibleToPreemptOthers(ctx, e.pod, e.statuses.Get(e.pod.Status.NominatedNodeName)); !ok {
		return nil, fmt.Errorf("not eligible: %s", msg)
	}
	potential, err := e.statuses.NodesForStatusCode(ev.Handler.MutableSnapshotSharedLister().NodeInfos(), fwk.Unschedulable)
	if err != nil || len(potential) == 0 {
		return nil, err
	}
	pdbs, err := ev.PdbLister.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	_, n := ev.GetOffsetAndNumCandidates(int32(len(potential)))
	candidates, _, err := ev.DryRunPreemption(ctx, e.state, e.pod, potential, pdbs, e.offset%int32(len(potential)), n)
	if len(candidates) == 0 {
		return nil, err
	}
	return ev.SelectCandidate(ctx, candidates), nil
}
