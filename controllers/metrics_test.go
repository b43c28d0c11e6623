package controllers_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/controllers"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/testutil/kube"
	"github.com/mongobench/mongobench/internal/topology"
)

// The collector's unit tests read objects from a fake client: it only
// lists and gets what the manager's cache holds, so what matters is what
// it makes of them. TestMetricsCollectorAgainstTheAPIServer reads a real
// API server's.

var metricsNow = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

// metricHelp is each gauge's HELP text, as the exposition must show it.
var metricHelp = map[string]string{
	contract.MetricRuns: "BenchmarkRuns by lifecycle phase.",
	contract.MetricRunComparisonChange: "Change of a compared metric of a BenchmarkRun against its baseline (spec.compare), in %; " +
		"label verdict is Improved, Unchanged, Regressed or Acknowledged.",
	contract.MetricRunRegressed: "1 when a BenchmarkRun's Regressed condition is True, 0 when False (absent when unknown or without spec.compare).",
	contract.MetricRunPhasePlanned: "Operations the running Load or Run phase's loaders are to issue together (records to load, or operationcount plus a counted " +
		"warm-up, as the loaders count theirs); 0 when only maxExecutionTime bounds it. Operations done: " +
		"sum by (namespace, run, phase) (mongobench_loader_operations_total).",
	contract.MetricRunPhaseElapsed: "Seconds the running phase's loaders have run, warm-up included: since their start barrier's instant, " +
		"or with one loader since the phase's Job started; 0 before.",
	contract.MetricRunPhaseMaxExecution: "The running phase's maxExecutionTime in seconds, as its loaders apply it (after the warm-up); 0 when unbounded.",
	contract.MetricRunPhaseThroughput:   `A finished phase's throughput (status.results) by operation, and over all operations with operation="OVERALL".`,
	contract.MetricRunPhaseP99:          `A finished phase's p99 latency (status.results) by operation, and of all its database calls with operation="OVERALL".`,
	contract.MetricSweepCells:           "A BenchmarkSweep's cells, the combinations of its axes' values (status.cellsTotal).",
	contract.MetricSweepCellsDone:       "A BenchmarkSweep's cells whose runs, every repetition, have ended (status.cellsDone).",
}

// exposition is the text format of gauge name with its samples, each
// written without the name: `{labels} value`.
func exposition(name string, samples ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n", name, metricHelp[name], name)
	for _, s := range samples {
		fmt.Fprintf(&b, "%s%s\n", name, s)
	}
	return b.String()
}

// metricsRun is a run of three phases (load, S2, S5) of preset a with
// 10000 records, in namespace "bench".
func metricsRun(name string, loaders int32) *benchv1.BenchmarkRun {
	run := newRun(name, benchv1.TopologyStandalone, 0, loaders)
	run.Namespace = "bench"
	return run
}

// metricsRunning puts run in its phase index i, the earlier ones finished.
func metricsRunning(run *benchv1.BenchmarkRun, i int) *benchv1.BenchmarkRun {
	ph := run.Spec.Phases[i]
	run.Status.Phase = benchv1.RunRunning
	if ph.Type == benchv1.PhaseLoad {
		run.Status.Phase = benchv1.RunLoading
	}
	run.Status.CurrentPhase = ph.Name
	for _, done := range run.Spec.Phases[:i] {
		run.Status.Results = append(run.Status.Results, benchv1.PhaseResult{Name: done.Name, Type: done.Type, RuntimeMillis: 1000})
	}
	return run
}

// metricsJob is the Job of run's phase, started at start (nil: not yet).
func metricsJob(run *benchv1.BenchmarkRun, phase string, start *time.Time) *batchv1.Job {
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: run.Namespace, Name: topology.PhaseJobName(run, phase)}}
	if start != nil {
		job.Status.StartTime = ptr.To(metav1.NewTime(*start))
	}
	return job
}

func metricsAt(d time.Duration) *time.Time { return ptr.To(metricsNow.Add(d)) }

