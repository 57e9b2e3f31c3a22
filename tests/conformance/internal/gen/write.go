package gen

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

type list struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Items      []any  `json:"items"`
}

// ClusterJSON is the dump as `kubectl get ... -o json` prints it: a List.
func (c *Case) ClusterJSON() ([]byte, error) {
	l := list{APIVersion: "v1", Kind: "List"}
	for _, x := range c.Classes {
		l.Items = append(l.Items, x)
	}
	for _, x := range c.Namespaces {
		l.Items = append(l.Items, x)
	}
	for _, x := range c.Nodes {
		l.Items = append(l.Items, x)
	}
	for _, x := range c.Pods {
		l.Items = append(l.Items, x)
	}
	for _, x := range c.PDBs {
		l.Items = append(l.Items, x)
	}
	for _, x := range c.PodGroups {
		l.Items = append(l.Items, x)
	}
	l.Items = append(l.Items, c.extraObjects()...)
	return listJSON(l)
}

// listJSON writes a List with one item a line: as readable with grep as an indented dump, and
// cheaper to write and to read for both deciders than one (a run writes thousands of them).
func listJSON(l list) ([]byte, error) {
	head, err := json.Marshal(struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}{l.APIVersion, l.Kind})
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Write(head[:len(head)-1])
	b.WriteString(`,"items":[`)
	for i, x := range l.Items {
		item, err := json.Marshal(x)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n")
		b.Write(item)
	}
	b.WriteString("\n]}")
	return b.Bytes(), nil
}

// PodJSON is the preemptor as a Pod object.
func (c *Case) PodJSON() ([]byte, error) { return json.MarshalIndent(c.Preemptor, "", " ") }

// DeciderArgs are the arguments of a decider run in dir (cluster.json, pod.json there).
func (c *Case) DeciderArgs(dir string) []string {
	a := []string{"--cluster", filepath.Join(dir, "cluster.json")}
	if c.PodName {
		a = append(a, "--pod-name", c.Preemptor.Namespace+"/"+c.Preemptor.Name)
	} else {
		a = append(a, "--pod", filepath.Join(dir, "pod.json"))
	}
	return append(a, c.Args()...)
}

// Write stores the case in dir: cluster.json, pod.json, and args (the flags beyond --cluster,
// one line) and families (one line). A PodGroup case has no pod.json, and args --pod-group and
// the profile's name.
func (c *Case) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cluster, err := c.ClusterJSON()
	if err != nil {
		return err
	}
	if c.PodGroup != "" {
		args := []string{"--pod-group", c.PodGroup}
		if c.SchedulerName != "" {
			args = append(args, "--scheduler-name", c.SchedulerName)
		}
		return writeFiles(dir, map[string][]byte{
			"cluster.json": append(cluster, '\n'),
			"args":         []byte(strings.Join(args, " ") + "\n"),
			"families":     []byte(strings.Join(c.Families, ",") + "\n"),
		})
	}
	pod, err := c.PodJSON()
	if err != nil {
		return err
	}
	args := c.Args()
	if c.PodName {
		args = append([]string{"--pod-name", c.Preemptor.Namespace + "/" + c.Preemptor.Name}, args...)
	} else {
		args = append([]string{"--pod", "pod.json"}, args...)
	}
	return writeFiles(dir, map[string][]byte{
		"cluster.json": append(cluster, '\n'),
		"pod.json":     append(pod, '\n'),
		"args":         []byte(strings.Join(args, " ") + "\n"),
		"families":     []byte(strings.Join(c.Families, ",") + "\n"),
	})
}

func writeFiles(dir string, files map[string][]byte) error {
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// extraObjects are the RuntimeClasses, the LimitRanges, the storage objects and the DRA objects,
// in that order.
func (c *Case) extraObjects() []any {
	var out []any
	for _, x := range c.RuntimeClasses {
		out = append(out, x)
	}
	for _, x := range c.LimitRanges {
		out = append(out, x)
	}
	for _, x := range c.StorageClasses {
		out = append(out, x)
	}
	for _, x := range c.CSIDrivers {
		out = append(out, x)
	}
	for _, x := range c.CSINodes {
		out = append(out, x)
	}
	for _, x := range c.PVs {
		out = append(out, x)
	}
	for _, x := range c.PVCs {
		out = append(out, x)
	}
	for _, x := range c.VolumeAttachments {
		out = append(out, x)
	}
	for _, x := range c.CSIStorageCapacities {
		out = append(out, x)
	}
	for _, x := range c.DeviceClasses {
		out = append(out, x)
	}
	for _, x := range c.ResourceSlices {
		out = append(out, x)
	}
	for _, x := range c.ResourceClaimTemplates {
		out = append(out, x)
	}
	for _, x := range c.ResourceClaims {
		out = append(out, x)
	}
	return out
}
