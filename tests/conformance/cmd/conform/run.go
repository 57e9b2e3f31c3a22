package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/preempt/preempt/tests/conformance/internal/compare"
	"github.com/preempt/preempt/tests/conformance/internal/gen"
	"github.com/preempt/preempt/tests/conformance/internal/upstream"
)

type commonFlags struct {
	preempt, model, known string
	explore               string
}

func (c *commonFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.preempt, "preempt-whatif", "", "the preempt-whatif binary")
	fs.StringVar(&c.model, "model-driver", "", "the model driver binary (resource-only clusters)")
	fs.StringVar(&c.known, "known", "", "known-differences.md (default: beside this module)")
	fs.StringVar(&c.explore, "explore", "", "exploration only: accept these causes too (comma-separated classifier ids; "+
		"shortage-resolvable and all-schedulers-nominations run the referee in that mode)")
}

func (c *commonFlags) deciders() (deciders, error) {
	if c.preempt == "" {
		return deciders{}, fmt.Errorf("--preempt-whatif is required")
	}
	if c.known == "" {
		c.known = "known-differences.md"
	}
	k, err := compare.LoadKnown(c.known)
	if err != nil {
		return deciders{}, err
	}
	d := deciders{preempt: c.preempt, model: c.model, known: k}
	for _, id := range strings.Split(c.explore, ",") {
		switch id {
		case "":
		case "shortage-resolvable", "all-schedulers-nominations":
			d.refereeArgs = append(d.refereeArgs, "--"+id)
		default:
			if err := k.Accept([]string{id}); err != nil {
				return d, err
			}
		}
	}
	if c.explore != "" {
		fmt.Printf("exploration run: accepting %s (not a conformance result)\n", c.explore)
	}
	return d, nil
}

type tally struct {
	clusters, agree, refused int
}

type result struct {
	dir      string // the case files, kept while it disagrees
	seed     int64
	families []string
	out      outcome
	err      error
	// A pending-group decision's answers (GroupPreemptor).
	groupUp, groupPr *upstream.GroupReport
}

