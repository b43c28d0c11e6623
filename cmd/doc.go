// Command manager runs the mongobench controller manager: the
// BenchmarkRun and BenchmarkSweep reconcilers (package controllers) under
// controller-runtime, with their metrics and health probes. main.go holds
// only the wiring: flags (the loader image, the watched namespace, the
// timeouts of controllers.Limits, ...), the manager and its cache, and the
// two reconcilers.
package main
