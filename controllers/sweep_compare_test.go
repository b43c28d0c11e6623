package controllers_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/sweep"
)

// finishChildAt finishes a child run with the given S2 throughput (load and
// S5 get fixed numbers) and the labels the run controller would have put
// on it: the fingerprint and the spec hash that select its history.
func (k *cluster) finishChildAt(name, hash string, s2 float64, conds ...metav1.Condition) {
	k.t.Helper()
	run := k.run(name)
	run.Labels[benchv1.LabelFingerprint] = "fp-test"
	run.Labels[benchv1.LabelSpecHash] = hash
	if err := k.c.Update(k.ctx(), run); err != nil {
		k.t.Fatalf("label %s: %v", name, err)
	}
	n := numbersFor(0, 0, "load", "S2", "S5")
	s := n["S2"]
	s.throughput = s2
	n["S2"] = s
	k.finishChild(name, n, conds...)
}

// historyRun is an earlier, succeeded run of a cell's history: the labels
// of a run with the cell's spec, and the given S2 throughput.
func (k *cluster) historyRun(name, hash, threads string, s2 float64, completed time.Time) {
	k.t.Helper()
	run := newRun(name, benchv1.TopologyStandalone, 0, 1)
	run.Labels = map[string]string{benchv1.LabelFingerprint: "fp-test", benchv1.LabelSpecHash: hash,
		benchv1.LabelAxisPrefix + "threads": threads}
	k.create(run)
	run = k.run(name)
	run.Status.Phase = benchv1.RunSucceeded
	run.Status.CompletionTime = &metav1.Time{Time: completed}
	run.Status.Results = []benchv1.PhaseResult{{Name: "S2", Type: benchv1.PhaseRun, RuntimeMillis: 1000, Throughput: s2,
		StartTime: metav1.Time{Time: completed}, CompletionTime: metav1.Time{Time: completed}, StopReason: "Completed"}}
	if err := k.c.Status().Update(k.ctx(), run); err != nil {
		k.t.Fatalf("history run %s: %v", name, err)
	}
}

// runGatedSweep creates a two-cell sweep (threads 4 and 32, three
// repetitions, all at once) with the given compare, finishes each cell's
// runs at the given S2 throughputs and returns the ended sweep.
func (k *cluster) runGatedSweep(name string, c *benchv1.CompareSpec, s2 map[string][]float64) *benchv1.BenchmarkSweep {
	k.t.Helper()
	return k.runGatedSweepWith(name, c, s2, nil)
}

// runGatedSweepWith is runGatedSweep whose runs named in invalid end with
// a Valid condition False of the given reason (the others True).
func (k *cluster) runGatedSweepWith(name string, c *benchv1.CompareSpec, s2 map[string][]float64,
	invalid map[string]benchv1.Reason) *benchv1.BenchmarkSweep {
	k.t.Helper()
	return k.gatedSweep(name, c, func(run, threads string, rep int) {
		valid := validCondition
		if reason, ok := invalid[run]; ok {
			valid.Status, valid.Reason, valid.Message = metav1.ConditionFalse, string(reason), "phase S2: the test made it invalid"
		}
		k.finishChildAt(run, "hash-"+threads, s2[threads][rep-1], valid)
	})
}

// validCondition is the Valid condition of a run no check failed.
var validCondition = metav1.Condition{Type: benchv1.ConditionValid, Status: metav1.ConditionTrue, Reason: string(benchv1.ReasonValid),
	Message: "no check failed"}

// gatedSweep creates a two-cell sweep (threads 4 and 32, three
// repetitions, all at once) with the given compare, has finish end each
// of its runs and returns the ended sweep.
func (k *cluster) gatedSweep(name string, c *benchv1.CompareSpec, finish func(run, threads string, rep int)) *benchv1.BenchmarkSweep {
	k.t.Helper()
	sw := newSweep(name, benchv1.SweepAxis{Name: "threads", Threads: []int32{4, 32}})
	sw.Spec.Repetitions, sw.Spec.Parallelism = 3, 6
	sw.Spec.Compare = c
	k.createSweep(sw)
	var names []string
	for cell := range 2 {
		for rep := 1; rep <= 3; rep++ {
			names = append(names, sweep.RunName(name, cell, rep))
		}
	}
	children := k.waitChildren(name, names...)
	for _, n := range names {
		_, rep, _ := sweep.ParseRunName(name, n)
		finish(n, children[n].Labels[benchv1.LabelAxisPrefix+"threads"], rep)
	}
	return k.waitSweep(name, "ended", func(s *benchv1.BenchmarkSweep) bool { return sweep.Terminal(s.Status.Phase) })
}