func runCmd(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var c commonFlags
	c.register(fs)
	count := fs.Int("count", 100, "clusters to generate")
	seed := fs.Int64("seed", 1, "seed of the first cluster (cluster i has seed+i)")
	families := fs.String("families", "all", "families to enable (comma-separated; all, supported, deterministic, resource-only)")
	jobs := fs.Int("jobs", 2, "clusters decided at once")
	failures := fs.String("failures", "", "directory to keep the disagreeing clusters in")
	strict := fs.Bool("strict", false, "count clusters of families preempt does not model yet (gen.Unsupported) in the result")
	verbose := fs.Bool("v", false, "print every disagreement")
	runs := fs.Int("upstream-runs", 128, "how many times upstream may decide a cluster where it is random (victim units of several pods: until preempt agrees, past 64 only while the parts it disagrees on vary; every cluster R times with --parallelism above 1)")
	groupShare := fs.Float64("group-share", 0.15, "with the pod-groups family: the share of clusters decided for a pending PodGroup (--pod-group, upstream's PodGroupPostFilter) instead of a pod")
	parallelism := fs.Int("parallelism", 1, "the referee's parallelism (upstream's default is 16: every cluster is then decided --upstream-runs times and preempt's answer must be one of upstream's)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	d, err := c.deciders()
	if err != nil {
		return err
	}
	d.runs = max(1, *runs)
	if *parallelism > 1 {
		d.refereeArgs = append(d.refereeArgs, "--parallelism", fmt.Sprint(*parallelism))
		d.everyRun = true
	}
	enabled, err := gen.ParseFamilies(*families)
	if err != nil {
		return err
	}
	for _, f := range enabled {
		if f == gen.PodGroups {
			// The feature gate is process-wide: on for the whole run. It changes nothing for
			// clusters without pod groups (every pod is then a victim of its own).
			d.refereeArgs = append(d.refereeArgs, "--feature-gates", "GenericWorkload=true")
			d.groupShare = *groupShare
			if upstream.GroupsRefereed {
				continue
			}
			// This release's referee decides no pending PodGroup (internal/upstream's
			// ErrGroupsNotRefereed): every cluster is decided for a pod.
			if d.groupShare > 0 {
				fmt.Printf("conformance: the v%s referee decides no pending PodGroup: --group-share %g taken as 0\n",
					upstream.Release, d.groupShare)
			}
			d.groupShare = 0
		}
	}
	tmp, err := os.MkdirTemp("", "conform-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	start := time.Now()
	results := make([]result, *count)
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < max(1, *jobs); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = decideGenerated(d, *seed+int64(i), enabled, filepath.Join(tmp, fmt.Sprint(i)))
			}
		}()
	}
	for i := 0; i < *count; i++ {
		next <- i
	}
	close(next)
	wg.Wait()

	perFamily := map[string]*tally{}
	outcomes := map[string]int{}
	groupOutcomes := map[string]int{}
	signatures := map[string][]int64{}
	passed, failed, refused, unsupportedAgree, unsupportedDisagree, modelRuns, modelAgree := 0, 0, 0, 0, 0, 0, 0
	refusedAgree := 0
	var random randomTally
	refusals := map[string][]int64{}
	for _, r := range results {
		if r.err != nil {
			fmt.Printf("cluster %d: %v\n", r.seed, r.err)
			failed++
			continue
		}
		if r.groupUp != nil {
			groupOutcomes[r.groupUp.Result]++
		} else {
			outcomes[r.out.up.Result]++
		}
		agree := r.out.agree()
		unsupported := false
		for _, f := range r.families {
			unsupported = unsupported || gen.Unsupported[f]
			t := perFamily[f]
			if t == nil {
				t = &tally{}
				perFamily[f] = t
			}
			t.clusters++
			switch {
			case r.out.refused:
				t.refused++
			case agree:
				t.agree++
			}
		}
		random.add(r)
		if r.out.modelRun {
			modelRuns++
			if compare.Unknown(r.out.modelDiffs) == 0 {
				modelAgree++
			}
		}
		if r.out.refused {
			for _, why := range r.out.pr.NotModelled {
				k := refusalKind(why)
				refusals[k] = append(refusals[k], r.seed)
			}
		}
		if !agree && !r.out.refused {
			sig := r.out.signature()
			if unsupported {
				sig = "(unsupported) " + sig
			}
			signatures[sig] = append(signatures[sig], r.seed)
			if *verbose {
				fmt.Printf("cluster %d (%s):\n", r.seed, strings.Join(r.families, ","))
				for _, df := range r.out.diffs {
					fmt.Printf("  %s\n", df)
				}
				for _, df := range r.out.modelDiffs {
					fmt.Printf("  model: %s\n", df)
				}
			}
			if *failures != "" {
				dir := filepath.Join(*failures, fmt.Sprint(r.seed))
				if err := keepFailure(dir, r); err != nil {
					return err
				}
			}
		}
		switch {
		case r.out.refused:
			refused++
			if agree {
				refusedAgree++
			}
		case unsupported && !*strict:
			if agree {
				unsupportedAgree++
			} else {
				unsupportedDisagree++
			}
		case agree:
			passed++
		default:
			failed++
		}
	}
	fmt.Printf("conformance: %d clusters from seed %d, families %s, %.1f s\n", *count, *seed, strings.Join(enabled, ","), time.Since(start).Seconds())
	if *parallelism > 1 {
		fmt.Printf("  referee at parallelism %d, every cluster decided %d times by upstream\n", *parallelism, d.runs)
	}
	for _, f := range append(append([]string(nil), gen.All...), GroupPreemptor) {
		if t := perFamily[f]; t != nil {
			note := ""
			if gen.Unsupported[f] {
				note = " (not modelled by preempt yet)"
			}
			fmt.Printf("  %-14s %5d clusters, %5d agree, %5d disagree, %5d refused%s\n", f, t.clusters, t.agree,
				t.clusters-t.agree-t.refused, t.refused, note)
		}
	}
	fmt.Printf("  upstream's results: %d nominated, %d unschedulable, %d not-eligible, %d fits",
		outcomes["nominated"], outcomes["unschedulable"], outcomes["not-eligible"], outcomes["fits"])
	for _, none := range []string{"gated", "deleting", "bound", "running", "other-scheduler", "rejected"} {
		if outcomes[none] > 0 {
			fmt.Printf(", %d %s", outcomes[none], none)
		}
	}
	fmt.Println()
	if len(groupOutcomes) > 0 {
		fmt.Printf("  upstream's results for pending groups: %d nominated, %d unschedulable, %d not-eligible, %d ongoing, %d fits",
			groupOutcomes["nominated"], groupOutcomes["unschedulable"], groupOutcomes["not-eligible"], groupOutcomes["ongoing"], groupOutcomes["fits"])
		for _, none := range []string{"gated", "error", "deleting", "rejected"} {
			if groupOutcomes[none] > 0 {
				fmt.Printf(", %d %s", groupOutcomes[none], none)
			}
		}
		fmt.Println()
	}
	random.print(d.runs)
	if d.model != "" {
		fmt.Printf("  model driver   %5d resource-only clusters, %5d agree, %5d disagree\n", modelRuns, modelAgree, modelRuns-modelAgree)
	}
	printSeeds("disagreement", signatures)
	if refused > 0 {
		fmt.Printf("refused (preempt-whatif exit 3, not modelled; in neither number): %d cluster(s), %d of them with upstream's answer anyway\n",
			refused, refusedAgree)
		printSeeds("refused", refusals)
	}
	if !*strict && unsupportedAgree+unsupportedDisagree > 0 {
		fmt.Printf("clusters using families preempt does not model yet (not counted; --strict counts them): %d agree, %d disagree\n",
			unsupportedAgree, unsupportedDisagree)
	}
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	return nil
}

