package results

import (
	"bytes"
	"compress/gzip"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// sample draws a latency from a wide, skewed distribution so histograms
// have many distinct buckets, like real ones.
func sample(rng *rand.Rand) int64 {
	return int64(50 + rng.ExpFloat64()*800 + float64(rng.IntN(100))*rng.Float64()*rng.Float64()*1000)
}

type op struct {
	name   string
	status string
	us     int64
}

// buildResult records ops into a Result the way a loader does.
func buildResult(t *testing.T, index, count int, start time.Time, ops []op) *Result {
	t.Helper()
	r := &Result{Version: FormatVersion, Kind: KindRun, Loader: Identity{Index: index, Count: count, Threads: 4},
		Start: start, End: start.Add(10 * time.Second), RuntimeMillis: 10_000, StopReason: StopCompleted}
	sb := NewSeriesBuilder(time.Second)
	perSecond := len(ops)/10 + 1
	pt := Point{Millis: 1000}
	for i, o := range ops {
		r.Operations++
		res := r.Op(o.name)
		if res == nil {
			r.Ops = append(r.Ops, OpResult{Name: o.name, Statuses: map[string]int64{}})
			res = &r.Ops[len(r.Ops)-1]
		}
		res.Statuses[o.status]++
		po := pt.Op(o.name)
		if po == nil {
			pt.Ops = append(pt.Ops, PointOp{Name: o.name, Latency: NewSeriesHistogram()})
			po = &pt.Ops[len(pt.Ops)-1]
		}
		po.Count++
		if o.status == "OK" {
			if res.Latency == nil {
				res.Latency = NewHistogram()
			}
			res.Latency.Record(o.us)
			po.Latency.Record(o.us)
		} else {
			if res.Failed == nil {
				res.Failed = NewHistogram()
			}
			res.Failed.Record(o.us)
		}
		if (i+1)%perSecond == 0 {
			sb.Add(pt)
			pt = Point{Millis: 1000}
		}
	}
	if len(pt.Ops) > 0 {
		pt.Millis = 500
		sb.Add(pt)
	}
	r.Series = sb.Series()
	sortOps(r.Ops, func(o OpResult) string { return o.Name })
	if err := r.Validate(); err != nil {
		t.Fatalf("test result invalid: %v", err)
	}
	return r
}

func randomOps(rng *rand.Rand, n int) []op {
	names := []string{"READ", "UPDATE", "INSERT"}
	out := make([]op, n)
	for i := range out {
		st := "OK"
		if rng.IntN(100) == 0 {
			st = "ERROR"
		} else if rng.IntN(200) == 0 {
			st = "NOT_FOUND"
		}
		out[i] = op{name: names[rng.IntN(len(names))], status: st, us: sample(rng)}
	}
	return out
}

// TestMergeIsExact proves the property the controller relies on: merging
// the results of n loaders gives exactly the statistics of one histogram
// that recorded every operation.
func TestMergeIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	start := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	all := randomOps(rng, 30_000)
	// Uneven split over 3 loaders.
	parts := [][]op{all[:5_000], all[5_000:17_000], all[17_000:]}
	var rs []*Result
	for i, p := range parts {
		rs = append(rs, buildResult(t, i, 3, start.Add(time.Duration(i)*100*time.Millisecond), p))
	}
	single := buildResult(t, 0, 1, start, all)

	// Encode/decode on the way, as the transport does.
	for i, r := range rs {
		b, err := Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		if rs[i], err = Decode(b); err != nil {
			t.Fatal(err)
		}
	}
	// Input order must not matter.
	rs[0], rs[2] = rs[2], rs[0]
	merged, err := Merge(rs)
	if err != nil {
		t.Fatal(err)
	}
	if merged.Operations != single.Operations {
		t.Errorf("operations %d, want %d", merged.Operations, single.Operations)
	}
	for _, want := range single.Ops {
		got := merged.Op(want.Name)
		if got == nil {
			t.Fatalf("merged result lacks %s", want.Name)
		}
		if !got.Latency.Equal(want.Latency) || !got.Failed.Equal(want.Failed) {
			t.Errorf("%s: merged histograms differ from the single histogram", want.Name)
		}
		if gs, ws := got.Latency.Stats(), want.Latency.Stats(); gs != ws {
			t.Errorf("%s: merged stats %+v, want %+v", want.Name, gs, ws)
		}
		for s, n := range want.Statuses {
			if got.Statuses[s] != n {
				t.Errorf("%s %s: %d, want %d", want.Name, s, got.Statuses[s], n)
			}
		}
	}
	if !merged.CombinedLatency().Equal(single.CombinedLatency()) {
		t.Error("combined latency differs")
	}
	// Wall time: first start to last end.
	if want := int64(10_200); merged.RuntimeMillis != want {
		t.Errorf("runtime %d ms, want %d", merged.RuntimeMillis, want)
	}
	if merged.Loader.Threads != 12 || merged.Loader.Count != 3 {
		t.Errorf("merged identity %+v", merged.Loader)
	}
	// Series: counts add up per op.
	var seriesTotal int64
	for _, p := range merged.Series.Points {
		seriesTotal += p.Count()
	}
	if seriesTotal != int64(len(all)) {
		t.Errorf("series holds %d ops, want %d", seriesTotal, len(all))
	}
}

