// Package stats holds the statistics of mongobench's studies and gates:
// medians, spread and coefficients of variation across repetitions, Welch's
// t-test, change points and the prediction test of a new run, and an
// operation's throughput over a phase (OpsPerSec). It is pure (no
// Kubernetes, no MongoDB) so sweeps, reports, the plugin, the manager's
// metrics and regression verdicts compute every number the same way.
package stats
