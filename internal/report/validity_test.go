package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/sweep"
)

// The microsharding fixture's repetition 2 of 6-shards is invalid (a
// loader saturated its CPU in S5): every format shows it and why, and no
// aggregate counts it.
const theInvalidRun = "microsharding-3-r2"

func TestInvalidRunInEveryFormat(t *testing.T) { //nolint:gocyclo // one study, each format in turn
	s := sweepStudy(t, "microsharding")
	var inv *benchv1.BenchmarkRun
	for i := range s.Runs {
		if s.Runs[i].Name == theInvalidRun {
			inv = &s.Runs[i]
		}
	}
	vc := meta.FindStatusCondition(inv.Status.Conditions, benchv1.ConditionValid)
	if vc == nil || vc.Status != metav1.ConditionFalse || vc.Reason != string(benchv1.ReasonLoaderSaturated) {
		t.Fatalf("the fixture's %s is not invalid: %+v", theInvalidRun, vc)
	}

	md := string(mustMarkdown(t, s))
	for _, want := range []string{
		"| invalid runs            | 1, left out of every aggregate (see Invalid runs)  |",
		"## Invalid runs",
		"- " + theInvalidRun + " (cell 6-shards, repetition 2): LoaderSaturated: " + vc.Message,
		"| 6-shards |    2 |                  1 |                  1 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	// The operations' medians of 6-shards are its valid repetition's.
	for _, r := range s.operationRows() {
		if r.Cell.Name == "6-shards" && r.Repetitions != 1 {
			t.Errorf("6-shards %s %s aggregates %d repetitions", r.Phase, r.Operation, r.Repetitions)
		}
	}
	for _, l := range s.loaderStats() {
		if l.MaxCPUPercent > 90 {
			t.Errorf("the loaders' table counts the invalid run: %s %s at %v%%", l.Cell.Name, l.Phase, l.MaxCPUPercent)
		}
	}

	var c bytes.Buffer
	if err := CSV(&c, s); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) int { return slices.Index(rows[0], name) }
	n := 0
	for _, r := range rows[1:] {
		if r[col("run")] != theInvalidRun {
			continue
		}
		n++
		if r[col("valid")] != "False" || r[col("valid_reason")] != "LoaderSaturated" {
			t.Errorf("csv row of the invalid run: %v", r)
		}
	}
	if n == 0 {
		t.Error("the CSV has no row of the invalid run: its numbers must stay there")
	}

	var js bytes.Buffer
	if err := JSON(&js, s); err != nil {
		t.Fatal(err)
	}
	var rep jsonReport
	dec := json.NewDecoder(&js)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.InvalidRuns) != 1 || rep.InvalidRuns[0] != (jsonInvalidRun{Run: theInvalidRun, Cell: 3, CellName: "6-shards", Repetition: 2,
		Reason: "LoaderSaturated", Message: vc.Message}) {
		t.Errorf("json invalidRuns %+v", rep.InvalidRuns)
	}
	if len(rep.Warmups) != 5 || len(rep.Loaders) != 25 || rep.Warmups[3].Repetitions != 1 || rep.Loaders[15].MaxStartSkewMillis == nil {
		t.Errorf("json: %d warm-ups, %d loaders rows: %+v", len(rep.Warmups), len(rep.Loaders), rep.Warmups)
	}
	if st := rep.Sweep.Status; st.RunsInvalid != 1 || st.Cells[3].InvalidRuns != 1 || st.Cells[3].Runs[1].InvalidReason != "LoaderSaturated" {
		t.Errorf("json sweep status: %d invalid runs, cell 6-shards %+v", st.RunsInvalid, st.Cells[3])
	}

	// The run on its own: its numbers, and why they are not trusted.
	run := string(mustMarkdown(t, FromRun(inv, nil)))
	for _, want := range []string{"| valid     | False: LoaderSaturated (see Invalid runs)", "The run succeeded, but its Valid condition is False",
		"- " + theInvalidRun + ": LoaderSaturated: " + vc.Message, "## Throughput (ops/s)"} {
		if !strings.Contains(run, want) {
			t.Errorf("the invalid run's own report lacks %q:\n%s", want, run)
		}
	}
}

// TestCellWithoutValidRun: a cell whose runs all succeeded but are
// invalid has no numbers; its pivot cells say so rather than "-".
func TestCellWithoutValidRun(t *testing.T) {
	sw, runs := loadFixture(t, "microsharding")
	byName := map[string]*benchv1.BenchmarkRun{}
	for i := range runs {
		byName[runs[i].Name] = &runs[i]
	}
	first := byName["microsharding-3-r1"]
	meta.SetStatusCondition(&first.Status.Conditions, metav1.Condition{Type: benchv1.ConditionValid, Status: metav1.ConditionFalse,
		Reason: string(benchv1.ReasonPrimaryChanged), Message: "phase S3: shard microsharding-3-r1-shard-2 changed primary 1 time"})
	// The controller's aggregation of the changed runs.
	axes, cells, err := sweep.Expand(&sw.Spec)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := sweep.PlanFromOrder(sw.Name, len(cells), int(sw.Spec.Repetitions), sw.Status.Order)
	if err != nil {
		t.Fatal(err)
	}
	agg := sweep.AggregateRuns(&sw.Spec, axes, cells, plan, byName)
	sw.Status.Cells, sw.Status.Knees, sw.Status.Best = agg.Cells, agg.Knees, agg.Best
	sw.Status.CellsInvalid, sw.Status.RunsInvalid = agg.CellsInvalid, agg.RunsInvalid
	s, err := FromSweep(sw, runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	md := string(mustMarkdown(t, s))
	for _, want := range []string{
		"| S1 (Load)        | 21,122 (baseline) ±0.8% | 32,553 (+54.1%) ±2.4% | 43,885 (+107.8%) ±0.7% | no valid run |",
		"5 (5 done, 0 with failed runs, 1 without a valid run, 0 runs active)",
		"| 6-shards |    2 |     0 (no results) |                  2 |",
		"- microsharding-3-r1 (cell 6-shards, repetition 1): PrimaryChanged: phase S3:",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "| 6-shards   | S1    |") {
		t.Error("the latencies by operation show a cell without a valid run")
	}
}
