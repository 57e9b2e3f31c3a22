package gen

import (
	"fmt"
	"strings"
)

// Hooks are what a model case adds to the library's evaluator beyond kube-scheduler's default
// profile: candidate extenders (upstream's scheduler extenders, callExtenders), custom score
// functions (upstream's preemption.Interface.OrderedScoreFuncs) and the thread-pool evaluator.
// The model driver reads them from the text form; kube-whatif reads the extenders and scores
// with --hooks (internal/upstream/hooks.go implements the same ones on upstream's interfaces).
// Parallelism does not change upstream's answer (the library's is the same for every
// parallelism), so the referee ignores it.
type Hooks struct {
	Extenders   []Extender
	Scores      []string // ScoreKinds, applied in order
	Parallelism int      // workers of the dry run, the calling thread included (1: inline)
}

// Extender is one candidate extender.
type Extender struct {
	Name                            string
	Supports, Interested, Ignorable bool
	Action                          string // one of ExtenderActions
}

// ExtenderActions: what an extender's ProcessPreemption does with the candidates (nodes by
// their position in the dump's node order, so that no side depends on a map's order):
//
//	keep              returns them as they are
//	drop-odd          keeps the candidates on nodes at even positions
//	drop-all          returns none
//	fail              returns the error "extender NAME: preemption failed"
//	no-victims-first  returns them all, the one on the first node without victims
var ExtenderActions = []string{"keep", "drop-odd", "drop-all", "fail", "no-victims-first"}

// ScoreKinds: custom score functions, higher is better, the next one deciding ties:
//
//	fewest-victims       minus the number of victims
//	last-node            the node's position in the dump's node order
//	lowest-top-priority  minus the highest priority among the victims
var ScoreKinds = []string{"fewest-victims", "last-node", "lowest-top-priority"}

// drawHooks: half of the model cases get a thread pool (2 or 4 workers); a quarter get one or
// two extenders; a quarter get one to three score functions. From a stream of its own.
func (c *Case) drawHooks() {
	s := &stream{newRand(c.Seed*7933 + 41)}
	h := &Hooks{Parallelism: 1}
	if s.chance(0.5) {
		h.Parallelism = []int{2, 4}[s.Intn(2)]
	}
	if s.chance(0.25) {
		for k := 0; k < 1+s.Intn(2); k++ {
			h.Extenders = append(h.Extenders, Extender{Name: fmt.Sprintf("extender-%d", k),
				Supports: s.chance(0.9), Interested: s.chance(0.9), Ignorable: s.chance(0.4),
				Action: ExtenderActions[s.Intn(len(ExtenderActions))]})
		}
	}
	if s.chance(0.25) {
		for _, k := range s.Perm(len(ScoreKinds))[:1+s.Intn(len(ScoreKinds))] {
			h.Scores = append(h.Scores, ScoreKinds[k])
		}
	}
	c.Hooks = h
}

// RefereeHooks tells whether the hooks change upstream's answer (extenders or scores): the
// model driver is then compared with kube-whatif run with --hooks model.txt.
func (h *Hooks) RefereeHooks() bool { return h != nil && (len(h.Extenders) > 0 || len(h.Scores) > 0) }

func bit(b bool) int {
	if b {
		return 1
	}
	return 0
}

// text is the hooks' lines of the text form (the args line carries the parallelism).
func (h *Hooks) text() string {
	var b strings.Builder
	for _, e := range h.Extenders {
		fmt.Fprintf(&b, "extender %s supports=%d interested=%d ignorable=%d action=%s\n", e.Name, bit(e.Supports),
			bit(e.Interested), bit(e.Ignorable), e.Action)
	}
	for _, s := range h.Scores {
		fmt.Fprintf(&b, "score %s\n", s)
	}
	return b.String()
}

// ParseHooks reads the extender and score lines of a text form (every other line is ignored).
func ParseHooks(text string) (*Hooks, error) {
	h := &Hooks{Parallelism: 1}
	for n, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "extender":
			if len(f) < 2 {
				return nil, fmt.Errorf("line %d: extender without a name", n+1)
			}
			e := Extender{Name: f[1]}
			for _, kv := range f[2:] {
				k, v, _ := strings.Cut(kv, "=")
				switch k {
				case "supports":
					e.Supports = v == "1"
				case "interested":
					e.Interested = v == "1"
				case "ignorable":
					e.Ignorable = v == "1"
				case "action":
					e.Action = v
				default:
					return nil, fmt.Errorf("line %d: unknown extender field %q", n+1, k)
				}
			}
			if !known(ExtenderActions, e.Action) {
				return nil, fmt.Errorf("line %d: unknown extender action %q", n+1, e.Action)
			}
			h.Extenders = append(h.Extenders, e)
		case "score":
			if len(f) != 2 || !known(ScoreKinds, f[1]) {
				return nil, fmt.Errorf("line %d: want score %s", n+1, strings.Join(ScoreKinds, "|"))
			}
			h.Scores = append(h.Scores, f[1])
		}
	}
	return h, nil
}

func known(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
