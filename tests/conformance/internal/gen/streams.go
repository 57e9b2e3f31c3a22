package gen

import (
	"fmt"
	"math/rand"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// stream is the draws of one family that has a stream of its own.
type stream struct{ *rand.Rand }

func (s *stream) chance(p float64) bool { return s.Float64() < p }
func (s *stream) between(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + s.Int63n(hi-lo+1)
}
func (s *stream) pick(list []string) string { return list[s.Intn(len(list))] }

// ownStreams are the families drawing from a stream of their own, in a fixed order: a family's
// stream is seeded from the cluster's seed and the family's position here, so adding one at the
// end changes no other family's draws.
var ownStreams = []string{Dense, Ties, SamplingHeavy, StartTimes, Resize, Gates, Manifests, Namespaces, Volumes, DRA}

func ownStream(f string) bool {
	for _, g := range ownStreams {
		if g == f {
			return true
		}
	}
	return false
}

// drawOwnStreams seeds each such family's stream and, when the family is enabled, switches it
// on for about half of the clusters (its stream's first draw).
func (g *generator) drawOwnStreams(seed int64, enabled []string) {
	on := map[string]bool{}
	for _, f := range enabled {
		on[f] = true
	}
	for i, f := range ownStreams {
		s := &stream{rand.New(rand.NewSource(seed*1000003 + int64(i+1)*7907 + 17))}
		g.own[f] = s
		if on[f] && s.chance(0.5) {
			g.on[f] = true
		}
	}
}

// afterNodes: the dense family's nodes; the manifests family's node taints and runtime labels;
// the storage and device objects of the nodes.
func (g *generator) afterNodes() {
	if g.on[Dense] {
		g.denseNodes()
	}
	if g.on[Manifests] {
		g.manifestNodes()
	}
	if g.on[Volumes] {
		g.storageObjects()
	}
	if g.on[DRA] {
		g.deviceObjects()
	}
}

// afterBoundPods: what the families change of the bound pods, before budgets, groups and the
// preemptor are drawn from them.
func (g *generator) afterBoundPods() {
	if g.on[Ties] {
		g.tiedNodes()
	}
	if g.on[StartTimes] {
		g.missingStartTimes()
	}
	if g.on[Resize] {
		g.resizes()
	}
	if g.on[Manifests] {
		g.manifestBoundPods()
	}
	if g.on[Namespaces] {
		g.namespaceTerms()
	}
	if g.on[Volumes] {
		g.boundVolumes()
	}
	if g.on[DRA] {
		g.boundClaims()
	}
}

// afterPreemptor: what the families change of the preemptor.
func (g *generator) afterPreemptor() {
	if g.on[Dense] {
		g.densePreemptor()
	}
	if g.on[PodGroups] {
		g.groupAcrossNodes()
	}
	if g.on[Gates] {
		g.gates()
	}
	if g.on[Namespaces] {
		g.namespacePreemptor()
	}
	if g.on[Volumes] {
		g.preemptorVolumes()
	}
	if g.on[DRA] {
		g.preemptorClaims()
	}
	if g.on[Manifests] { // last: the manifest is the preemptor as the others left it
		g.manifestPreemptor()
	}
	g.overheadClass()
}

// overheadClass: a preemptor passed as a manifest (--pod) with spec.overhead and no
// runtimeClassName (the resources family writes the overhead as admission stores it) names a
// RuntimeClass of the dump defining exactly that overhead, as a pod exported from a cluster
// does: the API server rejects an overhead without a class defining it. Draws nothing.
func (g *generator) overheadClass() {
	p := g.c.Preemptor
	if g.c.PodName || len(p.Spec.Overhead) == 0 || p.Spec.RuntimeClassName != nil {
		return
	}
	name := fmt.Sprintf("overhead-%dm", p.Spec.Overhead.Cpu().MilliValue())
	p.Spec.RuntimeClassName = &name
	g.c.RuntimeClasses = append(g.c.RuntimeClasses, &nodev1.RuntimeClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: "node.k8s.io/v1", Kind: "RuntimeClass"},
		ObjectMeta: metav1.ObjectMeta{Name: name}, Handler: "runc",
		Overhead: &nodev1.Overhead{PodFixed: p.Spec.Overhead.DeepCopy()}})
}

