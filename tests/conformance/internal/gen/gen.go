package gen

import (
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	resourcehelper "k8s.io/component-helpers/resource"
)

// Case is one generated cluster and the pod to place.
type Case struct {
	Seed       int64
	Families   []string // the families this cluster uses
	Nodes      []*v1.Node
	Pods       []*v1.Pod // the dump's pods (the preemptor among them when PodName is set)
	PDBs       []*policyv1.PodDisruptionBudget
	Classes    []*schedulingv1.PriorityClass
	Namespaces []*v1.Namespace
	PodGroups  []*schedulingv1beta1.PodGroup
	// RuntimeClasses and LimitRanges (manifests), the storage kinds (volumes) and the DRA kinds
	// (dra).
	RuntimeClasses         []*nodev1.RuntimeClass
	LimitRanges            []*v1.LimitRange
	StorageClasses         []*storagev1.StorageClass
	CSIDrivers             []*storagev1.CSIDriver
	CSINodes               []*storagev1.CSINode
	PVs                    []*v1.PersistentVolume
	PVCs                   []*v1.PersistentVolumeClaim
	VolumeAttachments      []*storagev1.VolumeAttachment
	CSIStorageCapacities   []*storagev1.CSIStorageCapacity
	DeviceClasses          []*resourcev1.DeviceClass
	ResourceSlices         []*resourcev1.ResourceSlice
	ResourceClaimTemplates []*resourcev1.ResourceClaimTemplate
	ResourceClaims         []*resourcev1.ResourceClaim
	Preemptor              *v1.Pod
	// PodName: the preemptor is a pending pod of the dump (--pod-name), else --pod pod.json.
	PodName bool
	// PodGroup: a pending PodGroup ("namespace/name") decided instead of a pod (--pod-group; its
	// members are pods of the dump, and Preemptor is not written).
	PodGroup string
	// Percentage/Absolute: DefaultPreemptionArgs (nil: defaults); Offset: --offset.
	Percentage *int32
	Absolute   *int32
	Offset     int64
	// SchedulerName: --scheduler-name, the profile both deciders act as ("" = default-scheduler).
	SchedulerName string
	// Hooks: what the model driver adds (extenders, scores, a thread pool); drawn when the text
	// form is written.
	Hooks *Hooks
}

// Scheduler is the profile's schedulerName.
func (c *Case) Scheduler() string {
	if c.SchedulerName == "" {
		return v1.DefaultSchedulerName
	}
	return c.SchedulerName
}

// Uses tells whether the case uses a family.
func (c *Case) Uses(f string) bool {
	for _, g := range c.Families {
		if g == f {
			return true
		}
	}
	return false
}

// ResourceOnly tells whether the model driver's text form expresses the case (ModelFamilies).
func (c *Case) ResourceOnly() bool {
	for _, f := range c.Families {
		if !ResourceOnly[f] {
			return false
		}
	}
	return true
}

// Args are the decider flags beyond --cluster and --pod/--pod-name.
func (c *Case) Args() []string {
	var a []string
	if c.Percentage != nil {
		a = append(a, "--min-candidate-nodes-percentage", strconv.Itoa(int(*c.Percentage)))
	}
	if c.Absolute != nil {
		a = append(a, "--min-candidate-nodes-absolute", strconv.Itoa(int(*c.Absolute)))
	}
	if c.Offset != 0 {
		a = append(a, "--offset", strconv.FormatInt(c.Offset, 10))
	}
	if c.SchedulerName != "" {
		a = append(a, "--scheduler-name", c.SchedulerName)
	}
	return a
}

// The wall clock of every generated dump: start times are seconds after base, and the dumps
// lie in the past of any run.
var base = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const (
	gpu          = v1.ResourceName("example.com/gpu")
	otherSched   = "other-scheduler"
	zoneLabel    = "topology.kubernetes.io/zone"
	hostLabel    = "kubernetes.io/hostname"
	defaultSched = v1.DefaultSchedulerName
)

type generator struct {
	r   *rand.Rand
	c   *Case
	on  map[string]bool
	pod int // pod counter for names

	shapes   []v1.ResourceList
	zones    []string
	classes  map[string]int32 // PriorityClass name -> value
	levels   []string         // class names a pod may use, by ascending value
	apps     []string
	ns       []string
	free     []v1.ResourceList // per node: allocatable minus the bound pods' requests
	groups   *rand.Rand        // the pod-groups family's own draws
	podsLeft []int64

	own     map[string]*stream // the draws of each family with a stream of its own
	dense   map[int]bool       // the dense family's nodes
	volumes *volumeState
	devices *deviceState
}

