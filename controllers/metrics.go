package controllers

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/stats"
	"github.com/mongobench/mongobench/internal/topology"
)

// metricsCollector exports the state of runs and sweeps: runs by
// lifecycle phase, the current phase's progress, each finished phase's
// throughput and p99 per operation, the comparison verdicts, and sweeps'
// cells. It reads the manager's cache at scrape time, so the numbers can
// never drift from the objects (no gauges to keep in step with
// reconciles), and a run's or sweep's series end when it is deleted: the
// label sets are bounded by the objects kept.
//
// The operations a phase has done are not here: they are the loaders'
// own counter (contract.MetricLoaderOperations), scraped from them. The
// manager neither scrapes the loaders nor has them write progress to the
// API server, which is not a metrics bus.
type metricsCollector struct {
	reader client.Reader
	clock  clock.PassiveClock
	// elected is closed once this replica leads (nil: always).
	elected <-chan struct{}

	runs         *prometheus.Desc
	change       *prometheus.Desc
	regressed    *prometheus.Desc
	planned      *prometheus.Desc
	elapsed      *prometheus.Desc
	maxExecution *prometheus.Desc
	throughput   *prometheus.Desc
	p99          *prometheus.Desc
	cells        *prometheus.Desc
	cellsDone    *prometheus.Desc
}

// NewMetricsCollector returns the collector to register on the manager's
// metrics registry; r is the manager's cache, clk tells the elapsed time
// of running phases, elected is closed once this replica leads (the
// manager's Elected(); nil exports always): a replica that does not lead
// exports nothing.
func NewMetricsCollector(r client.Reader, clk clock.PassiveClock, elected <-chan struct{}) prometheus.Collector {
	phase := []string{contract.MetricLabelNamespace, contract.MetricLabelRun, contract.MetricLabelPhase}
	operation := append(phase[:len(phase):len(phase)], contract.MetricLabelOperation)
	sweep := []string{contract.MetricLabelNamespace, contract.MetricLabelSweep}
	return &metricsCollector{
		reader:  r,
		clock:   clk,
		elected: elected,
		runs: prometheus.NewDesc(contract.MetricRuns,
			"BenchmarkRuns by lifecycle phase.", []string{"phase"}, nil),
		change: prometheus.NewDesc(contract.MetricRunComparisonChange,
			"Change of a compared metric of a BenchmarkRun against its baseline (spec.compare), in %; "+
				"label verdict is Improved, Unchanged, Regressed or Acknowledged.",
			[]string{contract.MetricLabelNamespace, contract.MetricLabelRun, "metric", "verdict"}, nil),
		regressed: prometheus.NewDesc(contract.MetricRunRegressed,
			"1 when a BenchmarkRun's Regressed condition is True, 0 when False (absent when unknown or without spec.compare).",
			[]string{contract.MetricLabelNamespace, contract.MetricLabelRun}, nil),
		planned: prometheus.NewDesc(contract.MetricRunPhasePlanned,
			"Operations the running Load or Run phase's loaders are to issue together (records to load, or operationcount plus a counted "+
				"warm-up, as the loaders count theirs); 0 when only maxExecutionTime bounds it. Operations done: "+
				"sum by (namespace, run, phase) ("+contract.MetricLoaderOperations+").", phase, nil),
		elapsed: prometheus.NewDesc(contract.MetricRunPhaseElapsed,
			"Seconds the running phase's loaders have run, warm-up included: since their start barrier's instant, "+
				"or with one loader since the phase's Job started; 0 before.", phase, nil),
		maxExecution: prometheus.NewDesc(contract.MetricRunPhaseMaxExecution,
			"The running phase's maxExecutionTime in seconds, as its loaders apply it (after the warm-up); 0 when unbounded.", phase, nil),
		throughput: prometheus.NewDesc(contract.MetricRunPhaseThroughput,
			"A finished phase's throughput (status.results) by operation, and over all operations with operation=\""+
				contract.OperationOverall+"\".", operation, nil),
		p99: prometheus.NewDesc(contract.MetricRunPhaseP99,
			"A finished phase's p99 latency (status.results) by operation, and of all its database calls with operation=\""+
				contract.OperationOverall+"\".", operation, nil),
		cells: prometheus.NewDesc(contract.MetricSweepCells,
			"A BenchmarkSweep's cells, the combinations of its axes' values (status.cellsTotal).", sweep, nil),
		cellsDone: prometheus.NewDesc(contract.MetricSweepCellsDone,
			"A BenchmarkSweep's cells whose runs, every repetition, have ended (status.cellsDone).", sweep, nil),
	}
}

