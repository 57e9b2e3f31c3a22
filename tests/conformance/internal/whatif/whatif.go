// Package whatif is kube-whatif's command: its options, and the decision from a dump and a pod.
package whatif

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"

	"github.com/preempt/preempt/tests/conformance/internal/dump"
	"github.com/preempt/preempt/tests/conformance/internal/gen"
	"github.com/preempt/preempt/tests/conformance/internal/upstream"
)

// BadInput wraps an error in the input (exit status 2).
type BadInput struct{ Err error }

func (b BadInput) Error() string { return b.Err.Error() }
func (b BadInput) Unwrap() error { return b.Err }

// Options are the command line of kube-whatif (and preempt-whatif).
type Options struct {
	Clusters     []string
	PodFile      string
	PodName      string
	Output       string
	Offset       int64
	Percentage   *int32
	Absolute     *int32
	FeatureGates string
	// ShortageResolvable: upstream.Options.ShortageResolvable (--shortage-resolvable).
	ShortageResolvable bool
	// AllSchedulersNominations: upstream.Options.AllSchedulersNominations (--all-schedulers-nominations).
	AllSchedulersNominations bool
	// SchedulerName: the profile's schedulerName (--scheduler-name, default "default-scheduler"),
	// as preempt-whatif's flag of the same name.
	SchedulerName string
	// Hooks: a model text form whose extender and score lines upstream runs (--hooks FILE),
	// the model driver's comparison (gen.Hooks).
	Hooks string
	// Parallelism of the framework (--parallelism; 1 by default: the dry run is deterministic;
	// upstream's default is 16, where sampling may stop it at another point from run to run).
	Parallelism int
	// StampStartTimes gives every pod without status.startTime one decision time
	// (--stamp-start-times), the referee's reading before it followed v1.37, which reads
	// time.Now() for each such victim as it builds it: for classifying disagreements only.
	StampStartTimes bool
	// PodGroup (--pod-group NS/NAME) decides for a pending PodGroup (upstream's PodGroupPostFilter).
	PodGroup string
}

// ParseArgs reads the command line.
func ParseArgs(args []string) (Options, error) {
	o := Options{Output: "text", SchedulerName: v1.DefaultSchedulerName}
	value := func(i *int, name string) (string, error) {
		if *i+1 >= len(args) {
			return "", fmt.Errorf("%s: missing value", name)
		}
		*i++
		return args[*i], nil
	}
	int32Flag := func(s, name string) (*int32, error) {
		v, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%s: invalid integer %q", name, s)
		}
		x := int32(v)
		return &x, nil
	}
	for i := 0; i < len(args); i++ {
		name, inline, hasInline := strings.Cut(args[i], "=")
		get := func() (string, error) {
			if hasInline {
				return inline, nil
			}
			return value(&i, name)
		}
		var err error
		var s string
		switch name {
		case "--cluster":
			if hasInline {
				o.Clusters = append(o.Clusters, inline)
				continue
			}
			n := 0
			for i+1 < len(args) && (args[i+1] == "-" || !strings.HasPrefix(args[i+1], "-")) {
				i++
				n++
				o.Clusters = append(o.Clusters, args[i])
			}
			if n == 0 {
				return o, errors.New("--cluster: missing value")
			}
		case "--pod":
			o.PodFile, err = get()
		case "--pod-name":
			o.PodName, err = get()
		case "--output", "-o":
			if s, err = get(); err == nil {
				if s != "text" && s != "json" {
					err = fmt.Errorf("--output: %s not in {text,json}", s)
				}
				o.Output = s
			}
		case "--offset":
			if s, err = get(); err == nil {
				o.Offset, err = strconv.ParseInt(s, 10, 64)
				if err != nil || o.Offset < 0 {
					err = fmt.Errorf("--offset: must be a non-negative integer, got %q", s)
				}
			}
		case "--min-candidate-nodes-percentage":
			if s, err = get(); err == nil {
				o.Percentage, err = int32Flag(s, name)
			}
		case "--min-candidate-nodes-absolute":
			if s, err = get(); err == nil {
				o.Absolute, err = int32Flag(s, name)
			}
		case "--feature-gates":
			o.FeatureGates, err = get()
		case "--shortage-resolvable":
			o.ShortageResolvable = true
		case "--all-schedulers-nominations":
			o.AllSchedulersNominations = true
		case "--scheduler-name":
			if o.SchedulerName, err = get(); err == nil && o.SchedulerName == "" {
				err = errors.New("--scheduler-name: must not be empty")
			}
		case "--hooks":
			o.Hooks, err = get()
		case "--parallelism":
			if s, err = get(); err == nil {
				var v int64
				v, err = strconv.ParseInt(s, 10, 32)
				if err != nil || v < 1 {
					err = fmt.Errorf("--parallelism: must be a positive integer, got %q", s)
				}
				o.Parallelism = int(v)
			}
		case "--stamp-start-times":
			o.StampStartTimes = true
		case "--pod-group":
			o.PodGroup, err = get()
		case "--timings":
		default:
			err = fmt.Errorf("unknown option %s", args[i])
		}
		if err != nil {
			return o, err
		}
	}
	if o.PodFile != "" && o.PodName != "" {
		return o, errors.New("--pod excludes --pod-name")
	}
	if o.PodGroup != "" && (o.PodFile != "" || o.PodName != "") {
		return o, errors.New("--pod-group excludes --pod and --pod-name")
	}
	return o, nil
}

