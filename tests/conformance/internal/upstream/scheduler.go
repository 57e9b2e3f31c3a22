// Package upstream runs kube-scheduler's own code (k8s.io/kubernetes v1.37) on a cluster dump:
// the default profile's plugins over an in-memory snapshot, a fake clientset and informers
// holding the dump's objects, and the scheduling queue as the pod nominator. It is the referee
// the conformance suite compares preempt with.
//
// The wiring follows what scheduler.New does (cache, snapshot, DRA and CSI managers, profiles,
// queue as nominator and activator), without its event handlers: nodes and pods enter the cache,
// and pending pods the queue, in the dump's order, so that every run sees the same state.
package upstream

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	clientset "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	policylisters "k8s.io/client-go/listers/policy/v1"
	k8stesting "k8s.io/client-go/testing"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/klog/v2"
	configv1 "k8s.io/kube-scheduler/config/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler"
	schedulerapi "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkplugins "k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	plfeature "k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodevolumelimits"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	"k8s.io/kubernetes/pkg/scheduler/profile"
	"k8s.io/kubernetes/pkg/scheduler/util/assumecache"

	utilfeature "k8s.io/apiserver/pkg/util/feature"

	"github.com/preempt/preempt/tests/conformance/internal/dump"
	"github.com/preempt/preempt/tests/conformance/internal/gen"
)

// The fake clientset's watchers buffer watch.DefaultChanSize events (100) and panic ("channel
// full") when an actuation deletes more victims than that before the pod informer has read
// them, which a busy machine allows (a 3,000-cluster run under CI's load did). A decision
// deletes at most a cluster's pods, so a buffer of 1<<14 never fills.
func init() { watch.DefaultChanSize = 1 << 14 }

// PreemptionArgs are DefaultPreemptionArgs' sampling fields (nil: upstream's defaults).
type PreemptionArgs struct {
	MinCandidateNodesPercentage *int32
	MinCandidateNodesAbsolute   *int32
}

// Options configure the scheduler built over a dump.
type Options struct {
	Args PreemptionArgs
	// Offset replaces DryRunPreemption's random offset (taken modulo the potential nodes).
	Offset int64
	// ShortageResolvable makes NodeResourcesFit report every shortage as Unschedulable, even a
	// request larger than the node's allocatable (v1.37 says UnschedulableAndUnresolvable then):
	// the plain rule preempt once used, for exploring the other disagreements.
	ShortageResolvable bool
	// AllSchedulersNominations puts the nominations of pending pods of every scheduler in the
	// nominator (kube-scheduler's queue holds only its own profiles' pods): preempt-whatif's
	// reading, for exploring the other disagreements.
	AllSchedulersNominations bool
	// SchedulerName is the profile's schedulerName ("default-scheduler" when empty).
	SchedulerName string
	// Parallelism of the framework (1 when 0: deterministic dry runs; upstream's default is 16).
	Parallelism int
	// BoundPodsInCacheOnly keeps the pods bound to a node out of the fake clientset (and so out
	// of the informers): they enter the scheduler cache alone. The preemption decision reads
	// only the snapshot; actuation, which deletes victims through the clientset, fails. For
	// timing decisions on large dumps (cmd/speed), where the clientset's copies cost minutes.
	BoundPodsInCacheOnly bool
	// Hooks are a model case's extenders and score functions (nil: none).
	Hooks *gen.Hooks
	// Preemptor (namespace/name) is the pod to place: it never counts on a node, even with
	// spec.nodeName set (kube-scheduler never schedules such a pod; the NodeName filter still
	// reads it), and enters the queue as the other pending pods.
	Preemptor string
	// WrapClient, when set, wraps the fake clientset the framework (and so the preemption's
	// actuation) calls; the informers keep reading the fake clientset itself.
	WrapClient func(*fake.Clientset) clientset.Interface
	// HoldActuation: Decide returns as soon as PostFilter does, without waiting for the
	// asynchronous actuation (nor analysing ties or listing its calls).
	HoldActuation bool
}

