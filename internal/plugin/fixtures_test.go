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

// loadRun is a Load phase: 1000 inserts in 10.11 s.
func loadRun() *ycsb.RunResult {
	var st ycsb.StatusCounts
	st[ycsb.StatusOK] = 1000
	var cleanup ycsb.StatusCounts
	cleanup[ycsb.StatusOK] = 4
	return &ycsb.RunResult{
		Phase: ycsb.PhaseLoad, LoaderCount: 1, Threads: 4, RuntimeMillis: 10110, Operations: 1000,
		StopReason: results.StopCompleted,
		Ops: []ycsb.OpMeasurement{
			{Op: ycsb.OpInsert, Statuses: st, OK: hist(span(100, 1099)...), Failed: results.NewHistogram()},
			{Op: ycsb.OpCleanup, Statuses: cleanup, OK: hist(10, 20, 30, 40), Failed: results.NewHistogram()},
		},
	}
}

// runRun is a Run phase with failures: 2 reads found nothing and one
// update erred, so the loader's report has -FAILED blocks.
func runRun() *ycsb.RunResult {
	var read, update ycsb.StatusCounts
	read[ycsb.StatusOK] = 1000
	read[ycsb.StatusNotFound] = 2
	update[ycsb.StatusOK] = 500
	update[ycsb.StatusError] = 1
	return &ycsb.RunResult{
		Phase: ycsb.PhaseRun, LoaderCount: 1, Threads: 8, RuntimeMillis: 2000, Operations: 1503,
		StopReason: results.StopCompleted,
		Ops: []ycsb.OpMeasurement{
			{Op: ycsb.OpRead, Statuses: read, OK: hist(span(100, 1099)...), Failed: hist(5000, 7000)},
			{Op: ycsb.OpUpdate, Statuses: update, OK: hist(span(1, 500)...), Failed: hist(90000)},
		},
	}
}

var fixtureStart = time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)

// phaseStatus is what the controller stores for a phase measured by one
// loader (controllers/convert.go's phaseResult, by the same rules).
func phaseStatus(name string, typ benchv1.PhaseType, start time.Time, rr *ycsb.RunResult) benchv1.PhaseResult {
	m := rr.ToResult("loader-0")
	round2 := func(v float64) float64 { return math.Round(v*100) / 100 }
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
	}
	for i := range m.Ops {
		op := &m.Ops[i]
		lat := op.Latency
		if lat == nil {
			lat = results.NewHistogram()
		}
		st := lat.Stats()
		out.OperationStats = append(out.OperationStats, benchv1.OperationResult{
			Name: op.Name, Count: op.Total(), Errors: op.Errors(), Statuses: op.Statuses,
			AverageMicros: round2(st.Mean), MinMicros: st.Min, MaxMicros: st.Max,
			P50Micros: st.P50, P95Micros: st.P95, P99Micros: st.P99, P999Micros: st.P999,
		})
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

// succeededStatus is the status of a run whose two phases finished.
func succeededStatus() benchv1.BenchmarkRunStatus {
	load := phaseStatus("load", benchv1.PhaseLoad, fixtureStart, loadRun())
	run := phaseStatus("run", benchv1.PhaseRun, fixtureStart.Add(11*time.Second), runRun())
	return benchv1.BenchmarkRunStatus{
		Phase:        benchv1.RunSucceeded,
		CurrentPhase: "run",
		Conditions: []metav1.Condition{
			cond(benchv1.ConditionTopologyReady, metav1.ConditionTrue, "Ready", "1 MongoDB processes ready on node n1, MongoDB 8.0.4"),
			cond(benchv1.ConditionComplete, metav1.ConditionTrue, "Succeeded", "all 2 phases finished"),
			cond(benchv1.ConditionFailed, metav1.ConditionFalse, "Succeeded", "the run succeeded"),
		},
		Results: []benchv1.PhaseResult{load, run},
		Summary: &benchv1.RunSummary{Phase: "run", Throughput: run.Throughput, P99Micros: run.P99Micros},
	}
}

func cond(typ string, status metav1.ConditionStatus, reason, message string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: message,
		LastTransitionTime: metav1.NewTime(fixtureStart)}
}