func TestMergeRejectsInconsistentSets(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	start := time.Now()
	r0 := buildResult(t, 0, 2, start, randomOps(rng, 100))
	r1 := buildResult(t, 1, 2, start, randomOps(rng, 100))
	load := buildResult(t, 1, 2, start, randomOps(rng, 100))
	load.Kind = KindLoad
	cases := map[string]struct {
		in   []*Result
		want string
	}{
		"missing loader":   {[]*Result{r0}, "have 1 results for 2 loaders"},
		"duplicate loader": {[]*Result{r0, r0}, "two results from loader 0"},
		"mixed kinds":      {[]*Result{r0, load}, "cannot merge"},
		"empty":            {nil, "no results"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Merge(c.in)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
	if _, err := Merge([]*Result{r1, r0}); err != nil {
		t.Fatalf("valid set rejected: %v", err)
	}
}

func TestDecodeRejectsBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	good, err := Encode(buildResult(t, 0, 1, time.Now(), randomOps(rng, 2000)))
	if err != nil {
		t.Fatal(err)
	}
	gz := func(s string) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		_, _ = w.Write([]byte(s))
		_ = w.Close()
		return buf.Bytes()
	}
	valid := `{"version":1,"kind":"run","loader":{"index":0,"count":1,"threads":1},"start":"2026-01-01T00:00:00Z","end":"2026-01-01T00:00:01Z","runtimeMillis":1000,"operations":1,"plannedOperations":1,"stopReason":"Completed","ops":[%s],"series":{"intervalMillis":1000,"points":[]}}`
	cases := map[string]struct {
		in   []byte
		want string
	}{
		"empty":           {nil, "not gzip"},
		"not gzip":        {[]byte("{}"), "not gzip"},
		"truncated":       {good[:len(good)/2], "truncated"},
		"not json":        {gz("hello"), "parse result"},
		"unknown field":   {gz(`{"version":1,"bogus":2}`), "unknown field"},
		"wrong version":   {gz(`{"version":7}`), "format version 7"},
		"bad histogram":   {gz(strings.Replace(valid, "%s", `{"name":"READ","statuses":{"OK":1},"latency":"SElTVA=="}`, 1)), "histogram"},
		"count mismatch":  {gz(strings.Replace(valid, "%s", `{"name":"READ","statuses":{"OK":5}}`, 1)), "holds 0 samples but 5"},
		"bad stop reason": {gz(strings.Replace(strings.Replace(valid, "%s", "", 1), "Completed", "Maybe", 1)), "stop reason"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Decode(c.in)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
	if _, err := Decode(gz(strings.Replace(valid, "%s", "", 1))); err != nil {
		t.Fatalf("valid minimal result rejected: %v", err)
	}
}

func TestSeriesBuilderBoundsPoints(t *testing.T) {
	for _, seconds := range []int{1, 119, 120, 121, 240, 241, 1000, 36_000} {
		sb := NewSeriesBuilder(time.Second)
		for i := 0; i < seconds; i++ {
			h := NewSeriesHistogram()
			h.Record(int64(100 + i%7))
			sb.Add(Point{Millis: 1000, Ops: []PointOp{{Name: "READ", Count: 3, Latency: h}}})
		}
		s := sb.Series()
		if err := s.Validate(); err != nil {
			t.Fatalf("%d s: %v", seconds, err)
		}
		var ops, millis, samples int64
		for _, p := range s.Points {
			ops += p.Count()
			millis += p.Millis
			samples += p.Op("READ").Latency.Count()
		}
		if ops != int64(3*seconds) || millis != int64(1000*seconds) || samples != int64(seconds) {
			t.Errorf("%d s: ops %d, millis %d, samples %d", seconds, ops, millis, samples)
		}
		if len(s.Points) > MaxSeriesPoints {
			t.Errorf("%d s: %d points", seconds, len(s.Points))
		}
		// The interval is the smallest power-of-two multiple of the base that
		// fits the run.
		want := int64(1000)
		for int64(seconds)*1000 > want*MaxSeriesPoints {
			want *= 2
		}
		if s.IntervalMillis != want {
			t.Errorf("%d s: interval %d ms, want %d", seconds, s.IntervalMillis, want)
		}
	}
}

func TestMergeSeriesAlignsIntervals(t *testing.T) {
	mk := func(interval int64, counts ...int64) Series {
		s := Series{IntervalMillis: interval}
		for _, c := range counts {
			s.Points = append(s.Points, Point{Millis: interval, Ops: []PointOp{{Name: "READ", Count: c}}})
		}
		return s
	}
	got, err := mergeSeries([]Series{mk(1000, 1, 2, 3, 4, 5), mk(2000, 10, 20)})
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{13, 27, 5}
	if got.IntervalMillis != 2000 || len(got.Points) != len(want) {
		t.Fatalf("merged %+v", got)
	}
	for i, w := range want {
		if c := got.Points[i].Count(); c != w {
			t.Errorf("point %d: %d ops, want %d", i, c, w)
		}
	}
	if tp := got.Points[0].Throughput(); tp != 6.5 {
		t.Errorf("throughput %v, want 6.5", tp)
	}
	if _, err := mergeSeries([]Series{mk(1000, 1), mk(1500, 1)}); err == nil {
		t.Error("unalignable intervals accepted")
	}
}

// TestEncodedSizeIsBounded fills every part of a result to its worst
// realistic shape and checks the documented bound.
func TestEncodedSizeIsBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	r := &Result{Version: FormatVersion, Kind: KindRun, Loader: Identity{Count: 1, Threads: 64}, Start: time.Now(), End: time.Now(), RuntimeMillis: 1, StopReason: StopCompleted}
	wide := func(h *Histogram, n int) *Histogram {
		for i := 0; i < n; i++ {
			h.Record(int64(rng.ExpFloat64() * 20_000))
		}
		return h
	}
	sb := NewSeriesBuilder(time.Second)
	for s := 0; s < MaxSeriesPoints; s++ {
		var p Point
		p.Millis = 1000
		for _, name := range []string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE"} {
			p.Ops = append(p.Ops, PointOp{Name: name, Count: 5000, Latency: wide(NewSeriesHistogram(), 5000)})
		}
		sb.Add(p)
	}
	r.Series = sb.Series()
	for _, name := range OperationOrder {
		r.Ops = append(r.Ops, OpResult{Name: name, Statuses: map[string]int64{"OK": 200_000, "ERROR": 50_000},
			Latency: wide(NewHistogram(), 200_000), Failed: wide(NewHistogram(), 50_000)})
	}
	b, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("worst-case result: %d bytes, %d series points", len(b), MaxSeriesPoints)
	if len(b) > MaxEncodedBytes {
		t.Fatalf("encoded %d bytes > %d", len(b), MaxEncodedBytes)
	}
	if _, err := Decode(b); err != nil {
		t.Fatal(err)
	}
}

