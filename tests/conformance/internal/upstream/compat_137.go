//go:build !k8s138

// What differs between the kube-scheduler releases the referee builds against: this file is
// k8s.io/kubernetes v1.37 (go.mod); compat_138.go is v1.38 (go138.mod, -tags k8s138).
package upstream

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	clientset "k8s.io/client-go/kubernetes"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	plfeature "k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/preempt/preempt/tests/conformance/internal/dump"
	"github.com/preempt/preempt/tests/conformance/internal/release"
)

// Candidate is a node the dry run kept, with its victims.
type Candidate = preemption.Candidate

// Release is the kube-scheduler release this referee runs.
const Release = release.Name

// GroupsRefereed: whether this referee decides pending pod groups (DecideGroup).
const GroupsRefereed = true

// newDRAManager is the scheduler's DRA manager over the informers (nil with the
// DynamicResourceAllocation gate off), and what must have synced before a decision.
func newDRAManager(ctx context.Context, logger klog.Logger, informerFactory informers.SharedInformerFactory,
	client clientset.Interface) (fwk.SharedDRAManager, []func() bool, error) {
	if !utilfeature.DefaultFeatureGate.Enabled(features.DynamicResourceAllocation) {
		return nil, nil, nil
	}
	return startDRA(ctx, logger, informerFactory, resourceslicetracker.Options{
		SliceInformer: informerFactory.Resource().V1().ResourceSlices(),
		KubeClient:    client,
	})
}

// releaseState is what this release's scheduler keeps beyond the cache and the queue (v1.37:
// nothing).
type releaseState struct{ composite bool }

func newReleaseState(_, composite bool) *releaseState { return &releaseState{composite: composite} }

// options are the framework options this release needs beyond the common ones.
func (*releaseState) options(plfeature.Features) []frameworkruntime.Option { return nil }

// addPod is the event handlers' bookkeeping of a pod beyond the cache and the queue.
func (*releaseState) addPod(klog.Logger, *v1.Pod) {}

// newEvaluator is DefaultPreemption's evaluator with the recorder as its preemption.Interface.
func newEvaluator(fh fwk.Handle, recorder *Recorder, pl *defaultpreemption.DefaultPreemption, _ plfeature.Features) *preemption.Evaluator {
	return preemption.NewEvaluator(defaultpreemption.Name, fh, recorder, pl.Executor)
}

// executorOf is the plugin's executor (its PreemptPod is the referee's hook).
func executorOf(pl *defaultpreemption.DefaultPreemption) *preemption.Executor { return pl.Executor }

// addPodGroups adds the dump's pod groups to the cache, as the informers deliver them.
func (r *releaseState) addPodGroups(logger klog.Logger, cache internalcache.Cache, d *dump.Dump) {
	for _, pg := range d.PodGroups {
		cache.AddPodGroup(pg)
	}
	if r.composite {
		for _, cpg := range d.CompositePodGroups {
			cache.AddCompositePodGroup(logger, cpg)
		}
	}
}

// nominatedPodsForNode is the queue's nominated pods on a node.
func nominatedPodsForNode(q internalqueue.SchedulingQueue, logger klog.Logger, node string) []fwk.PodInfo {
	return q.NominatedPodsForNode(node)
}

// NewPodGroupInfo is the queue's view of a pending PodGroup and its pending members.
func NewPodGroupInfo(pg *schedulingv1beta1.PodGroup, members []*v1.Pod) *framework.PodGroupInfo {
	return &framework.PodGroupInfo{Namespace: pg.Namespace, Name: pg.Name, Type: fwk.PodGroupKeyType,
		UnscheduledPods: members, PodGroup: pg}
}

// zeroVictimsStatus is DryRunPreemption's verdict on a node whose filters pass with every victim
// reprieved (no preempt-capable extender: the referee registers none).
func zeroVictimsStatus(name string) *fwk.Status {
	return fwk.AsStatus(fmt.Errorf("expected at least one victim pod on node %q", name))
}
