package controllers

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	change     *prometheus.Desc
	regressed  *prometheus.Desc
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
		change: prometheus.NewDesc("mongobench_benchmarkrun_comparison_change_percent",
			"Change of a compared metric of a BenchmarkRun against its baseline (spec.compare), in %; "+
				"label verdict is Improved, Unchanged, Regressed or Acknowledged.",
			[]string{"namespace", "name", "metric", "verdict"}, nil),
		regressed: prometheus.NewDesc("mongobench_benchmarkrun_regressed",
			"1 when a BenchmarkRun's Regressed condition is True, 0 when False (absent when unknown or without spec.compare).",
			[]string{"namespace", "name"}, nil),
	}
}

func (c *metricsCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.runs
	ch <- c.throughput
	ch <- c.p99
	ch <- c.change
	ch <- c.regressed
}

func (c *metricsCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var list benchv1.BenchmarkRunList
	if err := c.reader.List(ctx, &list); err != nil {
		ch <- prometheus.NewInvalidMetric(c.runs, err)
		return
	}
	counts := map[benchv1.RunLifecycle]int{}
	for _, p := range []benchv1.RunLifecycle{benchv1.RunPending, benchv1.RunProvisioning, benchv1.RunLoading,
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
		for _, m := range run.Status.Comparison {
			ch <- prometheus.MustNewConstMetric(c.change, prometheus.GaugeValue, m.ChangePercent, run.Namespace, run.Name, m.Metric, string(m.Verdict))
		}
		if cond := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionRegressed); cond != nil && cond.Status != metav1.ConditionUnknown {
			v := 0.0
			if cond.Status == metav1.ConditionTrue {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(c.regressed, prometheus.GaugeValue, v, run.Namespace, run.Name)
		}
	}
	for p, n := range counts {
		ch <- prometheus.MustNewConstMetric(c.runs, prometheus.GaugeValue, float64(n), string(p))
	}
}
