package report

import (
	"strings"
	"testing"
)

func TestReadableTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   []string
	}{
		{0, 1.2, []string{"0.0", "0.5", "1.0"}},
		{0, 0.7, []string{"0.0", "0.3", "0.6"}}, // 0.6000000000000001 before
		{0, 40000, []string{"0", "20,000", "40,000"}},
	} {
		var got []string
		for _, tk := range (readableTicks{}).Ticks(tc.lo, tc.hi) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("ticks of [%g, %g]: %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
}
