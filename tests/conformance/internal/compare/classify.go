package compare

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/preempt/preempt/tests/conformance/internal/upstream"
)

// The classifiers name the root cause of a disagreement. Known (known-differences.md) accepts
// the ones it lists; the others still name the cause in a run's summary, and `conform run
// --explore ID` accepts them for one exploratory run, to look past a cause already reported.
func init() {
	classifiers["taint-reason"] = func(d Diff, up, pr *upstream.Report) bool {
		switch d.Field {
		case "node.reason":
			return unquote(d.Upstream) == upstreamTaintReason && preemptTaint.MatchString(unquote(d.Preempt))
		case "message":
			return sameHistogram(unquote(d.Upstream), unquote(d.Preempt), func(r string) string {
				if preemptTaint.MatchString(r) {
					return upstreamTaintReason
				}
				return r
			})
		}
		return false
	}
	classifiers["async-terminating-victims"] = func(d Diff, up, pr *upstream.Report) bool {
		// Upstream's asynchronous actuation makes no call at all, and so clears no nomination,
		// when every victim is already terminating.
		return d.Field == "clearedNominations" && up.Result == "nominated" && len(up.Calls) == 0 &&
			len(up.ClearedNominations) == 0 && len(pr.ClearedNominations) > 0
	}
	classifiers["shortage-unresolvable"] = func(d Diff, up, pr *upstream.Report) bool {
		// v1.37's NodeResourcesFit makes a request larger than the node's allocatable
		// UnschedulableAndUnresolvable: the node is not tried by the dry run.
		if d.Node == "" {
			return false
		}
		for _, n := range up.Nodes {
			if n.Name == d.Node {
				return n.Status == "UnschedulableAndUnresolvable" && !n.Evaluated && onlyShortages(n.Reason) &&
					(d.Field == "node.status" || d.Field == "node.reason" || d.Field == "node.evaluated")
			}
		}
		return false
	}
	classifiers["reason-cap"] = func(d Diff, up, pr *upstream.Report) bool {
		// preempt::status keeps at most four reasons; NodeResourcesFit lists every shortage.
		if d.Field != "node.reason" {
			return false
		}
		u, p := strings.Split(unquote(d.Upstream), ", "), strings.Split(unquote(d.Preempt), ", ")
		return len(p) == 4 && len(u) > 4 && strings.Join(u[:4], ", ") == unquote(d.Preempt)
	}
	classifiers["victim-order"] = func(d Diff, up, pr *upstream.Report) bool {
		// The same victims in another order.
		if d.Field != "victims" && d.Field != "node.victims" {
			return false
		}
		u, p := parseList(d.Upstream), parseList(d.Preempt)
		if len(u) != len(p) {
			return false
		}
		su, sp := append([]string(nil), u...), append([]string(nil), p...)
		sort.Strings(su)
		sort.Strings(sp)
		return strings.Join(su, ",") == strings.Join(sp, ",")
	}
	classifiers["prefilter-reason"] = func(d Diff, up, pr *upstream.Report) bool {
		switch d.Field {
		case "node.reason":
			return strings.HasPrefix(unquote(d.Upstream), "node(s) didn't satisfy plugin(s) [")
		case "message":
			// Upstream counts the nodes PreFilter ruled out under one reason.
			return strings.Contains(unquote(d.Upstream), " node(s) didn't satisfy plugin(s) [")
		}
		return false
	}
}

func parseList(s string) []string {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	if s == "" {
		return nil
	}
	return strings.Split(s, ", ")
}

// onlyShortages tells a reason list of NodeResourcesFit's alone.
func onlyShortages(reasons string) bool {
	for _, r := range strings.Split(reasons, ", ") {
		if !strings.HasPrefix(r, "Insufficient ") && r != "Too many pods" {
			return false
		}
	}
	return reasons != ""
}

const upstreamTaintReason = "node(s) had untolerated taint(s)"

var preemptTaint = regexp.MustCompile(`^node\(s\) had untolerated taint \{.*\}$`)

func unquote(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return s
}

var histogramItem = regexp.MustCompile(`^(\d+) (.*)$`)

// histogram parses "<prefix>0/N nodes are available: C1 R1, C2 R2." into its reason counts.
func histogram(msg string) (string, map[string]int, bool) {
	i := strings.Index(msg, " nodes are available: ")
	if i < 0 || !strings.HasSuffix(msg, ".") {
		return "", nil, false
	}
	head := msg[:i+len(" nodes are available: ")]
	body := strings.TrimSuffix(msg[len(head):], ".")
	counts := map[string]int{}
	var last string
	for _, part := range strings.Split(body, ", ") {
		if m := histogramItem.FindStringSubmatch(part); m != nil {
			n, _ := strconv.Atoi(m[1])
			last = m[2]
			counts[last] += n
		} else if last != "" {
			return "", nil, false
		}
	}
	return head, counts, true
}

// sameHistogram tells whether two FitError messages agree once preempt's reasons are mapped.
func sameHistogram(up, pr string, mapReason func(string) string) bool {
	hu, cu, ok1 := histogram(up)
	hp, cp, ok2 := histogram(pr)
	if !ok1 || !ok2 || hu != hp {
		return false
	}
	mapped := map[string]int{}
	for r, n := range cp {
		mapped[mapReason(r)] += n
	}
	return fmt.Sprint(sorted(mapped)) == fmt.Sprint(sorted(cu))
}

func sorted(m map[string]int) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%d %s", v, k))
	}
	sort.Strings(out)
	return out
}
