package controllers

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/compare"
	"github.com/mongobench/mongobench/internal/validity"
)

// maxValidityMessage bounds the Valid condition's message: every problem is
// listed, but a run of 16 phases that all failed every check would not be
// read anyway.
const maxValidityMessage = 4096

// judgeValidity sets the Valid condition of a run that just succeeded
// (internal/validity's checks) and reports whether it is valid.
func judgeValidity(s *runState) bool {
	problems := validity.Check(s.run)
	msg := truncateBytes(validity.Summary(problems, validity.Planned(s.run), validity.Unchecked(s.run)), maxValidityMessage)
	if len(problems) == 0 {
		s.setCondition(benchv1.ConditionValid, metav1.ConditionTrue, benchv1.ReasonValid, msg)
		return true
	}
	s.setCondition(benchv1.ConditionValid, metav1.ConditionFalse, problems[0].Reason, msg)
	s.warnf(problems[0].Reason, "the run is not valid: %s", msg)
	return false
}

// invalidComparison is the gate's answer for a run that is not valid:
// every metric's verdict is Invalid, never a pass nor a regression, and
// the Regressed condition is Unknown.
func invalidComparison(s *runState) {
	run := s.run
	reason := benchv1.ReasonRunInvalid
	basis := "not compared: the run is not valid (see its Valid condition)"
	run.Status.Comparison = nil
	for _, m := range run.Spec.Compare.Metrics {
		current, _ := compare.MetricValue(run, m)
		run.Status.Comparison = append(run.Status.Comparison, benchv1.MetricComparison{
			Metric: compare.MetricName(m), Current: current, Verdict: benchv1.VerdictInvalid, Basis: basis,
		})
	}
	s.setCondition(benchv1.ConditionRegressed, metav1.ConditionUnknown, reason, basis)
}
