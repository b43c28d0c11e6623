package ycsb

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/results"
)

// TestQuantizeMatchesSeriesHistogram: recording the quantized value gives
// the series histogram recording the raw value exactly.
func TestQuantizeMatchesSeriesHistogram(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	raw, q := results.NewSeriesHistogram(), results.NewSeriesHistogram()
	for i := range 200_000 {
		v := int64(rng.ExpFloat64() * float64(int64(1)<<(i%34)))
		raw.Record(v)
		q.Record(quantize(v))
	}
	raw.Record(results.HighestMicros + 5)
	q.Record(quantize(results.HighestMicros + 5))
	if !raw.Equal(q) {
		t.Fatal("quantized latencies fill other buckets than the raw ones")
	}
}

// detailDB is a CallDetailer whose answers the test sets.
type detailDB struct {
	label  string
	failed int64
}

func (d *detailDB) FailureLabel() string  { return d.label }
func (d *detailDB) FailedAttempts() int64 { return d.failed }
func (*detailDB) Read(context.Context, string, []byte, []string, *[]Field) Status {
	return StatusOK
}
func (*detailDB) Scan(context.Context, string, []byte, int, []string) Status { return StatusOK }
func (*detailDB) Update(context.Context, string, []byte, []Field) Status     { return StatusOK }
func (*detailDB) Insert(context.Context, string, []byte, []Field) Status     { return StatusOK }
func (*detailDB) Delete(context.Context, string, []byte) Status              { return StatusOK }
func (*detailDB) Cleanup(context.Context) (int, error)                       { return 0, nil }

// TestDisruptionTracker drives one thread's tracker with operations at
// known times around an instant 2.05 s into a 5 s window and checks every
// measurement: the series' start on the instant's grid (1.95 s before it,
// on the grid: 2 s, from 50 ms) and its end at the window's, the points by the
// operations' ends, the errors and retries of the operations ended after
// the instant, and the first success after the onset.
func TestDisruptionTracker(t *testing.T) {
	const at = 2050 * time.Millisecond
	set := newDisruptionSet([]DisruptionSpec{{Index: 3, Action: "StepDown", At: at}})
	db := &detailDB{}
	th := set.newThread(db)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	th.begin(base)
	ms := func(m float64) time.Time { return base.Add(time.Duration(m * float64(time.Millisecond))) }
	op := func(o Op, st Status, from, to float64) { th.record(o, st, ms(from), ms(to)) }

	op(OpUpdate, StatusOK, 10, 40)     // before the series: ignored
	op(OpUpdate, StatusOK, 140, 160)   // point 1 ([150, 250) from the window's start)
	op(OpRead, StatusOK, 2000, 2049)   // point 19, the last before the instant
	op(OpUpdate, StatusOK, 2051, 2052) // a write that passed before the disruption took
	db.label, db.failed = "NotWritablePrimary", 1
	op(OpUpdate, StatusError, 2052, 2060) // the onset: a refused write
	op(OpRead, StatusOK, 2055, 2070)      // a read that passed: reads saw no onset
	db.failed = 2
	op(OpUpdate, StatusOK, 2061, 3600) // retried once, succeeded: the first write after the onset
	op(OpUpdate, StatusOK, 3601, 3602)
	db.label, db.failed = "NetworkError", 4
	op(OpInsert, StatusError, 3700, 3800) // two failed attempts: retried, failed
	op(OpReadModifyWrite, StatusError, 2000, 3900)
	op(OpCleanup, StatusOK, 4990, 4999)
	set.drain()
	op(OpUpdate, StatusOK, 40000, 40001) // past the stretch
	set.drain()

	ds := set.results(base, 5*time.Second, 2, &RunOptions{})
	if len(ds) != 1 {
		t.Fatalf("%d disruptions", len(ds))
	}
	d := ds[0]
	if d.Index != 3 || d.AtMillis != 2050 || !d.Instant.Equal(base.Add(at)) || d.SeriesStartMillis != -2000 {
		t.Errorf("disruption %d at %d ms, instant %v, series from %d ms", d.Index, d.AtMillis, d.Instant, d.SeriesStartMillis)
	}
	// From 50 ms to 5 s: 49 full points and one of 50 ms.
	if n := len(d.Series.Points); n != 50 || d.Series.Points[49].Millis != 50 || d.Series.Points[0].Millis != 100 {
		t.Fatalf("%d points, last %d ms", n, d.Series.Points[len(d.Series.Points)-1].Millis)
	}
	count := func(i int, name string) (n, failed, ok int64) {
		if o := d.Series.Points[i].Op(name); o != nil {
			return o.Count, o.Failed, o.Latency.Count()
		}
		return 0, 0, 0
	}
	for _, c := range []struct {
		point             int
		op                string
		count, failed, ok int64
	}{
		{0, "UPDATE", 0, 0, 0},
		{1, "UPDATE", 1, 0, 1},
		{19, "READ", 1, 0, 1},
		{20, "UPDATE", 2, 1, 1}, // [2050, 2150): the passing write and the refused one
		{20, "READ", 1, 0, 1},
		{35, "UPDATE", 2, 0, 2}, // [3550, 3650): the retried write and the next
		{37, "INSERT", 1, 1, 0},
		{38, "READ-MODIFY-WRITE", 1, 1, 0},
		{49, "CLEANUP", 1, 0, 1},
	} {
		if n, f, ok := count(c.point, c.op); n != c.count || f != c.failed || ok != c.ok {
			t.Errorf("point %d %s: %d operations, %d failed, %d latencies; want %d, %d, %d", c.point, c.op, n, f, ok, c.count, c.failed, c.ok)
		}
	}
	if len(d.Errors) != 2 || d.Errors["NotWritablePrimary"] != 1 || d.Errors["NetworkError"] != 1 {
		t.Errorf("errors %v, want the refused write's and the insert's (not the READ-MODIFY-WRITE's)", d.Errors)
	}
	if d.Retried != 2 || d.RetriedOK != 1 {
		t.Errorf("%d retried, %d ok; want 2, 1", d.Retried, d.RetriedOK)
	}
	l := d.Loaders[0]
	if l.Index != 2 || l.WriteUnavailableMicros == nil || *l.WriteUnavailableMicros != 1_550_000 || l.Writes != 3 {
		t.Errorf("writes: %v µs after %d writes; want the write ended 3.6 s (1.55 s after the instant), 3 writes", l.WriteUnavailableMicros, l.Writes)
	}
	if l.ReadUnavailableMicros == nil || *l.ReadUnavailableMicros != 20_000 || l.Reads != 1 {
		t.Errorf("reads: %v µs after %d reads; want the read ended 20 ms after the instant", l.ReadUnavailableMicros, l.Reads)
	}

	// The driver saw the primary go 1 ms after the instant: the read
	// started after it is the first.
	set2 := newDisruptionSet([]DisruptionSpec{{Index: 0, Action: "StepDown", At: at}})
	th2 := set2.newThread(&detailDB{})
	th2.begin(base)
	th2.record(OpRead, StatusOK, ms(2050.5), ms(2052))
	th2.record(OpRead, StatusOK, ms(2052), ms(3700))
	set2.drain()
	ds = set2.results(base, 5*time.Second, 0, &RunOptions{DisruptionOnset: func(_ DisruptionSpec, instant time.Time) (time.Time, bool) {
		return instant.Add(time.Millisecond), true
	}})
	if r := ds[0].Loaders[0].ReadUnavailableMicros; r == nil || *r != 1_650_000 {
		t.Errorf("read unavailability with the driver's onset: %v µs, want 1.65 s", r)
	}
	if w := ds[0].Loaders[0].WriteUnavailableMicros; w != nil || ds[0].Loaders[0].Writes != 0 {
		t.Errorf("no write was tried, yet %v µs", w)
	}
}

