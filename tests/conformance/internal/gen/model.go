package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/preempt/preempt/tests/conformance/internal/dump"
	"github.com/preempt/preempt/tests/conformance/internal/release"
)

// ModelText is the text form of a case of the model families (ModelFamilies), what
// kube-scheduler sees of it, for the model driver (tests/conformance/model_driver.cpp), one
// object per line, fields key=value:
//
//	node NAME cpu=MILLI memory=B pods=N ephemeral-storage=B [EXTENDED=N ...]
//	labels NAME KEY=VALUE ...                      the node's labels (a line per node with any)
//	taint NAME key=K value=V effect=E              one of the node's taints
//	unschedulable NAME                             spec.unschedulable
//	pod KEY ns=NS prio=P policy=lower|never start=UNIX_NS|- node=NAME|- nominated=NAME|-
//	    deleting=0|1 preempting=0|1 req CPU_AND_OTHER_REQUESTS...
//	    [group=KEY]                                 spec.schedulingGroup: the PodGroup KEY
//	                                                (namespace/name; it may not exist)
//	group KEY all=0|1 prio=P                        a PodGroup: disruption mode all, its priority
//	                                                as admission resolves it
//	pdb KEY ns=NS allowed=N members=KEY,... disrupted=KEY,...
//	preemptor KEY ns=NS prio=P policy=lower|never start=UNIX_NS|- nominated=NAME|- req ...
//	toleration KEY key=K op=Exists|Equal value=V effect=E   the preemptor's tolerations
//	node-selector KEY LABEL=VALUE ...              the preemptor's spec.nodeSelector
//	affinity TERM kind=expression|field key=K op=OP values=V,...   a requirement of term TERM
//	                                               (0, 1, ...) of its required node affinity
//	namespace NAME KEY=VALUE ...                   a Namespace object and its labels
//	pod-labels KEY LABEL=VALUE ...                 a pod's labels (pods, the preemptor)
//	port KEY protocol=P ip=IP port=N               a host port of a pod (containers, sidecars)
//	term KEY kind=affinity|anti topology=K sel=SEL namespaces=NS,... nssel=SEL
//	    match-keys=K,... mismatch-keys=K,...       a required pod (anti-)affinity term: the
//	                                               preemptor's both kinds, other pods' anti only
//	spread KEY maxskew=N topology=K when=DoNotSchedule|ScheduleAnyway sel=SEL mindomains=N|-
//	    affinity-policy=Honor|Ignore|- taints-policy=Honor|Ignore|- match-keys=K,...
//	                                               a topology spread constraint of the preemptor
//	extender NAME supports=0|1 interested=0|1 ignorable=0|1 action=ACTION   (Hooks)
//	score KIND                                     (Hooks, in order)
//	args percentage=P absolute=A offset=O parallelism=W
//
// Pods are the ones the scheduler sees: terminal pods are left out, pending pods only with a
// nomination of this scheduler (kube-scheduler's queue holds no other); priorities are resolved
// as admission does; requests are effective (init containers, sidecars, overhead, pod-level
// resources, in-place resizes); a budget's members are the bound pods its selector matches in
// its namespace. Keys (namespace/name) are unique; "," never occurs in one, nor a space in a
// label, taint or toleration (the API's syntax rules them out); an empty value is written as
// nothing after "=". A label selector SEL is "nil", "" (empty: every pod), or requirements
// joined by ";", each KEY:OP:VALUE,... with OP one of Eq (a matchLabels entry), In, NotIn,
// Exists, DoesNotExist (":" and ";" never occur in label keys and values).
func (c *Case) ModelText() (string, error) {
	d := &dump.Dump{Classes: append([]*schedulingv1.PriorityClass(nil), c.Classes...)}
	d.SystemClasses()
	var b strings.Builder
	b.WriteString("# preempt conformance model cluster, seed " + fmt.Sprint(c.Seed) + "\n")
	for _, ns := range c.Namespaces {
		fmt.Fprintf(&b, "namespace %s %s\n", ns.Name, pairs(ns.Labels))
	}
	nodes := map[string]bool{}
	for _, n := range c.Nodes {
		nodes[n.Name] = true
		fmt.Fprintf(&b, "node %s %s\n", n.Name, amounts(n.Status.Allocatable))
		if len(n.Labels) > 0 {
			fmt.Fprintf(&b, "labels %s %s\n", n.Name, pairs(n.Labels))
		}
		for _, t := range n.Spec.Taints {
			fmt.Fprintf(&b, "taint %s key=%s value=%s effect=%s\n", n.Name, t.Key, t.Value, t.Effect)
		}
		if n.Spec.Unschedulable {
			fmt.Fprintf(&b, "unschedulable %s\n", n.Name)
		}
	}
	resolved := func(p *v1.Pod) (*v1.Pod, error) {
		q := p.DeepCopy()
		q.Spec.Priority, q.Spec.PreemptionPolicy = nil, nil
		if p.Spec.Priority != nil {
			v := *p.Spec.Priority
			q.Spec.Priority = &v
		}
		if p.Spec.PreemptionPolicy != nil {
			v := *p.Spec.PreemptionPolicy
			q.Spec.PreemptionPolicy = &v
		}
		return q, d.Admit(q, "Pod "+dump.Key(p))
	}
	line := func(kind string, p *v1.Pod, bound bool) error {
		q, err := resolved(p)
		if err != nil {
			return err
		}
		policy := "lower"
		if *q.Spec.PreemptionPolicy == v1.PreemptNever {
			policy = "never"
		}
		start := "-"
		if q.Status.StartTime != nil {
			start = fmt.Sprint(q.Status.StartTime.UnixNano())
		}
		fmt.Fprintf(&b, "%s %s ns=%s prio=%d policy=%s start=%s", kind, dump.Key(q), q.Namespace, *q.Spec.Priority, policy, start)
		if q.UID != "" {
			// v1.38 orders equally important victims by UID.
			fmt.Fprintf(&b, " uid=%s", q.UID)
		}
		if kind == "pod" {
			node := "-"
			if bound {
				node = q.Spec.NodeName
			}
			deleting, preempting := 0, 0
			if q.DeletionTimestamp != nil {
				deleting = 1
				for _, cond := range q.Status.Conditions {
					if cond.Type == v1.DisruptionTarget {
						if cond.Status == v1.ConditionTrue && cond.Reason == v1.PodReasonPreemptionByScheduler {
							preempting = 1
						}
						break
					}
				}
			}
			fmt.Fprintf(&b, " node=%s", node)
			nominated := "-"
			if !bound {
				nominated = q.Status.NominatedNodeName
			}
			fmt.Fprintf(&b, " nominated=%s deleting=%d preempting=%d", nominated, deleting, preempting)
			if g := q.Spec.SchedulingGroup; g != nil && g.PodGroupName != nil {
				fmt.Fprintf(&b, " group=%s/%s", q.Namespace, *g.PodGroupName)
			}
		} else {
			nominated := "-"
			if nodes[q.Status.NominatedNodeName] {
				nominated = q.Status.NominatedNodeName
			}
			fmt.Fprintf(&b, " nominated=%s", nominated)
		}
		fmt.Fprintf(&b, " req %s\n", amounts(effective(q)))
		podFacts(&b, q, kind == "preemptor")
		return nil
	}
	for _, pg := range c.PodGroups {
		prio, err := groupPriority(pg, d.Classes)
		if err != nil {
			return "", err
		}
		all := 0
		if pg.Spec.DisruptionMode != nil && pg.Spec.DisruptionMode.All != nil {
			all = 1
		}
		fmt.Fprintf(&b, "group %s/%s all=%d prio=%d\n", pg.Namespace, pg.Name, all, prio)
	}
	preemptorKey := dump.Key(c.Preemptor)
	var bound []*v1.Pod
	for _, p := range c.Pods {
		if dump.IsTerminal(p) || dump.Key(p) == preemptorKey {
			continue
		}
		switch {
		case p.Spec.NodeName != "":
			if !nodes[p.Spec.NodeName] {
				continue
			}
			bound = append(bound, p)
			if err := line("pod", p, true); err != nil {
				return "", err
			}
		case p.Status.NominatedNodeName != "" && nodes[p.Status.NominatedNodeName] &&
			(p.Spec.SchedulerName == "" && c.Scheduler() == v1.DefaultSchedulerName || p.Spec.SchedulerName == c.Scheduler()):
			if err := line("pod", p, false); err != nil {
				return "", err
			}
		}
	}
	for _, pdb := range c.PDBs {
		var members []string
		for _, p := range bound {
			if p.Namespace == pdb.Namespace && budgetSelects(pdb.Spec.Selector, p.Labels) {
				members = append(members, dump.Key(p))
			}
		}
		var disrupted []string
		for name := range pdb.Status.DisruptedPods {
			disrupted = append(disrupted, pdb.Namespace+"/"+name)
		}
		sort.Strings(disrupted)
		fmt.Fprintf(&b, "pdb %s/%s ns=%s allowed=%d members=%s disrupted=%s\n", pdb.Namespace, pdb.Name, pdb.Namespace,
			pdb.Status.DisruptionsAllowed, strings.Join(members, ","), strings.Join(disrupted, ","))
	}
	if err := line("preemptor", c.Preemptor, false); err != nil {
		return "", err
	}
	placement(&b, c.Preemptor)
	if c.Hooks == nil {
		c.drawHooks()
	}
	b.WriteString(c.Hooks.text())
	pct, abs := int32(10), int32(100)
	if c.Percentage != nil {
		pct = *c.Percentage
	}
	if c.Absolute != nil {
		abs = *c.Absolute
	}
	fmt.Fprintf(&b, "args percentage=%d absolute=%d offset=%d parallelism=%d\n", pct, abs, c.Offset, c.Hooks.Parallelism)
	return b.String(), nil
}

