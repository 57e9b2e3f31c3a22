package gen

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The speed comparison's clusters, in the shapes of upstream's scheduler_perf
// default_preemption workloads (the same as benchmarks/bench/fixtures.hpp):
//
//	node               4 CPU, 32Gi, 110 pod slots
//	low-priority pod   priority 0; the p pods of a node share 3.6 CPU (3600/p millicores each)
//	                   and min(500Mi, 28Gi/p) of memory; dealt round-robin (pod k on node k % n)
//	preemptor          3000m, 500Mi, priority 10: evicts 3 of 4 victims (22 of 30, 81 of 110)
//
// Start times are distinct and seeded-random (one a second over a year), so a node's pods are
// not listed in their importance order. Shape names:
//
//	NxP                  N nodes, P pods per node, the 3000m preemptor
//	infeasible-NxP       the same cluster, but the first pod of every node has priority 10 (the
//	                     preemptor's: never a victim) and the preemptor asks for 3500m: within
//	                     every node's allocatable (so no filter rejects it as unresolvable), yet
//	                     it fits no node even with every lower-priority pod evicted (4000m - 3600m/P
//	                     at most is freed): the dry run evaluates every node and finds no candidate
//	pdbs-NxP-B           NxP with B disruption budgets: budget b selects (by its own label) the
//	                     pods 3b..3b+2 in slot-major order (pod slot s of node n is number
//	                     s*N+n, so a budget's pods are on three different nodes) and allows 1
//	                     disruption, so no node ever violates one: the cost of the lookups alone
//	antiaff-NxP          NxP with inter-pod anti-affinity (InterPodAffinity's PreFilter, Filter and
//	                     its RemovePod/AddPod in every reprieve): pod k carries team=t-(k%8); the
//	                     first pod of every node has a required anti-affinity term against
//	                     app=web (the preemptor's label) on kubernetes.io/hostname, and the
//	                     preemptor one against team=t-0 on the same key. On every node both the
//	                     first pod and the team-t-0 pods must go, the rest are reprieved as in NxP
//
// Every shape depends only on its name.
func Shape(name string) (*Case, error) {
	kind, nodes, perNode, budgets, err := parseShape(name)
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewSource(42))
	c := &Case{Seed: 42, Families: []string{Resources}}
	c.Namespaces = []*v1.Namespace{{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: "default"}}}
	for n := 0; n < nodes; n++ {
		name := fmt.Sprintf("node-%d", n)
		c.Nodes = append(c.Nodes, &v1.Node{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{hostLabel: name}},
			Status: v1.NodeStatus{
				Capacity:    v1.ResourceList{v1.ResourceCPU: q("4"), v1.ResourceMemory: q("32Gi"), v1.ResourcePods: q("110")},
				Allocatable: v1.ResourceList{v1.ResourceCPU: q("4"), v1.ResourceMemory: q("32Gi"), v1.ResourcePods: q("110")},
			},
		})
	}
	total := nodes * perNode
	cpu := int64(3600 / perNode)
	mem := min(int64(500)<<20, (int64(28)<<30)/int64(perNode))
	starts := r.Perm(365 * 24 * 3600)[:total]
	zero, ten := int32(0), int32(10)
	for k := 0; k < total; k++ {
		name := fmt.Sprintf("low-%d", k)
		t := metav1.NewTime(base.Add(-time.Duration(starts[k]+1) * time.Second))
		c.Pods = append(c.Pods, &v1.Pod{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name),
				Labels: map[string]string{"app": "low"}},
			Spec: v1.PodSpec{
				NodeName: fmt.Sprintf("node-%d", k%nodes), SchedulerName: defaultSched, Priority: &zero,
				Containers: []v1.Container{{Name: "main", Image: "registry.example/app:1",
					Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: milli(cpu), v1.ResourceMemory: binary(mem)}}}},
			},
			Status: v1.PodStatus{Phase: v1.PodRunning, StartTime: &t},
		})
		pod := c.Pods[k]
		if kind == "infeasible" && k < nodes {
			pod.Spec.Priority = &ten
		}
		if kind == "antiaff" {
			pod.Labels["team"] = fmt.Sprintf("t-%d", k%8)
			if k < nodes {
				pod.Spec.Affinity = antiAffinity("app", "web")
			}
		}
	}
	if budgets > 0 {
		// Pod k is slot k / nodes of node k % nodes: slot-major order is pod order.
		one := intstr.FromInt32(1)
		for b := 0; b < budgets; b++ {
			label := fmt.Sprintf("b-%d", b)
			for j := 0; j < 3; j++ {
				c.Pods[(3*b+j)%total].Labels["pdb"] = label
			}
			c.PDBs = append(c.PDBs, &policyv1.PodDisruptionBudget{
				TypeMeta:   metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
				ObjectMeta: metav1.ObjectMeta{Name: "pdb-" + label, Namespace: "default"},
				Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &one,
					Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"pdb": label}}},
				Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 1, CurrentHealthy: 3, DesiredHealthy: 2, ExpectedPods: 3},
			})
		}
	}
	preemptorCPU := int64(3000)
	if kind == "infeasible" {
		preemptorCPU = 3500
	}
	c.Preemptor = &v1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "preemptor", Namespace: "default", UID: "uid-preemptor"},
		Spec: v1.PodSpec{SchedulerName: defaultSched, Priority: &ten,
			Containers: []v1.Container{{Name: "main", Image: "registry.example/app:1",
				Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: milli(preemptorCPU), v1.ResourceMemory: binary(500 << 20)}}}}},
		Status: v1.PodStatus{Phase: v1.PodPending},
	}
	if kind == "antiaff" {
		c.Preemptor.Labels = map[string]string{"app": "web"}
		c.Preemptor.Spec.Affinity = antiAffinity("team", "t-0")
		c.Families = append(c.Families, PodAffinity)
	}
	return c, nil
}