// runFailoverSweep is gatedSweep whose runs' S2 had one StepDown at 30 s,
// after which their slowest loader recovered writes after writes[threads]
// [rep-1] µs (negative: one of the two loaders never did).
func (k *cluster) runFailoverSweep(name string, c *benchv1.CompareSpec, writes map[string][]int64) *benchv1.BenchmarkSweep {
	k.t.Helper()
	return k.gatedSweep(name, c, func(run, threads string, rep int) {
		w := &benchv1.LoaderTimes{MaxMicros: writes[threads][rep-1], MedianMicros: writes[threads][rep-1] * 9 / 10, Loaders: 2}
		if w.MaxMicros < 0 {
			w = &benchv1.LoaderTimes{MaxMicros: 800_000, MedianMicros: 800_000, Loaders: 1, Missing: 1}
		}
		n := numbersFor(0, 0, "load", "S2", "S5")
		s2 := n["S2"]
		s2.disruptions = []benchv1.DisruptionResult{{Index: 0, Action: benchv1.DisruptionStepDown, At: metav1.Duration{Duration: 30 * time.Second}, Instant: metav1.NowMicro(),
			Outcome: benchv1.DisruptionOutcome{State: benchv1.DisruptionDone}, WriteUnavailable: w}}
		n["S2"] = s2
		k.finishChild(run, n, validCondition)
	})
}

