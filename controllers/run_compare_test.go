package controllers_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/sweep"
)

// s2Throughput is the S2 throughput the harness's loader results give a
// one-loader run of this name (5 s of operations).
func s2Throughput(name string) float64 {
	run := newRun(name, benchv1.TopologyStandalone, 0, 1)
	ops, _, _, _ := expected(run, "S2", 1)
	return float64(ops) / 5
}

// namesNear finds n run names (prefix-<i>) whose S2 throughput lies within
// tol (a fraction) of target: the harness's numbers depend on the name.
func namesNear(prefix string, n int, target, tol float64) []string {
	var out []string
	for i := 0; len(out) < n && i < 100000; i++ {
		name := fmt.Sprintf("%s-%d", prefix, i)
		if math.Abs(s2Throughput(name)/target-1) <= tol {
			out = append(out, name)
		}
	}
	return out
}

func gated(name string, c *benchv1.CompareSpec) *benchv1.BenchmarkRun {
	run := newRun(name, benchv1.TopologyStandalone, 0, 1)
	run.Spec.Compare = c
	return run
}

func (k *cluster) succeed(run *benchv1.BenchmarkRun) *benchv1.BenchmarkRun {
	k.t.Helper()
	k.create(run)
	return k.waitRun(run.Name, "succeeded", func(r *benchv1.BenchmarkRun) bool {
		if r.Status.Phase == benchv1.RunFailed {
			k.t.Fatalf("%s failed: %s", r.Name, failedMessage(r))
		}
		return r.Status.Phase == benchv1.RunSucceeded
	})
}

