package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	v1 "k8s.io/api/core/v1"

	"github.com/preempt/preempt/tests/conformance/internal/gen"
	"github.com/preempt/preempt/tests/conformance/internal/upstream"
)

// minimizeCmd shrinks a disagreeing case while the disagreement keeps its signature (the same
// fields differ): it drops nodes (with their pods), then pods, then budgets, in halves, quarters,
// ... down to single objects (ddmin), until nothing more can go. The result, with upstream's
// answer as expected.json, is written to --out.
func minimizeCmd(args []string) error {
	fs := flag.NewFlagSet("minimize", flag.ContinueOnError)
	var c commonFlags
	c.register(fs)
	out := fs.String("out", "", "directory for the minimized case")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() != 1 {
		return fmt.Errorf("usage: conform minimize --preempt-whatif BIN --out DIR CASE_DIR")
	}
	d, err := c.deciders()
	if err != nil {
		return err
	}
	cs, err := gen.Load(fs.Arg(0))
	if err != nil {
		return err
	}
	if len(cs.PodGroups) > 0 {
		// As conform run decided it: the gate is process-wide.
		d.refereeArgs = append(d.refereeArgs, "--feature-gates", "GenericWorkload=true")
	}
	tmp, err := os.MkdirTemp("", "minimize-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	trial := 0
	var groupUp *upstream.GroupReport // a pending-group case's last upstream answer
	signature := func(k *gen.Case) (string, outcome, error) {
		trial++
		dir := filepath.Join(tmp, fmt.Sprint(trial))
		if err := k.Write(dir); err != nil {
			return "", outcome{}, err
		}
		model := d.model != "" && k.ResourceOnly()
		if model {
			if err := k.WriteModel(dir); err != nil {
				return "", outcome{}, err
			}
		}
		args, err := caseArgs(dir)
		if err != nil {
			return "", outcome{}, err
		}
		var o outcome
		if k.PodGroup != "" {
			var up *upstream.GroupReport
			o, up, _, err = d.decideGroupCase(dir, args)
			if err == nil && up != nil {
				groupUp = up
			}
		} else {
			o, err = d.decide(dir, args, nil, model)
		}
		os.RemoveAll(dir)
		if err != nil {
			return "", o, nil // upstream rejected the reduced input: not kept
		}
		return o.signature(), o, nil
	}
	target, _, err := signature(cs)
	if err != nil {
		return err
	}
	if target == "" {
		return fmt.Errorf("%s: the deciders agree", fs.Arg(0))
	}
	fmt.Printf("minimizing %s (signature %s): %d nodes, %d pods, %d budgets\n", fs.Arg(0), target, len(cs.Nodes), len(cs.Pods), len(cs.PDBs))

	keeps := func(k *gen.Case) bool {
		s, _, err := signature(k)
		ok := err == nil && s == target
		if ok {
			fmt.Printf("  trial %d: %d nodes, %d pods, %d budgets\n", trial, len(k.Nodes), len(k.Pods), len(k.PDBs))
		}
		return ok
	}
	// ddmin over one kind of object: n objects, drop(set) builds the case without them.
	reduce := func(n func() int, without func(drop map[int]bool) *gen.Case) {
		for chunk := max(1, n()/2); ; {
			changed := false
			for start := 0; start < n(); start += chunk {
				drop := map[int]bool{}
				for i := start; i < start+chunk && i < n(); i++ {
					drop[i] = true
				}
				size := len(cs.Nodes) + len(cs.Pods) + len(cs.PDBs)
				if k := without(drop); len(k.Nodes)+len(k.Pods)+len(k.PDBs) < size && keeps(k) {
					cs = k
					changed = true
					start -= chunk
				}
			}
			if !changed {
				if chunk == 1 {
					return
				}
				chunk = max(1, chunk/2)
			}
		}
	}
	for round := 0; round < 3; round++ {
		before := len(cs.Nodes) + len(cs.Pods) + len(cs.PDBs)
		reduce(func() int { return len(cs.Nodes) }, func(drop map[int]bool) *gen.Case {
			index := map[*v1.Node]int{}
			for i, n := range cs.Nodes {
				index[n] = i
			}
			return cs.Without(func(n *v1.Node) bool { return drop[index[n]] }, nil, nil)
		})
		reduce(func() int { return len(cs.Pods) }, func(drop map[int]bool) *gen.Case {
			index := map[*v1.Pod]int{}
			for i, p := range cs.Pods {
				index[p] = i
			}
			return cs.Without(nil, func(p *v1.Pod) bool { return drop[index[p]] }, nil)
		})
		reduce(func() int { return len(cs.PDBs) }, func(drop map[int]bool) *gen.Case {
			return cs.Without(nil, nil, func(i int) bool { return drop[i] })
		})
		if len(cs.Nodes)+len(cs.Pods)+len(cs.PDBs) == before {
			break
		}
	}
	if err := cs.Write(*out); err != nil {
		return err
	}
	if d.model != "" && cs.ResourceOnly() {
		if err := cs.WriteModel(*out); err != nil {
			return err
		}
	}
	// The kept answer is upstream's own, whatever --explore reduced the case with.
	d.refereeArgs = nil
	if len(cs.PodGroups) > 0 {
		d.refereeArgs = []string{"--feature-gates", "GenericWorkload=true"}
		if err := os.WriteFile(filepath.Join(*out, "referee-args"), []byte("--feature-gates GenericWorkload=true\n"), 0o644); err != nil {
			return err
		}
	}
	_, o, err := signature(cs)
	if err != nil {
		return err
	}
	var expected any = o.up
	if cs.PodGroup != "" {
		expected = groupUp // conform cases reads a group case's expected.json as a GroupReport
	}
	if err := writeJSON(filepath.Join(*out, "expected.json"), expected); err != nil {
		return err
	}
	if err := keepFailure(*out, result{dir: *out, out: o}); err != nil {
		return err
	}
	fmt.Printf("minimized after %d trials: %d nodes, %d pods, %d budgets -> %s\n", trial, len(cs.Nodes), len(cs.Pods), len(cs.PDBs), *out)
	return nil
}
