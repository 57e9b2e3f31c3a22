package gen

import (
	"fmt"
	"sort"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The storage of the volumes family: a CSI driver that attaches (csi.example.com, with attach
// limits in CSINode), a CSI driver with storage capacity tracking (capacity.csi.example.com), and
// local volumes without a provisioner. StorageClasses:
//
//	standard   csi.example.com           WaitForFirstConsumer, allowedTopologies (zones) half of the time
//	immediate  csi.example.com           Immediate
//	local      kubernetes.io/no-provisioner  WaitForFirstConsumer (static local PVs pinned to nodes)
//	capacity   capacity.csi.example.com  WaitForFirstConsumer, CSIStorageCapacity per zone
const (
	attachDriver     = "csi.example.com"
	capacityDriver   = "capacity.csi.example.com"
	noProvisioner    = "kubernetes.io/no-provisioner"
	bindCompleted    = "pv.kubernetes.io/bind-completed"
	boundByControler = "pv.kubernetes.io/bound-by-controller"
)

// volumeState is what the family keeps between its steps.
type volumeState struct {
	localFree   map[int][]*v1.PersistentVolume // Available local PVs per node
	handles     map[int]map[string]bool        // the attach driver's volume handles in use per node
	limited     map[int]*storagev1.CSINodeDriver
	attachments bool // the dump holds a VolumeAttachment for every attached volume
	n           int  // object counter
}

func (g *generator) vols() *volumeState {
	if g.volumes == nil {
		g.volumes = &volumeState{localFree: map[int][]*v1.PersistentVolume{}, handles: map[int]map[string]bool{},
			limited: map[int]*storagev1.CSINodeDriver{}}
	}
	return g.volumes
}

func storageQuantity(gib int64) v1.ResourceList {
	return v1.ResourceList{v1.ResourceStorage: binary(gib * gi)}
}

// storageObjects: drivers, classes, CSINodes (most nodes; attach limits on about 60 percent of
// them, set once the bound pods' volumes are known), storage capacities per zone, and Available
// local PVs on about a third of the nodes.
func (g *generator) storageObjects() {
	s, vs := g.own[Volumes], g.vols()
	tmDriver := metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "CSIDriver"}
	prevent := s.chance(0.3)
	g.c.CSIDrivers = []*storagev1.CSIDriver{
		{TypeMeta: tmDriver, ObjectMeta: metav1.ObjectMeta{Name: attachDriver},
			Spec: storagev1.CSIDriverSpec{AttachRequired: ptr(true), PodInfoOnMount: ptr(false), PreventPodSchedulingIfMissing: &prevent}},
		{TypeMeta: tmDriver, ObjectMeta: metav1.ObjectMeta{Name: capacityDriver},
			Spec: storagev1.CSIDriverSpec{AttachRequired: ptr(false), StorageCapacity: ptr(true)}},
	}
	tmClass := metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "StorageClass"}
	wffc, immediate := storagev1.VolumeBindingWaitForFirstConsumer, storagev1.VolumeBindingImmediate
	del := v1.PersistentVolumeReclaimDelete
	standard := &storagev1.StorageClass{TypeMeta: tmClass, ObjectMeta: metav1.ObjectMeta{Name: "standard",
		Annotations: map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}},
		Provisioner: attachDriver, VolumeBindingMode: &wffc, ReclaimPolicy: &del}
	if s.chance(0.5) {
		zones := append([]string(nil), g.zones...)
		if len(zones) > 1 {
			zones = zones[:1+s.Intn(len(zones)-1)]
		}
		standard.AllowedTopologies = []v1.TopologySelectorTerm{{MatchLabelExpressions: []v1.TopologySelectorLabelRequirement{
			{Key: zoneLabel, Values: zones}}}}
	}
	g.c.StorageClasses = []*storagev1.StorageClass{standard,
		{TypeMeta: tmClass, ObjectMeta: metav1.ObjectMeta{Name: "immediate"}, Provisioner: attachDriver, VolumeBindingMode: &immediate, ReclaimPolicy: &del},
		{TypeMeta: tmClass, ObjectMeta: metav1.ObjectMeta{Name: "local"}, Provisioner: noProvisioner, VolumeBindingMode: &wffc, ReclaimPolicy: &del},
		{TypeMeta: tmClass, ObjectMeta: metav1.ObjectMeta{Name: "capacity"}, Provisioner: capacityDriver, VolumeBindingMode: &wffc, ReclaimPolicy: &del},
	}
	for i, n := range g.c.Nodes {
		if !s.chance(0.85) {
			continue
		}
		csiNode := &storagev1.CSINode{TypeMeta: metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "CSINode"},
			ObjectMeta: metav1.ObjectMeta{Name: n.Name, OwnerReferences: []metav1.OwnerReference{
				{APIVersion: "v1", Kind: "Node", Name: n.Name, UID: n.UID}}}}
		d := storagev1.CSINodeDriver{Name: attachDriver, NodeID: n.Name, TopologyKeys: []string{zoneLabel}}
		csiNode.Spec.Drivers = append(csiNode.Spec.Drivers, d)
		if s.chance(0.6) {
			vs.limited[i] = &csiNode.Spec.Drivers[0]
		}
		if s.chance(0.5) {
			csiNode.Spec.Drivers = append(csiNode.Spec.Drivers, storagev1.CSINodeDriver{Name: capacityDriver, NodeID: n.Name,
				TopologyKeys: []string{zoneLabel}})
			if vs.limited[i] != nil {
				vs.limited[i] = &csiNode.Spec.Drivers[0] // re-point after the append
			}
		}
		g.c.CSINodes = append(g.c.CSINodes, csiNode)
	}
	for _, z := range g.zones {
		if !s.chance(0.8) {
			continue
		}
		capacity := binary(s.between(5, 200) * gi)
		c := &storagev1.CSIStorageCapacity{TypeMeta: metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "CSIStorageCapacity"},
			ObjectMeta:       metav1.ObjectMeta{Name: "capacity-" + z, Namespace: "kube-system"},
			NodeTopology:     &metav1.LabelSelector{MatchLabels: map[string]string{zoneLabel: z}},
			StorageClassName: "capacity", Capacity: &capacity}
		if s.chance(0.4) {
			m := binary(s.between(1, 100) * gi)
			c.MaximumVolumeSize = &m
		}
		g.c.CSIStorageCapacities = append(g.c.CSIStorageCapacities, c)
	}
	for i, n := range g.c.Nodes {
		if !s.chance(0.3) {
			continue
		}
		for k := int64(0); k < s.between(1, 2); k++ {
			pv := g.localPV(n.Name, s.between(10, 200))
			vs.localFree[i] = append(vs.localFree[i], pv)
			g.c.PVs = append(g.c.PVs, pv)
		}
	}
	vs.attachments = s.chance(0.5)
}

