package gen

import (
	"k8s.io/apimachinery/pkg/labels"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func labelsSet(m map[string]string) labels.Set { return labels.Set(m) }

func (g *generator) existingAntiAffinity(p *v1.Pod) {
	term := v1.PodAffinityTerm{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": "preemptor"}},
		TopologyKey:   g.pick([]string{hostLabel, hostLabel, zoneLabel}),
	}
	if g.chance(0.3) {
		term.NamespaceSelector = &metav1.LabelSelector{} // every namespace
	}
	p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{term}}}
}

// preemptor draws the pod to place and sizes it so that, most often, it fits on no node as the
// nodes are but on some once lower-priority pods are gone.
func (g *generator) preemptor() {
	class := g.pick([]string{"high", "critical", "critical", "mid"})
	if g.on[Priorities] {
		class = g.pick([]string{"high", "critical", "critical", "mid", "batch-never", "default", "negative"})
	}
	p := g.newPod(g.pick(g.ns), class)
	p.Name = "preemptor"
	p.UID = types.UID("uid-preemptor-" + p.Namespace)
	if g.on[Priorities] && g.chance(0.08) && p.Spec.Priority != nil {
		never := v1.PreemptNever
		p.Spec.PreemptionPolicy = &never
	}

	maxFree, maxAlloc, maxFreeMem, maxAllocMem := int64(0), int64(0), int64(0), int64(0)
	for i, n := range g.c.Nodes {
		maxFree = max(maxFree, g.free[i].Cpu().MilliValue())
		maxAlloc = max(maxAlloc, n.Status.Allocatable.Cpu().MilliValue())
		maxFreeMem = max(maxFreeMem, g.free[i].Memory().Value())
		maxAllocMem = max(maxAllocMem, n.Status.Allocatable.Memory().Value())
	}
	cpu, mem := int64(100), int64(64*mi)
	size := func(free, alloc, unit int64) int64 {
		switch x := g.r.Float64(); {
		case x < 0.1 && free >= unit: // fits somewhere as it is
			return g.between(1, free/unit) * unit
		case x < 0.9: // needs preemption
			return g.between(free/unit+1, max(free/unit+1, alloc/unit)) * unit
		default: // larger than any node
			return alloc + g.between(1, 4)*unit
		}
	}
	if g.chance(0.75) {
		cpu = size(maxFree, maxAlloc, 10)
		mem = g.between(16, 256) * mi
	} else {
		mem = size(maxFreeMem, maxAllocMem, mi)
		cpu = g.between(1, 20) * 10
	}
	g.requests(p, cpu, mem, -1)
	if g.on[Resources] && g.chance(0.25) {
		req := withDefault(p.Spec.Containers[0].Resources.Requests)
		switch x := g.r.Float64(); {
		case x < 0.4:
			req[gpu] = *resource.NewQuantity(g.between(1, 4), resource.DecimalSI)
		case x < 0.7:
			req[v1.ResourceEphemeralStorage] = binary(g.between(5, 40) * gi)
		default:
			req[v1.ResourceName("example.com/fpga")] = *resource.NewQuantity(1, resource.DecimalSI) // no node has it
		}
		p.Spec.Containers[0].Resources.Requests = req
	}
	p.Status.Phase = v1.PodPending

	if (g.on[Nominated] || g.on[Terminating]) && g.chance(0.35) {
		node := g.r.Intn(len(g.c.Nodes))
		if g.on[Terminating] && g.chance(0.5) {
			// Prefer a node where a pod is being preempted (the preemptor may then be not eligible).
			for _, q := range g.c.Pods {
				if q.DeletionTimestamp != nil && q.Spec.NodeName != "" {
					for i, n := range g.c.Nodes {
						if n.Name == q.Spec.NodeName {
							node = i
						}
					}
					break
				}
			}
		}
		p.Status.NominatedNodeName = g.c.Nodes[node].Name
	}
	if g.on[Taints] {
		g.tolerations(p)
	}
	if g.on[NodeAffinity] {
		g.nodeAffinity(p)
	}
	if g.on[HostPorts] && g.chance(0.7) {
		p.Spec.Containers[0].Ports = []v1.ContainerPort{{ContainerPort: 8080, HostPort: 8080, Protocol: v1.ProtocolTCP}}
	}
	if g.on[PodAffinity] {
		g.podAffinity(p)
	}
	if g.on[Spread] {
		g.spread(p)
	}
	g.c.Preemptor = p
	if g.chance(0.3) {
		g.c.PodName = true
		g.c.Pods = append(g.c.Pods, p)
	}
}

func (g *generator) tolerations(p *v1.Pod) {
	switch x := g.r.Float64(); {
	case x < 0.3:
		p.Spec.Tolerations = append(p.Spec.Tolerations, v1.Toleration{Key: "dedicated", Operator: v1.TolerationOpEqual, Value: "gpu", Effect: v1.TaintEffectNoSchedule})
	case x < 0.4:
		p.Spec.Tolerations = append(p.Spec.Tolerations, v1.Toleration{Operator: v1.TolerationOpExists})
	case x < 0.5:
		p.Spec.Tolerations = append(p.Spec.Tolerations, v1.Toleration{Key: "maintenance", Operator: v1.TolerationOpExists})
	case x < 0.6:
		p.Spec.Tolerations = append(p.Spec.Tolerations, v1.Toleration{Key: v1.TaintNodeUnschedulable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule})
	}
}

