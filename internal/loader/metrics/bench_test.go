package metrics

import (
	"io"
	"math"
	"math/rand/v2"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// intervalOf is one second of a busy loader's measurements: n operations
// per kind, latencies spread log-uniformly from 50 µs to 50 ms (a wide
// spread: the histograms' walk grows with the range, not the count).
func intervalOf(n int, seed uint64) *ycsb.Observation {
	r := rand.New(rand.NewPCG(seed, 1))
	hist := func() *results.Histogram {
		h := results.NewHistogram()
		for range n {
			h.Record(int64(50 * math.Exp2(r.Float64()*10)))
		}
		return h
	}
	return &ycsb.Observation{Ops: []ycsb.ObservedOp{
		{Op: ycsb.OpRead, OK: hist(), IntendedOK: hist()},
		{Op: ycsb.OpUpdate, OK: hist(), IntendedOK: hist()},
	}}
}

// BenchmarkObserve is the exporter's cost per second of a phase: merging
// one collection of two operations with intended latencies (four
// histograms). Divided by a second's operations it is the per-operation
// cost of exporting; nothing is paid per operation itself.
func BenchmarkObserve(b *testing.B) {
	e := New(Identity{Run: "r", Phase: "a"})
	o := intervalOf(20000, 1)
	b.ReportAllocs()
	for b.Loop() {
		e.Observe(o)
	}
}

// BenchmarkScrape is one scrape of a loader that has measured for a while
// (cumulative histograms of many seconds, the server figures of four
// processes): Gather, conversion and the text encoding, as promhttp serves
// it. Prometheus' default is one every 15 s.
func BenchmarkScrape(b *testing.B) {
	e := fullExporter()
	for i := range 60 {
		e.Observe(intervalOf(2000, uint64(i)))
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(e)
	h := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	req := httptest.NewRequest("GET", "/metrics", nil)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		_, _ = io.Copy(io.Discard, w.Body)
	}
}
