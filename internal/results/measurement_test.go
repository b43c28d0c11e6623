package results

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// withIntended gives every operation of r intended latencies: its service
// times plus a delay, as a loader with measurement.interval both records
// them.
func withIntended(r *Result, delay int64) {
	r.MeasurementInterval = IntervalBoth
	for i := range r.Ops {
		op := &r.Ops[i]
		for _, pair := range [][2]**Histogram{{&op.Latency, &op.Intended}, {&op.Failed, &op.IntendedFailed}} {
			src := *pair[0]
			if src.Count() == 0 {
				continue
			}
			h := NewHistogram()
			for _, b := range src.h.Distribution() {
				if b.Count > 0 {
					h.RecordN(b.From+delay, b.Count)
				}
			}
			*pair[1] = h
		}
	}
}

// TestMergeKeepsIntendedWarmupAndLoaders: the intended latencies and the
// warm-up merge exactly like the measured window's latencies; the loaders'
// own facts are kept one by one, in index order.
func TestMergeKeepsIntendedWarmupAndLoaders(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	start := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	var rs []*Result
	for i := range 3 {
		r := buildResult(t, i, 3, start, randomOps(rng, 500))
		withIntended(r, 1000)
		w := buildResult(t, i, 3, start.Add(-time.Minute), randomOps(rng, 100))
		withIntended(w, 2000)
		r.Warmup = &Warmup{Start: start.Add(-time.Minute + time.Duration(i)*time.Second), End: start.Add(time.Duration(i) * time.Millisecond),
			Operations: w.Operations, Ops: w.Ops}
		r.Loaders = []LoaderStats{{Index: i, Connections: 8, ConnectMillis: int64(10 + i), Start: start,
			CPU: &CPUUsage{WindowMillis: 10_000, UsedMillis: 3000, LimitMilliCPU: 1000, LimitSource: "cgroup"}}}
		if err := r.Validate(); err != nil {
			t.Fatalf("loader %d: %v", i, err)
		}
		rs = append(rs, r)
	}
	// Merged out of order.
	m, err := Merge([]*Result{rs[2], rs[0], rs[1]})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if m.MeasurementInterval != IntervalBoth || len(m.Loaders) != 3 || m.Loaders[0].Index != 0 || m.Loaders[2].ConnectMillis != 12 {
		t.Fatalf("merged interval %q, loaders %+v", m.MeasurementInterval, m.Loaders)
	}
	if !m.Warmup.Start.Equal(start.Add(-time.Minute)) || !m.Warmup.End.Equal(start.Add(2*time.Millisecond)) ||
		m.Warmup.Operations != rs[0].Warmup.Operations+rs[1].Warmup.Operations+rs[2].Warmup.Operations {
		t.Fatalf("merged warm-up %v..%v, %d operations", m.Warmup.Start, m.Warmup.End, m.Warmup.Operations)
	}
	for _, name := range []string{OpRead, OpUpdate} {
		want, wantWarm := NewHistogram(), NewHistogram()
		for _, r := range rs {
			want.Merge(r.Op(name).Intended)
			wantWarm.Merge(r.Warmup.Op(name).Intended)
		}
		if !m.Op(name).Intended.Equal(want) || !m.Warmup.Op(name).Intended.Equal(wantWarm) {
			t.Errorf("%s: merged intended latencies are not the loaders' together", name)
		}
	}
	if got, want := m.CombinedIntended().Percentile(50), m.CombinedLatency().Percentile(50)+1000; got < want-want/500 || got > want+want/500 {
		t.Errorf("combined intended p50 %d, want about %d", got, want)
	}
	if cpu := m.Loaders[1].CPU; cpu.UsedPercent() != 30 || cpu.ThrottledPercent() != 0 {
		t.Errorf("CPU %v%% used, %v%% throttled", cpu.UsedPercent(), cpu.ThrottledPercent())
	}

	// Round trip.
	enc, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeMerged(enc)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Op(OpRead).Intended.Equal(m.Op(OpRead).Intended) || back.Warmup.Operations != m.Warmup.Operations || len(back.Loaders) != 3 {
		t.Fatal("the encoding lost intended latencies, the warm-up or the loaders")
	}
}

func TestMergeRefusesMixedMeasurements(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	start := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	a, b := buildResult(t, 0, 2, start, randomOps(rng, 50)), buildResult(t, 1, 2, start, randomOps(rng, 50))
	withIntended(b, 10)
	if _, err := Merge([]*Result{a, b}); err == nil || !strings.Contains(err.Error(), "measurement.interval") {
		t.Errorf("op and both merged: %v", err)
	}
	withIntended(a, 10)
	a.Warmup = &Warmup{Start: start, End: start}
	if _, err := Merge([]*Result{a, b}); err == nil || !strings.Contains(err.Error(), "warm-up") {
		t.Errorf("a warm-up and none merged: %v", err)
	}
	a.Warmup = nil
	a.Loaders = []LoaderStats{{Index: 0}}
	b.Loaders = []LoaderStats{{Index: 0}}
	if _, err := Merge([]*Result{a, b}); err == nil {
		t.Error("two stats for one loader merged")
	}
}

func TestValidateMeasurements(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	start := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name   string
		mangle func(r *Result)
		want   string
	}{
		{"unknown interval", func(r *Result) { r.MeasurementInterval = "timeline" }, "measurement interval"},
		{"intended without the interval", func(r *Result) {
			withIntended(r, 5)
			r.MeasurementInterval = IntervalOp
		}, "intended latencies without"},
		{"intended count", func(r *Result) {
			withIntended(r, 5)
			r.Ops[0].Intended.Record(1)
		}, "intended latencies for"},
		{"warm-up backwards", func(r *Result) { r.Warmup = &Warmup{Start: start, End: start.Add(-time.Second)} }, "warm-up"},
		{"warm-up counts", func(r *Result) {
			r.Warmup = &Warmup{Start: start, End: start, Ops: []OpResult{{Name: OpRead, Statuses: map[string]int64{"OK": 2}}}}
		}, "warm-up: READ"},
		{"loader out of range", func(r *Result) { r.Loaders = []LoaderStats{{Index: 1}} }, "loader stats"},
		{"impossible CPU", func(r *Result) {
			r.Loaders = []LoaderStats{{Index: 0, CPU: &CPUUsage{WindowMillis: 1, LimitMilliCPU: 0}}}
		}, "CPU usage"},
	} {
		r := buildResult(t, 0, 1, start, randomOps(rng, 20))
		c.mangle(r)
		if err := r.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// TestFormatVersions: results of version 1 (before intended latencies,
// warm-ups and loader stats) still decode; a newer version is refused by
// name rather than field by field.
func TestFormatVersions(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	r := buildResult(t, 0, 1, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), randomOps(rng, 50))
	for v, ok := range map[int]bool{1: true, FormatVersion: true, FormatVersion + 1: false, 0: false} {
		r.Version = v
		err := r.Validate()
		if (err == nil) != ok || (!ok && !strings.Contains(err.Error(), "result format version")) {
			t.Errorf("version %d: %v", v, err)
		}
	}
}