// TestDisruptionNotReached: a window that ends before the instant has a
// series up to its end and no measurement after the instant.
func TestDisruptionNotReached(t *testing.T) {
	set := newDisruptionSet([]DisruptionSpec{{Index: 0, Action: "StepDown", At: 30 * time.Second}})
	th := set.newThread(&detailDB{})
	base := time.Now()
	th.begin(base)
	th.record(OpRead, StatusOK, base.Add(21*time.Second), base.Add(21*time.Second+time.Millisecond))
	set.drain()
	d := set.results(base, 25*time.Second, 0, &RunOptions{})[0]
	if d.SeriesStartMillis != -10_000 || len(d.Series.Points) != 50 || d.Loaders[0].ReadUnavailableMicros != nil || d.Loaders[0].Reads != 0 {
		t.Errorf("series from %d ms, %d points, read %v after %d", d.SeriesStartMillis, len(d.Series.Points), d.Loaders[0].ReadUnavailableMicros, d.Loaders[0].Reads)
	}
}

// TestPartialDisruption: one shard of several hit (Partial). Writes to
// the other shards succeed throughout; writes to the hit one fail until
// 1.2 s after the instant, and one stalls until 1.5 s. Unavailability ends
// with the first success started after both the last failure's end and
// the recovery the loader's monitor of the shard saw (1.4 s), to the
// millisecond, for reads as for writes; without a recovery, after the
// last failure only; with neither, the first success after the instant
// (nothing hit the kind).
func TestPartialDisruption(t *testing.T) {
	const at = 2 * time.Second
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ms := func(m float64) time.Time { return base.Add(time.Duration(m * float64(time.Millisecond))) }
	run := func(recovered time.Duration) results.DisruptionLoader {
		set := newDisruptionSet([]DisruptionSpec{{Index: 0, Action: "KillPrimary", At: at, Partial: true}})
		db := &detailDB{label: "HostUnreachable"}
		th := set.newThread(db)
		th.begin(base)
		for i := range 300 { // another shard's writes: a success every 10 ms
			start := 1000 + float64(i)*10
			th.record(OpUpdate, StatusOK, ms(start), ms(start+0.5))
		}
		for i := range 6 { // the hit shard's writes fail until 3.2 s
			db.failed++
			start := 2000 + float64(i)*200
			th.record(OpUpdate, StatusError, ms(start), ms(start+5))
		}
		th.record(OpUpdate, StatusOK, ms(2050), ms(3500)) // stalled, then through
		th.record(OpRead, StatusOK, ms(2100), ms(2101))   // reads: never hit
		th.record(OpRead, StatusOK, ms(3500), ms(3502))
		set.drain()
		opts := &RunOptions{DisruptionRecovered: func(d DisruptionSpec, instant time.Time) (time.Time, bool) {
			if d.Index != 0 || !instant.Equal(base.Add(at)) || recovered == 0 {
				return time.Time{}, false
			}
			return instant.Add(recovered), true
		}}
		return set.results(base, 5*time.Second, 0, opts)[0].Loaders[0]
	}
	// The last failure ended at 3.005 s; starts from 3.006 s count: the
	// success of 3.010 s, ended 1.0105 s after the instant.
	if l := run(0); l.WriteUnavailableMicros == nil || *l.WriteUnavailableMicros != 1_010_500 ||
		l.ReadUnavailableMicros == nil || *l.ReadUnavailableMicros != 101_000 {
		t.Errorf("without a recovery: writes %v µs, reads %v µs; want 1.0105 s and 0.101 s (reads never failed: the first after the instant)",
			l.WriteUnavailableMicros, l.ReadUnavailableMicros)
	}
	// Recovered 1.4 s after the instant: the success started at 3.4 s.
	l := run(1400 * time.Millisecond)
	if l.WriteUnavailableMicros == nil || *l.WriteUnavailableMicros != 1_400_500 {
		t.Errorf("recovered at 1.4 s: %v µs, want 1.4005 s", l.WriteUnavailableMicros)
	}
	if l.ReadUnavailableMicros == nil || *l.ReadUnavailableMicros != 1_502_000 {
		t.Errorf("reads: %v µs, want 1.502 s (the first read started after the shard had a primary again)", l.ReadUnavailableMicros)
	}
	// Recovered after the last success: not recovered within the 30 s.
	if l := run(29 * time.Second); l.WriteUnavailableMicros != nil {
		t.Errorf("recovered past every success: %v µs, want none", l.WriteUnavailableMicros)
	}
}

