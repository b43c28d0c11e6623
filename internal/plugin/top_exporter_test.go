package plugin

import (
	"bytes"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/mongobench/mongobench/internal/loader/metrics"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/telemetry"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// TestTopReadsTheLoadersExporter: top's parser reads what the loader's own
// exporter (internal/loader/metrics) writes, not only the fake loaders of
// the other tests: identity, plan, counts by result, the classic buckets
// of the latency, loader 0's server figures; and a p99 from two scrapes.
func TestTopReadsTheLoadersExporter(t *testing.T) {
	exp := metrics.New(metrics.Identity{Namespace: "bench", Run: "r", Phase: "a", Loader: 0})
	exp.SetPlan(metrics.Plan{Threads: 4, Operations: 1000, MaxExecution: time.Minute})
	exp.Measuring(time.Unix(1700000000, 0))
	hist := func(us int64, n int) *results.Histogram {
		h := results.NewHistogram()
		for range n {
			h.Record(us)
		}
		return h
	}
	var s telemetry.Sample
	s.Gauges[telemetry.GaugeConnections] = telemetry.Opt[float64]{V: 12, Valid: true}
	s.Gauges[telemetry.GaugeCacheDirtyPercent] = telemetry.Opt[float64]{V: 4, Valid: true}
	exp.ServerSample(telemetry.Process{Pod: "r-mongod-0"}, &s)
	read := func() *scrape { return scrapeExporter(t, exp) }
	exp.Observe(&ycsb.Observation{Ops: []ycsb.ObservedOp{{Op: ycsb.OpRead, OK: hist(100, 100), Failed: hist(5000, 2)}}})
	first := read()
	// The next interval: 100 reads, one in ten slow (about 2 ms).
	exp.Observe(&ycsb.Observation{Ops: []ycsb.ObservedOp{{Op: ycsb.OpRead, OK: hist(2000, 10)}}})
	exp.Observe(&ycsb.Observation{Ops: []ycsb.ObservedOp{{Op: ycsb.OpRead, OK: hist(200, 90)}}})
	second := read()

	if first.loader != "0" || first.phase != "a" || first.threads != 4 || first.planned != 1000 || first.maxExecution != 60 ||
		!first.measuring || first.finished || first.startTime != 1700000000 {
		t.Errorf("identity and plan: %+v", first)
	}
	op := first.ops["READ"]
	if op == nil || op.ok != 100 || op.errors != 2 || len(op.latency) == 0 {
		t.Fatalf("READ: %+v", op)
	}
	srv := first.servers["r-mongod-0"]
	if srv == nil || srv.connections != 12 || !srv.hasDirty || srv.dirtyRatio != 0.04 {
		t.Errorf("server: %+v", srv)
	}
	delta, ok := increaseBuckets(first.ops["READ"].latency, second.ops["READ"].latency)
	if !ok {
		t.Fatal("no bucket increase between the scrapes")
	}
	p99, ok := quantile(0.99, delta)
	// The slow tenth lies in the classic bucket (1 ms, 2.5 ms]: the
	// interpolated p99 is inside it, and nothing of the first scrape's
	// 100 µs reads pulls it down.
	if !ok || p99 <= 0.001 || p99 > 0.0025 {
		t.Errorf("p99 over the second interval %v (ok %v), want within (1 ms, 2.5 ms]", p99, ok)
	}
}

// TestTopShowsAGrowPhase: a Grow phase's loader exports checkpoints, not
// operations; top shows its checkpoints and records, the loader as
// growing (not warming up), and says why there are no operations.
func TestTopShowsAGrowPhase(t *testing.T) {
	exp := metrics.New(metrics.Identity{Namespace: "bench", Run: "r", Phase: "grow", Loader: 0})
	exp.GrowPlanned(10)
	exp.GrowCheckpoint(&results.GrowthCheckpoint{Index: 1, Records: 1_000_000, Insert: results.GrowthInsert{RecordsPerSec: 25_000}})
	exp.GrowCheckpoint(&results.GrowthCheckpoint{Index: 2, Records: 2_000_000, Insert: results.GrowthInsert{RecordsPerSec: 24_000}})
	sc := scrapeExporter(t, exp)
	sc.pod = "r-grow-0-abcde"
	v := newLiveView([]scraped{{cur: sc}}, time.Now())
	if got, want := liveProgress(v), "phase grow (Grow): checkpoint 2 of 10, 2000000 records, 24000 records/s over the last checkpoint's span"; got != want {
		t.Errorf("progress\n%s\nwant\n%s", got, want)
	}
	if len(v.loaderRows) != 1 || v.loaderRows[0].state != "growing" {
		t.Errorf("loader rows %+v, want one growing", v.loaderRows)
	}
}

// scrapeExporter reads the loader's exporter as top reads a loader: its
// text exposition, through top's parser.
func scrapeExporter(t *testing.T, exp *metrics.Exporter) *scrape {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(exp)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	sc, err := parseScrape(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}
