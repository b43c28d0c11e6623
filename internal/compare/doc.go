// Package compare turns a run's numbers and a baseline's into a verdict:
// Improved, Unchanged, Regressed or Acknowledged. It is pure (numbers in,
// verdicts out; runs.go reads the numbers and the history out of
// BenchmarkRuns, for the run controller and the report alike);
// internal/stats does the statistics. Two kinds of baseline exist:
//
//   - a reference (a baseline run, or a sweep's cell): the change of the
//     median against the reference's median, judged by a threshold
//     (maxRegressionPercent), as k6's thresholds or Touchstone do;
//   - a history of comparable runs: the prediction test of the new run
//     (or its repetitions) against the runs since the history's last
//     change point, judged by a p-value and a minimum magnitude, as
//     MongoDB's CI and Apache Otava do. With fewer runs than MinRuns it
//     falls back to the threshold against the history's median, and says
//     so.
//
// The unavailability of a phase's disruptions (unavailability.go) is
// compared as a latency, except that a disruption a loader never
// recovered from, or one that did not happen, has no figure: the gated
// run then fails (Unrecovered) whatever the baseline.
package compare
