package controllers

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/compare"
)

// compareResults judges a run that just succeeded against spec.compare's
// baseline: status.comparison gets a verdict per metric, the Regressed
// condition the summary. A baseline without results makes the condition
// Unknown (BaselineUnavailable), unless a disruption left an
// unavailability metric unmeasured, which fails the gate anyway; the
// run's success stands either way.
func (r *BenchmarkRunReconciler) compareResults(ctx context.Context, s *runState) error {
	run := s.run
	spec := run.Spec.Compare
	if spec == nil {
		return nil
	}
	q := baselineQuery{namespace: run.Namespace, spec: spec}
	if spec.Baseline.History != nil {
		hash, err := specHash(&run.Spec)
		if err != nil {
			return err
		}
		q.hash, q.fingerprint = hash, fingerprintOf(run)
		q.exclude = compare.NotHistoryOf(run)
	}
	baseline, basis, history, err := findBaseline(ctx, r.Client, q)
	if err != nil {
		return err
	}
	// Judged even without a baseline: a disruption the run never
	// recovered from fails the gate whatever the baseline.
	j := judge(spec, []*benchv1.BenchmarkRun{run}, baseline, history, basis, s.now)
	if len(baseline) == 0 && len(j.regressed) == 0 {
		s.setCondition(benchv1.ConditionRegressed, metav1.ConditionUnknown, benchv1.ReasonBaselineUnavailable, basis)
		s.warnf(benchv1.ReasonBaselineUnavailable, "no comparison: %s", basis)
		return nil
	}
	run.Status.Comparison = j.rows
	switch {
	case len(j.regressed) > 0:
		msg := strings.Join(j.regressed, "; ") + j.note()
		s.setCondition(benchv1.ConditionRegressed, metav1.ConditionTrue, benchv1.ReasonRegression, msg)
		s.warnf(benchv1.ReasonRegression, "%s", msg)
	case len(j.rows) == 0:
		s.setCondition(benchv1.ConditionRegressed, metav1.ConditionUnknown, benchv1.ReasonBaselineUnavailable, "no metric could be compared"+j.note())
	default:
		msg := fmt.Sprintf("no regression against %s: %s%s", j.rows[0].Basis, j.counts(), j.note())
		s.setCondition(benchv1.ConditionRegressed, metav1.ConditionFalse, benchv1.ReasonNoRegression, msg)
	}
	return nil
}
