package mongodb

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/loader/metrics"
	"github.com/mongobench/mongobench/internal/telemetry"
	"github.com/mongobench/mongobench/internal/testutil/stubmongo"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// Client CPU per operation: the loader (engine + binding + driver) against
// the bare driver loop, both against a stub server in a child process so
// that this process's CPU time (getrusage) is the client's alone.
// hack/perf-loader.sh runs these pinned to one core and prints the table:
//
//	STUBMONGO_SERVER_CPUS=1 taskset -c 0 go test ./internal/loader/mongodb -run '^$' -bench 'BenchmarkCPU' -benchtime 100000x
//
// Both sides use 8 goroutines (threadcount=8) and one shared mongo.Client.
// Unless GOGC is set, each runs with its GC as shipped: Go's default for
// the bare loop, the loader binary's DefaultGCPercent for the loader (see
// internal/loader/gc.go); hack/perf-loader.sh also measures both with the
// same GC budget.
//
// The bare loop makes the calls the binding makes, with the argument types
// the binding passes (bson.Raw filter, document and $set update, built by
// appending to a per-goroutine buffer), but nothing else: no key generator
// (keys "user<i>"), values made once, no measurement, no per-operation
// timeout; its calls run under a cancellable context without a deadline,
// as the binding's do. stubmongo's BenchmarkBareDriver is the same
// loop with bson.D documents (reflection-based marshalling); it costs more
// per insert than this one, so this is the stricter floor.
const perfThreads = 8

// perfWorkload is a phase to measure: one of YCSB's CoreWorkloads (load,
// a to f), compared with the floor (floor_test.go), or one with a loader
// feature on, compared with the loader without it.
type perfWorkload struct {
	name  string
	phase ycsb.Phase
	props []string
	// kv are more properties of the loader (not of the floor).
	kv []string
	// feature: a loader feature on (kv, telemetry); no floor or go-ycsb
	// to compare with, but the same workload without it.
	feature bool
	// telemetry: loader 0's telemetry sampler runs during the phase.
	telemetry bool
	// metrics: the live /metrics exporter observes the phase and is
	// scraped every second (15 times as often as a default Prometheus
	// scrape; the scraper's own CPU counts, in this process).
	metrics bool
	// spin: BenchmarkPaired's calibration, the floor spinning this long
	// before each call against the plain floor (paired_test.go).
	spin time.Duration
	// own: BenchmarkPaired's a-own, the floor doing the loader's own
	// per-operation work (ownWork) against the plain floor.
	own bool
}

// serverOps is the number of YCSB operations the stub server's counters
// show: a read-modify-write is a find and an update, and the workloads
// that have one (f) have no plain update.
func (wl perfWorkload) serverOps(c stubmongo.Counts) uint64 {
	if wl.name == "f" {
		return c.Insert + c.Find
	}
	return c.Insert + c.Find + c.Update
}

// ConfigureLoaderGC is loader.ConfigureGC, the loader binary's GC setting
// (internal/loader/gc.go), set by loadergc_test.go: this package's own
// tests cannot import the loader, which imports this package; an external
// test package, linked into the same test binary, can.
var ConfigureLoaderGC func(getenv func(string) string) (restore func())

var perfWorkloads = []perfWorkload{
	{name: "load", phase: ycsb.PhaseLoad, props: []string{"workloada"}},
	{name: "a", phase: ycsb.PhaseRun, props: []string{"workloada"}},
	{name: "b", phase: ycsb.PhaseRun, props: []string{"workloadb"}},
	{name: "c", phase: ycsb.PhaseRun, props: []string{"workloadc"}},
	{name: "d", phase: ycsb.PhaseRun, props: []string{"workloadd"}},
	{name: "e", phase: ycsb.PhaseRun, props: []string{"workloade"}},
	{name: "f", phase: ycsb.PhaseRun, props: []string{"workloadf"}},
	// Workload a again, measuring intended latencies too (a second
	// histogram per call), after a warm-up (a check per operation of
	// whether it ended), with telemetry sampled and with live metrics:
	// each must cost under 1% of the loader's CPU per operation (issue
	// 28). hack/perf-loader.sh measures the first two paired with the
	// loader without them (BenchmarkPaired); telemetry and metrics run on
	// their own clock, so it takes their CPU per second from their
	// packages' benchmarks. Here they are for a look by hand.
	{name: "a-intended", phase: ycsb.PhaseRun, props: []string{"workloada"}, feature: true,
		kv: []string{"measurement.interval=both"}},
	{name: "a-warmup", phase: ycsb.PhaseRun, props: []string{"workloada"}, feature: true,
		kv: []string{"warmupoperations=" + strconv.Itoa(10*perfThreads)}},
	{name: "a-telemetry", phase: ycsb.PhaseRun, props: []string{"workloada"}, feature: true, telemetry: true},
	{name: "a-metrics", phase: ycsb.PhaseRun, props: []string{"workloada"}, feature: true, metrics: true},
}

