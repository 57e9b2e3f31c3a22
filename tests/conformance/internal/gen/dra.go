package gen

import (
	"fmt"
	"sort"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The devices of the dra family: GPUs of gpu.example.com on about half of the nodes (a
// ResourceSlice per node, pool = node name; now and then partitionable, a counter slice beside
// the device slice; now and then a tainted device), and network-attached devices of
// fabric.example.com (one pool, a slice with a zone nodeSelector or allNodes). DeviceClasses
// select them with the CEL real classes use:
//
//	gpu.example.com        device.driver == "gpu.example.com" (backing example.com/gpu now and then)
//	gpu-a100.example.com   ... && device.attributes["gpu.example.com"].model == "a100"
//	gpu-large.example.com  ... && device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0
//	gpu-h.example.com      ... && device.attributes["gpu.example.com"].model.matches("^h")
//	gpu-indexed.example.com  has(device.attributes["gpu.example.com"].index) && ...index < 2
//	fabric.example.com     device.driver in ["fabric.example.com"]
const (
	gpuDriver    = "gpu.example.com"
	fabricDriver = "fabric.example.com"
)

type deviceState struct {
	free map[int][]string // unallocated GPU devices per node, in slice order
	n    int
}

func (g *generator) devs() *deviceState {
	if g.devices == nil {
		g.devices = &deviceState{free: map[int][]string{}}
	}
	return g.devices
}

func cel(expr string) []resourcev1.DeviceSelector {
	return []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: expr}}}
}

var gpuClasses = []string{"gpu.example.com", "gpu-a100.example.com", "gpu-large.example.com", "gpu-h.example.com", "gpu-indexed.example.com"}

