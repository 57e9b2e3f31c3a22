package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/metrics/testutil"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/metrics"

	"github.com/preempt/preempt/tests/conformance/internal/compare"
	"github.com/preempt/preempt/tests/conformance/internal/dump"
	"github.com/preempt/preempt/tests/conformance/internal/upstream"
)

// An async scenario is a sequence of preemption decisions, each for a pending pod that fits its
// own node only once lower-priority pods are gone, acted on by kube-scheduler's executor
// (asynchronous preemption, KEP-4832's prepareCandidateAsync at its default parallelism of 16;
// or, with SchedulerAsyncPreemption off, the synchronous prepareCandidate at parallelism 1) through
// a fake clientset, and by preempt's dispatcher (dispatch_driver.cpp: a manual executor run one
// task at a time, or inline). Both report every API call in order (the nomination clears, each
// victim's DisruptionTarget patch and delete), the preemptor's nomination and re-activation, and
// every decided preemptor's gate (IsPodRunningPreemption upstream, is_preemption_running in
// preempt) before and after each call; the two lists are compared whole.
//
// Upstream's calls run in its own goroutines, several at once in the parallel phase. The
// comparison makes its order deterministic without choosing it: every call upstream makes waits
// at the clientset until released, and they are released in preempt's order, each only once
// upstream has made it; a call upstream never makes, or makes in another order within one
// goroutine, shows as a difference. The order so obtained is one upstream can produce (the
// released call was among those waiting at the time).
type asyncScenario struct {
	seed       int64
	sync       bool
	preemptors []asyncPreemptor
	nominated  []asyncNominated
}

type asyncPreemptor struct {
	name     string
	priority int32
	cpu      int64 // milli
	node     int
	at       int // executor tasks run before the decision; -1: all work so far done
	victims  []asyncVictim
}

type asyncVictim struct {
	name         string
	priority     int32
	cpu          int64
	terminating  bool
	byPreemption bool // terminating with DisruptionTarget (PreemptionByScheduler)
	outcome      string
	pdb          bool
}

type asyncNominated struct {
	name     string
	priority int32
	node     int
}

const asyncNamespace = "team-a"

var asyncOutcomes = []string{"evicted", "evicted", "evicted", "evicted", "evicted", "evicted", "evicted",
	"evicted", "evicted", "evicted", "not_found", "failed_patch", "failed_delete", "failed_delete"}

// generateAsync draws a scenario: one to three preemptors on nodes of their own (1-6 victims
// each, filling the node; some terminating, some by preemption; outcomes of every kind at any
// position; sometimes a budget), nominated pods of lower, equal and higher priority on the nodes,
// each later preemptor decided while the earlier ones' evictions are in flight (after K executor
// tasks) or once they are done. Synchronous scenarios have one preemptor after another.
func generateAsync(seed int64, sync bool) asyncScenario {
	r := rand.New(rand.NewSource(seed))
	sc := asyncScenario{seed: seed, sync: sync}
	n := 1
	if x := r.Float64(); x < 0.3 {
		n = 2
	} else if x < 0.4 {
		n = 3
	}
	for k := 0; k < n; k++ {
		p := asyncPreemptor{name: fmt.Sprintf("preemptor-%d", k), priority: int32(1000 + 100*r.Intn(3)), node: k, at: -1}
		if k > 0 && !sync && r.Float64() < 0.7 {
			p.at = r.Intn(8)
		}
		v := 1 + r.Intn(6)
		left := int64(4000)
		for i := 0; i < v; i++ {
			cpu := left / int64(v-i)
			left -= cpu
			o := asyncOutcomes[r.Intn(len(asyncOutcomes))]
			vic := asyncVictim{name: fmt.Sprintf("victim-%d-%d", k, i), priority: int32(10 * r.Intn(4)), cpu: cpu, outcome: o}
			if r.Float64() < 0.15 {
				vic.terminating = true
				vic.byPreemption = r.Float64() < 0.4
			}
			vic.pdb = r.Float64() < 0.2
			p.victims = append(p.victims, vic)
		}
		p.cpu = 4000
		if r.Float64() < 0.4 {
			p.cpu = 100 * int64(10+r.Intn(31))
		}
		for j, m := 0, r.Intn(4); j < m; j++ {
			prio := []int32{5, p.priority, p.priority + 500}[r.Intn(3)]
			sc.nominated = append(sc.nominated, asyncNominated{name: fmt.Sprintf("nominated-%d-%d", k, j), priority: prio, node: k})
		}
		sc.preemptors = append(sc.preemptors, p)
	}
	return sc
}

