// Package report renders a study — a BenchmarkSweep with its child runs, or
// a single BenchmarkRun as a one-cell study — as Markdown, CSV, JSON or a
// self-contained HTML page with charts. It is pure: API objects in, bytes
// out, no Kubernetes client (the kubectl plugin fetches the objects).
//
// The sweep's aggregates (medians, CoV, % changes, knees) are taken from
// its status as the controller computed them, never recomputed: a report
// and `kubectl get benchmarksweep` must not disagree. What status does not
// aggregate (per-operation latencies, warm-ups, loaders) is reduced the
// same way, with internal/stats: the median across a cell's usable
// repetitions (succeeded, and not invalid: benchv1.BenchmarkRun.Usable);
// a count's median is shown as whole operations (wholeMedian). The
// Markdown and HTML latency tables leave out YCSB's CLEANUP, which is no
// operation of the workload; CSV and JSON keep every row of status.
// Invalid runs are shown with their Valid condition, and enter no
// aggregate.
package report
