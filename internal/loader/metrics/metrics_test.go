package metrics

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/telemetry"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// TestHistogramMatchesClientGolang: an HdrHistogram converted at scrape
// time is the histogram client_golang itself would have built from the
// same observations, with native buckets of schema 3 (bucket factor 1.1)
// and our classic buckets: same count, same classic cumulative counts, same
// native spans and deltas, and the same sum. The values are below 2048 µs,
// where HdrHistogram's 3 significant digits hold every microsecond exactly,
// plus zero, a value on a classic bound and one above the last bound.
func TestHistogramMatchesClientGolang(t *testing.T) {
	values := []int64{0, 1, 7, 99, 100, 101, 250, 251, 333, 333, 512, 1000, 1001, 1500, 2047}
	hdr := results.NewHistogram()
	ref := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "ref", Help: "ref", Buckets: classicBounds, NativeHistogramBucketFactor: 1.1,
		NativeHistogramZeroThreshold: prometheus.DefNativeHistogramZeroThreshold,
	})
	for _, v := range values {
		hdr.Record(v)
		ref.Observe(float64(v) / microsPerSecond)
	}
	desc := prometheus.NewDesc("x", "x", nil, nil)
	m, err := histogramMetric(desc, hdr, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	var got, want dto.Metric
	if err := m.Write(&got); err != nil {
		t.Fatal(err)
	}
	if err := ref.Write(&want); err != nil {
		t.Fatal(err)
	}
	g, w := got.Histogram, want.Histogram
	if g.GetSampleCount() != w.GetSampleCount() || math.Abs(g.GetSampleSum()-w.GetSampleSum()) > 1e-12 {
		t.Errorf("count %d sum %g, client_golang %d %g", g.GetSampleCount(), g.GetSampleSum(), w.GetSampleCount(), w.GetSampleSum())
	}
	if g.GetSchema() != w.GetSchema() || g.GetZeroCount() != w.GetZeroCount() || g.GetZeroThreshold() != w.GetZeroThreshold() {
		t.Errorf("schema %d zero %d (threshold %g), client_golang %d %d (%g)", g.GetSchema(), g.GetZeroCount(), g.GetZeroThreshold(),
			w.GetSchema(), w.GetZeroCount(), w.GetZeroThreshold())
	}
	if gs, ws := spans(g.PositiveSpan), spans(w.PositiveSpan); gs != ws {
		t.Errorf("positive spans %s, client_golang %s", gs, ws)
	}
	if !equalInts(g.PositiveDelta, w.PositiveDelta) {
		t.Errorf("positive deltas %v, client_golang %v", g.PositiveDelta, w.PositiveDelta)
	}
	if len(g.Bucket) != len(w.Bucket) {
		t.Fatalf("%d classic buckets, client_golang %d", len(g.Bucket), len(w.Bucket))
	}
	for i := range g.Bucket {
		if g.Bucket[i].GetUpperBound() != w.Bucket[i].GetUpperBound() || g.Bucket[i].GetCumulativeCount() != w.Bucket[i].GetCumulativeCount() {
			t.Errorf("classic bucket %d: le %g count %d, client_golang le %g count %d", i, g.Bucket[i].GetUpperBound(),
				g.Bucket[i].GetCumulativeCount(), w.Bucket[i].GetUpperBound(), w.Bucket[i].GetCumulativeCount())
		}
	}
}

func spans(s []*dto.BucketSpan) string {
	var b strings.Builder
	for _, x := range s {
		b.WriteString(" ")
		b.WriteString(strings.TrimSpace(x.String()))
	}
	return b.String()
}

func equalInts(a, b []int64) bool {
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

// TestNativeKeyBoundaries: a value exactly on a bucket's upper bound is in
// that bucket, the next one up in the next (buckets are (lower, upper]).
func TestNativeKeyBoundaries(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want int
	}{{1, 0}, {1.0000001, 1}, {2, 8}, {0.5, -8}, {math.Exp2(1.0 / 8), 1}, {math.Exp2(1.0/8) * 1.0000001, 2}, {0.001, -79}} {
		if got := nativeKey(c.v); got != c.want {
			t.Errorf("nativeKey(%g) = %d, want %d", c.v, got, c.want)
		}
	}
}

func hist(values ...int64) *results.Histogram {
	h := results.NewHistogram()
	for _, v := range values {
		h.Record(v)
	}
	return h
}

