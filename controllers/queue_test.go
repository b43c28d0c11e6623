package controllers

import "testing"

// TestControllersDoNotUseThePriorityQueue: both controllers are built with
// controllerOptions, which keeps them off controller-runtime v0.24's
// priority queue and its shutdown deadlock (see controllerOptions).
func TestControllersDoNotUseThePriorityQueue(t *testing.T) {
	for _, workers := range []int{0, 1, 4} {
		o := controllerOptions(workers)
		if o.UsePriorityQueue == nil || *o.UsePriorityQueue {
			t.Errorf("controllerOptions(%d) uses the priority queue", workers)
		}
		if want := max(workers, 1); o.MaxConcurrentReconciles != want {
			t.Errorf("controllerOptions(%d): %d workers, want %d", workers, o.MaxConcurrentReconciles, want)
		}
	}
}