// resolvableFit is NodeResourcesFit with ShortageResolvable.
type resolvableFit struct{ *noderesources.Fit }

func (f resolvableFit) Filter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, node fwk.NodeInfo) *fwk.Status {
	st := f.Fit.Filter(ctx, state, pod, node)
	if st.Code() == fwk.UnschedulableAndUnresolvable {
		return fwk.NewStatus(fwk.Unschedulable, st.Reasons()...)
	}
	return st
}

// Scheduler is one profile of kube-scheduler over a dump: the framework, its DefaultPreemption
// plugin (with the recording Interface in its evaluator), the fake clientset its actuation
// calls, and the queue holding the dump's nominations.
type Scheduler struct {
	Framework framework.Framework
	Plugin    *defaultpreemption.DefaultPreemption
	Recorder  *Recorder
	Client    *fake.Clientset
	Queue     internalqueue.SchedulingQueue
	Snapshot  *internalcache.Snapshot
	Cache     internalcache.Cache
	// The dump's nodes, in input order.
	NodeOrder []string
	// The dump's budgets, in input order.
	pdbs []*policyv1.PodDisruptionBudget

	mu sync.Mutex
	// Evictions are the executor's PreemptPod calls, in the order they returned.
	Evictions []Eviction
	// Activations are the pods the framework asked the queue to activate, in order.
	Activations []string
	// Events are the actuation's steps in the order they happened: "clear NS/NAME" (a patch
	// clearing a nomination, when sent), "evict NS/NAME OUTCOME" (a PreemptPod call, when it
	// returned), "activate NS/NAME".
	Events []string

	// candidate is the one the executor acts on (from its first PreemptPod call).
	candidate Candidate
	// mutable is the snapshot as the framework's mutable lister (the pod-group evaluator's).
	mutable *recordingSnapshot
	// pods are the dump's pods the scheduler sees, by key.
	pods map[string]*v1.Pod
	// compositePodGroups: the CompositePodGroup feature is on.
	compositePodGroups bool
	// holdActuation: Options.HoldActuation.
	holdActuation bool
}

// EventsSoFar returns a copy of Events.
func (s *Scheduler) EventsSoFar() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.Events...)
}

func (s *Scheduler) event(e string) {
	s.mu.Lock()
	s.Events = append(s.Events, e)
	s.mu.Unlock()
}

// Eviction is one PreemptPod call of the executor: "evicted" (the API accepted the deletion),
// "not_found" (the victim was already gone), or "failed".
type Eviction struct {
	Victim  string
	Outcome string
}

// recordingActivator forwards activations to the queue and records them.
type recordingActivator struct {
	s     *Scheduler
	queue fwk.PodActivator
}

func (a recordingActivator) Activate(logger klog.Logger, pods map[string]*v1.Pod) {
	a.s.mu.Lock()
	for _, p := range pods {
		a.s.Activations = append(a.s.Activations, dump.Key(p))
		a.s.Events = append(a.s.Events, "activate "+dump.Key(p))
	}
	a.s.mu.Unlock()
	a.queue.Activate(logger, pods)
}

func defaultProfile(args PreemptionArgs) (schedulerapi.KubeSchedulerProfile, error) {
	var versioned configv1.KubeSchedulerConfiguration
	scheme.Scheme.Default(&versioned)
	var cfg schedulerapi.KubeSchedulerConfiguration
	if err := scheme.Scheme.Convert(&versioned, &cfg, nil); err != nil {
		return schedulerapi.KubeSchedulerProfile{}, err
	}
	prof := cfg.Profiles[0]
	for i := range prof.PluginConfig {
		if a, ok := prof.PluginConfig[i].Args.(*schedulerapi.DefaultPreemptionArgs); ok {
			if args.MinCandidateNodesPercentage != nil {
				a.MinCandidateNodesPercentage = *args.MinCandidateNodesPercentage
			}
			if args.MinCandidateNodesAbsolute != nil {
				a.MinCandidateNodesAbsolute = *args.MinCandidateNodesAbsolute
			}
		}
	}
	return prof, nil
}

