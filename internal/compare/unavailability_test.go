package compare

import (
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// stepDown is a disruption of phase S2 at `at` seconds whose loaders
// measured these writes and reads (nil: none wrote, or read, after it).
func stepDown(index int32, at int, state benchv1.DisruptionState, writes, reads *benchv1.LoaderTimes) benchv1.DisruptionResult {
	d := benchv1.DisruptionResult{Index: index, Action: benchv1.DisruptionStepDown, At: metav1.Duration{Duration: time.Duration(at) * time.Second},
		Outcome: benchv1.DisruptionOutcome{State: state}, WriteUnavailable: writes, ReadUnavailable: reads}
	if state == benchv1.DisruptionFailed {
		d.Outcome.Error = "(ExceededTimeLimit) No electable secondaries caught up"
	}
	return d
}

func disruptedRun(name string, ds ...benchv1.DisruptionResult) *benchv1.BenchmarkRun {
	r := doneRun(name, benchv1.RunSucceeded, at(1))
	r.Status.Results = []benchv1.PhaseResult{{Name: "load"}, {Name: "S2", Throughput: 4000, Disruptions: ds}}
	return &r
}

func times(maxMicros, median int64, loaders, missing int32) *benchv1.LoaderTimes {
	return &benchv1.LoaderTimes{MaxMicros: maxMicros, MedianMicros: median, Loaders: loaders, Missing: missing}
}

// TestUnavailability: the value is the maximum over the phase's
// disruptions of the loaders' maximum; a loader that never recovered, or a
// disruption that did not happen, leaves it unmeasured (an *Unmeasured,
// which fails the gate); a phase without disruptions, or without writes
// after one, has no value.
func TestUnavailability(t *testing.T) {
	writes := benchv1.CompareMetric{Phase: "S2", Metric: benchv1.MetricUnavailabilityWrites}
	reads := benchv1.CompareMetric{Phase: "S2", Metric: benchv1.MetricUnavailabilityReads}
	ok := benchv1.DisruptionDone
	cases := []struct {
		name       string
		run        *benchv1.BenchmarkRun
		m          benchv1.CompareMetric
		want       float64
		err        string // "" for a value
		unmeasured bool
	}{
		{"one StepDown: the slowest loader, not the median", disruptedRun("r",
			stepDown(0, 30, ok, times(1_250_000, 1_125_000, 2, 0), times(500_000, 450_000, 2, 0))), writes, 1_250_000, "", false},
		{"reads", disruptedRun("r",
			stepDown(0, 30, ok, times(1_250_000, 1_125_000, 2, 0), times(500_000, 450_000, 2, 0))), reads, 500_000, "", false},
		{"two StepDowns: the worse", disruptedRun("r",
			stepDown(0, 30, ok, times(900_000, 800_000, 3, 0), nil), stepDown(1, 90, ok, times(2_100_000, 700_000, 3, 0), nil)), writes, 2_100_000, "", false},
		{"the actor replaced (Unknown): the loaders measured all the same", disruptedRun("r",
			stepDown(0, 30, benchv1.DisruptionUnknown, times(1_000_000, 1_000_000, 1, 0), nil)), writes, 1_000_000, "", false},
		{"a loader never recovered", disruptedRun("r7",
			stepDown(0, 30, ok, times(900_000, 800_000, 3, 0), nil), stepDown(1, 90, ok, times(1_500_000, 1_500_000, 1, 2), nil)), writes, 1_500_000,
			"writes never recovered in run r7: disruption 1 (StepDown at 1m30s): 2 of 3 loaders wrote after it and never succeeded", true},
		{"no loader recovered reads", disruptedRun("r7",
			stepDown(0, 30, ok, times(900_000, 800_000, 3, 0), times(0, 0, 0, 3))), reads, 0,
			"reads never recovered in run r7: disruption 0 (StepDown at 30s): 3 of 3 loaders read after it and never succeeded", true},
		{"the StepDown failed", disruptedRun("r7",
			stepDown(0, 30, benchv1.DisruptionFailed, times(2_000, 2_000, 2, 0), nil)), writes, 2_000,
			"writes not measured in run r7: disruption 0 (StepDown at 30s) failed: (ExceededTimeLimit) No electable secondaries caught up", true},
		{"the phase ended first", disruptedRun("r7",
			stepDown(0, 30, ok, times(800_000, 800_000, 2, 0), nil), stepDown(1, 90, benchv1.DisruptionNotReached, nil, nil)), writes, 800_000,
			"writes not measured in run r7: disruption 1 (StepDown at 1m30s) was not reached: the phase's measured window ended first", true},
		{"an unmeasured disruption after one without writes", disruptedRun("r7",
			stepDown(0, 30, ok, nil, nil), stepDown(1, 90, ok, times(1, 1, 1, 1), nil)), writes, 1,
			"writes never recovered in run r7: disruption 1 (StepDown at 1m30s): 1 of 2 loaders wrote after it and never succeeded", true},
		{"no reads after the StepDown (a write-only phase)", disruptedRun("r",
			stepDown(0, 30, ok, times(1, 1, 1, 0), nil)), reads, 0, "no loader read after disruption 0 (StepDown at 30s)", false},
		{"a phase without disruptions", disruptedRun("r"), writes, 0, "phase S2 has no disruptions", false},
		{"no such phase", disruptedRun("r"), benchv1.CompareMetric{Phase: "S9", Metric: benchv1.MetricUnavailabilityWrites}, 0, "not in the results", false},
		{"per operation (the CRD refuses it)", disruptedRun("r", stepDown(0, 30, ok, times(1, 1, 1, 0), nil)),
			benchv1.CompareMetric{Phase: "S2", Operation: "UPDATE", Metric: benchv1.MetricUnavailabilityWrites}, 0, "not in the results", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := ReadMetric(tc.run, tc.m)
			var u *Unmeasured
			if v != tc.want || (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) || errors.As(err, &u) != tc.unmeasured {
				t.Errorf("ReadMetric = %v, %v; want %v, %q (unmeasured %v)", v, err, tc.want, tc.err, tc.unmeasured)
			}
			if u != nil && u.LowerBound != tc.want {
				t.Errorf("lower bound %v, want %v", u.LowerBound, tc.want)
			}
			if got, ok := MetricValue(tc.run, tc.m); ok != (tc.err == "") || (ok && got != tc.want) {
				t.Errorf("MetricValue = %v, %v", got, ok)
			}
		})
	}
	if MetricDirection(writes) != LowerIsBetter || MetricDirection(reads) != LowerIsBetter {
		t.Error("unavailability is not lower-is-better by default")
	}
	if MetricName(writes) != "S2 unavailabilityWrites" {
		t.Errorf("name %q", MetricName(writes))
	}
}

