package controllers

import (
	"context"
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/compare"
	"github.com/mongobench/mongobench/internal/sweep"
)

// specHash hashes what a run measures: its spec without compare (the gate,
// not the benchmark), cleanup and timeout. Runs with the same hash and
// fingerprint make a comparable history.
func specHash(spec *benchv1.BenchmarkRunSpec) (string, error) {
	return compare.SpecHash(spec) //nolint:wrapcheck // its error says what failed, as it did here
}

// metricName names a compared metric as status.comparison and
// acknowledgements do.
func metricName(m benchv1.CompareMetric) string {
	return compare.MetricName(m)
}

// metricValue reads a metric from a run's results; false when the run has
// no such phase or operation.
func metricValue(run *benchv1.BenchmarkRun, m benchv1.CompareMetric) (float64, bool) {
	return compare.MetricValue(run, m)
}

func direction(m benchv1.CompareMetric) compare.Direction {
	return compare.MetricDirection(m)
}

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
		opts := compare.OptionsFor(spec, m)
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
		sel, err := compare.HistorySelector(run)
		if err != nil {
			return nil, "", false, fmt.Errorf("select the history of %s: %w", run.Name, err)
		}
		var list benchv1.BenchmarkRunList
		if err := r.List(ctx, &list, client.InNamespace(ns), client.MatchingLabelsSelector{Selector: sel}); err != nil {
			return nil, "", false, fmt.Errorf("list the history of %s: %w", run.Name, err)
		}
		runs = compare.HistoryRuns(run, list.Items, compare.Window(h))
		if len(runs) == 0 {
			return nil, fmt.Sprintf("no earlier succeeded run matches the history selector %s", sel), true, nil
		}
		return runs, fmt.Sprintf("%d-run history", len(runs)), true, nil
	}
}