// New builds the scheduler over the dump. pods are the dump's pods, admitted (priorities
// resolved), terminal ones removed, plus the preemptor when it is not one of them.
func New(ctx context.Context, d *dump.Dump, pods []*v1.Pod, opts Options) (*Scheduler, error) {
	logger := klog.FromContext(ctx)
	metrics.Register()

	objects := make([]runtime.Object, 0, len(d.Nodes)+len(pods)+len(d.PDBs)+len(d.Classes)+len(d.Namespaces))
	for _, n := range d.Nodes {
		objects = append(objects, n)
	}
	for _, p := range pods {
		if opts.BoundPodsInCacheOnly && p.Spec.NodeName != "" && dump.Key(p) != opts.Preemptor {
			continue
		}
		objects = append(objects, p)
	}
	for _, b := range d.PDBs {
		objects = append(objects, b)
	}
	for _, c := range d.Classes {
		objects = append(objects, c)
	}
	for _, ns := range d.Namespaces {
		objects = append(objects, ns)
	}
	objects = append(objects, d.SchedulerObjects()...)
	client := fake.NewClientset(objects...)
	informerFactory := scheduler.NewInformerFactory(client, 0, nil)

	// What must have seen every object of the dump before a decision, beyond the informers' own
	// stores: the DRA manager's ResourceSlice tracker and ResourceClaim assume cache process
	// the informers' events on goroutines of their own.
	draManager, draSynced, err := newDRAManager(ctx, logger, informerFactory, client)
	if err != nil {
		return nil, err
	}
	csiManager := nodevolumelimits.NewCSIManager(informerFactory.Storage().V1().CSINodes().Lister())

	genericWorkload := utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload)
	compositePodGroup := utilfeature.DefaultFeatureGate.Enabled(features.CompositePodGroup)
	cache := internalcache.New(ctx, nil, genericWorkload, compositePodGroup)
	snapshot := internalcache.NewEmptySnapshot()
	mutable := &recordingSnapshot{Snapshot: snapshot}

	prof, err := defaultProfile(opts.Args)
	if err != nil {
		return nil, err
	}
	if opts.SchedulerName != "" {
		prof.SchedulerName = opts.SchedulerName
	}
	var nodeNames []string
	for _, n := range d.Nodes {
		nodeNames = append(nodeNames, n.Name)
	}
	recorder := &Recorder{offset: opts.Offset, scores: hookScores(opts.Hooks, nodeNames),
		extenders: opts.Hooks != nil && len(opts.Hooks.Extenders) > 0}
	var plugin *defaultpreemption.DefaultPreemption
	registry := frameworkplugins.NewInTreeRegistry()
	fts := plfeature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
	registry[defaultpreemption.Name] = func(ctx context.Context, obj runtime.Object, fh fwk.Handle) (fwk.Plugin, error) {
		pl, err := defaultpreemption.New(ctx, obj, fh, fts)
		if err != nil {
			return nil, err
		}
		recorder.plugin = pl
		pl.Evaluator = newEvaluator(fh, recorder, pl, fts)
		plugin = pl
		return pl, nil
	}
	if opts.ShortageResolvable {
		registry[noderesources.Name] = func(ctx context.Context, obj runtime.Object, fh fwk.Handle) (fwk.Plugin, error) {
			pl, err := noderesources.NewFit(ctx, obj, fh, fts)
			if err != nil {
				return nil, err
			}
			return resolvableFit{pl.(*noderesources.Fit)}, nil
		}
	}
	recorderFactory := func(string) events.EventRecorderLogger { return &events.FakeRecorder{} }
	var cs clientset.Interface = client
	if opts.WrapClient != nil {
		cs = opts.WrapClient(client)
	}
	options := []frameworkruntime.Option{
		frameworkruntime.WithClientSet(cs),
		frameworkruntime.WithInformerFactory(informerFactory),
		frameworkruntime.WithSharedDRAManager(draManager),
		frameworkruntime.WithSharedCSIManager(csiManager),
		frameworkruntime.WithSnapshotSharedLister(snapshot),
		frameworkruntime.WithMutableSnapshotLister(mutable),
		frameworkruntime.WithParallelism(max(1, opts.Parallelism)),
		frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()),
		frameworkruntime.WithPodsInPreBind(frameworkruntime.NewPodsInPreBindMap()),
		frameworkruntime.WithPodGroupManager(cache),
		frameworkruntime.WithExtenders(hookExtenders(opts.Hooks, nodeNames)),
	}
	release := newReleaseState(genericWorkload, compositePodGroup)
	options = append(options, release.options(fts)...)
	profiles, err := profile.NewMap(ctx, []schedulerapi.KubeSchedulerProfile{prof}, registry, recorderFactory, options...)
	if err != nil {
		return nil, err
	}
	fw := profiles[prof.SchedulerName]
	if plugin == nil {
		return nil, fmt.Errorf("the default profile has no %s plugin", defaultpreemption.Name)
	}
	plugin.Evaluator.PdbLister = orderedPDBs{plugin.Evaluator.PdbLister, d.PDBs}
	queue := internalqueue.NewSchedulingQueue(fw.QueueSortFunc(), informerFactory,
		internalqueue.WithPodLister(informerFactory.Core().V1().Pods().Lister()))
	fw.SetPodNominator(queue)

	informerFactory.Start(ctx.Done())
	if err := waitForSync(ctx, informerFactory, draSynced...); err != nil {
		return nil, err
	}

	s := &Scheduler{Framework: fw, Plugin: plugin, Recorder: recorder, Client: client, Queue: queue,
		Snapshot: snapshot, Cache: cache, pdbs: d.PDBs, mutable: mutable, pods: map[string]*v1.Pod{},
		compositePodGroups: compositePodGroup, holdActuation: opts.HoldActuation}
	for _, p := range pods {
		s.pods[dump.Key(p)] = p
	}
	fw.SetPodActivator(recordingActivator{s, queue})
	executor := executorOf(plugin)
	preemptPod := executor.PreemptPod
	executor.PreemptPod = func(ctx context.Context, c Candidate, preemptor preemption.ExecutorPreemptor,
		victim *v1.Pod, pluginName string) (bool, error) {
		s.mu.Lock()
		if s.candidate == nil {
			s.candidate = c
		}
		s.mu.Unlock()
		_, getErr := client.CoreV1().Pods(victim.Namespace).Get(ctx, victim.Name, metav1.GetOptions{})
		inMemory, err := preemptPod(ctx, c, preemptor, victim, pluginName)
		outcome := "evicted"
		switch {
		case err != nil:
			outcome = "failed"
		case getErr != nil:
			outcome = "not_found"
		}
		s.mu.Lock()
		s.Evictions = append(s.Evictions, Eviction{Victim: dump.Key(victim), Outcome: outcome})
		s.Events = append(s.Events, "evict "+dump.Key(victim)+" "+outcome)
		s.mu.Unlock()
		return inMemory, err
	}
	client.PrependReactor("patch", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if p, ok := a.(k8stesting.PatchAction); ok && strings.Contains(string(p.GetPatch()), `"nominatedNodeName"`) {
			s.event("clear " + p.GetNamespace() + "/" + p.GetName())
		}
		return false, nil, nil
	})
	for _, n := range d.Nodes {
		cache.AddNode(logger, n)
		s.NodeOrder = append(s.NodeOrder, n.Name)
	}
	// Pod groups before their pods, as the informers deliver them (GenericWorkload).
	if genericWorkload {
		release.addPodGroups(logger, cache, d)
	}
	for _, p := range pods {
		if p.Spec.NodeName != "" && dump.Key(p) != opts.Preemptor {
			release.addPod(logger, p)
			if err := cache.AddPod(logger, p); err != nil {
				return nil, fmt.Errorf("pod %s: %w", dump.Key(p), err)
			}
		} else if profiles.HandlesSchedulerName(p.Spec.SchedulerName) || opts.AllSchedulersNominations {
			// As the scheduler's event handler does for a pending pod it is responsible for
			// (addPodToSchedulingQueue): the pod joins its group's state in the cache (what
			// GangScheduling's PreEnqueue counts), then the queue, which records the pod's
			// status.nominatedNodeName in its nominator.
			if genericWorkload && profiles.HandlesSchedulerName(p.Spec.SchedulerName) {
				cache.AddPodGroupMember(p)
				release.addPod(logger, p)
			}
			queue.Add(ctx, p)
		}
	}
	if err := cache.UpdateSnapshot(logger, snapshot); err != nil {
		return nil, err
	}
	return s, nil
}