func nodeName(i int) string { return fmt.Sprintf("node-%d", i) }

// cluster builds the scenario's dump, and the pods the scheduler sees.
func (sc asyncScenario) cluster() (*dump.Dump, []*v1.Pod) {
	d := &dump.Dump{}
	policy := v1.PreemptLowerPriority
	pod := func(name string, prio int32, cpu int64) *v1.Pod {
		p := prio
		return &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: asyncNamespace, UID: types.UID("uid-" + name),
				Labels: map[string]string{"app": "a"}},
			Spec: v1.PodSpec{SchedulerName: v1.DefaultSchedulerName, Priority: &p, PreemptionPolicy: &policy,
				Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
					v1.ResourceCPU: *resource.NewMilliQuantity(cpu, resource.DecimalSI)}}}}},
		}
	}
	var pods []*v1.Pod
	anyPDB := false
	for k, p := range sc.preemptors {
		d.Nodes = append(d.Nodes, &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: nodeName(k), Labels: map[string]string{"kubernetes.io/hostname": nodeName(k)}},
			Status: v1.NodeStatus{Allocatable: v1.ResourceList{
				v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("8Gi"), v1.ResourcePods: resource.MustParse("110")}},
		})
		for i, v := range p.victims {
			vp := pod(v.name, v.priority, v.cpu)
			vp.Spec.NodeName = nodeName(k)
			vp.Status.Phase = v1.PodRunning
			start := metav1.NewTime(time.Date(2026, 1, 1, 0, k, i, 0, time.UTC))
			vp.Status.StartTime = &start
			if v.terminating {
				deleted := metav1.NewTime(time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC))
				vp.DeletionTimestamp = &deleted
				if v.byPreemption {
					vp.Status.Conditions = []v1.PodCondition{{Type: v1.DisruptionTarget, Status: v1.ConditionTrue,
						Reason: v1.PodReasonPreemptionByScheduler}}
				}
			}
			if v.pdb {
				vp.Labels["pdb"] = "yes"
				anyPDB = true
			}
			pods = append(pods, vp)
		}
	}
	if anyPDB {
		zero := intstr.FromInt32(0)
		d.PDBs = []*policyv1.PodDisruptionBudget{{
			ObjectMeta: metav1.ObjectMeta{Name: "budget", Namespace: asyncNamespace},
			Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &zero,
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"pdb": "yes"}}},
			Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: int32(sc.seed % 2)},
		}}
	}
	for _, nm := range sc.nominated {
		n := pod(nm.name, nm.priority, 0)
		n.Spec.Containers[0].Resources.Requests = v1.ResourceList{}
		n.Status.Phase = v1.PodPending
		n.Status.NominatedNodeName = nodeName(nm.node)
		pods = append(pods, n)
	}
	for k, p := range sc.preemptors {
		pp := pod(p.name, p.priority, p.cpu)
		pp.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": nodeName(k)}
		pp.Status.Phase = v1.PodPending
		pods = append(pods, pp)
	}
	d.Pods = pods
	return d, pods
}

func (sc asyncScenario) gates() string {
	if sc.sync {
		return "SchedulerAsyncPreemption=false"
	}
	return "SchedulerAsyncPreemption=true"
}

func (sc asyncScenario) parallelism() int {
	if sc.sync {
		return 1
	}
	return 16
}

// plan decides each preemptor with upstream alone (a scheduler of its own, actuation awaited):
// the victims, in upstream's order, that both sides then act on.
func (sc asyncScenario) plan(ctx context.Context) ([][]string, error) {
	if err := utilfeature.DefaultMutableFeatureGate.Set(sc.gates()); err != nil {
		return nil, err
	}
	var out [][]string
	for _, p := range sc.preemptors {
		d, pods := sc.cluster()
		s, err := upstream.New(ctx, d, pods, upstream.Options{Parallelism: sc.parallelism()})
		if err != nil {
			return nil, err
		}
		var pp *v1.Pod
		for _, x := range pods {
			if x.Name == p.name {
				pp = x
			}
		}
		r, err := s.Decide(ctx, pp)
		if err != nil {
			return nil, err
		}
		if r.Result != "nominated" || r.NominatedNodeName != nodeName(p.node) {
			return nil, nil // nothing to act on: the scenario is skipped
		}
		out = append(out, r.Victims)
	}
	return out, nil
}