// groupPriority is a PodGroup's priority as the API server's Priority admission plugin resolves
// it at creation (dump.AdmitGroups, which the referee runs): spec.priority when the group carries
// it, else the value of the class spec.priorityClassName names, else the global default class's
// (the lowest of several), else 0.
func groupPriority(pg *schedulingv1beta1.PodGroup, classes []*schedulingv1.PriorityClass) (int32, error) {
	if pg.Spec.Priority != nil {
		return *pg.Spec.Priority, nil
	}
	if name := pg.Spec.PriorityClassName; name != "" {
		for _, c := range classes {
			if c.Name == name {
				return c.Value, nil
			}
		}
		return 0, fmt.Errorf("PodGroup %s/%s: spec.priorityClassName: no PriorityClass %q", pg.Namespace, pg.Name, name)
	}
	var def *schedulingv1.PriorityClass
	for _, c := range classes {
		if c.GlobalDefault && (def == nil || c.Value < def.Value) {
			def = c
		}
	}
	if def != nil {
		return def.Value, nil
	}
	return 0, nil
}

// pairs prints a map as sorted KEY=VALUE tokens.
func pairs(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, " ")
}

// placement prints what the node filters read of the preemptor: tolerations, nodeSelector and
// the terms of its required node affinity.
func placement(b *strings.Builder, p *v1.Pod) {
	key := dump.Key(p)
	for _, t := range p.Spec.Tolerations {
		op := string(t.Operator)
		if op == "" {
			op = string(v1.TolerationOpEqual)
		}
		fmt.Fprintf(b, "toleration %s key=%s op=%s value=%s effect=%s\n", key, t.Key, op, t.Value, t.Effect)
	}
	if len(p.Spec.NodeSelector) > 0 {
		fmt.Fprintf(b, "node-selector %s %s\n", key, pairs(p.Spec.NodeSelector))
	}
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return
	}
	for i, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
			fmt.Fprintf(b, "affinity %d kind=empty\n", i)
		}
		for _, r := range t.MatchExpressions {
			fmt.Fprintf(b, "affinity %d kind=expression key=%s op=%s values=%s\n", i, r.Key, r.Operator, strings.Join(r.Values, ","))
		}
		for _, r := range t.MatchFields {
			fmt.Fprintf(b, "affinity %d kind=field key=%s op=%s values=%s\n", i, r.Key, r.Operator, strings.Join(r.Values, ","))
		}
	}
}