func (c *metricsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.runs, c.change, c.regressed, c.planned, c.elapsed, c.maxExecution,
		c.throughput, c.p99, c.cells, c.cellsDone} {
		ch <- d
	}
}

func (c *metricsCollector) Collect(ch chan<- prometheus.Metric) {
	if c.elected != nil {
		select {
		case <-c.elected:
		default:
			// Every replica's cache holds every run; only the leader
			// exports them, so that a run is one series, not one per
			// replica (queries need no max by replica).
			return
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.collectRuns(ctx, ch)
	c.collectSweeps(ctx, ch)
}

// collectRuns exports every run's gauges. A run list that cannot be read
// fails the scrape (an invalid metric): gauges that silently vanish would
// read as "no runs".
func (c *metricsCollector) collectRuns(ctx context.Context, ch chan<- prometheus.Metric) {
	var list benchv1.BenchmarkRunList
	if err := c.reader.List(ctx, &list); err != nil {
		ch <- prometheus.NewInvalidMetric(c.runs, fmt.Errorf("list BenchmarkRuns: %w", err))
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
		c.collectResults(ch, run)
		c.collectCurrentPhase(ctx, ch, run)
	}
	for p, n := range counts {
		ch <- prometheus.MustNewConstMetric(c.runs, prometheus.GaugeValue, float64(n), string(p))
	}
}

// collectResults exports each finished phase's throughput and p99, over
// all operations and per operation, as status.results holds them (an
// operation's throughput is its count over the phase's runtime, as
// `kubectl mongobench results` shows it). Latencies are in seconds, the
// base unit, where status has microseconds.
func (c *metricsCollector) collectResults(ch chan<- prometheus.Metric, run *benchv1.BenchmarkRun) {
	for i := range run.Status.Results {
		res := &run.Status.Results[i]
		ph := benchv1.PhaseLabelValue(res.Name)
		ch <- prometheus.MustNewConstMetric(c.throughput, prometheus.GaugeValue, res.Throughput,
			run.Namespace, run.Name, ph, contract.OperationOverall)
		ch <- prometheus.MustNewConstMetric(c.p99, prometheus.GaugeValue, microsToSeconds(res.P99Micros),
			run.Namespace, run.Name, ph, contract.OperationOverall)
		for _, op := range res.OperationStats {
			ch <- prometheus.MustNewConstMetric(c.throughput, prometheus.GaugeValue, stats.OpsPerSec(op.Count, res.RuntimeMillis),
				run.Namespace, run.Name, ph, op.Name)
			ch <- prometheus.MustNewConstMetric(c.p99, prometheus.GaugeValue, microsToSeconds(op.P99Micros),
				run.Namespace, run.Name, ph, op.Name)
		}
	}
}

func microsToSeconds(us int64) float64 { return float64(us) / 1e6 }

// collectCurrentPhase exports the progress of the phase a Loading or
// Running run executes: what it plans, how long it has run, and its
// limit. A phase with a result has finished (the reconciler names the
// next one in the same status update), and an ended run runs nothing.
//
// A gauge that cannot be computed for one run is left out and logged
// rather than failing the scrape: controller-runtime serves /metrics with
// promhttp.HTTPErrorOnError (pkg/metrics/server/server.go), so an invalid
// metric would cost every other run's series.
func (c *metricsCollector) collectCurrentPhase(ctx context.Context, ch chan<- prometheus.Metric, run *benchv1.BenchmarkRun) {
	if run.Status.Phase != benchv1.RunLoading && run.Status.Phase != benchv1.RunRunning {
		return
	}
	ph := phaseSpec(run, run.Status.CurrentPhase)
	if ph == nil || slices.ContainsFunc(run.Status.Results, func(r benchv1.PhaseResult) bool { return r.Name == ph.Name }) {
		return
	}
	log := logf.Log.WithName("metrics").WithValues("run", client.ObjectKeyFromObject(run).String(), "phase", ph.Name)
	labels := []string{run.Namespace, run.Name, benchv1.PhaseLabelValue(ph.Name)}
	if ph.Type != benchv1.PhaseGrow {
		// A Grow phase has no operation count: grow.targetRecords bounds
		// its inserts, time its queries; its checkpoints are its progress.
		planned, err := topology.PlannedOperations(run, ph)
		if err != nil {
			log.Error(err, "cannot tell the phase's planned operations")
		} else {
			ch <- prometheus.MustNewConstMetric(c.planned, prometheus.GaugeValue, float64(planned), labels...)
		}
	}
	ch <- prometheus.MustNewConstMetric(c.maxExecution, prometheus.GaugeValue, float64(topology.MaxExecutionSeconds(ph)), labels...)
	start, err := c.phaseStart(ctx, run, ph)
	if err != nil {
		log.Error(err, "cannot tell when the phase's loaders started")
		return
	}
	elapsed := 0.0
	if !start.IsZero() {
		elapsed = max(c.clock.Since(start).Seconds(), 0)
	}
	ch <- prometheus.MustNewConstMetric(c.elapsed, prometheus.GaugeValue, elapsed, labels...)
}

// phaseStart is when the phase's loaders started, zero before. Loaders
// that start together (topology.StartBarrier) start their clocks at the
// start ConfigMap's instant, which the controller writes once every one
// of them is ready; until then they only connect. A lone loader starts
// with its pod, and the Job's status.startTime is when the Job controller
// began to run it (k8s.io/api batch/v1 JobStatus.StartTime: "Represents
// time when the job controller started processing a job").
func (c *metricsCollector) phaseStart(ctx context.Context, run *benchv1.BenchmarkRun, ph *benchv1.PhaseSpec) (time.Time, error) {
	jobName := topology.PhaseJobName(run, ph.Name)
	if topology.StartBarrier(run, ph) {
		var cm corev1.ConfigMap
		if err := c.reader.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: contract.StartConfigMapName(jobName)}, &cm); err != nil {
			if apierrors.IsNotFound(err) {
				return time.Time{}, nil
			}
			return time.Time{}, fmt.Errorf("get the start ConfigMap: %w", err)
		}
		at, err := time.Parse(time.RFC3339Nano, cm.Data[contract.StartAtKey])
		if err != nil {
			return time.Time{}, fmt.Errorf("start ConfigMap %s: %s: %w", cm.Name, contract.StartAtKey, err)
		}
		return at, nil
	}
	var job batchv1.Job
	if err := c.reader.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: jobName}, &job); err != nil {
		if apierrors.IsNotFound(err) {
			return time.Time{}, nil
		}
		return time.Time{}, fmt.Errorf("get the phase's Job: %w", err)
	}
	if job.Status.StartTime == nil {
		return time.Time{}, nil
	}
	return job.Status.StartTime.Time, nil
}

// collectSweeps exports every sweep's cells, total and done.
func (c *metricsCollector) collectSweeps(ctx context.Context, ch chan<- prometheus.Metric) {
	var list benchv1.BenchmarkSweepList
	if err := c.reader.List(ctx, &list); err != nil {
		ch <- prometheus.NewInvalidMetric(c.cells, fmt.Errorf("list BenchmarkSweeps: %w", err))
		return
	}
	for i := range list.Items {
		sw := &list.Items[i]
		ch <- prometheus.MustNewConstMetric(c.cells, prometheus.GaugeValue, float64(sw.Status.CellsTotal), sw.Namespace, sw.Name)
		ch <- prometheus.MustNewConstMetric(c.cellsDone, prometheus.GaugeValue, float64(sw.Status.CellsDone), sw.Namespace, sw.Name)
	}
}