func (g *generator) nodeAffinity(p *v1.Pod) {
	switch x := g.r.Float64(); {
	case x < 0.35:
		p.Spec.NodeSelector = map[string]string{"pool": g.pick([]string{"a", "b", "c"})}
	case x < 0.75:
		ops := []v1.NodeSelectorRequirement{
			{Key: "pool", Operator: v1.NodeSelectorOpIn, Values: []string{g.pick([]string{"a", "b", "c"}), g.pick([]string{"a", "b", "c"})}},
			{Key: "disk", Operator: v1.NodeSelectorOpNotIn, Values: []string{"hdd"}},
			{Key: "disk", Operator: v1.NodeSelectorOpExists},
			{Key: "disk", Operator: v1.NodeSelectorOpDoesNotExist},
			{Key: "gen", Operator: v1.NodeSelectorOpGt, Values: []string{g.pick([]string{"1", "2", "3"})}},
			{Key: "gen", Operator: v1.NodeSelectorOpLt, Values: []string{g.pick([]string{"3", "4", "5"})}},
		}
		var terms []v1.NodeSelectorTerm
		for t := 0; t < 1+g.r.Intn(2); t++ {
			var term v1.NodeSelectorTerm
			for e := 0; e < 1+g.r.Intn(2); e++ {
				term.MatchExpressions = append(term.MatchExpressions, ops[g.r.Intn(len(ops))])
			}
			terms = append(terms, term)
		}
		p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: terms}}}
	case x < 0.85:
		// matchFields on metadata.name takes exactly one value (API validation); terms are ORed.
		var terms []v1.NodeSelectorTerm
		for t := 0; t < 1+g.r.Intn(3); t++ {
			name := g.c.Nodes[g.r.Intn(len(g.c.Nodes))].Name
			terms = append(terms, v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{
				{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{name}}}})
		}
		p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: terms}}}
	}
}

func (g *generator) podAffinity(p *v1.Pod) {
	if g.chance(0.5) {
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		p.Labels["role"] = "preemptor"
	}
	term := func(app string, key string) v1.PodAffinityTerm {
		t := v1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}, TopologyKey: key}
		switch x := g.r.Float64(); {
		case x < 0.2:
			t.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"tier": g.pick([]string{"prod", "dev"})}}
		case x < 0.3:
			t.NamespaceSelector = &metav1.LabelSelector{}
		case x < 0.4:
			t.Namespaces = []string{g.pick(g.ns)}
		}
		return t
	}
	aff := &v1.Affinity{}
	if g.chance(0.5) {
		aff.PodAntiAffinity = &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{
			term(g.pick(g.apps), g.pick([]string{hostLabel, hostLabel, zoneLabel}))}}
	}
	if g.chance(0.3) {
		aff.PodAffinity = &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{
			term(g.pick(g.apps), g.pick([]string{zoneLabel, hostLabel}))}}
	}
	if aff.PodAntiAffinity != nil || aff.PodAffinity != nil {
		p.Spec.Affinity = mergeAffinity(p.Spec.Affinity, aff)
	}
}

func mergeAffinity(a, b *v1.Affinity) *v1.Affinity {
	if a == nil {
		return b
	}
	a.PodAffinity, a.PodAntiAffinity = b.PodAffinity, b.PodAntiAffinity
	return a
}

func (g *generator) spread(p *v1.Pod) {
	n := 1 + g.r.Intn(2)
	for i := 0; i < n; i++ {
		c := v1.TopologySpreadConstraint{
			MaxSkew:           int32(1 + g.r.Intn(2)),
			TopologyKey:       g.pick([]string{zoneLabel, hostLabel}),
			WhenUnsatisfiable: v1.DoNotSchedule,
			LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": p.Labels["app"]}},
		}
		if p.Labels == nil {
			c.LabelSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": g.pick(g.apps)}}
		}
		if g.chance(0.25) {
			md := int32(1 + g.r.Intn(len(g.zones)+2))
			c.MinDomains = &md
		}
		if g.chance(0.3) {
			pol := []v1.NodeInclusionPolicy{v1.NodeInclusionPolicyHonor, v1.NodeInclusionPolicyIgnore}[g.r.Intn(2)]
			c.NodeAffinityPolicy = &pol
		}
		if g.chance(0.3) {
			pol := []v1.NodeInclusionPolicy{v1.NodeInclusionPolicyHonor, v1.NodeInclusionPolicyIgnore}[g.r.Intn(2)]
			c.NodeTaintsPolicy = &pol
		}
		if i == 1 && c.TopologyKey == p.Spec.TopologySpreadConstraints[0].TopologyKey {
			continue // one constraint per key
		}
		p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, c)
	}
}

func (g *generator) sampling() {
	n := int64(len(g.c.Nodes))
	pct := int32(g.between(0, 100))
	abs := int32(g.between(0, n+3))
	if pct == 0 && abs == 0 {
		abs = 1
	}
	if g.chance(0.8) {
		g.c.Percentage = &pct
	}
	if g.chance(0.8) || g.c.Percentage == nil {
		g.c.Absolute = &abs
	}
	// Less than the number of nodes, as preempt-whatif requires (upstream draws it below the
	// number of potential nodes; both sides take it modulo that number).
	g.c.Offset = g.between(0, n-1)
}
