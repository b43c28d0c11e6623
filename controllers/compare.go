package controllers

// This file holds the spec.compare judging both kinds share: the run's
// gate (run_compare.go) and a sweep's per-cell gate (sweep_compare.go)
// find a baseline and judge against it with the same rules.

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/compare"
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

func direction(m benchv1.CompareMetric) compare.Direction {
	return compare.MetricDirection(m)
}

// fingerprintOf is a run's environment fingerprint, "" before it is known.
func fingerprintOf(run *benchv1.BenchmarkRun) string {
	if run.Status.Environment != nil {
		return run.Status.Environment.Fingerprint
	}
	return ""
}

// judgement is spec.compare's verdicts for one run or one sweep cell.
type judgement struct {
	rows []benchv1.MetricComparison
	// regressed holds the one-line summary of each Regressed metric.
	regressed []string
	// missing names the metrics that could not be compared, with why.
	missing  []string
	verdicts map[benchv1.CompareVerdict]int
}

// note lists the metrics not compared, for a condition's message.
func (j *judgement) note() string {
	if len(j.missing) == 0 {
		return ""
	}
	return "; not compared: " + strings.Join(j.missing, ", ")
}

// counts sums up the verdicts other than Regressed: "2 unchanged, 1
// acknowledged".
func (j *judgement) counts() string {
	var parts []string
	for _, v := range []benchv1.CompareVerdict{benchv1.VerdictUnchanged, benchv1.VerdictImproved, benchv1.VerdictAcknowledged} {
		if j.verdicts[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", j.verdicts[v], strings.ToLower(string(v))))
		}
	}
	return strings.Join(parts, ", ")
}

// judge compares each metric of the current runs (a run, or a sweep
// cell's successful repetitions: their median, and with a history their
// spread) with the baseline's runs. Without baseline runs (basis says
// why) only an unavailability its disruptions left unmeasured is judged:
// it fails the gate whatever the baseline.
func judge(spec *benchv1.CompareSpec, current, baseline []*benchv1.BenchmarkRun, history bool, basis string, now time.Time) judgement {
	acks := make([]compare.Acknowledgement, 0, len(spec.Acknowledged))
	for _, a := range spec.Acknowledged {
		ack := compare.Acknowledgement{Metric: a.Metric, Reason: a.Reason}
		if a.Until != nil {
			ack.Until = a.Until.Time
		}
		acks = append(acks, ack)
	}
	j := judgement{verdicts: map[benchv1.CompareVerdict]int{}}
	for _, m := range spec.Metrics {
		name := metricName(m)
		cur, unmeasured := compare.Values(current, m)
		// A baseline's run whose disruption left the metric unmeasured
		// is left out of it: it has no number to compare with.
		ref, _ := compare.Values(baseline, m)
		if len(unmeasured) > 0 {
			// Never recovered, or no failover at all: the gate fails
			// whatever the baseline says, even without one.
			j.add(name, compare.Unrecovered(ref, cur, unmeasured), acks, now)
			continue
		}
		if len(cur) == 0 {
			j.missing = append(j.missing, name+" ("+compare.Missing(current, m).Error()+")")
			continue
		}
		if len(ref) == 0 {
			why := "not in the baseline's results"
			switch err := compare.Missing(baseline, m); {
			case len(baseline) == 0:
				why = basis // why there is no baseline
			case !errors.Is(err, compare.ErrNotInResults):
				why += ": " + err.Error()
			}
			j.missing = append(j.missing, name+" ("+why+")")
			continue
		}
		opts := compare.OptionsFor(spec, m)
		var res compare.Result
		var err error
		if history {
			res, err = compare.AgainstHistory(ref, cur, direction(m), opts)
		} else {
			res, err = compare.AgainstReference(ref, cur, direction(m), opts.MaxRegressionPercent)
			res.Basis = basis
		}
		if err != nil {
			j.missing = append(j.missing, name+" ("+err.Error()+")")
			continue
		}
		j.add(name, res, acks, now)
	}
	return j
}

// add records one metric's verdict, acknowledged when acks say so.
func (j *judgement) add(name string, res compare.Result, acks []compare.Acknowledgement, now time.Time) {
	res, ack := compare.Acknowledge(res, name, acks, now)
	mc := benchv1.MetricComparison{Metric: name, Baseline: res.Baseline, Current: res.Current, ChangePercent: res.ChangePercent,
		PValue: res.PValue, Verdict: benchv1.CompareVerdict(res.Verdict), Basis: res.Basis}
	if ack != nil {
		mc.Acknowledged = ack.Reason
	}
	j.verdicts[mc.Verdict]++
	if mc.Verdict == benchv1.VerdictRegressed {
		j.regressed = append(j.regressed, compare.Summary(name, res))
	}
	j.rows = append(j.rows, mc)
}