// nodeIndex returns the index of the named node, or -1.
func (g *generator) nodeIndex(name string) int {
	for i, n := range g.c.Nodes {
		if n.Name == name {
			return i
		}
	}
	return -1
}

// boundOn lists the non-terminal pods bound to node i, in dump order.
func (g *generator) boundOn(i int) []*v1.Pod {
	var out []*v1.Pod
	name := g.c.Nodes[i].Name
	for _, p := range g.c.Pods {
		if p.Spec.NodeName == name && p.Status.Phase == v1.PodRunning {
			out = append(out, p)
		}
	}
	return out
}

// --- dense ---------------------------------------------------------------------------------

// denseNodes turns one to six nodes into large ones with 110 pod slots; boundPods fills them
// with 60 to 110 small pods (fillDense).
func (g *generator) denseNodes() {
	s := g.own[Dense]
	n := len(g.c.Nodes)
	k := 1 + s.Intn(min(n, 6))
	for _, i := range s.Perm(n)[:k] {
		node := g.c.Nodes[i]
		alloc := node.Status.Allocatable.DeepCopy()
		alloc[v1.ResourceCPU] = milli([]int64{8000, 16000, 32000, 64000}[s.Intn(4)])
		alloc[v1.ResourceMemory] = binary([]int64{32, 64, 128, 256}[s.Intn(4)] * gi)
		alloc[v1.ResourcePods] = count(110)
		node.Status.Allocatable = alloc
		node.Status.Capacity = alloc.DeepCopy()
		g.free[i] = alloc.DeepCopy()
		g.podsLeft[i] = 110
		g.dense[i] = true
	}
}

// fillDense binds 60 to 110 pods of a few percent of the node each to dense node i (exactly 110
// sometimes, so that pod slots bind too).
func (g *generator) fillDense(i int) {
	s := g.own[Dense]
	node := g.c.Nodes[i]
	want := int(s.between(60, 110))
	if s.chance(0.25) {
		want = 110
	}
	cpu, mem := node.Status.Allocatable.Cpu().MilliValue(), node.Status.Allocatable.Memory().Value()
	share := 0.93 / float64(want)
	for placed, tries := 0, 0; placed < want && tries < 3*want && g.podsLeft[i] > 0; tries++ {
		f := share * (0.4 + 1.2*s.Float64())
		pc := max(10, int64(float64(cpu)*f)/10*10)
		pm := max(mi, int64(float64(mem)*f*0.8)/mi*mi)
		p := g.newPod(g.pick(g.ns), g.victimClass())
		g.requests(p, pc, pm, i)
		req := effective(p)
		if !fitsIn(req, g.free[i]) {
			continue
		}
		p.Spec.NodeName = node.Name
		p.Status.Phase = v1.PodRunning
		g.startTime(p)
		if g.on[Taints] && len(node.Spec.Taints) > 0 {
			p.Spec.Tolerations = []v1.Toleration{{Operator: v1.TolerationOpExists}}
		}
		subtract(g.free[i], req)
		g.podsLeft[i]--
		placed++
		g.c.Pods = append(g.c.Pods, p)
	}
}

// densePreemptor sizes the preemptor, most often, to need most of a dense node: the node's free
// cpu plus 55 to 90 percent of what its pods use, at a priority above all of them.
func (g *generator) densePreemptor() {
	s := g.own[Dense]
	if !s.chance(0.8) {
		return
	}
	var dense []int
	for i := range g.c.Nodes {
		if g.dense[i] {
			dense = append(dense, i)
		}
	}
	if len(dense) == 0 { // the ties family copied ordinary nodes over them
		return
	}
	sort.Ints(dense)
	i := dense[s.Intn(len(dense))]
	alloc := g.c.Nodes[i].Status.Allocatable.Cpu().MilliValue()
	free := g.free[i].Cpu().MilliValue()
	want := free + int64(float64(alloc-free)*(0.55+0.35*s.Float64()))/10*10
	p := g.c.Preemptor
	setCPU(p, want)
	p.Spec.PriorityClassName = "critical"
	if p.Spec.Priority != nil {
		v := g.classes["critical"]
		p.Spec.Priority = &v
		lower := v1.PreemptLowerPriority
		p.Spec.PreemptionPolicy = &lower
	}
}

