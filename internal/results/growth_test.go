package results

import (
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// growthResult builds a Grow phase's result of rows checkpoints of every
// records with shards shards in each row's sizes, and ops of wide latency
// spreads.
func growthResult(t *testing.T, rows, shards int, every int64) *Result {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	start := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	r := &Result{Version: FormatVersion, Kind: KindGrow, Loader: Identity{Index: 0, Count: 1, Threads: 4, Hostname: "grow-0"},
		Start: start, End: start.Add(time.Hour), RuntimeMillis: 3_600_000, StopReason: StopCompleted}
	for _, name := range append([]string{OpInsert}, GrowthQueryOps...) {
		op := OpResult{Name: name, Statuses: map[string]int64{"OK": 0}, Latency: NewHistogram()}
		for range 20000 {
			op.Latency.Record(sample(rng))
			op.Statuses["OK"]++
		}
		op.Statuses["ERROR"] = 2
		op.Failed = NewHistogram()
		op.Failed.Record(30_000_000)
		op.Failed.Record(30_000_001)
		r.Ops = append(r.Ops, op)
		r.Operations += op.Total()
	}
	g := &GrowthResult{TargetRecords: int64(rows) * every, CheckpointEvery: every, PlannedCheckpoints: rows,
		InsertMode: InsertBatch, BatchSize: 1000, InsertThreads: 1, QueryThreads: 8, QueryMillis: 30_000,
		Queries: GrowthQueryOps, Values: int64(rows) * every / 10, Restarts: 1, RepairedRecords: 12}
	lat := func() LatencySummary {
		return LatencySummary{Count: rng.Int64N(1e6), Errors: rng.Int64N(3), OpsPerSec: rng.Float64() * 1e5, MeanMicros: rng.Float64() * 1e4,
			P50Micros: rng.Int64N(1e4), P95Micros: rng.Int64N(1e5), P99Micros: rng.Int64N(1e6), P999Micros: rng.Int64N(1e7), MaxMicros: rng.Int64N(1e8)}
	}
	sizes := func() CollectionSizes {
		n := func() *int64 { v := rng.Int64N(1 << 40); return &v }
		return CollectionSizes{Count: n(), Size: n(), StorageSize: n(), TotalIndexSize: n(), IndexSizes: map[string]int64{
			"_id_": rng.Int64N(1 << 38), "number_1": rng.Int64N(1 << 38), "number1_1": rng.Int64N(1 << 38), "date_-1": rng.Int64N(1 << 38)}}
	}
	for i := range rows {
		c := GrowthCheckpoint{Index: i + 1, Records: int64(i+1) * every, Start: start.Add(time.Duration(i) * time.Minute),
			End: start.Add(time.Duration(i)*time.Minute + 30*time.Second),
			Insert: GrowthInsert{FromRecords: int64(i) * every, Records: every, Millis: rng.Int64N(1e6), RecordsPerSec: rng.Float64() * 1e5,
				Latency: lat(), Resumed: i == 3}}
		st := &CollectionStats{Time: c.Start, Namespace: "ycsb.usertable", Source: "$collStats", CollectionSizes: sizes()}
		for s := range shards {
			st.Shards = append(st.Shards, ShardSizes{Shard: "shard-" + strconv.Itoa(s), CollectionSizes: sizes()})
		}
		c.Sizes = st
		for _, q := range GrowthQueryOps {
			c.Queries = append(c.Queries, GrowthQuery{Name: q, Millis: 30_000, Documents: rng.Int64N(1e7), Latency: lat()})
		}
		g.Checkpoints = append(g.Checkpoints, c)
	}
	r.Growth = g
	if err := r.Validate(); err != nil {
		t.Fatalf("test result invalid: %v", err)
	}
	return r
}

func TestGrowthRoundTripAndMerge(t *testing.T) {
	r := growthResult(t, 5, 3, 1000)
	b, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Growth, r.Growth) {
		t.Errorf("growth after a round trip:\n%+v\nwant\n%+v", d.Growth, r.Growth)
	}
	m, err := Merge([]*Result{d})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.Growth, r.Growth) || m.Kind != KindGrow || m.Op(OpQ3).Latency.Count() != 20000 {
		t.Errorf("merged: kind %s, growth equal %t", m.Kind, reflect.DeepEqual(m.Growth, r.Growth))
	}
	m.Growth.Checkpoints[0].Queries[0].Documents = -1
	if d.Growth.Checkpoints[0].Queries[0].Documents == -1 {
		t.Error("the merge shares its rows with its input")
	}
	if _, err := DecodeMerged(mustEncode(t, m)); err != nil {
		t.Errorf("a merged grow result: %v", err)
	}
	// The phase's p99 covers its queries too.
	if n := m.CombinedLatency().Count(); n != 5*20000 {
		t.Errorf("combined latency of %d samples, want INSERT's and Q1..Q4's", n)
	}
	two := *d
	two.Loader.Count = 2
	if _, err := Merge([]*Result{&two, &two}); err == nil || !strings.Contains(err.Error(), "one loader") {
		t.Errorf("merging two grow results: %v", err)
	}
}