// baselineQuery describes the baseline to find for a run or a sweep cell.
type baselineQuery struct {
	namespace string
	spec      *benchv1.CompareSpec
	// cell holds the axis values of the sweep cell being compared (nil for
	// a run): the axes a sweepRef's cell leaves out take these values, and
	// a history's selector is narrowed to them.
	cell map[string]string
	// hash and fingerprint select the default history.
	hash, fingerprint string
	// exclude drops history runs that are not comparable: the run itself,
	// runs that ended after it, the sweep's own runs.
	exclude func(*benchv1.BenchmarkRun) bool
}

// findBaseline reads the baseline's runs: the named run, the successful
// runs of a sweep's cell, or the history (oldest first, at most window
// runs). basis describes them, or why there are none.
func findBaseline(ctx context.Context, c client.Reader, q baselineQuery) (
	runs []*benchv1.BenchmarkRun, basis string, history bool, err error) {
	b := q.spec.Baseline
	ns := q.namespace
	switch {
	case b.RunRef != "":
		ref := &benchv1.BenchmarkRun{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: b.RunRef}, ref); err != nil {
			if client.IgnoreNotFound(err) == nil {
				return nil, fmt.Sprintf("baseline run %s does not exist", b.RunRef), false, nil
			}
			return nil, "", false, fmt.Errorf("get baseline run %s: %w", b.RunRef, err)
		}
		if ref.Status.Phase != benchv1.RunSucceeded {
			return nil, fmt.Sprintf("baseline run %s has not succeeded (phase %q)", b.RunRef, ref.Status.Phase), false, nil
		}
		if !compare.Usable(ref) {
			c := meta.FindStatusCondition(ref.Status.Conditions, benchv1.ConditionValid)
			return nil, fmt.Sprintf("baseline run %s is not valid (%s)", b.RunRef, c.Reason), false, nil
		}
		return []*benchv1.BenchmarkRun{ref}, "baseline run " + b.RunRef, false, nil
	case b.SweepRef != nil:
		cell := map[string]string{}
		for axis, v := range q.cell {
			cell[axis] = v
		}
		for axis, v := range b.SweepRef.Cell {
			cell[axis] = string(v)
		}
		var list benchv1.BenchmarkRunList
		sel := client.MatchingLabels{benchv1.LabelSweep: b.SweepRef.Name}
		for axis, v := range cell {
			sel[benchv1.LabelAxisPrefix+axis] = v
		}
		if err := c.List(ctx, &list, client.InNamespace(ns), sel); err != nil {
			return nil, "", false, fmt.Errorf("list the runs of sweep %s: %w", b.SweepRef.Name, err)
		}
		for i := range list.Items {
			if compare.Usable(&list.Items[i]) {
				runs = append(runs, &list.Items[i])
			}
		}
		names := make([]string, 0, len(cell))
		for axis, v := range cell {
			names = append(names, axis+"="+v)
		}
		sort.Strings(names)
		basis = fmt.Sprintf("sweep %s cell %s (%d runs)", b.SweepRef.Name, strings.Join(names, ","), len(runs))
		if len(runs) == 0 {
			basis = fmt.Sprintf("sweep %s has no succeeded, valid run in cell %s", b.SweepRef.Name, strings.Join(names, ","))
		}
		return runs, basis, false, nil
	default:
		h := b.History
		// A sweep's selector applies to each of its cells: narrowed to the
		// cell's axis values, it cannot mix cells.
		sel, err := compare.HistorySelector(h, q.fingerprint, q.hash, q.cell)
		if err != nil {
			// The spec's own mistake (the CRD cannot check a selector's
			// operators): no history, and the condition says why.
			basis := "compare.baseline.history.selector is invalid: " + err.Error()
			return nil, basis, true, nil //nolint:nilerr // the spec's mistake is the basis, not a reconcile error
		}
		var list benchv1.BenchmarkRunList
		if err := c.List(ctx, &list, client.InNamespace(ns), client.MatchingLabelsSelector{Selector: sel}); err != nil {
			return nil, "", false, fmt.Errorf("list the history: %w", err)
		}
		runs = compare.History(list.Items, q.exclude, compare.Window(h))
		if len(runs) == 0 {
			return nil, fmt.Sprintf("no earlier succeeded run matches the history selector %s", sel), true, nil
		}
		return runs, fmt.Sprintf("%d-run history", len(runs)), true, nil
	}
}
