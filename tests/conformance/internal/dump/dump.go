// Package dump reads a cluster dump (`kubectl get nodes,pods,pdb,priorityclasses -A -o json`,
// or single objects, or JSON arrays of objects) with upstream's API scheme, and prepares its
// objects as the API server would have stored them: API defaults applied, and pods' priorities
// and preemption policies resolved from their PriorityClass as the Priority admission plugin does.
//
// Every kind kube-scheduler reads is kept: nodes, pods, budgets, classes, namespaces (inter-pod
// affinity's namespaceSelector reads their labels), pod groups, RuntimeClasses and LimitRanges
// (admission of a pod manifest), the storage kinds (PersistentVolumeClaim, PersistentVolume, StorageClass,
// CSINode, CSIDriver, VolumeAttachment, CSIStorageCapacity) and the DRA kinds of resource.k8s.io
// (ResourceClaim, ResourceClaimTemplate, ResourceSlice, DeviceClass, DeviceTaintRule). Objects of
// an older version of a group (storage.k8s.io/v1beta1, resource.k8s.io/v1beta2, ...) are
// converted to the version the scheduler's informers list (v1). Objects of other kinds are
// counted and otherwise ignored.
package dump

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	// The v1 defaulting functions of the kinds a dump holds, registered into legacyscheme.
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/node/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"
)

// Dump is the content of one or more dump files, objects in input order.
type Dump struct {
	Files      []string
	Nodes      []*v1.Node
	Pods       []*v1.Pod
	PDBs       []*policyv1.PodDisruptionBudget
	Classes    []*schedulingv1.PriorityClass
	Namespaces []*v1.Namespace
	// Pod groups (GenericWorkload): PodGroups and CompositePodGroups, in input order.
	PodGroups          []*schedulingv1beta1.PodGroup
	CompositePodGroups []*schedulingv1alpha3.CompositePodGroup
	// RuntimeClasses and LimitRanges: what RuntimeClass and LimitRanger admission read for a pod
	// manifest.
	RuntimeClasses []*nodev1.RuntimeClass
	LimitRanges    []*v1.LimitRange
	// Storage: what VolumeBinding, VolumeRestrictions, VolumeZone and NodeVolumeLimits read.
	PVCs                 []*v1.PersistentVolumeClaim
	PVs                  []*v1.PersistentVolume
	StorageClasses       []*storagev1.StorageClass
	CSINodes             []*storagev1.CSINode
	CSIDrivers           []*storagev1.CSIDriver
	VolumeAttachments    []*storagev1.VolumeAttachment
	CSIStorageCapacities []*storagev1.CSIStorageCapacity
	// Devices: what DynamicResources reads.
	ResourceClaims         []*resourcev1.ResourceClaim
	ResourceClaimTemplates []*resourcev1.ResourceClaimTemplate
	ResourceSlices         []*resourcev1.ResourceSlice
	DeviceClasses          []*resourcev1.DeviceClass
	DeviceTaintRules       []*resourcev1.DeviceTaintRule
	// Objects of other kinds (Services, Deployments, ...), ignored.
	Others int
}

var decoder = serializer.NewCodecFactory(legacyscheme.Scheme).UniversalDeserializer()

// The API version of each kind a dump holds, for hand-written objects that omit it.
var defaultAPIVersion = map[string]string{
	"Pod":                 "v1",
	"Node":                "v1",
	"Namespace":           "v1",
	"PodDisruptionBudget": "policy/v1",
	"PriorityClass":       "scheduling.k8s.io/v1",
	"PodGroup":            "scheduling.k8s.io/v1beta1",
	"CompositePodGroup":   "scheduling.k8s.io/v1alpha3",

	"RuntimeClass": "node.k8s.io/v1",
	"LimitRange":   "v1",

	"PersistentVolumeClaim": "v1",
	"PersistentVolume":      "v1",
	"StorageClass":          "storage.k8s.io/v1",
	"CSINode":               "storage.k8s.io/v1",
	"CSIDriver":             "storage.k8s.io/v1",
	"VolumeAttachment":      "storage.k8s.io/v1",
	"CSIStorageCapacity":    "storage.k8s.io/v1",

	"ResourceClaim":         "resource.k8s.io/v1",
	"ResourceClaimTemplate": "resource.k8s.io/v1",
	"ResourceSlice":         "resource.k8s.io/v1",
	"DeviceClass":           "resource.k8s.io/v1",
	"DeviceTaintRule":       "resource.k8s.io/v1",
}