// amounts prints a resource list: cpu in millicores, the rest in units, sorted by name after
// cpu, memory, pods and ephemeral-storage.
func amounts(l v1.ResourceList) string {
	order := map[v1.ResourceName]int{v1.ResourceCPU: 0, v1.ResourceMemory: 1, v1.ResourcePods: 2, v1.ResourceEphemeralStorage: 3}
	var names []v1.ResourceName
	for n := range l {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		oi, iok := order[names[i]]
		oj, jok := order[names[j]]
		switch {
		case iok && jok:
			return oi < oj
		case iok != jok:
			return iok
		}
		return names[i] < names[j]
	})
	var parts []string
	for _, n := range names {
		q := l[n]
		parts = append(parts, fmt.Sprintf("%s=%d", n, amount(n, q)))
	}
	return strings.Join(parts, " ")
}

func amount(n v1.ResourceName, q resource.Quantity) int64 {
	if n == v1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

// WriteModel stores the text form in dir/model.txt, and, when its hooks change upstream's
// answer, the referee's arguments for the model driver's comparison in dir/model-args
// ("--hooks model.txt").
func (c *Case) WriteModel(dir string) error {
	text, err := c.ModelText()
	if err != nil {
		return err
	}
	if c.Hooks.RefereeHooks() {
		if err := os.WriteFile(filepath.Join(dir, "model-args"), []byte("--hooks model.txt\n"), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "model.txt"), []byte(text), 0o644)
}

// selector writes a label selector in the text form's SEL syntax.
func selector(sel *metav1.LabelSelector) string {
	if sel == nil {
		return "nil"
	}
	var parts []string
	keys := make([]string, 0, len(sel.MatchLabels))
	for k := range sel.MatchLabels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, k+":Eq:"+sel.MatchLabels[k])
	}
	for _, r := range sel.MatchExpressions {
		parts = append(parts, r.Key+":"+string(r.Operator)+":"+strings.Join(r.Values, ","))
	}
	return strings.Join(parts, ";")
}

