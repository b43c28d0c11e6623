// Package controllers holds the two reconcilers, one per kind, talking only
// to the Kubernetes API:
//
//   - BenchmarkRunReconciler (benchmarkrun_controller.go) provisions a
//     run's MongoDB topology, runs each phase's loader Job, and merges the
//     results into status;
//   - BenchmarkSweepReconciler (benchmarksweep_controller.go) expands a
//     sweep into cells (internal/sweep), creates one BenchmarkRun per cell
//     and repetition, and aggregates their results. It reads its runs'
//     status and never edits them.
//
// # The run
//
// A reconcile observes the run's children (observe.go, into the runState of
// state.go), then runs steps in order, each of which may stop the chain
// (benchmarkrun_controller.go):
//
//   - start, checkTimeout: the run's clock (status.phase moves only forward:
//     runphase.go);
//   - ensureIdentity, preflight, ensureClaims, placePods, checkPods: the
//     MongoDB pods on one node (provision.go, placement.go);
//   - bootstrap, watchTopology: the bootstrap Job and a topology that must
//     not change once ready (bootstrap.go);
//   - recordEnvironment: what the numbers come from, its fingerprint and
//     the Warnings condition (environment.go);
//   - runPhases, succeed: spec.phases, one loader Job each, and the merged
//     results (benchmarkphases.go, convert.go), with the servers' telemetry
//     that loader 0 sampled: summaries in status, the full report in a
//     ConfigMap of its own (telemetry.go). When the run succeeds, the Valid
//     condition is decided (benchmarkrun_validity.go, with
//     internal/validity) and, with spec.compare, the Regressed condition
//     (compare.go, with internal/compare).
//
// The status is patched once, at the end; events follow it. A terminal run
// keeps its evidence (diagnostics.go) and its telemetry, and is cleaned up
// (cleanup.go). What a pod's or Job's state means is decided in
// problems.go, with the manager's Limits.
//
// # The sweep
//
// A reconcile reads the sweep uncached and runs the steps expand, start,
// observe, validate (a server-side dry run of every cell), aggregate,
// createRuns and finish (benchmarksweep_controller.go); spec.compare's
// verdict per cell and the pruning of a series beyond spec.historyLimit
// are in sweep_compare.go. Its status, too, is patched once, at the end.
//
// # Shared by both
//
// messages.go bounds texts to the API's limits; metrics.go exports the
// runs to Prometheus from the cache; cache.go restricts the manager's
// cache to the objects it manages.
//
// # Tests
//
// Most tests drive a reconciler against a real API server (envtest;
// harness_test.go starts it and the manager). Test files are named after
// the file they test or, for envtest suites, after their topic (lifecycle,
// failures, resilience, scheduler, sweep_integration, ...); the tests of
// problems.go are in branches_test.go.
package controllers
