package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clientset "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/preempt/preempt/tests/conformance/internal/dump"
	"github.com/preempt/preempt/tests/conformance/internal/upstream"
)

// callGate holds every pod Patch and Delete upstream's preemption makes until the comparison
// releases it, records it with the gates before and after it, and fails the calls the scenario
// fails (with Forbidden: an error kube-scheduler does not retry).
type callGate struct {
	s      *upstream.Scheduler
	client *fake.Clientset

	mu      sync.Mutex
	cond    *sync.Cond
	waiting map[string]bool // calls made and held, by key ("patch NS/NAME DisruptionTarget", ...)
	open    map[string]int  // calls released, not yet taken
	running int             // calls released and not yet finished
	out     []string
	decided []*v1.Pod
	fail    map[string]string // NS/NAME -> "patch" or "delete"
}

func newCallGate() *callGate {
	g := &callGate{waiting: map[string]bool{}, open: map[string]int{}, fail: map[string]string{}}
	g.cond = sync.NewCond(&g.mu)
	return g
}

func (g *callGate) wrap(c *fake.Clientset) clientset.Interface {
	g.client = c
	return gatedClientset{c, g}
}

type gatedClientset struct {
	*fake.Clientset
	g *callGate
}

func (c gatedClientset) CoreV1() corev1client.CoreV1Interface {
	return gatedCore{c.Clientset.CoreV1(), c.g}
}

type gatedCore struct {
	corev1client.CoreV1Interface
	g *callGate
}

func (c gatedCore) Pods(ns string) corev1client.PodInterface {
	return gatedPods{c.CoreV1Interface.Pods(ns), ns, c.g}
}

type gatedPods struct {
	corev1client.PodInterface
	ns string
	g  *callGate
}

func (p gatedPods) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions,
	subresources ...string) (*v1.Pod, error) {
	what := "DisruptionTarget"
	if strings.Contains(string(data), "nominatedNodeName") {
		what = "nominatedNodeName="
	}
	var pod *v1.Pod
	err := p.g.call("patch "+p.ns+"/"+name+" "+what, p.ns+"/"+name, "patch", func() error {
		var err error
		pod, err = p.PodInterface.Patch(ctx, name, pt, data, opts, subresources...)
		return err
	})
	return pod, err
}

func (p gatedPods) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	return p.g.call("delete "+p.ns+"/"+name, p.ns+"/"+name, "delete", func() error {
		return p.PodInterface.Delete(ctx, name, opts)
	})
}

// call holds the call until released, then makes it (or fails it), and records it.
func (g *callGate) call(key, pod, verb string, do func() error) error {
	g.mu.Lock()
	g.waiting[key] = true
	g.cond.Broadcast()
	for g.open[key] == 0 {
		g.cond.Wait()
	}
	g.open[key]--
	delete(g.waiting, key)
	fail := g.fail[pod] == verb
	g.mu.Unlock()

	before := g.gates()
	var err error
	if fail {
		err = apierrors.NewForbidden(v1.Resource("pods"), pod, fmt.Errorf("refused by the scenario"))
	} else {
		err = do()
	}
	result := "ok"
	switch {
	case apierrors.IsNotFound(err):
		result = "not_found"
	case err != nil:
		result = "failed"
	}
	if verb == "delete" && err == nil {
		g.awaitGone(pod) // the executor's pod lister sees the deletion before the gate is read
	}
	g.log(fmt.Sprintf("call %s %s gates=%s/%s", key, result, before, g.gates()))
	g.mu.Lock()
	g.running--
	g.cond.Broadcast()
	g.mu.Unlock()
	return err
}

// release lets the call key go once upstream has made it, and waits until it is finished;
// after timeout it gives up (upstream never made that call).
func (g *callGate) release(key string, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	g.mu.Lock()
	defer g.mu.Unlock()
	for !g.waiting[key] {
		if time.Now().After(deadline) {
			return
		}
		g.waitFor(time.Until(deadline))
	}
	g.open[key]++
	g.running++
	g.cond.Broadcast()
	for g.running > 0 {
		g.waitFor(time.Second)
	}
}

// awaitWaiting waits until every one of calls is held (upstream has made them all), at most
// timeout.
func (g *callGate) awaitWaiting(calls []string, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	g.mu.Lock()
	defer g.mu.Unlock()
	for time.Now().Before(deadline) {
		all := true
		for _, c := range calls {
			all = all && g.waiting[c]
		}
		if all {
			return
		}
		g.waitFor(time.Until(deadline))
	}
}

// waitFor waits on the condition at most d (a timer broadcasts).
func (g *callGate) waitFor(d time.Duration) {
	t := time.AfterFunc(min(d, 50*time.Millisecond), func() {
		g.mu.Lock()
		g.cond.Broadcast()
		g.mu.Unlock()
	})
	g.cond.Wait()
	t.Stop()
}

// finish waits until no decided preemption is running, releasing any call still held (calls
// preempt did not make: they show as differences).
func (g *callGate) finish(timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		g.mu.Lock()
		var held []string
		for k := range g.waiting {
			held = append(held, k)
		}
		g.mu.Unlock()
		sort.Strings(held)
		if len(held) > 0 {
			g.release(held[0], timeout)
			continue
		}
		if !g.anyRunning() {
			return
		}
		time.Sleep(200 * time.Microsecond)
	}
}

func (g *callGate) anyRunning() bool {
	for _, p := range g.decided {
		if g.s.Plugin.Executor.IsPodRunningPreemption(p.UID) {
			return true
		}
	}
	return false
}

// awaitGone waits until the informers' pod lister no longer has the pod.
func (g *callGate) awaitGone(key string) {
	ns, name, _ := strings.Cut(key, "/")
	lister := g.s.Framework.SharedInformerFactory().Core().V1().Pods().Lister()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Microsecond) {
		if _, err := lister.Pods(ns).Get(name); apierrors.IsNotFound(err) {
			return
		}
	}
}

// deleteNow deletes a pod before the decisions, past the gate, and waits for the informers.
func (g *callGate) deleteNow(ctx context.Context, ns, name string) error {
	if err := g.client.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return err
	}
	g.awaitGone(ns + "/" + name)
	return nil
}

// gates reads every decided preemptor's IsPodRunningPreemption, "NS/NAME:1,...".
func (g *callGate) gates() string {
	var parts []string
	for _, p := range g.decided {
		v := "0"
		if g.s.Plugin.Executor.IsPodRunningPreemption(p.UID) {
			v = "1"
		}
		parts = append(parts, dump.Key(p)+":"+v)
	}
	return strings.Join(parts, ",")
}

func (g *callGate) log(line string) {
	g.mu.Lock()
	g.out = append(g.out, line)
	g.mu.Unlock()
}

// activations counts the activations upstream made so far, logging the new ones.
func (g *callGate) activations() int {
	n := 0
	for _, e := range g.s.EventsSoFar() {
		if strings.HasPrefix(e, "activate ") {
			n++
			g.mu.Lock()
			logged := 0
			for _, l := range g.out {
				if l == e {
					logged++
				}
			}
			if logged < countOf(g.s.EventsSoFar(), e) {
				g.out = append(g.out, e)
			}
			g.mu.Unlock()
		}
	}
	return n
}

func countOf(l []string, s string) int {
	n := 0
	for _, x := range l {
		if x == s {
			n++
		}
	}
	return n
}

// events returns upstream's events so far, with any activation not logged yet at the end.
func (g *callGate) events() []string {
	g.activations()
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.out...)
}