// localPV is an Available local PV of the local class pinned to the node.
func (g *generator) localPV(node string, gib int64) *v1.PersistentVolume {
	vs := g.vols()
	vs.n++
	fs := v1.PersistentVolumeFilesystem
	return &v1.PersistentVolume{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolume"},
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("local-pv-%s-%d", node, vs.n), UID: types.UID(fmt.Sprintf("uid-pv-local-%d", vs.n))},
		Spec: v1.PersistentVolumeSpec{
			Capacity:                      storageQuantity(gib),
			AccessModes:                   []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: v1.PersistentVolumeReclaimDelete,
			StorageClassName:              "local",
			VolumeMode:                    &fs,
			PersistentVolumeSource:        v1.PersistentVolumeSource{Local: &v1.LocalVolumeSource{Path: "/mnt/disks/ssd" + fmt.Sprint(vs.n)}},
			NodeAffinity: &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
				MatchExpressions: []v1.NodeSelectorRequirement{{Key: hostLabel, Operator: v1.NodeSelectorOpIn, Values: []string{node}}}}}}},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeAvailable},
	}
}

// csiPV is a PV of the attach driver, pinned to the zone when zone is set.
func (g *generator) csiPV(class, zone string, gib int64, mode v1.PersistentVolumeAccessMode) *v1.PersistentVolume {
	vs := g.vols()
	vs.n++
	fs := v1.PersistentVolumeFilesystem
	pv := &v1.PersistentVolume{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolume"},
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pvc-%08d", vs.n), UID: types.UID(fmt.Sprintf("uid-pv-%d", vs.n))},
		Spec: v1.PersistentVolumeSpec{
			Capacity:                      storageQuantity(gib),
			AccessModes:                   []v1.PersistentVolumeAccessMode{mode},
			PersistentVolumeReclaimPolicy: v1.PersistentVolumeReclaimDelete,
			StorageClassName:              class,
			VolumeMode:                    &fs,
			PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{
				Driver: attachDriver, VolumeHandle: fmt.Sprintf("vol-%08d", vs.n), FSType: "ext4"}},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeAvailable},
	}
	if zone != "" {
		pv.Labels = map[string]string{zoneLabel: zone}
		pv.Spec.NodeAffinity = &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchExpressions: []v1.NodeSelectorRequirement{{Key: zoneLabel, Operator: v1.NodeSelectorOpIn, Values: []string{zone}}}}}}}
	}
	return pv
}

