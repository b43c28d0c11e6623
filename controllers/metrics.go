package controllers

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// metricsCollector exports runs by phase and each run's headline result.
// It reads the manager's cache at scrape time, so the numbers can never
// drift from the objects (no gauges to keep in step with reconciles).
type metricsCollector struct {
	reader     client.Reader
	runs       *prometheus.Desc
	throughput *prometheus.Desc
	p99        *prometheus.Desc
}

// NewMetricsCollector returns the collector to register on the manager's
// metrics registry.
func NewMetricsCollector(r client.Reader) prometheus.Collector {
	labels := []string{"namespace", "name", "phase"}
	return &metricsCollector{
		reader: r,
		runs: prometheus.NewDesc("mongobench_benchmarkruns",
			"BenchmarkRuns by lifecycle phase.", []string{"phase"}, nil),
		throughput: prometheus.NewDesc("mongobench_benchmarkrun_throughput_ops_per_second",
			"Throughput of the last finished Run phase of a BenchmarkRun (label phase names it).", labels, nil),
		p99: prometheus.NewDesc("mongobench_benchmarkrun_p99_latency_microseconds",
			"p99 latency of all database calls of the last finished Run phase of a BenchmarkRun.", labels, nil),
	}
}

func (c *metricsCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.runs
	ch <- c.throughput
	ch <- c.p99
}

func (c *metricsCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var list benchv1.BenchmarkRunList
	if err := c.reader.List(ctx, &list); err != nil {
		ch <- prometheus.NewInvalidMetric(c.runs, err)
		return
	}
	counts := map[benchv1.RunPhase]int{}
	for _, p := range []benchv1.RunPhase{benchv1.RunPending, benchv1.RunProvisioning, benchv1.RunLoading,
		benchv1.RunRunning, benchv1.RunSucceeded, benchv1.RunFailed} {
		counts[p] = 0
	}
	for i := range list.Items {
		run := &list.Items[i]
		phase := run.Status.Phase
		if phase == "" {
			phase = benchv1.RunPending
		}
		counts[phase]++
		if s := run.Status.Summary; s != nil {
			ch <- prometheus.MustNewConstMetric(c.throughput, prometheus.GaugeValue, s.Throughput, run.Namespace, run.Name, s.Phase)
			ch <- prometheus.MustNewConstMetric(c.p99, prometheus.GaugeValue, float64(s.P99Micros), run.Namespace, run.Name, s.Phase)
		}
	}
	for p, n := range counts {
		ch <- prometheus.MustNewConstMetric(c.runs, prometheus.GaugeValue, float64(n), string(p))
	}
}
