package compare

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/stats"
)

var t0 = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

func doneRun(name string, phase benchv1.RunLifecycle, completed *time.Time) benchv1.BenchmarkRun {
	r := benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name)}}
	r.Status.Phase = phase
	if completed != nil {
		r.Status.CompletionTime = &metav1.Time{Time: *completed}
	}
	return r
}

func at(h int) *time.Time { t := t0.Add(time.Duration(h) * time.Hour); return &t }

// HistoryRuns keeps the other Succeeded runs completed no later than the
// run, oldest first, the latest window of them.
func TestHistoryRuns(t *testing.T) {
	run := doneRun("now", benchv1.RunSucceeded, at(10))
	cands := []benchv1.BenchmarkRun{
		doneRun("h3", benchv1.RunSucceeded, at(3)),
		doneRun("later", benchv1.RunSucceeded, at(11)),
		doneRun("h1", benchv1.RunSucceeded, at(1)),
		doneRun("failed", benchv1.RunFailed, at(2)),
		doneRun("h10", benchv1.RunSucceeded, at(10)), // at the same time: kept
		doneRun("running", benchv1.RunRunning, nil),
		doneRun("h2", benchv1.RunSucceeded, at(2)),
		doneRun("no-time", benchv1.RunSucceeded, nil),
		invalid(doneRun("invalid", benchv1.RunSucceeded, at(4))),
		run, // itself
	}
	names := func(rs []*benchv1.BenchmarkRun) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Name)
		}
		return out
	}
	for _, tc := range []struct {
		window int
		want   []string
	}{
		{0, []string{"h1", "h2", "h3", "h10"}},
		{30, []string{"h1", "h2", "h3", "h10"}},
		{2, []string{"h3", "h10"}},
	} {
		if got := names(HistoryRuns(&run, cands, tc.window)); !slices.Equal(got, tc.want) {
			t.Errorf("window %d: %v, want %v", tc.window, got, tc.want)
		}
	}
	unfinished := doneRun("unfinished", benchv1.RunRunning, nil)
	if got := HistoryRuns(&unfinished, cands, 0); len(got) != 0 {
		t.Errorf("a run that has not completed has a history: %v", names(got))
	}
}

// invalid marks a run's Valid condition False.
func invalid(r benchv1.BenchmarkRun) benchv1.BenchmarkRun {
	r.Status.Conditions = append(r.Status.Conditions, metav1.Condition{Type: benchv1.ConditionValid, Status: metav1.ConditionFalse,
		Reason: string(benchv1.ReasonTooManyErrors)})
	return r
}

func TestUsable(t *testing.T) {
	valid := doneRun("v", benchv1.RunSucceeded, at(1))
	valid.Status.Conditions = []metav1.Condition{{Type: benchv1.ConditionValid, Status: metav1.ConditionTrue}}
	for _, c := range []struct {
		run  benchv1.BenchmarkRun
		want bool
	}{
		{valid, true},
		{doneRun("before-the-condition", benchv1.RunSucceeded, at(1)), true},
		{invalid(doneRun("i", benchv1.RunSucceeded, at(1))), false},
		{doneRun("f", benchv1.RunFailed, at(1)), false},
	} {
		if got := Usable(&c.run); got != c.want {
			t.Errorf("%s: usable %v", c.run.Name, got)
		}
	}
}