// hostPorts are the pod's host ports as upstream's GetHostPorts reads them: the containers'
// and the sidecars' (restartable init containers), hostPort above 0.
func hostPorts(p *v1.Pod) []v1.ContainerPort {
	var out []v1.ContainerPort
	for _, c := range p.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways {
			for _, port := range c.Ports {
				if port.HostPort > 0 {
					out = append(out, port)
				}
			}
		}
	}
	for _, c := range p.Spec.Containers {
		for _, port := range c.Ports {
			if port.HostPort > 0 {
				out = append(out, port)
			}
		}
	}
	return out
}

// podFacts writes what the pod-dependent filters read of a pod: its labels, host ports and
// required anti-affinity terms; of the preemptor also its required affinity terms and its
// topology spread constraints.
func podFacts(b *strings.Builder, p *v1.Pod, preemptor bool) {
	key := dump.Key(p)
	if len(p.Labels) > 0 {
		fmt.Fprintf(b, "pod-labels %s %s\n", key, pairs(p.Labels))
	}
	for _, port := range hostPorts(p) {
		fmt.Fprintf(b, "port %s protocol=%s ip=%s port=%d\n", key, port.Protocol, port.HostIP, port.HostPort)
	}
	term := func(kind string, t v1.PodAffinityTerm) {
		ns := "nil"
		if t.NamespaceSelector != nil {
			ns = selector(t.NamespaceSelector)
		}
		fmt.Fprintf(b, "term %s kind=%s topology=%s sel=%s namespaces=%s nssel=%s match-keys=%s mismatch-keys=%s\n", key, kind,
			t.TopologyKey, selector(t.LabelSelector), strings.Join(t.Namespaces, ","), ns,
			strings.Join(t.MatchLabelKeys, ","), strings.Join(t.MismatchLabelKeys, ","))
	}
	if a := p.Spec.Affinity; a != nil {
		if a.PodAffinity != nil && preemptor {
			for _, t := range a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
				term("affinity", t)
			}
		}
		if a.PodAntiAffinity != nil {
			for _, t := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
				term("anti", t)
			}
		}
	}
	if !preemptor {
		return
	}
	for _, c := range p.Spec.TopologySpreadConstraints {
		minDomains, affinity, taints := "-", "-", "-"
		if c.MinDomains != nil {
			minDomains = fmt.Sprint(*c.MinDomains)
		}
		if c.NodeAffinityPolicy != nil {
			affinity = string(*c.NodeAffinityPolicy)
		}
		if c.NodeTaintsPolicy != nil {
			taints = string(*c.NodeTaintsPolicy)
		}
		fmt.Fprintf(b, "spread %s maxskew=%d topology=%s when=%s sel=%s mindomains=%s affinity-policy=%s taints-policy=%s match-keys=%s\n",
			key, c.MaxSkew, c.TopologyKey, c.WhenUnsatisfiable, selector(c.LabelSelector), minDomains, affinity, taints,
			strings.Join(c.MatchLabelKeys, ","))
	}
}

// budgetSelects is whether a budget's selector selects a pod with these labels in the release
// the referee runs: v1.37 skips pods without labels and reads an empty selector as selecting
// nothing; v1.38 (kubernetes/kubernetes#141785) matches every pod with the selector as it is,
// `{}` selecting all of them.
func budgetSelects(sel *metav1.LabelSelector, labels map[string]string) bool {
	if release.Name == "1.37" {
		return len(labels) > 0 && matches(sel, labels)
	}
	if sel == nil {
		return false
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	return err == nil && s.Matches(labelsSet(labels))
}