// storedVersion is the version the scheduler's informers list for the groups whose older
// versions a dump may hold.
var storedVersion = map[string]schema.GroupVersion{
	"node.k8s.io":     {Group: "node.k8s.io", Version: "v1"},
	"storage.k8s.io":  {Group: "storage.k8s.io", Version: "v1"},
	"resource.k8s.io": {Group: "resource.k8s.io", Version: "v1"},
}

// ReadFile reads a named file, or standard input for "-".
func ReadFile(name string) (string, []byte, error) {
	if name == "-" {
		data, err := io.ReadAll(os.Stdin)
		if err != nil {
			return "<stdin>", nil, fmt.Errorf("<stdin>: cannot read: %v", err)
		}
		return "<stdin>", data, nil
	}
	data, err := os.ReadFile(name)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return name, nil, fmt.Errorf("%s: cannot read: %v", name, err)
	}
	return name, data, nil
}

// items splits a document into its objects: a List (any kind ending in "List"), a JSON array or
// a single object. inList tells whether positions are list positions.
func items(name string, data []byte) (raws []json.RawMessage, inList bool, err error) {
	trimmed := strings.TrimSpace(string(data))
	if trimmed == "" {
		return nil, false, fmt.Errorf("%s: empty document", name)
	}
	if strings.HasPrefix(trimmed, "[") {
		if err := json.Unmarshal(data, &raws); err != nil {
			return nil, false, fmt.Errorf("%s: malformed JSON: %v", name, err)
		}
		return raws, true, nil
	}
	var head struct {
		Kind  string            `json:"kind"`
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, false, fmt.Errorf("%s: malformed JSON: %v", name, err)
	}
	if strings.HasSuffix(head.Kind, "List") {
		return head.Items, true, nil
	}
	return []json.RawMessage{json.RawMessage(data)}, false, nil
}

func where(name string, i int, inList bool) string {
	if inList {
		return fmt.Sprintf("%s: items[%d]", name, i)
	}
	return name
}

// decodeObject decodes one object with upstream's scheme and applies the API defaults.
func decodeObject(raw json.RawMessage, defaultKind string) (runtime.Object, string, error) {
	// Most objects name their kind and apiVersion: the scheme decodes them as they are, and an
	// object of a kind the dump does not keep is ignored. Whatever the scheme cannot decode at
	// once (a missing kind or apiVersion, a kind it does not know, malformed JSON) takes the
	// path below, which reads the object's head first, fills in the missing fields (through a
	// generic map) and reports errors.
	if obj, gvk, err := decoder.Decode(raw, nil, nil); err == nil {
		if _, known := defaultAPIVersion[gvk.Kind]; !known {
			return nil, gvk.Kind, nil
		}
		return defaulted(obj, gvk, gvk.Kind)
	}
	return decodeByHead(raw, defaultKind)
}

