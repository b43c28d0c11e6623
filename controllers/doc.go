// Package controllers holds the BenchmarkRun reconciler: it provisions the
// MongoDB topology, runs each phase's loader Job, and merges results into
// status, talking only to the Kubernetes API.
package controllers
