package telemetry

import (
	"encoding/json"
	"math"
	"math/bits"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/results"
)

// steadySamples are n samples one interval apart (with some jitter), of a
// process inserting 100 documents a second, with a connection count that
// cycles through 10..19.
func steadySamples(n int, interval time.Duration) []Sample {
	out := make([]Sample, n)
	for i := range n {
		at := t0.Add(time.Duration(i)*interval + time.Duration(i%3)*time.Millisecond)
		elapsed := at.Sub(t0).Milliseconds()
		out[i] = sampleAt(at, 5000+elapsed,
			map[Counter]int64{CounterInsert: elapsed / 10, CounterNetIn: 1000 * elapsed},
			map[Gauge]float64{GaugeConnections: float64(10 + i%10)})
	}
	return out
}

// Downsampling keeps at most MaxSeriesPoints points at a power-of-two
// multiple of the interval, whatever the length, and loses nothing: every
// sample is counted, counter totals are exact, gauge extremes and means
// are those of the raw samples.
func TestSeriesBuilderLengths(t *testing.T) {
	for _, n := range []int{1, 2, 3, 60, 119, 120, 121, 122, 240, 241, 1000, 3600, 10_000} {
		samples := steadySamples(n, time.Second)
		s := buildSeries(time.Second, samples...)
		if err := s.Validate(); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if len(s.Points) == 0 || len(s.Points) > results.MaxSeriesPoints {
			t.Errorf("n=%d: %d points", n, len(s.Points))
		}
		if f := s.IntervalMillis / 1000; s.IntervalMillis%1000 != 0 || bits.OnesCount64(uint64(f)) != 1 {
			t.Errorf("n=%d: interval %d ms is not a power of two times the base", n, s.IntervalMillis)
		}
		if got := s.Samples(); got != n {
			t.Errorf("n=%d: %d samples in the series", n, got)
		}
		last := samples[n-1]
		for _, c := range []Counter{CounterInsert, CounterNetIn} {
			want := Delta{Count: last.Counters[c].V - samples[0].Counters[c].V, Millis: last.Time.Sub(t0).Milliseconds()}
			if got := s.Total(c); got != want {
				t.Errorf("n=%d: total %s = %+v, want %+v", n, c, got, want)
			}
		}
		if n > 1 {
			if r, _ := s.Total(CounterInsert).Rate(); math.Abs(r-100) > 0.5 {
				t.Errorf("n=%d: insert rate %v, want 100/s", n, r)
			}
		}
		var sum, lo, hi float64 = 0, math.Inf(1), math.Inf(-1)
		for i := range samples {
			v := samples[i].Gauges[GaugeConnections].V
			sum, lo, hi = sum+v, math.Min(lo, v), math.Max(hi, v)
		}
		g := s.Gauge(GaugeConnections)
		if g.N != n || g.Min != lo || g.Max != hi || math.Abs(g.Mean-sum/float64(n)) > 1e-9 {
			t.Errorf("n=%d: connections %+v, want n %d, min %v, mean %v, max %v", n, g, n, lo, sum/float64(n), hi)
		}
		if got := s.Gauge(GaugeCacheBytes); got.N != 0 {
			t.Errorf("n=%d: absent gauge has data %+v", n, got)
		}
		for i := range s.Points {
			if r, ok := s.Points[i].Rate(CounterInsert); ok && math.Abs(r-100) > 5 {
				t.Errorf("n=%d: point %d insert rate %v", n, i, r)
			}
		}
	}
}

// Rates are weighted by time when points merge: 1,000 inserts over 0.5 s
// and 1,000 over 1.5 s are 1,000/s, not the mean of 2,000/s and 667/s.
func TestSeriesRatesWeightedByTime(t *testing.T) {
	s := buildSeries(2*time.Second,
		sampleAt(t0, 1000, map[Counter]int64{CounterInsert: 0}, nil),
		sampleAt(t0.Add(500*time.Millisecond), 1500, map[Counter]int64{CounterInsert: 1000}, nil),
		sampleAt(t0.Add(2000*time.Millisecond), 3000, map[Counter]int64{CounterInsert: 2000}, nil),
	)
	if r, ok := s.Total(CounterInsert).Rate(); !ok || r != 1000 {
		t.Errorf("rate %v, %v; want 1000", r, ok)
	}
	if len(s.Points) != 2 || s.Points[0].Samples != 2 || s.Points[1].Samples != 1 {
		t.Errorf("points %+v", s.Points)
	}
}

// A gap in sampling leaves empty points; the delta across it lands in the
// point of the sample after it and the rate stays right.
func TestSeriesGap(t *testing.T) {
	b := NewSeriesBuilder(t0, time.Second)
	for _, sec := range []int{0, 1, 2, 10, 11} {
		at := t0.Add(time.Duration(sec) * time.Second)
		s := sampleAt(at, int64(sec)*1000, map[Counter]int64{CounterInsert: int64(sec) * 50}, map[Gauge]float64{GaugeConnections: 3})
		b.Add(&s)
	}
	s := b.Series()
	if len(s.Points) != 12 {
		t.Fatalf("%d points, want 12", len(s.Points))
	}
	for i := 3; i < 10; i++ {
		if p := s.Points[i]; p.Samples != 0 || p.Counters[CounterInsert].Millis != 0 || p.Gauges[GaugeConnections].N != 0 {
			t.Errorf("point %d in the gap: %+v", i, p)
		}
	}
	if d := s.Points[10].Counters[CounterInsert]; d != (Delta{Count: 400, Millis: 8000}) {
		t.Errorf("delta across the gap %+v", d)
	}
	if r, _ := s.Total(CounterInsert).Rate(); r != 50 {
		t.Errorf("rate %v, want 50", r)
	}
}