func (g *generator) chance(p float64) bool { return g.r.Float64() < p }
func (g *generator) between(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + g.r.Int63n(hi-lo+1)
}
func (g *generator) pick(list []string) string { return list[g.r.Intn(len(list))] }

// Generate draws one case from the seed, using the enabled families.
func Generate(seed int64, enabled []string) *Case {
	g := &generator{r: rand.New(rand.NewSource(seed)), c: &Case{Seed: seed}, on: map[string]bool{},
		own: map[string]*stream{}, dense: map[int]bool{}}
	for _, f := range enabled {
		if f == PodGroups || ownStream(f) {
			continue
		}
		if f == Resources || g.chance(0.5) {
			g.on[f] = true
		}
	}
	// Pod groups draw from a stream of their own, so that every other family's clusters stay
	// what their seeds made before the family existed.
	g.groups = rand.New(rand.NewSource(seed*7919 + 13))
	for _, f := range enabled {
		if f == PodGroups && g.groups.Float64() < 0.5 {
			g.on[f] = true
		}
	}
	g.drawOwnStreams(seed, enabled)
	// Spread and pod affinity need zones and labels; host ports are a small family: keep each in
	// a good share of the clusters that may use them.
	g.build()
	for _, f := range All {
		if g.on[f] {
			g.c.Families = append(g.c.Families, f)
		}
	}
	return g.c
}

func (g *generator) build() {
	g.classesAndNamespaces()
	g.nodes()
	g.afterNodes()
	g.boundPods()
	g.afterBoundPods()
	if g.on[PodGroups] {
		g.podGroups()
	}
	if g.on[Nominated] {
		g.nominatedPods()
	}
	g.terminalPods()
	if g.on[PDBs] {
		g.pdbs()
	}
	g.preemptor()
	g.afterPreemptor()
	if g.on[Sampling] {
		g.sampling()
	}
	if g.on[SamplingHeavy] {
		g.heavySampling()
	}
}

func q(s string) resource.Quantity { return resource.MustParse(s) }
func milli(m int64) resource.Quantity {
	return *resource.NewMilliQuantity(m, resource.DecimalSI)
}
func binary(b int64) resource.Quantity { return *resource.NewQuantity(b, resource.BinarySI) }
func count(n int64) resource.Quantity  { return *resource.NewQuantity(n, resource.DecimalSI) }

const (
	mi = int64(1) << 20
	gi = int64(1) << 30
)

func (g *generator) classesAndNamespaces() {
	g.classes = map[string]int32{"low": 0, "mid": 100, "high": 1000, "critical": 10000}
	g.levels = []string{"low", "mid", "high", "critical"}
	if g.on[Priorities] {
		g.classes["negative"] = -50
		g.classes["batch-never"] = 500 // preemptionPolicy Never
		g.classes["default"] = 10      // the global default
		g.levels = []string{"negative", "low", "default", "mid", "batch-never", "high", "critical"}
	}
	names := make([]string, 0, len(g.classes))
	for n := range g.classes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		pc := &schedulingv1.PriorityClass{
			TypeMeta:   metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1", Kind: "PriorityClass"},
			ObjectMeta: metav1.ObjectMeta{Name: n},
			Value:      g.classes[n],
		}
		policy := v1.PreemptLowerPriority
		if n == "batch-never" {
			policy = v1.PreemptNever
		}
		pc.PreemptionPolicy = &policy
		pc.GlobalDefault = n == "default"
		g.c.Classes = append(g.c.Classes, pc)
	}
	nns := 1 + g.r.Intn(3)
	for i := 0; i < nns; i++ {
		name := fmt.Sprintf("team-%c", 'a'+i)
		g.ns = append(g.ns, name)
		labels := map[string]string{"kubernetes.io/metadata.name": name, "tier": []string{"prod", "dev"}[i%2]}
		g.c.Namespaces = append(g.c.Namespaces, &v1.Namespace{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		})
	}
	napps := 2 + g.r.Intn(4)
	for i := 0; i < napps; i++ {
		g.apps = append(g.apps, fmt.Sprintf("app-%d", i))
	}
}

