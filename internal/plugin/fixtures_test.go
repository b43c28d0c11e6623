package plugin

import (
	"math"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// The fixtures are YCSB runs measured by the ycsb package; the statuses
// the tests use are derived from them the way the controller derives a
// phase's status from its merged result, so a report rebuilt from status
// can be compared with the loader's own report of the same run.

func hist(values ...int64) *results.Histogram {
	h := results.NewHistogram()
	for _, v := range values {
		h.Record(v)
	}
	return h
}

func span(from, to int64) []int64 {
	var out []int64
	for v := from; v <= to; v++ {
		out = append(out, v)
	}
	return out
}

// loadRun is a Load phase: 1000 inserts in 10.11 s, after a warm-up of
// 200 inserts in 2.5 s.
func loadRun() *ycsb.RunResult {
	var st ycsb.StatusCounts
	st[ycsb.StatusOK] = 1000
	var cleanup ycsb.StatusCounts
	cleanup[ycsb.StatusOK] = 4
	var warm ycsb.StatusCounts
	warm[ycsb.StatusOK] = 200
	return &ycsb.RunResult{
		Phase: ycsb.PhaseLoad, LoaderCount: 1, Threads: 4, RuntimeMillis: 10110, Operations: 1000,
		StopReason: results.StopCompleted,
		Ops: []ycsb.OpMeasurement{
			{Op: ycsb.OpInsert, Statuses: st, OK: hist(span(100, 1099)...), Failed: results.NewHistogram()},
			{Op: ycsb.OpCleanup, Statuses: cleanup, OK: hist(10, 20, 30, 40), Failed: results.NewHistogram()},
		},
		Warmup: &ycsb.WarmupResult{Start: fixtureStart.Add(-2500 * time.Millisecond), End: fixtureStart, Operations: 200,
			Ops: []ycsb.OpMeasurement{{Op: ycsb.OpInsert, Statuses: warm, OK: hist(span(1000, 1199)...), Failed: results.NewHistogram()}}},
	}
}

// runRun is a Run phase with failures: 2 reads found nothing and one
// update erred, so the loader's report has -FAILED blocks. It measured
// intended latencies too (measurement.interval both): under its target
// each call's intended latency is its service time plus how late it
// started, 50 µs for the reads and 10 µs for the updates.
func runRun() *ycsb.RunResult {
	var read, update ycsb.StatusCounts
	read[ycsb.StatusOK] = 1000
	read[ycsb.StatusNotFound] = 2
	update[ycsb.StatusOK] = 500
	update[ycsb.StatusError] = 1
	return &ycsb.RunResult{
		Phase: ycsb.PhaseRun, LoaderCount: 1, Threads: 8, RuntimeMillis: 2000, Operations: 1503,
		StopReason: results.StopCompleted, Interval: ycsb.IntervalBoth,
		Ops: []ycsb.OpMeasurement{
			{Op: ycsb.OpRead, Statuses: read, OK: hist(span(100, 1099)...), Failed: hist(5000, 7000),
				IntendedOK: hist(span(150, 1149)...), IntendedFailed: hist(5050, 7050)},
			{Op: ycsb.OpUpdate, Statuses: update, OK: hist(span(1, 500)...), Failed: hist(90000),
				IntendedOK: hist(span(11, 510)...), IntendedFailed: hist(90010)},
		},
	}
}

var fixtureStart = time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)

// phaseStatus is what the controller stores for a phase measured by one
// loader (controllers/run_convert.go's phaseResult, by the same rules).
func phaseStatus(name string, typ benchv1.PhaseType, start time.Time, rr *ycsb.RunResult) benchv1.PhaseResult {
	m := rr.ToResult("loader-0")
	round2 := func(v float64) float64 { return math.Round(v*100) / 100 }
	opStats := func(ops []results.OpResult) []benchv1.OperationResult {
		var out []benchv1.OperationResult
		for i := range ops {
			op := &ops[i]
			lat := op.Latency
			if lat == nil {
				lat = results.NewHistogram()
			}
			st := lat.Stats()
			row := benchv1.OperationResult{
				Name: op.Name, Count: op.Total(), Errors: op.Errors(), Statuses: op.Statuses,
				AverageMicros: round2(st.Mean), MinMicros: st.Min, MaxMicros: st.Max,
				P50Micros: st.P50, P95Micros: st.P95, P99Micros: st.P99, P999Micros: st.P999,
			}
			if op.Intended.Count() > 0 {
				it := op.Intended.Stats()
				row.Intended = &benchv1.IntendedLatency{AverageMicros: round2(it.Mean), MinMicros: it.Min, MaxMicros: it.Max,
					P50Micros: it.P50, P95Micros: it.P95, P99Micros: it.P99, P999Micros: it.P999}
			}
			out = append(out, row)
		}
		return out
	}
	out := benchv1.PhaseResult{
		Name: name, Type: typ, Loaders: 1, Threads: int32(rr.Threads),
		StartTime:      metav1.NewTime(start),
		CompletionTime: metav1.NewTime(start.Add(time.Duration(rr.RuntimeMillis) * time.Millisecond)),
		RuntimeMillis:  m.RuntimeMillis,
		Operations:     m.Operations,
		Throughput:     round2(m.Throughput()),
		StopReason:     string(m.StopReason),
		P99Micros:      m.CombinedLatency().Percentile(99),
		LostInserts:    m.LostInserts,
		OperationStats: opStats(m.Ops),
	}
	if m.MeasurementInterval != results.IntervalOp {
		out.MeasurementInterval = benchv1.MeasurementInterval(m.MeasurementInterval)
		out.IntendedP99Micros = ptr(m.CombinedIntended().Percentile(99))
	}
	if w := m.Warmup; w != nil {
		out.Warmup = &benchv1.WarmupResult{RuntimeMillis: w.End.Sub(w.Start).Milliseconds(), Operations: w.Operations,
			P99Micros: (&results.Result{Ops: w.Ops}).CombinedLatency().Percentile(99), OperationStats: opStats(w.Ops)}
		out.Warmup.Throughput = round2(float64(w.Operations) * 1000 / float64(out.Warmup.RuntimeMillis))
	}
	return out
}

