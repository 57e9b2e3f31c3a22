//go:build k8s138

// What differs between the kube-scheduler releases the referee builds against: this file is
// k8s.io/kubernetes v1.38 (go138.mod, -tags k8s138); compat_137.go is v1.37 (go.mod).
package upstream

import (
	"context"
	"encoding/json"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/client-go/informers"
	clientset "k8s.io/client-go/kubernetes"
	draapi "k8s.io/dynamic-resource-allocation/api"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	plfeature "k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/gangscheduling"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/preempt/preempt/tests/conformance/internal/dump"
	"github.com/preempt/preempt/tests/conformance/internal/release"
)

// Candidate is a node the dry run kept, with its victims.
type Candidate = fwk.PreemptionCandidate

// Release is the kube-scheduler release this referee runs.
const Release = release.Name

// GroupsRefereed: whether this referee decides pending pod groups (DecideGroup).
const GroupsRefereed = true

// newDRAManager is the scheduler's DRA manager over the informers (v1.38 builds it always), and
// what must have synced before a decision.
func newDRAManager(ctx context.Context, logger klog.Logger, informerFactory informers.SharedInformerFactory,
	client clientset.Interface) (fwk.SharedDRAManager, []func() bool, error) {
	sliceInformer := draapi.NewInformerForResourceSlice(informerFactory)
	return startDRA(ctx, logger, informerFactory, resourceslicetracker.Options{
		SliceLister:   draapi.NewResourceSliceLister(sliceInformer.GetIndexer()),
		SliceInformer: sliceInformer,
		KubeClient:    client,
	})
}

// releaseState is what this release's scheduler keeps beyond the cache and the queue: the pod
// groups' hierarchy tracker (GangScheduling's PreEnqueue reads it), fed as the scheduler's event
// handlers feed it.
type releaseState struct {
	composite bool
	tracker   *gangscheduling.HierarchyTracker
}

func newReleaseState(genericWorkload, composite bool) *releaseState {
	r := &releaseState{composite: composite}
	if genericWorkload {
		r.tracker = gangscheduling.NewHierarchyTracker(composite)
	}
	return r
}

// options are the framework options this release needs beyond the common ones: the preemption
// manager (victim discovery and the executor) and the hierarchy tracker, as the scheduler's New
// sets them.
func (r *releaseState) options(fts plfeature.Features) []frameworkruntime.Option {
	return []frameworkruntime.Option{
		frameworkruntime.WithPreemptionManager(func(fh fwk.Handle) fwk.PreemptionManager {
			return preemption.NewPreemptionManager(fh, fts)
		}),
		frameworkruntime.WithSharedPodGroupHierarchyTracker(r.tracker),
	}
}

// addPod is the event handlers' bookkeeping of a pod beyond the cache and the queue.
func (r *releaseState) addPod(logger klog.Logger, p *v1.Pod) {
	if r.tracker != nil {
		r.tracker.AddPod(logger, p)
	}
}

// newEvaluator is DefaultPreemption's evaluator with the recorder as its preemption.Interface.
func newEvaluator(fh fwk.Handle, recorder *Recorder, _ *defaultpreemption.DefaultPreemption, fts plfeature.Features) *preemption.Evaluator {
	return preemption.NewEvaluator(defaultpreemption.Name, fh, recorder, fts)
}

// executorOf is the plugin's executor (its PreemptPod is the referee's hook).
func executorOf(pl *defaultpreemption.DefaultPreemption) *preemption.Executor {
	return pl.Executor.(*preemption.Executor)
}

// addPodGroups adds the dump's pod groups to the cache and the hierarchy tracker, as the
// informers deliver them. v1.38 reads CompositePodGroups at scheduling.k8s.io/v1beta1; the dump's
// v1alpha3 ones carry the same fields.
func (r *releaseState) addPodGroups(logger klog.Logger, cache internalcache.Cache, d *dump.Dump) {
	var groups []*fwk.GenericPodGroup
	for _, pg := range d.PodGroups {
		groups = append(groups, fwk.NewGenericPodGroup(pg))
	}
	if r.composite {
		for _, cpg := range d.CompositePodGroups {
			var beta schedulingv1beta1.CompositePodGroup
			if b, err := json.Marshal(cpg); err == nil && json.Unmarshal(b, &beta) == nil {
				groups = append(groups, fwk.NewGenericCompositePodGroup(&beta))
			}
		}
	}
	for _, g := range groups {
		cache.AddGenericPodGroup(g)
		if r.tracker != nil {
			r.tracker.AddGenericPodGroup(logger, g)
		}
	}
}

// nominatedPodsForNode is the queue's nominated pods on a node.
func nominatedPodsForNode(q internalqueue.SchedulingQueue, logger klog.Logger, node string) []fwk.PodInfo {
	return q.NominatedPodsForNode(logger, node)
}

// NewPodGroupInfo is the queue's view of a pending PodGroup and its pending members.
func NewPodGroupInfo(pg *schedulingv1beta1.PodGroup, members []*v1.Pod) *framework.PodGroupInfo {
	info := framework.NewPodGroupInfo(fwk.NewGenericPodGroup(pg))
	info.UnscheduledPods = members
	return info
}

// zeroVictimsStatus is DryRunPreemption's verdict on a node whose filters pass with every victim
// reprieved (no preempt-capable extender: the referee registers none).
func zeroVictimsStatus(string) *fwk.Status {
	return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "No preemption victims found for incoming pod")
}