func BenchmarkCPU(b *testing.B) {
	child := stubmongo.StartChild(b)
	for _, wl := range perfWorkloads {
		if !wl.feature {
			b.Run(wl.name+"/bare", func(b *testing.B) { benchFloor(b, child, wl) })
		}
		b.Run(wl.name+"/loader", func(b *testing.B) { benchLoader(b, child, wl) })
	}
}

// measureCPU runs fn as the measured part of a benchmark and reports client
// CPU per operation; the stub server's counters check that the operations
// fn says it issued (n, and a warm-up's besides) reached it.
func measureCPU(b *testing.B, client *mongo.Client, wl perfWorkload, n int, fn func() (extra int, err error)) {
	b.Helper()
	ctx := context.Background()
	before, err := stubmongo.QueryStats(ctx, client)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	io0 := syscallCounts()
	cpu0 := stubmongo.ProcessCPU()
	b.ResetTimer()
	extra, err := fn()
	b.StopTimer()
	cpu := stubmongo.ProcessCPU() - cpu0
	io1 := syscallCounts()
	if err != nil {
		b.Fatal(err)
	}
	after, err := stubmongo.QueryStats(ctx, client)
	if err != nil {
		b.Fatal(err)
	}
	c := after.Sub(before).Counts
	if got := wl.serverOps(c); got != uint64(n+extra) {
		b.Fatalf("the server counted %d operations for %d operations (%+v)", got, n+extra, c)
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(n+extra), "cpu-us/op")
	if io0[0] > 0 {
		b.ReportMetric(float64(io1[0]-io0[0])/float64(n+extra), "reads/op")
		b.ReportMetric(float64(io1[1]-io0[1])/float64(n+extra), "writes/op")
	}
}

// syscallCounts is this process's read and write system calls so far
// (/proc/self/io: syscr, syscw), zeros where it cannot be read. Reads
// that find no reply yet (EAGAIN, then a wait in the poller) count too: a
// client that reads more often per operation pays for it in system time.
func syscallCounts() [2]uint64 {
	var out [2]uint64
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ": ")
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if !ok || err != nil {
			continue
		}
		switch k {
		case "syscr":
			out[0] = n
		case "syscw":
			out[1] = n
		}
	}
	return out
}

