package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
)

// The environment's fields that differ between runs are what changes
// comparability (here a node's kernel), not the URL every run's phases
// record with its own hosts: the fingerprint leaves that out, and so does
// the report.
func TestEnvironmentLeavesOutRunNamedFields(t *testing.T) {
	s := sweepStudy(t, "pool")
	recorded := false
	for _, r := range s.Runs {
		for _, ph := range r.Status.Environment.Phases {
			recorded = recorded || ph.Properties[contract.PropMongoDBURL] != ""
		}
	}
	if !recorded {
		t.Fatal("the fixture's runs record no mongodb.url: the test would prove nothing")
	}
	env := s.compareEnvironments()
	var differ []string
	for _, d := range env.Differ {
		differ = append(differ, d.Field)
	}
	for _, f := range append(append([]string{}, differ...), fieldNames(env.Common)...) {
		if strings.Contains(f, contract.PropMongoDBURL) {
			t.Errorf("environment lists %s", f)
		}
	}
	// The axes (threads, maxPoolSize) and one repetition's kernel.
	want := []string{"node.kernelVersion", "phases[load].mongodb.maxPoolSize", "phases[load].threadcount",
		"phases[run].mongodb.maxPoolSize", "phases[run].threadcount"}
	if !slices.Equal(differ, want) {
		t.Errorf("fields that differ: %v, want %v", differ, want)
	}
	var md bytes.Buffer
	if err := Markdown(&md, s, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), contract.PropMongoDBURL) {
		t.Error("the Markdown report names mongodb.url")
	}
}

func fieldNames(fs []envField) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}

func TestWholeMedian(t *testing.T) {
	for _, tc := range []struct {
		counts []float64
		want   string
	}{
		{nil, "-"},
		{[]float64{14720}, "14,720"},
		{[]float64{14721, 14720}, "14,720 / 14,721"},
		{[]float64{3, 3}, "3"},
		{[]float64{9, 1, 5}, "5"},
		{[]float64{4, 1, 3, 2}, "2 / 3"},
	} {
		if got := wholeMedian(tc.counts); got != tc.want {
			t.Errorf("wholeMedian(%v) = %q, want %q", tc.counts, got, tc.want)
		}
	}
}

// operationTable renders a study's Markdown and returns the rows of its
// latency-by-operation table, each cell trimmed, and the section's text.
func operationTable(t *testing.T, s *Study) (header []string, rows [][]string, text string) {
	t.Helper()
	var md bytes.Buffer
	if err := Markdown(&md, s, Options{}); err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(md.String(), "## Latency by operation (µs)\n")
	if !ok {
		t.Fatal("no latency-by-operation section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	for _, line := range strings.Split(sec, "\n") {
		if !strings.HasPrefix(line, "|") {
			text += line + "\n"
			continue
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), " | ") {
			cells = append(cells, strings.TrimSpace(c))
		}
		switch {
		case header == nil:
			header = cells
		case strings.HasPrefix(cells[0], "---"):
		default:
			rows = append(rows, cells)
		}
	}
	return header, rows, text
}

// CLEANUP is each YCSB thread's last call, not the workload's: the
// latency tables leave it out, the CSV and JSON keep it.
func TestOperationTableLeavesOutCleanup(t *testing.T) {
	s := sweepStudy(t, "microsharding")
	header, rows, text := operationTable(t, s)
	op := slices.Index(header, "operation")
	for _, r := range rows {
		if r[op] == "CLEANUP" {
			t.Errorf("latency table shows %v", r)
		}
	}
	if !strings.Contains(text, "CLEANUP") {
		t.Error("the table's note does not say CLEANUP is left out")
	}
	var c, j bytes.Buffer
	if err := CSV(&c, s); err != nil {
		t.Fatal(err)
	}
	if err := JSON(&j, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.String(), ",CLEANUP,") {
		t.Error("the CSV lost CLEANUP")
	}
	if !strings.Contains(j.String(), `"CLEANUP"`) {
		t.Error("the JSON lost CLEANUP")
	}
}

// Counts are whole: with two repetitions whose counts differ, both; the
// median of 14,720 and 14,721 operations is no count a run measured.
func TestOperationCountsAreWhole(t *testing.T) {
	for _, name := range []string{"microsharding", "pool"} {
		header, rows, text := operationTable(t, sweepStudy(t, name))
		count, errs, reps := slices.Index(header, "count"), slices.Index(header, "errors"), slices.Index(header, "reps")
		pairs := 0
		for _, r := range rows {
			for _, v := range []string{r[count], r[errs]} {
				if strings.Contains(v, ".") {
					t.Errorf("%s: count or errors %q in %v", name, v, r)
				}
				if strings.Contains(v, " / ") {
					pairs++
					if r[reps] != "2" {
						t.Errorf("%s: %q of %s repetitions", name, v, r[reps])
					}
				}
			}
		}
		if pairs == 0 {
			t.Errorf("%s: no two-repetition cell with different counts: the test proves nothing", name)
		}
		if !strings.Contains(text, pairsNote) {
			t.Errorf("%s: the note does not explain \"a / b\"", name)
		}
	}
}