// claim is a PVC of the class asking gib; bound to pv when pv is set (both sides updated).
func (g *generator) claim(ns, name, class string, gib int64, mode v1.PersistentVolumeAccessMode, pv *v1.PersistentVolume) *v1.PersistentVolumeClaim {
	fs := v1.PersistentVolumeFilesystem
	pvc := &v1.PersistentVolumeClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("uid-pvc-" + ns + "-" + name)},
		Spec: v1.PersistentVolumeClaimSpec{
			AccessModes:      []v1.PersistentVolumeAccessMode{mode},
			Resources:        v1.VolumeResourceRequirements{Requests: storageQuantity(gib)},
			StorageClassName: &class,
			VolumeMode:       &fs,
		},
		Status: v1.PersistentVolumeClaimStatus{Phase: v1.ClaimPending},
	}
	if pv != nil {
		bind(pvc, pv)
	}
	return pvc
}

func bind(pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume) {
	pvc.Spec.VolumeName = pv.Name
	pvc.Annotations = map[string]string{bindCompleted: "yes", boundByControler: "yes"}
	pvc.Status = v1.PersistentVolumeClaimStatus{Phase: v1.ClaimBound, AccessModes: pv.Spec.AccessModes,
		Capacity: pv.Spec.Capacity.DeepCopy()}
	pv.Spec.ClaimRef = &v1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: pvc.Namespace,
		Name: pvc.Name, UID: pvc.UID}
	pv.Status.Phase = v1.VolumeBound
}

func claimVolume(name, claim string) v1.Volume {
	return v1.Volume{Name: name, VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}
}

// ephemeralVolume is a generic ephemeral volume of the standard class.
func ephemeralVolume(name string, gib int64) v1.Volume {
	class := "standard"
	return v1.Volume{Name: name, VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{
		VolumeClaimTemplate: &v1.PersistentVolumeClaimTemplate{Spec: v1.PersistentVolumeClaimSpec{
			AccessModes:      []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			StorageClassName: &class,
			Resources:        v1.VolumeResourceRequirements{Requests: storageQuantity(gib)},
		}}}}}
}

// ephemeralClaim is the PVC the ephemeral volume controller created for pod p's volume.
func (g *generator) ephemeralClaim(p *v1.Pod, vol string, pv *v1.PersistentVolume) *v1.PersistentVolumeClaim {
	pvc := g.claim(p.Namespace, p.Name+"-"+vol, "standard", pv.Spec.Capacity.Storage().Value()/gi, v1.ReadWriteOnce, pv)
	pvc.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID,
		Controller: ptr(true), BlockOwnerDeletion: ptr(true)}}
	return pvc
}