// fullExporter has every family: operations that succeeded and failed
// with intended latencies, the plan, the measured window, a sample of two
// processes (one External host with its port) and a Grow checkpoint.
func fullExporter() *Exporter {
	e := New(Identity{Namespace: "bench", Run: "s1", Phase: "run", Loader: 2})
	e.SetPlan(Plan{Threads: 8, Target: 5000, Operations: 100000, MaxExecution: 10 * time.Minute})
	e.Observe(&ycsb.Observation{Warmup: true, Ops: []ycsb.ObservedOp{{Op: ycsb.OpRead, OK: hist(100, 200), IntendedOK: hist(150, 250)}}})
	e.Measuring(time.Unix(1700000000, 500e6))
	e.Observe(&ycsb.Observation{Ops: []ycsb.ObservedOp{
		{Op: ycsb.OpRead, OK: hist(300), IntendedOK: hist(400)},
		{Op: ycsb.OpUpdate, OK: hist(1000, 2000, 3000), Failed: hist(50000), IntendedOK: hist(1000, 2000, 3000), IntendedFailed: hist(50000)},
		{Op: ycsb.OpCleanup, OK: hist(10)},
	}})
	e.Finish(3)
	s := telemetry.Sample{}
	for i := range s.Counters {
		s.Counters[i] = telemetry.Opt[int64]{V: int64(100 * (i + 1)), Valid: true}
	}
	for i := range s.Gauges {
		s.Gauges[i] = telemetry.Opt[float64]{V: float64(i + 1), Valid: true}
	}
	e.ServerSample(telemetry.Process{Role: "shard", Pod: "s1-shard0-0"}, &s)
	e.ServerSample(telemetry.Process{Role: "mongos", Pod: "mongos.example.com:27017"}, &s)
	e.GrowPlanned(10)
	size, storage, index := int64(1<<30), int64(1<<29), int64(1<<27)
	e.GrowCheckpoint(&results.GrowthCheckpoint{Index: 1, Records: 1e6,
		Insert:  results.GrowthInsert{RecordsPerSec: 12345, Latency: results.LatencySummary{P99Micros: 2500}},
		Sizes:   &results.CollectionStats{CollectionSizes: results.CollectionSizes{Size: &size, StorageSize: &storage, TotalIndexSize: &index}},
		Queries: []results.GrowthQuery{{Name: "by-key", Latency: results.LatencySummary{P99Micros: 800}}}})
	return e
}