// driverInput writes the scenario for the dispatch driver, with the planned victims, and the
// driver's uids of the pods.
func (sc asyncScenario) driverInput(victims [][]string) (string, map[string]string) {
	uids := map[string]string{} // uid -> namespace/name
	ids := map[string]int{}
	id := func(name string) int {
		if n, ok := ids[name]; ok {
			return n
		}
		ids[name] = len(ids) + 1
		uids[fmt.Sprint(ids[name])] = asyncNamespace + "/" + name
		return ids[name]
	}
	var b strings.Builder
	if sc.sync {
		b.WriteString("mode inline\n")
	} else {
		b.WriteString("mode async\n")
	}
	for _, nm := range sc.nominated {
		fmt.Fprintf(&b, "nominated %d prio=%d node=%d\n", id(nm.name), nm.priority, nm.node)
	}
	for k, p := range sc.preemptors {
		at := "end"
		if p.at >= 0 {
			at = fmt.Sprint(p.at)
		}
		fmt.Fprintf(&b, "preemptor %d prio=%d node=%d at=%s\n", id(p.name), p.priority, p.node, at)
		byName := map[string]asyncVictim{}
		for _, v := range p.victims {
			byName[asyncNamespace+"/"+v.name] = v
		}
		for _, key := range victims[k] {
			v := byName[key]
			t := 0
			if v.terminating {
				t = 1
			}
			fmt.Fprintf(&b, "victim %d of=%d terminating=%d outcome=%s\n", id(v.name), id(p.name), t, v.outcome)
		}
	}
	return b.String(), uids
}

// translate rewrites the driver's uids as namespace/name and node indices as node names.
func translate(lines []string, uids map[string]string) []string {
	var out []string
	for _, l := range lines {
		f := strings.Fields(l)
		for i, w := range f {
			switch {
			case i == 1 && (f[0] == "apply" || f[0] == "decide" || f[0] == "nominate" || f[0] == "activate"):
				f[i] = uids[w]
			case i == 2 && f[0] == "nominate":
				var n int
				fmt.Sscanf(w, "%d", &n)
				f[i] = nodeName(n)
			case i == 2 && f[0] == "call":
				f[i] = uids[w]
			case strings.HasPrefix(w, "gates="):
				f[i] = "gates=" + translateGates(strings.TrimPrefix(w, "gates="), uids)
			}
		}
		out = append(out, strings.Join(f, " "))
	}
	return out
}

func translateGates(g string, uids map[string]string) string {
	halves := strings.Split(g, "/")
	for h, half := range halves {
		var parts []string
		for _, p := range strings.Split(half, ",") {
			if p == "" {
				continue
			}
			u, v, _ := strings.Cut(p, ":")
			parts = append(parts, uids[u]+":"+v)
		}
		halves[h] = strings.Join(parts, ",")
	}
	return strings.Join(halves, "/")
}

// runDriver runs the dispatch driver on the scenario.
func runDriver(driver, file string) ([]string, error) {
	out, err := exec.Command(driver, file).Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Base(driver), err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n"), nil
}

