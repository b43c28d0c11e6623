// Package controllers holds the two reconcilers, one per kind, talking
// only to the Kubernetes API. A file's name says which kind it serves:
// run_*.go the BenchmarkRun reconciler, sweep_*.go the BenchmarkSweep
// reconciler; unprefixed files are shared by both.
//
// # BenchmarkRun (run_*.go)
//
// The run reconciler (run_controller.go) provisions the MongoDB topology,
// runs each benchmark phase's loader Job, and merges results into status.
// A reconcile observes the run's children (run_observe.go, into the
// runState of run_state.go), then runs steps in order, each of which may
// stop the chain:
//
//   - start, checkTimeout: the run's clock; status.phase, the run's
//     lifecycle (not a benchmark phase), moves only forward
//     (run_lifecycle.go);
//   - ensureIdentity, preflight, ensureClaims, placePods, checkPods: the
//     MongoDB pods on one node (run_provision.go, run_placement.go), or
//     with placement.layout Spread each data-bearing mongod on its own
//     (run_spread.go);
//   - bootstrap, watchTopology: the bootstrap Job and a topology that must
//     not change once ready (run_bootstrap.go);
//   - recordEnvironment: what the numbers come from, and its fingerprint
//     (run_environment.go);
//   - runPhases, succeed: spec.phases, one loader Job each, and the merged
//     results (run_phases.go, run_convert.go), with the servers' telemetry
//     that loader 0 sampled: summaries in status, the whole of it in a
//     ConfigMap of its own (run_telemetry.go); whether the run is valid
//     (run_validity.go) and spec.compare's gate (run_compare.go).
//
// A terminal run keeps its evidence (run_diagnostics.go) and its
// telemetry, and is cleaned up (run_cleanup.go). What a pod's or Job's
// state means is decided in run_problems.go. run_metrics.go exports the
// runs to Prometheus.
//
// # BenchmarkSweep (sweep_*.go)
//
// The sweep reconciler (sweep_controller.go) expands a sweep into cells
// (internal/sweep), has the API server dry-run each cell's run, checks
// that a node can hold it (the run's own pre-flight check, preflightCheck
// in run_placement.go), creates the child runs as parallelism allows and
// aggregates their results; it reads the runs' status and never edits
// them. An ended sweep's cells are
// judged against spec.compare's baseline and its series pruned
// (sweep_compare.go).
//
// # Shared
//
//   - status.go, the status kit: one status patch per reconcile, deferred,
//     with an optimistic lock (a conflict requeues quietly); setCondition
//     (the reconciler's injected Clock, observedGeneration, one truncation
//     rule); events and their log lines, recorded once the status that
//     explains them is stored;
//   - messages.go: texts bounded to the API's limits;
//   - compare.go: spec.compare's judging, for a run and a sweep's cell;
//   - cache.go: the manager's cache, restricted to the objects it manages;
//   - queue.go: both controllers' options (workers, and client-go's work
//     queue rather than controller-runtime v0.24's priority queue, which
//     can deadlock on shutdown).
//
// # Tests
//
// A unit test's file is named after the file it tests (run_problems_test.go
// tests run_problems.go; status_test.go, status.go). The envtest suites run
// the reconcilers against a real API server (harness_test.go starts it,
// the managers, and a fake kubelet); those of one file are named after it
// (run_controller_test.go: whole runs; sweep_controller_test.go and
// sweep_compare_test.go: sweeps, the test playing the run controller;
// status_envtest_test.go: both kinds under a fake clock; run_compare,
// run_environment_envtest, run_metrics, run_placement, run_telemetry,
// run_validity), the others after their topic:
//
//   - barrier_test.go: the loaders' start barrier (run_phases.go);
//   - evidence_test.go: long termination messages and bounded diagnostics;
//   - failures_test.go: each way a run fails, and its reason;
//   - grow_test.go: a Grow phase end to end;
//   - histograms_test.go: merged histograms, and those too big to keep;
//   - resilience_test.go: manager restarts between every step, 50 runs;
//   - scheduler_test.go: exclusive and Spread runs with the real
//     kube-scheduler;
//   - sweep_integration_test.go: sweeps through both reconcilers.
package controllers