// orderedPDBs lists the budgets in the dump's order. The informer's lister lists them in Go map
// order, which decides, for a pod matching several budgets, which budgets its eviction counts
// against (FilterVictimsWithPDBViolation stops at the first budget it exhausts).
type orderedPDBs struct {
	policylisters.PodDisruptionBudgetLister
	pdbs []*policyv1.PodDisruptionBudget
}

func (o orderedPDBs) List(selector labels.Selector) ([]*policyv1.PodDisruptionBudget, error) {
	var out []*policyv1.PodDisruptionBudget
	for _, b := range o.pdbs {
		if selector.Matches(labels.Set(b.Labels)) {
			out = append(out, b)
		}
	}
	return out, nil
}

// waitForSync waits for every started informer's initial list (and for more to say synced),
// polling every millisecond (the
// factory's own wait polls every 100 ms, a long time next to a decision), for up to 5 minutes
// (hundreds of thousands of objects on a busy machine).
func waitForSync(ctx context.Context, f informers.SharedInformerFactory, more ...func() bool) error {
	closed := make(chan struct{})
	close(closed)
	deadline := time.Now().Add(5 * time.Minute)
	for {
		synced := true
		for _, ok := range f.WaitForCacheSync(closed) {
			synced = synced && ok
		}
		for _, ok := range more {
			synced = synced && ok()
		}
		if synced {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("informers did not sync")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
}

// startDRA is the scheduler's DRA manager over the informers, with the ResourceSlice tracker
// started from the release's slice options and the feature gates' settings, and what must have
// synced before a decision (the tracker and the ResourceClaim assume cache).
func startDRA(ctx context.Context, logger klog.Logger, informerFactory informers.SharedInformerFactory,
	opts resourceslicetracker.Options) (fwk.SharedDRAManager, []func() bool, error) {
	claimCache := assumecache.NewAssumeCache(logger, informerFactory.Resource().V1().ResourceClaims().Informer(),
		"ResourceClaim", "", nil)
	opts.EnableDeviceTaintRules = utilfeature.DefaultFeatureGate.Enabled(features.DRADeviceTaintRules)
	opts.EnableConsumableCapacity = utilfeature.DefaultFeatureGate.Enabled(features.DRAConsumableCapacity)
	if opts.EnableDeviceTaintRules {
		opts.TaintInformer = informerFactory.Resource().V1().DeviceTaintRules()
	}
	tracker, err := resourceslicetracker.StartTracker(ctx, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("resource slice tracker: %w", err)
	}
	draManager := dynamicresources.NewDRAManager(ctx, claimCache, tracker, informerFactory)
	return draManager, []func() bool{tracker.HasSynced, claimCache.AddEventHandler(toolscache.ResourceEventHandlerFuncs{}).HasSynced}, nil
}
