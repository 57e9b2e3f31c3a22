package gen

import (
	"math/rand"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// --- gates ---------------------------------------------------------------------------------

// gates: the preemptor carries spec.schedulingGates about half of the time (kube-scheduler
// never takes such a pod out of its queue); a pending pod of the dump is gated too, now and then.
// Pods left in the queue being deleted (a finalizer holds them): the preemptor now and then
// (kube-scheduler skips it when it leaves the queue), and a pending pod of the dump, nominated to
// a node or not (its nomination still counts for the others).
func (g *generator) gates() {
	s := g.own[Gates]
	if s.chance(0.5) {
		g.c.Preemptor.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: s.pick([]string{"example.com/quota", "kueue.x-k8s.io/admission"})}}
		if s.chance(0.3) {
			g.c.Preemptor.Spec.SchedulingGates = append(g.c.Preemptor.Spec.SchedulingGates, v1.PodSchedulingGate{Name: "example.com/capacity"})
		}
	}
	if s.chance(0.5) {
		p := g.newPod(g.pick(g.ns), g.pick(g.levels))
		g.requests(p, 100, 64*mi, -1)
		p.Status.Phase = v1.PodPending
		p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/quota"}}
		g.c.Pods = append(g.c.Pods, p)
	}
	if s.chance(0.2) {
		pendingDeletion(g.c.Preemptor)
	}
	if s.chance(0.3) {
		p := g.newPod(g.pick(g.ns), g.pick(g.levels))
		g.requests(p, 500, 256*mi, -1)
		p.Status.Phase = v1.PodPending
		if len(g.c.Nodes) > 0 && s.chance(0.7) {
			p.Status.NominatedNodeName = g.c.Nodes[s.Intn(len(g.c.Nodes))].Name
		}
		pendingDeletion(p)
		g.c.Pods = append(g.c.Pods, p)
	}
}

// pendingDeletion marks a pending pod deleted while a finalizer keeps it: the API server sets
// metadata.deletionTimestamp (with no grace period: the pod has no node) and keeps the object.
func pendingDeletion(p *v1.Pod) {
	t := metav1.NewTime(base.Add(2 * time.Hour))
	p.DeletionTimestamp = &t
	zero := int64(0)
	p.DeletionGracePeriodSeconds = &zero
	p.Finalizers = append(p.Finalizers, "example.com/cleanup")
}

// --- manifests -----------------------------------------------------------------------------

// DrawRejected makes the manifests family draw manifests the API server refuses to create (a
// RuntimeClass the dump lacks, an overhead that is not the class's: kube-whatif rejects them, and
// `conform run` compares that with preempt-whatif's rejection, exit status 2), and manifests
// named as a pod running in the dump (AlreadyExists: both answer "running").
var DrawRejected = true

// The RuntimeClasses of the manifests family: kata (overhead), gvisor (overhead, nodeSelector
// runtime=gvisor, a toleration of sandbox:NoSchedule), runc (neither).
func runtimeClasses() []*nodev1.RuntimeClass {
	tm := metav1.TypeMeta{APIVersion: "node.k8s.io/v1", Kind: "RuntimeClass"}
	overhead := func(cpu, mem int64) *nodev1.Overhead {
		return &nodev1.Overhead{PodFixed: v1.ResourceList{v1.ResourceCPU: milli(cpu), v1.ResourceMemory: binary(mem)}}
	}
	return []*nodev1.RuntimeClass{
		{TypeMeta: tm, ObjectMeta: metav1.ObjectMeta{Name: "gvisor"}, Handler: "runsc", Overhead: overhead(100, 64*mi),
			Scheduling: &nodev1.Scheduling{NodeSelector: map[string]string{"runtime": "gvisor"},
				Tolerations: []v1.Toleration{{Key: "sandbox", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}}}},
		{TypeMeta: tm, ObjectMeta: metav1.ObjectMeta{Name: "kata"}, Handler: "kata", Overhead: overhead(250, 160*mi)},
		{TypeMeta: tm, ObjectMeta: metav1.ObjectMeta{Name: "runc"}, Handler: "runc"},
	}
}