// upstreamScript runs the scenario through upstream, releasing its calls in the order of script
// (preempt's events), and returns upstream's events.
//
// The evictions of a preemption's parallel phase (every victim to delete but the last) all start
// before the first one is released, as at upstream's parallelism of 16 they can: a failure then
// cancels none of them (known-differences.md, "Parallel evictions").
func (sc asyncScenario) upstreamScript(ctx context.Context, script []string, victims [][]string) ([]string, error) {
	if err := utilfeature.DefaultMutableFeatureGate.Set(sc.gates()); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ctx = klog.NewContext(ctx, klog.Background())
	d, pods := sc.cluster()
	g := newCallGate()
	s, err := upstream.New(ctx, d, pods, upstream.Options{Parallelism: sc.parallelism(), HoldActuation: true,
		WrapClient: g.wrap})
	if err != nil {
		return nil, err
	}
	g.s = s
	byName := map[string]*v1.Pod{}
	for _, p := range pods {
		byName[dump.Key(p)] = p
	}
	// Victims already gone: the clientset and the informers no longer have them (the scheduler's
	// cache, fed by nobody here, still does: the decision is made on it).
	for _, p := range sc.preemptors {
		for _, v := range p.victims {
			if v.outcome == "not_found" {
				if err := g.deleteNow(ctx, asyncNamespace, v.name); err != nil {
					return nil, err
				}
			}
			if v.outcome == "failed_patch" || v.outcome == "failed_delete" {
				g.fail[asyncNamespace+"/"+v.name] = strings.TrimPrefix(v.outcome, "failed_")
			}
		}
	}
	type pending struct {
		done chan struct{}
		r    *upstream.Report
		err  error
	}
	decisions := map[string]*pending{}
	seen := 0 // activations consumed
	// The goroutines of asynchronous preemption end (counted by upstream's metric) after their
	// re-activation, if any: finished tells how many have ended since the scenario began.
	baseline := goroutinesFinished()
	finished := func() int { return int(goroutinesFinished() - baseline) }
	started := map[string]int{} // preemptor -> ordinal of its goroutine (1-based)
	goroutines := 0
	deletes := map[string]bool{} // preemptors with a victim to delete
	for k, p := range sc.preemptors {
		for _, v := range p.victims {
			for _, key := range victims[k] {
				if key == asyncNamespace+"/"+v.name && !v.terminating {
					deletes[asyncNamespace+"/"+p.name] = true
				}
			}
		}
	}
	// The parallel phase of each preemption: the DisruptionTarget patches its workers make first.
	phase := map[string][]string{}
	if !sc.sync {
		for k, p := range sc.preemptors {
			terminating := map[string]bool{}
			for _, v := range p.victims {
				terminating[asyncNamespace+"/"+v.name] = v.terminating
			}
			var toDelete []string
			for _, key := range victims[k] {
				if !terminating[key] {
					toDelete = append(toDelete, "patch "+key+" DisruptionTarget")
				}
			}
			if len(toDelete) > 1 {
				for _, c := range toDelete[:len(toDelete)-1] {
					phase[c] = toDelete[:len(toDelete)-1]
				}
			}
		}
	}
	for _, line := range script {
		f := strings.Fields(line)
		switch f[0] {
		case "apply":
			p := byName[f[1]]
			g.decided = append(g.decided, p)
			g.log("apply " + f[1])
			if !sc.sync && deletes[f[1]] {
				goroutines++
				started[f[1]] = goroutines
			}
			pd := &pending{done: make(chan struct{})}
			decisions[f[1]] = pd
			go func() {
				pd.r, pd.err = s.Decide(ctx, p)
				close(pd.done)
			}()
			if !sc.sync { // the asynchronous PostFilter returns before any call
				<-pd.done
			}
		case "decide":
			pd := decisions[f[1]]
			if pd == nil {
				return nil, fmt.Errorf("script: decide before apply: %s", line)
			}
			select {
			case <-pd.done:
			case <-time.After(10 * time.Second):
				return nil, fmt.Errorf("the decision for %s did not return", f[1])
			}
			if pd.err != nil {
				return nil, pd.err
			}
			// No gates here: upstream's goroutine runs on from the decision at once, and may
			// already have registered a single last victim (the gate is read at every call).
			g.log("decide " + f[1])
			if pd.r.Result == "nominated" {
				g.log("nominate " + f[1] + " " + pd.r.NominatedNodeName)
			}
		case "nominate":
		case "call":
			key := f[1] + " " + f[2]
			if f[1] == "patch" {
				key += " " + f[3]
			}
			if calls := phase[key]; calls != nil {
				g.awaitWaiting(calls, 5*time.Second)
				for _, c := range calls {
					delete(phase, c)
				}
			}
			g.release(key, 10*time.Second)
		case "activate":
			// Until upstream re-activates, or the preemptor's goroutine ended without.
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Microsecond) {
				if g.activations() > seen || started[f[1]] > 0 && finished() >= started[f[1]] {
					break
				}
			}
			seen = g.activations()
		case "end":
			g.finish(10 * time.Second)
			for deadline := time.Now().Add(10 * time.Second); finished() < goroutines && time.Now().Before(deadline); {
				time.Sleep(100 * time.Microsecond)
			}
			g.activations()
			g.log("end gates=" + g.gates())
		}
	}
	return g.events(), nil
}

// goroutinesFinished reads upstream's count of finished asynchronous preemptions.
func goroutinesFinished() float64 {
	ok, _ := testutil.GetCounterMetricValue(metrics.PreemptionGoroutinesExecutionTotal.WithLabelValues(metrics.GoroutineResultSuccess))
	bad, _ := testutil.GetCounterMetricValue(metrics.PreemptionGoroutinesExecutionTotal.WithLabelValues(metrics.GoroutineResultError))
	return ok + bad
}

