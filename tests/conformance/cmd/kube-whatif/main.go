// kube-whatif answers preempt-whatif's question with kube-scheduler's own code (k8s.io/kubernetes
// v1.37): which node would the scheduler nominate for a pending pod, whom would it evict, and why.
// Same flags and JSON contract as preempt-whatif (examples/whatif/README.md):
//
//	kube-whatif --cluster FILE... (--pod FILE | --pod-name NS/NAME) [--output json]
//	            [--offset N] [--min-candidate-nodes-percentage P] [--min-candidate-nodes-absolute A]
//	            [--feature-gates Gate=bool,...] [--scheduler-name NAME] [--parallelism N]
//	            [--hooks MODEL_TXT]
//	kube-whatif --cluster FILE... --pod-group NS/NAME --feature-gates GenericWorkload=true [--output json]
//
// --pod-group decides for a pending PodGroup with DefaultPreemption's PodGroupPostFilter, the
// members placed as preempt-whatif places them (first fit; upstream re-runs its scoring pod-group
// algorithm there): the JSON of preempt-whatif --pod-group, plus units and calls.
// --parallelism sets the framework's (1 by default; upstream's is 16). --stamp-start-times gives
// every pod without status.startTime one decision time (the referee's reading before it followed
// v1.37), for classifying disagreements.
//
// Without --cluster it decides the bundled example (examples/data, found from the working
// directory upwards). --hooks runs the extenders and score functions of a model text form
// (internal/gen/hooks.go) as upstream's own extenders and OrderedScoreFuncs. The JSON adds two
// fields preempt-whatif does not have: mayNominate (every
// node upstream may nominate: its last tie-break is random) and calls (the actuation's API calls).
// Exit status 0 for every decision, 2 for bad input, 1 for an internal failure.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"k8s.io/klog/v2"

	"github.com/preempt/preempt/tests/conformance/internal/upstream"
	"github.com/preempt/preempt/tests/conformance/internal/whatif"
)

func run(args []string, stdout io.Writer) error {
	o, err := whatif.ParseArgs(args)
	if err != nil {
		return whatif.BadInput{Err: fmt.Errorf("%v (see the header of cmd/kube-whatif/main.go)", err)}
	}
	if o.PodGroup != "" {
		r, err := whatif.DecideGroup(o)
		if err != nil {
			return err
		}
		if o.Output == "json" {
			out, err := json.MarshalIndent(r, "", "  ")
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(stdout, "%s\n", out)
			return err
		}
		return writeGroupText(stdout, r)
	}
	report, err := whatif.Decide(o)
	if err != nil {
		return err
	}
	if o.Output == "json" {
		out, err := json.MarshalIndent(report, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", out)
		return err
	}
	return writeText(stdout, report)
}

func writeText(w io.Writer, r *upstream.Report) error {
	fmt.Fprintf(w, "Pod %s: %s", r.Preemptor, r.Result)
	if r.NominatedNodeName != "" {
		fmt.Fprintf(w, " on node %s, evicting %s (%d PDB violation(s))", r.NominatedNodeName,
			strings.Join(r.Victims, ", "), r.PDBViolations)
	}
	fmt.Fprintln(w)
	if r.Message != "" {
		fmt.Fprintf(w, "  %s\n", r.Message)
	}
	if len(r.MayNominate) > 1 {
		fmt.Fprintf(w, "  upstream may nominate any of (full tie): %s\n", strings.Join(r.MayNominate, ", "))
	}
	for _, n := range r.Nodes {
		detail := n.Reason
		if len(n.Victims) > 0 {
			detail = strings.TrimSpace(strings.Join(n.Victims, ", ") + " " + detail)
		}
		mark := " "
		if n.Evaluated {
			mark = "*"
		}
		fmt.Fprintf(w, "  %s %-20s %-30s %s\n", mark, n.Name, n.Status, detail)
	}
	return nil
}

func writeGroupText(w io.Writer, r *upstream.GroupReport) error {
	fmt.Fprintf(w, "PodGroup %s: %s (priority %d, %d scheduled member(s))\n", r.PodGroup, r.Result, r.Priority, r.ScheduledMembers)
	if r.Message != "" {
		fmt.Fprintf(w, "  %s\n", r.Message)
	}
	for _, m := range r.Members {
		fmt.Fprintf(w, "  member %-30s %s\n", m.Name, m.NominatedNodeName)
	}
	if len(r.Victims) > 0 {
		fmt.Fprintf(w, "  evicting %s (%d PDB violation(s), %d pod group disruption(s))\n", strings.Join(r.Victims, ", "),
			r.PDBViolations, r.PodGroupDisruptions)
	}
	for _, x := range r.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", x)
	}
	fmt.Fprintf(w, "  placement: %s\n", r.Placement)
	return nil
}

func main() {
	// klog: errors only, on standard error.
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("v", "0")
	_ = fs.Set("stderrthreshold", "FATAL")
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	klog.SetOutput(io.Discard)
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "kube-whatif: %v\n", err)
		var bad whatif.BadInput
		if errors.As(err, &bad) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}
