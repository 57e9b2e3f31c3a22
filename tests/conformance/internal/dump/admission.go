package dump

import (
	"context"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/admission"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/apis/scheduling"
	"k8s.io/kubernetes/plugin/pkg/admission/defaulttolerationseconds"
	"k8s.io/kubernetes/plugin/pkg/admission/limitranger"
	"k8s.io/kubernetes/plugin/pkg/admission/runtimeclass"
)

// SystemClasses adds the two PriorityClasses every API server creates at start-up
// (system-cluster-critical, system-node-critical) when the dump does not hold them.
func (d *Dump) SystemClasses() {
	for _, name := range []string{scheduling.SystemClusterCritical, scheduling.SystemNodeCritical} {
		found := false
		for _, c := range d.Classes {
			found = found || c.Name == name
		}
		if found {
			continue
		}
		value := int32(scheduling.SystemCriticalPriority)
		if name == scheduling.SystemNodeCritical {
			value += 1000
		}
		policy := v1.PreemptLowerPriority
		d.Classes = append(d.Classes, &schedulingv1.PriorityClass{
			ObjectMeta:       metav1.ObjectMeta{Name: name},
			Value:            value,
			PreemptionPolicy: &policy,
		})
	}
}

// Admit resolves a pod's priority and preemption policy as the Priority admission plugin does
// at creation, for a pod that does not carry them yet: spec.priority from the PriorityClass
// named, else from the global default class (the lowest of several), else 0; the preemption
// policy from the class used when the pod sets none, else PreemptLowerPriority. A pod that
// carries spec.priority was admitted already and keeps it. where names the pod in errors.
func (d *Dump) Admit(p *v1.Pod, where string) error {
	var class *schedulingv1.PriorityClass
	if name := p.Spec.PriorityClassName; name != "" {
		for _, c := range d.Classes {
			if c.Name == name {
				class = c
			}
		}
		if class == nil && p.Spec.Priority == nil {
			return fmt.Errorf("%s: spec.priorityClassName: no PriorityClass with name %q was found", where, name)
		}
	} else {
		for _, c := range d.Classes {
			if c.GlobalDefault && (class == nil || c.Value < class.Value) {
				class = c
			}
		}
	}
	if p.Spec.Priority == nil {
		var value int32
		if class != nil {
			value = class.Value
			p.Spec.PriorityClassName = class.Name
		}
		p.Spec.Priority = &value
	}
	if p.Spec.PreemptionPolicy == nil {
		policy := v1.PreemptLowerPriority
		if class != nil && class.PreemptionPolicy != nil {
			policy = *class.PreemptionPolicy
		}
		p.Spec.PreemptionPolicy = &policy
	}
	if p.UID == "" {
		p.UID = types.UID("uid-" + p.Namespace + "/" + p.Name)
	}
	return nil
}

// Validate rejects what the API server never stores: duplicate names.
func (d *Dump) Validate() error {
	nodes := map[string]bool{}
	for _, n := range d.Nodes {
		if nodes[n.Name] {
			return fmt.Errorf("Node %s: metadata.name: duplicate node name", n.Name)
		}
		nodes[n.Name] = true
	}
	pods := map[string]bool{}
	for _, p := range d.Pods {
		if pods[Key(p)] {
			return fmt.Errorf("Pod %s: metadata.name: duplicate pod", Key(p))
		}
		pods[Key(p)] = true
	}
	classes := map[string]bool{}
	for _, c := range d.Classes {
		if classes[c.Name] {
			return fmt.Errorf("PriorityClass %s: metadata.name: duplicate PriorityClass", c.Name)
		}
		classes[c.Name] = true
	}
	return nil
}