// antiAffinity is a required pod anti-affinity term against the pods labelled key=value, per node.
func antiAffinity(key, value string) *v1.Affinity {
	return &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{key: value}},
			TopologyKey:   hostLabel,
		}},
	}}
}

// parseShape reads "NxP", "infeasible-NxP", "antiaff-NxP" or "pdbs-NxP-B".
func parseShape(name string) (kind string, nodes, perNode, budgets int, err error) {
	bad := fmt.Errorf("shape %q: want NxP, infeasible-NxP, antiaff-NxP or pdbs-NxP-B (N nodes, P pods per node from 1 to 110, B budgets)", name)
	rest := name
	if s, ok := strings.CutPrefix(rest, "infeasible-"); ok {
		kind, rest = "infeasible", s
	} else if s, ok := strings.CutPrefix(rest, "antiaff-"); ok {
		kind, rest = "antiaff", s
	} else if s, ok := strings.CutPrefix(rest, "pdbs-"); ok {
		kind = "pdbs"
		i := strings.LastIndexByte(s, '-')
		if i < 0 {
			return "", 0, 0, 0, bad
		}
		if budgets, err = strconv.Atoi(s[i+1:]); err != nil || budgets < 1 {
			return "", 0, 0, 0, bad
		}
		rest = s[:i]
	}
	n, p, ok := strings.Cut(rest, "x")
	if !ok {
		return "", 0, 0, 0, bad
	}
	var e1, e2 error
	nodes, e1 = strconv.Atoi(n)
	perNode, e2 = strconv.Atoi(p)
	if e1 != nil || e2 != nil || nodes < 1 || perNode < 1 || perNode > 110 {
		return "", 0, 0, 0, bad
	}
	return kind, nodes, perNode, budgets, nil
}

// WriteCompact stores the case in dir as cluster.json (a List, one item a line) and pod.json,
// streamed: the large shapes hold hundreds of thousands of pods.
func (c *Case) WriteCompact(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "cluster.json"))
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var items []any
	for _, x := range c.Classes {
		items = append(items, x)
	}
	for _, x := range c.Namespaces {
		items = append(items, x)
	}
	for _, x := range c.Nodes {
		items = append(items, x)
	}
	for _, x := range c.Pods {
		items = append(items, x)
	}
	for _, x := range c.PDBs {
		items = append(items, x)
	}
	_, err = w.WriteString(`{"apiVersion":"v1","kind":"List","items":[` + "\n")
	for i, x := range items {
		var b []byte
		if b, err = json.Marshal(x); err != nil {
			break
		}
		if i > 0 {
			w.WriteString(",\n")
		}
		w.Write(b)
	}
	if err == nil {
		_, err = w.WriteString("\n]}\n")
	}
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	pod, err := json.Marshal(c.Preemptor)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "pod.json"), append(pod, '\n'), 0o644)
}
