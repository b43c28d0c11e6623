package controllers

import (
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller"
)

// controllerOptions are the options of both controllers: workers
// reconciling at once, and client-go's rate-limited work queue instead of
// controller-runtime's priority queue, its default since v0.23.
//
// The priority queue of controller-runtime v0.24.1 (the version in go.mod)
// can deadlock on shutdown (kubernetes-sigs/controller-runtime#3538): a
// worker waiting for an item returns when the queue shuts down without
// taking back its claim, and the goroutine that hands out ready items then
// blocks forever sending to it, holding the queue's lock. The next worker
// blocks on that lock, the controller never returns, and the manager
// gives up after its graceful-shutdown timeout ("failed waiting for all
// runnables to end within grace period"); a leader that steps down waits
// that long. Our envtest suite met it on a busy machine. Fixed upstream in
// #3540 (v0.25.0). Neither controller uses priorities: the queue's sole
// feature, a lower priority for the initial list's events, only matters
// for controllers with far more objects than ours. Take this out when
// go.mod moves to v0.25.0 or later.
func controllerOptions(workers int) controller.Options {
	return controller.Options{MaxConcurrentReconciles: max(workers, 1), UsePriorityQueue: ptr.To(false)}
}
