package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand"
	"os/exec"
	"sort"
	"strconv"
	"strings"
)

// gosortCmd checks preempt's detail::go_sort_slice against Go's sort.Slice: random arrays with
// many ties (and sorted, reversed, nearly sorted and sawtooth ones, which take pdqsort's other
// paths), each sorted as indices by ascending key on both sides; the orders must be identical,
// equal keys included. One line per array is sent to the model driver's --gosort mode.
func gosortCmd(args []string) error {
	fs := flag.NewFlagSet("gosort", flag.ContinueOnError)
	driver := fs.String("model-driver", "", "the model driver binary")
	count := fs.Int("count", 3000, "arrays to sort")
	seed := fs.Int64("seed", 1, "seed of the arrays")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *driver == "" {
		return fmt.Errorf("--model-driver is required")
	}
	rng := rand.New(rand.NewSource(*seed))
	arrays := make([][]int64, *count)
	for i := range arrays {
		arrays[i] = gosortArray(rng)
	}
	var in strings.Builder
	for _, keys := range arrays {
		in.WriteString(strconv.Itoa(len(keys)))
		for _, k := range keys {
			in.WriteByte(' ')
			in.WriteString(strconv.FormatInt(k, 10))
		}
		in.WriteByte('\n')
	}
	cmd := exec.Command(*driver, "--gosort")
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%s --gosort: %v", *driver, err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	passed, failed := 0, 0
	for i, keys := range arrays {
		want := make([]int, len(keys))
		for j := range want {
			want[j] = j
		}
		sort.Slice(want, func(a, b int) bool { return keys[want[a]] < keys[want[b]] })
		got := ""
		if sc.Scan() {
			got = sc.Text()
		}
		wantText := strings.Trim(fmt.Sprint(want), "[]")
		if got == wantText {
			passed++
			continue
		}
		failed++
		if failed <= 3 {
			fmt.Printf("FAIL array %d (n=%d): keys %v\n  Go:      %s\n  preempt: %s\n", i, len(keys), keys, wantText, got)
		}
	}
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	return nil
}

// gosortArray draws one array: length 0 to 300 mostly (up to 3000 sometimes), keys from a small
// range (many ties) or a wide one, in one of several shapes.
func gosortArray(rng *rand.Rand) []int64 {
	n := rng.Intn(301)
	if rng.Intn(10) == 0 {
		n = rng.Intn(3001)
	}
	distinct := []int{1, 2, 3, 5, 10, n + 1}[rng.Intn(6)]
	keys := make([]int64, n)
	for i := range keys {
		keys[i] = int64(rng.Intn(distinct))
	}
	switch rng.Intn(6) {
	case 1: // ascending
		sort.Slice(keys, func(a, b int) bool { return keys[a] < keys[b] })
	case 2: // descending
		sort.Slice(keys, func(a, b int) bool { return keys[a] > keys[b] })
	case 3: // ascending with a few elements out of place
		sort.Slice(keys, func(a, b int) bool { return keys[a] < keys[b] })
		for k := rng.Intn(6); k > 0 && n > 1; k-- {
			i, j := rng.Intn(n), rng.Intn(n)
			keys[i], keys[j] = keys[j], keys[i]
		}
	case 4: // sawtooth
		period := 1 + rng.Intn(20)
		for i := range keys {
			keys[i] = int64(i % period)
		}
	}
	return keys
}
