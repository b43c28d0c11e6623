// Package stats holds the statistics of mongobench's studies and gates:
// medians, spread and coefficients of variation across repetitions, Welch's
// t-test, change points and the prediction test of a new run. It is
// pure (no Kubernetes, no MongoDB) so sweeps, reports and regression
// verdicts compute every number the same way.
package stats
