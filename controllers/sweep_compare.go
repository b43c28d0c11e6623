package controllers

import (
	"context"
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/sweep"
)

// maxRegressedCellsInMessage bounds how many cells the Regressed
// condition's message spells out; the count says the rest.
const maxRegressedCellsInMessage = 3

// compareCells judges each cell of a sweep that just ended against
// spec.compare's baseline: status.cells[].comparison gets the verdicts,
// the sweep's Regressed condition the summary. Only a cell's usable runs
// (succeeded and not invalid) are judged. Cells without one, or without a
// baseline, are named in the message; when no cell could be compared the
// condition is Unknown.
func (r *BenchmarkSweepReconciler) compareCells(ctx context.Context, s *sweepState) error {
	spec := s.sweep.Spec.Compare
	if spec == nil {
		return nil
	}
	if ref := spec.Baseline.SweepRef; ref != nil && ref.Name == s.sweep.Name {
		msg := "compare.baseline.sweepRef names this sweep: a sweep cannot be its own baseline (use spec.baseline for % changes between its cells)"
		s.setCondition(benchv1.ConditionRegressed, metav1.ConditionUnknown, benchv1.ReasonBaselineUnavailable, msg)
		s.warnf(benchv1.ReasonBaselineUnavailable, "%s", msg)
		return nil
	}
	var regressed, skipped []string
	regressedCells, compared := 0, 0
	verdicts := map[benchv1.CompareVerdict]int{}
	basis := ""
	for i := range s.cells {
		c := &s.cells[i]
		cur, invalid := s.usableRuns(c.Index)
		if len(cur) == 0 {
			why := "no run succeeded"
			if len(invalid) > 0 {
				why = "no valid run: " + strings.Join(invalid, ", ")
			}
			skipped = append(skipped, "cell "+c.Name()+" ("+why+")")
			continue
		}
		q := baselineQuery{namespace: s.sweep.Namespace, spec: spec, cell: map[string]string{}}
		for _, v := range c.Values {
			q.cell[v.Axis] = v.Value
		}
		if spec.Baseline.History != nil {
			// The label is the run controller's hash of the stored
			// (defaulted) spec, which the history's runs carry too.
			q.hash = cur[0].Labels[benchv1.LabelSpecHash]
			if q.hash == "" {
				h, err := specHash(&cur[0].Spec)
				if err != nil {
					return err
				}
				q.hash = h
			}
			q.fingerprint = fingerprintOf(cur[0])
			q.exclude = func(o *benchv1.BenchmarkRun) bool { return metav1.IsControlledBy(o, s.sweep) }
		}
		baseline, b, history, err := findBaseline(ctx, r.Client, q)
		if err != nil {
			return fmt.Errorf("cell %s: %w", c.Name(), err)
		}
		// Judged even without a baseline: a disruption a run never
		// recovered from fails the gate whatever the baseline.
		j := judge(spec, cur, baseline, history, b, s.now)
		if len(baseline) == 0 && len(j.regressed) == 0 {
			skipped = append(skipped, "cell "+c.Name()+" ("+b+")")
			continue
		}
		if j.note() != "" {
			skipped = append(skipped, "cell "+c.Name()+" ("+strings.TrimPrefix(j.note(), "; not compared: ")+")")
		}
		if len(j.rows) == 0 {
			continue
		}
		compared++
		if basis == "" {
			basis = j.rows[0].Basis
		}
		for v, n := range j.verdicts {
			verdicts[v] += n
		}
		if st := s.cellStatus(c.Index); st != nil {
			st.Comparison = j.rows
		}
		if len(j.regressed) > 0 {
			regressedCells++
			if regressedCells <= maxRegressedCellsInMessage {
				regressed = append(regressed, "cell "+c.Name()+": "+strings.Join(j.regressed, "; "))
			}
		}
	}
	note := ""
	if len(skipped) > 0 {
		note = "; not compared: " + strings.Join(skipped, ", ")
	}
	switch {
	case regressedCells > 0:
		msg := strings.Join(regressed, "; ")
		if regressedCells > maxRegressedCellsInMessage {
			msg += fmt.Sprintf("; %d more cells regressed", regressedCells-maxRegressedCellsInMessage)
		}
		msg = fmt.Sprintf("%d of %d cells regressed: %s%s", regressedCells, compared, msg, note)
		s.setCondition(benchv1.ConditionRegressed, metav1.ConditionTrue, benchv1.ReasonRegression, msg)
		s.warnf(benchv1.ReasonRegression, "%s", msg)
	case compared == 0:
		msg := "no cell could be compared" + note
		s.setCondition(benchv1.ConditionRegressed, metav1.ConditionUnknown, benchv1.ReasonBaselineUnavailable, msg)
		s.warnf(benchv1.ReasonBaselineUnavailable, "%s", msg)
	default:
		j := judgement{verdicts: verdicts}
		msg := fmt.Sprintf("no regression in %d cells against %s: %s%s", compared, basisKind(basis), j.counts(), note)
		s.setCondition(benchv1.ConditionRegressed, metav1.ConditionFalse, benchv1.ReasonNoRegression, msg)
	}
	return nil
}