// deviceObjects: classes and slices.
func (g *generator) deviceObjects() {
	s, ds := g.own[DRA], g.devs()
	tm := metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "DeviceClass"}
	isGPU := `device.driver == "gpu.example.com"`
	class := func(name, expr string) *resourcev1.DeviceClass {
		return &resourcev1.DeviceClass{TypeMeta: tm, ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: resourcev1.DeviceClassSpec{Selectors: cel(expr)}}
	}
	gpuClass := class("gpu.example.com", isGPU)
	if s.chance(0.25) {
		name := string(gpu)
		gpuClass.Spec.ExtendedResourceName = &name
	}
	g.c.DeviceClasses = []*resourcev1.DeviceClass{gpuClass,
		class("gpu-a100.example.com", isGPU+` && device.attributes["gpu.example.com"].model == "a100"`),
		class("gpu-large.example.com", isGPU+` && device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0`),
		class("gpu-h.example.com", isGPU+` && device.attributes["gpu.example.com"].model.matches("^h")`),
		class("gpu-indexed.example.com", `has(device.attributes["gpu.example.com"].index) && device.attributes["gpu.example.com"].index < 2`),
		class("fabric.example.com", `device.driver in ["fabric.example.com"]`),
	}
	tmSlice := metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceSlice"}
	models := []struct {
		name string
		mem  int64
	}{{"a100", 80}, {"a100", 40}, {"t4", 16}, {"h100", 80}, {"l4", 24}}
	for i, n := range g.c.Nodes {
		if !s.chance(0.5) {
			continue
		}
		model := models[s.Intn(len(models))]
		node := n.Name
		device := func(name string, index int64) resourcev1.Device {
			d := resourcev1.Device{Name: name,
				Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{
					"model": {StringValue: ptr(model.name)}, "index": {IntValue: ptr(index)},
					"driverVersion": {VersionValue: ptr("1.2.3")}},
				Capacity: map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{
					"memory": {Value: binary(model.mem * gi)}}}
			if s.chance(0.06) {
				d.Taints = []resourcev1.DeviceTaint{{Key: "example.com/unhealthy", Effect: resourcev1.DeviceTaintEffectNoSchedule}}
			}
			return d
		}
		slice := &resourcev1.ResourceSlice{TypeMeta: tmSlice,
			ObjectMeta: metav1.ObjectMeta{Name: node + "-gpu.example.com"},
			Spec: resourcev1.ResourceSliceSpec{Driver: gpuDriver, NodeName: &node,
				Pool: resourcev1.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1}}}
		if s.chance(0.25) {
			// Partitionable: the whole GPU or two halves, drawing on one counter set.
			slice.Spec.Pool.ResourceSliceCount = 2
			counters := &resourcev1.ResourceSlice{TypeMeta: tmSlice,
				ObjectMeta: metav1.ObjectMeta{Name: node + "-gpu.example.com-counters"},
				Spec: resourcev1.ResourceSliceSpec{Driver: gpuDriver, NodeName: &node,
					Pool: resourcev1.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 2},
					SharedCounters: []resourcev1.CounterSet{{Name: "gpu-0-counters",
						Counters: map[string]resourcev1.Counter{"memory": {Value: binary(model.mem * gi)}}}}}}
			whole := device("gpu-0", 0)
			whole.ConsumesCounters = []resourcev1.DeviceCounterConsumption{{CounterSet: "gpu-0-counters",
				Counters: map[string]resourcev1.Counter{"memory": {Value: binary(model.mem * gi)}}}}
			slice.Spec.Devices = []resourcev1.Device{whole}
			for h, name := range []string{"gpu-0-half-a", "gpu-0-half-b"} {
				half := device(name, int64(h))
				half.Capacity["memory"] = resourcev1.DeviceCapacity{Value: binary(model.mem / 2 * gi)}
				half.ConsumesCounters = []resourcev1.DeviceCounterConsumption{{CounterSet: "gpu-0-counters",
					Counters: map[string]resourcev1.Counter{"memory": {Value: binary(model.mem / 2 * gi)}}}}
				slice.Spec.Devices = append(slice.Spec.Devices, half)
			}
			g.c.ResourceSlices = append(g.c.ResourceSlices, counters, slice)
			ds.free[i] = []string{"gpu-0-half-a", "gpu-0-half-b"}
			continue
		}
		for k := int64(0); k < s.between(1, 4); k++ {
			name := fmt.Sprintf("gpu-%d", k)
			slice.Spec.Devices = append(slice.Spec.Devices, device(name, k))
			if len(slice.Spec.Devices[k].Taints) == 0 {
				ds.free[i] = append(ds.free[i], name)
			}
		}
		g.c.ResourceSlices = append(g.c.ResourceSlices, slice)
	}
	if s.chance(0.6) {
		slice := &resourcev1.ResourceSlice{TypeMeta: tmSlice, ObjectMeta: metav1.ObjectMeta{Name: "fabric"},
			Spec: resourcev1.ResourceSliceSpec{Driver: fabricDriver,
				Pool: resourcev1.ResourcePool{Name: "fabric", Generation: 1, ResourceSliceCount: 1}}}
		if s.chance(0.5) {
			slice.Spec.AllNodes = ptr(true)
		} else {
			slice.Spec.NodeSelector = &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{
				{Key: zoneLabel, Operator: v1.NodeSelectorOpIn, Values: []string{g.zones[s.Intn(len(g.zones))]}}}}}}
		}
		for k := int64(0); k < s.between(1, 3); k++ {
			slice.Spec.Devices = append(slice.Spec.Devices, resourcev1.Device{Name: fmt.Sprintf("link-%d", k),
				Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{"bandwidth": {IntValue: ptr(int64(100))}}})
		}
		g.c.ResourceSlices = append(g.c.ResourceSlices, slice)
	}
}

func gpuRequest(name, class string, count int64) resourcev1.DeviceRequest {
	return resourcev1.DeviceRequest{Name: name, Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: class,
		AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: count}}
}

func (g *generator) resourceClaim(ns, name string, requests ...resourcev1.DeviceRequest) *resourcev1.ResourceClaim {
	return &resourcev1.ResourceClaim{TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceClaim"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("uid-claim-" + ns + "-" + name)},
		Spec:       resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: requests}}}
}

// allocate records the claim as allocated to devices of node i's GPU pool and reserved for the pods.
func allocate(c *resourcev1.ResourceClaim, node string, devices []string, pods ...*v1.Pod) {
	var results []resourcev1.DeviceRequestAllocationResult
	for _, d := range devices {
		results = append(results, resourcev1.DeviceRequestAllocationResult{Request: c.Spec.Devices.Requests[0].Name,
			Driver: gpuDriver, Pool: node, Device: d})
	}
	t := metaTime(60)
	c.Status.Allocation = &resourcev1.AllocationResult{Devices: resourcev1.DeviceAllocationResult{Results: results},
		NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{
			{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{node}}}}}},
		AllocationTimestamp: &t}
	for _, p := range pods {
		c.Status.ReservedFor = append(c.Status.ReservedFor, resourcev1.ResourceClaimConsumerReference{Resource: "pods", Name: p.Name, UID: p.UID})
	}
	c.Finalizers = []string{"resource.kubernetes.io/delete-protection"}
}

