package mongodb

import (
	"context"
	"errors"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mongobench/mongobench/internal/testutil/stubmongo"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// Paired measurement: the loader and what it is compared with in one
// process, taking turns.
//
// CPU time per operation on this kind of machine drifts by 5 to 10% over
// minutes (the host's other tenants), which is more than the differences
// to be measured (a few %, features under 1%). Two processes measured one
// after the other see different machines. Here both sides run in one
// process against the one stub server and take turns of pairSlice each:
// while one runs, the other's goroutines wait at a gate before their next
// call. Each turn's client CPU and operations (the stub server's counters,
// read while both sides wait) go to the side that ran. The turns go in
// the order 0 1 1 0 0 1 1 0 ...: drift slower than a turn cancels in each
// pair of turns, and a steady trend over the run (the process warming up
// or the host slowing down) cancels between a pair and the next, which
// it would not if side 0 always went first. What is left is per-turn
// jitter, which averages out over the hundred or so turns of 100k
// operations.
//
// The gate is a sync.RWMutex per side: a call holds a read lock, the turn
// switch takes the write lock of the side that ends (which waits for its
// calls in flight) before opening the other's. Both sides pay the same
// two atomic operations per call; the loader's gate is a ycsb.DB wrapper,
// which also costs it one more indirect call.
//
// What a pair cannot compare: work that runs on its own clock rather than
// per operation (the telemetry sampler, the live metrics' collection and
// scrapes, the engine's once-a-second collector) is spread over both
// sides' turns. The features that are such work are measured by their CPU
// per second instead (hack/perf-loader.sh). The engine's own collector is
// charged half to the side it does not belong to; it costs well under
// 0.1% of a loaded core (ycsb's BenchmarkRecorderMeasure and the
// collector's merge of one second's histograms), below what this
// measures.

// pairSlice is one turn. A shorter turn cancels faster drift; each
// switch costs a round trip to the stub server and wakes 16 goroutines,
// none of it charged to either side. PERF_SLICE_MS overrides it.
var pairSlice = 100 * time.Millisecond

func init() {
	if v, err := strconv.Atoi(os.Getenv("PERF_SLICE_MS")); err == nil && v > 0 {
		pairSlice = time.Duration(v) * time.Millisecond
	}
}

// pairSide is one side of a pair: run performs its n operations (plus
// any warm-up it counts in extra) with every driver call inside
// gate.RLock.
type pairSide struct {
	name string
	run  func(ctx context.Context, gate *sync.RWMutex) (extra int, err error)
}

// turn is one side's measured turn.
type turn struct {
	side int
	cpu  time.Duration
	ops  uint64
	// serverSleeps: how often the stub server's threads blocked during
	// the turn.
	serverSleeps int64
}

// pairResult is what a paired measurement found.
type pairResult struct {
	turns    []turn
	cpuPerOp [2]float64 // µs, over every measured turn
	ratio    float64    // cpuPerOp[0] / cpuPerOp[1]
	se       float64    // standard error of ratio, from its turn pairs
	// Per operation, over every measured turn: how often the stub server
	// blocked (and so had to be woken).
	serverSleeps [2]float64
	pairs        int
}

// measurePaired runs both sides at once, letting them take turns until
// either is done; the rest of the other runs unmeasured. The client is
// for the stub server's counters only.
func measurePaired(ctx context.Context, client *mongo.Client, wl perfWorkload, sides [2]pairSide) (*pairResult, error) {
	var gates [2]sync.RWMutex
	gates[0].Lock()
	gates[1].Lock()
	type outcome struct {
		side int
		err  error
	}
	done := make(chan outcome, 2)
	for i, s := range sides {
		go func() {
			// Labelled, so that a CPU profile (-test.cpuprofile) tells
			// the sides apart: pprof -tagfocus side=floor.
			pprof.Do(ctx, pprof.Labels("side", strings.Fields(s.name)[0]), func(ctx context.Context) {
				_, err := s.run(ctx, &gates[i])
				done <- outcome{i, err}
			})
		}()
	}
	stats, err := stubmongo.QueryStats(ctx, client)
	if err != nil {
		return nil, err
	}
	var res pairResult
	var errs []error
	finished := [2]bool{}
	timer := time.NewTimer(pairSlice)
	defer timer.Stop()
	for t := 0; ; t++ {
		side := turnOrder(t)
		cpu0 := stubmongo.ProcessCPU()
		gates[side].Unlock()
		timer.Reset(pairSlice)
		ended := false
		select {
		case <-timer.C:
		case o := <-done:
			finished[o.side] = true
			errs = append(errs, o.err)
			ended = true
		}
		gates[side].Lock()
		cpu := stubmongo.ProcessCPU() - cpu0
		after, err := stubmongo.QueryStats(ctx, client)
		if err != nil {
			return nil, err
		}
		d := after.Sub(stats)
		ops := wl.serverOps(d.Counts)
		stats = after
		res.turns = append(res.turns, turn{side: side, cpu: cpu, ops: ops, serverSleeps: d.Sleeps})
		if ended || finished[0] || finished[1] {
			break
		}
	}
	// The rest runs at once; both gates open.
	gates[0].Unlock()
	gates[1].Unlock()
	for !finished[0] || !finished[1] {
		o := <-done
		finished[o.side] = true
		errs = append(errs, o.err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	res.summarize()
	return &res, nil
}

// turnOrder is the side of turn t: 0 1 1 0, repeated.
func turnOrder(t int) int {
	if t%4 == 1 || t%4 == 2 {
		return 1
	}
	return 0
}

// summarize pools every turn's CPU and operations per side, and estimates
// the ratio's standard error from the ratios of consecutive turn pairs.
func (r *pairResult) summarize() {
	var cpu [2]time.Duration
	var ops [2]uint64
	var srv [2]int64
	for _, t := range r.turns {
		cpu[t.side] += t.cpu
		ops[t.side] += t.ops
		srv[t.side] += t.serverSleeps
	}
	for i := range 2 {
		if ops[i] > 0 {
			r.cpuPerOp[i] = float64(cpu[i].Nanoseconds()) / 1e3 / float64(ops[i])
			r.serverSleeps[i] = float64(srv[i]) / float64(ops[i])
		}
	}
	if r.cpuPerOp[1] > 0 {
		r.ratio = r.cpuPerOp[0] / r.cpuPerOp[1]
	}
	// Pairs of consecutive turns (0,1), (2,3), ...: each a ratio.
	var logs []float64
	for i := 0; i+1 < len(r.turns); i += 2 {
		a, b := r.turns[i], r.turns[i+1]
		if a.side == 1 {
			a, b = b, a
		}
		if a.ops == 0 || b.ops == 0 || b.cpu == 0 {
			continue
		}
		x := (float64(a.cpu) / float64(a.ops)) / (float64(b.cpu) / float64(b.ops))
		logs = append(logs, math.Log(x))
	}
	r.pairs = len(logs)
	if len(logs) < 2 {
		return
	}
	var mean, ss float64
	for _, l := range logs {
		mean += l
	}
	mean /= float64(len(logs))
	for _, l := range logs {
		ss += (l - mean) * (l - mean)
	}
	r.se = r.ratio * math.Sqrt(ss/float64(len(logs)-1)/float64(len(logs)))
}

// gatedDB makes every call of a DB wait for its side's turn.
type gatedDB struct {
	db   ycsb.DB
	gate *sync.RWMutex
}

func (g gatedDB) Read(ctx context.Context, table string, key []byte, fields []string, result *[]ycsb.Field) ycsb.Status {
	g.gate.RLock()
	defer g.gate.RUnlock()
	return g.db.Read(ctx, table, key, fields, result)
}

func (g gatedDB) Scan(ctx context.Context, table string, key []byte, count int, fields []string) ycsb.Status {
	g.gate.RLock()
	defer g.gate.RUnlock()
	return g.db.Scan(ctx, table, key, count, fields)
}

func (g gatedDB) Update(ctx context.Context, table string, key []byte, values []ycsb.Field) ycsb.Status {
	g.gate.RLock()
	defer g.gate.RUnlock()
	return g.db.Update(ctx, table, key, values)
}

func (g gatedDB) Insert(ctx context.Context, table string, key []byte, values []ycsb.Field) ycsb.Status {
	g.gate.RLock()
	defer g.gate.RUnlock()
	return g.db.Insert(ctx, table, key, values)
}

func (g gatedDB) Delete(ctx context.Context, table string, key []byte) ycsb.Status {
	g.gate.RLock()
	defer g.gate.RUnlock()
	return g.db.Delete(ctx, table, key)
}

func (g gatedDB) Cleanup(ctx context.Context) (int, error) {
	g.gate.RLock()
	defer g.gate.RUnlock()
	return g.db.Cleanup(ctx)
}

// loaderSide is the loader on workload wl, as benchLoader measures it.
func loaderSide(b *testing.B, child *stubmongo.Child, wl perfWorkload, n int) pairSide {
	b.Helper()
	l := newPerfLoader(b, child, wl, n)
	return pairSide{name: "loader " + wl.name, run: l.run}
}

// floorSide is the floor on workload wl, as benchFloor measures it, with
// spin of client work before each call.
func floorSide(b *testing.B, child *stubmongo.Child, wl perfWorkload, n int, spin time.Duration, own bool) pairSide {
	b.Helper()
	pf := newPerfFloor(b, child, wl, n)
	name := "floor " + wl.name
	if own {
		name = "own " + wl.name // its own pprof label: -tagfocus side=own
	}
	return pairSide{name: name, run: func(_ context.Context, gate *sync.RWMutex) (int, error) {
		return pf.run(gate, spin, own)
	}}
}

// pairedWorkloads are the pairs BenchmarkPaired measures: each workload's
// loader against its floor; the features that cost per operation
// (intended latencies, the warm-up's check) against the loader without;
// a-same, the loader against itself, which shows the method's own error
// (its ratio should be 1 within its standard error); and c-spin1us, the
// floor of workload c that also spins for a microsecond before each
// call, against the floor: what a microsecond of client work costs here.
// It costs more than a microsecond: a client that spends longer between
// calls finds the stub server idle more often, and waking it, and then
// itself, is CPU in the kernel and the Go scheduler. a-own is the floor of
// a doing the loader's own per-operation work (ownWork, floor_test.go)
// against the plain floor: the part of a's loader/floor that YCSB's
// semantics require; the rest of it is the engine and the binding around
// that work.
func pairedWorkloads() []perfWorkload {
	var out []perfWorkload
	for _, wl := range perfWorkloads {
		if !wl.telemetry && !wl.metrics {
			out = append(out, wl)
		}
	}
	return append(out,
		perfWorkload{name: "a-same", phase: ycsb.PhaseRun, props: []string{"workloada"}, feature: true},
		perfWorkload{name: "c-spin1us", phase: ycsb.PhaseRun, props: []string{"workloadc"}, spin: time.Microsecond},
		perfWorkload{name: "a-own", phase: ycsb.PhaseRun, props: []string{"workloada"}, own: true})
}

// BenchmarkPaired reports, for each workload, the loader's CPU per
// operation over its floor's measured in turns (ratio, with its standard
// error), and for a-intended and a-warmup the loader with the feature over
// the loader without. hack/perf-loader.sh runs it:
//
//	STUBMONGO_SERVER_CPUS=1 taskset -c 0 go test ./internal/loader/mongodb -run '^$' -bench 'BenchmarkPaired' -benchtime 100000x
func BenchmarkPaired(b *testing.B) {
	child := stubmongo.StartChild(b)
	base := perfWorkloads[1] // workload a, the features' base
	for _, wl := range pairedWorkloads() {
		b.Run(wl.name, func(b *testing.B) {
			if b.N == 1 {
				return // the testing package's probe run: nothing to pair
			}
			defer ConfigureLoaderGC(os.Getenv)()
			var sides [2]pairSide
			switch {
			case wl.spin > 0 || wl.own:
				sides = [2]pairSide{floorSide(b, child, wl, b.N, wl.spin, wl.own), floorSide(b, child, wl, b.N, 0, false)}
			case wl.feature:
				sides = [2]pairSide{loaderSide(b, child, wl, b.N), loaderSide(b, child, base, b.N)}
			default:
				sides = [2]pairSide{loaderSide(b, child, wl, b.N), floorSide(b, child, wl, b.N, 0, false)}
			}
			// Counters only; one more connection to the same server.
			stats := perfClient(b, child.URI(), wl)
			runtime.GC()
			b.ResetTimer()
			res, err := measurePaired(context.Background(), stats.client, wl, sides)
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			if res.pairs < 4 {
				b.Fatalf("only %d pairs of turns of %v: measure more operations (-benchtime 100000x)", res.pairs, pairSlice)
			}
			if os.Getenv("PERF_TURNS") != "" { // each turn, to see the jitter
				for _, t := range res.turns {
					b.Logf("side %d cpu %v ops %d: %.2f µs/op", t.side, t.cpu, t.ops, float64(t.cpu.Nanoseconds())/1e3/float64(t.ops))
				}
			}
			b.ReportMetric(res.ratio, "ratio")
			b.ReportMetric(res.se, "ratio-se")
			b.ReportMetric(res.cpuPerOp[0], "cpu-us/op")
			b.ReportMetric(res.cpuPerOp[1], "base-cpu-us/op")
			b.ReportMetric(float64(res.pairs), "pairs")
			b.ReportMetric(res.serverSleeps[0], "srv-sleeps/op")
			b.ReportMetric(res.serverSleeps[1], "base-srv-sleeps/op")
		})
	}
}

// TestPairedTurns checks the turns: while one side's call runs, none of
// the other's does; every turn's operations are the server's count of
// what its side sent; and both sides get turns.
func TestPairedTurns(t *testing.T) {
	defer func(d time.Duration) { pairSlice = d }(pairSlice)
	pairSlice = 5 * time.Millisecond
	srv := stubmongo.Start(t)
	ctx := context.Background()
	cfg, err := ConfigFromProperties(perfProperties(t, srv.URI(), perfWorkloads[0], 1))
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(ctx, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close(ctx) }()
	coll := c.db.Collection("usertable")
	var inFlight [2]atomic.Int64
	var overlaps atomic.Int64
	var sent [2]atomic.Int64
	side := func(i, n int) pairSide {
		return pairSide{name: "side" + strconv.Itoa(i), run: func(ctx context.Context, gate *sync.RWMutex) (int, error) {
			var wg sync.WaitGroup
			errs := make([]error, 4)
			for g := range 4 {
				wg.Go(func() {
					for range n / 4 {
						gate.RLock()
						inFlight[i].Add(1)
						if inFlight[1-i].Load() != 0 {
							overlaps.Add(1)
						}
						_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}})
						inFlight[i].Add(-1)
						gate.RUnlock()
						if err != nil {
							errs[g] = err
							return
						}
						sent[i].Add(1)
					}
				})
			}
			wg.Wait()
			return 0, errors.Join(errs...)
		}}
	}
	// Side 1 has more to do: side 0 ends first, and side 1's rest runs
	// after the last turn.
	res, err := measurePaired(ctx, c.client, perfWorkloads[0], [2]pairSide{side(0, 2000), side(1, 4000)})
	if err != nil {
		t.Fatal(err)
	}
	if n := overlaps.Load(); n != 0 {
		t.Errorf("%d calls ran while the other side's were in flight", n)
	}
	var ops [2]uint64
	for _, tu := range res.turns {
		ops[tu.side] += tu.ops
	}
	if ops[0] != uint64(sent[0].Load()) {
		t.Errorf("side 0's turns counted %d operations, it sent %d", ops[0], sent[0].Load())
	}
	if ops[1] == 0 || ops[1] >= uint64(sent[1].Load()) {
		t.Errorf("side 1's turns counted %d operations of %d: want some, not all (its rest is unmeasured)", ops[1], sent[1].Load())
	}
	if res.pairs < 2 || res.ratio <= 0 {
		t.Errorf("pairs %d, ratio %v", res.pairs, res.ratio)
	}
	// The turns alternate 0 1 1 0, so that a trend over the run cancels.
	var order []int
	for _, tu := range res.turns {
		order = append(order, tu.side)
	}
	for i, side := range order {
		if want := []int{0, 1, 1, 0}[i%4]; side != want {
			t.Fatalf("turn order %v: turn %d is side %d, want %d", order, i, side, want)
		}
	}
}

// TestPairSummary checks the pooled ratio and its standard error on turns
// made up by hand.
func TestPairSummary(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	r := pairResult{turns: []turn{
		{side: 0, cpu: ms(110), ops: 1000}, {side: 1, cpu: ms(100), ops: 1000},
		{side: 1, cpu: ms(100), ops: 1000}, {side: 0, cpu: ms(99), ops: 900},
		{side: 0, cpu: ms(55), ops: 500}, // the last, unpaired: pooled only
	}}
	r.summarize()
	if r.cpuPerOp[0] != 110 || r.cpuPerOp[1] != 100 {
		t.Errorf("cpu per op %v, want [110 100]", r.cpuPerOp)
	}
	if math.Abs(r.ratio-1.1) > 1e-12 {
		t.Errorf("ratio %v, want 1.1", r.ratio)
	}
	if r.pairs != 2 || r.se != 0 {
		t.Errorf("pairs %d, se %v: want 2 pairs of the same ratio, se 0", r.pairs, r.se)
	}
	r.turns[3].cpu = ms(120) // the second pair's ratio is no longer 1.1
	r.summarize()
	if r.se <= 0 {
		t.Errorf("se %v with two different pair ratios", r.se)
	}
}