func TestHistorySelector(t *testing.T) {
	run := &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{Loaders: 2,
		Compare: &benchv1.CompareSpec{Baseline: benchv1.CompareBaseline{History: &benchv1.HistoryBaseline{Window: 30}}}}}
	run.Status.Environment = &benchv1.EnvironmentStatus{Fingerprint: "fp1"}
	hash, err := SpecHash(&run.Spec)
	if err != nil {
		t.Fatal(err)
	}
	sel, err := RunHistorySelector(run)
	if err != nil || sel.String() != benchv1.LabelFingerprint+"=fp1,"+benchv1.LabelSpecHash+"="+hash {
		t.Errorf("default selector %v, %v", sel, err)
	}
	// What the gate does not measure leaves the hash alone.
	other := run.Spec.DeepCopy()
	other.Compare, other.Cleanup = nil, benchv1.CleanupRetain
	if h, _ := SpecHash(other); h != hash {
		t.Errorf("compare and cleanup change the hash: %s, %s", h, hash)
	}
	// Nor does security, which the fingerprint records: the hash of a run
	// recorded before spec.security existed (none) is kept.
	other.Security = &benchv1.SecuritySpec{NetworkPolicy: ptr.To(true), Auth: true}
	if h, _ := SpecHash(other); h != hash {
		t.Errorf("security changes the hash: %s, %s", h, hash)
	}
	// Nor does the default layout (a run recorded before placement.layout
	// existed had none); Spread does.
	other.Placement.Layout = benchv1.LayoutSameNode
	if h, _ := SpecHash(other); h != hash {
		t.Errorf("layout SameNode changes the hash: %s, %s", h, hash)
	}
	other.Placement.Layout = benchv1.LayoutSpread
	if h, _ := SpecHash(other); h == hash {
		t.Error("layout Spread does not change the hash")
	}
	other.Placement.Layout = benchv1.LayoutSameNode
	other.Loaders = 3
	if h, _ := SpecHash(other); h == hash {
		t.Error("loaders do not change the hash")
	}
	run.Spec.Compare.Baseline.History.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "db"}}
	if sel, err := RunHistorySelector(run); err != nil || sel.String() != "team=db" {
		t.Errorf("spec's selector: %v, %v", sel, err)
	}
	// A sweep cell's history is narrowed to its axis values.
	sel, err = HistorySelector(run.Spec.Compare.Baseline.History, "fp1", hash, map[string]string{"threads": "8", "pool": "10"})
	if want := "axis.bench.mongobench.io/pool=10,axis.bench.mongobench.io/threads=8,team=db"; err != nil || sel.String() != want {
		t.Errorf("a cell's selector: %v, %v; want %s", sel, err, want)
	}
	run.Spec.Compare.Baseline.History.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "x", Operator: "Nope"}}}
	if _, err := RunHistorySelector(run); err == nil {
		t.Error("an invalid selector was accepted")
	}
	run.Spec.Compare.Baseline = benchv1.CompareBaseline{RunRef: "x"}
	if _, err := RunHistorySelector(run); err == nil {
		t.Error("a run compared with a run has a history selector")
	}
}

func TestMetricValue(t *testing.T) {
	run := &benchv1.BenchmarkRun{}
	run.Status.Results = []benchv1.PhaseResult{{
		Name: "S3", Throughput: 1500, P99Micros: 900, RuntimeMillis: 2000,
		OperationStats: []benchv1.OperationResult{
			{Name: "READ", Count: 2000, AverageMicros: 300, P99Micros: 800, P999Micros: 1200,
				Intended: &benchv1.IntendedLatency{P99Micros: 45_000}},
			{Name: "UPDATE", Count: 1000, AverageMicros: 600, P99Micros: 1000, P999Micros: 2000},
		},
		IntendedP99Micros: ptr.To[int64](50_000),
	}}
	for _, tc := range []struct {
		m    benchv1.CompareMetric
		want float64
		ok   bool
		name string
		d    Direction
	}{
		{benchv1.CompareMetric{Phase: "S3", Metric: benchv1.MetricThroughput}, 1500, true, "S3 throughput", HigherIsBetter},
		{benchv1.CompareMetric{Phase: "S3", Metric: benchv1.MetricP99}, 900, true, "S3 p99", LowerIsBetter},
		{benchv1.CompareMetric{Phase: "S3", Metric: benchv1.MetricMean}, 400, true, "S3 mean", LowerIsBetter},
		{benchv1.CompareMetric{Phase: "S3", Operation: "READ", Metric: benchv1.MetricThroughput}, 1000, true, "S3 READ throughput", HigherIsBetter},
		{benchv1.CompareMetric{Phase: "S3", Operation: "UPDATE", Metric: benchv1.MetricP999}, 2000, true, "S3 UPDATE p999", LowerIsBetter},
		{benchv1.CompareMetric{Phase: "S3", Operation: "READ", Metric: benchv1.MetricMean, Direction: benchv1.HigherIsBetter}, 300, true, "S3 READ mean", HigherIsBetter},
		{benchv1.CompareMetric{Phase: "S3", Operation: "SCAN", Metric: benchv1.MetricP99}, 0, false, "S3 SCAN p99", LowerIsBetter},
		{benchv1.CompareMetric{Phase: "S3", Metric: benchv1.MetricIntendedP99}, 50_000, true, "S3 intendedP99", LowerIsBetter},
		{benchv1.CompareMetric{Phase: "S3", Operation: "READ", Metric: benchv1.MetricIntendedP99}, 45_000, true, "S3 READ intendedP99", LowerIsBetter},
		{benchv1.CompareMetric{Phase: "S3", Operation: "UPDATE", Metric: benchv1.MetricIntendedP99}, 0, false, "S3 UPDATE intendedP99", LowerIsBetter},
		{benchv1.CompareMetric{Phase: "S4", Metric: benchv1.MetricThroughput}, 0, false, "S4 throughput", HigherIsBetter},
	} {
		v, ok := MetricValue(run, tc.m)
		if v != tc.want || ok != tc.ok || MetricName(tc.m) != tc.name || MetricDirection(tc.m) != tc.d {
			t.Errorf("%+v: %v %v %q %v", tc.m, v, ok, MetricName(tc.m), MetricDirection(tc.m))
		}
	}
}

