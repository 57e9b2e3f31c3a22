package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/preempt/preempt/tests/conformance/internal/dump"
)

// Load reads a case written by Write (or by hand in the same layout) back, for minimization.
func Load(dir string) (*Case, error) {
	d := &dump.Dump{}
	name, data, err := dump.ReadFile(filepath.Join(dir, "cluster.json"))
	if err != nil {
		return nil, err
	}
	if err := d.AddFile(name, data); err != nil {
		return nil, err
	}
	c := &Case{Nodes: d.Nodes, Pods: d.Pods, PDBs: d.PDBs, Classes: d.Classes, Namespaces: d.Namespaces,
		PodGroups: d.PodGroups, RuntimeClasses: d.RuntimeClasses, LimitRanges: d.LimitRanges, StorageClasses: d.StorageClasses,
		CSIDrivers: d.CSIDrivers, CSINodes: d.CSINodes, PVs: d.PVs, PVCs: d.PVCs, VolumeAttachments: d.VolumeAttachments,
		CSIStorageCapacities: d.CSIStorageCapacities, DeviceClasses: d.DeviceClasses, ResourceSlices: d.ResourceSlices,
		ResourceClaimTemplates: d.ResourceClaimTemplates, ResourceClaims: d.ResourceClaims}
	if fam, err := os.ReadFile(filepath.Join(dir, "families")); err == nil {
		for _, f := range strings.Split(strings.TrimSpace(string(fam)), ",") {
			if f != "" {
				c.Families = append(c.Families, f)
			}
		}
	}
	argText, err := os.ReadFile(filepath.Join(dir, "args"))
	if err != nil {
		return nil, err
	}
	args := strings.Fields(string(argText))
	for i := 0; i+1 < len(args); i += 2 {
		value := args[i+1]
		switch args[i] {
		case "--pod":
			name, data, err := dump.ReadFile(filepath.Join(dir, value))
			if err != nil {
				return nil, err
			}
			if c.Preemptor, err = dump.ReadPod(name, data); err != nil {
				return nil, err
			}
		case "--pod-name":
			c.PodName = true
			for _, p := range c.Pods {
				if dump.Key(p) == value {
					c.Preemptor = p
				}
			}
		case "--pod-group":
			c.PodGroup = value
		case "--scheduler-name":
			c.SchedulerName = value
		case "--offset":
			if c.Offset, err = strconv.ParseInt(value, 10, 64); err != nil {
				return nil, err
			}
		case "--min-candidate-nodes-percentage", "--min-candidate-nodes-absolute":
			v, err := strconv.ParseInt(value, 10, 32)
			if err != nil {
				return nil, err
			}
			x := int32(v)
			if args[i] == "--min-candidate-nodes-percentage" {
				c.Percentage = &x
			} else {
				c.Absolute = &x
			}
		default:
			return nil, fmt.Errorf("%s/args: unknown option %s", dir, args[i])
		}
	}
	if c.Preemptor == nil && c.PodGroup == "" {
		return nil, fmt.Errorf("%s/args: no --pod, --pod-name or --pod-group", dir)
	}
	return c, nil
}

// Without returns a copy of the case without the objects drop rejects (the preemptor stays).
func (c *Case) Without(dropNode func(*v1.Node) bool, dropPod func(*v1.Pod) bool, dropPDB func(int) bool) *Case {
	out := *c
	out.Nodes, out.Pods, out.PDBs = nil, nil, nil
	gone := map[string]bool{}
	for _, n := range c.Nodes {
		if dropNode != nil && dropNode(n) {
			gone[n.Name] = true
			continue
		}
		out.Nodes = append(out.Nodes, n)
	}
	for _, p := range c.Pods {
		if p == c.Preemptor {
			out.Pods = append(out.Pods, p)
			continue
		}
		if gone[p.Spec.NodeName] || (dropPod != nil && dropPod(p)) {
			continue
		}
		out.Pods = append(out.Pods, p)
	}
	for i, b := range c.PDBs {
		if dropPDB == nil || !dropPDB(i) {
			out.PDBs = append(out.PDBs, b)
		}
	}
	if n := int64(len(out.Nodes)); n > 0 && out.Offset >= n {
		// preempt-whatif rejects an offset at or above the node count; a case that still shows its
		// difference with the offset taken modulo the nodes is kept (minimize checks it).
		out.Offset %= n
	}
	return &out
}