// manifestNodes: the RuntimeClasses; about a third of the nodes labelled runtime=gvisor, half of
// those tainted sandbox:NoSchedule; about one node in six tainted node.kubernetes.io/unreachable
// or not-ready with NoExecute (which a manifest tolerates once DefaultTolerationSeconds admitted it).
func (g *generator) manifestNodes() {
	s := g.own[Manifests]
	g.c.RuntimeClasses = runtimeClasses()
	for _, n := range g.c.Nodes {
		if s.chance(0.35) {
			n.Labels["runtime"] = "gvisor"
			if s.chance(0.5) {
				n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: "sandbox", Value: "gvisor", Effect: v1.TaintEffectNoSchedule})
			}
		}
		if s.chance(0.17) {
			key := s.pick([]string{v1.TaintNodeUnreachable, v1.TaintNodeNotReady})
			t := metaTime(1800)
			n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: key, Effect: v1.TaintEffectNoExecute, TimeAdded: &t})
		}
	}
}

// storedTolerations are what DefaultTolerationSeconds gave every pod stored in the dump.
func storedTolerations() []v1.Toleration {
	secs := int64(300)
	return []v1.Toleration{
		{Key: v1.TaintNodeNotReady, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: &secs},
		{Key: v1.TaintNodeUnreachable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: &secs},
	}
}

// manifestBoundPods: the bound pods as the API server stored them (the default tolerations, a
// RuntimeClass's overhead, nodeSelector and tolerations); a few of them on the host network with
// hostPort defaulted from containerPort, so that a hostNetwork manifest meets its port.
func (g *generator) manifestBoundPods() {
	s := g.own[Manifests]
	for i, n := range g.c.Nodes {
		for _, p := range g.boundOn(i) {
			p.Spec.Tolerations = mergeTolerations(p.Spec.Tolerations, storedTolerations())
			if n.Labels["runtime"] == "gvisor" && s.chance(0.3) {
				rc := g.c.RuntimeClasses[0]
				p.Spec.RuntimeClassName = &rc.Name
				p.Spec.Overhead = rc.Overhead.PodFixed.DeepCopy()
				p.Spec.NodeSelector = map[string]string{"runtime": "gvisor"}
				p.Spec.Tolerations = mergeTolerations(p.Spec.Tolerations, rc.Scheduling.Tolerations)
			}
			if s.chance(0.12) {
				p.Spec.HostNetwork = true
				port := int32([]int64{8080, 9090}[s.Intn(2)])
				p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports,
					v1.ContainerPort{ContainerPort: port, HostPort: port, Protocol: v1.ProtocolTCP})
			}
		}
	}
}

func mergeTolerations(have, more []v1.Toleration) []v1.Toleration {
	out := append([]v1.Toleration(nil), have...)
	for _, t := range more {
		dup := false
		for _, h := range out {
			dup = dup || h.MatchToleration(&t)
		}
		if !dup {
			out = append(out, t)
		}
	}
	return out
}

