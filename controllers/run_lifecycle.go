package controllers

// This file holds the run's lifecycle (status.phase, a
// benchv1.RunLifecycle: Pending → Provisioning → Loading → Running →
// Succeeded | Failed). The benchmark phases of spec.phases are run by
// run_phases.go.

import benchv1 "github.com/mongobench/mongobench/api/v1alpha1"

// lifecycleOrder ranks the states of a run's lifecycle; a run only moves
// forward.
var lifecycleOrder = map[benchv1.RunLifecycle]int{
	"":                      0,
	benchv1.RunPending:      1,
	benchv1.RunProvisioning: 2,
	benchv1.RunLoading:      3,
	benchv1.RunRunning:      4,
	benchv1.RunSucceeded:    5,
	benchv1.RunFailed:       5,
}

// advance returns the state a run in state cur has after asking for next:
// next when it is further along, cur otherwise. Succeeded and Failed are
// final: nothing leaves them, and one never turns into the other.
func advance(cur, next benchv1.RunLifecycle) benchv1.RunLifecycle {
	if cur == benchv1.RunSucceeded || cur == benchv1.RunFailed {
		return cur
	}
	if next == benchv1.RunFailed || lifecycleOrder[next] > lifecycleOrder[cur] {
		return next
	}
	return cur
}
