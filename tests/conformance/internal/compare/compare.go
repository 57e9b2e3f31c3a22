// Package compare compares preempt's answer with upstream's on the JSON contract of
// preempt-whatif: result, nominatedNodeName, victims (ordered), pdbViolations,
// clearedNominations (ordered), message, and every node's status, reason, victims,
// pdbViolations and evaluated flag.
//
// Upstream's own randomness is accepted, not reported: its final tie-break between fully tied
// candidates iterates a Go map, so preempt may nominate any node of upstream's mayNominate; its
// victims and cleared nominations are then compared with that node's. The pods of one victim
// unit (a PodGroup in disruption mode all), which upstream lists in Go map order, are compared
// as a set, in their unit's place among the victims (known-differences.md).
package compare

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/preempt/preempt/tests/conformance/internal/upstream"
)

// Diff is one disagreement.
type Diff struct {
	Field    string // "result", "victims", ..., "node.reason"
	Node     string // for node fields
	Upstream string
	Preempt  string
	// Cause is the classifier that recognizes it ("" when none does); Known is set when a
	// listed known difference accepts it.
	Cause string
	Known string
}

func (d Diff) String() string {
	where := d.Field
	if d.Node != "" {
		where = d.Field + " of " + d.Node
	}
	s := fmt.Sprintf("%s: upstream %s, preempt %s", where, d.Upstream, d.Preempt)
	switch {
	case d.Known != "":
		s += " (accepted: " + d.Known + ")"
	case d.Cause != "":
		s += " (cause: " + d.Cause + ")"
	}
	return s
}

func list(l []string) string { return "[" + strings.Join(l, ", ") + "]" }

func q(s string) string { return fmt.Sprintf("%q", s) }

// sameReason compares two node reasons ("Too many pods, Insufficient cpu, ..."), each run of
// "Insufficient <extended resource>" taken as a set: NodeResourcesFit reports cpu, memory and
// ephemeral-storage in that order and then the scalar resources as it ranges over a Go map
// (fitsRequest: range deltaScalarResources), in an order Go randomizes on every run.
func sameReason(a, b string) bool {
	return a == b || canonicalReason(a) == canonicalReason(b)
}

