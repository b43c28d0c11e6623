package plugin

import (
	"bytes"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mongobench/mongobench/internal/contract"
)

var inf = math.Inf(+1)

func TestIncreaseAndRate(t *testing.T) {
	for _, tc := range []struct {
		name      string
		prev, cur float64
		d         time.Duration
		increase  float64
		rate      float64
		hasRate   bool
	}{
		{name: "grew", prev: 1000, cur: 4000, d: 2 * time.Second, increase: 3000, rate: 1500, hasRate: true},
		{name: "idle: a rate of zero, not no data", prev: 7, cur: 7, d: time.Second, increase: 0, rate: 0, hasRate: true},
		{name: "went down: a restart, counted from zero", prev: 5000, cur: 300, d: 2 * time.Second, increase: 300, rate: 150, hasRate: true},
		{name: "no time between the scrapes: no rate", prev: 1, cur: 2, d: 0, increase: 1},
		{name: "time went backwards: no rate", prev: 1, cur: 2, d: -time.Second, increase: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := increase(tc.prev, tc.cur); got != tc.increase {
				t.Errorf("increase = %v, want %v", got, tc.increase)
			}
			r, ok := rateOver(tc.prev, tc.cur, tc.d)
			if ok != tc.hasRate || r != tc.rate {
				t.Errorf("rateOver = %v, %t; want %v, %t", r, ok, tc.rate, tc.hasRate)
			}
		})
	}
}