// use records that pod p on node i uses the attach driver's volume pv.
func (g *generator) use(i int, pv *v1.PersistentVolume) {
	vs := g.vols()
	if pv.Spec.CSI == nil {
		return
	}
	if vs.handles[i] == nil {
		vs.handles[i] = map[string]bool{}
	}
	if vs.handles[i][pv.Spec.CSI.VolumeHandle] {
		return
	}
	vs.handles[i][pv.Spec.CSI.VolumeHandle] = true
	if vs.attachments {
		node := g.c.Nodes[i].Name
		g.c.VolumeAttachments = append(g.c.VolumeAttachments, &storagev1.VolumeAttachment{
			TypeMeta:   metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "VolumeAttachment"},
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("csi-%s-%s", pv.Name, node)},
			Spec: storagev1.VolumeAttachmentSpec{Attacher: attachDriver, NodeName: node,
				Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: &pv.Name}},
			Status: storagev1.VolumeAttachmentStatus{Attached: true},
		})
	}
}

func (g *generator) zoneOf(i int) string { return g.c.Nodes[i].Labels[zoneLabel] }

// boundVolumes gives about a quarter of the bound pods a volume: a zonal CSI claim (RWO, or RWOP
// now and then), a local PV on the pod's node, a generic ephemeral volume, or a namespace's
// shared RWX claim; then sets the attach limits of the limited CSINodes to the volumes their
// pods use, or one more.
func (g *generator) boundVolumes() {
	s, vs := g.own[Volumes], g.vols()
	shared := map[string]*v1.PersistentVolumeClaim{}
	for i := range g.c.Nodes {
		for _, p := range g.boundOn(i) {
			if !s.chance(0.25) {
				continue
			}
			switch x := s.Float64(); {
			case x < 0.5:
				mode := v1.ReadWriteOnce
				if s.chance(0.25) {
					mode = v1.ReadWriteOncePod
				}
				pv := g.csiPV(s.pick([]string{"standard", "immediate"}), g.zoneOf(i), s.between(1, 100), mode)
				pvc := g.claim(p.Namespace, "data-"+p.Name, pv.Spec.StorageClassName, pv.Spec.Capacity.Storage().Value()/gi, mode, pv)
				g.c.PVs, g.c.PVCs = append(g.c.PVs, pv), append(g.c.PVCs, pvc)
				p.Spec.Volumes = append(p.Spec.Volumes, claimVolume("data", pvc.Name))
				g.use(i, pv)
			case x < 0.7:
				var pv *v1.PersistentVolume
				if free := vs.localFree[i]; len(free) > 0 {
					pv, vs.localFree[i] = free[0], free[1:]
				} else {
					pv = g.localPV(g.c.Nodes[i].Name, s.between(10, 200))
					g.c.PVs = append(g.c.PVs, pv)
				}
				pvc := g.claim(p.Namespace, "local-"+p.Name, "local", pv.Spec.Capacity.Storage().Value()/gi, v1.ReadWriteOnce, pv)
				g.c.PVCs = append(g.c.PVCs, pvc)
				p.Spec.Volumes = append(p.Spec.Volumes, claimVolume("local", pvc.Name))
			case x < 0.85:
				pv := g.csiPV("standard", g.zoneOf(i), s.between(1, 20), v1.ReadWriteOnce)
				g.c.PVs = append(g.c.PVs, pv)
				g.c.PVCs = append(g.c.PVCs, g.ephemeralClaim(p, "scratch", pv))
				p.Spec.Volumes = append(p.Spec.Volumes, ephemeralVolume("scratch", pv.Spec.Capacity.Storage().Value()/gi))
				g.use(i, pv)
			default:
				pvc := shared[p.Namespace]
				if pvc == nil {
					pv := g.csiPV("immediate", "", 500, v1.ReadWriteMany)
					pvc = g.claim(p.Namespace, "shared", "immediate", 500, v1.ReadWriteMany, pv)
					shared[p.Namespace] = pvc
					g.c.PVs, g.c.PVCs = append(g.c.PVs, pv), append(g.c.PVCs, pvc)
				}
				p.Spec.Volumes = append(p.Spec.Volumes, claimVolume("shared", pvc.Name))
				for _, pv := range g.c.PVs {
					if pv.Name == pvc.Spec.VolumeName {
						g.use(i, pv)
					}
				}
			}
		}
	}
	var limited []int
	for i := range vs.limited {
		limited = append(limited, i)
	}
	sort.Ints(limited)
	for _, i := range limited {
		n := int32(len(vs.handles[i])) + int32(s.between(0, 1))
		vs.limited[i].Allocatable = &storagev1.VolumeNodeResources{Count: &n}
	}
}