// TestScrape: a real scrape over HTTP, in each format a scraper may ask
// for, is promlint-clean and carries what was measured: counts by
// operation and result (warm-up included, CLEANUP left out), the plan, the
// server figures in Prometheus units under the process label (an External
// host without its port), and the Grow checkpoint.
func TestScrape(t *testing.T) {
	srv, err := Serve("127.0.0.1:0", fullExporter())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Close(time.Second) }()
	url := "http://" + srv.Addr().String() + contract.MetricsPath

	text := get(t, url, "text/plain")
	problems, err := promlint.New(bytes.NewReader(text)).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
	want := `
# HELP mongobench_loader_operations_total Operations the loader issued, warm-up included, by YCSB operation and result.
# TYPE mongobench_loader_operations_total counter
mongobench_loader_operations_total{loader="2",namespace="bench",operation="READ",phase="run",result="ok",run="s1"} 3
mongobench_loader_operations_total{loader="2",namespace="bench",operation="UPDATE",phase="run",result="error",run="s1"} 1
mongobench_loader_operations_total{loader="2",namespace="bench",operation="UPDATE",phase="run",result="ok",run="s1"} 3
# HELP mongobench_server_cache_dirty_ratio WiredTiger cache tracked dirty bytes over its maximum, of a sampled MongoDB process.
# TYPE mongobench_server_cache_dirty_ratio gauge
mongobench_server_cache_dirty_ratio{loader="2",namespace="bench",phase="run",process="mongos.example.com",run="s1"} 0.06
mongobench_server_cache_dirty_ratio{loader="2",namespace="bench",phase="run",process="s1-shard0-0",run="s1"} 0.06
# HELP mongobench_server_network_bytes_total serverStatus network bytes of a sampled MongoDB process, by direction (in, out).
# TYPE mongobench_server_network_bytes_total counter
mongobench_server_network_bytes_total{direction="in",loader="2",namespace="bench",phase="run",process="mongos.example.com",run="s1"} 700
mongobench_server_network_bytes_total{direction="in",loader="2",namespace="bench",phase="run",process="s1-shard0-0",run="s1"} 700
mongobench_server_network_bytes_total{direction="out",loader="2",namespace="bench",phase="run",process="mongos.example.com",run="s1"} 800
mongobench_server_network_bytes_total{direction="out",loader="2",namespace="bench",phase="run",process="s1-shard0-0",run="s1"} 800
# HELP mongobench_loader_start_time_seconds When the measured window started (Unix time).
# TYPE mongobench_loader_start_time_seconds gauge
mongobench_loader_start_time_seconds{loader="2",namespace="bench",phase="run",run="s1"} 1.7000000005e+09
# HELP mongobench_loader_target_operations_per_second The loader's target rate; 0 when it is not throttled.
# TYPE mongobench_loader_target_operations_per_second gauge
mongobench_loader_target_operations_per_second{loader="2",namespace="bench",phase="run",run="s1"} 5000
# HELP mongobench_grow_collection_bytes The collection's size at the latest checkpoint, by kind (data, storage, index).
# TYPE mongobench_grow_collection_bytes gauge
mongobench_grow_collection_bytes{kind="data",loader="2",namespace="bench",phase="run",run="s1"} 1.073741824e+09
mongobench_grow_collection_bytes{kind="index",loader="2",namespace="bench",phase="run",run="s1"} 1.34217728e+08
mongobench_grow_collection_bytes{kind="storage",loader="2",namespace="bench",phase="run",run="s1"} 5.36870912e+08
`
	if err := testutil.ScrapeAndCompare(url, strings.NewReader(want), "mongobench_loader_operations_total",
		"mongobench_server_cache_dirty_ratio", "mongobench_server_network_bytes_total", "mongobench_loader_start_time_seconds",
		"mongobench_loader_target_operations_per_second", "mongobench_grow_collection_bytes"); err != nil {
		t.Error(err)
	}
	for _, line := range []string{
		`mongobench_loader_operation_latency_seconds_bucket{loader="2",namespace="bench",operation="UPDATE",phase="run",result="ok",run="s1",le="0.001"} 1`,
		`mongobench_loader_operation_latency_seconds_count{loader="2",namespace="bench",operation="READ",phase="run",result="ok",run="s1"} 3`,
		`mongobench_loader_operation_intended_latency_seconds_count{loader="2",namespace="bench",operation="UPDATE",phase="run",result="error",run="s1"} 1`,
		`mongobench_loader_lost_inserts_total{loader="2",namespace="bench",phase="run",run="s1"} 3`,
		`mongobench_loader_finished{loader="2",namespace="bench",phase="run",run="s1"} 1`,
		`mongobench_server_resident_memory_bytes{loader="2",namespace="bench",phase="run",process="s1-shard0-0",run="s1"} 1.4680064e+07`,
		`mongobench_grow_query_p99_latency_seconds{loader="2",namespace="bench",phase="run",query="by-key",run="s1"} 0.0008`,
	} {
		if !bytes.Contains(text, []byte(line+"\n")) {
			t.Errorf("the scrape lacks\n%s", line)
		}
	}
	if bytes.Contains(text, []byte("CLEANUP")) {
		t.Error("the final flush (CLEANUP) is exported as an operation")
	}

	// OpenMetrics, as Prometheus asks for it.
	om := get(t, url, "application/openmetrics-text;version=1.0.0")
	if !bytes.HasSuffix(om, []byte("# EOF\n")) || !bytes.Contains(om, []byte("mongobench_loader_operations_total{")) {
		t.Errorf("not an OpenMetrics exposition:\n%s", om)
	}

	// Protobuf: what a Prometheus with native histograms scrapes. Both
	// bucket kinds are in one histogram.
	pb := get(t, url, `application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited`)
	dec := expfmt.NewDecoder(bytes.NewReader(pb), expfmt.NewFormat(expfmt.TypeProtoDelim))
	var found bool
	for {
		var mf dto.MetricFamily
		if err := dec.Decode(&mf); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if mf.GetName() != contract.MetricLoaderLatency {
			continue
		}
		for _, m := range mf.Metric {
			h := m.GetHistogram()
			if h.GetSchema() != nativeSchema || len(h.PositiveSpan) == 0 || len(h.Bucket) != len(classicBounds) {
				t.Errorf("%v: schema %d, %d spans, %d classic buckets", m.Label, h.GetSchema(), len(h.PositiveSpan), len(h.Bucket))
			}
			found = true
		}
	}
	if !found {
		t.Error("no latency histogram in the protobuf exposition")
	}
}

func get(t *testing.T, url, accept string) []byte {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v\n%s", url, resp.StatusCode, err, body)
	}
	return body
}