func TestOptionsFor(t *testing.T) {
	m := benchv1.CompareMetric{Phase: "S3", Metric: benchv1.MetricThroughput}
	spec := &benchv1.CompareSpec{Baseline: benchv1.CompareBaseline{RunRef: "x"}}
	if o := OptionsFor(spec, m); o != (HistoryOptions{PValue: 0.001, MinMagnitudePercent: 5, MinRuns: 5, MaxRegressionPercent: 10}) {
		t.Errorf("defaults: %+v", o)
	}
	p, mag, maxReg := 0.01, 3.0, 7.0
	spec = &benchv1.CompareSpec{PValue: &p, MinMagnitudePercent: &mag,
		Baseline: benchv1.CompareBaseline{History: &benchv1.HistoryBaseline{Window: 30, MinRuns: 8}}}
	m.MaxRegressionPercent = &maxReg
	if o := OptionsFor(spec, m); o != (HistoryOptions{PValue: 0.01, MinMagnitudePercent: 3, MinRuns: 8, MaxRegressionPercent: 7}) {
		t.Errorf("set: %+v", o)
	}
	// 0 is a magnitude, not "unset": every significant change counts.
	zero := 0.0
	spec.MinMagnitudePercent = &zero
	if o := OptionsFor(spec, m); o.MinMagnitudePercent <= 0 || o.MinMagnitudePercent > 1e-300 {
		t.Errorf("minMagnitudePercent 0 became %g", o.MinMagnitudePercent)
	}
	r, err := AgainstHistory([]float64{100, 101, 99, 100, 101, 99, 100, 100}, []float64{97}, HigherIsBetter, OptionsFor(spec, m))
	if err != nil || r.Verdict != Regressed {
		t.Errorf("a significant -3%% with minMagnitudePercent 0: %+v %v", r, err)
	}
}

// HistoryRegime is the regime AgainstHistory tests against.
func TestHistoryRegime(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	step := append(noisy(rng, 20, 1000, 0.02), noisy(rng, 10, 1150, 0.02)...)
	o := HistoryOptions{MaxRegressionPercent: 10}
	r := HistoryRegime(step, o)
	if r.Start != 20 || len(r.ChangePoints) == 0 {
		t.Fatalf("a 15%% step at 20: %+v", r)
	}
	if want := stats.LastRegime(step, stats.RegimePValue, 0.05); len(want) != len(step)-r.Start {
		t.Errorf("regime of %d runs, LastRegime %d", len(step)-r.Start, len(want))
	}
	res, err := AgainstHistory(step, []float64{1150}, HigherIsBetter, o)
	if err != nil || res.Basis != "10-run history" || res.Baseline != stats.Median(step[20:]) {
		t.Errorf("AgainstHistory: %+v %v", res, err)
	}
	// A 3% step is a change point, but smaller than the minimum magnitude.
	small := append(noisy(rng, 20, 1000, 0.002), noisy(rng, 10, 1030, 0.002)...)
	if r := HistoryRegime(small, o); r.Start != 0 || len(r.ChangePoints) != 1 {
		t.Errorf("a 3%% step: %+v", r)
	}
	if r := HistoryRegime(step[:4], o); r.Start != 0 || r.ChangePoints != nil {
		t.Errorf("below MinRuns: %+v", r)
	}
}

func TestWindow(t *testing.T) {
	for w, want := range map[int32]int{0: 2, 1: 2, 2: 2, 30: 30} {
		if got := Window(&benchv1.HistoryBaseline{Window: w}); got != want {
			t.Errorf("Window(%d) = %d, want %d", w, got, want)
		}
	}
}
