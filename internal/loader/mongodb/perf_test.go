package mongodb

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

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

// perfWorkload is a phase to measure and the bare loop's equivalent.
type perfWorkload struct {
	name  string
	phase ycsb.Phase
	props []string
	// readFraction of the bare loop's operations are reads, the rest
	// updates; insert makes them all inserts.
	insert       bool
	readFraction float64
	// kv are more properties of the loader (not of the bare loop).
	kv []string
	// loaderOnly: no bare loop to compare with (the same as another
	// workload's; the loader's settings differ).
	loaderOnly bool
}

// ConfigureLoaderGC is loader.ConfigureGC, the loader binary's GC setting
// (internal/loader/gc.go), set by loadergc_test.go: this package's own
// tests cannot import the loader, which imports this package; an external
// test package, linked into the same test binary, can.
var ConfigureLoaderGC func(getenv func(string) string) (restore func())

var perfWorkloads = []perfWorkload{
	{name: "load", phase: ycsb.PhaseLoad, props: []string{"workloada"}, insert: true},
	{name: "a", phase: ycsb.PhaseRun, props: []string{"workloada"}, readFraction: 0.5},
	{name: "c", phase: ycsb.PhaseRun, props: []string{"workloadc"}, readFraction: 1},
	// Workload a again, measuring intended latencies too (a second
	// histogram per call), and after a warm-up (a check per operation of
	// whether it ended): issue 21 asks that neither costs measurable CPU.
	{name: "a-intended", phase: ycsb.PhaseRun, props: []string{"workloada"}, readFraction: 0.5, loaderOnly: true,
		kv: []string{"measurement.interval=both"}},
	{name: "a-warmup", phase: ycsb.PhaseRun, props: []string{"workloada"}, readFraction: 0.5, loaderOnly: true,
		kv: []string{"warmupoperations=" + strconv.Itoa(10*perfThreads)}},
}

func BenchmarkCPU(b *testing.B) {
	child := stubmongo.StartChild(b)
	for _, wl := range perfWorkloads {
		if !wl.loaderOnly {
			b.Run(wl.name+"/bare", func(b *testing.B) { benchBare(b, child, wl) })
		}
		b.Run(wl.name+"/loader", func(b *testing.B) { benchLoader(b, child, wl) })
	}
}

// measureCPU runs fn as the measured part of a benchmark and reports client
// CPU per operation; the stub server's counters check that the operations
// fn says it issued (n, and a warm-up's besides) reached it.
func measureCPU(b *testing.B, client *mongo.Client, n int, fn func() (extra int, err error)) {
	b.Helper()
	ctx := context.Background()
	before, err := stubmongo.QueryStats(ctx, client)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := stubmongo.ProcessCPU()
	b.ResetTimer()
	extra, err := fn()
	b.StopTimer()
	cpu := stubmongo.ProcessCPU() - cpu0
	if err != nil {
		b.Fatal(err)
	}
	after, err := stubmongo.QueryStats(ctx, client)
	if err != nil {
		b.Fatal(err)
	}
	c := after.Sub(before).Counts
	if got := c.Insert + c.Find + c.Update; got != uint64(n+extra) {
		b.Fatalf("the server counted %d inserts+finds+updates for %d operations (%+v)", got, n+extra, c)
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(n+extra), "cpu-us/op")
}

func perfProperties(b *testing.B, uri string, wl perfWorkload, ops int) *ycsb.Properties {
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

func benchLoader(b *testing.B, child *stubmongo.Child, wl perfWorkload) {
	// As the loader binary does (cmd/loader); a no-op when GOGC is set.
	defer ConfigureLoaderGC(os.Getenv)()
	ctx := context.Background()
	cfg, err := ConfigFromProperties(perfProperties(b, child.URI(), wl, 1))
	if err != nil {
		b.Fatal(err)
	}
	c, err := NewClient(ctx, cfg, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = c.Close(ctx) }()
	// Warm up: the pool's connections, the driver's caches.
	if _, err := runLoader(ctx, c, perfProperties(b, child.URI(), wl, 100*perfThreads), wl.phase); err != nil {
		b.Fatal(err)
	}
	p := perfProperties(b, child.URI(), wl, b.N)
	measureCPU(b, c.client, b.N, func() (int, error) {
		res, err := runLoader(ctx, c, p, wl.phase)
		if err != nil {
			return 0, err
		}
		if res.Operations != int64(b.N) {
			return 0, fmt.Errorf("%d operations, want %d", res.Operations, b.N)
		}
		for _, m := range res.Ops {
			if m.Op != ycsb.OpCleanup && m.Statuses.Get(ycsb.StatusOK) != m.Statuses.Total() {
				return 0, fmt.Errorf("%s: statuses %v", m.Op, m.Statuses)
			}
		}
		var warm int
		if res.Warmup != nil {
			warm = int(res.Warmup.Operations)
		}
		return warm, nil
	})
}

func benchBare(b *testing.B, child *stubmongo.Child, wl perfWorkload) {
	// Cancellable, no deadline: the binding's calls run under such a
	// context (see guard.go). With a deadline the driver would also add
	// maxTimeMS to each command and arm socket deadlines.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client, err := mongo.Connect(options.Client().ApplyURI(child.URI()))
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = client.Disconnect(ctx) }()
	coll := client.Database("ycsb").Collection("usertable")
	if err := bareLoop(ctx, coll, wl, 100*perfThreads); err != nil {
		b.Fatal(err)
	}
	measureCPU(b, client, b.N, func() (int, error) { return 0, bareLoop(ctx, coll, wl, b.N) })
}

// bareLoop runs n operations over perfThreads goroutines.
func bareLoop(ctx context.Context, coll *mongo.Collection, wl perfWorkload, n int) error {
	values := make([]ycsb.Field, 10)
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range values {
		v := make([]byte, 100)
		for j := range v {
			v[j] = byte(' ' + rng.IntN(95))
		}
		values[i] = ycsb.Field{Name: "field" + strconv.Itoa(i), Value: v}
	}
	errs := make([]error, perfThreads)
	var wg sync.WaitGroup
	for g := range perfThreads {
		count := n / perfThreads
		if g < n%perfThreads {
			count++
		}
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			var key, filter, doc, update []byte
			key = append(key, "user"...)
			for i := range count {
				key = strconv.AppendUint(key[:4], uint64(i*perfThreads+g), 10)
				var err error
				switch {
				case wl.insert:
					doc = appendDocument(doc[:0], key, values)
					_, err = coll.InsertOne(ctx, bson.Raw(doc))
				case rng.Float64() < wl.readFraction:
					filter = appendIDFilter(filter[:0], key)
					var raw bson.Raw
					if raw, err = coll.FindOne(ctx, bson.Raw(filter)).Raw(); err == nil && len(raw) == 0 {
						err = fmt.Errorf("find %s: empty document", key)
					}
				default:
					filter = appendIDFilter(filter[:0], key)
					f := rng.IntN(len(values))
					update = appendSetUpdate(update[:0], values[f:f+1])
					var res *mongo.UpdateResult
					if res, err = coll.UpdateOne(ctx, bson.Raw(filter), bson.Raw(update)); err == nil && res.MatchedCount != 1 {
						err = fmt.Errorf("update %s: matched %d", key, res.MatchedCount)
					}
				}
				if err != nil {
					errs[g] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
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
		if wl.loaderOnly {
			continue // go-ycsb has no intended latency; its warm-up is another thing
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
	if got := c.Insert + c.Find + c.Update; got != uint64(n) {
		b.Fatalf("the server counted %d inserts+finds+updates for %d go-ycsb operations (%+v)", got, n, c)
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
