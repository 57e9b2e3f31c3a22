package upstream

import (
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/preempt/preempt/tests/conformance/internal/gen"
)

// The hooks of a model case (gen.Hooks) on upstream's own interfaces: each extender a
// fwk.Extender the framework's callExtenders runs (preemption only: it neither filters,
// prioritizes nor binds), the score functions what preemption.Interface.OrderedScoreFuncs returns.
// Nodes are named by their position in the dump's node order, as the model driver names them.

type hookExtender struct {
	gen.Extender
	order map[string]int
}

var _ fwk.Extender = hookExtender{}

func (e hookExtender) Name() string { return e.Extender.Name }
func (e hookExtender) Filter(pod *v1.Pod, nodes []fwk.NodeInfo) ([]fwk.NodeInfo, extenderv1.FailedNodesMap, extenderv1.FailedNodesMap, error) {
	return nodes, nil, nil, nil
}
func (e hookExtender) Prioritize(pod *v1.Pod, nodes []fwk.NodeInfo) (*extenderv1.HostPriorityList, int64, error) {
	return &extenderv1.HostPriorityList{}, 0, nil
}
func (e hookExtender) Bind(*v1.Binding) error    { return errors.New("not a binder") }
func (e hookExtender) IsBinder() bool            { return false }
func (e hookExtender) IsInterested(*v1.Pod) bool { return e.Interested }
func (e hookExtender) IsPrioritizer() bool       { return false }
func (e hookExtender) IsFilter() bool            { return false }
func (e hookExtender) SupportsPreemption() bool  { return e.Supports }
func (e hookExtender) IsIgnorable() bool         { return e.Ignorable }
func (e hookExtender) ProcessPreemption(pod *v1.Pod, in map[string]*extenderv1.Victims,
	_ fwk.NodeInfoLister) (map[string]*extenderv1.Victims, error) {
	out := map[string]*extenderv1.Victims{}
	switch e.Action {
	case "keep":
		for n, v := range in {
			out[n] = v
		}
	case "drop-odd":
		for n, v := range in {
			if e.order[n]%2 == 0 {
				out[n] = v
			}
		}
	case "drop-all":
	case "fail":
		return nil, fmt.Errorf("extender %s: preemption failed", e.Extender.Name)
	case "no-victims-first":
		first := ""
		for n, v := range in {
			out[n] = v
			if first == "" || e.order[n] < e.order[first] {
				first = n
			}
		}
		if first != "" {
			out[first] = &extenderv1.Victims{}
		}
	default:
		return nil, fmt.Errorf("extender %s: unknown action %q", e.Extender.Name, e.Action)
	}
	return out, nil
}

// hookExtenders are the hooks' extenders over the dump's nodes.
func hookExtenders(h *gen.Hooks, nodes []string) []fwk.Extender {
	if h == nil {
		return nil
	}
	order := map[string]int{}
	for i, n := range nodes {
		order[n] = i
	}
	var out []fwk.Extender
	for _, e := range h.Extenders {
		out = append(out, hookExtender{e, order})
	}
	return out
}

// hookScores are the hooks' score functions over the victims of the candidates (nil: upstream's
// own, pickOneNodeForPreemption's).
func hookScores(h *gen.Hooks, nodes []string) func(map[string]*extenderv1.Victims) []func(string) int64 {
	if h == nil || len(h.Scores) == 0 {
		return nil
	}
	order := map[string]int{}
	for i, n := range nodes {
		order[n] = i
	}
	return func(m map[string]*extenderv1.Victims) []func(string) int64 {
		var out []func(string) int64
		for _, kind := range h.Scores {
			switch kind {
			case "fewest-victims":
				out = append(out, func(n string) int64 { return -int64(len(m[n].Pods)) })
			case "last-node":
				out = append(out, func(n string) int64 { return int64(order[n]) })
			case "lowest-top-priority":
				out = append(out, func(n string) int64 {
					top := int64(-1 << 62)
					for _, p := range m[n].Pods {
						top = max(top, int64(corev1helpers.PodPriority(p)))
					}
					return -top
				})
			}
		}
		return out
	}
}