// setCPU changes the pod's cpu request so that the scheduler counts about want millicores.
func setCPU(p *v1.Pod, want int64) {
	delta := want - effectiveCPU(p)
	if p.Spec.Resources != nil && p.Spec.Resources.Requests != nil {
		if q, ok := p.Spec.Resources.Requests[v1.ResourceCPU]; ok {
			p.Spec.Resources.Requests[v1.ResourceCPU] = milli(max(10, q.MilliValue()+delta))
			if l, ok := p.Spec.Resources.Limits[v1.ResourceCPU]; ok && l.MilliValue() < q.MilliValue()+delta {
				p.Spec.Resources.Limits[v1.ResourceCPU] = milli(q.MilliValue() + delta)
			}
			return
		}
	}
	c := &p.Spec.Containers[0].Resources
	cur := int64(0)
	if q, ok := c.Requests[v1.ResourceCPU]; ok {
		cur = q.MilliValue()
	} else if q, ok := c.Limits[v1.ResourceCPU]; ok {
		cur = q.MilliValue()
	}
	next := milli(max(10, cur+delta))
	if _, ok := c.Limits[v1.ResourceCPU]; ok {
		c.Limits[v1.ResourceCPU] = next
	}
	c.Requests = withDefault(c.Requests)
	c.Requests[v1.ResourceCPU] = next
	// An init container above the new sum would set the floor: keep it below.
	for k := range p.Spec.InitContainers {
		ic := &p.Spec.InitContainers[k].Resources
		if q, ok := ic.Requests[v1.ResourceCPU]; ok && q.MilliValue() > next.MilliValue() {
			ic.Requests[v1.ResourceCPU] = next
		}
	}
}

func effectiveCPU(p *v1.Pod) int64 {
	req := effective(p)
	return req.Cpu().MilliValue()
}

// --- ties ----------------------------------------------------------------------------------

// tiedNodes makes one to five nodes copies of another (its allocatable, and copies of its pods
// with the same priorities, start times, requests and labels), so that their candidates tie on
// everything pickOneNodeForPreemption reads; and, most often, gives a node's pods one start time,
// so that equally important victims tie within it.
func (g *generator) tiedNodes() {
	s := g.own[Ties]
	n := len(g.c.Nodes)
	if n < 2 {
		g.sameStartTimes(0)
		return
	}
	var templates []int
	for i := range g.c.Nodes {
		if len(g.boundOn(i)) >= 2 {
			templates = append(templates, i)
		}
	}
	if len(templates) == 0 {
		return
	}
	t := templates[s.Intn(len(templates))]
	if s.chance(0.7) {
		g.sameStartTimes(t)
	}
	pods := g.boundOn(t)
	if s.chance(0.7) {
		// The lowest class: the copies' candidates then tend to win up to the final tie-break.
		lowest := g.levels[0]
		for _, p := range pods {
			p.Spec.PriorityClassName = lowest
			if p.Spec.Priority != nil {
				v := g.classes[lowest]
				p.Spec.Priority = &v
			}
		}
	}
	copies := 1 + s.Intn(min(5, n-1))
	for _, j := range s.Perm(n) {
		if copies == 0 {
			break
		}
		if j == t {
			continue
		}
		copies--
		node := g.c.Nodes[j]
		node.Status.Allocatable = g.c.Nodes[t].Status.Allocatable.DeepCopy()
		node.Status.Capacity = g.c.Nodes[t].Status.Capacity.DeepCopy()
		g.dense[j] = g.dense[t]
		var kept []*v1.Pod
		for _, p := range g.c.Pods {
			if p.Spec.NodeName != node.Name {
				kept = append(kept, p)
			}
		}
		g.c.Pods = kept
		g.free[j] = node.Status.Allocatable.DeepCopy()
		g.podsLeft[j] = node.Status.Allocatable.Pods().Value()
		for _, p := range pods {
			c := p.DeepCopy()
			g.pod++
			c.Name = podName(g.pod)
			c.UID = uidOf(c.Namespace, c.Name)
			c.Spec.NodeName = node.Name
			if len(node.Spec.Taints) > 0 {
				c.Spec.Tolerations = []v1.Toleration{{Operator: v1.TolerationOpExists}}
			}
			subtract(g.free[j], effective(c))
			g.podsLeft[j]--
			g.c.Pods = append(g.c.Pods, c)
		}
	}
}