func (g *generator) nodeCount() int {
	switch x := g.r.Float64(); {
	case x < 0.35:
		return 1 + g.r.Intn(5)
	case x < 0.7:
		return 6 + g.r.Intn(15)
	case x < 0.92:
		return 21 + g.r.Intn(80)
	default:
		return 101 + g.r.Intn(200)
	}
}

func (g *generator) nodes() {
	n := g.nodeCount()
	if g.on[SamplingHeavy] {
		n = int(g.own[SamplingHeavy].between(150, 400))
	}
	nz := 1 + g.r.Intn(3)
	for i := 0; i < nz; i++ {
		g.zones = append(g.zones, fmt.Sprintf("zone-%c", 'a'+i))
	}
	nshapes := 1 + g.r.Intn(3)
	for i := 0; i < nshapes; i++ {
		cpu := []int64{1000, 2000, 4000, 8000, 16000}[g.r.Intn(5)]
		mem := []int64{2, 4, 8, 16, 32}[g.r.Intn(5)] * gi
		shape := v1.ResourceList{v1.ResourceCPU: milli(cpu), v1.ResourceMemory: binary(mem), v1.ResourcePods: count(110)}
		if g.on[Resources] {
			shape[v1.ResourceEphemeralStorage] = binary([]int64{10, 20, 50}[g.r.Intn(3)] * gi)
			if g.chance(0.4) {
				shape[v1.ResourcePods] = count(g.between(3, 12))
			}
			if g.chance(0.4) {
				shape[gpu] = count(g.between(1, 4))
			}
		}
		g.shapes = append(g.shapes, shape)
	}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("node-%03d", i)
		shape := g.shapes[g.r.Intn(len(g.shapes))]
		node := &v1.Node{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
			ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("node-uid-" + name), Labels: map[string]string{
				hostLabel: name, zoneLabel: g.zones[i%len(g.zones)], "kubernetes.io/os": "linux",
			}},
			Status: v1.NodeStatus{Capacity: shape.DeepCopy(), Allocatable: shape.DeepCopy()},
		}
		if g.on[NodeAffinity] {
			node.Labels["pool"] = g.pick([]string{"a", "b", "c"})
			if g.chance(0.7) {
				node.Labels["disk"] = g.pick([]string{"ssd", "hdd"})
			}
			node.Labels["gen"] = strconv.Itoa(1 + g.r.Intn(5))
		}
		if g.on[Taints] {
			g.taint(node)
		}
		if (g.on[Spread] || g.on[PodAffinity]) && g.chance(0.08) {
			delete(node.Labels, zoneLabel) // a node outside every zone
		}
		g.c.Nodes = append(g.c.Nodes, node)
		g.free = append(g.free, shape.DeepCopy())
		g.podsLeft = append(g.podsLeft, shape.Pods().Value())
	}
}

func (g *generator) taint(node *v1.Node) {
	switch x := g.r.Float64(); {
	case x < 0.15:
		node.Spec.Taints = append(node.Spec.Taints, v1.Taint{Key: "dedicated", Value: g.pick([]string{"gpu", "infra"}), Effect: v1.TaintEffectNoSchedule})
	case x < 0.22:
		node.Spec.Taints = append(node.Spec.Taints, v1.Taint{Key: "maintenance", Effect: v1.TaintEffectNoExecute})
	case x < 0.3:
		node.Spec.Taints = append(node.Spec.Taints, v1.Taint{Key: "spot", Value: "true", Effect: v1.TaintEffectPreferNoSchedule})
	case x < 0.36:
		node.Spec.Unschedulable = true
		node.Spec.Taints = append(node.Spec.Taints, v1.Taint{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule})
	}
}

// priority gives a pod's priority fields: a class and, most often, the priority admission stored.
func (g *generator) priority(spec *v1.PodSpec, class string) {
	spec.PriorityClassName = class
	if g.on[Priorities] && g.chance(0.25) {
		if g.chance(0.3) {
			spec.PriorityClassName = "" // the global default class applies
		}
		return // admission resolves it
	}
	v := g.classes[class]
	spec.Priority = &v
	policy := v1.PreemptLowerPriority
	if class == "batch-never" {
		policy = v1.PreemptNever
	}
	spec.PreemptionPolicy = &policy
}