// asyncKnown: the accepted differences of this comparison (known-differences.md) and what each
// changes: wake-up-rule, preempt re-activates a preemptor whose last victim was already gone.
func wakeUpRule(up, pr []string) bool {
	// Drop from preempt's events each "activate P" that follows P's last call when that call
	// found its victim gone; the rest must then be equal.
	var kept []string
	lastCall := map[string]string{} // preemptor -> its last call's line
	victimOf := map[string]string{}
	for i, l := range pr {
		f := strings.Fields(l)
		if f[0] == "call" && f[1] == "patch" && f[3] == "DisruptionTarget" {
			victimOf[f[2]] = ""
		}
		if f[0] == "activate" {
			// The line before it is this preemptor's last call when the activation is the
			// wake-up of a last victim found gone.
			if i > 0 && strings.Contains(pr[i-1], " DisruptionTarget not_found ") {
				lastCall[f[1]] = pr[i-1]
				continue
			}
		}
		kept = append(kept, l)
	}
	return len(lastCall) > 0 && strings.Join(kept, "\n") == strings.Join(up, "\n")
}

func asyncCmd(args []string) error {
	fs := flag.NewFlagSet("async", flag.ContinueOnError)
	driver := fs.String("dispatch-driver", "", "the dispatch driver binary")
	known := fs.String("known", "known-differences.md", "known-differences.md")
	count := fs.Int("count", 100, "scenarios of each mode (asynchronous, synchronous)")
	seed := fs.Int64("seed", 1, "seed of the first scenario (scenario i has seed+i)")
	verbose := fs.Bool("v", false, "print both sides of every scenario")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *driver == "" {
		return fmt.Errorf("--dispatch-driver is required")
	}
	k, err := compare.LoadKnown(*known)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "conform-async-")
	if err != nil {
		return err
	}
	if os.Getenv("CONFORM_KEEP") == "" {
		defer os.RemoveAll(tmp)
	}
	start := time.Now()
	passed, failed, skipped, accepted, overlapping, calls := 0, 0, 0, 0, 0, 0
	failures := map[string][]int64{}
	for _, sync := range []bool{false, true} {
		for i := 0; i < *count; i++ {
			sc := generateAsync(*seed+int64(i), sync)
			name := fmt.Sprintf("async %d", sc.seed)
			if sync {
				name = fmt.Sprintf("sync %d", sc.seed)
			}
			victims, err := sc.plan(context.Background())
			if err != nil {
				return fmt.Errorf("%s: upstream: %v", name, err)
			}
			if victims == nil {
				skipped++
				continue
			}
			input, uids := sc.driverInput(victims)
			file := filepath.Join(tmp, fmt.Sprintf("%d-%v.txt", sc.seed, sync))
			if err := os.WriteFile(file, []byte(input), 0o644); err != nil {
				return err
			}
			raw, err := runDriver(*driver, file)
			if err != nil {
				return fmt.Errorf("%s: %v", name, err)
			}
			pr := translate(raw, uids)
			up, err := sc.upstreamScript(context.Background(), pr, victims)
			if err != nil {
				return fmt.Errorf("%s: upstream: %v", name, err)
			}
			for _, p := range sc.preemptors {
				if p.at >= 0 {
					overlapping++
					break
				}
			}
			for _, l := range up {
				if strings.HasPrefix(l, "call ") {
					calls++
				}
			}
			verdict := "ok"
			if strings.Join(up, "\n") != strings.Join(pr, "\n") {
				verdict = "FAILED"
				if k.Has("wake-up-rule") && wakeUpRule(up, pr) {
					verdict = "ok (accepted: wake-up-rule)"
					accepted++
				}
			}
			if *verbose || verdict == "FAILED" {
				fmt.Printf("%s: %s\n%s", name, verdict, sideBySide(up, pr))
			}
			if strings.HasPrefix(verdict, "ok") {
				passed++
			} else {
				failed++
				kind := "async"
				if sync {
					kind = "sync"
				}
				failures[kind] = append(failures[kind], sc.seed)
			}
		}
	}
	fmt.Printf("async: %d scenarios of each mode from seed %d, %.1f s: %d compared (%d with overlapping preemptions, %d API calls), %d skipped (upstream nominated no node), %d accepted as wake-up-rule\n",
		*count, *seed, time.Since(start).Seconds(), passed+failed, overlapping, calls, skipped, accepted)
	printSeeds("failed", failures)
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	return nil
}

// sideBySide prints the two event lists, marking the lines that differ.
func sideBySide(up, pr []string) string {
	var b strings.Builder
	n := max(len(up), len(pr))
	for i := 0; i < n; i++ {
		u, p := "", ""
		if i < len(up) {
			u = up[i]
		}
		if i < len(pr) {
			p = pr[i]
		}
		mark := " "
		if u != p {
			mark = "!"
		}
		fmt.Fprintf(&b, "  %s upstream: %s\n  %s preempt:  %s\n", mark, u, mark, p)
	}
	return b.String()
}

var _ = sort.Strings