// bundledData finds examples/data from the working directory upwards.
func bundledData() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		candidate := filepath.Join(dir, "examples", "data")
		if _, err := os.Stat(filepath.Join(candidate, "cluster.json")); err == nil {
			return candidate, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("the bundled example (examples/data) was not found above the working directory")
		}
		dir = parent
	}
}

// Load reads the dump and the pod to place: the dump, the pods the scheduler sees (the
// non-terminal ones, admitted, the preemptor among them) and the preemptor.
func Load(o Options) (*dump.Dump, []*v1.Pod, *v1.Pod, error) {
	var err error
	if o.FeatureGates != "" {
		if err := utilfeature.DefaultMutableFeatureGate.Set(o.FeatureGates); err != nil {
			return nil, nil, nil, BadInput{Err: fmt.Errorf("--feature-gates: %v", err)}
		}
	}
	if len(o.Clusters) == 0 && o.PodFile == "" && o.PodName == "" {
		dir, err := bundledData()
		if err != nil {
			return nil, nil, nil, BadInput{Err: err}
		}
		o.Clusters = []string{filepath.Join(dir, "cluster.json")}
		o.PodFile = filepath.Join(dir, "pod.json")
	}
	if len(o.Clusters) == 0 {
		return nil, nil, nil, BadInput{Err: errors.New("--cluster is required")}
	}
	if o.PodFile == "" && o.PodName == "" {
		return nil, nil, nil, BadInput{Err: errors.New("one of --pod or --pod-name is required")}
	}

	d := &dump.Dump{}
	for _, f := range o.Clusters {
		name, data, err := dump.ReadFile(f)
		if err != nil {
			return nil, nil, nil, BadInput{Err: err}
		}
		if err := d.AddFile(name, data); err != nil {
			return nil, nil, nil, BadInput{Err: err}
		}
	}
	if err := d.Validate(); err != nil {
		return nil, nil, nil, BadInput{Err: err}
	}
	d.SystemClasses()
	if err := d.AdmitGroups(); err != nil {
		return nil, nil, nil, BadInput{Err: err}
	}

	var preemptor *v1.Pod
	if o.PodFile != "" {
		name, data, err := dump.ReadFile(o.PodFile)
		if err != nil {
			return nil, nil, nil, BadInput{Err: err}
		}
		if preemptor, err = dump.ReadPod(name, data); err != nil {
			return nil, nil, nil, BadInput{Err: err}
		}
		if err := d.AdmitManifest(preemptor, name+": Pod "+dump.Key(preemptor)); err != nil {
			return nil, nil, nil, BadInput{Err: err}
		}
	} else if preemptor, err = d.FindPending(o.PodName); err != nil {
		return nil, nil, nil, BadInput{Err: err}
	}

	// The pods the scheduler sees: the non-terminal ones, admitted; the preemptor's copy in the
	// dump is replaced by the pod to place.
	var pods []*v1.Pod
	inDump := false
	for _, p := range d.Pods {
		if dump.IsTerminal(p) {
			continue
		}
		if dump.Key(p) == dump.Key(preemptor) {
			if p.Spec.NodeName == "" {
				inDump = true
				if o.PodFile != "" {
					preemptor.UID = p.UID
					p = preemptor
				}
				if err := d.Admit(p, "Pod "+dump.Key(p)); err != nil {
					return nil, nil, nil, BadInput{Err: err}
				}
				pods = append(pods, p)
				continue
			}
		}
		if err := d.Admit(p, "Pod "+dump.Key(p)); err != nil {
			return nil, nil, nil, BadInput{Err: err}
		}
		pods = append(pods, p)
	}
	if !inDump {
		pods = append(pods, preemptor)
	}
	// A pod without status.startTime keeps none: upstream reads time.Now() for it where it needs
	// one (known-differences.md, "Missing start times"). --stamp-start-times gives them all one
	// decision time instead, for classifying disagreements.
	if o.StampStartTimes {
		stampStartTimes(pods)
	}
	return d, pods, preemptor, nil
}

// stampStartTimes gives every pod without status.startTime one time, now.
func stampStartTimes(pods []*v1.Pod) {
	now := metav1.Now()
	for _, p := range pods {
		if p.Status.StartTime == nil {
			p.Status.StartTime = &now
		}
	}
}

