package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Usable reports whether a run's numbers may be used beyond the run
// itself: aggregated in a sweep's cell, taken as a baseline, or counted
// in a regression history. It succeeded, and its Valid condition is not
// False (runs from before the condition existed have none, and count).
// The rule lives with the type so that every reader (internal/sweep,
// internal/compare, the reports, the plugin) applies the same one.
func (r *BenchmarkRun) Usable() bool {
	return r.Status.Phase == RunSucceeded && !meta.IsStatusConditionFalse(r.Status.Conditions, ConditionValid)
}

// Invalid returns the Valid condition of a run that succeeded but is not
// valid (its numbers are kept but not Usable), nil otherwise.
func (r *BenchmarkRun) Invalid() *metav1.Condition {
	if r.Status.Phase != RunSucceeded {
		return nil
	}
	c := meta.FindStatusCondition(r.Status.Conditions, ConditionValid)
	if c == nil || c.Status != metav1.ConditionFalse {
		return nil
	}
	return c
}
