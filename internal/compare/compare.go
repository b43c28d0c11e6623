package compare

import (
	"fmt"
	"math"
	"time"

	"github.com/mongobench/mongobench/internal/stats"
)

// Direction says which way a metric gets better.
type Direction int

// Directions.
const (
	// HigherIsBetter: throughput.
	HigherIsBetter Direction = iota + 1
	// LowerIsBetter: latencies.
	LowerIsBetter
)

// Verdict is the outcome of a comparison.
type Verdict string

// Verdicts.
const (
	Improved     Verdict = "Improved"
	Unchanged    Verdict = "Unchanged"
	Regressed    Verdict = "Regressed"
	Acknowledged Verdict = "Acknowledged"
)

// Result is one metric's comparison.
type Result struct {
	// Baseline and Current are the medians compared.
	Baseline, Current float64
	// ChangePercent is Current against Baseline, in % (+ is larger).
	ChangePercent float64
	// PValue of the history test; nil for thresholds.
	PValue *float64
	// Verdict of the comparison.
	Verdict Verdict
	// Basis says what the current value was compared with, for messages:
	// "baseline", "30-run history", "thresholds: history has 3 of 5 runs".
	Basis string
	// Failure says why the verdict is Regressed whatever the change
	// (Unrecovered): "writes never recovered in run x: ...".
	Failure string
}

// worse is the change in the direction that makes the metric worse, in %
// (positive when worse).
func worse(change float64, d Direction) float64 {
	if d == LowerIsBetter {
		return change
	}
	return -change
}

// AgainstReference compares the current values (a run's, or its
// repetitions') with a reference's by their medians: Regressed when the
// metric got worse by more than maxRegressionPercent, Improved when it got
// better by more than that, else Unchanged.
func AgainstReference(reference, current []float64, d Direction, maxRegressionPercent float64) (Result, error) {
	if len(reference) == 0 || len(current) == 0 {
		return Result{}, fmt.Errorf("nothing to compare: %d reference and %d current values", len(reference), len(current))
	}
	r := Result{Baseline: stats.Median(reference), Current: stats.Median(current), Basis: "baseline"}
	r.ChangePercent = stats.ChangePercent(r.Baseline, r.Current)
	if math.IsNaN(r.ChangePercent) {
		return Result{}, fmt.Errorf("the baseline's value is %v: no relative change", r.Baseline)
	}
	r.Verdict = threshold(r.ChangePercent, d, maxRegressionPercent)
	return r, nil
}

func threshold(change float64, d Direction, maxRegressionPercent float64) Verdict {
	switch w := worse(change, d); {
	case w > maxRegressionPercent:
		return Regressed
	case -w > maxRegressionPercent:
		return Improved
	default:
		return Unchanged
	}
}

// HistoryOptions tune the history comparison.
type HistoryOptions struct {
	// PValue below which a change is significant (default 0.001).
	PValue float64
	// MinMagnitudePercent is the smallest change that counts, in %
	// (default 5): a significant change of 1% is real but rarely matters.
	MinMagnitudePercent float64
	// MinRuns is the fewest history runs the test needs (default 5);
	// below, the threshold decides against the history's median.
	MinRuns int
	// MaxRegressionPercent is the threshold of the fallback.
	MaxRegressionPercent float64
}

func (o HistoryOptions) withDefaults() HistoryOptions {
	if o.PValue <= 0 {
		o.PValue = 0.001
	}
	if o.MinMagnitudePercent <= 0 {
		o.MinMagnitudePercent = 5
	}
	if o.MinRuns < 2 {
		o.MinRuns = 5
	}
	return o
}