// metricsFinished is a succeeded run whose phases have results: the Load
// phase's one operation and the S5 phase's two, with latencies in µs
// that the gauges give in seconds.
func metricsFinished() *benchv1.BenchmarkRun {
	run := metricsRun("done", 1)
	run.Status.Phase = benchv1.RunSucceeded
	run.Status.CurrentPhase = "S5"
	start, end := metav1.NewTime(metricsNow.Add(-time.Hour)), metav1.NewTime(metricsNow.Add(-time.Minute))
	run.Status.Results = []benchv1.PhaseResult{
		{Name: "load", Type: benchv1.PhaseLoad, StartTime: start, CompletionTime: end, RuntimeMillis: 4000, Operations: 10000, Throughput: 2500, P99Micros: 1500,
			OperationStats: []benchv1.OperationResult{{Name: "INSERT", Count: 10000, P99Micros: 1500}}},
		{Name: "S5", Type: benchv1.PhaseRun, StartTime: start, CompletionTime: end, RuntimeMillis: 3000, Operations: 3000, Throughput: 1000, P99Micros: 678,
			OperationStats: []benchv1.OperationResult{
				{Name: "READ", Count: 2000, P99Micros: 678},
				{Name: "READ-MODIFY-WRITE", Count: 1000, P99Micros: 2_345_678},
			}},
	}
	run.Status.Summary = &benchv1.RunSummary{Phase: "S5", Throughput: 1000, P99Micros: 678}
	return run
}

// metricsGated is a succeeded run with spec.compare's verdicts.
func metricsGated() *benchv1.BenchmarkRun {
	run := metricsRun("gated", 1)
	run.Status.Phase = benchv1.RunSucceeded
	run.Status.Comparison = []benchv1.MetricComparison{
		{Metric: "S5 throughput", Baseline: 1400, Current: 1234.5, ChangePercent: -11.82, Verdict: benchv1.VerdictRegressed, Basis: "baseline run x"},
		{Metric: "S5 READ p99", Baseline: 700, Current: 678, ChangePercent: -3.14, Verdict: benchv1.VerdictUnchanged, Basis: "baseline run x"},
	}
	run.Status.Conditions = []metav1.Condition{{Type: benchv1.ConditionRegressed, Status: metav1.ConditionTrue, Reason: "Regression",
		Message: "S5 throughput -11.8% vs baseline run x", LastTransitionTime: metav1.NewTime(metricsNow)}}
	return run
}

// metricsGrowing runs a Grow phase, its Job started 5 s ago.
func metricsGrowing() (*benchv1.BenchmarkRun, *batchv1.Job) {
	run := metricsRun("grow", 1)
	run.Spec.Phases = []benchv1.PhaseSpec{{Name: "Grow", Type: benchv1.PhaseGrow, Grow: &benchv1.GrowSpec{TargetRecords: 50000}}}
	return metricsRunning(run, 0), metricsJob(run, "Grow", metricsAt(-5*time.Second))
}

func metricsSweep(name string, total, done int32) *benchv1.BenchmarkSweep {
	return &benchv1.BenchmarkSweep{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: name},
		Status: benchv1.BenchmarkSweepStatus{Phase: benchv1.SweepRunning, CellsTotal: total, CellsDone: done}}
}

// runsByPhase is mongobench_benchmarkruns with n[i] runs in the phases
// Failed, Loading, Pending, Provisioning, Running and Succeeded.
func runsByPhase(n ...int) string {
	var samples []string
	for i, p := range []string{"Failed", "Loading", "Pending", "Provisioning", "Running", "Succeeded"} {
		samples = append(samples, fmt.Sprintf(`{phase=%q} %d`, p, n[i]))
	}
	return exposition(contract.MetricRuns, samples...)
}