func mustEncode(t *testing.T, r *Result) []byte {
	t.Helper()
	b, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestGrowthValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(r *Result)
		want   string
	}{
		{"grow without growth", func(r *Result) { r.Growth = nil }, "without its growth"},
		{"run with growth", func(r *Result) { r.Kind = KindRun }, "a run result with growth"},
		{"two loaders", func(r *Result) { r.Loader.Count = 2 }, "one loader"},
		{"insert mode", func(r *Result) { r.Growth.InsertMode = "fast" }, `unknown insert mode "fast"`},
		{"too many planned", func(r *Result) { r.Growth.PlannedCheckpoints = 201 }, "201 planned checkpoints"},
		{"more rows than planned", func(r *Result) { r.Growth.PlannedCheckpoints = 2 }, "3 checkpoints of 2 planned"},
		{"rows out of order", func(r *Result) {
			r.Growth.Checkpoints[0], r.Growth.Checkpoints[1] = r.Growth.Checkpoints[1], r.Growth.Checkpoints[0]
		}, "row 1 is checkpoint 2"},
		{"records not increasing", func(r *Result) { r.Growth.Checkpoints[1].Records = 1000 }, "checkpoint 2 at 1000 records, after 1000"},
		{"beyond the target", func(r *Result) { r.Growth.TargetRecords = 2500 }, "checkpoint 3 at 3000 records, after 2000 (target 2500)"},
		{"segment elsewhere", func(r *Result) { r.Growth.Checkpoints[2].Insert.FromRecords = 0 }, "segment from 0"},
		{"segment too long", func(r *Result) { r.Growth.Checkpoints[2].Insert.Records = 1001 }, "1001 records measured"},
		{"query class", func(r *Result) { r.Growth.Checkpoints[0].Queries[1].Name = "Q5" }, `query class "Q5"`},
		{"query twice", func(r *Result) { r.Growth.Checkpoints[0].Queries[1].Name = OpQ1 }, `query class "Q1"`},
		{"no values", func(r *Result) { r.Growth.Values = 0 }, "must be positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := growthResult(t, 3, 0, 1000)
			tc.change(r)
			err := r.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate: %v, want %q", err, tc.want)
			}
			if _, err := Encode(r); err == nil {
				t.Error("Encode took an invalid result")
			}
		})
	}
}

// TestGrowthEncodedSizeAtTheLimit: the largest Grow result, 200 rows with
// 16 shards' sizes each (the API's most) and five wide histograms, fits
// MaxEncodedBytes.
func TestGrowthEncodedSizeAtTheLimit(t *testing.T) {
	r := growthResult(t, MaxGrowthCheckpoints, 16, 1_000_000)
	b, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("200 checkpoints, 16 shards: %d bytes encoded (limit %d)", len(b), MaxEncodedBytes)
	if len(b) > MaxEncodedBytes*3/4 {
		t.Errorf("%d bytes: less than a quarter of the limit left", len(b))
	}
	r.Growth.Checkpoints = append(r.Growth.Checkpoints, r.Growth.Checkpoints[0])
	if err := r.Validate(); err == nil {
		t.Error("201 rows validated")
	}
}
