// conform is the conformance driver behind tests/conformance/run: it generates clusters
// (internal/gen), decides each with kube-scheduler's code (in process, as kube-whatif does) and
// with preempt-whatif (and, on resource-only clusters, the model driver), compares the answers
// and ends with the line "N passed, M failed".
//
//	conform run --preempt-whatif BIN [--model-driver BIN] [--count N] [--seed S] [--families F]
//	            [--jobs J] [--failures DIR] [--known FILE] [--strict]
//	conform cases --preempt-whatif BIN [--model-driver BIN] [--known FILE] DIR...
//	conform minimize --preempt-whatif BIN [--model-driver BIN] --out DIR CASE_DIR
//	conform async --dispatch-driver BIN [--known FILE]
//	conform gosort --model-driver BIN [--count N] [--seed S]
//
// Cluster i of a run has seed S+i: `--seed S+i --count 1` decides it alone. A cluster that uses
// a family preempt does not model yet (gen.Unsupported) is reported apart and counts in neither
// N nor M unless --strict.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/pprof"

	"k8s.io/klog/v2"
)

func main() {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(io.Discard)
	// Each cluster's objects are short-lived and the heap stays small: collect less often (the
	// collector took an eighth of the referee's time at Go's default of 100).
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}

	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: conform run|cases|minimize|async|gosort ... (see cmd/conform/main.go)")
		os.Exit(2)
	}
	// CONFORM_CPUPROFILE=FILE writes a CPU profile of the whole command (go tool pprof FILE).
	if path := os.Getenv("CONFORM_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "conform: CONFORM_CPUPROFILE: %v\n", err)
			os.Exit(2)
		}
		defer pprof.StopCPUProfile()
	}
	var err error
	switch os.Args[1] {
	case "run":
		err = runCmd(os.Args[2:])
	case "cases":
		err = casesCmd(os.Args[2:])
	case "minimize":
		err = minimizeCmd(os.Args[2:])
	case "async":
		err = asyncCmd(os.Args[2:])
	case "gosort":
		err = gosortCmd(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "conform: %v\n", err)
		os.Exit(2)
	}
}
