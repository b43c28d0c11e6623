package compare

import (
	"errors"
	"fmt"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/stats"
)

// This file reads the unavailability metrics (unavailabilityWrites,
// unavailabilityReads) of a phase's disruptions, and turns a disruption
// that left them unmeasured into a failed gate rather than a number.

// Unmeasured is a phase's unavailability that one of its disruptions left
// unmeasured: a loader that wrote (or read) after it and never succeeded
// again, whose window would be only a lower bound, or a disruption that
// did not happen (Failed, NotReached), after which the figure would
// measure no failover. A gated run with one fails the gate whatever the
// baseline (Fail); a baseline's run with one is left out of the baseline.
type Unmeasured struct {
	// Run and Phase say where.
	Run, Phase string
	// Metric is unavailabilityWrites or unavailabilityReads.
	Metric benchv1.CompareMetricKind
	// Index, Action and At name the first disruption that left it
	// unmeasured.
	Index  int32
	Action benchv1.DisruptionAction
	At     string
	// NeverRecovered: some loaders never recovered (Why says how many);
	// otherwise the disruption did not happen (Why says how it ended).
	NeverRecovered bool
	// Why says what happened: "1 of 2 loaders wrote after it and never
	// succeeded", "failed: ...", "was not reached: ...".
	Why string
	// LowerBound is the metric over what the loaders did measure (µs, the
	// maximum over every disruption of the loaders that recovered): the
	// unavailability was at least this long.
	LowerBound float64
}

func (u *Unmeasured) Error() string {
	d := fmt.Sprintf("disruption %d (%s at %s)", u.Index, u.Action, u.At)
	if u.NeverRecovered {
		return fmt.Sprintf("%s never recovered in run %s: %s: %s", unavailable(u.Metric), u.Run, d, u.Why)
	}
	return fmt.Sprintf("%s not measured in run %s: %s %s", unavailable(u.Metric), u.Run, d, u.Why)
}

// unavailable names what the metric measures: "writes" or "reads".
func unavailable(k benchv1.CompareMetricKind) string {
	if k == benchv1.MetricUnavailabilityReads {
		return "reads"
	}
	return "writes"
}

// unavailability is a phase's unavailabilityWrites or unavailabilityReads:
// the maximum over its disruptions of the loaders' maximum (µs). The
// worst loader in the worst disruption, because a client's outage is
// what a failover gate guards, and one slow driver is a regression the
// median would hide (benchv1.MetricUnavailabilityWrites says more).
func unavailability(run string, res *benchv1.PhaseResult, k benchv1.CompareMetricKind) (float64, error) {
	if len(res.Disruptions) == 0 {
		return 0, fmt.Errorf("phase %s has no disruptions", res.Name)
	}
	verb := "wrote"
	if k == benchv1.MetricUnavailabilityReads {
		verb = "read"
	}
	var worst int64
	var first *Unmeasured
	var none error
	for i := range res.Disruptions {
		d := &res.Disruptions[i]
		t := d.WriteUnavailable
		if k == benchv1.MetricUnavailabilityReads {
			t = d.ReadUnavailable
		}
		if t != nil {
			worst = max(worst, t.MaxMicros)
		}
		if first != nil {
			continue
		}
		u := &Unmeasured{Run: run, Phase: res.Name, Metric: k, Index: d.Index, Action: d.Action, At: d.At.Duration.String()}
		switch {
		case d.Outcome.State == benchv1.DisruptionFailed:
			// A failed action may or may not have moved the primary: the
			// figure would not be known to be a failover's.
			u.Why = "failed: " + d.Outcome.Error
			first = u
		case d.Outcome.State == benchv1.DisruptionNotReached:
			u.Why = "was not reached: the phase's measured window ended first"
			first = u
		case t == nil:
			// No loader wrote (read) after the instant: a workload without
			// writes (reads), which has no such unavailability, rather
			// than one that failed to recover.
			if none == nil {
				none = fmt.Errorf("no loader %s after disruption %d (%s at %s)", verb, d.Index, d.Action, d.At.Duration)
			}
		case t.Missing > 0:
			u.NeverRecovered = true
			u.Why = fmt.Sprintf("%d of %d loaders %s after it and never succeeded", t.Missing, t.Missing+t.Loaders, verb)
			first = u
		}
	}
	if first != nil {
		first.LowerBound = float64(worst)
		return first.LowerBound, first
	}
	if none != nil {
		return 0, none
	}
	return float64(worst), nil
}

// Values reads metric m from each run that has it (MetricValue), and
// returns apart the runs whose disruptions left it unmeasured.
func Values(runs []*benchv1.BenchmarkRun, m benchv1.CompareMetric) (values []float64, unmeasured []*Unmeasured) {
	for _, run := range runs {
		v, err := ReadMetric(run, m)
		var u *Unmeasured
		switch {
		case err == nil:
			values = append(values, v)
		case errors.As(err, &u):
			unmeasured = append(unmeasured, u)
		}
	}
	return values, unmeasured
}

// Missing says why none of runs has metric m: the first run's reason
// (ErrNotInResults when the run lacks the phase, operation or figure).
func Missing(runs []*benchv1.BenchmarkRun, m benchv1.CompareMetric) error {
	for _, run := range runs {
		if _, err := ReadMetric(run, m); err != nil {
			return err
		}
	}
	return ErrNotInResults
}

// Unrecovered is the verdict on current values of which some runs left
// the metric unmeasured (Values' unmeasured): Regressed, whatever the
// baseline and the direction, because an outage with no end in sight (or
// a failover that did not happen) cannot pass a gate on failovers.
// Current is the median over the runs of what they measured, a lower
// bound for the unmeasured ones; Baseline the reference's median when
// there is one. Basis and Failure say why, naming the first unmeasured
// run and how many there are.
func Unrecovered(reference, current []float64, unmeasured []*Unmeasured) Result {
	cur := append([]float64(nil), current...)
	for _, u := range unmeasured {
		cur = append(cur, u.LowerBound)
	}
	r := Result{Current: stats.Median(cur), Verdict: Regressed}
	if len(reference) > 0 {
		r.Baseline = stats.Median(reference)
		if r.Baseline != 0 {
			r.ChangePercent = stats.ChangePercent(r.Baseline, r.Current)
		}
	}
	r.Failure = unmeasured[0].Error()
	if n := len(unmeasured); n > 1 {
		r.Failure += fmt.Sprintf(" (and %d more runs)", n-1)
	}
	r.Basis = r.Failure
	return r
}
