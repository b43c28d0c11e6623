package sweep

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// valid sets a run's Valid condition as the run controller does when it
// ends: True, or False with the first problem's reason.
func valid(run *benchv1.BenchmarkRun, reason benchv1.Reason) *benchv1.BenchmarkRun {
	c := metav1.Condition{Type: benchv1.ConditionValid, Status: metav1.ConditionTrue, Reason: string(benchv1.ReasonValid),
		Message: "no check failed", LastTransitionTime: metav1.Now()}
	if reason != benchv1.ReasonValid {
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, string(reason), "phase S2: the test made it invalid"
	}
	run.Status.Conditions = append(run.Status.Conditions, c)
	return run
}

func withIntended(r benchv1.PhaseResult, p99 int64) benchv1.PhaseResult {
	r.IntendedP99Micros = ptr.To(p99)
	return r
}

// TestAggregateLeavesInvalidRunsOut: a run that succeeded but is not
// valid is counted and named in its cell, and enters none of the numbers:
// medians, min/max, CoV, % against the baseline, knees, best. A cell
// whose successful runs are all invalid has no results, like a cell
// whose runs failed.
func TestAggregateLeavesInvalidRunsOut(t *testing.T) { //nolint:gocyclo // one table of checks
	spec := &benchv1.BenchmarkSweepSpec{
		Template: template(),
		Axes: []benchv1.SweepAxis{{Name: "topologies", Topologies: []benchv1.SweepTopology{
			{Mode: benchv1.TopologyStandalone},
			{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](2)},
			{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](4)},
		}}},
		Repetitions: 3,
		Baseline:    map[string]benchv1.SweepValueName{"topologies": "standalone"},
	}
	axes, cells, err := Expand(spec)
	if err != nil {
		t.Fatal(err)
	}
	plan := Plan("s", len(cells), 3, benchv1.SweepSequential, 0)
	failed := &benchv1.BenchmarkRun{Status: benchv1.BenchmarkRunStatus{Phase: benchv1.RunFailed, Conditions: []metav1.Condition{
		{Type: benchv1.ConditionFailed, Status: metav1.ConditionTrue, Reason: "TopologyLost", LastTransitionTime: metav1.Now()},
		{Type: benchv1.ConditionValid, Status: metav1.ConditionFalse, Reason: string(benchv1.ReasonRunFailed), LastTransitionTime: metav1.Now()}}}}
	runs := map[string]*benchv1.BenchmarkRun{
		// standalone: 1000 (valid), 1100 (from before the condition), and
		// a saturated loader's 5000, which must not count.
		"s-0-r1": valid(succeeded(withIntended(result("S2", 1000, 900), 1500), result("S5", 2000, 500)), benchv1.ReasonValid),
		"s-0-r2": succeeded(withIntended(result("S2", 1100, 800), 1700), result("S5", 2100, 510)),
		"s-0-r3": valid(succeeded(withIntended(result("S2", 5000, 90), 99999), result("S5", 9000, 50)), benchv1.ReasonLoaderSaturated),
		// 2 shards: two invalid runs (the fastest of the sweep) and a
		// failed one: no valid run, no numbers.
		"s-1-r1": valid(succeeded(result("S2", 9999, 100), result("S5", 9999, 100)), benchv1.ReasonPrimaryChanged),
		"s-1-r2": valid(succeeded(result("S2", 9998, 100), result("S5", 9998, 100)), benchv1.ReasonProcessRestarted),
		"s-1-r3": failed,
		// 4 shards: 2000, 2100, 2050, all valid, no intended latencies.
		"s-2-r1": valid(succeeded(result("S2", 2000, 600), result("S5", 3000, 400)), benchv1.ReasonValid),
		"s-2-r2": valid(succeeded(result("S2", 2100, 600), result("S5", 3100, 400)), benchv1.ReasonValid),
		"s-2-r3": valid(succeeded(result("S2", 2050, 600), result("S5", 3050, 400)), benchv1.ReasonValid),
	}
	agg := AggregateRuns(spec, axes, cells, plan, runs)

	if agg.RunsInvalid != 3 || agg.CellsInvalid != 1 || agg.CellsFailed != 1 || agg.CellsDone != 3 || agg.RunsFailed != 1 {
		t.Errorf("counts: runsInvalid %d cellsInvalid %d cellsFailed %d cellsDone %d runsFailed %d",
			agg.RunsInvalid, agg.CellsInvalid, agg.CellsFailed, agg.CellsDone, agg.RunsFailed)
	}
	sa := agg.Cells[0]
	if sa.InvalidRuns != 1 || sa.Phase != benchv1.SweepSucceeded {
		t.Errorf("standalone: %d invalid runs, phase %s", sa.InvalidRuns, sa.Phase)
	}
	if r := sa.Runs[0]; r.Valid == nil || !*r.Valid || r.InvalidReason != "" {
		t.Errorf("a valid run's entry: %+v", r)
	}
	if r := sa.Runs[1]; r.Valid != nil || r.InvalidReason != "" {
		t.Errorf("a run without the condition: %+v", r)
	}
	if r := sa.Runs[2]; r.Valid == nil || *r.Valid || r.InvalidReason != string(benchv1.ReasonLoaderSaturated) {
		t.Errorf("an invalid run's entry: %+v", r)
	}
	s2 := sa.Results[0]
	if s2.Repetitions != 2 || s2.MedianThroughput != 1050 || s2.MinThroughput != 1000 || s2.MaxThroughput != 1100 || s2.MedianP99Micros != 850 {
		t.Errorf("standalone S2 over the valid runs: %+v", s2)
	}
	// Sample sd of (1000, 1100) = 70.71…, mean 1050.
	if want := 100 / math.Sqrt2 / 1050 * 100; s2.ThroughputCoVPercent == nil || math.Abs(*s2.ThroughputCoVPercent-want) > 1e-9 {
		t.Errorf("CoV %v, want %v", s2.ThroughputCoVPercent, want)
	}
	if s2.MedianIntendedP99Micros == nil || *s2.MedianIntendedP99Micros != 1600 {
		t.Errorf("median intended p99 %v, want 1600 (the invalid run's 99999 left out)", s2.MedianIntendedP99Micros)
	}
	two := agg.Cells[1]
	if two.InvalidRuns != 2 || len(two.Results) != 0 || two.Phase != benchv1.SweepPartiallySucceeded {
		t.Errorf("2-shards: %d invalid, results %+v, phase %s", two.InvalidRuns, two.Results, two.Phase)
	}
	if r := two.Runs[2]; r.Valid != nil || r.Reason != "TopologyLost" {
		t.Errorf("a failed run's entry says nothing of validity: %+v", r)
	}
	four := agg.Cells[2].Results[0]
	if four.MedianIntendedP99Micros != nil {
		t.Errorf("4-shards measured no intended latencies: %v", *four.MedianIntendedP99Micros)
	}
	if want := (2050.0 - 1050) / 1050 * 100; four.ThroughputChangePercent == nil || math.Abs(*four.ThroughputChangePercent-want) > 1e-9 {
		t.Errorf("4-shards vs the baseline's valid runs: %v, want %v", four.ThroughputChangePercent, want)
	}
	if agg.Best != "4-shards: 3050 ops/s" {
		t.Errorf("best %q: the invalid runs' 9999 must not win", agg.Best)
	}
	for _, k := range agg.Knees {
		if k.BestValue == "2-shards" || k.Value == "2-shards" {
			t.Errorf("knee from an invalid cell: %+v", k)
		}
	}
}

