package report

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// The growth study's reports: Markdown and CSV against golden files,
// the tables' medians and the number formats (charts and the CSV and
// JSON have their own files).

func TestGrowthGoldenReports(t *testing.T) {
	s := sweepStudy(t, "growth")
	for _, tc := range []struct {
		golden string
		format Format
	}{{"growth.md", FormatMarkdown}, {"growth.csv", FormatCSV}} {
		var buf bytes.Buffer
		if err := Write(&buf, s, tc.format, Options{}); err != nil {
			t.Fatalf("%s: %v", tc.golden, err)
		}
		golden(t, tc.golden, buf.Bytes())
	}
}

// growthRun is a succeeded run of cell 0 with a Grow phase's checkpoints
// at the given record counts (in millions), each figure derived from rep
// and the records.
func growthRun(rep int32, phase benchv1.RunLifecycle, millions ...int64) CellRun {
	g := &benchv1.GrowthStatus{TargetRecords: 40e6, CheckpointEvery: 10e6, PlannedCheckpoints: 4, InsertMode: benchv1.GrowAcknowledged}
	for _, m := range millions {
		v := float64(rep * 100)
		cp := benchv1.GrowthCheckpoint{Records: m * 1e6, InsertsPerSec: 1000 + v + float64(m), InsertP99Micros: 500 + int64(v),
			Queries: []benchv1.GrowthQueryResult{{Name: benchv1.GrowQ3, OpsPerSec: 50 - float64(m) + v, P99Micros: 9000 + int64(v)}}}
		if m != 20 || rep != 2 {
			// Repetition 2 could not read the sizes at 20M.
			cp.Sizes = &benchv1.CollectionSummary{Size: ptr.To(m * 1e9), TotalIndexSize: ptr.To(m*1e8 + int64(v)),
				IndexSizes: map[string]int64{"_id_": m * 1e7, "date_-1": m * 2e7},
				Shards: []benchv1.ShardCollectionSummary{
					{Shard: "shard10", Count: ptr.To(m * 1e6 / 2)}, {Shard: "shard2", Count: ptr.To(m*1e6/2 - int64(v))}}}
		}
		g.Checkpoints = append(g.Checkpoints, cp)
	}
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("g-0-r%d", rep)},
		Status: benchv1.BenchmarkRunStatus{Phase: phase, Results: []benchv1.PhaseResult{{Name: "grow", Type: benchv1.PhaseGrow, Growth: g}}}}
	return CellRun{SweepRunStatus: benchv1.SweepRunStatus{Name: run.Name, Repetition: rep, Phase: phase}, Run: run}
}

