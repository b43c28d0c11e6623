package controllers

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// TestPhaseDeadlineBranches: a benchmark phase's Job deadline, one row per
// branch (ago and now are run_problems_test.go's).
func TestPhaseDeadlineBranches(t *testing.T) {
	r := &BenchmarkRunReconciler{Limits: Limits{PhaseGrace: 5 * time.Minute}}
	// run has a timeout of timeout (0: none) and started started ago (0: not
	// started).
	run := func(timeout, started time.Duration) *benchv1.BenchmarkRun {
		br := &benchv1.BenchmarkRun{}
		if timeout > 0 {
			br.Spec.Timeout = &metav1.Duration{Duration: timeout}
		}
		if started > 0 {
			br.Status.StartTime = ptr.To(ago(started))
		}
		return br
	}
	limited := &benchv1.PhaseSpec{Name: "run", Type: benchv1.PhaseRun, MaxExecutionTime: &metav1.Duration{Duration: 10 * time.Minute}}
	unlimited := &benchv1.PhaseSpec{Name: "run", Type: benchv1.PhaseRun}
	warmTimed := limited.DeepCopy()
	warmTimed.Warmup = &benchv1.WarmupSpec{Duration: &metav1.Duration{Duration: 2 * time.Minute}}
	warmOps := limited.DeepCopy()
	warmOps.Warmup = &benchv1.WarmupSpec{Operations: ptr.To[int64](100000)}
	loaders := func(br *benchv1.BenchmarkRun, n int32) *benchv1.BenchmarkRun { br.Spec.Loaders = n; return br }

	for _, tc := range []struct {
		name  string
		run   *benchv1.BenchmarkRun
		phase *benchv1.PhaseSpec
		want  time.Duration
	}{
		{"maxExecutionTime plus grace, no run timeout", run(0, 0), limited, 15 * time.Minute},
		{"maxExecutionTime plus grace, within the run's timeout", run(2*time.Hour, time.Hour), limited, 15 * time.Minute},
		{"maxExecutionTime cut to what is left of the run's timeout", run(2*time.Hour, 110*time.Minute), limited, 10 * time.Minute},
		{"no maxExecutionTime: what is left of the run's timeout", run(2*time.Hour, 30*time.Minute), unlimited, 90 * time.Minute},
		{"no maxExecutionTime, no run timeout: a day", run(0, 0), unlimited, 24 * time.Hour},
		{"a timeout but not started: as without one", run(2*time.Hour, 0), unlimited, 24 * time.Hour},
		{"past the run's timeout: negative", run(time.Hour, 61*time.Minute), limited, -time.Minute},
		{"a timed warm-up comes first", run(0, 0), warmTimed, 17 * time.Minute},
		{"a warm-up of operations has no known length: the run's timeout", run(2*time.Hour, 30*time.Minute), warmOps, 90 * time.Minute},
		{"the start barrier's wait, by default 10 min and a 2 s lead", loaders(run(0, 0), 3), limited, 25*time.Minute + 2*time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := r.phaseDeadline(&runState{statusKit: statusKit[*benchv1.BenchmarkRun]{now: now}, run: tc.run}, tc.phase); got != tc.want {
				t.Errorf("phaseDeadline = %v, want %v", got, tc.want)
			}
		})
	}
}