// printSeeds prints each key of m with its clusters' seeds (the first 8).
func printSeeds(what string, m map[string][]int64) {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		seeds := m[k]
		shown := seeds
		if len(shown) > 8 {
			shown = shown[:8]
		}
		fmt.Printf("  %s %s: %d cluster(s), seeds %v\n", what, k, len(seeds), shown)
	}
}

// refusalKind is a notModelled text without the object it names (from the first ": "), so that
// refusals of one kind count together.
func refusalKind(why string) string {
	if i := strings.Index(why, ": "); i >= 0 {
		kind, _, _ := strings.Cut(why, " ")
		return kind + " ...: " + why[i+2:]
	}
	return why
}

// randomTally counts the clusters where upstream is random and how they were judged.
type randomTally struct {
	units, unitSets, rerun, matchedLater, partByPart, several, severalSeeds int
	seeds                                                                   []int64
}

func (t *randomTally) add(r result) {
	o := r.out
	if len(o.up.Units) > 0 {
		t.units++
	}
	if o.unitSets && o.agree() {
		t.unitSets++
	}
	if o.upstreamRuns > 1 {
		t.rerun++
	}
	if o.matchedRun > 1 {
		t.matchedLater++
	}
	if o.partByPart {
		t.partByPart++
	}
	if o.distinct > 1 {
		t.several++
		if len(t.seeds) < 8 {
			t.seeds = append(t.seeds, r.seed)
		}
	}
}

func (t *randomTally) print(runs int) {
	if t.units+t.rerun == 0 {
		return
	}
	fmt.Printf("  upstream random: %d cluster(s) with victim units of several pods (their pods compared as sets: %d agreed so),\n"+
		"    %d decided again by upstream (up to %d runs), %d agreed with a later run (%d of them part by part), %d with several distinct answers upstream %v\n",
		t.units, t.unitSets, t.rerun, runs, t.matchedLater, t.partByPart, t.several, t.seeds)
}

func decideGenerated(d deciders, seed int64, enabled []string, dir string) result {
	c := gen.Generate(seed, enabled)
	if groupDraw(seed, d.groupShare) {
		c, key := groupCase(c)
		r := result{seed: seed, families: c.Families, dir: dir}
		if r.err = writeGroupCase(c, key, dir); r.err != nil {
			return r
		}
		args, err := caseArgs(dir)
		if err != nil {
			r.err = err
			return r
		}
		r.out, r.groupUp, r.groupPr, r.err = d.decideGroupCase(dir, args)
		if r.err == nil && r.out.agree() {
			os.RemoveAll(dir)
		}
		return r
	}
	r := result{seed: seed, families: c.Families, dir: dir}
	if err := c.Write(dir); err != nil {
		r.err = err
		return r
	}
	model := false
	if d.model != "" && c.ResourceOnly() {
		if err := c.WriteModel(dir); err != nil {
			r.err = err
			return r
		}
		model = true
	}
	args, err := caseArgs(dir)
	if err != nil {
		r.err = err
		return r
	}
	r.out, r.err = d.decide(dir, args, nil, model)
	if r.err == nil && r.out.agree() {
		os.RemoveAll(dir)
	}
	return r
}