// TestMergedEncodedSize measures the merged result of a phase as the
// controller keeps it (Encode of a Merge, one ConfigMap per phase): five
// operations with wide latency spreads (exponential, mean 20 ms; 5% of
// them failed) and a 120-point series, each point with 2,000 operations
// of each type per loader. Merged histograms hold more distinct values
// than one loader's, so the full form grows with the loaders; Encode keeps
// it within MaxEncodedBytes by coarsening the series, never the operation
// histograms, which DecodeMerged returns exactly as merged.
func TestMergedEncodedSize(t *testing.T) {
	names := []string{OpRead, OpUpdate, OpInsert, OpScan, OpReadModifyWrite}
	for _, tc := range []struct {
		loaders int
		// fullMax bounds the full form (GzipJSON of the merge, 120
		// points): measured 338, 522 and 809 KiB; Encode keeps 338 KiB
		// (120 points), 351 KiB (60) and 348 KiB (30).
		fullMax int
	}{
		{1, 360 << 10},
		{4, 560 << 10},
		{16, 860 << 10},
	} {
		rng := rand.New(rand.NewPCG(7, 8))
		wide := func(h *Histogram, n int) *Histogram {
			for i := 0; i < n; i++ {
				h.Record(int64(rng.ExpFloat64() * 20_000))
			}
			return h
		}
		start := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
		var rs []*Result
		for l := 0; l < tc.loaders; l++ {
			r := &Result{Version: FormatVersion, Kind: KindRun, Loader: Identity{Index: l, Count: tc.loaders, Threads: 64},
				Start: start, End: start.Add(2 * time.Minute), RuntimeMillis: 120_000, StopReason: StopCompleted}
			sb := NewSeriesBuilder(time.Second)
			for s := 0; s < MaxSeriesPoints; s++ {
				p := Point{Millis: 1000}
				for _, name := range names {
					p.Ops = append(p.Ops, PointOp{Name: name, Count: 2000, Latency: wide(NewSeriesHistogram(), 2000)})
				}
				sb.Add(p)
			}
			r.Series = sb.Series()
			for _, name := range names {
				r.Ops = append(r.Ops, OpResult{Name: name, Statuses: map[string]int64{"OK": 228_000, "ERROR": 12_000},
					Latency: wide(NewHistogram(), 228_000), Failed: wide(NewHistogram(), 12_000)})
				r.Operations += 240_000
			}
			rs = append(rs, r)
		}
		merged, err := Merge(rs)
		if err != nil {
			t.Fatal(err)
		}
		full, err := GzipJSON(merged, "result")
		if err != nil {
			t.Fatal(err)
		}
		b, err := Encode(merged)
		if err != nil {
			t.Fatalf("%d loaders: %v", tc.loaders, err)
		}
		got, err := DecodeMerged(b)
		if err != nil {
			t.Fatalf("%d loaders: %v", tc.loaders, err)
		}
		t.Logf("%d loader(s): full %d bytes (%.0f KiB, %d points), kept %d bytes (%.0f KiB, %d points)", tc.loaders,
			len(full), float64(len(full))/1024, len(merged.Series.Points), len(b), float64(len(b))/1024, len(got.Series.Points))
		if len(full) > tc.fullMax {
			t.Errorf("%d loaders: the full merged result is %d bytes, more than the %d measured", tc.loaders, len(full), tc.fullMax)
		}
		if len(b) > MaxEncodedBytes {
			t.Errorf("%d loaders: kept %d bytes, more than %d", tc.loaders, len(b), MaxEncodedBytes)
		}
		if len(full) <= MaxEncodedBytes && len(got.Series.Points) != len(merged.Series.Points) {
			t.Errorf("%d loaders: series coarsened to %d points though the full form fits", tc.loaders, len(got.Series.Points))
		}
		for i := range merged.Ops {
			w, g := &merged.Ops[i], got.Op(merged.Ops[i].Name)
			if g == nil || !g.Latency.Equal(w.Latency) || !g.Failed.Equal(w.Failed) || g.Total() != w.Total() {
				t.Errorf("%d loaders: %s's histograms differ from the merge", tc.loaders, w.Name)
			}
		}
	}
}