func TestMetricsCollector(t *testing.T) {
	loading := metricsRunning(metricsRun("loading", 3), 0)
	barrierShut := metricsRunning(metricsRun("waiting", 2), 1)
	alone := metricsRunning(metricsRun("alone", 1), 1)
	alone.Spec.Phases[1].MaxExecutionTime = &metav1.Duration{Duration: 90*time.Second + time.Millisecond}
	alone.Spec.Phases[1].Workload.OperationCount = ptr.To[int64](0)
	notStarted := metricsRunning(metricsRun("queued", 1), 2)
	grow, growJob := metricsGrowing()
	failed := metricsRunning(metricsRun("failed", 1), 1)
	failed.Status.Phase = benchv1.RunFailed
	phaseLabels := func(run, phase string) string {
		return fmt.Sprintf(`namespace="bench",phase=%q,run=%q`, phase, run)
	}

	cases := []struct {
		name    string
		objects []client.Object
		metrics []string // the families compared; want holds them all
		want    string
	}{{
		name:    "no runs",
		metrics: []string{contract.MetricRuns, contract.MetricRunPhaseThroughput, contract.MetricRunPhasePlanned, contract.MetricSweepCells},
		want:    runsByPhase(0, 0, 0, 0, 0, 0),
	}, {
		name:    "runs by lifecycle phase",
		objects: []client.Object{metricsRun("new", 1), loading, alone, barrierShut, metricsFinished(), failed},
		metrics: []string{contract.MetricRuns},
		want:    runsByPhase(1, 1, 1, 0, 2, 1),
	}, {
		name:    "finished phases: throughput per operation and overall, p99 in seconds",
		objects: []client.Object{metricsFinished()},
		metrics: []string{contract.MetricRunPhaseThroughput, contract.MetricRunPhaseP99, contract.MetricRunPhasePlanned, contract.MetricRunPhaseElapsed},
		want: exposition(contract.MetricRunPhaseP99,
			`{namespace="bench",operation="INSERT",phase="load",run="done"} 0.0015`,
			`{namespace="bench",operation="OVERALL",phase="load",run="done"} 0.0015`,
			`{namespace="bench",operation="OVERALL",phase="s5",run="done"} 0.000678`,
			`{namespace="bench",operation="READ",phase="s5",run="done"} 0.000678`,
			`{namespace="bench",operation="READ-MODIFY-WRITE",phase="s5",run="done"} 2.345678`,
		) + exposition(contract.MetricRunPhaseThroughput,
			`{namespace="bench",operation="INSERT",phase="load",run="done"} 2500`,
			`{namespace="bench",operation="OVERALL",phase="load",run="done"} 2500`,
			`{namespace="bench",operation="OVERALL",phase="s5",run="done"} 1000`,
			`{namespace="bench",operation="READ",phase="s5",run="done"} 666.67`,
			`{namespace="bench",operation="READ-MODIFY-WRITE",phase="s5",run="done"} 333.33`,
		),
	}, {
		name: "loaders that start together: since the start barrier's instant",
		objects: []client.Object{loading, metricsJob(loading, "load", metricsAt(-time.Hour)),
			topology.StartConfigMap(loading, topology.PhaseJobName(loading, "load"), metricsNow.Add(-42500*time.Millisecond))},
		metrics: []string{contract.MetricRunPhasePlanned, contract.MetricRunPhaseElapsed, contract.MetricRunPhaseMaxExecution},
		want: exposition(contract.MetricRunPhaseElapsed, "{"+phaseLabels("loading", "load")+"} 42.5") +
			exposition(contract.MetricRunPhaseMaxExecution, "{"+phaseLabels("loading", "load")+"} 0") +
			exposition(contract.MetricRunPhasePlanned, "{"+phaseLabels("loading", "load")+"} 10000"),
	}, {
		name:    "loaders waiting at the start barrier have not started",
		objects: []client.Object{barrierShut, metricsJob(barrierShut, "S2", metricsAt(-time.Minute))},
		metrics: []string{contract.MetricRunPhasePlanned, contract.MetricRunPhaseElapsed, contract.MetricRunPhaseMaxExecution},
		want: exposition(contract.MetricRunPhaseElapsed, "{"+phaseLabels("waiting", "s2")+"} 0") +
			exposition(contract.MetricRunPhaseMaxExecution, "{"+phaseLabels("waiting", "s2")+"} 0") +
			exposition(contract.MetricRunPhasePlanned, "{"+phaseLabels("waiting", "s2")+"} 1000"),
	}, {
		name:    "a lone loader: since its Job started; bounded by time only",
		objects: []client.Object{alone, metricsJob(alone, "S2", metricsAt(-90*time.Second))},
		metrics: []string{contract.MetricRunPhasePlanned, contract.MetricRunPhaseElapsed, contract.MetricRunPhaseMaxExecution},
		want: exposition(contract.MetricRunPhaseElapsed, "{"+phaseLabels("alone", "s2")+"} 90") +
			exposition(contract.MetricRunPhaseMaxExecution, "{"+phaseLabels("alone", "s2")+"} 91") +
			exposition(contract.MetricRunPhasePlanned, "{"+phaseLabels("alone", "s2")+"} 0"),
	}, {
		name:    "a Job not started yet, or not created yet",
		objects: []client.Object{notStarted, metricsJob(notStarted, "S5", nil), metricsRunning(metricsRun("fresh", 1), 1)},
		metrics: []string{contract.MetricRunPhaseElapsed},
		want: exposition(contract.MetricRunPhaseElapsed,
			"{"+phaseLabels("fresh", "s2")+"} 0",
			"{"+phaseLabels("queued", "s5")+"} 0"),
	}, {
		name:    "a Grow phase has no operation count",
		objects: []client.Object{grow, growJob},
		metrics: []string{contract.MetricRunPhasePlanned, contract.MetricRunPhaseElapsed, contract.MetricRunPhaseMaxExecution},
		want: exposition(contract.MetricRunPhaseElapsed, "{"+phaseLabels("grow", "grow")+"} 5") +
			exposition(contract.MetricRunPhaseMaxExecution, "{"+phaseLabels("grow", "grow")+"} 0"),
	}, {
		name:    "an ended run runs no phase",
		objects: []client.Object{failed, metricsJob(failed, "S2", metricsAt(-time.Minute)), metricsFinished()},
		metrics: []string{contract.MetricRunPhasePlanned, contract.MetricRunPhaseElapsed, contract.MetricRunPhaseMaxExecution},
	}, {
		name:    "comparison verdicts",
		objects: []client.Object{metricsGated(), metricsFinished()},
		metrics: []string{contract.MetricRunComparisonChange, contract.MetricRunRegressed},
		want: exposition(contract.MetricRunComparisonChange,
			`{metric="S5 READ p99",namespace="bench",run="gated",verdict="Unchanged"} -3.14`,
			`{metric="S5 throughput",namespace="bench",run="gated",verdict="Regressed"} -11.82`) +
			exposition(contract.MetricRunRegressed, `{namespace="bench",run="gated"} 1`),
	}, {
		name:    "sweeps' cells",
		objects: []client.Object{metricsSweep("study", 6, 2), metricsSweep("pending", 0, 0)},
		metrics: []string{contract.MetricSweepCells, contract.MetricSweepCellsDone},
		want: exposition(contract.MetricSweepCells, `{namespace="bench",sweep="pending"} 0`, `{namespace="bench",sweep="study"} 6`) +
			exposition(contract.MetricSweepCellsDone, `{namespace="bench",sweep="pending"} 0`, `{namespace="bench",sweep="study"} 2`),
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := fake.NewClientBuilder().WithScheme(kube.Scheme()).WithObjects(tc.objects...).Build()
			col := controllers.NewMetricsCollector(c, clocktesting.NewFakePassiveClock(metricsNow), nil)
			if err := testutil.CollectAndCompare(col, strings.NewReader(tc.want), tc.metrics...); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// everyGauge is a cluster in which the collector exports each of its
// gauges at least once.
func everyGauge() []client.Object {
	loading := metricsRunning(metricsRun("loading", 3), 0)
	grow, growJob := metricsGrowing()
	return []client.Object{metricsFinished(), metricsGated(), loading, grow, growJob, metricsSweep("study", 6, 2),
		topology.StartConfigMap(loading, topology.PhaseJobName(loading, "load"), metricsNow.Add(-time.Minute))}
}

// TestMetricsCollectorLint runs promlint, client_golang's linter of
// Prometheus' naming conventions, over everything the collector exports.
func TestMetricsCollectorLint(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(kube.Scheme()).WithObjects(everyGauge()...).Build()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(controllers.NewMetricsCollector(c, clocktesting.NewFakePassiveClock(metricsNow), nil))
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, mf := range families {
		got = append(got, mf.GetName())
	}
	for name := range metricHelp {
		if !slices.Contains(got, name) {
			t.Errorf("the fixture lacks %s: the lint would not see it", name)
		}
	}
	if len(got) != len(metricHelp) {
		t.Errorf("exported %v, want exactly %d families (metricHelp)", got, len(metricHelp))
	}
	// The dashboard's PromQL is checked against this list (hack/dashboard):
	// its manager names are exactly what a scrape of the manager carries.
	file, err := os.ReadFile(filepath.Join("..", "charts", "mongobench", "dashboards", "metric-names.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, name := range strings.Fields(string(file)) {
		if strings.HasPrefix(name, "mongobench_benchmark") {
			listed = append(listed, name)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, listed) {
		t.Errorf("the manager exports\n%s\nmetric-names.txt lists\n%s", strings.Join(got, "\n"), strings.Join(listed, "\n"))
	}
	problems, err := promlint.NewWithMetricFamilies(families).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
}

// A cache that cannot list fails the scrape rather than exporting nothing,
// which would read as "no runs".
func TestMetricsCollectorListError(t *testing.T) {
	for _, kind := range []string{"BenchmarkRunList", "BenchmarkSweepList"} {
		t.Run(kind, func(t *testing.T) {
			c := fake.NewClientBuilder().WithScheme(kube.Scheme()).WithObjects(everyGauge()...).
				WithInterceptorFuncs(interceptor.Funcs{List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
					if fmt.Sprintf("%T", list) == "*v1alpha1."+kind {
						return errors.New("cache not synced")
					}
					return c.List(ctx, list, opts...)
				}}).Build()
			reg := prometheus.NewPedanticRegistry()
			reg.MustRegister(controllers.NewMetricsCollector(c, clocktesting.NewFakePassiveClock(metricsNow), nil))
			if _, err := reg.Gather(); err == nil || !strings.Contains(err.Error(), "cache not synced") {
				t.Fatalf("Gather: %v, want the list's error", err)
			}
		})
	}
}

// The collector reads runs as the API server stores them: their status
// through the status subresource, and only the namespace's.
func TestMetricsCollectorAgainstTheAPIServer(t *testing.T) {
	k := newCluster(t)
	done := k.create(newRun("metrics-done", benchv1.TopologyStandalone, 0, 1))
	src := metricsFinished()
	done.Status = src.Status
	if err := k.c.Status().Update(k.ctx(), done); err != nil {
		t.Fatal(err)
	}
	k.create(newRun("metrics-new", benchv1.TopologyStandalone, 0, 1))

	// Only this namespace's runs: other tests' runs live in the same API server.
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(controllers.NewMetricsCollector(namespaced{k.c, k.ns}, clocktesting.NewFakePassiveClock(metricsNow), nil))
	want := runsByPhase(0, 0, 1, 0, 0, 1) + exposition(contract.MetricRunPhaseThroughput,
		`{namespace="`+k.ns+`",operation="INSERT",phase="load",run="metrics-done"} 2500`,
		`{namespace="`+k.ns+`",operation="OVERALL",phase="load",run="metrics-done"} 2500`,
		`{namespace="`+k.ns+`",operation="OVERALL",phase="s5",run="metrics-done"} 1000`,
		`{namespace="`+k.ns+`",operation="READ",phase="s5",run="metrics-done"} 666.67`,
		`{namespace="`+k.ns+`",operation="READ-MODIFY-WRITE",phase="s5",run="metrics-done"} 333.33`,
	)
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), contract.MetricRuns, contract.MetricRunPhaseThroughput); err != nil {
		t.Fatal(err)
	}
}

// Only the leading replica exports the gauges: every replica's cache holds
// the runs, and two replicas' series of one run would break every join.
func TestMetricsCollectorOnlyOnTheLeader(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(kube.Scheme()).WithObjects(everyGauge()...).Build()
	elected := make(chan struct{})
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(controllers.NewMetricsCollector(c, clocktesting.NewFakePassiveClock(metricsNow), elected))
	families, err := reg.Gather()
	if err != nil || len(families) != 0 {
		t.Fatalf("before leading: %d families, %v; want none", len(families), err)
	}
	close(elected)
	families, err = reg.Gather()
	if err != nil || len(families) != len(metricHelp) {
		t.Fatalf("leading: %d families, %v; want %d", len(families), err, len(metricHelp))
	}
}
