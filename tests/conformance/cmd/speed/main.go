// speed times kube-scheduler's own preemption decision (k8s.io/kubernetes v1.37) on a cluster
// dump: the DefaultPreemption evaluator's dry run and candidate choice, as Evaluator.Preempt
// takes them before any API call. Reading the dump and building the framework happen once,
// outside the timing; so do PreFilter and Filter for the pod.
//
//	speed --write-shape SHAPE --out DIR
//	    writes a shape (internal/gen/shapes.go: NxP, infeasible-NxP, pdbs-NxP-B) as DIR/cluster.json
//	    and DIR/pod.json; deterministic
//	speed --cluster FILE [--cluster FILE...] --pod FILE [--sampling LIST] [--parallelism LIST]
//	      [--offset N] [--runs R] [--run-seconds S] [--max-seconds M] [--shortage-resolvable]
//	      [--feature-gates G=b,...]
//	    for each sampling (a minCandidateNodesPercentage, or "default": upstream's 10% / 100) and
//	    each parallelism (default 1,16): one decision to warm up, 50 ms of decisions to calibrate
//	    (unless the warm-up took that long), then R runs (default 7) of as many decisions as fit
//	    in S seconds (default 0.2; at least one), and the median of the runs' ns per decision, in
//	    wall-clock time and in the process's processor time (all its threads, the garbage
//	    collector's included).
//	    A decision slower than S gets fewer runs: as many as fit in M seconds (default 20), at
//	    least 3 (or R if smaller). Prints JSON: the dump's size, and per sampling the decision
//	    (nominated node, victims in upstream's deletion order) and the timings. The bound pods
//	    enter the scheduler cache only (upstream.Options.BoundPodsInCacheOnly).
//
// At parallelism 1 every decision must be the first one (else exit 1); the decision printed is
// that one. At a higher parallelism a sampled decision may vary: which nodes the dry run evaluates
// before it has enough candidates depends on the goroutines' timing. Exit status 2 for bad input.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/klog/v2"

	"github.com/preempt/preempt/tests/conformance/internal/dump"
	"github.com/preempt/preempt/tests/conformance/internal/gen"
	"github.com/preempt/preempt/tests/conformance/internal/upstream"
	"github.com/preempt/preempt/tests/conformance/internal/whatif"
)

type timing struct {
	Parallelism      int       `json:"parallelism"`
	NsPerDecision    float64   `json:"nsPerDecision"`
	Runs             []float64 `json:"runs"`
	CPUNsPerDecision float64   `json:"processCpuNsPerDecision"`
	CPURuns          []float64 `json:"processCpuRuns"`
	DecisionsPerRun  int       `json:"decisionsPerRun"`
}

// processCPU is the processor time of the whole process (every thread: the garbage collector's
// too) in ns.
func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(v []float64) float64 {
	sorted := append([]float64(nil), v...)
	sort.Float64s(sorted)
	return sorted[len(sorted)/2]
}

type decision struct {
	NominatedNodeName string   `json:"nominatedNodeName"`
	Victims           []string `json:"victims"`
	PDBViolations     int64    `json:"pdbViolations"`
}

type sampling struct {
	Sampling string   `json:"sampling"`
	Decision decision `json:"decision"`
	Timings  []timing `json:"timings"`
}

type output struct {
	Nodes              int        `json:"nodes"`
	Pods               int        `json:"pods"`
	PDBs               int        `json:"pdbs"`
	ShortageResolvable bool       `json:"shortageResolvable"`
	GOMAXPROCS         int        `json:"gomaxprocs"`
	Results            []sampling `json:"results"`
}

type badInput struct{ error }