func canonicalReason(r string) string {
	items := strings.Split(r, ", ")
	scalar := func(s string) bool {
		name, ok := strings.CutPrefix(s, "Insufficient ")
		return ok && name != "cpu" && name != "memory" && name != "ephemeral-storage"
	}
	for i := 0; i < len(items); {
		j := i
		for j < len(items) && scalar(items[j]) {
			j++
		}
		if j > i {
			sort.Strings(items[i:j])
			i = j
		} else {
			i++
		}
	}
	return strings.Join(items, ", ")
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// InUnitOrder returns the list with the pods of each run of consecutive pods of one victim unit
// (upstream's Units) sorted: the order upstream's Go map iteration leaves random is dropped, the
// order of the units and of the other pods is kept.
func InUnitOrder(l []string, units map[string]string) []string {
	if len(units) == 0 {
		return l
	}
	out := append([]string(nil), l...)
	for i := 0; i < len(out); {
		j := i + 1
		if u := units[out[i]]; u != "" {
			for j < len(out) && units[out[j]] == u {
				j++
			}
			sort.Strings(out[i:j])
		}
		i = j
	}
	return out
}

// explainedAlike: both say the pod is held out of the queue (gated) or skipped when it leaves it
// (deleting), preempt's message starting with upstream's (the PreEnqueue plugin's status message,
// or the skip event's) and explaining it further.
func explainedAlike(up, pr *upstream.Report) bool {
	return (up.Result == "gated" || up.Result == "deleting") && pr.Result == up.Result && up.Message != "" &&
		strings.HasPrefix(pr.Message, up.Message)
}

// Compare lists the disagreements of preempt's report with upstream's.
func Compare(up, pr *upstream.Report) []Diff {
	diffs, _ := CompareUnits(up, pr)
	return diffs
}

// CompareUnits is Compare, and tells whether a victim list agreed only as sets of the units'
// pods (the exact orders differed).
func CompareUnits(up, pr *upstream.Report) ([]Diff, bool) {
	unitSets := false
	sameVictims := func(u, p []string) bool {
		if equal(u, p) {
			return true
		}
		if equal(InUnitOrder(u, up.Units), InUnitOrder(p, up.Units)) {
			unitSets = true
			return true
		}
		return false
	}
	var out []Diff
	add := func(field, node, u, p string) {
		out = append(out, Diff{Field: field, Node: node, Upstream: u, Preempt: p})
	}
	if up.Result != pr.Result {
		add("result", "", up.Result, pr.Result)
	}
	upVictims, upCleared, upPDB := up.Victims, up.ClearedNominations, up.PDBViolations
	if pr.NominatedNodeName != up.NominatedNodeName {
		if up.Result == "nominated" && pr.Result == "nominated" && contains(up.MayNominate, pr.NominatedNodeName) {
			// A full tie upstream breaks at random: compare with upstream's answer for that node.
			for _, n := range up.Nodes {
				if n.Name == pr.NominatedNodeName {
					upVictims, upPDB = n.Victims, n.PDBViolations
				}
			}
			upCleared = up.Clears[pr.NominatedNodeName]
		} else {
			add("nominatedNodeName", "", q(up.NominatedNodeName)+" (may nominate "+list(up.MayNominate)+")", q(pr.NominatedNodeName))
		}
	}
	if !sameVictims(upVictims, pr.Victims) {
		add("victims", "", list(upVictims), list(pr.Victims))
	}
	if upPDB != pr.PDBViolations {
		add("pdbViolations", "", fmt.Sprint(upPDB), fmt.Sprint(pr.PDBViolations))
	}
	if !equal(upCleared, pr.ClearedNominations) {
		add("clearedNominations", "", list(upCleared), list(pr.ClearedNominations))
	}
	if up.Message != pr.Message && !explainedAlike(up, pr) {
		add("message", "", q(up.Message), q(pr.Message))
	}
	prNodes := map[string]upstream.NodeReport{}
	for _, n := range pr.Nodes {
		prNodes[n.Name] = n
	}
	upNames := map[string]bool{}
	for _, u := range up.Nodes {
		upNames[u.Name] = true
		p, ok := prNodes[u.Name]
		if !ok {
			add("node", u.Name, "listed ("+u.Status+")", "absent")
			continue
		}
		if u.Status != p.Status {
			add("node.status", u.Name, u.Status, p.Status)
		}
		if !sameReason(u.Reason, p.Reason) {
			add("node.reason", u.Name, q(u.Reason), q(p.Reason))
		}
		if !sameVictims(u.Victims, p.Victims) {
			add("node.victims", u.Name, list(u.Victims), list(p.Victims))
		}
		if u.PDBViolations != p.PDBViolations {
			add("node.pdbViolations", u.Name, fmt.Sprint(u.PDBViolations), fmt.Sprint(p.PDBViolations))
		}
		if u.Evaluated != p.Evaluated {
			add("node.evaluated", u.Name, fmt.Sprint(u.Evaluated), fmt.Sprint(p.Evaluated))
		}
	}
	for _, p := range pr.Nodes {
		if !upNames[p.Name] {
			add("node", p.Name, "absent", "listed ("+p.Status+")")
		}
	}
	return out, unitSets
}

// Signature names the kinds of disagreement of a comparison (fields, not values): two runs
// with the same signature show the same disagreement, which is what minimization keeps.
func Signature(diffs []Diff) string {
	set := map[string]bool{}
	for _, d := range diffs {
		switch {
		case d.Known != "":
		case d.Cause != "":
			set["["+d.Cause+"]"] = true
		default:
			set[d.Field] = true
		}
	}
	var fields []string
	for f := range set {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	return strings.Join(fields, ",")
}

// Known holds the ids listed in known-differences.md (lines "### `id`"), each accepting the
// disagreements its classifier recognizes.
type Known map[string]bool

var heading = regexp.MustCompile("^###\\s+`([a-z0-9-]+)`")

// LoadKnown reads the ids of known-differences.md.
func LoadKnown(path string) (Known, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	k := Known{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := heading.FindStringSubmatch(sc.Text()); m != nil {
			if _, ok := classifiers[m[1]]; !ok && !asyncIDs[m[1]] {
				return nil, fmt.Errorf("%s: %q has no classifier in internal/compare", path, m[1])
			}
			k[m[1]] = true
		}
	}
	return k, sc.Err()
}

// asyncIDs are the known differences of the asynchronous comparison (`conform async` checks
// them itself).
var asyncIDs = map[string]bool{"wake-up-rule": true, "in-flight-victims": true}

// Has tells whether known-differences.md lists id.
func (k Known) Has(id string) bool { return k[id] }

// classifiers recognize the disagreements of one known difference.
var classifiers = map[string]func(d Diff, up, pr *upstream.Report) bool{}

// Classify names the cause of each disagreement a classifier recognizes (Cause), and marks
// those a listed known difference accepts (Known).
func (k Known) Classify(diffs []Diff, up, pr *upstream.Report) {
	ids := make([]string, 0, len(classifiers))
	for id := range classifiers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for i := range diffs {
		for _, id := range ids {
			if classifiers[id](diffs[i], up, pr) {
				diffs[i].Cause = id
				if k[id] {
					diffs[i].Known = id
				}
				break
			}
		}
	}
}

// Accept adds ids (an exploratory run's --explore) to the accepted ones.
func (k Known) Accept(ids []string) error {
	for _, id := range ids {
		if _, ok := classifiers[id]; !ok {
			return fmt.Errorf("no classifier %q", id)
		}
		k[id] = true
	}
	return nil
}

// Unknown counts the disagreements no known difference accepts.
func Unknown(diffs []Diff) int {
	n := 0
	for _, d := range diffs {
		if d.Known == "" {
			n++
		}
	}
	return n
}