// TestSweepRegressionGate: spec.compare on a sweep judges each cell's
// repetitions against the cell's history (its own runs excluded), against
// the same cell of another sweep, and against a fixed cell of another
// sweep, their throughput and the unavailability of their StepDowns; the
// Regressed condition sums the cells up.
func TestSweepRegressionGate(t *testing.T) { //nolint:gocyclo // one scenario, step by step
	k := newCluster(t)
	startManagerWith(t, &counters{}, testLimits, managerOptions{sweepsOnly: true})
	s2 := []benchv1.CompareMetric{{Phase: "S2", Metric: benchv1.MetricThroughput}}

	// Six earlier runs per cell at 1000 ops/s (±0.5%), and a run of
	// another cell's history at a wildly different level, which the
	// cell's labels keep out.
	start := time.Now().Add(-time.Hour)
	for i, v := range []float64{1000, 1004, 997, 1002, 995, 1003} {
		k.historyRun(fmt.Sprintf("h4-%d", i), "hash-4", "4", v, start.Add(time.Duration(i)*time.Minute))
		k.historyRun(fmt.Sprintf("h32-%d", i), "hash-32", "32", v, start.Add(time.Duration(i)*time.Minute))
	}
	k.historyRun("other", "hash-other", "4", 10, start)

	history := &benchv1.CompareSpec{Baseline: benchv1.CompareBaseline{History: &benchv1.HistoryBaseline{Window: 30, MinRuns: 5}}, Metrics: s2}
	st := k.runGatedSweep("gate", history, map[string][]float64{"4": {1001, 998, 1003}, "32": {800, 806, 797}})
	if st.Status.Phase != benchv1.SweepSucceeded {
		t.Fatalf("phase %s", st.Status.Phase)
	}
	c := sweepCond(st, benchv1.ConditionRegressed)
	if c == nil || c.Status != metav1.ConditionTrue || c.Reason != string(benchv1.ReasonRegression) ||
		!strings.HasPrefix(c.Message, "1 of 2 cells regressed: cell 32: S2 throughput -20.") || !strings.Contains(c.Message, "% vs 6-run history (p=") {
		t.Fatalf("Regressed = %+v", c)
	}
	// 6 runs, not 9: the sweep's own runs, which carry the same labels,
	// are not their own history.
	if cm := st.Status.Cells[0].Comparison; len(cm) != 1 || cm[0].Verdict != benchv1.VerdictUnchanged || cm[0].Basis != "6-run history" ||
		cm[0].Current != 1001 || cm[0].PValue == nil {
		t.Errorf("cell 4: %+v", cm)
	}
	if cm := st.Status.Cells[1].Comparison; len(cm) != 1 || cm[0].Verdict != benchv1.VerdictRegressed || *cm[0].PValue >= 0.001 ||
		cm[0].Current != 800 || cm[0].ChangePercent > -19 || cm[0].ChangePercent < -21 {
		t.Errorf("cell 32: %+v", cm)
	}

	// Against the same cells of sweep gate: 4 is unchanged, 32 is back
	// at 1000, +25% on gate's 800.
	same := &benchv1.CompareSpec{Baseline: benchv1.CompareBaseline{SweepRef: &benchv1.SweepCellRef{Name: "gate"}}, Metrics: s2}
	st = k.runGatedSweep("next", same, map[string][]float64{"4": {1000, 1002, 999}, "32": {1000, 1001, 999}})
	if c := sweepCond(st, benchv1.ConditionRegressed); c == nil || c.Status != metav1.ConditionFalse ||
		c.Message != "no regression in 2 cells against the same cells of sweep gate: 1 unchanged, 1 improved" {
		t.Errorf("against gate's cells: %+v", c)
	}
	if cm := st.Status.Cells[1].Comparison; len(cm) != 1 || cm[0].Verdict != benchv1.VerdictImproved || cm[0].Baseline != 800 ||
		cm[0].Basis != "sweep gate cell threads=32 (3 runs)" || cm[0].PValue != nil {
		t.Errorf("cell 32 against gate's: %+v", cm)
	}

	// Every cell against gate's threads=4 cell (median 1001); S5 too.
	fixed := &benchv1.CompareSpec{Baseline: benchv1.CompareBaseline{SweepRef: &benchv1.SweepCellRef{Name: "gate",
		Cell: map[string]benchv1.SweepValueName{"threads": "4"}}}, Metrics: append(s2,
		benchv1.CompareMetric{Phase: "S5", Metric: benchv1.MetricThroughput})}
	st = k.runGatedSweep("fixed", fixed, map[string][]float64{"4": {1000, 1002, 999}, "32": {850, 851, 849}})
	c = sweepCond(st, benchv1.ConditionRegressed)
	if c == nil || c.Status != metav1.ConditionTrue || c.Message != "1 of 2 cells regressed: cell 32: S2 throughput -15.1% vs sweep gate cell threads=4 (3 runs)" {
		t.Errorf("against gate/4: %+v", c)
	}
	if cm := st.Status.Cells[1].Comparison; len(cm) != 2 || cm[0].Basis != "sweep gate cell threads=4 (3 runs)" || cm[1].Verdict != benchv1.VerdictUnchanged {
		t.Errorf("cell 32 against gate/4: %+v", cm)
	}

	// Nothing to compare with: Unknown, and the sweep still succeeded.
	none := &benchv1.CompareSpec{Baseline: benchv1.CompareBaseline{SweepRef: &benchv1.SweepCellRef{Name: "nope"}}, Metrics: s2}
	st = k.runGatedSweep("lonely", none, map[string][]float64{"4": {1, 2, 3}, "32": {1, 2, 3}})
	if c := sweepCond(st, benchv1.ConditionRegressed); st.Status.Phase != benchv1.SweepSucceeded || c == nil || c.Status != metav1.ConditionUnknown ||
		c.Message != "no cell could be compared; not compared: cell 4 (sweep nope has no succeeded, valid run in cell threads=4), "+
			"cell 32 (sweep nope has no succeeded, valid run in cell threads=32)" {
		t.Errorf("no baseline: %s %+v", st.Status.Phase, c)
	}

	// The unavailability of a StepDown against the same cells of another
	// sweep: the median of each cell's slowest loaders. Cell 32's
	// failovers got slower by 82%, beyond its maxRegressionPercent 50.
	writes := []benchv1.CompareMetric{{Phase: "S2", Metric: benchv1.MetricUnavailabilityWrites, MaxRegressionPercent: ptr.To(50.0)}}
	k.runFailoverSweep("fo-ref", nil, map[string][]int64{"4": {1_000_000, 1_100_000, 1_200_000}, "32": {1_000_000, 1_100_000, 1_200_000}})
	vsRef := &benchv1.CompareSpec{Baseline: benchv1.CompareBaseline{SweepRef: &benchv1.SweepCellRef{Name: "fo-ref"}}, Metrics: writes}
	st = k.runFailoverSweep("fo-gate", vsRef, map[string][]int64{"4": {1_100_000, 1_000_000, 1_300_000}, "32": {2_000_000, 1_900_000, 2_200_000}})
	if c := sweepCond(st, benchv1.ConditionRegressed); c == nil || c.Status != metav1.ConditionTrue ||
		c.Message != "1 of 2 cells regressed: cell 32: S2 unavailabilityWrites +81.8% vs sweep fo-ref cell threads=32 (3 runs)" {
		t.Errorf("slower failovers: %+v", c)
	}
	if cm := st.Status.Cells[0].Comparison; len(cm) != 1 || cm[0].Verdict != benchv1.VerdictUnchanged || cm[0].Current != 1_100_000 || cm[0].Baseline != 1_100_000 {
		t.Errorf("cell 4's failovers: %+v", cm)
	}
	// One repetition whose loader never recovered fails its cell, whatever
	// its other repetitions and the baseline say.
	st = k.runFailoverSweep("fo-unrec", vsRef, map[string][]int64{"4": {1_100_000, -1, 1_000_000}, "32": {1_000_000, 1_100_000, 1_200_000}})
	if c := sweepCond(st, benchv1.ConditionRegressed); c == nil || c.Status != metav1.ConditionTrue ||
		c.Message != "1 of 2 cells regressed: cell 4: S2 unavailabilityWrites: writes never recovered in run fo-unrec-0-r2: "+
			"disruption 0 (StepDown at 30s): 1 of 2 loaders wrote after it and never succeeded" {
		t.Errorf("never recovered: %+v", c)
	}
	if cm := st.Status.Cells[0].Comparison; len(cm) != 1 || cm[0].Verdict != benchv1.VerdictRegressed || cm[0].Current != 1_000_000 ||
		!strings.HasPrefix(cm[0].Basis, "writes never recovered in run fo-unrec-0-r2") {
		t.Errorf("cell 4, never recovered: %+v", cm)
	}

	// A selector the CRD cannot check (In without values): Unknown, saying
	// why, rather than a sweep that ends without a verdict.
	bad := &benchv1.CompareSpec{Baseline: benchv1.CompareBaseline{History: &benchv1.HistoryBaseline{Window: 30, MinRuns: 5,
		Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: metav1.LabelSelectorOpIn}}}}}, Metrics: s2}
	st = k.runGatedSweep("badsel", bad, map[string][]float64{"4": {1, 2, 3}, "32": {1, 2, 3}})
	if c := sweepCond(st, benchv1.ConditionRegressed); st.Status.Phase != benchv1.SweepSucceeded || c == nil || c.Status != metav1.ConditionUnknown ||
		!strings.Contains(c.Message, "compare.baseline.history.selector is invalid") {
		t.Errorf("invalid selector: %s %+v", st.Status.Phase, c)
	}
	k.noReconcileErrors()
}

