package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/preempt/preempt/tests/conformance/internal/compare"
	"github.com/preempt/preempt/tests/conformance/internal/upstream"
	"github.com/preempt/preempt/tests/conformance/internal/whatif"
)

// deciders are the programs compared with upstream.
type deciders struct {
	preempt string // preempt-whatif
	model   string // the model driver ("" : not run)
	known   compare.Known
	// refereeArgs are added to upstream's command line (exploration modes).
	refereeArgs []string
}

// outcome is one case decided by upstream and by preempt's deciders.
type outcome struct {
	up         *upstream.Report
	pr         *upstream.Report
	diffs      []compare.Diff
	modelDiffs []compare.Diff
	modelRun   bool
}

func (o outcome) agree() bool {
	return compare.Unknown(o.diffs) == 0 && compare.Unknown(o.modelDiffs) == 0
}

func (o outcome) signature() string {
	s := compare.Signature(o.diffs)
	if m := compare.Signature(o.modelDiffs); m != "" {
		s += "|model:" + m
	}
	return s
}

// caseArgs reads the args file of a case directory: the flags beyond --cluster, with pod.json
// relative to the directory.
func caseArgs(dir string) ([]string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "args"))
	if err != nil {
		return nil, err
	}
	args := []string{"--cluster", filepath.Join(dir, "cluster.json")}
	fields := strings.Fields(string(data))
	for i := 0; i < len(fields); i++ {
		if fields[i] == "--pod" && i+1 < len(fields) {
			args = append(args, "--pod", filepath.Join(dir, fields[i+1]))
			i++
			continue
		}
		args = append(args, fields[i])
	}
	return args, nil
}

// upstreamDecide runs kube-whatif's decision in this process.
func upstreamDecide(args []string) (*upstream.Report, error) {
	o, err := whatif.ParseArgs(args)
	if err != nil {
		return nil, err
	}
	return whatif.Decide(o)
}

// runJSON runs a decider and reads its JSON answer.
func runJSON(bin string, args []string) (*upstream.Report, error) {
	cmd := exec.Command(bin, append(append([]string(nil), args...), "--output", "json")...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return nil, fmt.Errorf("%s exited with status %d: %s", filepath.Base(bin), exit.ExitCode(), strings.TrimSpace(stderr.String()))
		}
		return nil, err
	}
	var r upstream.Report
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("%s: unreadable JSON: %v", filepath.Base(bin), err)
	}
	return &r, nil
}

// failure turns a decider that gave no answer into a disagreement.
func failure(err error) []compare.Diff {
	return []compare.Diff{{Field: "exit", Upstream: "a decision", Preempt: fmt.Sprintf("%q", err.Error())}}
}

// decide decides the case in dir with every decider. up may be given (already decided).
func (d deciders) decide(dir string, args []string, up *upstream.Report, model bool) (outcome, error) {
	var o outcome
	var err error
	if up == nil {
		if up, err = upstreamDecide(append(append([]string(nil), args...), d.refereeArgs...)); err != nil {
			return o, fmt.Errorf("%s: upstream: %v", dir, err)
		}
	}
	o.up = up
	if pr, err := runJSON(d.preempt, args); err != nil {
		o.diffs = failure(err)
	} else {
		o.pr = pr
		o.diffs = compare.Compare(up, pr)
		d.known.Classify(o.diffs, up, pr)
	}
	if model && d.model != "" {
		o.modelRun = true
		if extra, err := os.ReadFile(filepath.Join(dir, "model-args")); err == nil {
			// The model case's hooks (extenders, scores) change upstream's answer: decide it again
			// with them (--hooks model.txt), for the model driver alone.
			margs := append([]string(nil), args...)
			for _, f := range strings.Fields(string(extra)) {
				if f == "model.txt" {
					f = filepath.Join(dir, f)
				}
				margs = append(margs, f)
			}
			if up, err = upstreamDecide(margs); err != nil {
				return o, fmt.Errorf("%s: upstream with the model's hooks: %v", dir, err)
			}
		} else if len(d.refereeArgs) > 0 {
			// The exploration modes emulate preempt-whatif's readings; the model driver reads
			// what kube-scheduler sees and feeds the evaluator as upstream does.
			if up, err = upstreamDecide(args); err != nil {
				return o, fmt.Errorf("%s: upstream: %v", dir, err)
			}
		}
		if m, err := runJSON(d.model, []string{filepath.Join(dir, "model.txt")}); err != nil {
			o.modelDiffs = failure(err)
		} else {
			o.modelDiffs = compare.Compare(up, modelView(up, m))
			d.known.Classify(o.modelDiffs, up, m)
		}
	}
	return o, nil
}

// modelView is what the model driver can say: it has no node reasons beyond resources.
func modelView(up, m *upstream.Report) *upstream.Report { return m }