// sameStartTimes gives every pod bound to node i the start time of its first pod that has one.
func (g *generator) sameStartTimes(i int) {
	pods := g.boundOn(i)
	for _, p := range pods {
		if p.Status.StartTime != nil {
			t := *p.Status.StartTime
			for _, q := range pods {
				q.Status.StartTime = t.DeepCopy()
			}
			return
		}
	}
}

// --- sampling-heavy ------------------------------------------------------------------------

// heavySampling: small minCandidateNodesPercentage (1 to 10) and minCandidateNodesAbsolute
// (1 to 30, or 0 with a percentage), and an offset anywhere among the nodes.
func (g *generator) heavySampling() {
	s := g.own[SamplingHeavy]
	pct := int32([]int64{1, 2, 3, 5, 10}[s.Intn(5)])
	abs := int32(s.between(1, 30))
	if s.chance(0.2) {
		abs = 0
	}
	g.c.Percentage, g.c.Absolute = &pct, &abs
	g.c.Offset = s.between(0, int64(len(g.c.Nodes))-1)
}

// --- start-times ---------------------------------------------------------------------------

// missingStartTimes removes status.startTime from every pod of about 40 percent of the nodes
// (of most dense ones) and from about a third of the pods elsewhere: v1.37 orders such pods by
// when it builds each victim, in the node's pod order.
func (g *generator) missingStartTimes() {
	s := g.own[StartTimes]
	for i := range g.c.Nodes {
		whole := s.chance(0.4) || g.dense[i] && s.chance(0.7)
		for _, p := range g.boundOn(i) {
			if whole || s.chance(0.3) {
				p.Status.StartTime = nil
			}
		}
	}
}

// --- resize --------------------------------------------------------------------------------

// resizes gives about a third of the bound pods containerStatuses, in one of the states an
// in-place resize leaves (the scheduler counts the largest of spec, allocated and actuated, or
// of the last two when the resize is Infeasible): a resize up pending (spec above the rest), a
// resize down accepted but not actuated (actuated above), a resize down not yet allocated
// (allocated above), an Infeasible resize up (a spec no node holds, counted at its old size), or
// plain statuses equal to the spec; pod-level resources get status.allocatedResources and
// status.resources. The counted requests stay within the node.
func (g *generator) resizes() {
	s := g.own[Resize]
	for i := range g.c.Nodes {
		alloc := g.c.Nodes[i].Status.Allocatable
		for _, p := range g.boundOn(i) {
			if !s.chance(0.35) {
				continue
			}
			before := effective(p)
			q := p.DeepCopy()
			resizeOne(s, q, alloc.Cpu().MilliValue())
			after := effective(q)
			extra := v1.ResourceList{}
			for k, v := range after {
				b := before[k]
				if v.Cmp(b) > 0 {
					d := v.DeepCopy()
					d.Sub(b)
					extra[k] = d
				}
			}
			if !fitsIn(extra, g.free[i]) {
				continue
			}
			*p = *q
			add(g.free[i], before)
			subtract(g.free[i], after)
		}
	}
}

func add(free, req v1.ResourceList) {
	for k, v := range req {
		if f, ok := free[k]; ok {
			f.Add(v)
			free[k] = f
		}
	}
}

func scaled(l v1.ResourceList, num, den int64) v1.ResourceList {
	out := v1.ResourceList{}
	for k, v := range l {
		switch k {
		case v1.ResourceCPU:
			out[k] = milli(max(10, v.MilliValue()*num/den/10*10))
		case v1.ResourceMemory:
			out[k] = binary(max(mi, v.Value()*num/den/mi*mi))
		default:
			out[k] = v.DeepCopy()
		}
	}
	return out
}