// manifestPreemptor writes the preemptor as a user's manifest passed with --pod, before the API
// server: hostNetwork with containerPort only (the API server defaults hostPort to it), a
// runtimeClassName without spec.overhead (RuntimeClass admission adds it, with the class's
// nodeSelector and tolerations), no not-ready/unreachable tolerations (DefaultTolerationSeconds
// adds them); rarely a runtimeClassName the dump lacks, an overhead that differs from the
// class's, spec.nodeName set, or the name of a pod bound in the dump.
func (g *generator) manifestPreemptor() {
	s := g.own[Manifests]
	p := g.c.Preemptor
	if g.c.PodName {
		if !s.chance(0.8) {
			return
		}
		// Passed as a manifest instead of by name.
		var kept []*v1.Pod
		for _, q := range g.c.Pods {
			if q != p {
				kept = append(kept, q)
			}
		}
		g.c.Pods, g.c.PodName = kept, false
	}
	if s.chance(0.5) {
		p.Spec.HostNetwork = true
		port := int32([]int64{8080, 9090}[s.Intn(2)])
		p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports, v1.ContainerPort{ContainerPort: port, Protocol: v1.ProtocolTCP})
	}
	// The resources family may have written an overhead as admission stores it: a manifest
	// names the class instead (and has none), or carries one that is not its class's.
	class := ""
	switch x := s.Float64(); {
	case x < 0.25:
		class = "gvisor"
	case x < 0.45 || len(p.Spec.Overhead) > 0 && x < 0.7:
		class = "kata"
	case x < 0.75:
		class = "runc"
	case x < 0.78 && DrawRejected:
		class = "wasm" // no such class: admission rejects the pod
	}
	if class != "" {
		p.Spec.RuntimeClassName = &class
		p.Spec.Overhead = nil
		if class == "kata" && s.chance(0.05) && DrawRejected {
			p.Spec.Overhead = v1.ResourceList{v1.ResourceCPU: milli(100)} // not the class's: rejected
		}
	}
	var tolerations []v1.Toleration
	for _, t := range p.Spec.Tolerations {
		if t.Key != v1.TaintNodeNotReady && t.Key != v1.TaintNodeUnreachable {
			tolerations = append(tolerations, t)
		}
	}
	p.Spec.Tolerations = tolerations
	switch x := s.Float64(); {
	case x < 0.04:
		p.Spec.NodeName = g.c.Nodes[s.Intn(len(g.c.Nodes))].Name
	case x < 0.08 && DrawRejected:
		var bound []*v1.Pod
		for _, q := range g.c.Pods {
			if q.Spec.NodeName != "" && q.Status.Phase == v1.PodRunning {
				bound = append(bound, q)
			}
		}
		if len(bound) > 0 {
			q := bound[s.Intn(len(bound))]
			p.Name, p.Namespace, p.UID = q.Name, q.Namespace, "" // exported from the dump and edited
		}
	}
	p.Status = v1.PodStatus{}
	if p.UID != "" && s.chance(0.5) {
		p.UID = "" // a manifest carries no uid
	}
	if s.chance(0.5) {
		g.limitRanges(s)
	}
}

// limitRanges: the dump holds LimitRange objects (kubectl get limitranges): one for containers in
// the preemptor's namespace (three times in four; else in another namespace), defaulting
// requests (defaultRequest, perhaps with default; or default alone, or min alone, or max alone:
// the API defaults fill defaultRequest from them), its min or max breaking some manifests
// (LimitRanger rejects them); and a third of such manifests rely on it, their first container
// without requests or limits.
func (g *generator) limitRanges(s *stream) {
	p := g.c.Preemptor
	ns := p.Namespace
	if s.chance(0.25) {
		for _, other := range g.ns {
			if other != p.Namespace {
				ns = other
				break
			}
		}
	}
	item := v1.LimitRangeItem{Type: v1.LimitTypeContainer}
	pair := func(cpu, mem int64) v1.ResourceList {
		return v1.ResourceList{v1.ResourceCPU: milli(cpu), v1.ResourceMemory: binary(mem)}
	}
	switch x := s.Float64(); {
	case x < 0.45:
		item.DefaultRequest = pair(s.between(50, 400), s.between(32, 256)*mi)
		if s.chance(0.4) {
			item.Default = pair(s.between(400, 2000), s.between(256, 2048)*mi)
		}
	case x < 0.65:
		item.Default = pair(s.between(100, 600), s.between(64, 512)*mi)
	case x < 0.82:
		item.Min = v1.ResourceList{v1.ResourceCPU: milli(s.between(10, 200))}
	default:
		item.Max = pair(s.between(500, 4000), s.between(1, 8)*gi)
	}
	g.c.LimitRanges = append(g.c.LimitRanges, &v1.LimitRange{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "LimitRange"},
		ObjectMeta: metav1.ObjectMeta{Name: "defaults", Namespace: ns},
		Spec:       v1.LimitRangeSpec{Limits: []v1.LimitRangeItem{item}}})
	if s.chance(0.33) {
		p.Spec.Containers[0].Resources = v1.ResourceRequirements{}
	}
}

