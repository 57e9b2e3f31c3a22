// kube-whatif answers preempt-whatif's question with kube-scheduler's own code (k8s.io/kubernetes
// v1.37): which node would the scheduler nominate for a pending pod, whom would it evict, and why.
// Same flags and JSON contract as preempt-whatif (examples/whatif/README.md):
//
//	kube-whatif --cluster FILE... (--pod FILE | --pod-name NS/NAME) [--output json]
//	            [--offset N] [--min-candidate-nodes-percentage P] [--min-candidate-nodes-absolute A]
//	            [--feature-gates Gate=bool,...]
//
// Without --cluster it decides the bundled example (examples/data, found from the working
// directory upwards). The JSON adds two fields preempt-whatif does not have: mayNominate (every
// node upstream may nominate: its last tie-break is random) and calls (the actuation's API calls).
// Exit status 0 for every decision, 2 for bad input, 1 for an internal failure.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"

	"github.com/preempt/preempt/tests/conformance/internal/dump"
	"github.com/preempt/preempt/tests/conformance/internal/upstream"
)

const exitBadInput = 2

type badInput struct{ error }

type options struct {
	clusters     []string
	podFile      string
	podName      string
	output       string
	offset       int64
	percentage   *int32
	absolute     *int32
	featureGates string
}

func parseArgs(args []string) (options, error) {
	o := options{output: "text"}
	value := func(i *int, name string) (string, error) {
		if *i+1 >= len(args) {
			return "", fmt.Errorf("%s: missing value", name)
		}
		*i++
		return args[*i], nil
	}
	int32Flag := func(s, name string) (*int32, error) {
		v, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%s: invalid integer %q", name, s)
		}
		x := int32(v)
		return &x, nil
	}
	for i := 0; i < len(args); i++ {
		name, inline, hasInline := strings.Cut(args[i], "=")
		get := func() (string, error) {
			if hasInline {
				return inline, nil
			}
			return value(&i, name)
		}
		var err error
		var s string
		switch name {
		case "--cluster":
			if hasInline {
				o.clusters = append(o.clusters, inline)
				continue
			}
			n := 0
			for i+1 < len(args) && (args[i+1] == "-" || !strings.HasPrefix(args[i+1], "-")) {
				i++
				n++
				o.clusters = append(o.clusters, args[i])
			}
			if n == 0 {
				return o, errors.New("--cluster: missing value")
			}
		case "--pod":
			o.podFile, err = get()
		case "--pod-name":
			o.podName, err = get()
		case "--output", "-o":
			if s, err = get(); err == nil {
				if s != "text" && s != "json" {
					err = fmt.Errorf("--output: %s not in {text,json}", s)
				}
				o.output = s
			}
		case "--offset":
			if s, err = get(); err == nil {
				o.offset, err = strconv.ParseInt(s, 10, 64)
				if err != nil || o.offset < 0 {
					err = fmt.Errorf("--offset: must be a non-negative integer, got %q", s)
				}
			}
		case "--min-candidate-nodes-percentage":
			if s, err = get(); err == nil {
				o.percentage, err = int32Flag(s, name)
			}
		case "--min-candidate-nodes-absolute":
			if s, err = get(); err == nil {
				o.absolute, err = int32Flag(s, name)
			}
		case "--feature-gates":
			o.featureGates, err = get()
		case "--timings":
		default:
			err = fmt.Errorf("unknown option %s", args[i])
		}
		if err != nil {
			return o, err
		}
	}
	if o.podFile != "" && o.podName != "" {
		return o, errors.New("--pod excludes --pod-name")
	}
	return o, nil
}

// bundledData finds examples/data from the working directory upwards.
func bundledData() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		candidate := filepath.Join(dir, "examples", "data")
		if _, err := os.Stat(filepath.Join(candidate, "cluster.json")); err == nil {
			return candidate, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("the bundled example (examples/data) was not found above the working directory")
		}
		dir = parent
	}
}

func run(args []string, stdout io.Writer) error {
	o, err := parseArgs(args)
	if err != nil {
		return badInput{fmt.Errorf("%v (see the header of cmd/kube-whatif/main.go)", err)}
	}
	if o.featureGates != "" {
		if err := utilfeature.DefaultMutableFeatureGate.Set(o.featureGates); err != nil {
			return badInput{fmt.Errorf("--feature-gates: %v", err)}
		}
	}
	if len(o.clusters) == 0 && o.podFile == "" && o.podName == "" {
		dir, err := bundledData()
		if err != nil {
			return badInput{err}
		}
		o.clusters = []string{filepath.Join(dir, "cluster.json")}
		o.podFile = filepath.Join(dir, "pod.json")
	}
	if len(o.clusters) == 0 {
		return badInput{errors.New("--cluster is required")}
	}
	if o.podFile == "" && o.podName == "" {
		return badInput{errors.New("one of --pod or --pod-name is required")}
	}

	d := &dump.Dump{}
	for _, f := range o.clusters {
		name, data, err := dump.ReadFile(f)
		if err != nil {
			return badInput{err}
		}
		if err := d.AddFile(name, data); err != nil {
			return badInput{err}
		}
	}
	if err := d.Validate(); err != nil {
		return badInput{err}
	}
	d.SystemClasses()

	var preemptor *v1.Pod
	if o.podFile != "" {
		name, data, err := dump.ReadFile(o.podFile)
		if err != nil {
			return badInput{err}
		}
		if preemptor, err = dump.ReadPod(name, data); err != nil {
			return badInput{err}
		}
		if err := d.Admit(preemptor, name+": Pod "+dump.Key(preemptor)); err != nil {
			return badInput{err}
		}
	} else if preemptor, err = d.FindPending(o.podName); err != nil {
		return badInput{err}
	}

	// The pods the scheduler sees: the non-terminal ones, admitted; the preemptor's copy in the
	// dump is replaced by the pod to place.
	var pods []*v1.Pod
	inDump := false
	for _, p := range d.Pods {
		if dump.IsTerminal(p) {
			continue
		}
		if dump.Key(p) == dump.Key(preemptor) {
			if p.Spec.NodeName == "" {
				inDump = true
				if o.podFile != "" {
					preemptor.UID = p.UID
					p = preemptor
				}
				if err := d.Admit(p, "Pod "+dump.Key(p)); err != nil {
					return badInput{err}
				}
				pods = append(pods, p)
				continue
			}
		}
		if err := d.Admit(p, "Pod "+dump.Key(p)); err != nil {
			return badInput{err}
		}
		pods = append(pods, p)
	}
	if !inDump {
		pods = append(pods, preemptor)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx = klog.NewContext(ctx, klog.Background())
	s, err := upstream.New(ctx, d, pods, upstream.PreemptionArgs{
		MinCandidateNodesPercentage: o.percentage, MinCandidateNodesAbsolute: o.absolute}, o.offset)
	if err != nil {
		if strings.Contains(err.Error(), "minCandidateNodes") {
			return badInput{err}
		}
		return err
	}
	report, err := s.Decide(ctx, preemptor)
	if err != nil {
		return err
	}
	if o.output == "json" {
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
		var bad badInput
		if errors.As(err, &bad) {
			os.Exit(exitBadInput)
		}
		os.Exit(1)
	}
}
