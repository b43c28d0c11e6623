package controllers_test

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/controllers"
)

func TestMetricsCollector(t *testing.T) {
	k := newCluster(t)
	done := k.create(newRun("metrics-done", benchv1.TopologyStandalone, 0, 1))
	done.Status.Phase = benchv1.RunSucceeded
	done.Status.Summary = &benchv1.RunSummary{Phase: "S5", Throughput: 1234.5, P99Micros: 678}
	done.Status.Comparison = []benchv1.MetricComparison{
		{Metric: "S5 throughput", Baseline: 1400, Current: 1234.5, ChangePercent: -11.82, Verdict: benchv1.VerdictRegressed, Basis: "baseline run x"},
		{Metric: "S5 READ p99", Baseline: 700, Current: 678, ChangePercent: -3.14, Verdict: benchv1.VerdictUnchanged, Basis: "baseline run x"},
	}
	done.Status.Conditions = []metav1.Condition{{Type: benchv1.ConditionRegressed, Status: metav1.ConditionTrue, Reason: "Regression",
		Message: "S5 throughput -11.8% vs baseline run x", LastTransitionTime: metav1.Now()}}
	if err := k.c.Status().Update(k.ctx(), done); err != nil {
		t.Fatal(err)
	}
	k.create(newRun("metrics-new", benchv1.TopologyStandalone, 0, 1))

	// Only this namespace's runs: other tests' runs live in the same API server.
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(controllers.NewMetricsCollector(namespaced{k.c, k.ns}))
	want := `
# HELP mongobench_benchmarkrun_comparison_change_percent Change of a compared metric of a BenchmarkRun against its baseline (spec.compare), in %; label verdict is Improved, Unchanged, Regressed or Acknowledged.
# TYPE mongobench_benchmarkrun_comparison_change_percent gauge
mongobench_benchmarkrun_comparison_change_percent{metric="S5 READ p99",name="metrics-done",namespace="` + k.ns + `",verdict="Unchanged"} -3.14
mongobench_benchmarkrun_comparison_change_percent{metric="S5 throughput",name="metrics-done",namespace="` + k.ns + `",verdict="Regressed"} -11.82
# HELP mongobench_benchmarkrun_p99_latency_microseconds p99 latency of all database calls of the last finished Run phase of a BenchmarkRun.
# TYPE mongobench_benchmarkrun_p99_latency_microseconds gauge
mongobench_benchmarkrun_p99_latency_microseconds{name="metrics-done",namespace="` + k.ns + `",phase="S5"} 678
# HELP mongobench_benchmarkrun_regressed 1 when a BenchmarkRun's Regressed condition is True, 0 when False (absent when unknown or without spec.compare).
# TYPE mongobench_benchmarkrun_regressed gauge
mongobench_benchmarkrun_regressed{name="metrics-done",namespace="` + k.ns + `"} 1
# HELP mongobench_benchmarkrun_throughput_ops_per_second Throughput of the last finished Run phase of a BenchmarkRun (label phase names it).
# TYPE mongobench_benchmarkrun_throughput_ops_per_second gauge
mongobench_benchmarkrun_throughput_ops_per_second{name="metrics-done",namespace="` + k.ns + `",phase="S5"} 1234.5
# HELP mongobench_benchmarkruns BenchmarkRuns by lifecycle phase.
# TYPE mongobench_benchmarkruns gauge
mongobench_benchmarkruns{phase="Failed"} 0
mongobench_benchmarkruns{phase="Loading"} 0
mongobench_benchmarkruns{phase="Pending"} 1
mongobench_benchmarkruns{phase="Provisioning"} 0
mongobench_benchmarkruns{phase="Running"} 0
mongobench_benchmarkruns{phase="Succeeded"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
}
