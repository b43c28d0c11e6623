package controllers

import (
	"math"
	"testing"
	"time"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// TestIntendedStatusHoldsYCSBsBlock: an operation's intended latencies in
// status hold every number of YCSB's intended block ("[READ]" in mode
// intended, "[Intended-READ]" in mode both) as the loader's report writer
// computes it from the same merged histogram, so `kubectl mongobench
// results -o ycsb` can print the block from status.
func TestIntendedStatusHoldsYCSBsBlock(t *testing.T) {
	hist := func(from, to int64) *results.Histogram {
		h := results.NewHistogram()
		for v := from; v <= to; v++ {
			h.Record(v)
		}
		return h
	}
	start := time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)
	m := &results.Result{
		Version: results.FormatVersion, Kind: results.KindRun, Loader: results.Identity{Count: 1, Threads: 4},
		Start: start, End: start.Add(2 * time.Second), RuntimeMillis: 2000, Operations: 1002, StopReason: results.StopCompleted,
		MeasurementInterval: results.IntervalBoth,
		Ops: []results.OpResult{{Name: "READ", Statuses: map[string]int64{"OK": 1000, "NOT_FOUND": 2},
			Latency: hist(100, 1099), Failed: hist(5000, 5001), Intended: hist(137, 1136), IntendedFailed: hist(5100, 5101)}},
	}
	pcts := []float64{50, 95, 99, 99.9}
	want := ycsb.ResultTextSummary(m, pcts).Ops[0].IntendedOK
	got := phaseResult(&benchv1.PhaseSpec{Name: "run", Type: benchv1.PhaseRun}, m).OperationStats[0]
	it := got.Intended
	if it == nil {
		t.Fatal("no intended latencies in status")
	}
	if ok := got.Count - got.Errors; ok != want.Operations {
		t.Errorf("successful operations %d, the intended block's %d", ok, want.Operations)
	}
	if it.MinMicros != want.MinMicros || it.MaxMicros != want.MaxMicros || math.Abs(it.AverageMicros-want.AverageMicros) > 0.005 {
		t.Errorf("intended min/max/avg %d/%d/%v, YCSB's block %d/%d/%v", it.MinMicros, it.MaxMicros, it.AverageMicros,
			want.MinMicros, want.MaxMicros, want.AverageMicros)
	}
	for i, v := range []int64{it.P50Micros, it.P95Micros, it.P99Micros, it.P999Micros} {
		if p := want.Percentiles[i]; v != p.Micros {
			t.Errorf("intended p%v = %d, YCSB's block %d", p.Percentile, v, p.Micros)
		}
	}
	if it.MinMicros != 137 {
		t.Errorf("intended min %d, want 137", it.MinMicros)
	}
}
