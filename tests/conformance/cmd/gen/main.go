// gen writes generated clusters to disk, as the conformance run decides them: one directory per
// cluster with cluster.json, pod.json, args (the decider flags beyond --cluster), families, and
// for the model families' clusters model.txt (the model driver's text form) and, when its hooks
// change upstream's answer, model-args (the referee's flags for the model driver's comparison).
//
//	gen [--seed S] [--count N] [--families F] --out DIR
//
// Cluster i has seed S+i, as in `conform run`.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/preempt/preempt/tests/conformance/internal/gen"
)

func main() {
	seed := flag.Int64("seed", 1, "seed of the first cluster")
	count := flag.Int("count", 1, "clusters to write")
	families := flag.String("families", "all", "families to enable (comma-separated; all, supported, deterministic, resource-only)")
	out := flag.String("out", "", "directory to write into (one subdirectory per seed)")
	flag.Parse()
	enabled, err := gen.ParseFamilies(*families)
	if err == nil && *out == "" {
		err = fmt.Errorf("--out is required")
	}
	for i := 0; err == nil && i < *count; i++ {
		c := gen.Generate(*seed+int64(i), enabled)
		dir := filepath.Join(*out, fmt.Sprint(c.Seed))
		if err = c.Write(dir); err == nil && c.ResourceOnly() {
			err = c.WriteModel(dir)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n", err)
		os.Exit(2)
	}
}