// TestDecodeMergedRefusesALoadersResult: loader 1's result is not a merge,
// and DecodeMerged fails like Decode on bad input.
func TestDecodeMergedRefusesALoadersResult(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	b, err := Encode(buildResult(t, 1, 2, time.Now(), randomOps(rng, 500)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeMerged(b); err == nil || !strings.Contains(err.Error(), "loader index 1, want 0") {
		t.Errorf("loader 1's result: error %v", err)
	}
	if _, err := DecodeMerged(b[:len(b)/2]); err == nil || !strings.Contains(err.Error(), "decode merged result: result is truncated") {
		t.Errorf("truncated: error %v", err)
	}
}

func TestHistogramClampsAndDoesNotAllocate(t *testing.T) {
	h := NewHistogram()
	h.Record(-5)
	h.Record(HighestMicros * 10)
	if h.Count() != 2 || h.Stats().Max < HighestMicros {
		t.Fatalf("clamping lost samples: %+v", h.Stats())
	}
	if a := testing.AllocsPerRun(1000, func() { h.Record(1234) }); a != 0 {
		t.Fatalf("Record allocates %v per call", a)
	}
}

// TestPercentileRule pins Java HdrHistogram's rank rule (what YCSB prints):
// rank = max(1, ceil(p/100 · count)), value = highest equivalent value.
func TestPercentileRule(t *testing.T) {
	h := NewHistogram()
	for _, v := range []int64{100, 200} {
		h.Record(v)
	}
	if got := h.Percentile(1); got != 100 {
		t.Errorf("p1 of {100,200} = %d, want 100", got)
	}
	if got := h.Percentile(50); got != 100 {
		t.Errorf("p50 of {100,200} = %d, want 100", got)
	}
	if got := h.Percentile(51); got != 200 {
		t.Errorf("p51 of {100,200} = %d, want 200", got)
	}
	h = NewHistogram()
	for v := int64(1); v <= 13; v++ {
		h.Record(v * 10)
	}
	// ceil(0.95·13) = 13 → the largest sample.
	if got := h.Percentile(95); got != 130 {
		t.Errorf("p95 of 13 samples = %d, want 130", got)
	}
	// Values above 2048 µs share buckets: the highest equivalent value is
	// reported, as in Java.
	h = NewHistogram()
	h.Record(10_000)
	if got := h.Percentile(99); got != 10_007 {
		t.Errorf("p99 of {10000} = %d, want 10007", got)
	}
	if NewHistogram().Percentile(99) != 0 {
		t.Error("empty histogram")
	}
}
