package results

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func i64(v int64) *int64 { return &v }

// dpoint is a disruption series point: count ops of one name, failed of
// them failed, the others with latency us.
func dpoint(millis int64, name string, count, failed, us int64) Point {
	p := Point{Millis: millis, Ops: []PointOp{{Name: name, Count: count, Failed: failed}}}
	if ok := count - failed; ok > 0 {
		p.Ops[0].Latency = NewSeriesHistogram()
		p.Ops[0].Latency.RecordN(us, ok)
	}
	return p
}

// disruptionResult is loader index of count with one StepDown at 30 s.
func disruptionResult(index, count int, d Disruption) *Result {
	start := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	return &Result{Version: FormatVersion, Kind: KindRun, Loader: Identity{Index: index, Count: count, Threads: 1}, Start: start,
		End: start.Add(time.Minute), RuntimeMillis: 60_000, StopReason: StopMaxExecutionTime, Disruptions: []Disruption{d}}
}

// TestMergeDisruptions: measurements concatenated by loader, errors and
// retries summed, the instant and the outcome loader 0's, the series
// merged on the instant's grid at the coarsest interval.
func TestMergeDisruptions(t *testing.T) { //nolint:gocyclo // one scenario, field by field
	instant := time.Date(2026, 11, 27, 10, 0, 30, 0, time.UTC)
	returned := instant.Add(1200 * time.Millisecond)
	outcome := &DisruptionOutcome{State: DisruptionDone, Sent: instant, Returned: &returned, Primary: "rs-rs0-0:27017"}
	l0 := disruptionResult(0, 3, Disruption{Index: 0, Action: "StepDown", AtMillis: 30_000, Instant: instant, Outcome: outcome,
		Loaders: []DisruptionLoader{{Index: 0, WriteUnavailableMicros: i64(1_500_000), Writes: 40, Reads: 0, NewPrimaryMicros: i64(1_400_000)}},
		Errors:  map[string]int64{"NotWritablePrimary": 30}, Retried: 5, RetriedOK: 4,
		// 100 ms from -200 ms: [-200,-100) [-100,0) [0,100) [100,200)
		SeriesStartMillis: -200, Series: Series{IntervalMillis: 100, Points: []Point{
			dpoint(100, "UPDATE", 10, 0, 1000), dpoint(100, "UPDATE", 10, 0, 1000),
			dpoint(100, "UPDATE", 10, 10, 0), dpoint(100, "UPDATE", 10, 2, 5000)}}})
	// Loader 1 kept 200 ms intervals (its Encode coarsened them), and its
	// clock is 3 ms off: its instant is its own, its grid the instant's.
	l1 := disruptionResult(1, 3, Disruption{Index: 0, Action: "StepDown", AtMillis: 30_000, Instant: instant.Add(3 * time.Millisecond),
		Loaders: []DisruptionLoader{{Index: 1, WriteUnavailableMicros: i64(1_700_000), Writes: 12, ReadUnavailableMicros: i64(900_000), Reads: 3}},
		Errors:  map[string]int64{"NotWritablePrimary": 3, "NetworkError": 1}, Retried: 1,
		SeriesStartMillis: -400, Series: Series{IntervalMillis: 200, Points: []Point{
			dpoint(200, "READ", 4, 0, 300), dpoint(200, "READ", 4, 0, 300), dpoint(150, "READ", 4, 4, 0)}}})
	// Loader 2's window started 100 ms before the instant.
	l2 := disruptionResult(2, 3, Disruption{Index: 0, Action: "StepDown", AtMillis: 30_000, Instant: instant.Add(-time.Millisecond),
		Loaders:           []DisruptionLoader{{Index: 2, Writes: 7}},
		SeriesStartMillis: -100, Series: Series{IntervalMillis: 100, Points: []Point{
			dpoint(100, "UPDATE", 1, 0, 2000), dpoint(100, "UPDATE", 1, 1, 0), dpoint(100, "UPDATE", 1, 1, 0)}}})

	m, err := Merge([]*Result{l2, l0, l1})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Validate(); err != nil {
		t.Fatalf("merged result invalid: %v", err)
	}
	if len(m.Disruptions) != 1 {
		t.Fatalf("%d disruptions", len(m.Disruptions))
	}
	d := m.Disruptions[0]
	if !d.Instant.Equal(instant) || !reflect.DeepEqual(d.Outcome, outcome) {
		t.Errorf("instant %v outcome %+v: want loader 0's", d.Instant, d.Outcome)
	}
	if len(d.Loaders) != 3 || d.Loaders[0].Index != 0 || d.Loaders[1].Index != 1 || d.Loaders[2].Index != 2 || d.Loaders[1].Reads != 3 {
		t.Errorf("loaders %+v", d.Loaders)
	}
	if want := map[string]int64{"NotWritablePrimary": 33, "NetworkError": 1}; !reflect.DeepEqual(d.Errors, want) || d.Retried != 6 || d.RetriedOK != 4 {
		t.Errorf("errors %v retried %d/%d", d.Errors, d.Retried, d.RetriedOK)
	}
	// 200 ms grid from -400: [-400,-200) loader 1; [-200,0) loaders 0,1
	// and 2's [-100,0); [0,200) loaders 0,1,2.
	if d.SeriesStartMillis != -400 || d.Series.IntervalMillis != 200 || len(d.Series.Points) != 3 {
		t.Fatalf("series from %d ms, %d ms × %d points", d.SeriesStartMillis, d.Series.IntervalMillis, len(d.Series.Points))
	}
	type want struct {
		millis           int64
		update, upFailed int64
		read, readFailed int64
		upLatency        int64
	}
	for i, w := range []want{
		{200, 0, 0, 4, 0, 0},
		{200, 21, 0, 4, 0, 21},
		{200, 22, 14, 4, 4, 8},
	} {
		p := &d.Series.Points[i]
		var up, rd PointOp
		if o := p.Op("UPDATE"); o != nil {
			up = *o
		}
		if o := p.Op("READ"); o != nil {
			rd = *o
		}
		if p.Millis != w.millis || up.Count != w.update || up.Failed != w.upFailed || rd.Count != w.read || rd.Failed != w.readFailed ||
			up.Latency.Count() != w.upLatency {
			t.Errorf("point %d: %d ms, UPDATE %d (%d failed, %d latencies), READ %d (%d failed); want %+v", i, p.Millis, up.Count,
				up.Failed, up.Latency.Count(), rd.Count, rd.Failed, w)
		}
	}
	if s, ok := d.WriteUnavailable(); !ok || s != (LoaderTimes{MaxMicros: 1_700_000, MedianMicros: 1_600_000, Measured: 2, Missing: 1}) {
		t.Errorf("write unavailable %+v, %v", s, ok)
	}
	if s, ok := d.ReadUnavailable(); !ok || s != (LoaderTimes{MaxMicros: 900_000, MedianMicros: 900_000, Measured: 1}) {
		t.Errorf("read unavailable %+v, %v", s, ok)
	}
	if s, ok := d.NewPrimary(); !ok || s != (LoaderTimes{MaxMicros: 1_400_000, MedianMicros: 1_400_000, Measured: 1, Missing: 2}) {
		t.Errorf("new primary %+v, %v", s, ok)
	}
	// Without disruptions nothing changes.
	for _, r := range []*Result{l0, l1, l2} {
		r.Disruptions = nil
	}
	if m, err := Merge([]*Result{l0, l1, l2}); err != nil || m.Disruptions != nil {
		t.Errorf("merge without disruptions: %v, %+v", err, m.Disruptions)
	}
}