// resizeOne puts pod p into one resize state.
func resizeOne(s *stream, p *v1.Pod, nodeCPU int64) {
	state := s.Intn(6)
	if p.Spec.Resources != nil && p.Spec.Resources.Requests != nil && s.chance(0.6) {
		// Pod-level resources: status.allocatedResources and status.resources.
		spec := p.Spec.Resources.Requests
		switch state % 3 {
		case 0: // resize down not actuated: actuated above the spec
			p.Status.AllocatedResources = spec.DeepCopy()
			p.Status.Resources = &v1.ResourceRequirements{Requests: scaled(spec, 3, 2)}
		case 1: // resize down not allocated
			p.Status.AllocatedResources = scaled(spec, 4, 3)
			p.Status.Resources = &v1.ResourceRequirements{Requests: scaled(spec, 4, 3)}
		default: // Infeasible resize up: counted at the old size
			old := spec.DeepCopy()
			p.Status.AllocatedResources = old
			p.Status.Resources = &v1.ResourceRequirements{Requests: old.DeepCopy()}
			p.Spec.Resources.Requests[v1.ResourceCPU] = milli(nodeCPU + 1000)
			pending(p, v1.PodReasonInfeasible)
		}
		return
	}
	for k := range p.Spec.Containers {
		c := &p.Spec.Containers[k]
		spec := c.Resources.Requests
		if spec == nil {
			spec = c.Resources.Limits
		}
		cs := v1.ContainerStatus{Name: c.Name, Image: c.Image, Ready: true, Started: ptr(true),
			State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: metaTime(0)}}}
		switch state {
		case 0: // statuses equal to the spec
			cs.AllocatedResources = spec.DeepCopy()
			cs.Resources = &v1.ResourceRequirements{Requests: spec.DeepCopy(), Limits: c.Resources.Limits.DeepCopy()}
		case 1: // resize up pending (Deferred): the spec counts
			cs.AllocatedResources = scaled(spec, 2, 3)
			cs.Resources = &v1.ResourceRequirements{Requests: scaled(spec, 2, 3)}
			if k == 0 {
				pending(p, v1.PodReasonDeferred)
			}
		case 2: // resize down accepted, not actuated: the actuated resources count
			cs.AllocatedResources = spec.DeepCopy()
			cs.Resources = &v1.ResourceRequirements{Requests: scaled(spec, 3, 2)}
		case 3: // resize down not yet allocated: the allocated resources count
			cs.AllocatedResources = scaled(spec, 2, 1)
			cs.Resources = &v1.ResourceRequirements{Requests: scaled(spec, 2, 1)}
		case 4: // Infeasible resize up: the old size counts, not the spec
			cs.AllocatedResources = spec.DeepCopy()
			cs.Resources = &v1.ResourceRequirements{Requests: spec.DeepCopy()}
			if k == 0 {
				c.Resources.Requests = withDefault(c.Resources.Requests.DeepCopy())
				c.Resources.Requests[v1.ResourceCPU] = milli(nodeCPU + 500)
				if l, ok := c.Resources.Limits[v1.ResourceCPU]; ok && l.MilliValue() < nodeCPU+500 {
					c.Resources.Limits[v1.ResourceCPU] = milli(nodeCPU + 500)
				}
				pending(p, v1.PodReasonInfeasible)
			}
		default: // statuses of the actuated resources only (allocatedResources not reported)
			cs.Resources = &v1.ResourceRequirements{Requests: scaled(spec, 5, 4)}
		}
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, cs)
	}
}

func pending(p *v1.Pod, reason string) {
	p.Status.Conditions = append(p.Status.Conditions, v1.PodCondition{Type: v1.PodResizePending,
		Status: v1.ConditionTrue, Reason: reason, LastTransitionTime: metaTime(600)})
}

func ptr[T any](v T) *T { return &v }

func podName(n int) string { return fmt.Sprintf("p-%04d", n) }

func uidOf(ns, name string) types.UID { return types.UID("uid-" + ns + "-" + name) }

// metaTime is the dump's wall clock plus seconds.
func metaTime(seconds int64) metav1.Time {
	return metav1.NewTime(base.Add(time.Duration(seconds) * time.Second))
}