// TestStatusBudgetAtTheLimit: the largest sweep CheckSize accepts of a
// shape whose cells dominate its status (16 phases measuring intended
// latencies, an axis of up to 64 values times a numeric one of 2, 2
// repetitions)
// has a status that fits in MaxSweepStatusBytes at its worst — every
// number at full precision, an intended p99 in every phase, the second
// repetition of every cell invalid with the longest reason — and one
// more value is refused.
func TestStatusBudgetAtTheLimit(t *testing.T) {
	shape := func(values int) (*benchv1.BenchmarkSweepSpec, []Axis, []Cell) {
		tmpl := template()
		tmpl.Measurement.Interval = benchv1.MeasureBoth
		for i := len(tmpl.Phases); i < 16; i++ {
			tmpl.Phases = append(tmpl.Phases, benchv1.PhaseSpec{Name: strings.Repeat("p", 30) + strconv.Itoa(i), Type: benchv1.PhaseRun,
				Target: ptr.To[int64](1000)})
		}
		axis := benchv1.SweepAxis{Name: strings.Repeat("a", 32)}
		for v := 0; v < values; v++ {
			axis.Values = append(axis.Values, benchv1.SweepValue{Name: strings.Repeat("x", 60) + strconv.Itoa(100+v)})
		}
		spec := &benchv1.BenchmarkSweepSpec{Template: tmpl, Repetitions: 2, Axes: []benchv1.SweepAxis{axis,
			{Name: strings.Repeat("b", 32), Values: []benchv1.SweepValue{{Name: strings.Repeat("y", 63), Number: ptr.To(1.0)},
				{Name: strings.Repeat("z", 63), Number: ptr.To(2.0)}}}}}
		axes, cells, err := Expand(spec)
		if err != nil {
			t.Fatal(err)
		}
		return spec, axes, cells
	}
	values := 0
	for v := 1; v <= 64; v++ {
		spec, axes, cells := shape(v)
		if CheckSize(spec, axes, cells) != nil {
			break
		}
		values = v
	}
	if values == 0 || values == 64 {
		t.Fatalf("the limit is at %d values: the shape does not reach it", values)
	}
	spec, axes, cells := shape(values)
	budget, err := statusBytes(spec, axes, cells)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("s", 32)
	plan := Plan(name, len(cells), 2, benchv1.SweepShuffled, 1)
	runs := map[string]*benchv1.BenchmarkRun{}
	for _, p := range plan {
		run := succeeded()
		run.UID = "5f2a7c1e-9b7d-4f3e-8a61-0c2d4e6f8a9b"
		run.Status.Environment.Fingerprint = "0123456789abcdef"
		for i, ph := range cells[p.Cell].Spec.Phases {
			x := float64(p.Cell+1)*9876.54321012345 + float64(p.Repetition)*math.E + float64(i)
			r := withIntended(result(ph.Name, x, int64(x*7), benchv1.OperationResult{Name: "READ", Count: 1 << 40, Errors: 1 << 20, AverageMicros: x / 3}),
				math.MaxInt64/3)
			r.Server = []benchv1.ServerSummary{{PeakConnections: ptr.To[int64](math.MaxInt32), MaxCacheDirtyPercent: ptr.To(x / 1e3)}}
			run.Status.Results = append(run.Status.Results, r)
		}
		reason := benchv1.ReasonValid
		if p.Repetition > 1 {
			reason = benchv1.ReasonConnectionLimit
		}
		runs[p.Name] = valid(run, reason)
	}
	agg := AggregateRuns(spec, axes, cells, plan, runs)
	st := benchv1.BenchmarkSweepStatus{Phase: benchv1.SweepPartiallySucceeded, Seed: ptr.To[int64](math.MaxInt64), CellsTotal: int32(len(cells)),
		CellsDone: agg.CellsDone, CellsInvalid: agg.CellsInvalid, RunsInvalid: agg.RunsInvalid, Cells: agg.Cells, Knees: agg.Knees,
		Baseline: agg.Baseline, Best: agg.Best, SummaryPhase: agg.SummaryPhase, Order: names(plan)}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("at %d values (%d cells): real status %d KiB, budgeted %d KiB, limit %d KiB", values, len(cells), len(b)>>10, budget>>10, benchv1.MaxSweepStatusBytes>>10)
	if agg.RunsInvalid != int32(len(cells)) || st.Cells[0].Results[0].MedianIntendedP99Micros == nil {
		t.Fatalf("the status lacks the new fields: %d invalid runs", agg.RunsInvalid)
	}
	if len(b) > budget {
		t.Errorf("the budget (%d bytes) underestimates the real status (%d bytes)", budget, len(b))
	}
	if len(b)+16<<10 > benchv1.MaxSweepStatusBytes {
		t.Errorf("an accepted sweep's status (%d bytes, and its conditions) exceeds %d bytes", len(b), benchv1.MaxSweepStatusBytes)
	}
}
