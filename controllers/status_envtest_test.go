package controllers_test

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// The status kit (status.go) against a real API server: both reconcilers
// date what they write, conditions included, by their injected Clock.

// clockT0 is a fake clock's start: days before any object of the test, so
// no deadline measured from a real timestamp (a pod's creation) expires.
var clockT0 = time.Date(2024, 2, 3, 4, 5, 6, 0, time.UTC)

// wantTransitions checks each condition's status and lastTransitionTime.
func wantTransitions(t *testing.T, what string, conds []metav1.Condition, want map[string]metav1.ConditionStatus, at map[string]time.Time) {
	t.Helper()
	for typ, status := range want {
		var c *metav1.Condition
		for i := range conds {
			if conds[i].Type == typ {
				c = &conds[i]
			}
		}
		if c == nil || c.Status != status {
			t.Errorf("%s: condition %s is %+v, want status %s", what, typ, c, status)
			continue
		}
		if !c.LastTransitionTime.Time.Equal(at[typ]) {
			t.Errorf("%s: condition %s (%s) changed at %s, want %s (the fake clock)", what, typ, status,
				c.LastTransitionTime.UTC().Format(time.RFC3339), at[typ].Format(time.RFC3339))
		}
	}
}

// TestRunConditionsUseTheClock: a run's conditions change at its
// reconciler's clock's time, and only when their status changes.
func TestRunConditionsUseTheClock(t *testing.T) {
	k := newCluster(t)
	clk := clocktesting.NewFakePassiveClock(clockT0)
	startManagerWith(t, &counters{}, testLimits, managerOptions{clock: clk})
	run := newRun("clocked", benchv1.TopologyStandalone, 0, 1)
	run.Spec.Timeout = &metav1.Duration{Duration: time.Hour}
	k.create(run)

	// Nobody schedules the pod: the run waits, Pending.
	r := k.waitRun("clocked", "started", func(r *benchv1.BenchmarkRun) bool { return len(r.Status.Conditions) >= 3 })
	if r.Status.StartTime == nil || !r.Status.StartTime.Time.Equal(clockT0) {
		t.Errorf("startTime %v, want %s", r.Status.StartTime, clockT0)
	}
	wantTransitions(t, "started", r.Status.Conditions,
		map[string]metav1.ConditionStatus{benchv1.ConditionTopologyReady: "False", benchv1.ConditionComplete: "False", benchv1.ConditionFailed: "False"},
		map[string]time.Time{benchv1.ConditionTopologyReady: clockT0, benchv1.ConditionComplete: clockT0, benchv1.ConditionFailed: clockT0})

	// Two hours on, past the timeout; a label change wakes the reconciler
	// (the requeue it asked for is an hour of real time away).
	t1 := clockT0.Add(2 * time.Hour)
	clk.SetTime(t1)
	k.labelRun("clocked", "example.com/poke", "1")
	r = k.waitFailed("clocked", string(benchv1.ReasonTimeout), "the run exceeded its timeout of 1h0m0s while Pending")
	if !r.Status.CompletionTime.Time.Equal(t1) {
		t.Errorf("completionTime %s, want %s", r.Status.CompletionTime, t1)
	}
	wantTransitions(t, "failed", r.Status.Conditions,
		map[string]metav1.ConditionStatus{benchv1.ConditionFailed: "True", benchv1.ConditionValid: "False",
			benchv1.ConditionComplete: "False", benchv1.ConditionTopologyReady: "False"},
		map[string]time.Time{benchv1.ConditionFailed: t1, benchv1.ConditionValid: t1,
			benchv1.ConditionComplete: clockT0, benchv1.ConditionTopologyReady: clockT0})
}

// TestSweepConditionsUseTheClock: a sweep's conditions change at its
// reconciler's clock's time, and only when their status changes.
func TestSweepConditionsUseTheClock(t *testing.T) {
	k := newCluster(t)
	clk := clocktesting.NewFakePassiveClock(clockT0)
	startManagerWith(t, &counters{}, testLimits, managerOptions{sweepsOnly: true, clock: clk})
	k.createSweep(newSweep("clocked", topologiesAxis(1)))

	sw := k.waitSweep("clocked", "its run created", func(s *benchv1.BenchmarkSweep) bool { return s.Status.RunsActive == 1 })
	if sw.Status.StartTime == nil || !sw.Status.StartTime.Time.Equal(clockT0) {
		t.Errorf("startTime %v, want %s", sw.Status.StartTime, clockT0)
	}
	wantTransitions(t, "running", sw.Status.Conditions,
		map[string]metav1.ConditionStatus{benchv1.ConditionValidated: "True", benchv1.ConditionComplete: "False", benchv1.ConditionFailed: "False"},
		map[string]time.Time{benchv1.ConditionValidated: clockT0, benchv1.ConditionComplete: clockT0, benchv1.ConditionFailed: clockT0})

	t1 := clockT0.Add(2 * time.Hour)
	clk.SetTime(t1)
	children := k.children("clocked")
	if len(children) != 1 {
		t.Fatalf("%d runs, want 1", len(children))
	}
	for name := range children {
		k.finishChild(name, numbersFor(0, 1, "load", "S2", "S5")) // playing the run controller
	}
	sw = k.waitSweep("clocked", "Succeeded", func(s *benchv1.BenchmarkSweep) bool { return s.Status.Phase == benchv1.SweepSucceeded })
	if sw.Status.CompletionTime == nil || !sw.Status.CompletionTime.Time.Equal(t1) {
		t.Errorf("completionTime %v, want %s", sw.Status.CompletionTime, t1)
	}
	wantTransitions(t, "succeeded", sw.Status.Conditions,
		map[string]metav1.ConditionStatus{benchv1.ConditionValidated: "True", benchv1.ConditionComplete: "True", benchv1.ConditionFailed: "False"},
		map[string]time.Time{benchv1.ConditionValidated: clockT0, benchv1.ConditionComplete: t1, benchv1.ConditionFailed: clockT0})
}