func perfProperties(b testing.TB, uri string, wl perfWorkload, ops int) *ycsb.Properties {
	b.Helper()
	kv := []string{
		"mongodb.url=" + uri, "threadcount=" + strconv.Itoa(perfThreads),
		"recordcount=1000000", "operationcount=" + strconv.Itoa(ops),
	}
	if wl.phase == ycsb.PhaseLoad {
		kv = append(kv, "recordcount="+strconv.Itoa(ops))
	}
	kv = append(kv, wl.kv...)
	p, err := ycsb.LoadProperties(wl.props, kv)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

func runLoader(ctx context.Context, c *Client, p *ycsb.Properties, phase ycsb.Phase) (*ycsb.RunResult, error) {
	w, err := ycsb.NewWorkload(p)
	if err != nil {
		return nil, err
	}
	opts, err := ycsb.RunOptionsFromProperties(p, phase, nil)
	if err != nil {
		return nil, err
	}
	return ycsb.Run(ctx, w, c.Factory(), opts)
}

// perfTelemetry is what loader 0 samples in a two-shard cluster (config
// server, two shards, mongos), every process here the stub server, at the
// shipped interval. The stub's serverStatus reply is tiny; what a real one
// costs to read is internal/telemetry's BenchmarkSampleRound.
func perfTelemetry(uri string) telemetry.Config {
	cfg := telemetry.Config{Interval: telemetry.DefaultInterval}
	for i, role := range []string{"configsvr", "shard", "shard", "mongos"} {
		cfg.Processes = append(cfg.Processes, telemetry.Process{Role: role, Pod: "p" + strconv.Itoa(i), URI: uri})
	}
	return cfg
}

// perfMetrics serves the loader's live metrics for the phase, as
// internal/loader does with --metrics-addr, and scrapes them every second
// until stopped.
func perfMetrics(opts *ycsb.RunOptions, w *ycsb.Workload) (stop func(), err error) {
	exp := metrics.New(metrics.Identity{Namespace: "bench", Run: "perf", Phase: "run"})
	exp.SetPlan(metrics.Plan{Threads: opts.ThreadsFor(w), Operations: w.OperationCount(opts.Phase)})
	srv, err := metrics.Serve("127.0.0.1:0", exp)
	if err != nil {
		return nil, err
	}
	opts.Observer = exp
	done, scraped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(scraped)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if resp, err := http.Get("http://" + srv.Addr().String() + "/metrics"); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
				}
			}
		}
	}()
	return func() {
		close(done)
		<-scraped
		opts.Observer = nil
		_ = srv.Close(time.Second)
	}, nil
}