// A restart mid-series: the counters' totals are the increase before it
// plus the count since it, the restart is counted, and no rate is
// negative.
func TestSeriesRestart(t *testing.T) {
	type c = map[Counter]int64
	s := buildSeries(time.Second,
		sampleAt(t0, 60_000, c{CounterInsert: 1_000_000}, nil),
		sampleAt(t0.Add(time.Second), 61_000, c{CounterInsert: 1_000_100}, nil),
		sampleAt(t0.Add(2*time.Second), 500, c{CounterInsert: 30}, nil),
		sampleAt(t0.Add(3*time.Second), 1500, c{CounterInsert: 130}, nil),
	)
	if s.Restarts != 1 || len(s.RestartTimes) != 1 || !s.RestartTimes[0].Equal(t0.Add(2*time.Second)) {
		t.Errorf("restarts %d at %v, want 1 seen by the sample at +2 s", s.Restarts, s.RestartTimes)
	}
	if err := s.Validate(); err != nil {
		t.Error(err)
	}
	if got, want := s.Total(CounterInsert), (Delta{Count: 100 + 30 + 100, Millis: 1000 + 500 + 1000}); got != want {
		t.Errorf("total %+v, want %+v", got, want)
	}
	for i, p := range s.Points {
		if r, ok := p.Rate(CounterInsert); ok && (r < 0 || r > 100) {
			t.Errorf("point %d: rate %v", i, r)
		}
	}
}

// Samples before the series' start (clock skew) fall in the first point; a
// sample far in the future widens the series rather than growing it.
func TestSeriesOutOfRangeTimes(t *testing.T) {
	s := buildSeries(time.Second,
		sampleAt(t0.Add(-time.Hour), 1, nil, map[Gauge]float64{GaugeConnections: 1}),
		sampleAt(t0.Add(24*365*time.Hour), 2, nil, map[Gauge]float64{GaugeConnections: 2}),
	)
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if s.Samples() != 2 || s.Points[0].Samples != 1 {
		t.Errorf("series %+v", s)
	}
}

func TestSeriesAbsentAndVersion(t *testing.T) {
	b := NewSeriesBuilder(t0, time.Second)
	if s := b.Series(); s.Absent != nil || len(s.Points) != 0 || s.Version != "" {
		t.Errorf("empty series %+v", s)
	}
	wire := Extract(readDoc(t, "serverstatus-wireserver.json"), t0)
	full := Extract(readDoc(t, "serverstatus-8.2.json"), t0.Add(time.Second))
	b.Add(&wire)
	b.Add(&full)
	s := b.Series()
	// A field is absent only when no sample had it; the version is the
	// last one reported.
	if s.Absent != nil || s.Version != "8.2.1" {
		t.Errorf("absent %q, version %q", s.Absent, s.Version)
	}
	b = NewSeriesBuilder(t0, time.Second)
	b.Add(&wire)
	if s := b.Series(); !reflect.DeepEqual(s.Absent, wire.Absent()) {
		t.Errorf("absent %q, want %q", s.Absent, wire.Absent())
	}
}

// The JSON form names each value, leaves out what has no data, and reads
// back to the same series.
func TestSeriesJSON(t *testing.T) {
	s := buildSeries(time.Second, steadySamples(300, time.Second)...)
	s.Absent = []string{"mem.resident"}
	data, err := json.Marshal(&s)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []string{`"insert":{"count":`, `"connections":{"n":`, `"absent":["mem.resident"]`} {
		if !strings.Contains(text, want) {
			t.Errorf("JSON lacks %s", want)
		}
	}
	for _, absent := range []string{`"cacheBytes"`, `"query"`, `"residentMiB"`} {
		if strings.Contains(text, absent) {
			t.Errorf("JSON has %s, which has no data", absent)
		}
	}
	var back Series
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, s) {
		t.Errorf("round trip changed the series")
	}
	if err := json.Unmarshal([]byte(`{"points":[{"samples":1,"counters":{"inserts":{"count":1,"millis":1}},"gauges":{}}]}`), &back); err == nil ||
		!strings.Contains(err.Error(), `unknown telemetry field "inserts"`) {
		t.Errorf("unknown field: %v", err)
	}
}

func TestSeriesValidate(t *testing.T) {
	ok := Point{Samples: 1, Gauges: GaugeStats{GaugeConnections: {N: 1, Mean: 2, Min: 2, Max: 2}}}
	for _, tt := range []struct {
		name string
		s    Series
		want string
	}{
		{"too many points", Series{IntervalMillis: 1000, Points: make([]Point, results.MaxSeriesPoints+1)}, "at most 120"},
		{"no interval", Series{Points: []Point{ok}}, "must be positive"},
		{"negative count", Series{IntervalMillis: 1000, Points: []Point{{Counters: CounterDeltas{CounterQuery: {Count: -1, Millis: 5}}}}}, "query: negative"},
		{"more values than samples", Series{IntervalMillis: 1000, Points: []Point{{Gauges: ok.Gauges}}}, "connections: 1 values (of 0 samples)"},
		{"more restart times than restarts", Series{Restarts: 1, RestartTimes: []time.Time{t0, t0}}, "2 restart times for 1 restarts"},
		{"restart times out of order", Series{Restarts: 2, RestartTimes: []time.Time{t0, t0.Add(-time.Second)}}, "restart times are out of order at 1"},
		{"mean outside min..max", Series{IntervalMillis: 1000, Points: []Point{{Samples: 1, Gauges: GaugeStats{{N: 1, Mean: 5, Min: 1, Max: 2}}}}}, "mean 5"},
	} {
		err := tt.s.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	if err := (&Series{IntervalMillis: 1000, Points: []Point{ok}}).Validate(); err != nil {
		t.Error(err)
	}
}