// preemptorVolumes gives the preemptor, most often, one or two volumes of these kinds: a claim
// bound to a local PV of some node, a claim bound to a zonal PV, a ReadWriteOncePod claim a
// bound pod holds, an unbound WaitForFirstConsumer claim (dynamic provisioning with the standard
// class's topology, static local PVs, or the capacity class), an unbound Immediate claim, a claim
// prebound to a PV without the bind-completed annotation, a claim missing from the dump, a claim
// bound to a PV missing from the dump, a claim being deleted, a generic ephemeral volume (its
// claim created or not yet), a new attachable claim (attach limits), or a namespace's shared
// claim.
func (g *generator) preemptorVolumes() {
	s, vs := g.own[Volumes], g.vols()
	if !s.chance(0.85) {
		return
	}
	p := g.c.Preemptor
	ns := p.Namespace
	n := 1 + s.Intn(2)
	for k := 0; k < n; k++ {
		vol := fmt.Sprintf("vol-%d", k)
		name := fmt.Sprintf("%s-%s", p.Name, vol)
		add := func(pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume) {
			if pvc != nil {
				g.c.PVCs = append(g.c.PVCs, pvc)
			}
			if pv != nil {
				g.c.PVs = append(g.c.PVs, pv)
			}
			p.Spec.Volumes = append(p.Spec.Volumes, claimVolume(vol, name))
		}
		switch x := s.Float64(); {
		case x < 0.12: // bound to a local PV: pinned to its node
			i := s.Intn(len(g.c.Nodes))
			pv := g.localPV(g.c.Nodes[i].Name, s.between(10, 100))
			add(g.claim(ns, name, "local", pv.Spec.Capacity.Storage().Value()/gi, v1.ReadWriteOnce, pv), pv)
		case x < 0.24: // bound to a zonal PV
			z := g.zones[s.Intn(len(g.zones))]
			pv := g.csiPV("standard", z, s.between(1, 50), v1.ReadWriteOnce)
			add(g.claim(ns, name, "standard", pv.Spec.Capacity.Storage().Value()/gi, v1.ReadWriteOnce, pv), pv)
		case x < 0.36: // a ReadWriteOncePod claim a bound pod holds
			holder := g.rwopHolder(ns)
			if holder == "" {
				continue
			}
			p.Spec.Volumes = append(p.Spec.Volumes, claimVolume(vol, holder))
		case x < 0.5: // WaitForFirstConsumer, dynamically provisioned within the standard class's topology
			add(g.claim(ns, name, "standard", s.between(1, 50), v1.ReadWriteOnce, nil), nil)
		case x < 0.58: // WaitForFirstConsumer, a static local PV of the right size on some nodes
			add(g.claim(ns, name, "local", s.between(5, 150), v1.ReadWriteOnce, nil), nil)
		case x < 0.66: // WaitForFirstConsumer with storage capacity tracking
			add(g.claim(ns, name, "capacity", s.between(1, 150), v1.ReadWriteOnce, nil), nil)
		case x < 0.7: // Immediate and not bound yet
			add(g.claim(ns, name, "immediate", s.between(1, 50), v1.ReadWriteOnce, nil), nil)
		case x < 0.72: // prebound: volumeName set, binding not completed
			pv := g.csiPV("immediate", "", 10, v1.ReadWriteOnce)
			pvc := g.claim(ns, name, "immediate", 10, v1.ReadWriteOnce, nil)
			pvc.Spec.VolumeName = pv.Name
			add(pvc, pv)
		case x < 0.76: // the claim is not in the dump
			add(nil, nil)
		case x < 0.79: // bound to a PV that is not in the dump
			pv := g.csiPV("standard", "", 10, v1.ReadWriteOnce)
			add(g.claim(ns, name, "standard", 10, v1.ReadWriteOnce, pv), nil)
		case x < 0.81: // being deleted
			pv := g.csiPV("standard", "", 10, v1.ReadWriteOnce)
			pvc := g.claim(ns, name, "standard", 10, v1.ReadWriteOnce, pv)
			t := metaTime(7200)
			pvc.DeletionTimestamp = &t
			pvc.Finalizers = []string{"kubernetes.io/pvc-protection"}
			add(pvc, pv)
		case x < 0.88: // generic ephemeral: the claim created (bound or waiting) or not yet
			p.Spec.Volumes = append(p.Spec.Volumes, ephemeralVolume(vol, 10))
			if s.chance(0.7) {
				pv := g.csiPV("standard", g.zones[s.Intn(len(g.zones))], 10, v1.ReadWriteOnce)
				pvc := g.ephemeralClaim(p, vol, pv)
				if s.chance(0.4) { // not bound yet (WaitForFirstConsumer)
					pvc.Spec.VolumeName, pvc.Annotations = "", nil
					pvc.Status = v1.PersistentVolumeClaimStatus{Phase: v1.ClaimPending}
					pv = nil
				}
				g.c.PVCs = append(g.c.PVCs, pvc)
				if pv != nil {
					g.c.PVs = append(g.c.PVs, pv)
				}
			}
		case x < 0.97: // a new attachable volume: counts against every limited node
			pv := g.csiPV("immediate", "", 10, v1.ReadWriteOnce)
			add(g.claim(ns, name, "immediate", 10, v1.ReadWriteOnce, pv), pv)
		default: // the namespace's shared claim, when there is one
			for _, c := range g.c.PVCs {
				if c.Namespace == ns && c.Name == "shared" {
					p.Spec.Volumes = append(p.Spec.Volumes, claimVolume(vol, "shared"))
				}
			}
		}
	}
	_ = vs
}