// victimClass draws the class of an existing pod: mostly below the preemptor's usual classes.
func (g *generator) victimClass() string {
	if g.on[Priorities] {
		return g.pick([]string{"negative", "low", "low", "default", "mid", "mid", "batch-never", "high"})
	}
	return g.pick([]string{"low", "low", "mid", "mid", "high"})
}

func (g *generator) newPod(ns, class string) *v1.Pod {
	g.pod++
	name := podName(g.pod)
	app := g.pick(g.apps)
	p := &v1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: uidOf(ns, name),
			Labels: map[string]string{"app": app}},
		Spec: v1.PodSpec{SchedulerName: defaultSched},
	}
	if g.chance(0.3) {
		p.Labels["tier"] = g.pick([]string{"web", "batch"})
	}
	if g.chance(0.05) {
		p.Labels = nil // no labels: never counts against a budget
	}
	g.priority(&p.Spec, class)
	return p
}

// requests fills the pod's containers so that its effective requests are about want (cpu
// millicores, memory bytes), with the resource family's variety.
func (g *generator) requests(p *v1.Pod, cpu, mem int64, node int) {
	res := func(c, m int64) v1.ResourceRequirements {
		return v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: milli(c), v1.ResourceMemory: binary(m)}}
	}
	main := v1.Container{Name: "main", Image: "registry.example/app:1", Resources: res(cpu, mem)}
	p.Spec.Containers = []v1.Container{main}
	if !g.on[Resources] {
		return
	}
	switch x := g.r.Float64(); {
	case x < 0.15: // two containers
		c1 := cpu / 2
		p.Spec.Containers = []v1.Container{
			{Name: "main", Image: "registry.example/app:1", Resources: res(c1, mem/2)},
			{Name: "helper", Image: "registry.example/helper:1", Resources: res(cpu-c1, mem-mem/2)},
		}
	case x < 0.25: // limits only: the API server defaults the requests to them
		p.Spec.Containers[0].Resources = v1.ResourceRequirements{Limits: v1.ResourceList{v1.ResourceCPU: milli(cpu), v1.ResourceMemory: binary(mem)}}
	case x < 0.35: // an init container larger than the rest sets the floor
		p.Spec.InitContainers = []v1.Container{{Name: "init", Image: "registry.example/init:1", Resources: res(cpu+g.between(10, 500), mem/2)}}
	case x < 0.45: // a sidecar (restartable init container) runs alongside
		always := v1.ContainerRestartPolicyAlways
		sc := cpu / 4
		p.Spec.InitContainers = []v1.Container{{Name: "proxy", Image: "registry.example/proxy:1", RestartPolicy: &always, Resources: res(sc, mem/4)}}
		p.Spec.Containers[0].Resources = res(cpu-sc, mem-mem/4)
		if g.chance(0.5) { // and an init container after it
			p.Spec.InitContainers = append(p.Spec.InitContainers, v1.Container{Name: "migrate", Image: "registry.example/init:1", Resources: res(cpu, mem/8)})
		}
	case x < 0.52: // overhead (a RuntimeClass's, stored by admission)
		oh := g.between(10, 100)
		p.Spec.Overhead = v1.ResourceList{v1.ResourceCPU: milli(oh), v1.ResourceMemory: binary(16 * mi)}
		p.Spec.Containers[0].Resources = res(max(cpu-oh, 1), mem)
	case x < 0.58: // pod-level resources
		p.Spec.Resources = &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: milli(cpu), v1.ResourceMemory: binary(mem)}}
		p.Spec.Containers[0].Resources = res(cpu/2, mem/2)
	case x < 0.62: // best effort on cpu and memory
		p.Spec.Containers[0].Resources = v1.ResourceRequirements{}
	}
	if g.chance(0.3) {
		p.Spec.Containers[0].Resources.Requests = withDefault(p.Spec.Containers[0].Resources.Requests)
		p.Spec.Containers[0].Resources.Requests[v1.ResourceEphemeralStorage] = binary(g.between(1, 8) * gi)
	}
	if node >= 0 {
		if a, ok := g.c.Nodes[node].Status.Allocatable[gpu]; ok && a.Value() > 0 && g.chance(0.5) {
			p.Spec.Containers[0].Resources.Requests = withDefault(p.Spec.Containers[0].Resources.Requests)
			p.Spec.Containers[0].Resources.Requests[gpu] = count(g.between(1, a.Value()))
			if g.chance(0.5) {
				p.Spec.Containers[0].Resources.Limits = withDefault(p.Spec.Containers[0].Resources.Limits)
				p.Spec.Containers[0].Resources.Limits[gpu] = count(p.Spec.Containers[0].Resources.Requests.Name(gpu, resource.DecimalSI).Value())
			}
		}
	}
}

