// Package controllers holds the BenchmarkRun reconciler: it provisions the
// MongoDB topology, runs each phase's loader Job, and merges results into
// status, talking only to the Kubernetes API.
//
// A reconcile observes the run's children (observe.go), then runs steps in
// order, each of which may stop the chain (benchmarkrun_controller.go):
//
//   - start, checkTimeout: the run's clock (status.phase moves only forward:
//     runphase.go);
//   - ensureIdentity, preflight, ensureClaims, placePods, checkPods: the
//     MongoDB pods on one node (provision.go, placement.go);
//   - bootstrap, watchTopology: the bootstrap Job and a topology that must
//     not change once ready (bootstrap.go);
//   - runPhases, succeed: spec.phases, one loader Job each, and the merged
//     results (benchmarkphases.go, convert.go), with the servers' telemetry
//     that loader 0 sampled: summaries in status, the full report in a
//     ConfigMap of its own (telemetry.go).
//
// The status is patched once, at the end; events follow it. A terminal run
// keeps its evidence (diagnostics.go) and its telemetry, and is cleaned up
// (cleanup.go). What a
// pod's or Job's state means is decided in problems.go; texts are bounded
// to the API's limits in messages.go.
package controllers
