package v1alpha1_test

import (
	"os"
	"regexp"
	"slices"
	"testing"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// TestREADMEExplainsEveryFailureReason: the README's troubleshooting tables
// have exactly one row per failure reason of a run and of a sweep, so a new
// reason cannot ship without telling users what it means and what to do.
func TestREADMEExplainsEveryFailureReason(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile("(?m)^\\| `([A-Za-z]+)` \\| [^|]+ \\| [^|]+ \\|$").FindAllStringSubmatch(string(readme), -1)
	var documented []benchv1.Reason
	for _, r := range rows {
		documented = append(documented, benchv1.Reason(r[1]))
	}
	reasons := append(benchv1.FailureReasons(), benchv1.SweepFailureReasons()...)
	for _, reason := range reasons {
		if n := len(slices.DeleteFunc(slices.Clone(documented), func(d benchv1.Reason) bool { return d != reason })); n != 1 {
			t.Errorf("README's troubleshooting table has %d rows for %s, want 1", n, reason)
		}
	}
	for _, d := range documented {
		if !slices.Contains(reasons, d) {
			t.Errorf("README documents %s, which is not a failure reason", d)
		}
	}
}