func withDefault(l v1.ResourceList) v1.ResourceList {
	if l == nil {
		return v1.ResourceList{}
	}
	return l
}

// effective returns the pod's requests as the scheduler counts them, limits standing in for
// missing requests (the API server's defaulting), with v1.37's defaults for in-place resizes
// (InPlacePodVerticalScaling, InPlacePodLevelResourcesVerticalScaling: the largest of the spec,
// the allocated and the actuated resources; without the spec when the resize is Infeasible).
func effective(p *v1.Pod) v1.ResourceList {
	c := p.DeepCopy()
	for i := range c.Spec.Containers {
		for k, v := range c.Spec.Containers[i].Resources.Limits {
			c.Spec.Containers[i].Resources.Requests = withDefault(c.Spec.Containers[i].Resources.Requests)
			if _, ok := c.Spec.Containers[i].Resources.Requests[k]; !ok {
				c.Spec.Containers[i].Resources.Requests[k] = v
			}
		}
	}
	return resourcehelper.PodRequests(c, resourcehelper.PodResourcesOptions{UseStatusResources: true,
		InPlacePodLevelResourcesVerticalScalingEnabled: true})
}

func (g *generator) startTime(p *v1.Pod) {
	if g.on[Priorities] && g.chance(0.15) {
		return // missing: the scheduler takes "now"
	}
	spread := int64(3600)
	if g.on[Priorities] && g.chance(0.5) {
		spread = 5 // many equal start times
	}
	t := metav1.NewTime(base.Add(time.Duration(g.between(0, spread)) * time.Second))
	p.Status.StartTime = &t
}

func (g *generator) boundPods() {
	for i, node := range g.c.Nodes {
		if g.dense[i] {
			g.fillDense(i)
			continue
		}
		alloc := node.Status.Allocatable
		cpu, mem := alloc.Cpu().MilliValue(), alloc.Memory().Value()
		target := 0.55 + 0.45*g.r.Float64()
		used := int64(0)
		for tries := 0; tries < 40 && g.podsLeft[i] > 0; tries++ {
			if float64(used) >= target*float64(cpu) {
				break
			}
			pc := max(10, int64(float64(cpu)*(0.05+0.35*g.r.Float64()))/10*10)
			pm := max(mi, int64(float64(mem)*(0.02+0.3*g.r.Float64()))/mi*mi)
			p := g.newPod(g.pick(g.ns), g.victimClass())
			g.requests(p, pc, pm, i)
			req := effective(p)
			if !fitsIn(req, g.free[i]) {
				continue
			}
			p.Spec.NodeName = node.Name
			p.Status.Phase = v1.PodRunning
			g.startTime(p)
			if g.on[HostPorts] && g.chance(0.25) {
				g.hostPorts(p, 1+g.r.Intn(2))
			}
			if g.on[Terminating] && g.chance(0.1) {
				g.terminate(p)
			}
			if g.on[PodAffinity] && g.chance(0.1) {
				g.existingAntiAffinity(p)
			}
			if g.on[Taints] && len(node.Spec.Taints) > 0 {
				p.Spec.Tolerations = []v1.Toleration{{Operator: v1.TolerationOpExists}}
			}
			subtract(g.free[i], req)
			g.podsLeft[i]--
			used += req.Cpu().MilliValue()
			g.c.Pods = append(g.c.Pods, p)
		}
	}
}

func (g *generator) pick32(list []int32) int32 { return list[g.r.Intn(len(list))] }

func fitsIn(req, free v1.ResourceList) bool {
	for k, v := range req {
		f, ok := free[k]
		if v.IsZero() {
			continue
		}
		if !ok || f.Cmp(v) < 0 {
			return false
		}
	}
	return true
}

func subtract(free, req v1.ResourceList) {
	for k, v := range req {
		if f, ok := free[k]; ok {
			f.Sub(v)
			free[k] = f
		}
	}
}