// TestSweepHistoryLimit: an ending sweep deletes the older ended sweeps
// of its series (same generateName, or the same series label) beyond
// historyLimit; failed sweeps do not count towards the limit, running
// ones and other series are left alone.
func TestSweepHistoryLimit(t *testing.T) {
	k := newCluster(t)
	startManagerWith(t, &counters{}, testLimits, managerOptions{sweepsOnly: true})
	type outcome int
	const (
		succeed outcome = iota
		fail
		keepRunning
	)
	one := func(meta metav1.ObjectMeta, o outcome) string {
		t.Helper()
		sw := newSweep("", benchv1.SweepAxis{Name: "threads", Threads: []int32{4}})
		sw.ObjectMeta = meta
		sw.Spec.HistoryLimit = ptr.To[int32](2)
		k.createSweep(sw)
		child := sweep.RunName(sw.Name, 0, 1)
		k.waitChildren(sw.Name, child)
		switch o {
		case succeed:
			k.finishChild(child, numbersFor(0, 1, "load", "S2", "S5"))
			k.waitSweep(sw.Name, "Succeeded", func(s *benchv1.BenchmarkSweep) bool { return s.Status.Phase == benchv1.SweepSucceeded })
		case fail:
			k.failChild(child, benchv1.ReasonPhaseFailed)
			k.waitSweep(sw.Name, "Failed", func(s *benchv1.BenchmarkSweep) bool { return s.Status.Phase == benchv1.SweepFailed })
		}
		// Creation timestamps have a one-second resolution: the series'
		// order must be theirs, not the random names'. The next sweep is
		// created once the clock (the API server's: the same machine) is a
		// second past this one's timestamp, so its own is a later second.
		for next := sw.CreationTimestamp.Add(time.Second); time.Now().Before(next); {
			time.Sleep(time.Until(next))
		}
		return sw.Name
	}
	exists := func() map[string]bool {
		var list benchv1.BenchmarkSweepList
		if err := k.c.List(k.ctx(), &list, client.InNamespace(k.ns)); err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, sw := range list.Items {
			if sw.DeletionTimestamp.IsZero() {
				out[sw.Name] = true
			}
		}
		return out
	}
	standalone := one(metav1.ObjectMeta{Name: "fixed-name"}, succeed)
	labelled := metav1.ObjectMeta{GenerateName: "nightly-", Labels: map[string]string{benchv1.LabelSeries: "other"}}
	a := []string{one(labelled, succeed), one(labelled, succeed), one(labelled, succeed)}
	nightly := metav1.ObjectMeta{GenerateName: "nightly-"}
	n := []string{one(nightly, succeed), one(nightly, fail), one(nightly, keepRunning), one(nightly, succeed)}
	// n3 ended: its predecessors n1 (failed, not counted) and n0 stay.
	if got := exists(); !got[n[0]] || !got[n[1]] {
		t.Fatalf("n3 pruned within the limit: %v", got)
	}
	n = append(n, one(nightly, succeed))
	k.eventually("the labelled series' oldest and the nightly series' beyond the limit deleted", 30*time.Second, func() (bool, error) {
		got := exists()
		if got[a[0]] || got[n[0]] || got[n[1]] {
			return false, fmt.Errorf("sweeps %v", got)
		}
		return true, nil
	})
	got := exists()
	for _, name := range []string{standalone, a[1], a[2], n[2], n[3], n[4]} {
		if !got[name] {
			t.Errorf("sweep %s was pruned; sweeps %v", name, got)
		}
	}
}