// useClaim makes pod p's first container use the claim under the pod claim name.
func useClaim(p *v1.Pod, podClaim string, claim, template *string) {
	p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, v1.PodResourceClaim{Name: podClaim, ResourceClaimName: claim,
		ResourceClaimTemplateName: template})
	p.Spec.Containers[0].Resources.Claims = append(p.Spec.Containers[0].Resources.Claims, v1.ResourceClaim{Name: podClaim})
}

// generatedClaim is the claim the resource claim controller made from a template for pod p.
func (g *generator) generatedClaim(p *v1.Pod, podClaim, suffix string, template *resourcev1.ResourceClaimTemplate) *resourcev1.ResourceClaim {
	c := g.resourceClaim(p.Namespace, p.Name+"-"+podClaim+"-"+suffix, template.Spec.Spec.Devices.Requests...)
	c.Annotations = map[string]string{"resource.kubernetes.io/pod-claim-name": podClaim}
	c.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID,
		Controller: ptr(true), BlockOwnerDeletion: ptr(true)}}
	name := c.Name
	p.Status.ResourceClaimStatuses = append(p.Status.ResourceClaimStatuses, v1.PodResourceClaimStatus{Name: podClaim, ResourceClaimName: &name})
	return c
}

// template returns the namespace's GPU claim template, making it.
func (g *generator) template(ns string) *resourcev1.ResourceClaimTemplate {
	for _, t := range g.c.ResourceClaimTemplates {
		if t.Namespace == ns {
			return t
		}
	}
	t := &resourcev1.ResourceClaimTemplate{TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceClaimTemplate"},
		ObjectMeta: metav1.ObjectMeta{Name: "gpu", Namespace: ns, UID: types.UID("uid-template-" + ns)},
		Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
			Requests: []resourcev1.DeviceRequest{gpuRequest("gpu", "gpu.example.com", 1)}}}}}
	g.c.ResourceClaimTemplates = append(g.c.ResourceClaimTemplates, t)
	return t
}

// boundClaims: about a third of the bound pods on nodes with free GPUs hold one, through a claim
// of their own or one generated from their namespace's template; now and then two pods of a
// node share one claim.
func (g *generator) boundClaims() {
	s, ds := g.own[DRA], g.devs()
	var nodes []int
	for i := range ds.free {
		nodes = append(nodes, i)
	}
	sort.Ints(nodes)
	for _, i := range nodes {
		node := g.c.Nodes[i].Name
		var shared *resourcev1.ResourceClaim
		for _, p := range g.boundOn(i) {
			if len(ds.free[i]) == 0 || !s.chance(0.35) {
				continue
			}
			ds.n++
			device := ds.free[i][0]
			switch x := s.Float64(); {
			case x < 0.45:
				c := g.resourceClaim(p.Namespace, fmt.Sprintf("gpu-%s", p.Name), gpuRequest("gpu", "gpu.example.com", 1))
				allocate(c, node, []string{device}, p)
				useClaim(p, "gpu", &c.Name, nil)
				g.c.ResourceClaims = append(g.c.ResourceClaims, c)
				shared = c
			case x < 0.8:
				t := g.template(p.Namespace)
				c := g.generatedClaim(p, "gpu", fmt.Sprintf("%05d", ds.n), t)
				allocate(c, node, []string{device}, p)
				useClaim(p, "gpu", nil, &t.Name)
				g.c.ResourceClaims = append(g.c.ResourceClaims, c)
			default:
				if shared == nil || shared.Namespace != p.Namespace {
					continue
				}
				useClaim(p, "gpu", &shared.Name, nil)
				shared.Status.ReservedFor = append(shared.Status.ReservedFor, resourcev1.ResourceClaimConsumerReference{Resource: "pods", Name: p.Name, UID: p.UID})
				continue
			}
			ds.free[i] = ds.free[i][1:]
		}
	}
}