// --- namespaces ----------------------------------------------------------------------------

// namespaceTerms: the Namespace objects get more labels (env, team, istio-injection); about a
// tenth of the bound pods get a required anti-affinity term selecting namespaces by label
// (matchLabels or matchExpressions) against the preemptor's role label; and about a third of
// the dumps hold no Namespace objects at all (a dump made without them).
func (g *generator) namespaceTerms() {
	s := g.own[Namespaces]
	envs := []string{"prod", "staging", "dev"}
	for i, ns := range g.c.Namespaces {
		ns.Labels["env"] = envs[(i+s.Intn(2))%3]
		ns.Labels["team"] = s.pick([]string{"a", "b"})
		if s.chance(0.4) {
			ns.Labels["istio-injection"] = "enabled"
		}
	}
	for _, p := range g.c.Pods {
		if p.Spec.NodeName == "" || !s.chance(0.1) {
			continue
		}
		term := v1.PodAffinityTerm{
			LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"role": "preemptor"}},
			TopologyKey:       s.pick([]string{hostLabel, hostLabel, zoneLabel}),
			NamespaceSelector: namespaceSelector(s),
		}
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &v1.Affinity{}
		}
		if p.Spec.Affinity.PodAntiAffinity == nil {
			p.Spec.Affinity.PodAntiAffinity = &v1.PodAntiAffinity{}
		}
		p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(
			p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, term)
	}
	if s.chance(0.3) {
		g.c.Namespaces = nil
	}
}

// namespaceSelector draws a namespaceSelector on the namespace labels of namespaceTerms.
func namespaceSelector(s *stream) *metav1.LabelSelector {
	switch x := s.Float64(); {
	case x < 0.35:
		return &metav1.LabelSelector{MatchLabels: map[string]string{"env": s.pick([]string{"prod", "staging", "dev"})}}
	case x < 0.55:
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"prod", "staging"}}}}
	case x < 0.7:
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "team", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"b"}}}}
	case x < 0.85:
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "istio-injection", Operator: metav1.LabelSelectorOpExists}}}
	default:
		return &metav1.LabelSelector{MatchLabels: map[string]string{"tier": s.pick([]string{"prod", "dev"})}}
	}
}

// namespacePreemptor: the preemptor gets the role label half of the time (bound pods' terms
// select it) and a required anti-affinity or affinity term with a namespaceSelector.
func (g *generator) namespacePreemptor() {
	s := g.own[Namespaces]
	p := g.c.Preemptor
	if s.chance(0.5) {
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		p.Labels["role"] = "preemptor"
	}
	if !s.chance(0.8) {
		return
	}
	term := v1.PodAffinityTerm{
		LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": s.pick(g.apps)}},
		TopologyKey:       s.pick([]string{hostLabel, zoneLabel}),
		NamespaceSelector: namespaceSelector(s),
	}
	if s.chance(0.2) {
		term.Namespaces = []string{s.pick(g.ns)}
	}
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &v1.Affinity{}
	}
	if s.chance(0.7) {
		if p.Spec.Affinity.PodAntiAffinity == nil {
			p.Spec.Affinity.PodAntiAffinity = &v1.PodAntiAffinity{}
		}
		p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(
			p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, term)
	} else {
		if p.Spec.Affinity.PodAffinity == nil {
			p.Spec.Affinity.PodAffinity = &v1.PodAffinity{}
		}
		p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(
			p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, term)
	}
}

// --- pod groups across nodes ---------------------------------------------------------------