// TestUnrecoveredFailsTheGate: among a cell's repetitions, one that never
// recovered makes the metric Regressed whatever the change against the
// baseline, with its lower bound in the median and the reason as the
// basis and the summary; it can be acknowledged like any regression.
func TestUnrecoveredFailsTheGate(t *testing.T) {
	m := benchv1.CompareMetric{Phase: "S2", Metric: benchv1.MetricUnavailabilityWrites}
	ok := benchv1.DisruptionDone
	runs := []*benchv1.BenchmarkRun{
		disruptedRun("c-r1", stepDown(0, 30, ok, times(1_000_000, 900_000, 2, 0), nil)),
		disruptedRun("c-r2", stepDown(0, 30, ok, times(400_000, 400_000, 1, 1), nil)),
		disruptedRun("c-r3", stepDown(0, 30, ok, times(1_100_000, 1_000_000, 2, 0), nil)),
		disruptedRun("c-r4", stepDown(0, 30, benchv1.DisruptionNotReached, nil, nil)),
		disruptedRun("c-r5"), // no disruptions: neither a value nor a failure
	}
	values, unmeasured := Values(runs, m)
	if len(values) != 2 || values[0] != 1_000_000 || values[1] != 1_100_000 || len(unmeasured) != 2 ||
		unmeasured[0].Run != "c-r2" || unmeasured[1].Run != "c-r4" {
		t.Fatalf("Values = %v, %+v", values, unmeasured)
	}
	// A baseline at 1.05 s: the current median (1.0, 1.1 s and the lower
	// bounds 0.4 s and 0 s) is lower, but the gate fails.
	r := Unrecovered([]float64{1_050_000}, values, unmeasured)
	want := "writes never recovered in run c-r2: disruption 0 (StepDown at 30s): 1 of 2 loaders wrote after it and never succeeded (and 1 more runs)"
	if r.Verdict != Regressed || r.Current != 700_000 || r.Baseline != 1_050_000 || r.ChangePercent > -33 || r.ChangePercent < -34 ||
		r.Basis != want || r.Failure != want || r.PValue != nil {
		t.Errorf("Unrecovered = %+v", r)
	}
	if s := Summary("S2 unavailabilityWrites", r); s != "S2 unavailabilityWrites: "+want {
		t.Errorf("summary %q", s)
	}
	// Without a baseline (none found, or none that has the figure).
	if r := Unrecovered(nil, nil, unmeasured[1:]); r.Verdict != Regressed || r.Baseline != 0 || r.ChangePercent != 0 ||
		!strings.HasPrefix(r.Basis, "writes not measured in run c-r4: disruption 0 (StepDown at 30s) was not reached") {
		t.Errorf("without a baseline: %+v", r)
	}
	acked, ack := Acknowledge(r, "S2 unavailabilityWrites", []Acknowledgement{{Metric: "S2 unavailabilityWrites", Reason: "JIRA-7"}}, t0)
	if acked.Verdict != Acknowledged || ack == nil {
		t.Errorf("acknowledged: %+v %v", acked, ack)
	}
	if err := Missing(runs[4:], m); err == nil || err.Error() != "phase S2 has no disruptions" {
		t.Errorf("Missing = %v", err)
	}
	if err := Missing(nil, m); !errors.Is(err, ErrNotInResults) {
		t.Errorf("Missing of no runs = %v", err)
	}
}

// TestUnavailabilityAgainstABaseline: measured unavailability is judged
// as any latency, lower being better.
func TestUnavailabilityAgainstABaseline(t *testing.T) {
	m := benchv1.CompareMetric{Phase: "S2", Metric: benchv1.MetricUnavailabilityWrites}
	r, err := AgainstReference([]float64{1_000_000, 1_200_000, 1_100_000}, []float64{1_800_000, 1_500_000, 2_500_000}, MetricDirection(m), 50)
	if err != nil || r.Verdict != Regressed || r.Current != 1_800_000 || r.Baseline != 1_100_000 || r.Failure != "" {
		t.Errorf("slower failovers: %+v %v", r, err)
	}
	if s := Summary(MetricName(m), r); !strings.HasPrefix(s, "S2 unavailabilityWrites +63.6% vs baseline") {
		t.Errorf("summary %q", s)
	}
}