// rwopHolder returns a ReadWriteOncePod claim of namespace ns that a bound pod uses, making one
// for a bound pod of the namespace when there is none ("" when the namespace has no bound pod).
func (g *generator) rwopHolder(ns string) string {
	for _, c := range g.c.PVCs {
		if c.Namespace == ns && len(c.Spec.AccessModes) == 1 && c.Spec.AccessModes[0] == v1.ReadWriteOncePod {
			for _, p := range g.c.Pods {
				for _, v := range p.Spec.Volumes {
					if p.Spec.NodeName != "" && v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == c.Name {
						return c.Name
					}
				}
			}
		}
	}
	s := g.own[Volumes]
	var candidates []*v1.Pod
	for _, p := range g.c.Pods {
		if p.Namespace == ns && p.Spec.NodeName != "" && p.Status.Phase == v1.PodRunning {
			candidates = append(candidates, p)
		}
	}
	if len(candidates) == 0 {
		return ""
	}
	holder := candidates[s.Intn(len(candidates))]
	i := g.nodeIndex(holder.Spec.NodeName)
	pv := g.csiPV("standard", g.zoneOf(i), 5, v1.ReadWriteOncePod)
	pvc := g.claim(ns, "rwop-"+holder.Name, "standard", 5, v1.ReadWriteOncePod, pv)
	g.c.PVs, g.c.PVCs = append(g.c.PVs, pv), append(g.c.PVCs, pvc)
	holder.Spec.Volumes = append(holder.Spec.Volumes, claimVolume("rwop", pvc.Name))
	g.use(i, pv)
	return pvc.Name
}