// preemptorClaims gives the preemptor, most often, one or two device requests: a claim of its
// own, not allocated (one or two GPUs of a class, all of a class's devices, a CEL selector in the
// claim, a prioritized list of classes, a network-attached device), a claim generated from a
// template (created, or not yet: no status.resourceClaimStatuses), a claim allocated on some node
// and shared with a pod there, a claim missing from the dump, or a claim being deleted; or the
// extended resource a class backs.
func (g *generator) preemptorClaims() {
	s := g.own[DRA]
	if !s.chance(0.85) {
		return
	}
	p := g.c.Preemptor
	ns := p.Namespace
	n := 1 + s.Intn(2)
	if s.chance(0.7) {
		n = 1
	}
	for k := 0; k < n; k++ {
		podClaim := fmt.Sprintf("dev-%d", k)
		name := fmt.Sprintf("%s-%s", p.Name, podClaim)
		own := func(requests ...resourcev1.DeviceRequest) {
			c := g.resourceClaim(ns, name, requests...)
			g.c.ResourceClaims = append(g.c.ResourceClaims, c)
			useClaim(p, podClaim, &c.Name, nil)
		}
		switch x := s.Float64(); {
		case x < 0.22:
			own(gpuRequest("gpu", gpuClasses[s.Intn(len(gpuClasses))], s.between(1, 2)))
		case x < 0.3:
			r := gpuRequest("gpu", "gpu.example.com", 0)
			r.Exactly.AllocationMode = resourcev1.DeviceAllocationModeAll
			own(r)
		case x < 0.38:
			r := gpuRequest("gpu", "gpu.example.com", 1)
			r.Exactly.Selectors = cel(s.pick([]string{
				`device.attributes["gpu.example.com"].model == "h100"`,
				`device.capacity["gpu.example.com"].memory.compareTo(quantity("24Gi")) >= 0`,
				`device.attributes["gpu.example.com"].model in ["a100", "l4"]`,
				`!(device.attributes["gpu.example.com"].model == "t4") && device.attributes["gpu.example.com"].index >= 1`,
				`device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.0.0"))`,
			}))
			own(r)
		case x < 0.44:
			own(resourcev1.DeviceRequest{Name: "gpu", FirstAvailable: []resourcev1.DeviceSubRequest{
				{Name: "large", DeviceClassName: "gpu-large.example.com", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1},
				{Name: "any", DeviceClassName: "gpu.example.com", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1}}})
		case x < 0.52:
			own(gpuRequest("link", "fabric.example.com", 1))
		case x < 0.66: // from the template, the claim created
			t := g.template(ns)
			useClaim(p, podClaim, nil, &t.Name)
			g.c.ResourceClaims = append(g.c.ResourceClaims, g.generatedClaim(p, podClaim, "x7k2q", t))
		case x < 0.72: // from the template, the claim not created yet
			t := g.template(ns)
			useClaim(p, podClaim, nil, &t.Name)
		case x < 0.82: // allocated on some node and shared with a pod there
			var shared []*resourcev1.ResourceClaim
			for _, c := range g.c.ResourceClaims {
				if c.Namespace == ns && c.Status.Allocation != nil && len(c.OwnerReferences) == 0 {
					shared = append(shared, c)
				}
			}
			if len(shared) == 0 {
				own(gpuRequest("gpu", "gpu.example.com", 1))
				continue
			}
			c := shared[s.Intn(len(shared))]
			useClaim(p, podClaim, &c.Name, nil)
		case x < 0.88: // not in the dump
			useClaim(p, podClaim, &name, nil)
		case x < 0.91: // being deleted
			c := g.resourceClaim(ns, name, gpuRequest("gpu", "gpu.example.com", 1))
			t := metaTime(7200)
			c.DeletionTimestamp = &t
			c.Finalizers = []string{"resource.kubernetes.io/delete-protection"}
			g.c.ResourceClaims = append(g.c.ResourceClaims, c)
			useClaim(p, podClaim, &c.Name, nil)
		default: // the extended resource the gpu class backs, when it backs one
			reqs := withDefault(p.Spec.Containers[0].Resources.Requests)
			reqs[gpu] = *resource.NewQuantity(1, resource.DecimalSI)
			p.Spec.Containers[0].Resources.Requests = reqs
		}
	}
}