func ints(s, name string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 1 {
			return nil, badInput{fmt.Errorf("%s: %q is not a positive integer", name, f)}
		}
		out = append(out, v)
	}
	return out, nil
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("speed", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	shape := fs.String("write-shape", "", "")
	out := fs.String("out", "", "")
	pod := fs.String("pod", "", "")
	samplingList := fs.String("sampling", "default", "")
	parList := fs.String("parallelism", "1,16", "")
	offset := fs.Int("offset", 0, "")
	runs := fs.Int("runs", 7, "")
	runSeconds := fs.Float64("run-seconds", 0.2, "")
	maxSeconds := fs.Float64("max-seconds", 20, "")
	resolvable := fs.Bool("shortage-resolvable", false, "")
	gates := fs.String("feature-gates", "", "")
	var clusters []string
	fs.Func("cluster", "", func(s string) error { clusters = append(clusters, s); return nil })
	if err := fs.Parse(args); err != nil {
		return badInput{err}
	}
	if fs.NArg() > 0 {
		return badInput{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	if *shape != "" {
		if *out == "" {
			return badInput{errors.New("--write-shape needs --out DIR")}
		}
		c, err := gen.Shape(*shape)
		if err != nil {
			return badInput{err}
		}
		return c.WriteCompact(*out)
	}
	if len(clusters) == 0 || *pod == "" {
		return badInput{errors.New("--cluster and --pod are required (or --write-shape)")}
	}
	pars, err := ints(*parList, "--parallelism")
	if err != nil {
		return err
	}
	if *runs < 1 || *runSeconds <= 0 || *offset < 0 {
		return badInput{errors.New("--runs, --run-seconds must be positive, --offset non-negative")}
	}
	var percentages []*int32
	for _, f := range strings.Split(*samplingList, ",") {
		if f == "default" {
			percentages = append(percentages, nil)
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v < 1 || v > 100 {
			return badInput{fmt.Errorf("--sampling: %q is neither default nor a percentage in 1..100", f)}
		}
		p := int32(v)
		percentages = append(percentages, &p)
	}

	t0 := time.Now()
	d, pods, preemptor, err := whatif.Load(whatif.Options{Clusters: clusters, PodFile: *pod, FeatureGates: *gates})
	if err != nil {
		var bad whatif.BadInput
		if errors.As(err, &bad) {
			return badInput{err}
		}
		return err
	}
	t1 := time.Now()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx = klog.NewContext(ctx, klog.Background())
	s, err := upstream.New(ctx, d, pods, upstream.Options{ShortageResolvable: *resolvable, Preemptor: dump.Key(preemptor),
		BoundPodsInCacheOnly: true})
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "speed: loaded in %.1f s, framework built in %.1f s\n", t1.Sub(t0).Seconds(), time.Since(t1).Seconds())
	res := output{Nodes: len(d.Nodes), Pods: len(d.Pods), PDBs: len(d.PDBs), ShortageResolvable: *resolvable,
		GOMAXPROCS: runtime.GOMAXPROCS(0)}
	for _, pct := range percentages {
		name := "default"
		if pct != nil {
			name = strconv.Itoa(int(*pct))
		}
		sr := sampling{Sampling: name}
		var first *decision
		for _, par := range pars {
			ev, err := s.NewEvaluation(ctx, preemptor, upstream.PreemptionArgs{MinCandidateNodesPercentage: pct},
				par, int32(*offset))
			if err != nil {
				return err
			}
			decide := func() (decision, error) {
				c, err := ev.Decide(ctx)
				if err != nil {
					return decision{}, err
				}
				out := decision{Victims: []string{}}
				if c != nil {
					out.NominatedNodeName = c.Name()
					for _, v := range c.Victims().Pods {
						out.Victims = append(out.Victims, dump.Key(v))
					}
					out.PDBViolations = c.Victims().NumPDBViolations
				}
				return out, nil
			}
			warmStart := time.Now()
			warm, err := decide()
			if err != nil {
				return err
			}
			warmTime := time.Since(warmStart)
			// With parallelism, which nodes the dry run evaluates before it has enough candidates
			// depends on the goroutines' timing (a sampled decision varies from run to run): the
			// decision reported is the one of parallelism 1, the same in every run.
			check := par == 1
			if first == nil || check {
				first = &warm
			}
			// Calibration: how many decisions make a run of about runSeconds.
			// Calibration (the warm-up when it took 50 ms or more).
			per := warmTime.Seconds()
			if warmTime < 50*time.Millisecond {
				start, calls := time.Now(), 0
				for calls == 0 || time.Since(start) < 50*time.Millisecond {
					if _, err := ev.Decide(ctx); err != nil {
						return err
					}
					calls++
				}
				per = time.Since(start).Seconds() / float64(calls)
			}
			n := max(1, int(*runSeconds/max(per, 1e-9)))
			// Slow decisions (seconds each): fewer runs, at least 3, within about maxSeconds.
			count := *runs
			if n == 1 {
				count = min(count, max(3, int(*maxSeconds/max(per, 1e-9))))
			}
			t := timing{Parallelism: par, DecisionsPerRun: n}
			for r := 0; r < count; r++ {
				cpu0 := processCPU()
				start := time.Now()
				for i := 0; i < n; i++ {
					c, err := ev.Decide(ctx)
					if err != nil {
						return err
					}
					if check && ((c == nil) != (first.NominatedNodeName == "") || (c != nil && c.Name() != first.NominatedNodeName)) {
						return fmt.Errorf("sampling %s: a run decided differently from the first decision (%s)",
							name, first.NominatedNodeName)
					}
				}
				t.Runs = append(t.Runs, float64(time.Since(start).Nanoseconds())/float64(n))
				t.CPURuns = append(t.CPURuns, (processCPU()-cpu0)/float64(n))
			}
			t.NsPerDecision = median(t.Runs)
			t.CPUNsPerDecision = median(t.CPURuns)
			sr.Timings = append(sr.Timings, t)
		}
		sr.Decision = *first
		res.Results = append(res.Results, sr)
	}
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", b)
	return err
}

func main() {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("v", "0")
	_ = fs.Set("stderrthreshold", "FATAL")
	_ = fs.Set("logtostderr", "false")
	klog.SetOutput(io.Discard)
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "speed: %v\n", err)
		var bad badInput
		if errors.As(err, &bad) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}