// Batched inserts' latencies are mostly 0; the table marks them and says
// why.
func TestBatchedInsertsFootnote(t *testing.T) {
	header, rows, text := operationTable(t, sweepStudy(t, "pool"))
	op, phase, p50 := slices.Index(header, "operation"), slices.Index(header, "phase"), slices.Index(header, "p50")
	marked := 0
	for _, r := range rows {
		if strings.HasSuffix(r[op], "†") != (r[phase] == "load") {
			t.Errorf("marked wrongly: %v", r)
		}
		if r[phase] == "load" {
			marked++
			if r[p50] != "0" {
				t.Errorf("a batched load's p50 is %s, the fixture's 0", r[p50])
			}
		}
	}
	if marked == 0 || strings.Count(text, "† Batched inserts (phase load") != 1 || !strings.Contains(text, "BATCHED_OK") {
		t.Errorf("%d marked rows; note:\n%s", marked, text)
	}
	_, _, text = operationTable(t, sweepStudy(t, "microsharding"))
	if strings.Contains(text, "†") {
		t.Error("an unbatched study has the batched inserts' footnote")
	}
}

// A run's report is of one run: no repetitions, no cell and reps columns.
func TestRunReportSaysOneRun(t *testing.T) {
	_, runs := loadFixture(t, "microsharding")
	s := FromRun(&runs[2], nil)
	var md bytes.Buffer
	if err := Markdown(&md, s, Options{}); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	if !strings.Contains(out, "\nOne run.") {
		t.Error("the pivot tables' note does not say one run")
	}
	for _, bad := range []string{"repetition", "| reps", "| cell "} {
		if strings.Contains(strings.ToLower(out), bad) {
			t.Errorf("a run's report says %q", bad)
		}
	}
}

// A knee at the axis's smallest value is no scaling at all: the report
// says so, rather than "keeps scaling up to standalone".
func TestKneeAtTheSmallestValue(t *testing.T) {
	s := sweepStudy(t, "microsharding")
	items := s.kneeSection().Items
	want := "S5 is best at topology=standalone, the smallest value (30,256 ops/s): more shards do not help"
	if !slices.Contains(items, want) {
		t.Errorf("knees %q lack %q", items, want)
	}
	for _, it := range items {
		if strings.Contains(it, "scaling up to topology=standalone") {
			t.Errorf("knee %q", it)
		}
	}
	// The smallest value reaching 95% of a best elsewhere.
	k := s.Knees[len(s.Knees)-1]
	k.BestValue, k.BestThroughput = "8-shards", k.Throughput/0.97
	s.Knees = []benchv1.SweepKnee{k}
	if got := s.kneeSection().Items; len(got) != 1 || !strings.Contains(got[0], "S5 saturates at once, at topology=standalone, the smallest value: 30,256 ops/s, 97.0% of the best (8-shards") {
		t.Errorf("knee %q", got)
	}
	p := sweepStudy(t, "pool")
	if got := p.more("threads"); got != "more threads" {
		t.Errorf("more(threads) = %q", got)
	}
	if got := p.more("clients"); got != "larger values of clients" {
		t.Errorf("more(clients) = %q", got)
	}
}

// A run's Warnings condition (here its database pods' BestEffort QoS) is
// in the report's header; a sweep's header counts its warned runs, and
// its Environment section says what each was warned of.
func TestWarningsInHeader(t *testing.T) {
	summary := func(d document, key string) string {
		for _, kv := range d.Summary {
			if kv[0] == key {
				return kv[1]
			}
		}
		return ""
	}
	_, runs := loadFixture(t, "microsharding")
	for _, r := range runs {
		got := summary(FromRun(&r, nil).buildDocument(-1), "warnings")
		switch r.Name {
		case "microsharding-1-r1":
			if !strings.HasPrefix(got, "database pods that are not Guaranteed QoS") || !strings.Contains(got, "microsharding-1-r1-db-0 (BestEffort)") {
				t.Errorf("%s: warnings %q", r.Name, got)
			}
		default:
			if got != "" {
				t.Errorf("%s, without warnings: %q", r.Name, got)
			}
		}
	}
	d := sweepStudy(t, "microsharding").buildDocument(0)
	if got := summary(d, "runs with warnings"); got != "1 (see Environment)" {
		t.Errorf("sweep header: runs with warnings %q", got)
	}
	env := d.Parts[slices.IndexFunc(d.Parts, func(p section) bool { return p.Heading == "Environment" })]
	if !slices.ContainsFunc(env.Items, func(it string) bool {
		return strings.HasPrefix(it, "Warnings of microsharding-1-r1 (cell 2-shards, repetition 1): database pods that are not Guaranteed QoS")
	}) {
		t.Errorf("environment items %q", env.Items)
	}
	if got := summary(sweepStudy(t, "pool").buildDocument(0), "runs with warnings"); got != "" {
		t.Errorf("a study without warnings: %q", got)
	}
}