// TestSweepLeavesInvalidRunsOut: runs that succeeded but are not valid
// are named in their cell and left out of its results and of the sweep's
// gate; a cell with no valid run has no results, is not compared, and the
// sweep says so (it still Succeeded: every run did).
func TestSweepLeavesInvalidRunsOut(t *testing.T) { //nolint:gocyclo // one scenario, checked field by field
	k := newCluster(t)
	startManagerWith(t, &counters{}, testLimits, managerOptions{sweepsOnly: true})
	start := time.Now().Add(-time.Hour)
	for i, v := range []float64{1000, 1004, 997, 1002, 995, 1003} {
		k.historyRun(fmt.Sprintf("h4-%d", i), "hash-4", "4", v, start.Add(time.Duration(i)*time.Minute))
		k.historyRun(fmt.Sprintf("h32-%d", i), "hash-32", "32", v, start.Add(time.Duration(i)*time.Minute))
	}
	history := &benchv1.CompareSpec{Baseline: benchv1.CompareBaseline{History: &benchv1.HistoryBaseline{Window: 30, MinRuns: 5}},
		Metrics: []benchv1.CompareMetric{{Phase: "S2", Metric: benchv1.MetricThroughput}}}
	// Cell 4: two valid runs and a saturated loader's 500 ops/s; cell 32:
	// three runs whose primaries changed.
	st := k.runGatedSweepWith("inv", history, map[string][]float64{"4": {1001, 1003, 500}, "32": {1000, 1001, 999}},
		map[string]benchv1.Reason{"inv-0-r3": benchv1.ReasonLoaderSaturated,
			"inv-1-r1": benchv1.ReasonPrimaryChanged, "inv-1-r2": benchv1.ReasonPrimaryChanged, "inv-1-r3": benchv1.ReasonPrimaryChanged})
	if st.Status.Phase != benchv1.SweepSucceeded || st.Status.RunsInvalid != 4 || st.Status.CellsInvalid != 1 || st.Status.CellsFailed != 0 {
		t.Fatalf("phase %s, %d runs invalid, %d cells invalid, %d cells failed", st.Status.Phase, st.Status.RunsInvalid,
			st.Status.CellsInvalid, st.Status.CellsFailed)
	}
	four, thirtyTwo := st.Status.Cells[0], st.Status.Cells[1]
	if four.InvalidRuns != 1 || len(four.Results) == 0 {
		t.Fatalf("cell 4: %d invalid runs, results %+v", four.InvalidRuns, four.Results)
	}
	if r := four.Runs[2]; r.Valid == nil || *r.Valid || r.InvalidReason != string(benchv1.ReasonLoaderSaturated) {
		t.Errorf("inv-0-r3's entry: %+v", r)
	}
	if r := four.Runs[0]; r.Valid == nil || !*r.Valid || r.InvalidReason != "" {
		t.Errorf("inv-0-r1's entry: %+v", r)
	}
	for _, r := range four.Results {
		if r.Name == "S2" && (r.Repetitions != 2 || r.MedianThroughput != 1002 || r.MinThroughput != 1001) {
			t.Errorf("cell 4's S2 over its valid runs: %+v", r)
		}
	}
	if thirtyTwo.InvalidRuns != 3 || len(thirtyTwo.Results) != 0 || thirtyTwo.Phase != benchv1.SweepSucceeded {
		t.Errorf("cell 32: %d invalid runs, results %+v, phase %s", thirtyTwo.InvalidRuns, thirtyTwo.Results, thirtyTwo.Phase)
	}
	if !strings.HasPrefix(st.Status.Best, "4: ") {
		t.Errorf("best %q", st.Status.Best)
	}
	if c := sweepCond(st, benchv1.ConditionComplete); c == nil || c.Message != "all 6 runs of 2 cells succeeded; "+
		"4 of the runs that succeeded are not valid and left out of the results (inv-0-r3: LoaderSaturated, inv-1-r1: PrimaryChanged, "+
		"inv-1-r2: PrimaryChanged, inv-1-r3: PrimaryChanged); 1 cells have no valid run, hence no results: 32" {
		t.Errorf("Complete = %+v", c)
	}
	// The gate judged cell 4's valid runs (median 1002, not 1001 with the
	// invalid 500) and could not judge cell 32.
	if cm := four.Comparison; len(cm) != 1 || cm[0].Current != 1002 || cm[0].Verdict != benchv1.VerdictUnchanged {
		t.Errorf("cell 4's verdict: %+v", cm)
	}
	if len(thirtyTwo.Comparison) != 0 {
		t.Errorf("cell 32 was compared: %+v", thirtyTwo.Comparison)
	}
	if c := sweepCond(st, benchv1.ConditionRegressed); c == nil || c.Status != metav1.ConditionFalse ||
		!strings.HasSuffix(c.Message, "; not compared: cell 32 (no valid run: inv-1-r1 (PrimaryChanged), inv-1-r2 (PrimaryChanged), inv-1-r3 (PrimaryChanged))") {
		t.Errorf("Regressed = %+v", c)
	}
	k.noReconcileErrors()
}