// Decide loads the dump and the pod and decides with upstream's code.
func Decide(o Options) (*upstream.Report, error) {
	d, pods, preemptor, err := Load(o)
	if err != nil {
		return nil, err
	}
	if r := notQueued(d, preemptor, o); r != nil {
		return r, nil
	}
	var hooks *gen.Hooks
	if o.Hooks != "" {
		name, data, err := dump.ReadFile(o.Hooks)
		if err != nil {
			return nil, BadInput{Err: err}
		}
		if hooks, err = gen.ParseHooks(string(data)); err != nil {
			return nil, BadInput{Err: fmt.Errorf("%s: %v", name, err)}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx = klog.NewContext(ctx, klog.Background())
	s, err := upstream.New(ctx, d, pods, upstream.Options{SchedulerName: o.SchedulerName, Hooks: hooks,
		Args:   upstream.PreemptionArgs{MinCandidateNodesPercentage: o.Percentage, MinCandidateNodesAbsolute: o.Absolute},
		Offset: o.Offset, ShortageResolvable: o.ShortageResolvable, AllSchedulersNominations: o.AllSchedulersNominations,
		Preemptor: dump.Key(preemptor), Parallelism: o.Parallelism})
	if err != nil {
		if strings.Contains(err.Error(), "minCandidateNodes") {
			return nil, BadInput{Err: err}
		}
		return nil, err
	}
	if r := preEnqueue(ctx, s, preemptor); r != nil {
		return r, nil
	}
	if r := skippedWhenPopped(preemptor); r != nil {
		return r, nil
	}
	return s.Decide(ctx, preemptor)
}

// skippedWhenPopped answers for a pod that leaves the queue being deleted: scheduleOne skips it
// (Scheduler.skipPodSchedule, case 1: metadata.deletionTimestamp set) before any scheduling or
// preemption, "deleting" with its event's message. The pod stays queued (a pod with finalizers
// is updated, not removed); a gated pod never leaves the queue, so preEnqueue answers first.
func skippedWhenPopped(pod *v1.Pod) *upstream.Report {
	if pod.DeletionTimestamp == nil {
		return nil
	}
	return &upstream.Report{Preemptor: dump.Key(pod), Result: "deleting",
		Message: fmt.Sprintf("skip schedule deleting pod: %v/%v", pod.Namespace, pod.Name)}
}

// notQueued answers for a pod kube-scheduler's queue never receives, in the order the API
// server and the scheduler's event handlers decide it (nil: the pod is queued):
//   - "running": a manifest named as a pod the dump holds bound (and not terminal): the API
//     server refuses to create a second pod of that name (AlreadyExists), and the one it stores
//     runs already;
//   - "bound": a pod with spec.nodeName is created bound: the scheduler's pod informer queues only
//     unassigned pods (eventhandlers.go, assignedPod), and the node's kubelet admits it or not;
//   - "other-scheduler": the queue receives only the pods of its profiles (responsibleForPod).
//
// The messages of "running" and "bound" are preempt-whatif's (no upstream text says so).
func notQueued(d *dump.Dump, preemptor *v1.Pod, o Options) *upstream.Report {
	key := dump.Key(preemptor)
	if o.PodFile != "" {
		for _, p := range d.Pods {
			if dump.Key(p) == key && p.Spec.NodeName != "" && !dump.IsTerminal(p) {
				return &upstream.Report{Preemptor: key, Result: "running",
					Message: fmt.Sprintf("the dump holds this pod bound to node %s: it runs already, it is not pending", p.Spec.NodeName)}
			}
		}
	}
	if preemptor.Spec.NodeName != "" {
		return &upstream.Report{Preemptor: key, Result: "bound",
			Message: fmt.Sprintf("the pod names its node (spec.nodeName %s): it is created bound, kube-scheduler never queues it, "+
				"and the node's kubelet admits it or not", preemptor.Spec.NodeName)}
	}
	if name := preemptor.Spec.SchedulerName; name != "" && name != o.SchedulerName ||
		name == "" && o.SchedulerName != v1.DefaultSchedulerName {
		return &upstream.Report{Preemptor: key, Result: "other-scheduler",
			Message: fmt.Sprintf("the pod's spec.schedulerName is %q, not %s (--scheduler-name): that scheduler decides for it",
				preemptor.Spec.SchedulerName, o.SchedulerName)}
	}
	return nil
}

// preEnqueue runs the profile's PreEnqueue plugins on the pod, in the profile's order, as the
// scheduling queue does before it lets a pod in (runPreEnqueuePluginsForPod, which stops at the
// first one that does not succeed): a pod one of them holds back is "gated", with that plugin's
// message (SchedulingGates: "waiting for scheduling gates: [...]"; DynamicResources: a claim
// that does not exist yet; GangScheduling: a missing PodGroup or a gang below its minCount).
// Nothing is decided for it. nil: the pod enters the active queue.
func preEnqueue(ctx context.Context, s *upstream.Scheduler, pod *v1.Pod) *upstream.Report {
	for _, pl := range s.Framework.PreEnqueuePlugins() {
		if st := pl.PreEnqueue(ctx, pod); !st.IsSuccess() {
			return &upstream.Report{Preemptor: dump.Key(pod), Result: "gated", Message: st.Message()}
		}
	}
	return nil
}