// TestRegressionGate runs real runs (through the run controller; the test
// plays kubelet and Job controller) whose S2 throughputs it chose by name:
// a tight history at ~180 ops/s, then gated runs against the history, a
// baseline run, a sweep's cell, with too little history, with an
// acknowledgement and with a missing baseline; then the unavailability of
// a StepDown, measured and never recovered from.
func TestRegressionGate(t *testing.T) { //nolint:gocyclo // one scenario, step by step
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	stop := k.autopilot()
	defer stop()

	const level = 180.0
	history := namesNear("hist", 6, level, 0.01)
	same := namesNear("same", 1, level, 0.01)[0]
	low := namesNear("low", 3, 0.8*level, 0.02) // −20%
	if len(history) != 6 || len(low) != 3 {
		t.Fatalf("names: %v %v", history, low)
	}
	for _, name := range history {
		k.succeed(newRun(name, benchv1.TopologyStandalone, 0, 1))
	}
	s2 := []benchv1.CompareMetric{{Phase: "S2", Metric: benchv1.MetricThroughput}}

	// At the history's level: Unchanged, Regressed False.
	r := k.succeed(gated(same, &benchv1.CompareSpec{Baseline: benchv1.CompareBaseline{History: &benchv1.HistoryBaseline{Window: 30, MinRuns: 5}}, Metrics: s2}))
	if c := cond(r, benchv1.ConditionRegressed); c == nil || c.Status != metav1.ConditionFalse ||
		c.Message != "no regression against 6-run history: 1 unchanged" || len(r.Status.Comparison) != 1 ||
		r.Status.Comparison[0].Verdict != benchv1.VerdictUnchanged || r.Status.Comparison[0].PValue == nil {
		t.Errorf("at the level: %+v %+v", c, r.Status.Comparison)
	}
	if r.Labels[benchv1.LabelSpecHash] == "" || r.Labels[benchv1.LabelSpecHash] != k.run(history[0]).Labels[benchv1.LabelSpecHash] {
		t.Errorf("spec hash labels %q vs %q: compare must not change the hash", r.Labels[benchv1.LabelSpecHash], k.run(history[0]).Labels[benchv1.LabelSpecHash])
	}

	// 20% lower: Regressed True, with the test's p-value.
	r = k.succeed(gated(low[0], &benchv1.CompareSpec{Baseline: benchv1.CompareBaseline{History: &benchv1.HistoryBaseline{Window: 30, MinRuns: 5}}, Metrics: s2}))
	c := cond(r, benchv1.ConditionRegressed)
	if c == nil || c.Status != metav1.ConditionTrue || c.Reason != string(benchv1.ReasonRegression) ||
		!strings.HasPrefix(c.Message, "S2 throughput -") || !strings.Contains(c.Message, "% vs 7-run history (p=") {
		t.Fatalf("20%% lower: %+v", c)
	}
	if cm := r.Status.Comparison[0]; cm.Verdict != benchv1.VerdictRegressed || *cm.PValue >= 0.001 || cm.ChangePercent > -15 {
		t.Errorf("comparison %+v", cm)
	}
	k.assertPrinterColumns(low[0], "Succeeded", "True") // the REGRESSED column

	// Against a baseline run; then the same regression acknowledged.
	ref := &benchv1.CompareSpec{Baseline: benchv1.CompareBaseline{RunRef: history[0]}, Metrics: []benchv1.CompareMetric{
		{Phase: "S2", Metric: benchv1.MetricThroughput, MaxRegressionPercent: ptr.To(10.0)},
		{Phase: "S2", Operation: "READ", Metric: benchv1.MetricP99},
	}}
	r = k.succeed(gated(low[1], ref))
	if c := cond(r, benchv1.ConditionRegressed); c == nil || c.Status != metav1.ConditionTrue ||
		!strings.Contains(c.Message, "vs baseline run "+history[0]) || len(r.Status.Comparison) != 2 {
		t.Errorf("against a run: %+v %+v", c, r.Status.Comparison)
	}
	acked := ref.DeepCopy()
	acked.Acknowledged = []benchv1.CompareAcknowledgement{{Metric: "S2 throughput", Reason: "known: JIRA-123",
		Until: &metav1.Time{Time: time.Now().Add(time.Hour)}}}
	r = k.succeed(gated(low[2], acked))
	if c := cond(r, benchv1.ConditionRegressed); c == nil || c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, "1 acknowledged") ||
		r.Status.Comparison[0].Verdict != benchv1.VerdictAcknowledged || r.Status.Comparison[0].Acknowledged != "known: JIRA-123" {
		t.Errorf("acknowledged: %+v %+v", c, r.Status.Comparison)
	}

	// Against a sweep's cell: the median of its two runs (of two, the mean).
	sw := newSweep("ref", benchv1.SweepAxis{Name: "threads", Threads: []int32{8}})
	sw.Spec.Repetitions = 2
	k.createSweep(sw)
	k.waitSweep("ref", "Succeeded", func(s *benchv1.BenchmarkSweep) bool { return s.Status.Phase == benchv1.SweepSucceeded })
	base := (s2Throughput(sweep.RunName("ref", 0, 1)) + s2Throughput(sweep.RunName("ref", 0, 2))) / 2
	vsCell := &benchv1.CompareSpec{Baseline: benchv1.CompareBaseline{SweepRef: &benchv1.SweepCellRef{Name: "ref",
		Cell: map[string]benchv1.SweepValueName{"threads": "8"}}}, Metrics: s2}
	r = k.succeed(gated(namesNear("vsref", 1, 0.8*base, 0.02)[0], vsCell))
	if c := cond(r, benchv1.ConditionRegressed); c == nil || c.Status != metav1.ConditionTrue ||
		!strings.HasSuffix(c.Message, "% vs sweep ref cell threads=8 (2 runs)") || math.Abs(r.Status.Comparison[0].Baseline-base) > 1e-9 {
		t.Errorf("against a sweep's cell (median %.3f): %+v %+v", base, c, r.Status.Comparison)
	}

	// Too little history for the test: the threshold decides, and says so.
	few := &benchv1.CompareSpec{Baseline: benchv1.CompareBaseline{History: &benchv1.HistoryBaseline{Window: 30, MinRuns: 50}}, Metrics: s2}
	r = k.succeed(gated(namesNear("few", 1, 0.7*level, 0.02)[0], few))
	if cm := r.Status.Comparison; len(cm) != 1 || cm[0].Verdict != benchv1.VerdictRegressed || cm[0].PValue != nil ||
		!strings.HasPrefix(cm[0].Basis, "thresholds: history has ") || !strings.HasSuffix(cm[0].Basis, " of 50 runs") {
		t.Errorf("fallback: %+v", cm)
	}

	// A baseline that does not exist: Unknown, and the run still succeeded.
	r = k.succeed(gated("nobase", &benchv1.CompareSpec{Baseline: benchv1.CompareBaseline{RunRef: "nope"}, Metrics: s2}))
	if c := cond(r, benchv1.ConditionRegressed); c == nil || c.Status != metav1.ConditionUnknown ||
		c.Reason != string(benchv1.ReasonBaselineUnavailable) || c.Message != "baseline run nope does not exist" {
		t.Errorf("no baseline: %+v", c)
	}
	if c := cond(k.run(history[0]), benchv1.ConditionRegressed); c != nil {
		t.Errorf("a run without compare has a Regressed condition: %+v", c)
	}

	// The unavailability of a StepDown (the harness' loaders recover
	// writes after 1 s and 1.25 s): the slower loader, as in the
	// baseline run, Unchanged. The harness' second loader fails 0.13% of
	// its calls: the runs allow it, to stay valid.
	disrupted := func(name string) *benchv1.BenchmarkRun {
		run := disruptedRun(name, 2*time.Second)
		run.Spec.Validity.MaxErrorPercent = ptr.To(1.0)
		return run
	}
	k.succeed(disrupted("fo-base"))
	unavailable := []benchv1.CompareMetric{
		{Phase: "S2", Metric: benchv1.MetricUnavailabilityWrites, MaxRegressionPercent: ptr.To(50.0)},
		{Phase: "S2", Metric: benchv1.MetricUnavailabilityReads, MaxRegressionPercent: ptr.To(50.0)},
	}
	failover := func(name string, baseline benchv1.CompareBaseline) *benchv1.BenchmarkRun {
		run := disrupted(name)
		run.Spec.Compare = &benchv1.CompareSpec{Baseline: baseline, Metrics: unavailable}
		return k.succeed(run)
	}
	r = failover("fo-same", benchv1.CompareBaseline{RunRef: "fo-base"})
	if c := cond(r, benchv1.ConditionRegressed); c == nil || c.Status != metav1.ConditionFalse || len(r.Status.Comparison) != 2 ||
		r.Status.Comparison[0].Current != 1_250_000 || r.Status.Comparison[0].Baseline != 1_250_000 ||
		r.Status.Comparison[0].Verdict != benchv1.VerdictUnchanged || r.Status.Comparison[1].Current != 500_000 {
		t.Errorf("unavailability against a run: %+v %+v", c, r.Status.Comparison)
	}
	// Loader 1 never recovered writes: Regressed, though the lower bound
	// (loader 0's 1 s) is better than the baseline; reads are judged
	// as usual.
	r = failover("unrecovered-1", benchv1.CompareBaseline{RunRef: "fo-base"})
	never := "S2 unavailabilityWrites: writes never recovered in run unrecovered-1: disruption 0 (StepDown at 2s): 1 of 2 loaders wrote after it and never succeeded"
	if c := cond(r, benchv1.ConditionRegressed); c == nil || c.Status != metav1.ConditionTrue || c.Message != never {
		t.Errorf("never recovered: %+v", c)
	}
	if cm := r.Status.Comparison; len(cm) != 2 || cm[0].Verdict != benchv1.VerdictRegressed || cm[0].Current != 1_000_000 ||
		cm[0].Basis != strings.TrimPrefix(never, "S2 unavailabilityWrites: ") || cm[1].Verdict != benchv1.VerdictUnchanged {
		t.Errorf("never recovered: %+v", cm)
	}
	k.assertPrinterColumns("unrecovered-1", "Succeeded", "True")
	// Without a baseline it fails all the same; what needs one is not
	// compared, and the message says why.
	r = failover("unrecovered-2", benchv1.CompareBaseline{RunRef: "nope"})
	if c := cond(r, benchv1.ConditionRegressed); c == nil || c.Status != metav1.ConditionTrue ||
		c.Message != strings.ReplaceAll(never, "unrecovered-1", "unrecovered-2")+"; not compared: S2 unavailabilityReads (baseline run nope does not exist)" {
		t.Errorf("never recovered, no baseline: %+v", c)
	}
	// A run that never recovered is no baseline: nothing to compare with.
	r = failover("fo-vs-unrecovered", benchv1.CompareBaseline{RunRef: "unrecovered-1"})
	if cm := r.Status.Comparison; len(cm) != 1 || cm[0].Metric != "S2 unavailabilityReads" {
		t.Errorf("against a run that never recovered: %+v", cm)
	}
	if c := cond(r, benchv1.ConditionRegressed); c == nil || !strings.HasSuffix(c.Message, "; not compared: S2 unavailabilityWrites (not in the baseline's results: "+
		"writes never recovered in run unrecovered-1: disruption 0 (StepDown at 2s): 1 of 2 loaders wrote after it and never succeeded)") {
		t.Errorf("against a run that never recovered: %+v", c)
	}
}