// TestFamiliesAreTheContracts: every family a full exporter sends is named
// in internal/contract, and every loader and grow name of the contract is
// sent: the chart's dashboard and `top` read these names.
func TestFamiliesAreTheContracts(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(fullExporter())
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, mf := range mfs {
		got = append(got, mf.GetName())
	}
	want := []string{
		contract.MetricLoaderOperations, contract.MetricLoaderLatency, contract.MetricLoaderIntendedLatency, contract.MetricLoaderTarget,
		contract.MetricLoaderThreads, contract.MetricLoaderMeasuring, contract.MetricLoaderFinished, contract.MetricLoaderPlannedOperations,
		contract.MetricLoaderMaxExecution, contract.MetricLoaderStartTime, contract.MetricLoaderLostInserts, contract.MetricLoaderObservedAt,
		contract.MetricServerOperations, contract.MetricServerConnections, contract.MetricServerConnectionsAvailable,
		contract.MetricServerCacheUsed, contract.MetricServerCacheDirty, contract.MetricServerTicketsOut,
		contract.MetricServerTicketsAvailable, contract.MetricServerQueued, contract.MetricServerNetwork, contract.MetricServerResident,
		contract.MetricGrowCheckpoints, contract.MetricGrowPlannedCheckpoints, contract.MetricGrowRecords, contract.MetricGrowInsertRate,
		contract.MetricGrowInsertP99, contract.MetricGrowQueryP99, contract.MetricGrowCollectionBytes,
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("families\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestBeforeAnything: a loader that has not planned or measured yet
// serves no operation and no plan (no zero that would read as a stalled
// phase), and gathering it is not an error.
func TestBeforeAnything(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(New(Identity{Run: "r"}))
	mfs, err := reg.Gather()
	if err != nil || len(mfs) != 0 {
		t.Fatalf("%d families, %v", len(mfs), err)
	}
}

// TestProcessLabel: a pod name as it is, an External host without its
// port (IPv6 included).
func TestProcessLabel(t *testing.T) {
	for in, want := range map[string]string{"run-shard0-0": "run-shard0-0", "db1.example.com:27017": "db1.example.com",
		"[2001:db8::1]:27018": "2001:db8::1", "10.0.0.7:27017": "10.0.0.7"} {
		if got := ProcessLabel(in); got != want {
			t.Errorf("ProcessLabel(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestScrapeNamesAreTheDashboards: the names a live scrape of a loader
// carries (text format: histograms as _bucket, _sum and _count) are
// exactly the loader, server and Grow names of
// charts/mongobench/dashboards/metric-names.txt, the list the dashboard's
// PromQL is checked against (hack/dashboard): a metric renamed here and
// not there fails this test or that one.
func TestScrapeNamesAreTheDashboards(t *testing.T) {
	srv, err := Serve("127.0.0.1:0", fullExporter())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Close(time.Second) }()
	text := get(t, "http://"+srv.Addr().String()+contract.MetricsPath, "text/plain")
	scraped := map[string]bool{}
	for _, line := range strings.Split(string(text), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, _, _ := strings.Cut(line, "{")
		name, _, _ = strings.Cut(name, " ")
		scraped[name] = true
	}
	file, err := os.ReadFile(filepath.Join("..", "..", "..", "charts", "mongobench", "dashboards", "metric-names.txt"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, name := range strings.Fields(string(file)) {
		for _, prefix := range []string{"mongobench_loader_", "mongobench_server_", "mongobench_grow_"} {
			if strings.HasPrefix(name, prefix) {
				listed[name] = true
			}
		}
	}
	for name := range scraped {
		if !listed[name] {
			t.Errorf("the loader exports %s, which metric-names.txt does not list", name)
		}
	}
	for name := range listed {
		// A histogram's family name is listed for native-histogram
		// queries; the text format shows its series only.
		if !scraped[name] && !scraped[name+"_count"] {
			t.Errorf("metric-names.txt lists %s, which a loader's scrape lacks", name)
		}
	}
}

// TestClassicBoundsAtTwoDigits: in the exporter's 2-digit histograms a
// latency of exactly a classic bound counts at that bound (le), one
// HdrHistogram bucket above it does not, as Prometheus counts them.
func TestClassicBoundsAtTwoDigits(t *testing.T) {
	h := results.NewSeriesHistogram()
	for _, us := range []int64{1000, 1004, 2500, 2516} {
		h.Record(us)
	}
	m, err := histogramMetric(prometheus.NewDesc("x", "x", nil, nil), h, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	var out dto.Metric
	if err := m.Write(&out); err != nil {
		t.Fatal(err)
	}
	want := map[float64]uint64{0.0005: 0, 0.001: 1, 0.0025: 3, 0.005: 4}
	for _, b := range out.Histogram.Bucket {
		if w, ok := want[b.GetUpperBound()]; ok && b.GetCumulativeCount() != w {
			t.Errorf("le %g: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), w)
		}
	}
}

// TestProcessesOfOneHost: an External cluster's members on several ports
// of one host stay apart (each keeps its own series, the first the bare
// host); a sample of a process seen before replaces its own only.
func TestProcessesOfOneHost(t *testing.T) {
	e := New(Identity{Run: "r"})
	sample := func(conns float64) *telemetry.Sample {
		var s telemetry.Sample
		s.Gauges[telemetry.GaugeConnections] = telemetry.Opt[float64]{V: conns, Valid: true}
		return &s
	}
	e.ServerSample(telemetry.Process{Pod: "db.example:27017"}, sample(1))
	e.ServerSample(telemetry.Process{Pod: "db.example:27018"}, sample(2))
	e.ServerSample(telemetry.Process{Pod: "db.example:27017"}, sample(3))
	e.ServerSample(telemetry.Process{Pod: "other.example:27017"}, sample(4))
	want := `
# HELP mongobench_server_connections serverStatus connections.current of a sampled MongoDB process.
# TYPE mongobench_server_connections gauge
mongobench_server_connections{loader="0",namespace="",phase="",process="db.example",run="r"} 3
mongobench_server_connections{loader="0",namespace="",phase="",process="db.example:27018",run="r"} 2
mongobench_server_connections{loader="0",namespace="",phase="",process="other.example",run="r"} 4
`
	if err := testutil.CollectAndCompare(e, strings.NewReader(want), "mongobench_server_connections"); err != nil {
		t.Error(err)
	}
}

// TestLinger: a finished loader that nobody scrapes exits at once; one
// that is scraped waits for the next scrape that began after it finished
// (and no longer than one and a half intervals); one scraped once and then
// no more waits at most the bound; a stop ends the wait.
func TestLinger(t *testing.T) {
	srv, err := Serve("127.0.0.1:0", New(Identity{Run: "r"}))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Close(time.Second) }()
	url := "http://" + srv.Addr().String() + contract.MetricsPath
	timed := func(f func()) time.Duration {
		t0 := time.Now()
		f()
		return time.Since(t0)
	}
	if d := timed(func() { srv.Linger(context.Background(), time.Minute) }); d > time.Second {
		t.Errorf("never scraped: lingered %v", d)
	}
	get(t, url, "text/plain")
	if d := timed(func() { srv.Linger(context.Background(), 300*time.Millisecond) }); d < 300*time.Millisecond || d > 5*time.Second {
		t.Errorf("scraped once, then not: lingered %v, want the bound (300ms)", d)
	}
	// A scraper every 100 ms: the wait ends with the next scrape.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
				if resp, err := http.Get(url); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
				}
			}
		}
	}()
	if d := timed(func() { srv.Linger(context.Background(), time.Minute) }); d > 5*time.Second {
		t.Errorf("scraped every 100 ms: lingered %v", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if d := timed(func() { srv.Linger(ctx, time.Minute) }); d > time.Second {
		t.Errorf("stopped: lingered %v", d)
	}
}

// TestConcurrentUse: the engine's collector, the telemetry's samplers, the
// loader's main goroutine and scrapes call an Exporter at once (run with
// -race: make test does for this package).
func TestConcurrentUse(t *testing.T) {
	e := New(Identity{Run: "r"})
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(e)
	o := intervalOf(100, 1)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s telemetry.Sample
			s.Counters[telemetry.CounterInsert] = telemetry.Opt[int64]{V: 1, Valid: true}
			for i := range 50 {
				switch w {
				case 0:
					e.Observe(o)
				case 1:
					e.ServerSample(telemetry.Process{Pod: fmt.Sprintf("p%d", i%3)}, &s)
				case 2:
					e.SetPlan(Plan{Threads: i})
					e.Measuring(time.Now())
					e.GrowCheckpoint(&results.GrowthCheckpoint{Records: int64(i)})
				case 3:
					if _, err := reg.Gather(); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	e.Finish(0)
	if _, err := reg.Gather(); err != nil {
		t.Fatal(err)
	}
}
