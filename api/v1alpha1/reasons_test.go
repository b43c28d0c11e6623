package v1alpha1_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// documentedReasons finds the reasons of the tables under header, across
// the README and docs/: the backquoted reason of each row that row
// matches (its first group), with the pages it is on.
func documentedReasons(t *testing.T, header string, row *regexp.Regexp) map[benchv1.Reason][]string {
	t.Helper()
	found := map[benchv1.Reason][]string{}
	for _, page := range docPages(t) {
		inTable := false
		for _, line := range strings.Split(readPage(t, page), "\n") {
			switch {
			case strings.TrimSpace(line) == header:
				inTable = true
			case !strings.HasPrefix(line, "|"):
				inTable = false
			case inTable:
				if m := row.FindStringSubmatch(line); m != nil {
					found[benchv1.Reason(m[1])] = append(found[benchv1.Reason(m[1])], page)
				}
			}
		}
	}
	return found
}

// checkReasons wants exactly one documented row per reason, and no row
// for anything else.
func checkReasons(t *testing.T, table string, documented map[benchv1.Reason][]string, reasons []benchv1.Reason) {
	t.Helper()
	if len(documented) == 0 {
		t.Fatalf("found no %s in the README or docs/", table)
	}
	for _, reason := range reasons {
		if pages := documented[reason]; len(pages) != 1 {
			t.Errorf("%s: %d rows for %s (%v), want 1", table, len(pages), reason, pages)
		}
	}
	for d, pages := range documented {
		if !slices.Contains(reasons, d) {
			t.Errorf("%s in %v: %s is not one of its reasons", table, pages, d)
		}
	}
}

// TestDocsExplainEveryFailureReason: the troubleshooting tables (README or
// docs/) have exactly one row per failure reason of a run and of a sweep,
// so a new reason cannot ship without telling users what it means and
// what to do.
func TestDocsExplainEveryFailureReason(t *testing.T) {
	documented := documentedReasons(t, "| reason | what it means | what to do |",
		regexp.MustCompile("^\\| `([A-Za-z]+)` \\| [^|]+ \\| [^|]+ \\|$"))
	checkReasons(t, "the troubleshooting tables", documented,
		append(benchv1.FailureReasons(), benchv1.SweepFailureReasons()...))
}

// TestDocsExplainEveryValidityReason: the Valid condition's table has
// exactly one row per reason a Valid condition that is False may carry.
func TestDocsExplainEveryValidityReason(t *testing.T) {
	documented := documentedReasons(t, "| check | reason | threshold | figures in `status.results[]` |",
		regexp.MustCompile("^\\| [^|]+ \\| `([A-Za-z]+)` \\|"))
	checkReasons(t, "the Valid condition's table", documented, benchv1.ValidityReasons())
}
