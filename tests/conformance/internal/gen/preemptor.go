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
	n := 1
	if g.chance(0.2) {
		n = 2
	}
	var terms []v1.PodAffinityTerm
	for i := 0; i < n; i++ {
		sel := &metav1.LabelSelector{MatchLabels: map[string]string{"role": "preemptor"}}
		if g.chance(0.3) {
			sel = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{g.pick(g.apps), g.pick(g.apps)}}}}
		}
		term := v1.PodAffinityTerm{LabelSelector: sel, TopologyKey: g.pick([]string{hostLabel, hostLabel, zoneLabel})}
		switch x := g.r.Float64(); {
		case x < 0.3:
			term.NamespaceSelector = &metav1.LabelSelector{} // every namespace
		case x < 0.45:
			term.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"tier": g.pick([]string{"prod", "dev"})}}
		case x < 0.55:
			term.Namespaces = []string{g.pick(g.ns)}
		}
		terms = append(terms, term)
	}
	p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: terms}}
	if g.chance(0.2) { // preferred terms do not filter
		p.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []v1.WeightedPodAffinityTerm{
			{Weight: 10, PodAffinityTerm: v1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{}, TopologyKey: hostLabel}}}
	}
}

// hostPorts gives the pod n host ports: 8080 and 9090 over TCP mostly, UDP and specific host
// IPs sometimes, now and then on a sidecar (or on a plain init container, whose ports do not
// count).
func (g *generator) hostPorts(p *v1.Pod, n int) {
	var ports []v1.ContainerPort
	for i := 0; i < n; i++ {
		cp := v1.ContainerPort{ContainerPort: 8080, HostPort: g.pick32([]int32{8080, 8080, 9090, 53})}
		switch x := g.r.Float64(); {
		case x < 0.6:
			cp.Protocol = v1.ProtocolTCP
		case x < 0.85:
			cp.Protocol = v1.ProtocolUDP
		}
		switch x := g.r.Float64(); {
		case x < 0.15:
			cp.HostIP = "0.0.0.0"
		case x < 0.3:
			cp.HostIP = "10.0.0.1"
		case x < 0.4:
			cp.HostIP = "10.0.0.2"
		}
		ports = append(ports, cp)
	}
	if g.chance(0.15) {
		c := v1.Container{Name: "init-proxy", Image: "registry.example/proxy:1", Ports: ports}
		if g.chance(0.8) {
			always := v1.ContainerRestartPolicyAlways
			c.RestartPolicy = &always
		}
		p.Spec.InitContainers = append(p.Spec.InitContainers, c)
		return
	}
	p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports, ports...)
}

// applyLabelKeys merges matchLabelKeys and mismatchLabelKeys into the label selector, as the API
// server does when it admits the pod (the scheduler reads the merged selector).
func applyLabelKeys(t *v1.PodAffinityTerm, podLabels map[string]string) {
	if t.LabelSelector == nil {
		return
	}
	for _, k := range t.MatchLabelKeys {
		if v, ok := podLabels[k]; ok {
			t.LabelSelector.MatchExpressions = append(t.LabelSelector.MatchExpressions,
				metav1.LabelSelectorRequirement{Key: k, Operator: metav1.LabelSelectorOpIn, Values: []string{v}})
		}
	}
	for _, k := range t.MismatchLabelKeys {
		if v, ok := podLabels[k]; ok {
			t.LabelSelector.MatchExpressions = append(t.LabelSelector.MatchExpressions,
				metav1.LabelSelectorRequirement{Key: k, Operator: metav1.LabelSelectorOpNotIn, Values: []string{v}})
		}
	}
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
		g.hostPorts(p, 1+g.r.Intn(2))
	}
	if g.on[PodAffinity] {
		g.podAffinity(p)
	}
	if g.on[Spread] {
		g.spread(p)
	}
	g.c.Preemptor = p
	if g.on[Nominated] && g.chance(0.1) {
		// Decide as the other scheduler's profile (the preemptor is its pod): its pending pods'
		// nominations count, the default scheduler's do not.
		g.c.SchedulerName = otherSched
		p.Spec.SchedulerName = otherSched
	}
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
		case x < 0.45:
			t.Namespaces = []string{g.pick(g.ns)}
			t.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "prod"}}
		}
		switch x := g.r.Float64(); {
		case x < 0.1:
			t.MatchLabelKeys = []string{"tier"}
		case x < 0.2:
			t.MismatchLabelKeys = []string{"tier"}
		case x < 0.25:
			t.LabelSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{app}}}}
		case x < 0.28:
			t.LabelSelector = nil // matches no pod
		}
		return t
	}
	aff := &v1.Affinity{}
	if g.chance(0.5) {
		aff.PodAntiAffinity = &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{
			term(g.pick(g.apps), g.pick([]string{hostLabel, hostLabel, zoneLabel}))}}
		if g.chance(0.2) {
			aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
				term(g.pick(g.apps), g.pick([]string{hostLabel, zoneLabel})))
		}
	}
	if g.chance(0.3) {
		aff.PodAffinity = &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{
			term(g.pick(g.apps), g.pick([]string{zoneLabel, hostLabel}))}}
		if g.chance(0.2) {
			aff.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(aff.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
				term(p.Labels["app"], zoneLabel))
		}
	}
	if g.chance(0.2) { // preferred terms do not filter
		aff.PodAffinity = mergePodAffinity(aff.PodAffinity)
		aff.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []v1.WeightedPodAffinityTerm{
			{Weight: 5, PodAffinityTerm: term(g.pick(g.apps), zoneLabel)}}
	}
	for _, a := range []*[]v1.PodAffinityTerm{podAffinityTerms(aff), podAntiAffinityTerms(aff)} {
		if a != nil {
			for i := range *a {
				applyLabelKeys(&(*a)[i], p.Labels)
			}
		}
	}
	if aff.PodAntiAffinity != nil || aff.PodAffinity != nil {
		p.Spec.Affinity = mergeAffinity(p.Spec.Affinity, aff)
	}
}

func mergePodAffinity(a *v1.PodAffinity) *v1.PodAffinity {
	if a == nil {
		return &v1.PodAffinity{}
	}
	return a
}

func podAffinityTerms(a *v1.Affinity) *[]v1.PodAffinityTerm {
	if a.PodAffinity == nil {
		return nil
	}
	return &a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution
}

func podAntiAffinityTerms(a *v1.Affinity) *[]v1.PodAffinityTerm {
	if a.PodAntiAffinity == nil {
		return nil
	}
	return &a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
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
		switch x := g.r.Float64(); {
		case x < 0.15:
			c.MatchLabelKeys = []string{"tier"}
		case x < 0.2:
			c.WhenUnsatisfiable = v1.ScheduleAnyway // scores only
		case x < 0.23:
			c.LabelSelector = nil // matches no pod
		case x < 0.3:
			c.LabelSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{g.pick(g.apps), g.pick(g.apps)}}}}
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