// TestPauseDisruption: a Pause of the primary whose freeze began 2 s
// after the instant (DisruptionStart, also the onset), at 50,000 writes a
// second: the successes before the onset are more than the bounded
// candidates hold, yet the first write started after the onset is found
// (per-millisecond table), and the unavailability counts from the freeze,
// not from the instant. A Pause the window never reached asks the loader
// nothing.
func TestPauseDisruption(t *testing.T) {
	const at = time.Second
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ms := func(m float64) time.Time { return base.Add(time.Duration(m * float64(time.Millisecond))) }
	set := newDisruptionSet([]DisruptionSpec{{Index: 0, Action: "Pause", At: at}, {Index: 1, Action: "Pause", At: 10 * time.Second}})
	th := set.newThread(&detailDB{})
	th.begin(base)
	for i := range 100_000 { // 2 s at 50,000 writes/s from the instant
		start := 1000 + float64(i)*0.02
		th.record(OpUpdate, StatusOK, ms(start), ms(start+0.01))
	}
	th.record(OpUpdate, StatusOK, ms(3000.5), ms(4500)) // started in the freeze, answered at the thaw
	th.record(OpUpdate, StatusOK, ms(4500.2), ms(4500.3))
	set.drain()
	freeze := base.Add(at + 2*time.Second)
	var asked []int
	opts := &RunOptions{
		DisruptionOnset: func(d DisruptionSpec, _ time.Time) (time.Time, bool) {
			asked = append(asked, d.Index)
			return freeze, true
		},
		DisruptionStart: func(d DisruptionSpec, _ time.Time) (time.Time, bool) {
			asked = append(asked, d.Index)
			return freeze, true
		},
	}
	ds := set.results(base, 5*time.Second, 0, opts)
	if w := ds[0].Loaders[0].WriteUnavailableMicros; w == nil || *w != 1_500_000 {
		t.Errorf("write unavailability %v µs, want 1.5 s: from the freeze (3 s) to the end of the first write started after it (4.5 s)", w)
	}
	for _, i := range asked {
		if i != 0 {
			t.Errorf("asked about disruption %d, which the 5 s window never reached", i)
		}
	}
}