// sampleSpec is a valid two-phase run.
func sampleSpec() benchv1.BenchmarkRunSpec {
	return benchv1.BenchmarkRunSpec{
		Topology: benchv1.TopologySpec{Mode: benchv1.TopologyStandalone},
		Workload: benchv1.WorkloadSpec{Preset: "a"},
		Phases: []benchv1.PhaseSpec{
			{Name: "load", Type: benchv1.PhaseLoad, Threads: 4},
			{Name: "run", Type: benchv1.PhaseRun, Threads: 8},
		},
	}
}

// succeededStatus is the status of a run whose two phases finished: the
// load by one loader, the run by two (their merged measurements are
// runRun's), each loader's figures and their start skew as the
// controller stores them, and the Valid condition.
func succeededStatus() benchv1.BenchmarkRunStatus {
	load := phaseStatus("load", benchv1.PhaseLoad, fixtureStart, loadRun())
	load.LoaderStats = []benchv1.LoaderResult{{Index: 0, Pod: "demo-load-0-7xk2p", Connections: 4, ConnectMillis: 9,
		CPUPercent: ptr(31.25), CPULimit: "2 (cgroup)", ThrottledPercent: ptr(0.0)}}
	run := phaseStatus("run", benchv1.PhaseRun, fixtureStart.Add(11*time.Second), runRun())
	run.Loaders, run.StartSkewMillis = 2, ptr[int64](3)
	run.LoaderStats = []benchv1.LoaderResult{
		{Index: 0, Pod: "demo-run-0-q9w4z", Connections: 4, ConnectMillis: 11, CPUPercent: ptr(44.5), CPULimit: "2 (cgroup)", ThrottledPercent: ptr(1.25)},
		{Index: 1, Pod: "demo-run-1-m3c8d", Connections: 4, ConnectMillis: 14, CPUPercent: ptr(47.75), CPULimit: "2 (cgroup)", ThrottledPercent: ptr(0.5)},
	}
	// A StepDown 5 s into the run phase, and one its window ended before.
	sent := metav1.NewMicroTime(fixtureStart.Add(16 * time.Second))
	run.Disruptions = []benchv1.DisruptionResult{{
		Index: 0, Action: benchv1.DisruptionStepDown, At: metav1.Duration{Duration: 5 * time.Second}, Instant: sent,
		Outcome: benchv1.DisruptionOutcome{State: benchv1.DisruptionDone, Sent: &sent, DurationMicros: ptr[int64](812345),
			Primary: "demo-rs0-0.demo-db:27017"},
		WriteUnavailable: &benchv1.LoaderTimes{MaxMicros: 1_734_000, MedianMicros: 1_612_500, Loaders: 2},
		ReadUnavailable:  &benchv1.LoaderTimes{MaxMicros: 420_000, MedianMicros: 400_000, Loaders: 1, Missing: 1},
		NewPrimary:       &benchv1.LoaderTimes{MaxMicros: 1_500_000, MedianMicros: 1_450_000, Loaders: 2},
		Errors: []benchv1.DisruptionErrorCount{{Label: "NotWritablePrimary", Count: 120}, {Label: "InterruptedDueToReplStateChange", Count: 8},
			{Label: "NetworkError", Count: 3}, {Label: "Other", Count: 1}},
		Retried: 11, RetriedOK: 9,
		Before: &benchv1.DisruptionPerformance{Millis: 5000, Throughput: 2010.4, P99Micros: 1830},
		After:  &benchv1.DisruptionPerformance{Millis: 2000, Throughput: 1987.5, P99Micros: 1911},
	}, {
		Index: 1, Action: benchv1.DisruptionStepDown, At: metav1.Duration{Duration: 9 * time.Second},
		Instant: metav1.NewMicroTime(fixtureStart.Add(20 * time.Second)),
		Outcome: benchv1.DisruptionOutcome{State: benchv1.DisruptionNotReached},
	}}
	return benchv1.BenchmarkRunStatus{
		Phase:        benchv1.RunSucceeded,
		CurrentPhase: "run",
		Conditions: []metav1.Condition{
			cond(benchv1.ConditionTopologyReady, metav1.ConditionTrue, "Ready", "1 MongoDB processes ready on node n1, MongoDB 8.0.4"),
			cond(benchv1.ConditionComplete, metav1.ConditionTrue, "Succeeded", "all 2 phases finished"),
			cond(benchv1.ConditionFailed, metav1.ConditionFalse, "Succeeded", "the run succeeded"),
			cond(benchv1.ConditionValid, metav1.ConditionTrue, "Valid",
				"no check failed: errors, process restarts, elections, cache size, connection limit, loader CPU; "+
					"not checked: restarts, elections, cache size and connection limit (no telemetry in phase load, run)"),
		},
		Results: []benchv1.PhaseResult{load, run},
		Summary: &benchv1.RunSummary{Phase: "run", Throughput: run.Throughput, P99Micros: run.P99Micros},
	}
}

func cond(typ string, status metav1.ConditionStatus, reason, message string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: message,
		LastTransitionTime: metav1.NewTime(fixtureStart)}
}
