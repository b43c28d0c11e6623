package controllers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/compare"
	"github.com/mongobench/mongobench/internal/sweep"
)

// specHash hashes what a run measures: its spec without compare (the gate,
// not the benchmark), cleanup and timeout. Runs with the same hash and
// fingerprint make a comparable history.
func specHash(spec *benchv1.BenchmarkRunSpec) (string, error) {
	s := spec.DeepCopy()
	s.Compare, s.Cleanup, s.Timeout = nil, "", nil
	b, err := json.Marshal(s)
	if err != nil {
		return "", fmt.Errorf("hash the spec: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8]), nil
}

// metricName names a compared metric as status.comparison and
// acknowledgements do.
func metricName(m benchv1.CompareMetric) string {
	if m.Operation != "" {
		return m.Phase + " " + m.Operation + " " + string(m.Metric)
	}
	return m.Phase + " " + string(m.Metric)
}

// metricValue reads a metric from a run's results; false when the run has
// no such phase or operation.
func metricValue(run *benchv1.BenchmarkRun, m benchv1.CompareMetric) (float64, bool) {
	var res *benchv1.PhaseResult
	for i := range run.Status.Results {
		if run.Status.Results[i].Name == m.Phase {
			res = &run.Status.Results[i]
		}
	}
	if res == nil {
		return 0, false
	}
	if m.Operation == "" {
		switch m.Metric {
		case benchv1.MetricThroughput:
			return res.Throughput, true
		case benchv1.MetricP99:
			return float64(res.P99Micros), true
		case benchv1.MetricMean:
			return sweep.MeanLatency(res)
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
		}
	}
	return 0, false
}

func direction(m benchv1.CompareMetric) compare.Direction {
	switch {
	case m.Direction == benchv1.HigherIsBetter:
		return compare.HigherIsBetter
	case m.Direction == benchv1.LowerIsBetter:
		return compare.LowerIsBetter
	case m.Metric == benchv1.MetricThroughput:
		return compare.HigherIsBetter
	default:
		return compare.LowerIsBetter
	}
}

// defaultMaxRegressionPercent is a metric's threshold without its own.
const defaultMaxRegressionPercent = 10

// compareResults judges a run that just succeeded against spec.compare's
// baseline: status.comparison gets a verdict per metric, the Regressed
// condition the summary. A baseline without results makes the condition
// Unknown (BaselineUnavailable); the run's success stands either way.
func (r *BenchmarkRunReconciler) compareResults(ctx context.Context, s *runState) error {
	run := s.run
	spec := run.Spec.Compare
	if spec == nil {
		return nil
	}
	baseline, basis, history, err := r.baselineRuns(ctx, run)
	if err != nil {
		return err
	}
	if len(baseline) == 0 {
		s.setCondition(benchv1.ConditionRegressed, metav1.ConditionUnknown, benchv1.ReasonBaselineUnavailable, basis)
		s.warnf(benchv1.ReasonBaselineUnavailable, "no comparison: %s", basis)
		return nil
	}
	opts := compare.HistoryOptions{PValue: 0.001, MinMagnitudePercent: 5}
	if spec.PValue != nil {
		opts.PValue = *spec.PValue
	}
	if spec.MinMagnitudePercent != nil {
		opts.MinMagnitudePercent = *spec.MinMagnitudePercent
	}
	if h := spec.Baseline.History; h != nil {
		opts.MinRuns = int(h.MinRuns)
	}
	acks := make([]compare.Acknowledgement, 0, len(spec.Acknowledged))
	for _, a := range spec.Acknowledged {
		ack := compare.Acknowledgement{Metric: a.Metric, Reason: a.Reason}
		if a.Until != nil {
			ack.Until = a.Until.Time
		}
		acks = append(acks, ack)
	}
	var out []benchv1.MetricComparison
	var regressed, missing []string
	counts := map[benchv1.CompareVerdict]int{}
	for _, m := range spec.Metrics {
		name := metricName(m)
		cur, ok := metricValue(run, m)
		if !ok {
			missing = append(missing, name+" (not in this run's results)")
			continue
		}
		var ref []float64
		for _, b := range baseline {
			if v, ok := metricValue(b, m); ok {
				ref = append(ref, v)
			}
		}
		if len(ref) == 0 {
			missing = append(missing, name+" (not in the baseline's results)")
			continue
		}
		opts.MaxRegressionPercent = defaultMaxRegressionPercent
		if m.MaxRegressionPercent != nil {
			opts.MaxRegressionPercent = *m.MaxRegressionPercent
		}
		var res compare.Result
		if history {
			res, err = compare.AgainstHistory(ref, []float64{cur}, direction(m), opts)
		} else {
			res, err = compare.AgainstReference(ref, []float64{cur}, direction(m), opts.MaxRegressionPercent)
			res.Basis = basis
		}
		if err != nil {
			missing = append(missing, name+" ("+err.Error()+")")
			continue
		}
		res, ack := compare.Acknowledge(res, name, acks, s.now)
		mc := benchv1.MetricComparison{Metric: name, Baseline: res.Baseline, Current: res.Current, ChangePercent: res.ChangePercent,
			PValue: res.PValue, Verdict: benchv1.CompareVerdict(res.Verdict), Basis: res.Basis}
		if ack != nil {
			mc.Acknowledged = ack.Reason
		}
		counts[mc.Verdict]++
		if mc.Verdict == benchv1.VerdictRegressed {
			regressed = append(regressed, compare.Summary(name, res))
		}
		out = append(out, mc)
	}
	run.Status.Comparison = out
	note := ""
	if len(missing) > 0 {
		note = "; not compared: " + strings.Join(missing, ", ")
	}
	switch {
	case len(regressed) > 0:
		msg := strings.Join(regressed, "; ") + note
		s.setCondition(benchv1.ConditionRegressed, metav1.ConditionTrue, benchv1.ReasonRegression, msg)
		s.warnf(benchv1.ReasonRegression, "%s", msg)
	case len(out) == 0:
		s.setCondition(benchv1.ConditionRegressed, metav1.ConditionUnknown, benchv1.ReasonBaselineUnavailable, "no metric could be compared"+note)
	default:
		var parts []string
		for _, v := range []benchv1.CompareVerdict{benchv1.VerdictUnchanged, benchv1.VerdictImproved, benchv1.VerdictAcknowledged} {
			if counts[v] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", counts[v], strings.ToLower(string(v))))
			}
		}
		msg := fmt.Sprintf("no regression against %s: %s%s", out[0].Basis, strings.Join(parts, ", "), note)
		s.setCondition(benchv1.ConditionRegressed, metav1.ConditionFalse, benchv1.ReasonNoRegression, msg)
	}
	return nil
}

// baselineRuns reads the baseline's runs: the named run, the successful
// runs of a sweep's cell, or the history (oldest first, at most window
// runs). basis describes them, or why there are none.
func (r *BenchmarkRunReconciler) baselineRuns(ctx context.Context, run *benchv1.BenchmarkRun) (
	runs []*benchv1.BenchmarkRun, basis string, history bool, err error) {
	b := run.Spec.Compare.Baseline
	ns := run.Namespace
	switch {
	case b.RunRef != "":
		ref := &benchv1.BenchmarkRun{}
		if err := r.Get(ctx, client.ObjectKey{Namespace: ns, Name: b.RunRef}, ref); err != nil {
			if client.IgnoreNotFound(err) == nil {
				return nil, fmt.Sprintf("baseline run %s does not exist", b.RunRef), false, nil
			}
			return nil, "", false, fmt.Errorf("get baseline run %s: %w", b.RunRef, err)
		}
		if ref.Status.Phase != benchv1.RunSucceeded {
			return nil, fmt.Sprintf("baseline run %s has not succeeded (phase %q)", b.RunRef, ref.Status.Phase), false, nil
		}
		return []*benchv1.BenchmarkRun{ref}, "baseline run " + b.RunRef, false, nil
	case b.SweepRef != nil:
		var list benchv1.BenchmarkRunList
		sel := client.MatchingLabels{sweep.LabelSweep: b.SweepRef.Name}
		for axis, v := range b.SweepRef.Cell {
			sel[sweep.AxisLabelPrefix+axis] = string(v)
		}
		if err := r.List(ctx, &list, client.InNamespace(ns), sel); err != nil {
			return nil, "", false, fmt.Errorf("list the runs of sweep %s: %w", b.SweepRef.Name, err)
		}
		for i := range list.Items {
			if list.Items[i].Status.Phase == benchv1.RunSucceeded {
				runs = append(runs, &list.Items[i])
			}
		}
		cell := make([]string, 0, len(b.SweepRef.Cell))
		for axis, v := range b.SweepRef.Cell {
			cell = append(cell, axis+"="+string(v))
		}
		sort.Strings(cell)
		basis = fmt.Sprintf("sweep %s cell %s (%d runs)", b.SweepRef.Name, strings.Join(cell, ","), len(runs))
		if len(runs) == 0 {
			basis = fmt.Sprintf("sweep %s has no succeeded run in cell %s", b.SweepRef.Name, strings.Join(cell, ","))
		}
		return runs, basis, false, nil
	default:
		h := b.History
		hash, err := specHash(&run.Spec)
		if err != nil {
			return nil, "", false, err
		}
		fp := ""
		if run.Status.Environment != nil {
			fp = run.Status.Environment.Fingerprint
		}
		sel := labels.Set{benchv1.LabelFingerprint: fp, benchv1.LabelSpecHash: hash}.AsSelector()
		if h.Selector != nil {
			if sel, err = metav1.LabelSelectorAsSelector(h.Selector); err != nil {
				return nil, "", false, fmt.Errorf("compare.baseline.history.selector: %w", err)
			}
		}
		var list benchv1.BenchmarkRunList
		if err := r.List(ctx, &list, client.InNamespace(ns), client.MatchingLabelsSelector{Selector: sel}); err != nil {
			return nil, "", false, fmt.Errorf("list the history of %s: %w", run.Name, err)
		}
		for i := range list.Items {
			o := &list.Items[i]
			if o.UID != run.UID && o.Status.Phase == benchv1.RunSucceeded && o.Status.CompletionTime != nil &&
				run.Status.CompletionTime != nil && !o.Status.CompletionTime.After(run.Status.CompletionTime.Time) {
				runs = append(runs, o)
			}
		}
		sort.Slice(runs, func(i, j int) bool {
			return runs[i].Status.CompletionTime.Before(runs[j].Status.CompletionTime)
		})
		if w := int(max(h.Window, 2)); len(runs) > w {
			runs = runs[len(runs)-w:]
		}
		if len(runs) == 0 {
			return nil, fmt.Sprintf("no earlier succeeded run matches the history selector %s", sel), true, nil
		}
		return runs, fmt.Sprintf("%d-run history", len(runs)), true, nil
	}
}