// perfClient is the loader's client for workload wl (its driver options:
// retryWrites, pool, appName), closed when the benchmark or test ends.
func perfClient(tb testing.TB, uri string, wl perfWorkload) *Client {
	tb.Helper()
	cfg, err := ConfigFromProperties(perfProperties(tb, uri, wl, 1))
	if err != nil {
		tb.Fatal(err)
	}
	c, err := NewClient(context.Background(), cfg, io.Discard)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// perfLoader is the loader on workload wl, ready for a phase of n
// operations: its client, warmed up (the pool's connections, the driver's
// caches), and the phase built before the clock starts, as the loader
// binary builds it when it parses its arguments, before it connects
// (internal/loader/phase.go): its generators' set-up (workload d's zeta
// over a million records, 33 ms) and Prepare are no part of a phase's
// window, as the floor's plans are not.
type perfLoader struct {
	c    *Client
	w    *ycsb.Workload
	opts ycsb.RunOptions
	n    int
}

func newPerfLoader(b *testing.B, child *stubmongo.Child, wl perfWorkload, n int) *perfLoader {
	b.Helper()
	l := &perfLoader{c: perfClient(b, child.URI(), wl), n: n}
	if _, err := runLoader(context.Background(), l.c, perfProperties(b, child.URI(), wl, 100*perfThreads), wl.phase); err != nil {
		b.Fatal(err)
	}
	p := perfProperties(b, child.URI(), wl, n)
	var err error
	if l.w, err = ycsb.NewWorkload(p); err != nil {
		b.Fatal(err)
	}
	l.w.Prepare(wl.phase)
	if l.opts, err = ycsb.RunOptionsFromProperties(p, wl.phase, nil); err != nil {
		b.Fatal(err)
	}
	return l
}

// run runs the phase, every DB call inside gate.RLock when gate is set
// (BenchmarkPaired's turns), and checks it: n operations, all OK. It
// returns the warm-up's operations, which the server counts too.
func (l *perfLoader) run(ctx context.Context, gate *sync.RWMutex) (int, error) {
	factory := l.c.Factory()
	if gate != nil {
		inner := factory
		factory = func(ctx context.Context, thread, threads int) (ycsb.DB, error) {
			db, err := inner(ctx, thread, threads)
			if err != nil {
				return nil, err
			}
			return gatedDB{db: db, gate: gate}, nil
		}
	}
	res, err := ycsb.Run(ctx, l.w, factory, l.opts)
	if err != nil {
		return 0, err
	}
	if res.Operations != int64(l.n) {
		return 0, fmt.Errorf("%d operations, want %d", res.Operations, l.n)
	}
	for _, m := range res.Ops {
		if m.Op != ycsb.OpCleanup && m.Statuses.Get(ycsb.StatusOK) != m.Statuses.Total() {
			return 0, fmt.Errorf("%s: statuses %v", m.Op, m.Statuses)
		}
	}
	if res.Warmup != nil {
		return int(res.Warmup.Operations), nil
	}
	return 0, nil
}

func benchLoader(b *testing.B, child *stubmongo.Child, wl perfWorkload) {
	// As the loader binary does (cmd/loader); a no-op when GOGC is set.
	defer ConfigureLoaderGC(os.Getenv)()
	ctx := context.Background()
	l := newPerfLoader(b, child, wl, b.N)
	runtime.GC() // as the floor does: each starts from a collected heap
	measureCPU(b, l.c.client, wl, b.N, func() (int, error) {
		if wl.telemetry {
			s := telemetry.Start(ctx, perfTelemetry(child.URI()))
			defer s.Stop()
		}
		if wl.metrics {
			stop, err := perfMetrics(&l.opts, l.w)
			if err != nil {
				return 0, err
			}
			defer stop()
		}
		return l.run(ctx, nil)
	})
}

// floorFor is the floor of the workload of properties p on client c, with
// the run phase's keys (a load's come from its plans).
func floorFor(tb testing.TB, c *Client, p *ycsb.Properties) (*floor, floorMix) {
	tb.Helper()
	m, err := mixOf(p)
	if err != nil {
		tb.Fatal(err)
	}
	m.recordCount = 1000000
	f, err := newFloor(c.db.Collection(p.String("table", "usertable")), m)
	if err != nil {
		tb.Fatal(err)
	}
	return f, m
}

// perfFloor is the floor on workload wl with the loader's client, warmed
// up, its plans of n operations made before the clock starts.
type perfFloor struct {
	c     *Client
	f     *floor
	m     floorMix
	plans []*floorPlan
	ctx   context.Context
}

func newPerfFloor(b *testing.B, child *stubmongo.Child, wl perfWorkload, n int) *perfFloor {
	b.Helper()
	// Cancellable, no deadline: the binding's calls run under such a
	// context (see guard.go). With a deadline the driver would also add
	// maxTimeMS to each command and arm socket deadlines.
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	pf := &perfFloor{c: perfClient(b, child.URI(), wl), ctx: ctx}
	var m floorMix
	pf.f, m = floorFor(b, pf.c, perfProperties(b, child.URI(), wl, 1))
	pf.m = m
	load := wl.phase == ycsb.PhaseLoad
	if err := pf.f.run(ctx, floorPlans(m, load, 100*perfThreads)); err != nil {
		b.Fatal(err)
	}
	pf.plans = floorPlans(m, load, n)
	return pf
}

// run runs the plans, each call inside gate.RLock when gate is set, with
// spin of client work before each (BenchmarkPaired's calibration) and,
// with own, the loader's own work for each (BenchmarkPaired's a-own).
func (pf *perfFloor) run(gate *sync.RWMutex, spin time.Duration, own bool) (int, error) {
	g := *pf.f
	g.gate, g.spin = gate, spin
	if own {
		var err error
		if g.own, err = newOwnWork(pf.m); err != nil {
			return 0, err
		}
	}
	return 0, g.run(pf.ctx, pf.plans)
}

// benchFloor measures the floor (floor_test.go) with the loader binary's
// GC setting and the loader's client.
func benchFloor(b *testing.B, child *stubmongo.Child, wl perfWorkload) {
	defer ConfigureLoaderGC(os.Getenv)()
	pf := newPerfFloor(b, child, wl, b.N)
	runtime.GC() // the plans' garbage is not the loop's
	measureCPU(b, pf.c.client, wl, b.N, func() (int, error) { return pf.run(nil, 0, false) })
}

// BenchmarkGoYCSB measures go-ycsb v1.0.1 (github.com/pingcap/go-ycsb, its
// mongodb binding on driver v1) the same way: 8 threads, the same workload
// properties, the stub server in a child process. go-ycsb is not a
// dependency of this module: hack/perf-loader.sh builds it in a throw-away
// module under bin/.tools/go-ycsb and passes the binary in GOYCSB_BIN.
//
// Its CPU time is the child process's (rusage after exit). To leave out
// its start-up (connecting, building the workload), a second run of
// goYCSBBaseOps operations is subtracted: cpu-us/op is
// (cpu(N) - cpu(n0)) / (N - n0). allocs/op cannot be seen from outside.
func BenchmarkGoYCSB(b *testing.B) {
	bin := os.Getenv("GOYCSB_BIN")
	if bin == "" {
		b.Fatal("GOYCSB_BIN is not set: run hack/perf-loader.sh, which builds go-ycsb v1.0.1 outside this module")
	}
	child := stubmongo.StartChild(b)
	ctx := context.Background()
	client, err := mongo.Connect(options.Client().ApplyURI(child.URI()))
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = client.Disconnect(ctx) }()
	for _, wl := range perfWorkloads {
		if wl.feature {
			continue // go-ycsb has no intended latency or telemetry; its warm-up is another thing
		}
		b.Run(wl.name, func(b *testing.B) {
			props := goYCSBWorkloadFile(b, wl)
			// go-ycsb wants at least one operation per thread.
			n, n0 := max(b.N, perfThreads), 0
			if n >= 10*goYCSBBaseOps {
				n0 = goYCSBBaseOps
			}
			var cpu0 time.Duration
			if n0 > 0 {
				cpu0, _ = runGoYCSB(b, bin, client, child.URI(), props, wl, n0)
			}
			b.ResetTimer()
			cpu, rss := runGoYCSB(b, bin, client, child.URI(), props, wl, n)
			b.StopTimer()
			b.ReportMetric(float64((cpu-cpu0).Nanoseconds())/1e3/float64(n-n0), "cpu-us/op")
			b.ReportMetric(float64(rss)/1024, "maxrss-MB")
		})
	}
}

