package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/preempt/preempt/tests/conformance/internal/upstream"
)

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// keepFailure stores a disagreeing cluster with both answers and the disagreements.
func keepFailure(dir string, r result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(r.dir, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			return err
		}
	}
	if r.out.up != nil && r.groupUp == nil {
		if err := writeJSON(filepath.Join(dir, "upstream.json"), r.out.up); err != nil {
			return err
		}
	}
	if r.out.pr != nil && r.groupPr == nil {
		if err := writeJSON(filepath.Join(dir, "preempt.json"), r.out.pr); err != nil {
			return err
		}
	}
	if r.groupUp != nil {
		if err := writeJSON(filepath.Join(dir, "upstream.json"), r.groupUp); err != nil {
			return err
		}
	}
	if r.groupPr != nil {
		if err := writeJSON(filepath.Join(dir, "preempt.json"), r.groupPr); err != nil {
			return err
		}
	}
	var lines []string
	for _, d := range r.out.diffs {
		lines = append(lines, d.String())
	}
	for _, d := range r.out.modelDiffs {
		lines = append(lines, "model: "+d.String())
	}
	return os.WriteFile(filepath.Join(dir, "diffs.txt"), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// The fields of upstream's answer a kept case pins (calls and the tie analysis included); the
// pods of a victim unit, which upstream lists in Go map order, as a set.
func sameAnswer(a, b *upstream.Report) bool {
	if answerKey(a) != answerKey(b) || !reflect.DeepEqual(a.Clears, b.Clears) || !reflect.DeepEqual(a.Units, b.Units) {
		return false
	}
	if len(a.Units) == 0 {
		return reflect.DeepEqual(a.Calls, b.Calls)
	}
	x, y := append([]string(nil), a.Calls...), append([]string(nil), b.Calls...)
	sort.Strings(x)
	sort.Strings(y)
	return reflect.DeepEqual(x, y)
}

// refereeArgs are a kept case's arguments for upstream alone (its optional referee-args file,
// e.g. `--feature-gates GenericWorkload=true` for a case with pod groups). Feature gates are
// process-wide, so a case without the file states the default explicitly.
func refereeArgs(dir string) []string {
	data, err := os.ReadFile(filepath.Join(dir, "referee-args"))
	if err != nil {
		return []string{"--feature-gates", "GenericWorkload=false"}
	}
	return strings.Fields(string(data))
}

// groupCaseRuns is how many times upstream may decide a kept pending-group case before it is
// said to no longer give expected.json (its pod-group path may be random: decideGroupCase).
const groupCaseRuns = 8

// checkGroupCase checks a kept pending-group case (args with --pod-group; expected.json is
// upstream's group answer): whether upstream still gives expected.json, and preempt's outcome.
func checkGroupCase(d deciders, dir string, args []string, expectedJSON []byte) (bool, outcome, error) {
	var expected upstream.GroupReport
	if err := json.Unmarshal(expectedJSON, &expected); err != nil {
		return false, outcome{}, fmt.Errorf("%s/expected.json: %v", dir, err)
	}
	d.refereeArgs = refereeArgs(dir)
	refArgs := append(append([]string(nil), args...), d.refereeArgs...)
	still := false
	for run := 0; run < groupCaseRuns && !still; run++ {
		up, err := upstreamGroup(refArgs)
		if err != nil {
			return false, outcome{}, fmt.Errorf("%s: upstream: %v", dir, err)
		}
		diffs, _ := compareGroups(up, &expected)
		still = len(diffs) == 0
	}
	if !still {
		return false, outcome{}, nil
	}
	out, _, _, err := d.decideGroupCase(dir, args)
	return true, out, err
}

// casesCmd checks the kept scenarios: each DIR/<case>/ holds cluster.json, pod.json, args and
// expected.json, upstream's answer. Upstream must still give it (the referee did not move), and
// preempt's deciders are compared with it.
func casesCmd(args []string) error {
	fs := flag.NewFlagSet("cases", flag.ContinueOnError)
	var c commonFlags
	c.register(fs)
	verbose := fs.Bool("v", false, "print every disagreement")
	if err := fs.Parse(args); err != nil {
		return err
	}
	d, err := c.deciders()
	if err != nil {
		return err
	}
	var dirs []string
	for _, root := range fs.Args() {
		entries, err := os.ReadDir(root)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.IsDir() {
				dirs = append(dirs, filepath.Join(root, e.Name()))
			}
		}
	}
	sort.Strings(dirs)
	passed, failed := 0, 0
	for _, dir := range dirs {
		name := filepath.Base(dir)
		args, err := caseArgs(dir)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
		if err != nil {
			return err
		}
		if slices.Contains(args, "--pod-group") {
			ok, out, err := checkGroupCase(d, dir, args, data)
			if err != nil {
				return err
			}
			switch {
			case !ok:
				fmt.Printf("case %s: FAILED: upstream no longer answers expected.json\n", name)
				failed++
			case out.agree():
				fmt.Printf("case %s: ok\n", name)
				passed++
			default:
				fmt.Printf("case %s: FAILED (%s)\n", name, out.signature())
				if *verbose {
					for _, df := range out.diffs {
						fmt.Printf("  %s\n", df)
					}
				}
				failed++
			}
			continue
		}
		var expected upstream.Report
		if err := json.Unmarshal(data, &expected); err != nil {
			return fmt.Errorf("%s/expected.json: %v", dir, err)
		}
		up, err := upstreamDecide(append(append([]string(nil), args...), refereeArgs(dir)...))
		if err != nil {
			return fmt.Errorf("%s: upstream: %v", dir, err)
		}
		if !sameAnswer(up, &expected) {
			fmt.Printf("case %s: FAILED: upstream no longer answers expected.json\n", name)
			failed++
			continue
		}
		_, statErr := os.Stat(filepath.Join(dir, "model.txt"))
		out, err := d.decide(dir, args, up, statErr == nil)
		if err != nil {
			return err
		}
		if out.agree() {
			fmt.Printf("case %s: ok\n", name)
			passed++
			continue
		}
		fmt.Printf("case %s: FAILED (%s)\n", name, out.signature())
		if *verbose {
			for _, df := range out.diffs {
				fmt.Printf("  %s\n", df)
			}
			for _, df := range out.modelDiffs {
				fmt.Printf("  model: %s\n", df)
			}
		}
		failed++
	}
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	return nil
}