// basisKind describes a cell's basis without its cell-specific detail:
// "baseline run x", "history", "sweep y".
func basisKind(basis string) string {
	switch {
	case strings.HasSuffix(basis, "-run history"):
		return "their history"
	case strings.HasPrefix(basis, "thresholds"):
		return "their history (thresholds)"
	case strings.HasPrefix(basis, "sweep "):
		name, _, _ := strings.Cut(strings.TrimPrefix(basis, "sweep "), " ")
		return "the same cells of sweep " + name
	}
	return basis
}

// usableRuns are a cell's usable runs (succeeded and not invalid), in
// plan order, and its invalid runs as "name (reason)".
func (s *sweepState) usableRuns(cell int) (usable []*benchv1.BenchmarkRun, invalid []string) {
	for _, p := range s.plan {
		run := s.runs[p.Name]
		if p.Cell != cell || run == nil {
			continue
		}
		if run.Usable() {
			usable = append(usable, run)
		} else if c := run.Invalid(); c != nil {
			invalid = append(invalid, p.Name+" ("+c.Reason+")")
		}
	}
	return usable, invalid
}

// cellStatus is the status row of the cell with the given index.
func (s *sweepState) cellStatus(index int) *benchv1.SweepCellStatus {
	for i := range s.sweep.Status.Cells {
		if int(s.sweep.Status.Cells[i].Index) == index {
			return &s.sweep.Status.Cells[i]
		}
	}
	return nil
}

// pruneHistory deletes the older ended sweeps of this sweep's series
// beyond spec.historyLimit (this sweep, which is ending, counts as one),
// their runs with them (background propagation: the garbage collector
// removes the owned runs). Only sweeps created before this one are
// pruned (later ones prune when they end), only sweeps with results
// (Succeeded or PartiallySucceeded) count towards the limit, so a streak
// of failures never prunes away the history a gate needs, and sweeps still
// running are neither counted nor deleted.
func (r *BenchmarkSweepReconciler) pruneHistory(ctx context.Context, s *sweepState) error {
	sw := s.sweep
	if sw.Spec.HistoryLimit == nil {
		return nil
	}
	series, bySeriesLabel := sw.Labels[benchv1.LabelSeries]
	if !bySeriesLabel && sw.GenerateName == "" {
		return nil
	}
	var list benchv1.BenchmarkSweepList
	opts := []client.ListOption{client.InNamespace(sw.Namespace)}
	if bySeriesLabel {
		opts = append(opts, client.MatchingLabels{benchv1.LabelSeries: series})
	}
	if err := r.APIReader.List(ctx, &list, opts...); err != nil {
		return fmt.Errorf("list the sweeps of the series: %w", err)
	}
	older := func(a, b *benchv1.BenchmarkSweep) bool { // a was created before b
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return a.Name < b.Name
	}
	var predecessors []*benchv1.BenchmarkSweep
	for i := range list.Items {
		o := &list.Items[i]
		if _, labelled := o.Labels[benchv1.LabelSeries]; !bySeriesLabel && (labelled || o.GenerateName != sw.GenerateName) {
			continue
		}
		if o.UID != sw.UID && o.DeletionTimestamp.IsZero() && sweep.Terminal(o.Status.Phase) && older(o, sw) {
			predecessors = append(predecessors, o)
		}
	}
	sort.Slice(predecessors, func(i, j int) bool { return older(predecessors[j], predecessors[i]) }) // newest first
	keep := int(*sw.Spec.HistoryLimit) - 1
	var pruned []string
	for _, o := range predecessors {
		if keep > 0 {
			if o.Status.Phase != benchv1.SweepFailed {
				keep--
			}
			continue
		}
		err := r.Delete(ctx, o, client.PropagationPolicy(metav1.DeletePropagationBackground), client.Preconditions{UID: &o.UID})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return fmt.Errorf("delete sweep %s beyond historyLimit: %w", o.Name, err)
		}
		pruned = append(pruned, o.Name)
	}
	if len(pruned) > 0 {
		s.eventf(benchv1.EventPruned, "deleted %d older sweeps of the series beyond historyLimit %d, with their runs: %s",
			len(pruned), *sw.Spec.HistoryLimit, strings.Join(pruned, ", "))
	}
	return nil
}
