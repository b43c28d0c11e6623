package controllers

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"

	"k8s.io/utils/ptr"

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

// TestGrowthStatusSize: a Grow phase's status at its largest (200
// checkpoints, all four query classes, 16 shards, every number at full
// length) stays well within what etcd stores for the whole run.
func TestGrowthStatusSize(t *testing.T) {
	big := ptr.To[int64](math.MaxInt64 / 3)
	lat := results.LatencySummary{Count: math.MaxInt32, Errors: 12345, OpsPerSec: math.Pi * 1e5, MeanMicros: math.E * 1e3,
		P50Micros: 123456, P95Micros: 1234567, P99Micros: 12345678, P999Micros: 123456789, MaxMicros: 1234567890}
	g := &results.GrowthResult{TargetRecords: 200_000_000_000, CheckpointEvery: 1_000_000_000, PlannedCheckpoints: 200,
		InsertMode: results.InsertUnacknowledged}
	sizes := results.CollectionSizes{Count: big, Size: big, StorageSize: big, TotalIndexSize: big,
		IndexSizes: map[string]int64{"_id_": *big, "number_1": *big, "number1_1": *big, "date_-1": *big}}
	for i := 1; i <= 200; i++ {
		cp := results.GrowthCheckpoint{Index: i, Records: int64(i) * 1_000_000_000, Start: time.Now(), End: time.Now(),
			Insert: results.GrowthInsert{Records: 1, RecordsPerSec: math.Pi * 1e4, Latency: lat, Resumed: true},
			Sizes:  &results.CollectionStats{CollectionSizes: sizes}}
		for s := range 16 {
			cp.Sizes.Shards = append(cp.Sizes.Shards, results.ShardSizes{Shard: fmt.Sprintf("ssssssssssssssssssss-shard%d", s), CollectionSizes: sizes})
		}
		for _, q := range results.GrowthQueryOps {
			cp.Queries = append(cp.Queries, results.GrowthQuery{Name: q, Documents: math.MaxInt32, Latency: lat})
		}
		g.Checkpoints = append(g.Checkpoints, cp)
	}
	st, problems := growthStatus(g, 18)
	if len(problems) > 0 || len(st.Checkpoints) != 200 {
		t.Fatalf("%d rows, problems %v", len(st.Checkpoints), problems)
	}
	b, err := json.Marshal(benchv1.PhaseResult{Growth: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("growth status at its largest: %d KiB", len(b)>>10)
	if len(b) > 512<<10 {
		t.Errorf("%d KiB: too much of the run's 1.5 MB", len(b)>>10)
	}
}
