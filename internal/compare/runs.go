package compare

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/sweep"
)

// This file reads BenchmarkRuns for the gate: which runs are a run's
// history, a compared metric's name, value and direction. The run
// controller judges with them and the report draws the history with them,
// so the two always agree on what the gate saw.

// SpecHash hashes what a run measures: its spec without compare (the
// gate, not the benchmark), cleanup, timeout, validity and security (which
// the environment's fingerprint records: it shapes the node the numbers
// come from, as the kernel does, and leaving it out keeps the hashes of
// runs recorded before it existed). Runs with the same hash
// and fingerprint make a comparable history (the controller labels each
// run with it, benchv1.LabelSpecHash).
func SpecHash(spec *benchv1.BenchmarkRunSpec) (string, error) {
	s := spec.DeepCopy()
	// The gate, the cleanup, the timeout and the validity thresholds
	// judge or bound a run; they do not change what it measures.
	s.Compare, s.Cleanup, s.Timeout, s.Validity, s.Security = nil, "", nil, benchv1.ValiditySpec{}, nil
	// SameNode, the default layout, is what every run was before
	// placement.layout existed: hashed as unset, so that the runs recorded
	// before it keep their spec hash and their histories carry on.
	if s.Placement.Layout == benchv1.LayoutSameNode {
		s.Placement.Layout = ""
	}
	b, err := json.Marshal(s)
	if err != nil {
		return "", fmt.Errorf("hash the spec: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8]), nil
}

// HistorySelector selects the candidates of a history: the baseline's
// selector, narrowed to cell's axis values (a sweep cell's history cannot
// mix cells; nil for a run), or by default the runs with the environment
// fingerprint and spec hash (the labels benchv1.LabelFingerprint and
// benchv1.LabelSpecHash). History then picks the history among them.
func HistorySelector(h *benchv1.HistoryBaseline, fingerprint, hash string, cell map[string]string) (labels.Selector, error) {
	if h.Selector == nil {
		return labels.Set{benchv1.LabelFingerprint: fingerprint, benchv1.LabelSpecHash: hash}.AsSelector(), nil
	}
	sel, err := metav1.LabelSelectorAsSelector(h.Selector)
	if err != nil {
		return nil, fmt.Errorf("compare.baseline.history.selector: %w", err)
	}
	axes := make([]string, 0, len(cell))
	for axis := range cell {
		axes = append(axes, axis)
	}
	sort.Strings(axes)
	for _, axis := range axes {
		req, err := labels.NewRequirement(benchv1.LabelAxisPrefix+axis, selection.Equals, []string{cell[axis]})
		if err != nil {
			return nil, fmt.Errorf("select axis %s: %w", axis, err)
		}
		sel = sel.Add(*req)
	}
	return sel, nil
}

// RunHistorySelector is HistorySelector for a run compared with a
// history: its fingerprint and the hash of its spec.
func RunHistorySelector(run *benchv1.BenchmarkRun) (labels.Selector, error) {
	if run.Spec.Compare == nil || run.Spec.Compare.Baseline.History == nil {
		return nil, fmt.Errorf("run %s is not compared with a history", run.Name)
	}
	hash, err := SpecHash(&run.Spec)
	if err != nil {
		return nil, err
	}
	fp := ""
	if run.Status.Environment != nil {
		fp = run.Status.Environment.Fingerprint
	}
	return HistorySelector(run.Spec.Compare.Baseline.History, fp, hash, nil)
}

// Usable reports whether a run's numbers may serve as a baseline or in a
// history, a sweep's aggregates included: it succeeded, and its Valid
// condition is not False (runs from before the condition existed have
// none, and count). It is benchv1.BenchmarkRun.Usable, whose home is the
// API type because internal/sweep, which this package imports, needs it
// too.
func Usable(run *benchv1.BenchmarkRun) bool { return run.Usable() }

// History picks a history among candidates (the runs HistorySelector
// selects): the Usable runs that completed and that exclude (if any)
// keeps, oldest first, the latest window of them (window ≤ 0: all). The
// result points into candidates.
func History(candidates []benchv1.BenchmarkRun, exclude func(*benchv1.BenchmarkRun) bool, window int) []*benchv1.BenchmarkRun {
	var runs []*benchv1.BenchmarkRun
	for i := range candidates {
		o := &candidates[i]
		if Usable(o) && o.Status.CompletionTime != nil && (exclude == nil || !exclude(o)) {
			runs = append(runs, o)
		}
	}
	sort.Slice(runs, func(i, j int) bool {
		return runs[i].Status.CompletionTime.Before(runs[j].Status.CompletionTime)
	})
	if window > 0 && len(runs) > window {
		runs = runs[len(runs)-window:]
	}
	return runs
}

// NotHistoryOf excludes from a run's history the run itself and the runs
// that completed after it; a run that has not completed has no history.
func NotHistoryOf(run *benchv1.BenchmarkRun) func(*benchv1.BenchmarkRun) bool {
	return func(o *benchv1.BenchmarkRun) bool {
		return o.UID == run.UID || run.Status.CompletionTime == nil || o.Status.CompletionTime.After(run.Status.CompletionTime.Time)
	}
}

// HistoryRuns is a run's history among candidates: History with
// NotHistoryOf(run).
func HistoryRuns(run *benchv1.BenchmarkRun, candidates []benchv1.BenchmarkRun, window int) []*benchv1.BenchmarkRun {
	return History(candidates, NotHistoryOf(run), window)
}

// Window is how many of the latest runs make the history: the baseline's
// window, at least 2 (the CRD defaults it to 30).
func Window(h *benchv1.HistoryBaseline) int {
	return int(max(h.Window, 2))
}

// MetricName names a compared metric as status.comparison and
// acknowledgements do: "S3 throughput", "S3 READ p99".
func MetricName(m benchv1.CompareMetric) string {
	if m.Operation != "" {
		return m.Phase + " " + m.Operation + " " + string(m.Metric)
	}
	return m.Phase + " " + string(m.Metric)
}

// MetricValue reads a metric from a run's results; false when the run has
// no such phase, operation or figure (ReadMetric says why).
func MetricValue(run *benchv1.BenchmarkRun, m benchv1.CompareMetric) (float64, bool) {
	v, err := ReadMetric(run, m)
	return v, err == nil
}

// ErrNotInResults: the run has no such phase, operation or figure.
var ErrNotInResults = errors.New("not in the results")

// ReadMetric reads a metric from a run's results. Without a value, the
// error says why: the run has no such phase, operation or figure, or (an
// *Unmeasured, which fails the gate) the phase's disruptions left its
// unavailability unmeasured.
func ReadMetric(run *benchv1.BenchmarkRun, m benchv1.CompareMetric) (float64, error) {
	var res *benchv1.PhaseResult
	for i := range run.Status.Results {
		if run.Status.Results[i].Name == m.Phase {
			res = &run.Status.Results[i]
		}
	}
	if res == nil {
		return 0, ErrNotInResults
	}
	if m.Metric.Unavailability() {
		if m.Operation != "" {
			return 0, ErrNotInResults // the CRD refuses it: the figure is the phase's
		}
		return unavailability(run.Name, res, m.Metric)
	}
	v, ok := figure(res, m)
	if !ok {
		return 0, ErrNotInResults
	}
	return v, nil
}

// figure reads a throughput or latency metric from a phase's results.
func figure(res *benchv1.PhaseResult, m benchv1.CompareMetric) (float64, bool) {
	if m.Operation == "" {
		switch m.Metric {
		case benchv1.MetricThroughput:
			return res.Throughput, true
		case benchv1.MetricP99:
			return float64(res.P99Micros), true
		case benchv1.MetricMean:
			return sweep.MeanLatency(res)
		case benchv1.MetricIntendedP99:
			if res.IntendedP99Micros == nil {
				return 0, false
			}
			return float64(*res.IntendedP99Micros), true
		}
		return 0, false
	}
	for _, op := range res.OperationStats {
		if op.Name != m.Operation {
			continue
		}
		switch m.Metric {
		case benchv1.MetricThroughput:
			if res.RuntimeMillis <= 0 {
				return 0, false
			}
			return float64(op.Count) * 1000 / float64(res.RuntimeMillis), true
		case benchv1.MetricP99:
			return float64(op.P99Micros), true
		case benchv1.MetricP999:
			return float64(op.P999Micros), true
		case benchv1.MetricMean:
			return op.AverageMicros, true
		case benchv1.MetricIntendedP99:
			if op.Intended == nil {
				return 0, false
			}
			return float64(op.Intended.P99Micros), true
		}
	}
	return 0, false
}

// MetricDirection is which way the metric gets better: its direction, or
// by default higher throughput and lower latencies.
func MetricDirection(m benchv1.CompareMetric) Direction {
	switch {
	case m.Direction == benchv1.HigherIsBetter:
		return HigherIsBetter
	case m.Direction == benchv1.LowerIsBetter:
		return LowerIsBetter
	case m.Metric == benchv1.MetricThroughput:
		return HigherIsBetter
	default:
		return LowerIsBetter
	}
}

// DefaultMaxRegressionPercent is a metric's threshold without its own
// maxRegressionPercent.
const DefaultMaxRegressionPercent = 10

// OptionsFor is the history comparison of metric m as spec.compare sets
// it: pValue, minMagnitudePercent, the history's minRuns and the metric's
// maxRegressionPercent (DefaultMaxRegressionPercent without one); what
// the spec leaves out takes HistoryOptions' defaults, filled in.
func OptionsFor(spec *benchv1.CompareSpec, m benchv1.CompareMetric) HistoryOptions {
	o := HistoryOptions{PValue: 0.001, MinMagnitudePercent: 5, MaxRegressionPercent: DefaultMaxRegressionPercent}
	if spec.PValue != nil {
		o.PValue = *spec.PValue
	}
	if spec.MinMagnitudePercent != nil {
		o.MinMagnitudePercent = *spec.MinMagnitudePercent
		if o.MinMagnitudePercent == 0 {
			// 0 asks for every significant change; HistoryOptions' zero
			// means "the default", so the smallest positive magnitude
			// stands for it.
			o.MinMagnitudePercent = math.SmallestNonzeroFloat64
		}
	}
	if h := spec.Baseline.History; h != nil {
		o.MinRuns = int(h.MinRuns)
	}
	if m.MaxRegressionPercent != nil {
		o.MaxRegressionPercent = *m.MaxRegressionPercent
	}
	return o.withDefaults()
}