func (g *generator) terminate(p *v1.Pod) {
	t := metav1.NewTime(base.Add(2 * time.Hour))
	p.DeletionTimestamp = &t
	grace := int64(30)
	p.DeletionGracePeriodSeconds = &grace
	if g.chance(0.6) {
		p.Status.Conditions = append(p.Status.Conditions, v1.PodCondition{Type: v1.DisruptionTarget,
			Status: v1.ConditionTrue, Reason: v1.PodReasonPreemptionByScheduler,
			Message: "default-scheduler: preempting to accommodate a higher priority pod"})
	}
}

func (g *generator) nominatedPods() {
	n := 1 + g.r.Intn(1+len(g.c.Nodes)/3)
	for i := 0; i < n; i++ {
		class := g.pick(g.levels)
		p := g.newPod(g.pick(g.ns), class)
		node := g.r.Intn(len(g.c.Nodes))
		alloc := g.c.Nodes[node].Status.Allocatable
		g.requests(p, max(10, alloc.Cpu().MilliValue()*int64(5+g.r.Intn(30))/100/10*10), max(mi, alloc.Memory().Value()*int64(2+g.r.Intn(20))/100/mi*mi), node)
		p.Status.Phase = v1.PodPending
		p.Status.NominatedNodeName = g.c.Nodes[node].Name
		if g.chance(0.2) {
			p.Spec.SchedulerName = otherSched
		}
		if g.on[Taints] {
			p.Spec.Tolerations = []v1.Toleration{{Operator: v1.TolerationOpExists}}
		}
		if g.on[HostPorts] && g.chance(0.3) {
			g.hostPorts(p, 1)
		}
		if g.on[PodAffinity] && g.chance(0.2) {
			g.existingAntiAffinity(p)
		}
		g.c.Pods = append(g.c.Pods, p)
	}
	// Pending pods without a nomination: they do not count anywhere.
	if g.chance(0.5) {
		p := g.newPod(g.pick(g.ns), g.pick(g.levels))
		g.requests(p, 100, 64*mi, -1)
		p.Status.Phase = v1.PodPending
		g.c.Pods = append(g.c.Pods, p)
	}
}

// terminalPods adds finished pods bound to nodes: the scheduler does not see them.
func (g *generator) terminalPods() {
	if !g.chance(0.3) {
		return
	}
	node := g.c.Nodes[g.r.Intn(len(g.c.Nodes))]
	p := g.newPod(g.pick(g.ns), "low")
	g.requests(p, node.Status.Allocatable.Cpu().MilliValue(), 64*mi, -1)
	p.Spec.NodeName = node.Name
	p.Status.Phase = []v1.PodPhase{v1.PodSucceeded, v1.PodFailed}[g.r.Intn(2)]
	g.startTime(p)
	g.c.Pods = append(g.c.Pods, p)
}

