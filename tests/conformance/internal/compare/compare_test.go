// SPDX-License-Identifier: Apache-2.0

package compare

import "testing"

func TestSameReasonTakesExtendedResourcesAsASet(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"Insufficient cpu, Insufficient example.com/fpga, Insufficient example.com/gpu",
			"Insufficient cpu, Insufficient example.com/gpu, Insufficient example.com/fpga", true},
		{"Too many pods, Insufficient example.com/a, Insufficient example.com/b",
			"Too many pods, Insufficient example.com/b, Insufficient example.com/a", true},
		// cpu, memory and ephemeral-storage come in a fixed order upstream.
		{"Insufficient cpu, Insufficient memory", "Insufficient memory, Insufficient cpu", false},
		{"Insufficient cpu, Insufficient example.com/gpu", "Insufficient cpu", false},
		{"Insufficient example.com/gpu", "Insufficient example.com/fpga", false},
	} {
		if got := sameReason(c.a, c.b); got != c.same {
			t.Errorf("sameReason(%q, %q) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}