// goYCSBBaseOps is the size of the run whose CPU time is subtracted.
const goYCSBBaseOps = 2000

// goYCSBWorkloadFile writes the embedded workload for go-ycsb, whose
// workload property names its own CoreWorkload "core".
func goYCSBWorkloadFile(b *testing.B, wl perfWorkload) string {
	b.Helper()
	var out bytes.Buffer
	for _, name := range wl.props {
		_, data, err := ycsb.ResolveWorkload(name)
		if err != nil {
			b.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if !strings.HasPrefix(strings.TrimSpace(line), "workload=") {
				out.WriteString(line + "\n")
			}
		}
	}
	out.WriteString("workload=core\n")
	path := filepath.Join(b.TempDir(), "workload")
	if err := os.WriteFile(path, out.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	return path
}

// runGoYCSB runs go-ycsb for n operations and returns its CPU time and peak
// RSS (KiB); the stub's counters check that n operations reached it.
func runGoYCSB(b *testing.B, bin string, client *mongo.Client, uri, props string, wl perfWorkload, n int) (time.Duration, int64) {
	b.Helper()
	ctx := context.Background()
	before, err := stubmongo.QueryStats(ctx, client)
	if err != nil {
		b.Fatal(err)
	}
	command := "run"
	count := "operationcount=" + strconv.Itoa(n)
	recs := "recordcount=1000000"
	if wl.phase == ycsb.PhaseLoad {
		command, count, recs = "load", "recordcount="+strconv.Itoa(n), "insertcount="+strconv.Itoa(n)
	}
	cmd := exec.Command(bin, command, "mongodb", "-P", props, "-p", "mongodb.url="+uri, "-p", recs, "-p", count,
		"-p", "threadcount="+strconv.Itoa(perfThreads))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		b.Fatalf("go-ycsb: %v\n%s", err, out.Bytes())
	}
	if strings.Contains(out.String(), "_ERROR") {
		b.Fatalf("go-ycsb reports errors:\n%s", out.Bytes())
	}
	after, err := stubmongo.QueryStats(ctx, client)
	if err != nil {
		b.Fatal(err)
	}
	c := after.Sub(before).Counts
	if got := wl.serverOps(c); got != uint64(n) {
		b.Fatalf("the server counted %d operations for %d go-ycsb operations (%+v)", got, n, c)
	}
	ps := cmd.ProcessState
	var rss int64
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss
	}
	return ps.UserTime() + ps.SystemTime(), rss
}