func (g *generator) pdbs() {
	npdb := 1 + g.r.Intn(len(g.apps)+1)
	for i := 0; i < npdb; i++ {
		ns := g.pick(g.ns)
		app := g.pick(g.apps)
		pdb := &policyv1.PodDisruptionBudget{
			TypeMeta:   metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pdb-%d", i), Namespace: ns},
		}
		switch x := g.r.Float64(); {
		case x < 0.6:
			pdb.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
		case x < 0.8:
			pdb.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{app, g.pick(g.apps)}},
			}}
			if g.chance(0.4) {
				pdb.Spec.Selector.MatchExpressions = append(pdb.Spec.Selector.MatchExpressions,
					metav1.LabelSelectorRequirement{Key: "tier", Operator: []metav1.LabelSelectorOperator{metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist, metav1.LabelSelectorOpNotIn}[g.r.Intn(3)], Values: nil})
				if last := &pdb.Spec.Selector.MatchExpressions[len(pdb.Spec.Selector.MatchExpressions)-1]; last.Operator == metav1.LabelSelectorOpNotIn {
					last.Values = []string{"batch"}
				}
			}
		case x < 0.9:
			pdb.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"tier": g.pick([]string{"web", "batch"})}}
		case x < 0.95:
			pdb.Spec.Selector = &metav1.LabelSelector{} // empty: matches nothing in the scheduler
		default:
			// no selector
		}
		var matching []*v1.Pod
		for _, p := range g.c.Pods {
			if p.Namespace == ns && p.Spec.NodeName != "" && p.Status.Phase == v1.PodRunning && matches(pdb.Spec.Selector, p.Labels) {
				matching = append(matching, p)
			}
		}
		expected := int32(len(matching))
		healthy := int32(0)
		for _, p := range matching {
			if p.DeletionTimestamp == nil {
				healthy++
			}
		}
		var desired int32
		switch x := g.r.Float64(); {
		case x < 0.35:
			v := intstr.FromInt32(int32(g.between(0, int64(expected))))
			pdb.Spec.MinAvailable = &v
			desired = v.IntVal
		case x < 0.55:
			pct := int(g.between(0, 100))
			v := intstr.FromString(strconv.Itoa(pct) + "%")
			pdb.Spec.MinAvailable = &v
			desired = int32((int(expected)*pct + 99) / 100)
		case x < 0.8:
			v := intstr.FromInt32(int32(g.between(0, 3)))
			pdb.Spec.MaxUnavailable = &v
			desired = max(0, expected-v.IntVal)
		default:
			pct := int(g.between(0, 100))
			v := intstr.FromString(strconv.Itoa(pct) + "%")
			pdb.Spec.MaxUnavailable = &v
			desired = max(0, expected-int32((int(expected)*pct+99)/100))
		}
		allowed := max(0, healthy-desired)
		if g.chance(0.15) {
			allowed = 0
		}
		pdb.Status = policyv1.PodDisruptionBudgetStatus{
			ObservedGeneration: 1, DisruptionsAllowed: allowed, CurrentHealthy: healthy,
			DesiredHealthy: desired, ExpectedPods: expected,
		}
		if len(matching) > 0 && g.chance(0.3) {
			pdb.Status.DisruptedPods = map[string]metav1.Time{}
			for _, p := range matching {
				if g.chance(0.3) {
					pdb.Status.DisruptedPods[p.Name] = metav1.NewTime(base.Add(3 * time.Hour))
				}
			}
		}
		g.c.PDBs = append(g.c.PDBs, pdb)
	}
}

func matches(sel *metav1.LabelSelector, labels map[string]string) bool {
	if sel == nil {
		return false
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil || s.Empty() {
		return false
	}
	return s.Matches(labelsSet(labels))
}

// podGroups makes one to three PodGroups per namespace in use (disruption mode all, single or
// unset; a priority of a class, or none) and puts about half of the bound pods of that namespace
// into one of them (spec.schedulingGroup); a few pods name a PodGroup that does not exist.
func (g *generator) podGroups() {
	r := g.groups
	between := func(lo, hi int) int { return lo + r.Intn(hi-lo+1) }
	pick := func(list []string) string { return list[r.Intn(len(list))] }
	byNS := map[string][]string{}
	for _, ns := range g.ns {
		n := between(1, 3)
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("pg-%d", i)
			pg := &schedulingv1beta1.PodGroup{
				TypeMeta:   metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1beta1", Kind: "PodGroup"},
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("uid-pg-" + ns + "-" + name)},
				Spec: schedulingv1beta1.PodGroupSpec{
					SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{Basic: &schedulingv1beta1.BasicSchedulingPolicy{}},
				},
			}
			switch r.Intn(3) {
			case 0:
				pg.Spec.DisruptionMode = &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}}
			case 1:
				pg.Spec.DisruptionMode = &schedulingv1beta1.DisruptionMode{Single: &schedulingv1beta1.SingleDisruptionMode{}}
			}
			if r.Float64() < 0.85 {
				levels := []string{"low", "low", "mid", "mid", "high"}
				if g.on[Priorities] {
					levels = []string{"negative", "low", "low", "default", "mid", "mid", "batch-never", "high"}
				}
				v := g.classes[pick(levels)]
				pg.Spec.Priority = &v
			}
			g.c.PodGroups = append(g.c.PodGroups, pg)
			byNS[ns] = append(byNS[ns], name)
		}
	}
	for _, p := range g.c.Pods {
		if p.Spec.NodeName == "" || r.Float64() >= 0.5 {
			continue
		}
		name := pick(byNS[p.Namespace])
		if r.Float64() < 0.05 {
			name = "pg-missing"
		}
		p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &name}
	}
}