// A checkpoint's figures are the medians across the cell's successful
// repetitions that reached it; a failed repetition does not count, and a
// figure no repetition has is "-".
func TestGrowthMedians(t *testing.T) {
	s := &Study{Kind: KindSweep, Name: "g", Sweep: &benchv1.BenchmarkSweep{}, Repetitions: 3, Phases: []Phase{{Name: "grow", Type: benchv1.PhaseGrow}},
		Cells: []Cell{{Name: "c", baseline: -1, Runs: []CellRun{
			growthRun(1, benchv1.RunSucceeded, 10, 20, 30),
			growthRun(2, benchv1.RunSucceeded, 10, 20),
			growthRun(3, benchv1.RunFailed, 10, 20, 30, 40), // failed: ignored
		}}}}
	s.reduceGrowth()
	gp := s.growth
	if len(gp) != 1 || len(gp[0].Cells) != 1 {
		t.Fatalf("growth: %+v", gp)
	}
	c := gp[0].Cells[0]
	if c.Repetitions != 2 || c.Reached != 3 || c.Planned != 4 || len(c.Rows) != 3 {
		t.Fatalf("cell: %d reps, %d of %d checkpoints, %d rows", c.Repetitions, c.Reached, c.Planned, len(c.Rows))
	}
	for _, tc := range []struct {
		records         int64
		reps            int
		insert, q3, idx float64
		size            float64
		shards          map[string]float64
	}{
		// Both repetitions: the mean of the two middle (only) values.
		{10e6, 2, 1160, 190, 10e8 + 150, 10e9, map[string]float64{"shard2": 5e6 - 150, "shard10": 5e6}},
		// Repetition 2 has no sizes at 20M: repetition 1's alone.
		{20e6, 2, 1170, 180, 20e8 + 100, 20e9, map[string]float64{"shard2": 10e6 - 100, "shard10": 10e6}},
		// Only repetition 1 reached 30M.
		{30e6, 1, 1130, 120, 30e8 + 100, 30e9, map[string]float64{"shard2": 15e6 - 100, "shard10": 15e6}},
	} {
		r := c.row(tc.records)
		if r == nil {
			t.Fatalf("no row at %d", tc.records)
		}
		if r.Repetitions != tc.reps || r.InsertsPerSec != tc.insert || r.Queries["Q3"].OpsPerSec != tc.q3 ||
			r.TotalIndexSize != tc.idx || r.Size != tc.size || !reflect.DeepEqual(r.ShardCounts, tc.shards) {
			t.Errorf("at %d: %d reps, insert %v, Q3 %v, index %v, size %v, shards %v; want %+v",
				tc.records, r.Repetitions, r.InsertsPerSec, r.Queries["Q3"].OpsPerSec, r.TotalIndexSize, r.Size, r.ShardCounts, tc)
		}
	}
	// A resumed segment that measured nothing (its inserts made by a
	// killed loader) is left out of the insert medians, not a rate of 0.
	killed := s.Cells[0].Runs[0].Run.Status.Results[0].Growth.Checkpoints[0]
	killed.Resumed, killed.InsertsPerSec, killed.InsertP50Micros, killed.InsertP99Micros = true, 0, 0, 0
	s.Cells[0].Runs[0].Run.Status.Results[0].Growth.Checkpoints[0] = killed
	s.reduceGrowth()
	if r := s.growth[0].Cells[0].row(10e6); r.InsertsPerSec != 1210 || r.InsertP99 != 700 {
		t.Errorf("insert rate and p99 at 10M with a segment that measured nothing: %v, %v; want repetition 2's 1210, 700", r.InsertsPerSec, r.InsertP99)
	}
	if !math.IsNaN(c.row(10e6).StorageSize) {
		t.Errorf("storage size no repetition reported: %v, want NaN", c.row(10e6).StorageSize)
	}
	if got := gp[0].Shards; !slices.Equal(got, []string{"shard2", "shard10"}) {
		t.Errorf("shards in order %q", got)
	}
	if got := gp[0].Indexes; !slices.Equal(got, []string{"_id_", "date_-1"}) {
		t.Errorf("indexes in order %q", got)
	}
	out := string(mustMarkdown(t, s))
	for _, want := range []string{
		"| 30M            | 30.0 |", // data size at 30M, in GB
		"| c    | Acknowledged | 40M | 10M | 3 of 4 | 0 | 2 |",
	} {
		if !strings.Contains(squeeze(out), squeeze(want)) {
			t.Errorf("the Markdown lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "**Storage size") {
		t.Error("a size no checkpoint has gets a table")
	}
}

// squeeze collapses runs of spaces, so table rows compare without their
// padding.
func squeeze(s string) string { return regexp.MustCompile(` +`).ReplaceAllString(s, " ") }

// A cell whose runs recorded no checkpoint (stopped before the first)
// shows dashes, beside one that has them.
func TestGrowthWithoutCheckpoints(t *testing.T) {
	empty := growthRun(1, benchv1.RunSucceeded)
	empty.Name, empty.Run.Name = "g-1-r1", "g-1-r1"
	s := &Study{Kind: KindSweep, Name: "g", Sweep: &benchv1.BenchmarkSweep{}, Repetitions: 1, Phases: []Phase{{Name: "grow", Type: benchv1.PhaseGrow}},
		Cells: []Cell{
			{Name: "none", baseline: -1, Runs: []CellRun{empty}},
			{Index: 1, Name: "some", baseline: -1, Runs: []CellRun{growthRun(1, benchv1.RunSucceeded, 10)}},
		}}
	s.reduceGrowth()
	out := squeeze(string(mustMarkdown(t, s)))
	for _, want := range []string{"| records | - | 10M |", "| 10M | - | 1,110 |", "| none | Acknowledged | 40M | 10M | 0 of 4 | 0 |"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if _, err := s.growthCharts(); err != nil {
		t.Error(err)
	}
}

// A run with a Grow phase is a one-cell study: its rows as they are.
func TestGrowthRunReport(t *testing.T) {
	_, runs := loadFixture(t, "growth")
	run := &runs[0]
	s := FromRun(run, nil)
	gp := s.growth
	if len(gp) != 1 || len(gp[0].Cells) != 1 || gp[0].Cells[0].Cell.Name != run.Name {
		t.Fatalf("growth of run %s: %+v", run.Name, gp)
	}
	g := run.Status.Results[0].Growth
	rows := gp[0].Cells[0].Rows
	if len(rows) != len(g.Checkpoints) {
		t.Fatalf("%d rows, want %d", len(rows), len(g.Checkpoints))
	}
	for i, cp := range g.Checkpoints {
		r := rows[i]
		if r.Records != cp.Records || r.InsertsPerSec != cp.InsertsPerSec || r.Queries["Q3"].P99 != float64(cp.Queries[2].P99Micros) ||
			r.IndexSizes["number_1"] != float64(cp.Sizes.IndexSizes["number_1"]) {
			t.Errorf("row %d: %+v from %+v", i, r, cp)
		}
	}
	md := string(mustMarkdown(t, s))
	if !strings.Contains(md, "## Growth\n") || !strings.Contains(md, "| records \\ cell | "+run.Name+" |") {
		t.Errorf("the run's report has no growth tables with the run as the column:\n%s", md)
	}
}

func TestCountLabels(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0", 999: "999", 200_000: "200k", 2_500_000: "2.5M", 10_000_000: "10M", 3_333_333: "3,333,333",
		1_250_000: "1.25M", 1_234_567: "1,234,567", 100_000_000_000: "100B",
	} {
		if got := countLabel(n); got != want {
			t.Errorf("countLabel(%d) = %q, want %q", n, got, want)
		}
	}
	for v, want := range map[float64]string{999: "999 bytes", 2.5e6: "2.50 MB", 204.8e9: "204.8 GB", 45e9: "45.0 GB"} {
		u := byteUnitFor(v)
		if got := u.format(v) + " " + u.Name; got != want {
			t.Errorf("%g bytes: %q, want %q", v, got, want)
		}
	}
	if got := naturalCompare("shard10", "shard2"); got <= 0 {
		t.Errorf("shard10 sorts before shard2: %d", got)
	}
}
