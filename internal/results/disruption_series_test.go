package results

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestCoarsenDisruptionSeries: doubling keeps the boundaries on the
// instant's grid, merges the points each new one covers, and keeps every
// operation.
func TestCoarsenDisruptionSeries(t *testing.T) {
	d := Disruption{SeriesStartMillis: -300, Series: Series{IntervalMillis: 100}}
	for i := range 7 { // -300 … +400, the last one 50 ms
		p := Point{Millis: 100, Ops: []PointOp{{Name: OpRead, Count: int64(i + 1)}}}
		if i == 6 {
			p.Millis = 50
		}
		d.Series.Points = append(d.Series.Points, p)
	}
	if !d.coarsen() {
		t.Fatal("nothing coarsened")
	}
	// New grid: [-400,-200) holds -300 only, [-200,0) -200 and -100,
	// [0,200) 0 and 100, [200,400) 200 and 300's 50 ms.
	want := []struct{ millis, count int64 }{{100, 1}, {200, 2 + 3}, {200, 4 + 5}, {150, 6 + 7}}
	if d.SeriesStartMillis != -400 || d.Series.IntervalMillis != 200 || len(d.Series.Points) != len(want) {
		t.Fatalf("coarsened: start %d, interval %d, %d points", d.SeriesStartMillis, d.Series.IntervalMillis, len(d.Series.Points))
	}
	for i, w := range want {
		p := d.Series.Points[i]
		if p.Millis != w.millis || p.Count() != w.count {
			t.Errorf("point %d: %d ms, %d operations; want %d ms, %d", i, p.Millis, p.Count(), w.millis, w.count)
		}
	}
	if err := d.validateSeries(); err != nil {
		t.Error(err)
	}
}

// TestEncodeWorstCaseDisruptions: ten disruptions, each a full 100 ms
// series (401 points) of five operations with wide latency spreads, on
// top of a full main series: Encode coarsens the disruption series on
// their grid until the result fits MaxEncodedBytes, and it decodes.
func TestEncodeWorstCaseDisruptions(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	wide := func(h *Histogram, n int) *Histogram {
		for range n {
			h.Record(int64(rng.ExpFloat64() * 20_000))
		}
		return h
	}
	names := []string{OpRead, OpUpdate, OpInsert, OpScan, OpReadModifyWrite}
	start := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	r := &Result{Version: FormatVersion, Kind: KindRun, Loader: Identity{Index: 0, Count: 1, Threads: 64},
		Start: start, End: start.Add(2 * time.Minute), RuntimeMillis: 120_000, StopReason: StopCompleted}
	sb := NewSeriesBuilder(time.Second)
	for range MaxSeriesPoints {
		p := Point{Millis: 1000}
		for _, name := range names {
			p.Ops = append(p.Ops, PointOp{Name: name, Count: 500, Latency: wide(NewSeriesHistogram(), 500)})
		}
		sb.Add(p)
	}
	r.Series = sb.Series()
	for _, name := range names {
		r.Ops = append(r.Ops, OpResult{Name: name, Statuses: map[string]int64{"OK": 60_000}, Latency: wide(NewHistogram(), 60_000)})
		r.Operations += 60_000
	}
	for i := range 10 {
		at := time.Duration(10+10*i) * time.Second
		d := Disruption{Index: i, Action: "StepDown", AtMillis: at.Milliseconds(), Instant: start.Add(at),
			SeriesStartMillis: -DisruptionBeforeMillis, Series: Series{IntervalMillis: DisruptionIntervalMillis},
			Errors: map[string]int64{"NotWritablePrimary": 3}}
		us := int64(1_500_000)
		d.Loaders = []DisruptionLoader{{Index: 0, WriteUnavailableMicros: &us, Writes: 4}}
		for range MaxDisruptionPoints {
			p := Point{Millis: DisruptionIntervalMillis}
			for _, name := range names {
				p.Ops = append(p.Ops, PointOp{Name: name, Count: 60, Failed: 5, Latency: wide(NewSeriesHistogram(), 55)})
			}
			d.Series.Points = append(d.Series.Points, p)
		}
		r.Disruptions = append(r.Disruptions, d)
	}
	full, err := GzipJSON(r, "result")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Encode(r)
	if err != nil {
		t.Fatalf("encode: %v (full form %d bytes)", err, len(full))
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	d := got.Disruptions[0]
	t.Logf("full %d KiB; kept %d KiB: main series %d points, disruption series %d points of %d ms from %d ms",
		len(full)>>10, len(b)>>10, len(got.Series.Points), len(d.Series.Points), d.Series.IntervalMillis, d.SeriesStartMillis)
	if len(full) <= MaxEncodedBytes {
		t.Fatalf("the worst case fits without coarsening (%d bytes): not a worst case", len(full))
	}
	if d.Series.IntervalMillis <= DisruptionIntervalMillis || d.SeriesStartMillis%d.Series.IntervalMillis != 0 {
		t.Errorf("disruption series: %d ms from %d ms, want coarser, on the instant's grid", d.Series.IntervalMillis, d.SeriesStartMillis)
	}
	var n, orig int64
	for _, p := range d.Series.Points {
		n += p.Count()
	}
	for _, p := range r.Disruptions[0].Series.Points {
		orig += p.Count()
	}
	if n != orig {
		t.Errorf("coarsening lost operations: %d of %d", n, orig)
	}
}
