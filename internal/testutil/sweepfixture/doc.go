// Package sweepfixture reads the recorded sweeps of internal/report's
// testdata: a JSON List of one BenchmarkSweep and its BenchmarkRuns, as
// `kubectl get benchmarksweep,benchmarkruns -o json` writes it, or of
// BenchmarkRuns alone (a gated run and its history). The report tests
// render them; the plugin tests put them into an API server.
package sweepfixture