// TestMergeDisruptionsRejects: loaders that were given other disruptions
// (another index, action or instant, or another number of them), or two
// measurements of one loader, are not merged.
func TestMergeDisruptionsRejects(t *testing.T) {
	instant := time.Date(2026, 11, 27, 10, 0, 30, 0, time.UTC)
	base := func(index int) Disruption {
		return Disruption{Index: 0, Action: "StepDown", AtMillis: 30_000, Instant: instant, Loaders: []DisruptionLoader{{Index: index}}}
	}
	for _, tc := range []struct {
		name string
		edit func(d *Disruption, r *Result)
		want string
	}{
		{"another index", func(d *Disruption, _ *Result) { d.Index = 1 }, "index 1"},
		{"another action", func(d *Disruption, _ *Result) { d.Action = "KillPrimary" }, "KillPrimary"},
		{"another at", func(d *Disruption, _ *Result) { d.AtMillis = 31_000 }, "31000 ms"},
		{"none", func(_ *Disruption, r *Result) { r.Disruptions = nil }, "loader 1 measured 0 disruptions"},
		{"two", func(d *Disruption, r *Result) { r.Disruptions = append(r.Disruptions, *d) }, "measured 2 disruptions"},
		{"loader 0's measurement", func(d *Disruption, _ *Result) { d.Loaders[0].Index = 0 }, "two measurements of loader 0"},
		{"unaligned series", func(d *Disruption, _ *Result) {
			d.Series = Series{IntervalMillis: 300, Points: []Point{{Millis: 300}}}
		}, "cannot be aligned"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d0 := base(0)
			d0.Series = Series{IntervalMillis: 200, Points: []Point{{Millis: 200}}}
			r0, r1 := disruptionResult(0, 2, d0), disruptionResult(1, 2, base(1))
			tc.edit(&r1.Disruptions[0], r1)
			if _, err := Merge([]*Result{r0, r1}); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("merge: %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
}

// TestMergeDisruptionSeriesStaysBounded: loaders whose series lie apart
// widen the merge; it is coarsened on the instant's grid to the bound.
func TestMergeDisruptionSeriesStaysBounded(t *testing.T) {
	mk := func(start int64) *Disruption {
		s := Series{IntervalMillis: 100}
		for range MaxDisruptionPoints {
			s.Points = append(s.Points, dpoint(100, "READ", 1, 0, 100))
		}
		return &Disruption{SeriesStartMillis: start, Series: s}
	}
	start, s, err := mergeDisruptionSeries([]*Disruption{mk(-10_000), mk(-5_000)})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Points) > MaxDisruptionPoints+1 || s.IntervalMillis != 200 || start != -10_000 {
		t.Fatalf("%d points of %d ms from %d ms", len(s.Points), s.IntervalMillis, start)
	}
	var n int64
	for _, p := range s.Points {
		n += p.Count()
	}
	if n != 2*MaxDisruptionPoints {
		t.Errorf("%d operations, want %d", n, 2*MaxDisruptionPoints)
	}
}

// TestDisruptionPerformance: before is the window's start (or the end of
// the previous disruption's stretch) to the instant, after the last half
// of the time to the next disruption or the window's end, whole points.
func TestDisruptionPerformance(t *testing.T) {
	start := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	r := &Result{Start: start, End: start.Add(60 * time.Second), Series: Series{IntervalMillis: 1000}}
	for i := range 60 {
		// Point i: i+1 operations, one of them failed, the others at
		// (i+1) ms.
		r.Series.Points = append(r.Series.Points, dpoint(1000, "READ", int64(i+1), 1, int64(i+1)*1000))
	}
	r.Disruptions = []Disruption{{Instant: start.Add(20 * time.Second)}, {Instant: start.Add(40*time.Second + 500*time.Millisecond)}}
	p99 := func(us int64) int64 { h := NewSeriesHistogram(); h.Record(us); return h.Percentile(99) }
	sum := func(a, b int) (n int64) {
		for i := a; i < b; i++ {
			n += int64(i + 1)
		}
		return n
	}
	before, after := r.DisruptionPerformance(0)
	// Before: points 0..19; after: [30.25 s, 40.5 s) holds points 31..39.
	if before == nil || *before != (Performance{Millis: 20_000, Throughput: float64(sum(0, 20)) / 20, P99Micros: p99(20_000)}) {
		t.Errorf("before 0: %+v", before)
	}
	if after == nil || *after != (Performance{Millis: 9000, Throughput: float64(sum(31, 40)) / 9, P99Micros: p99(40_000)}) {
		t.Errorf("after 0: %+v", after)
	}
	// Before 1: from 50 s (the first's stretch) to 40.5 s: nothing.
	// After 1: [50.25 s, 60 s): points 51..59.
	before, after = r.DisruptionPerformance(1)
	if before != nil {
		t.Errorf("before 1: %+v, want none", before)
	}
	if after == nil || *after != (Performance{Millis: 9000, Throughput: float64(sum(51, 60)) / 9, P99Micros: p99(60_000)}) {
		t.Errorf("after 1: %+v", after)
	}
}