func TestIncreaseBuckets(t *testing.T) {
	for _, tc := range []struct {
		name      string
		prev, cur buckets
		want      buckets
		ok        bool
	}{
		{
			name: "the observations between the scrapes",
			prev: buckets{{0.001, 10}, {0.01, 20}, {inf, 21}},
			cur:  buckets{{0.001, 110}, {0.01, 125}, {inf, 130}},
			want: buckets{{0.001, 100}, {0.01, 105}, {inf, 109}}, ok: true,
		},
		{
			name: "a count went down: reset, cur holds only new observations",
			prev: buckets{{0.001, 500}, {inf, 600}},
			cur:  buckets{{0.001, 5}, {inf, 6}},
			want: buckets{{0.001, 5}, {inf, 6}}, ok: true,
		},
		{
			name: "no previous buckets: the series appeared since, from zero",
			cur:  buckets{{0.001, 3}, {inf, 4}},
			want: buckets{{0.001, 3}, {inf, 4}}, ok: true,
		},
		{
			name: "different layouts",
			prev: buckets{{0.001, 1}, {inf, 1}},
			cur:  buckets{{0.002, 2}, {inf, 2}},
		},
		{
			name: "different numbers of buckets",
			prev: buckets{{0.001, 1}, {inf, 1}},
			cur:  buckets{{0.001, 1}, {0.01, 2}, {inf, 2}},
		},
		{
			name: "no buckets now (a native-only histogram)",
			prev: buckets{{0.001, 1}, {inf, 1}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := increaseBuckets(tc.prev, tc.cur)
			if ok != tc.ok || !equalBuckets(got, tc.want) {
				t.Errorf("increaseBuckets = %v, %t; want %v, %t", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestAddBuckets(t *testing.T) {
	a, ok := addBuckets(nil, buckets{{0.001, 1}, {inf, 2}})
	if !ok || !equalBuckets(a, buckets{{0.001, 1}, {inf, 2}}) {
		t.Fatalf("nil + b = %v, %t", a, ok)
	}
	a, ok = addBuckets(a, buckets{{0.001, 10}, {inf, 20}})
	if !ok || !equalBuckets(a, buckets{{0.001, 11}, {inf, 22}}) {
		t.Errorf("a + b = %v, %t", a, ok)
	}
	if _, ok := addBuckets(a, buckets{{0.002, 1}, {inf, 1}}); ok {
		t.Error("different layouts added up")
	}
}

// The quantile is PromQL's histogram_quantile() of classic buckets:
// linear within the bucket where the rank falls.
func TestQuantile(t *testing.T) {
	for _, tc := range []struct {
		name string
		q    float64
		b    buckets
		want float64
		ok   bool
	}{
		{
			name: "first bucket: from 0 to its bound",
			q:    0.99, b: buckets{{0.001, 100}, {0.01, 100}, {inf, 100}},
			want: 0.00099, ok: true,
		},
		{
			// 50% at ≤1 ms, 50% in (1, 2.5] ms: rank 99 of 100 is 49/50
			// of the way through the second bucket.
			name: "interpolated within its bucket",
			q:    0.99, b: buckets{{0.001, 50}, {0.0025, 100}, {inf, 100}},
			want: 0.001 + 0.0015*49.0/50, ok: true,
		},
		{
			name: "exactly at a bucket's count: its upper bound",
			q:    0.99, b: buckets{{0.00025, 0}, {0.0005, 1980}, {0.005, 2000}, {inf, 2000}},
			want: 0.0005, ok: true,
		},
		{
			name: "in the +Inf bucket: the highest finite bound",
			q:    0.99, b: buckets{{0.001, 10}, {0.01, 50}, {inf, 100}},
			want: 0.01, ok: true,
		},
		{
			name: "a first bucket bounded at or below zero: its bound",
			q:    0.5, b: buckets{{0, 10}, {1, 20}, {inf, 20}},
			want: 0, ok: true,
		},
		{name: "no observations", q: 0.99, b: buckets{{0.001, 0}, {inf, 0}}},
		{name: "no +Inf bucket", q: 0.99, b: buckets{{0.001, 5}, {0.01, 9}}},
		{name: "a single bucket", q: 0.99, b: buckets{{inf, 9}}},
		{name: "none", q: 0.99},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := quantile(tc.q, tc.b)
			if ok != tc.ok || math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("quantile(%v) = %v, %t; want %v, %t", tc.q, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// The p99 of the last interval is of its calls alone: 10,000 slow calls
// before it weigh nothing once they are subtracted.
func TestP99OfTheIntervalFromBucketDifferences(t *testing.T) {
	prev := buckets{{0.001, 0}, {0.01, 0}, {0.1, 10000}, {inf, 10000}}
	cur := buckets{{0.001, 1000}, {0.01, 1000}, {0.1, 11000}, {inf, 11000}}
	since, _ := quantile(0.99, cur)
	if since < 0.01 {
		t.Fatalf("cumulative p99 %v: the fixture should be dominated by slow calls", since)
	}
	d, ok := increaseBuckets(prev, cur)
	if !ok {
		t.Fatal("no increase")
	}
	got, ok := quantile(0.99, d)
	if !ok || math.Abs(got-0.00099) > 1e-12 {
		t.Errorf("p99 over the interval = %v, %t; want 0.00099", got, ok)
	}
}

func equalBuckets(a, b buckets) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// parseScrape reads what client_golang serves for top's Accept header:
// promhttp answers in the text format, whose classic buckets of a
// native histogram end in +Inf.
func TestParseScrapeOfARealExposition(t *testing.T) {
	reg := prometheus.NewRegistry()
	id := prometheus.Labels{contract.MetricLabelNamespace: "bench", contract.MetricLabelRun: "demo",
		contract.MetricLabelPhase: "run", contract.MetricLabelLoader: "0"}
	ops := prometheus.NewCounterVec(prometheus.CounterOpts{Name: contract.MetricLoaderOperations, Help: "h", ConstLabels: id},
		[]string{contract.MetricLabelOperation, contract.MetricLabelResult})
	lat := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: contract.MetricLoaderLatency, Help: "h", ConstLabels: id,
		Buckets: []float64{0.001, 0.01}, NativeHistogramBucketFactor: 1.1}, []string{contract.MetricLabelOperation, contract.MetricLabelResult})
	conn := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: contract.MetricServerConnections, Help: "h", ConstLabels: id},
		[]string{contract.MetricLabelProcess})
	dirty := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: contract.MetricServerCacheDirty, Help: "h", ConstLabels: id},
		[]string{contract.MetricLabelProcess})
	srvOps := prometheus.NewCounterVec(prometheus.CounterOpts{Name: contract.MetricServerOperations, Help: "h", ConstLabels: id},
		[]string{contract.MetricLabelProcess, contract.MetricLabelType})
	gauges := map[string]float64{contract.MetricLoaderThreads: 8, contract.MetricLoaderPlannedOperations: 50000,
		contract.MetricLoaderMaxExecution: 600, contract.MetricLoaderStartTime: 1777716000, contract.MetricLoaderMeasuring: 1,
		contract.MetricLoaderFinished: 0}
	for name, v := range gauges {
		g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: "h", ConstLabels: id})
		g.Set(v)
		reg.MustRegister(g)
	}
	reg.MustRegister(ops, lat, conn, dirty, srvOps)
	ops.WithLabelValues("READ", contract.ResultOK).Add(100)
	ops.WithLabelValues("READ", contract.ResultError).Add(3)
	for _, v := range []float64{0.0005, 0.005, 0.05} {
		lat.WithLabelValues("READ", contract.ResultOK).Observe(v)
	}
	lat.WithLabelValues("READ", contract.ResultError).Observe(1)
	conn.WithLabelValues("demo-mongod-0").Set(17)
	dirty.WithLabelValues("demo-mongod-0").Set(0.025)
	srvOps.WithLabelValues("demo-mongod-0", "query").Add(1234)

	req := httptest.NewRequest(http.MethodGet, contract.MetricsPath, nil)
	req.Header.Set("Accept", metricsAccept)
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, req)
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("promhttp answered %q to Accept %q", ct, metricsAccept)
	}
	s, err := parseScrape(bytes.NewReader(rec.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if s.loader != "0" || s.phase != "run" || s.threads != 8 || s.planned != 50000 || s.maxExecution != 600 ||
		s.startTime != 1777716000 || !s.measuring || s.finished {
		t.Errorf("loader figures: %+v", s)
	}
	read := s.ops["READ"]
	if read == nil || read.ok != 100 || read.errors != 3 {
		t.Fatalf("READ: %+v", read)
	}
	if want := (buckets{{0.001, 1}, {0.01, 2}, {inf, 3}}); !equalBuckets(read.latency, want) {
		t.Errorf("READ's ok latency buckets %v, want %v (the error one's are not in them)", read.latency, want)
	}
	sv := s.servers["demo-mongod-0"]
	if sv == nil || !sv.hasConnections || sv.connections != 17 || !sv.hasDirty || sv.dirtyRatio != 0.025 || sv.ops["query"] != 1234 {
		t.Errorf("server: %+v", sv)
	}
	if _, err := parseScrape(strings.NewReader("not an exposition {")); err == nil {
		t.Error("garbage parsed")
	}
}

func TestNewLiveView(t *testing.T) {
	t0 := time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)
	at := func(s *scrape, ts time.Time) *scrape { s.at = ts; return s }
	loader := func(idx string, readOK float64, lat buckets, state string) *scrape {
		s := &scrape{loader: idx, pod: "p" + idx, phase: "run", threads: 4, planned: 1000,
			ops: map[string]*opScrape{"READ": {ok: readOK, latency: lat}}}
		switch state {
		case "measuring":
			s.measuring, s.startTime = true, float64(t0.Add(-10*time.Second).Unix())
		case "finished":
			s.measuring, s.finished, s.startTime = true, true, float64(t0.Add(-20*time.Second).Unix())
		}
		return s
	}
	lat := func(fast, slow float64) buckets {
		return buckets{{0.001, fast}, {0.01, fast + slow}, {inf, fast + slow}}
	}
	v := newLiveView([]scraped{
		{prev: at(loader("2", 0, lat(0, 0), "measuring"), t0), cur: at(loader("2", 1400, lat(1400, 0), "measuring"), t0.Add(2*time.Second))},
		{prev: at(loader("0", 0, lat(0, 0), "measuring"), t0), cur: at(loader("0", 2000, lat(1980, 20), "measuring"), t0.Add(2*time.Second))},
		{prev: at(loader("1", 0, lat(0, 0), "measuring"), t0), cur: at(loader("1", 2000, lat(2000, 0), "measuring"), t0.Add(2*time.Second))},
		{prev: at(loader("3", 500, lat(500, 0), "finished"), t0), cur: at(loader("3", 500, lat(500, 0), "finished"), t0.Add(2*time.Second))},
		{cur: at(loader("4", 100, lat(100, 0), "warm-up"), t0.Add(2*time.Second))},
	}, t0.Add(2*time.Second))
	var rows []string
	for _, l := range v.loaderRows {
		row := fmt.Sprintf("%s:%s:%s:%g", l.index, perSecond(l.rate, l.hasRate), l.state, l.ofMedian)
		if l.lagging {
			row += ":LAGGING"
		}
		rows = append(rows, row)
	}
	// Rates 1000, 1000 and 700 of the running loaders: median 1000, the
	// third is at 70%; the finished one and the one without a previous
	// scrape are not compared.
	want := "0:1000.00:measuring:1|1:1000.00:measuring:1|2:700.00:measuring:0.7:LAGGING|3:0.00:finished:0|4:-:warm-up:0"
	if got := strings.Join(rows, "|"); got != want {
		t.Errorf("loaders\n got %s\nwant %s", got, want)
	}
	if v.loaders != 5 || v.measuring != 4 || v.finished != 1 || v.planned != 5000 || v.operations != 6000 {
		t.Errorf("counts: %+v", v)
	}
	if !v.hasElapsed || v.elapsed != 22*time.Second || v.over != 2*time.Second {
		t.Errorf("elapsed %s (%t), over %s", v.elapsed, v.hasElapsed, v.over)
	}
	if len(v.ops) != 1 {
		t.Fatalf("ops: %+v", v.ops)
	}
	// 2700 ops/s over loaders 0-2 (the warm-up loader has no rate yet);
	// the p99 is of their 5400 calls of the interval, 20 of them slow:
	// rank 5346 falls at 5346/5380 of the first bucket.
	read := v.ops[0]
	if !read.hasRate || read.rate != 2700 || !read.hasP99 || math.Abs(read.p99-0.001*5346/5380) > 1e-12 {
		t.Errorf("READ: %+v", read)
	}
}