// AdmitManifest applies to a pod manifest (--pod) what the API server's default admission
// chain changes of it before kube-scheduler sees it, in the chain's order (AllOrderedPlugins):
// LimitRanger (the namespace's LimitRanges default missing requests and limits, and reject what
// breaks their min, max or maxLimitRequestRatio), Priority (Admit), DefaultTolerationSeconds (tolerations of node.kubernetes.io/not-ready and
// unreachable, NoExecute, 300 s, unless the pod tolerates them already) and RuntimeClass
// (spec.overhead from the class's overhead.podFixed, its scheduling.nodeSelector and
// tolerations merged in; a pod whose overhead differs from its class's, with an overhead and no
// class defining one, or naming a class the dump lacks, is rejected, the error naming the field).
// Upstream's own admission plugins run on the pod, converted to the internal API and back. The
// API defaults (hostPort from containerPort on hostNetwork pods, the pod-level resources'
// defaults) were applied when the manifest was decoded.
func (d *Dump) AdmitManifest(p *v1.Pod, where string) error {
	if err := d.Admit(p, where); err != nil {
		return err
	}
	var internal api.Pod
	if err := legacyscheme.Scheme.Convert(p, &internal, nil); err != nil {
		return fmt.Errorf("%s: %v", where, err)
	}
	attrs := admission.NewAttributesRecord(&internal, nil, api.Kind("Pod").WithVersion("version"), p.Namespace, p.Name,
		api.Resource("pods").WithVersion("version"), "", admission.Create, &metav1.CreateOptions{}, false, nil)
	ctx := context.Background()

	// LimitRanger (before Priority in the chain; the two touch different fields): the
	// namespace's LimitRanges default the containers' missing requests and limits (Admit), and
	// their min, max and maxLimitRequestRatio reject the pod (Validate).
	limits := make([]runtime.Object, 0, len(d.LimitRanges))
	for _, lr := range d.LimitRanges {
		limits = append(limits, lr)
	}
	limitClient := fake.NewClientset(limits...)
	limitFactory := informers.NewSharedInformerFactory(limitClient, 0)
	ranger, err := limitranger.NewLimitRanger(nil)
	if err != nil {
		return fmt.Errorf("%s: %v", where, err)
	}
	ranger.SetExternalKubeClientSet(limitClient)
	ranger.SetExternalKubeInformerFactory(limitFactory)
	limitStop := make(chan struct{})
	defer close(limitStop)
	limitFactory.Start(limitStop)
	limitFactory.WaitForCacheSync(limitStop)
	if err := ranger.Admit(ctx, attrs, nil); err != nil {
		return fmt.Errorf("%s: resources: LimitRange: %v", where, err)
	}
	if err := ranger.Validate(ctx, attrs, nil); err != nil {
		return fmt.Errorf("%s: resources: LimitRange: %v", where, err)
	}

	tolerations := defaulttolerationseconds.NewDefaultTolerationSeconds()
	tolerations.InspectFeatureGates(utilfeature.DefaultFeatureGate)
	if err := tolerations.Admit(ctx, attrs, nil); err != nil {
		return fmt.Errorf("%s: admission: %v", where, err)
	}

	objects := make([]runtime.Object, 0, len(d.RuntimeClasses))
	for _, rc := range d.RuntimeClasses {
		objects = append(objects, rc)
	}
	client := fake.NewClientset(objects...)
	factory := informers.NewSharedInformerFactory(client, 0)
	rc := runtimeclass.NewRuntimeClass()
	rc.SetExternalKubeClientSet(client)
	rc.SetExternalKubeInformerFactory(factory)
	stop := make(chan struct{})
	defer close(stop)
	factory.Start(stop)
	factory.WaitForCacheSync(stop)
	if err := rc.Admit(ctx, attrs, nil); err != nil {
		field := "spec.runtimeClassName"
		switch {
		case strings.Contains(err.Error(), "nodeSelector"):
			field = "spec.nodeSelector" // the class's scheduling.nodeSelector conflicts with the pod's
		case strings.Contains(err.Error(), "Overhead"):
			field = "spec.overhead" // setOverhead: the pod's overhead is not the class's
		}
		return fmt.Errorf("%s: %s: %v", where, field, err)
	}
	// Validation rejects an overhead that is not the named class's, and an overhead without a
	// class defining one (runtimeClassName unset, or a class without overhead).
	if err := rc.Validate(ctx, attrs, nil); err != nil {
		return fmt.Errorf("%s: spec.overhead: %v", where, err)
	}

	var admitted v1.Pod
	if err := legacyscheme.Scheme.Convert(&internal, &admitted, nil); err != nil {
		return fmt.Errorf("%s: %v", where, err)
	}
	admitted.TypeMeta = p.TypeMeta
	*p = admitted
	return nil
}
