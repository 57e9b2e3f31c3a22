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
	clusters, agree int
}

type result struct {
	dir      string // the case files, kept while it disagrees
	seed     int64
	families []string
	out      outcome
	err      error
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
	strict := fs.Bool("strict", false, "count clusters of unsupported families (host ports, pod affinity, spread) in the result")
	verbose := fs.Bool("v", false, "print every disagreement")
	if err := fs.Parse(args); err != nil {
		return err
	}
	d, err := c.deciders()
	if err != nil {
		return err
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
	signatures := map[string][]int64{}
	passed, failed, unsupportedAgree, unsupportedDisagree, modelRuns, modelAgree := 0, 0, 0, 0, 0, 0
	for _, r := range results {
		if r.err != nil {
			fmt.Printf("cluster %d: %v\n", r.seed, r.err)
			failed++
			continue
		}
		outcomes[r.out.up.Result]++
		agree := r.out.agree()
		unsupported := false
		for _, f := range r.families {
			unsupported = unsupported || gen.Unsupported[f] || gen.UpstreamRandom[f]
			t := perFamily[f]
			if t == nil {
				t = &tally{}
				perFamily[f] = t
			}
			t.clusters++
			if agree {
				t.agree++
			}
		}
		if r.out.modelRun {
			modelRuns++
			if compare.Unknown(r.out.modelDiffs) == 0 {
				modelAgree++
			}
		}
		if !agree {
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
	for _, f := range gen.All {
		if t := perFamily[f]; t != nil {
			note := ""
			if gen.Unsupported[f] {
				note = " (not modelled by preempt yet)"
			} else if gen.UpstreamRandom[f] {
				note = " (upstream answers at random here: not counted unless --strict)"
			}
			fmt.Printf("  %-14s %5d clusters, %5d agree, %5d disagree%s\n", f, t.clusters, t.agree, t.clusters-t.agree, note)
		}
	}
	fmt.Printf("  upstream's results: %d nominated, %d unschedulable, %d not-eligible, %d fits\n",
		outcomes["nominated"], outcomes["unschedulable"], outcomes["not-eligible"], outcomes["fits"])
	if d.model != "" {
		fmt.Printf("  model driver   %5d resource-only clusters, %5d agree, %5d disagree\n", modelRuns, modelAgree, modelRuns-modelAgree)
	}
	var sigs []string
	for s := range signatures {
		sigs = append(sigs, s)
	}
	sort.Strings(sigs)
	for _, s := range sigs {
		seeds := signatures[s]
		shown := seeds
		if len(shown) > 8 {
			shown = shown[:8]
		}
		fmt.Printf("  disagreement %s: %d cluster(s), seeds %v\n", s, len(seeds), shown)
	}
	if !*strict && unsupportedAgree+unsupportedDisagree > 0 {
		fmt.Printf("clusters using families preempt does not model yet or where upstream answers at random (not counted; --strict counts them): %d agree, %d disagree\n",
			unsupportedAgree, unsupportedDisagree)
	}
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	return nil
}

func decideGenerated(d deciders, seed int64, enabled []string, dir string) result {
	c := gen.Generate(seed, enabled)
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