// AgainstHistory compares the current values with a history (oldest
// first) of comparable runs. The history is cut at its last change point
// of at least MinMagnitudePercent (an accepted improvement or a known
// regression starts a new regime); the current values are tested against
// the runs since (stats.PredictionTest). Regressed or Improved need both
// p < PValue and a change of at least MinMagnitudePercent in that
// direction. With fewer than MinRuns runs the threshold decides against
// the median of the history, and Basis says so.
func AgainstHistory(history, current []float64, d Direction, o HistoryOptions) (Result, error) {
	o = o.withDefaults()
	if len(current) == 0 {
		return Result{}, fmt.Errorf("no current value")
	}
	if len(history) < o.MinRuns {
		if len(history) == 0 {
			return Result{}, fmt.Errorf("no history to compare with (at least 1 run for thresholds, %d for the test)", o.MinRuns)
		}
		r, err := AgainstReference(history, current, d, o.MaxRegressionPercent)
		r.Basis = fmt.Sprintf("thresholds: history has %d of %d runs", len(history), o.MinRuns)
		return r, err
	}
	regime := history[HistoryRegime(history, o).Start:]
	if len(regime) < o.MinRuns {
		// Too few runs since the last change: test against them anyway is
		// weak; the threshold against them is what can be said.
		r, err := AgainstReference(regime, current, d, o.MaxRegressionPercent)
		r.Basis = fmt.Sprintf("thresholds: %d runs since the history's last change point, fewer than %d", len(regime), o.MinRuns)
		return r, err
	}
	t, err := stats.PredictionTest(regime, current)
	if err != nil {
		return Result{}, fmt.Errorf("test against the history: %w", err)
	}
	r := Result{Baseline: stats.Median(regime), Current: stats.Median(current), PValue: &t.P,
		Basis: fmt.Sprintf("%d-run history", len(regime))}
	r.ChangePercent = stats.ChangePercent(r.Baseline, r.Current)
	r.Verdict = Unchanged
	if t.P < o.PValue && math.Abs(r.ChangePercent) >= o.MinMagnitudePercent {
		if worse(r.ChangePercent, d) > 0 {
			r.Verdict = Regressed
		} else {
			r.Verdict = Improved
		}
	}
	return r, nil
}

// Regime is how AgainstHistory reads a history: its change points and
// the regime (the runs since the last change point of at least
// MinMagnitudePercent) that the current values are tested against.
type Regime struct {
	// ChangePoints are the history's change points at
	// stats.RegimePValue, smaller ones included; none below MinRuns runs
	// (the threshold fallback looks for none).
	ChangePoints []stats.ChangePoint
	// Start is the index of the regime's first run: 0 when the whole
	// history is one regime or too short to be cut.
	Start int
}

// HistoryRegime finds the regime AgainstHistory compares with, so that a
// report can show exactly the runs the gate used.
func HistoryRegime(history []float64, o HistoryOptions) Regime {
	o = o.withDefaults()
	if len(history) < o.MinRuns {
		return Regime{}
	}
	cps := stats.ChangePoints(history, stats.RegimePValue)
	return Regime{ChangePoints: cps, Start: stats.RegimeStart(cps, o.MinMagnitudePercent/100)}
}

// Acknowledgement marks a known regression of a metric: it does not fail
// the gate until it expires, and stays visible as Acknowledged.
type Acknowledgement struct {
	// Metric names what is acknowledged, as the caller names metrics.
	Metric string
	// Reason is shown with the verdict.
	Reason string
	// Until is when the acknowledgement expires (zero: never).
	Until time.Time
}

// Acknowledge turns a Regressed verdict of metric into Acknowledged when an
// acknowledgement for it is in force at now, and returns the one applied.
func Acknowledge(r Result, metric string, acks []Acknowledgement, now time.Time) (Result, *Acknowledgement) {
	if r.Verdict != Regressed {
		return r, nil
	}
	for i := range acks {
		a := &acks[i]
		if a.Metric == metric && (a.Until.IsZero() || now.Before(a.Until)) {
			r.Verdict = Acknowledged
			return r, a
		}
	}
	return r, nil
}

// Summary is the one line a condition shows: "S3 throughput −12.4% vs
// 30-run history (p=2e-05)".
// A failure is summed up by its reason: "S2 unavailabilityWrites: writes
// never recovered in run x: ...".
func Summary(metric string, r Result) string {
	if r.Failure != "" {
		return metric + ": " + r.Failure
	}
	s := fmt.Sprintf("%s %+.1f%% vs %s", metric, r.ChangePercent, r.Basis)
	if r.PValue != nil {
		s += fmt.Sprintf(" (p=%.2g)", *r.PValue)
	}
	return s
}
