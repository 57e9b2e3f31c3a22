package dump

import (
	"context"
	"fmt"

	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/scheduling"
	"k8s.io/kubernetes/plugin/pkg/admission/priority"
)

// AdmitGroups resolves the priorities of the PodGroups and CompositePodGroups that do not carry
// spec.priority yet (manifests, not objects the API server stored) with the API server's own
// Priority admission plugin, as it does when such an object is created: spec.priority and
// spec.priorityClassName from the PriorityClass named, else from the global default class (the
// lowest of several), else 0; spec.preemptionPolicy from that class when the
// PodGroupPreemptionPolicy feature is on. The plugin does this only while GenericWorkload (for
// CompositePodGroups, CompositePodGroup) is on, as the API server would. A group that carries
// spec.priority was admitted already and keeps it. A class that does not exist is bad input.
func (d *Dump) AdmitGroups() error {
	plugin := priority.NewPlugin()
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	classes := factory.Scheduling().V1().PriorityClasses()
	for _, c := range d.Classes {
		if err := classes.Informer().GetIndexer().Add(c); err != nil {
			return err
		}
	}
	plugin.SetExternalKubeInformerFactory(factory)

	admit := func(versioned runtime.Object, internal runtime.Object, gvk schema.GroupVersionKind, resource string,
		ns, name string) error {
		if err := legacyscheme.Scheme.Convert(versioned, internal, nil); err != nil {
			return err
		}
		attrs := admission.NewAttributesRecord(internal, nil, gvk, ns, name,
			gvk.GroupVersion().WithResource(resource), "", admission.Create, &metav1.CreateOptions{}, false, nil)
		if err := plugin.Admit(context.Background(), attrs, nil); err != nil {
			return fmt.Errorf("%s %s/%s: spec.priorityClassName: %v", gvk.Kind, ns, name, err)
		}
		return legacyscheme.Scheme.Convert(internal, versioned, nil)
	}
	for _, pg := range d.PodGroups {
		if pg.Spec.Priority != nil {
			continue
		}
		gvk := schedulingv1beta1.SchemeGroupVersion.WithKind("PodGroup")
		if err := admit(pg, &scheduling.PodGroup{}, gvk, "podgroups", pg.Namespace, pg.Name); err != nil {
			return err
		}
	}
	for _, cpg := range d.CompositePodGroups {
		if cpg.Spec.Priority != nil {
			continue
		}
		gvk := schedulingv1alpha3.SchemeGroupVersion.WithKind("CompositePodGroup")
		if err := admit(cpg, &scheduling.CompositePodGroup{}, gvk, "compositepodgroups", cpg.Namespace, cpg.Name); err != nil {
			return err
		}
	}
	return nil
}