// BenchmarkOverhead is the loader's own CPU per operation, without the
// driver: ycsb.Run with the same threads and workloads, and a DB that does
// everything the binding does before and after a driver call (keys,
// values, the raw BSON of filter, document and update, the timeout guard)
// but makes no call. The driver's cost is what BenchmarkCPU's bare loop
// measures; the sum estimates the loader's cost without the noise of a
// client-server measurement.
func BenchmarkOverhead(b *testing.B) {
	cfg := Config{OperationTimeout: DefaultOperationTimeout, BatchSize: 1}
	for _, wl := range perfWorkloads {
		b.Run(wl.name, func(b *testing.B) {
			c := &Client{cfg: cfg, errs: newErrorLog(nil), wd: newWatchdog(cfg.OperationTimeout)}
			defer c.wd.close()
			factory := func(context.Context, int, int) (ycsb.DB, error) { return &noDriverDB{d: c.NewDB()}, nil }
			run := func(n int) {
				p := perfProperties(b, "mongodb://unused", wl, n)
				w, err := ycsb.NewWorkload(p)
				if err != nil {
					b.Fatal(err)
				}
				opts, err := ycsb.RunOptionsFromProperties(p, wl.phase, nil)
				if err != nil {
					b.Fatal(err)
				}
				res, err := ycsb.Run(context.Background(), w, factory, opts)
				if err != nil || res.Operations != int64(n) {
					b.Fatalf("%v, %d operations", err, res.Operations)
				}
			}
			run(100 * perfThreads)
			b.ReportAllocs()
			cpu0 := stubmongo.ProcessCPU()
			b.ResetTimer()
			run(b.N)
			b.StopTimer()
			b.ReportMetric(float64((stubmongo.ProcessCPU()-cpu0).Nanoseconds())/1e3/float64(b.N), "cpu-us/op")
		})
	}
}

// noDriverDB is DB without the driver calls.
type noDriverDB struct{ d *DB }

var noDriverSink int

func (n *noDriverDB) call(ctx context.Context) {
	_, token := n.d.guard.begin(n.d.c.wd, ctx)
	n.d.guard.end(token)
}

func (n *noDriverDB) Read(ctx context.Context, table string, key []byte, fields []string, _ *[]ycsb.Field) ycsb.Status {
	n.d.filter = appendIDFilter(n.d.filter[:0], key)
	n.d.projection = n.d.projs.get(fields)
	n.call(ctx)
	noDriverSink += len(n.d.filter) + len(table)
	return ycsb.StatusOK
}

func (n *noDriverDB) Scan(ctx context.Context, _ string, key []byte, _ int, _ []string) ycsb.Status {
	n.d.filter = appendScanFilter(n.d.filter[:0], key)
	n.call(ctx)
	return ycsb.StatusOK
}

func (n *noDriverDB) Update(ctx context.Context, _ string, key []byte, values []ycsb.Field) ycsb.Status {
	n.d.filter = appendIDFilter(n.d.filter[:0], key)
	n.d.update = appendSetUpdate(n.d.update[:0], values)
	n.call(ctx)
	return ycsb.StatusOK
}

func (n *noDriverDB) Insert(ctx context.Context, _ string, key []byte, values []ycsb.Field) ycsb.Status {
	n.d.doc = appendDocument(n.d.doc[:0], key, values)
	n.call(ctx)
	return ycsb.StatusOK
}

func (n *noDriverDB) Delete(ctx context.Context, _ string, key []byte) ycsb.Status {
	n.d.filter = appendIDFilter(n.d.filter[:0], key)
	n.call(ctx)
	return ycsb.StatusOK
}

func (n *noDriverDB) Cleanup(context.Context) (int, error) {
	n.d.guard.release()
	n.d.c.wd.remove(&n.d.guard)
	return 0, nil
}
