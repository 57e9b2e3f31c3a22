package gen_test

import (
	"path/filepath"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/preempt/preempt/tests/conformance/internal/dump"
	"github.com/preempt/preempt/tests/conformance/internal/gen"
	"github.com/preempt/preempt/tests/conformance/internal/upstream"
	"github.com/preempt/preempt/tests/conformance/internal/whatif"
)

// decide writes the case and decides it with upstream's code, as `conform run` does.
func decide(t *testing.T, c *gen.Case) *upstream.Report {
	t.Helper()
	dir := t.TempDir()
	if err := c.Write(dir); err != nil {
		t.Fatal(err)
	}
	o, err := whatif.ParseArgs(c.DeciderArgs(dir))
	if err != nil {
		t.Fatal(err)
	}
	r, err := whatif.Decide(o)
	if err != nil {
		t.Fatalf("seed %d: %v", c.Seed, err)
	}
	return r
}

func outcome(r *upstream.Report) string {
	var b strings.Builder
	b.WriteString(r.Result + " " + r.NominatedNodeName + " " + strings.Join(r.Victims, ",") + " " + r.Message)
	for _, n := range r.Nodes {
		b.WriteString("|" + n.Name + " " + n.Status + " " + n.Reason)
	}
	return b.String()
}

// The objects each family adds are read by upstream: without them, upstream answers otherwise
// on some of the family's clusters. (A referee that loaded none of them would answer the same.)
func TestUpstreamReadsTheFamiliesObjects(t *testing.T) {
	strip := map[string]func(c *gen.Case){
		gen.Volumes: func(c *gen.Case) {
			c.StorageClasses, c.CSIDrivers, c.CSINodes, c.PVs, c.VolumeAttachments, c.CSIStorageCapacities = nil, nil, nil, nil, nil, nil
		},
		gen.DRA: func(c *gen.Case) { c.ResourceSlices = nil },
		gen.Namespaces: func(c *gen.Case) {
			c.Namespaces = nil
		},
		gen.Resize: func(c *gen.Case) {
			for _, p := range c.Pods {
				p.Status.ContainerStatuses, p.Status.Resources, p.Status.AllocatedResources = nil, nil, nil
				p.Status.Conditions = nil
			}
		},
		gen.Manifests: func(c *gen.Case) { c.RuntimeClasses = nil; c.Preemptor.Spec.RuntimeClassName = nil },
	}
	for family, without := range strip {
		t.Run(family, func(t *testing.T) {
			used, changed := 0, 0
			for seed := int64(1); seed <= 60 && changed < 3; seed++ {
				c := gen.Generate(seed, []string{family})
				if !c.Uses(family) {
					continue
				}
				used++
				full := outcome(decide(t, c))
				without(c)
				if outcome(decide(t, c)) != full {
					changed++
				}
			}
			if used == 0 || changed == 0 {
				t.Fatalf("%d clusters of the family, upstream's answer changed on %d without its objects", used, changed)
			}
		})
	}
}

// A PVC the dump lacks: upstream's VolumeBinding PreFilter says so on every node.
func TestMissingClaimIsNotFound(t *testing.T) {
	for seed := int64(1); seed <= 200; seed++ {
		c := gen.Generate(seed, []string{gen.Volumes})
		if !c.Uses(gen.Volumes) || len(c.Preemptor.Spec.Volumes) == 0 || c.Preemptor.Spec.Volumes[0].PersistentVolumeClaim == nil {
			continue
		}
		claim := c.Preemptor.Spec.Volumes[0].PersistentVolumeClaim.ClaimName
		var kept []*v1.PersistentVolumeClaim
		for _, pvc := range c.PVCs {
			if pvc.Namespace != c.Preemptor.Namespace || pvc.Name != claim {
				kept = append(kept, pvc)
			}
		}
		c.PVCs = kept
		r := decide(t, c)
		want := `persistentvolumeclaim "` + claim + `" not found`
		for _, n := range r.Nodes {
			if n.Reason != want || n.Status != "UnschedulableAndUnresolvable" {
				t.Fatalf("seed %d: node %s: %s %q, want UnschedulableAndUnresolvable %q", seed, n.Name, n.Status, n.Reason, want)
			}
		}
		if r.Result != "unschedulable" {
			t.Fatalf("seed %d: %s, want unschedulable", seed, r.Result)
		}
		return
	}
	t.Fatal("no cluster with a preemptor claim")
}

// A manifest is admitted as the API server admits it: hostPort from containerPort on the host
// network, the RuntimeClass's overhead, nodeSelector and tolerations, the default tolerations.
func TestManifestAdmission(t *testing.T) {
	d := &dump.Dump{}
	name, data, err := dump.ReadFile(filepath.Join("testdata", "runtime-classes.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.AddFile(name, data); err != nil {
		t.Fatal(err)
	}
	p, err := dump.ReadPod("pod.json", []byte(`{"metadata": {"name": "web", "namespace": "team-a"},
	  "spec": {"hostNetwork": true, "runtimeClassName": "gvisor",
	    "containers": [{"name": "main", "image": "x", "ports": [{"containerPort": 8080}],
	      "resources": {"requests": {"cpu": "1"}}}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.AdmitManifest(p, "pod.json"); err != nil {
		t.Fatal(err)
	}
	if got := p.Spec.Containers[0].Ports[0].HostPort; got != 8080 {
		t.Errorf("hostPort %d, want 8080", got)
	}
	if got := p.Spec.Overhead.Cpu().MilliValue(); got != 100 {
		t.Errorf("overhead cpu %dm, want 100m", got)
	}
	if p.Spec.NodeSelector["runtime"] != "gvisor" {
		t.Errorf("nodeSelector %v, want runtime=gvisor", p.Spec.NodeSelector)
	}
	keys := map[string]bool{}
	for _, tol := range p.Spec.Tolerations {
		keys[tol.Key] = true
	}
	for _, k := range []string{"sandbox", v1.TaintNodeNotReady, v1.TaintNodeUnreachable} {
		if !keys[k] {
			t.Errorf("no toleration of %s: %v", k, p.Spec.Tolerations)
		}
	}
	p2, _ := dump.ReadPod("pod.json", []byte(`{"metadata": {"name": "web", "namespace": "team-a"},
	  "spec": {"runtimeClassName": "wasm", "containers": [{"name": "main", "image": "x"}]}}`))
	if err := d.AdmitManifest(p2, "pod.json"); err == nil || !strings.Contains(err.Error(), `RuntimeClass "wasm" not found`) {
		t.Errorf("a missing RuntimeClass: %v", err)
	}
}

// Every family with every other: generating, writing and the text form never fail.
func TestGenerateEveryFamilyTogether(t *testing.T) {
	dir := t.TempDir()
	for seed := int64(1); seed <= 500; seed++ {
		c := gen.Generate(seed, gen.All)
		if _, err := c.ClusterJSON(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if c.ResourceOnly() {
			if err := c.WriteModel(dir); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
		}
	}
}