// groupAcrossNodes puts, in about half of the pod-group clusters, two to four bound pods of one
// namespace that the preemptor's required anti-affinity terms or topology spread constraints
// count, on at least two nodes, into one new PodGroup in `all` mode ("pg-span"): removing the
// unit on one node removes its members on the others too (RemovePod on every member's node).
// A preemptor without such terms gets, most often, a required anti-affinity term (per zone or
// node) against an app of its namespace that runs on two nodes or more. It draws from a stream
// of its own.
func (g *generator) groupAcrossNodes() {
	s := &stream{newRand(g.c.Seed*7927 + 29)}
	if !s.chance(0.5) {
		return
	}
	p := g.c.Preemptor
	var selectors []labels.Selector
	add := func(sel *metav1.LabelSelector) {
		if sel == nil {
			return
		}
		if ls, err := metav1.LabelSelectorAsSelector(sel); err == nil && !ls.Empty() {
			selectors = append(selectors, ls)
		}
	}
	if a := p.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
		for _, t := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			add(t.LabelSelector)
		}
	}
	for _, c := range p.Spec.TopologySpreadConstraints {
		add(c.LabelSelector)
	}
	if len(selectors) == 0 && s.chance(0.6) {
		// No term counts pods yet: give the preemptor a required anti-affinity term, per zone,
		// against an app of its namespace running on two nodes or more.
		nodesOf := map[string]map[string]bool{}
		for _, q := range g.c.Pods {
			if q.Namespace == p.Namespace && q.Spec.NodeName != "" && q.Status.Phase == v1.PodRunning && q.Labels["app"] != "" {
				if nodesOf[q.Labels["app"]] == nil {
					nodesOf[q.Labels["app"]] = map[string]bool{}
				}
				nodesOf[q.Labels["app"]][q.Spec.NodeName] = true
			}
		}
		var apps []string
		for app, nodes := range nodesOf {
			if len(nodes) >= 2 {
				apps = append(apps, app)
			}
		}
		if len(apps) > 0 {
			sort.Strings(apps)
			term := v1.PodAffinityTerm{TopologyKey: s.pick([]string{zoneLabel, hostLabel}),
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": apps[s.Intn(len(apps))]}}}
			if p.Spec.Affinity == nil {
				p.Spec.Affinity = &v1.Affinity{}
			}
			if p.Spec.Affinity.PodAntiAffinity == nil {
				p.Spec.Affinity.PodAntiAffinity = &v1.PodAntiAffinity{}
			}
			p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(
				p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, term)
			add(term.LabelSelector)
		}
	}
	if len(selectors) == 0 {
		return
	}
	byNS := map[string][]*v1.Pod{}
	for _, q := range g.c.Pods {
		if q.Spec.NodeName == "" || q.Status.Phase != v1.PodRunning || q.Spec.SchedulingGroup != nil && s.chance(0.5) {
			continue
		}
		for _, sel := range selectors {
			if sel.Matches(labels.Set(q.Labels)) {
				byNS[q.Namespace] = append(byNS[q.Namespace], q)
				break
			}
		}
	}
	var namespaces []string
	for ns, pods := range byNS {
		nodes := map[string]bool{}
		for _, q := range pods {
			nodes[q.Spec.NodeName] = true
		}
		if len(nodes) >= 2 {
			namespaces = append(namespaces, ns)
		}
	}
	if len(namespaces) == 0 {
		return
	}
	sort.Strings(namespaces)
	ns := namespaces[s.Intn(len(namespaces))]
	pods := byNS[ns]
	var members []*v1.Pod
	nodes := map[string]bool{}
	for _, k := range s.Perm(len(pods)) {
		q := pods[k]
		if len(members) < 4 && (len(members) < 2 && !nodes[q.Spec.NodeName] || len(members) >= 2) {
			members = append(members, q)
			nodes[q.Spec.NodeName] = true
		}
	}
	if len(nodes) < 2 {
		return
	}
	name := "pg-span"
	pg := &schedulingv1beta1.PodGroup{
		TypeMeta:   metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1beta1", Kind: "PodGroup"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("uid-pg-" + ns + "-" + name)},
		Spec: schedulingv1beta1.PodGroupSpec{
			SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{Basic: &schedulingv1beta1.BasicSchedulingPolicy{}},
			DisruptionMode:   &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}},
		},
	}
	if s.chance(0.6) {
		v := g.classes["low"]
		pg.Spec.Priority = &v
	}
	g.c.PodGroups = append(g.c.PodGroups, pg)
	for _, q := range members {
		q.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &name}
	}
}

func newRand(seed int64) *rand.Rand { return rand.New(rand.NewSource(seed)) }