func TestFrameWriter(t *testing.T) {
	var b bytes.Buffer
	w := &frameWriter{out: &b}
	w.write("a\n")
	w.write("b\n")
	if got := b.String(); got != "a\n\nb\n" {
		t.Errorf("not a terminal: %q", got)
	}
	b.Reset()
	w = &frameWriter{out: &b, tty: true}
	w.write("a\n")
	w.write("b\n")
	if got := b.String(); got != clearScreen+"a\n"+clearScreen+"b\n" {
		t.Errorf("terminal: %q", got)
	}
	if isTerminal(&b) {
		t.Error("a buffer is a terminal")
	}
	r, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close(); _ = pw.Close() }()
	if isTerminal(pw) {
		t.Error("a pipe is a terminal")
	}
}

// TestCountersSpanUsesTheObservations: two scrapes 2.2 s apart that hold
// three of the exporter's once-a-second steps give the rate over the
// steps' 3 s, not over 2.2 s (which would read 36% high); without the
// observation times the scrapes' own serve.
func TestCountersSpanUsesTheObservations(t *testing.T) {
	t0 := time.Unix(1700000000, 0)
	prev := &scrape{at: t0, observedAt: 1699999999.95}
	cur := &scrape{at: t0.Add(2200 * time.Millisecond), observedAt: 1700000002.95}
	if got := countersSpan(prev, cur); got != 3*time.Second {
		t.Errorf("span %v, want 3s", got)
	}
	prev.observedAt = 0
	if got := countersSpan(prev, cur); got != 2200*time.Millisecond {
		t.Errorf("span without observation times %v, want 2.2s", got)
	}
}
