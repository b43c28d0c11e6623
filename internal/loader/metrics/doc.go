// Package metrics is the loader's live /metrics: what the loader measures,
// exported to Prometheus (text and OpenMetrics through client_golang's
// promhttp) while it runs, under the names and labels of
// internal/contract's metrics.go.
//
// It is fed from the same measurements as the report, never from the
// workers: the YCSB engine hands the collector's once-a-second drain to an
// Exporter (ycsb.Observer), which merges it into cumulative HdrHistograms.
// Recording an operation therefore costs nothing more with metrics on, and
// allocates nothing; the per-second merge and the per-scrape conversion
// (HdrHistogram → a Prometheus histogram with native buckets and classic
// ones) are paid off the hot path. Loader 0 adds the latest server
// telemetry sample of each process (telemetry.Config.OnSample), and a Grow
// phase its latest checkpoint.
//
// A loader that finished keeps serving its final values until the process
// exits.
package metrics