// decodeByHead decodes one object after reading its kind and apiVersion, filling in the missing
// ones: what decodeObject does for the objects the scheme cannot decode as they are.
func decodeByHead(raw json.RawMessage, defaultKind string) (runtime.Object, string, error) {
	var head struct {
		Kind       json.RawMessage `json:"kind"`
		APIVersion json.RawMessage `json:"apiVersion"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, "", fmt.Errorf("malformed JSON: %v", err)
	}
	var kind, version string
	if json.Unmarshal(head.Kind, &kind) == nil && kind != "" &&
		json.Unmarshal(head.APIVersion, &version) == nil {
		if _, known := defaultAPIVersion[kind]; !known {
			return nil, kind, nil // an object of another kind: ignored
		}
		return decodeKnown(raw, kind)
	}
	var meta map[string]any
	if err := json.Unmarshal(raw, &meta); err != nil {
		return nil, "", fmt.Errorf("malformed JSON: %v", err)
	}
	kind, _ = meta["kind"].(string)
	if kind == "" {
		if defaultKind == "" {
			return nil, "", errors.New("kind: missing")
		}
		kind = defaultKind
		meta["kind"] = kind
	}
	if _, ok := meta["apiVersion"].(string); !ok {
		version, known := defaultAPIVersion[kind]
		if !known {
			return nil, kind, nil // an object of another kind: ignored
		}
		meta["apiVersion"] = version
	}
	if _, known := defaultAPIVersion[kind]; !known {
		return nil, kind, nil
	}
	fixed, err := json.Marshal(meta)
	if err != nil {
		return nil, kind, err
	}
	return decodeKnown(fixed, kind)
}

// decodeKnown decodes an object of a kind the dump keeps, naming its kind and apiVersion.
func decodeKnown(fixed []byte, kind string) (runtime.Object, string, error) {
	obj, gvk, err := decoder.Decode(fixed, nil, nil)
	if err != nil {
		return nil, kind, err
	}
	return defaulted(obj, gvk, kind)
}

// defaulted applies the API defaults to a decoded object, converted to the version the
// scheduler's informers list.
func defaulted(obj runtime.Object, gvk *schema.GroupVersionKind, kind string) (runtime.Object, string, error) {
	legacyscheme.Scheme.Default(obj)
	if want, ok := storedVersion[gvk.Group]; ok && gvk.Version != want.Version {
		converted, err := legacyscheme.Scheme.ConvertToVersion(obj, want)
		if err != nil {
			return nil, kind, fmt.Errorf("%s: cannot convert to %s: %v", gvk.GroupVersion(), want, err)
		}
		obj = converted
		legacyscheme.Scheme.Default(obj)
	}
	return obj, kind, nil
}

// AddFile adds the objects of one dump file. The objects of a file up to memoMaxBytes are
// decoded once per distinct file content in this process (decodedFiles) and each call gets its
// own deep copies, so that a referee deciding one cluster several times pays the API scheme's
// decoding once; a larger file (the scale runs' dumps of millions of pods) is decoded each time
// and its objects handed over as they are, without a second copy in memory.
func (d *Dump) AddFile(name string, data []byte) error {
	var objs []runtime.Object
	var err error
	copied := len(data) <= memoMaxBytes
	if copied {
		objs, err = decodedFiles.decode(name, data)
	} else {
		objs, err = decodeFile(name, data)
	}
	if err != nil {
		return err
	}
	d.Files = append(d.Files, name)
	for _, stored := range objs {
		if stored == nil {
			d.Others++
			continue
		}
		obj := stored
		if copied {
			obj = stored.DeepCopyObject()
		}
		switch o := obj.(type) {
		case *v1.Pod:
			d.Pods = append(d.Pods, o)
		case *v1.Node:
			d.Nodes = append(d.Nodes, o)
		case *policyv1.PodDisruptionBudget:
			d.PDBs = append(d.PDBs, o)
		case *schedulingv1.PriorityClass:
			d.Classes = append(d.Classes, o)
		case *v1.Namespace:
			d.Namespaces = append(d.Namespaces, o)
		case *schedulingv1beta1.PodGroup:
			d.PodGroups = append(d.PodGroups, o)
		case *schedulingv1alpha3.CompositePodGroup:
			d.CompositePodGroups = append(d.CompositePodGroups, o)
		case *nodev1.RuntimeClass:
			d.RuntimeClasses = append(d.RuntimeClasses, o)
		case *v1.LimitRange:
			d.LimitRanges = append(d.LimitRanges, o)
		case *v1.PersistentVolumeClaim:
			d.PVCs = append(d.PVCs, o)
		case *v1.PersistentVolume:
			d.PVs = append(d.PVs, o)
		case *storagev1.StorageClass:
			d.StorageClasses = append(d.StorageClasses, o)
		case *storagev1.CSINode:
			d.CSINodes = append(d.CSINodes, o)
		case *storagev1.CSIDriver:
			d.CSIDrivers = append(d.CSIDrivers, o)
		case *storagev1.VolumeAttachment:
			d.VolumeAttachments = append(d.VolumeAttachments, o)
		case *storagev1.CSIStorageCapacity:
			d.CSIStorageCapacities = append(d.CSIStorageCapacities, o)
		case *resourcev1.ResourceClaim:
			d.ResourceClaims = append(d.ResourceClaims, o)
		case *resourcev1.ResourceClaimTemplate:
			d.ResourceClaimTemplates = append(d.ResourceClaimTemplates, o)
		case *resourcev1.ResourceSlice:
			d.ResourceSlices = append(d.ResourceSlices, o)
		case *resourcev1.DeviceClass:
			d.DeviceClasses = append(d.DeviceClasses, o)
		case *resourcev1.DeviceTaintRule:
			d.DeviceTaintRules = append(d.DeviceTaintRules, o)
		default:
			d.Others++
		}
	}
	return nil
}

// decodeFile decodes every object of one dump file (nil for an object of another kind).
func decodeFile(name string, data []byte) ([]runtime.Object, error) {
	raws, inList, err := items(name, data)
	if err != nil {
		return nil, err
	}
	objs := make([]runtime.Object, 0, len(raws))
	for i, raw := range raws {
		obj, kind, err := decodeObject(raw, "")
		if err != nil {
			if kind != "" {
				return nil, fmt.Errorf("%s: %s: %v", where(name, i, inList), kind, err)
			}
			return nil, fmt.Errorf("%s: %v", where(name, i, inList), err)
		}
		objs = append(objs, obj)
	}
	return objs, nil
}

// fileMemo remembers the decoded objects of the last few files (by name and content): the
// decoded objects are never handed out, only copies of them. Decoding depends on the process's
// feature gates (API defaults), which a process sets once, before it reads a dump.
type fileMemo struct {
	mu      sync.Mutex
	entries []memoEntry // most recent last
}

type memoEntry struct {
	key  [sha256.Size]byte
	objs []runtime.Object
	err  error
}

const memoCapacity = 16

// memoMaxBytes is the largest file decodedFiles remembers (generated clusters are a few MB).
const memoMaxBytes = 64 << 20

var decodedFiles fileMemo

func (m *fileMemo) decode(name string, data []byte) ([]runtime.Object, error) {
	h := sha256.New()
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write(data)
	var key [sha256.Size]byte
	copy(key[:], h.Sum(nil))
	m.mu.Lock()
	for i, e := range m.entries {
		if e.key == key {
			m.entries = append(append(m.entries[:i:i], m.entries[i+1:]...), e)
			m.mu.Unlock()
			return e.objs, e.err
		}
	}
	m.mu.Unlock()
	objs, err := decodeFile(name, data)
	m.mu.Lock()
	if len(m.entries) == memoCapacity {
		m.entries = append(m.entries[:0:0], m.entries[1:]...)
	}
	m.entries = append(m.entries, memoEntry{key: key, objs: objs, err: err})
	m.mu.Unlock()
	return objs, err
}

// ReadPod reads the pod to place from a file holding one Pod (kind may be omitted).
func ReadPod(name string, data []byte) (*v1.Pod, error) {
	raws, inList, err := items(name, data)
	if err != nil {
		return nil, err
	}
	if len(raws) != 1 {
		return nil, fmt.Errorf("%s: expected one Pod, found %d objects", name, len(raws))
	}
	obj, kind, err := decodeObject(raws[0], "Pod")
	if err != nil {
		return nil, fmt.Errorf("%s: %v", where(name, 0, inList), err)
	}
	pod, ok := obj.(*v1.Pod)
	if !ok {
		return nil, fmt.Errorf("%s: expected a Pod, found kind %s", name, kind)
	}
	return pod, nil
}

// Key is namespace/name.
func Key(p *v1.Pod) string { return p.Namespace + "/" + p.Name }

// IsTerminal tells a pod whose phase is Succeeded or Failed: kube-scheduler's informer does not
// list them (NewInformerFactory's field selector), so they hold no resources anywhere.
func IsTerminal(p *v1.Pod) bool {
	return p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed
}

// FindPending returns the pending pod namespace/name of the dump.
func (d *Dump) FindPending(key string) (*v1.Pod, error) {
	for _, p := range d.Pods {
		if Key(p) != key {
			continue
		}
		if p.Spec.NodeName != "" {
			return nil, fmt.Errorf("--pod-name %s: the pod is not pending: it is bound to node %s", key, p.Spec.NodeName)
		}
		if IsTerminal(p) {
			return nil, fmt.Errorf("--pod-name %s: the pod is not pending: its phase is %s", key, p.Status.Phase)
		}
		return p, nil
	}
	return nil, fmt.Errorf("--pod-name %s: no such pod in the cluster dump", key)
}

// SchedulerObjects are the dump's objects kube-scheduler's informers list beyond nodes, pods,
// budgets, classes and namespaces: pod groups, RuntimeClasses, the storage kinds and the DRA
// kinds, in that order, each kind in input order.
func (d *Dump) SchedulerObjects() []runtime.Object {
	var out []runtime.Object
	add := func(o runtime.Object) { out = append(out, o) }
	for _, x := range d.PodGroups {
		add(x)
	}
	for _, x := range d.CompositePodGroups {
		add(x)
	}
	for _, x := range d.RuntimeClasses {
		add(x)
	}
	for _, x := range d.PVCs {
		add(x)
	}
	for _, x := range d.PVs {
		add(x)
	}
	for _, x := range d.StorageClasses {
		add(x)
	}
	for _, x := range d.CSINodes {
		add(x)
	}
	for _, x := range d.CSIDrivers {
		add(x)
	}
	for _, x := range d.VolumeAttachments {
		add(x)
	}
	for _, x := range d.CSIStorageCapacities {
		add(x)
	}
	for _, x := range d.ResourceClaims {
		add(x)
	}
	for _, x := range d.ResourceClaimTemplates {
		add(x)
	}
	for _, x := range d.ResourceSlices {
		add(x)
	}
	for _, x := range d.DeviceClasses {
		add(x)
	}
	for _, x := range d.DeviceTaintRules {
		add(x)
	}
	return out
}
