package ycsb_test

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/testutil/syncbuf"
	"github.com/mongobench/mongobench/internal/ycsb"
	"github.com/mongobench/mongobench/internal/ycsb/memdb"
)

// countingFactory hands out no-op DBs that count calls per thread.
type countingFactory struct {
	mu      sync.Mutex
	perDB   map[int]*atomic.Int64
	threads int
}

func (f *countingFactory) factory() ycsb.DBFactory {
	f.perDB = map[int]*atomic.Int64{}
	return func(_ context.Context, thread, threads int) (ycsb.DB, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.threads = threads
		c := &atomic.Int64{}
		f.perDB[thread] = c
		return &noopDB{calls: c}, nil
	}
}

type noopDB struct{ calls *atomic.Int64 }

func (d *noopDB) Read(context.Context, string, []byte, []string, *[]ycsb.Field) ycsb.Status {
	d.calls.Add(1)
	return ycsb.StatusOK
}
func (d *noopDB) Scan(context.Context, string, []byte, int, []string) ycsb.Status {
	d.calls.Add(1)
	return ycsb.StatusOK
}
func (d *noopDB) Update(context.Context, string, []byte, []ycsb.Field) ycsb.Status {
	d.calls.Add(1)
	return ycsb.StatusOK
}
func (d *noopDB) Insert(context.Context, string, []byte, []ycsb.Field) ycsb.Status {
	d.calls.Add(1)
	return ycsb.StatusOK
}
func (d *noopDB) Delete(context.Context, string, []byte) ycsb.Status { return ycsb.StatusOK }
func (d *noopDB) Cleanup(context.Context) (int, error)               { return 0, nil }

func TestRunSplitsOperationsExactly(t *testing.T) {
	for _, tc := range []struct {
		opcount, threads, wantThreads int
	}{
		{10, 3, 3},
		{1000, 7, 7},
		{2, 5, 2}, // threadcount clamped to the operation count
		{1, 1, 1},
	} {
		f := &countingFactory{}
		w, err := ycsb.NewWorkload(mustProps(t, "recordcount=100", "operationcount="+itoa(tc.opcount), "readproportion=1", "updateproportion=0"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := ycsb.Run(context.Background(), w, f.factory(), ycsb.RunOptions{Phase: ycsb.PhaseRun, Threads: tc.threads, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if res.Threads != tc.wantThreads || f.threads != tc.wantThreads || len(f.perDB) != tc.wantThreads {
			t.Fatalf("%+v: %d threads (factory saw %d, %d DBs)", tc, res.Threads, f.threads, len(f.perDB))
		}
		for i := range tc.wantThreads {
			want := int64(tc.opcount / tc.wantThreads)
			if i < tc.opcount%tc.wantThreads {
				want++
			}
			if got := f.perDB[i].Load(); got != want {
				t.Errorf("%+v: thread %d did %d operations, want %d", tc, i, got, want)
			}
		}
		if res.Operations != int64(tc.opcount) || res.StopReason != results.StopCompleted || res.PlannedOperations != int64(tc.opcount) {
			t.Errorf("%+v: operations %d, stop %s", tc, res.Operations, res.StopReason)
		}
		if c := res.Op(ycsb.OpCleanup); c == nil || c.OK.Count() != int64(tc.wantThreads) {
			t.Errorf("%+v: CLEANUP measured %v times, want once per thread", tc, c)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestRunThrottlesToTarget(t *testing.T) {
	// 200 ops/s over 2 threads: a tick of 10 ms per thread; 100 operations
	// take 49 ticks after the first, ~0.49 s.
	w, _ := ycsb.NewWorkload(mustProps(t, "recordcount=100", "operationcount=100", "readproportion=1", "updateproportion=0"))
	f := &countingFactory{}
	res, err := ycsb.Run(context.Background(), w, f.factory(), ycsb.RunOptions{Phase: ycsb.PhaseRun, Threads: 2, Target: 200, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Operations != 100 {
		t.Fatalf("%d operations", res.Operations)
	}
	// The schedule bounds the runtime from below (each thread's 50th
	// operation ends 49 ticks after its first, and the thread then waits
	// out the 50th tick): never faster than the target. From above only a
	// throttle an order of magnitude off is caught: a busy machine delays
	// operations, and the schedule catches up, but by no fixed amount.
	if res.RuntimeMillis < 450 || res.RuntimeMillis > 10_000 {
		t.Fatalf("runtime %d ms, want ~500 ms for 100 ops at 200 ops/s", res.RuntimeMillis)
	}
	if tp := res.Throughput(); tp < 10 || tp > 222 {
		t.Fatalf("throughput %.1f ops/s, target 200", tp)
	}
}

// blockingStore returns a store whose reads block until their context ends.
func blockingStore() *memdb.Store {
	return memdb.New(memdb.Options{Hook: func(ctx context.Context, op ycsb.Op, _ []byte) (ycsb.Status, bool) {
		if op != ycsb.OpRead {
			return ycsb.StatusOK, false
		}
		<-ctx.Done()
		return ycsb.StatusError, true
	}})
}

func TestMaxExecutionTimeEndsBlockedCalls(t *testing.T) {
	w, _ := ycsb.NewWorkload(mustProps(t, "recordcount=100", "readproportion=1", "updateproportion=0"))
	start := time.Now()
	res, err := ycsb.Run(context.Background(), w, blockingStore().Factory(), ycsb.RunOptions{
		Phase: ycsb.PhaseRun, Threads: 4, MaxExecutionTime: 200 * time.Millisecond, StopGrace: 100 * time.Millisecond, Seed: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	// Without the stop the blocked reads would never end: any bound
	// catches that, and a generous one spares a busy machine.
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("run took %v", took)
	}
	if res.StopReason != results.StopMaxExecutionTime {
		t.Fatalf("stop reason %s", res.StopReason)
	}
	// Each thread's one read was cut off by the context: 4 failed reads.
	r := res.Op(ycsb.OpRead)
	if r == nil || r.Statuses.Get(ycsb.StatusError) != 4 || r.Failed.Count() != 4 || res.Operations != 4 {
		t.Fatalf("reads %+v, operations %d", r, res.Operations)
	}
	if res.RuntimeMillis < 300 {
		t.Fatalf("runtime %d ms: calls ended before max execution time + grace", res.RuntimeMillis)
	}
}

func TestCancellationReturnsPartialResults(t *testing.T) {
	// Cancelled mid-run: after its 100th operation, however long that took.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls atomic.Int64
	store := memdb.New(memdb.Options{Hook: func(ctx context.Context, op ycsb.Op, _ []byte) (ycsb.Status, bool) {
		if calls.Add(1) == 100 {
			cancel()
		}
		time.Sleep(100 * time.Microsecond)
		return ycsb.StatusOK, false
	}})
	w, _ := ycsb.NewWorkload(mustProps(t, "recordcount=50", "insertorder=ordered")) // unlimited load
	res, err := ycsb.Run(ctx, w, store.Factory(), ycsb.RunOptions{Phase: ycsb.PhaseRun, Threads: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != results.StopCancelled || res.Operations == 0 {
		t.Fatalf("stop %s after %d operations", res.StopReason, res.Operations)
	}
	total := int64(0)
	for _, m := range res.Ops {
		if m.Op == ycsb.OpRead || m.Op == ycsb.OpUpdate {
			total += m.Statuses.Total()
		}
	}
	if total != res.Operations {
		t.Fatalf("%d measured operations, %d done", total, res.Operations)
	}
	if r := res.ToResult("h"); !r.Partial() || r.Validate() != nil {
		t.Fatalf("result partial=%v validate=%v", r.Partial(), r.Validate())
	}
	if c := res.Op(ycsb.OpCleanup); c == nil || c.OK.Count() != 3 {
		t.Fatal("cleanup not run after cancellation")
	}
}

func TestCleanupFlushAccounting(t *testing.T) {
	kv := []string{"recordcount=25", "fieldcount=2", "fieldlength=10"}
	t.Run("flushed", func(t *testing.T) {
		store := memdb.New(memdb.Options{BatchSize: 10})
		w, _ := ycsb.NewWorkload(mustProps(t, kv...))
		res, err := ycsb.Run(context.Background(), w, store.Factory(), ycsb.RunOptions{Phase: ycsb.PhaseLoad, Threads: 1, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if store.Len() != 25 {
			t.Fatalf("%d records stored, want 25 (trailing partial batch lost?)", store.Len())
		}
		ins := res.Op(ycsb.OpInsert)
		if ins.Statuses.Get(ycsb.StatusBatchedOK) != 23 || ins.Statuses.Get(ycsb.StatusOK) != 2 || ins.OK.Count() != 25 {
			t.Fatalf("INSERT statuses %v", ins.Statuses)
		}
		if res.FailedBufferedInserts != 0 || len(res.CleanupErrors) != 0 {
			t.Fatalf("failed %d errors %v", res.FailedBufferedInserts, res.CleanupErrors)
		}
	})
	t.Run("flush fails", func(t *testing.T) {
		store := memdb.New(memdb.Options{BatchSize: 10, FailFlush: true})
		w, _ := ycsb.NewWorkload(mustProps(t, kv...))
		res, err := ycsb.Run(context.Background(), w, store.Factory(), ycsb.RunOptions{Phase: ycsb.PhaseLoad, Threads: 1, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if res.FailedBufferedInserts != 5 || len(res.CleanupErrors) != 1 || !errors.Is(res.CleanupErrors[0], memdb.ErrFlush) {
			t.Fatalf("failed %d errors %v", res.FailedBufferedInserts, res.CleanupErrors)
		}
		if c := res.Op(ycsb.OpCleanup); c.Failed.Count() != 1 || c.Statuses.Get(ycsb.StatusError) != 1 {
			t.Fatalf("CLEANUP %+v", c.Statuses)
		}
		var out bytes.Buffer
		if err := ycsb.WriteText(&out, res, []float64{95, 99}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "[INSERT], FailedBufferedInserts, 5\n") {
			t.Fatalf("report does not mention the lost inserts:\n%s", out.String())
		}
	})
}

func TestLoadInsertRetriesAndThreadStop(t *testing.T) {
	var attempts atomic.Int64
	failFirst := func(n int64) memdb.Hook {
		return func(ctx context.Context, op ycsb.Op, _ []byte) (ycsb.Status, bool) {
			if op == ycsb.OpInsert && attempts.Add(1) <= n {
				return ycsb.StatusError, true
			}
			return ycsb.StatusOK, false
		}
	}
	// Two failures, retry limit 2 with no back-off: the insert succeeds.
	attempts.Store(0)
	store := memdb.New(memdb.Options{Hook: failFirst(2)})
	w, _ := ycsb.NewWorkload(mustProps(t, "recordcount=5", "core_workload_insertion_retry_limit=2", "core_workload_insertion_retry_interval=0"))
	res, err := ycsb.Run(context.Background(), w, store.Factory(), ycsb.RunOptions{Phase: ycsb.PhaseLoad, Threads: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ins := res.Op(ycsb.OpInsert)
	if store.Len() != 5 || ins.Statuses.Get(ycsb.StatusError) != 2 || ins.Failed.Count() != 2 || res.Operations != 5 {
		t.Fatalf("stored %d, INSERT %v, operations %d", store.Len(), ins.Statuses, res.Operations)
	}
	// Without retries the thread stops at its first failure (YCSB 0.17.0).
	attempts.Store(0)
	store = memdb.New(memdb.Options{Hook: failFirst(1)})
	w, _ = ycsb.NewWorkload(mustProps(t, "recordcount=5"))
	res, _ = ycsb.Run(context.Background(), w, store.Factory(), ycsb.RunOptions{Phase: ycsb.PhaseLoad, Threads: 1, Seed: 1})
	if res.Operations != 0 || res.ThreadsStoppedOnInsertFailure != 1 || store.Len() != 0 {
		t.Fatalf("operations %d, stopped threads %d, stored %d", res.Operations, res.ThreadsStoppedOnInsertFailure, store.Len())
	}
}

func TestRunStatusLinesAndSeries(t *testing.T) {
	w, _ := ycsb.NewWorkload(mustProps(t, "recordcount=100", "readproportion=0.5", "updateproportion=0.5"))
	store := memdb.New(memdb.Options{Hook: func(context.Context, ycsb.Op, []byte) (ycsb.Status, bool) {
		time.Sleep(200 * time.Microsecond)
		return ycsb.StatusOK, true // succeed without a loaded store
	}})
	// The run lasts until two status lines after the first are out (a
	// deadline only a broken status thread pays), so a slow machine makes
	// it longer, never shorter than the schedule the test checks.
	var status syncbuf.Buffer
	lines := func() []string { return strings.Split(strings.TrimSpace(status.String()), "\n") }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		defer cancel()
		for deadline := time.Now().Add(30 * time.Second); len(lines()) < 3 && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond) // poll interval, bounded by the deadline
		}
	}()
	begin := time.Now()
	res, err := ycsb.Run(ctx, w, store.Factory(), ycsb.RunOptions{
		Phase: ycsb.PhaseRun, Threads: 2, Status: &status, StatusInterval: time.Second, Label: "lbl ", Seed: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(begin)
	got := lines()
	// One at the start, one per second (a ticker: never early, fewer
	// when the machine is slow), one at the end.
	if maxLines := 2 + int(elapsed/time.Second); len(got) < 4 || len(got) > maxLines {
		t.Fatalf("%d status lines after %v, want 4 to %d:\n%s", len(got), elapsed, maxLines, status.String())
	}
	first := regexp.MustCompile(`^lbl \d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3} 0 sec: 0 operations; $`)
	if !first.MatchString(got[0]) {
		t.Errorf("first line %q", got[0])
	}
	mid := regexp.MustCompile(`^lbl \d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3} \d+ sec: \d+ operations; [\d.]+ current ops/sec; ` +
		`\[READ: Count=\d+, Max=\d+, Min=\d+, Avg=[\d.]+, 90=\d+, 99=\d+, 99\.9=\d+, 99\.99=\d+\] ` +
		`\[UPDATE: Count=\d+, Max=\d+, Min=\d+, Avg=[\d.]+, 90=\d+, 99=\d+, 99\.9=\d+, 99\.99=\d+\] $`)
	if !mid.MatchString(got[1]) {
		t.Errorf("second line %q", got[1])
	}
	// The i-th tick's line comes i seconds or more after the start.
	secs := regexp.MustCompile(` (\d+) sec: `)
	for i := 1; i < len(got)-1; i++ {
		n := -1
		if m := secs.FindStringSubmatch(got[i]); m != nil {
			n, _ = strconv.Atoi(m[1])
		}
		if n < i {
			t.Errorf("line %d (tick %d) is not %d s or more after the start: %q", i, i, i, got[i])
		}
	}
	if !strings.Contains(got[len(got)-1], "[CLEANUP: Count=2") {
		t.Errorf("last line lacks CLEANUP: %q", got[len(got)-1])
	}
	// Series: one point per tick and the last one, shorter; counts add up.
	if maxPoints := 1 + int(elapsed/time.Second); res.Series.IntervalMillis != 1000 || len(res.Series.Points) < 3 || len(res.Series.Points) > maxPoints {
		t.Fatalf("series %d points of %d ms after %v", len(res.Series.Points), res.Series.IntervalMillis, elapsed)
	}
	var n int64
	for _, p := range res.Series.Points {
		for _, o := range p.Ops {
			if o.Name == "READ" || o.Name == "UPDATE" {
				n += o.Count
			}
		}
	}
	if n != res.Operations {
		t.Fatalf("series counts %d operations, run did %d", n, res.Operations)
	}
	r := res.ToResult("host")
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := results.Encode(r); err != nil {
		t.Fatal(err)
	}
}

func TestRunRejectsBadInput(t *testing.T) {
	w, _ := ycsb.NewWorkload(mustProps(t, "recordcount=10", "readproportion=0", "updateproportion=0"))
	if _, err := ycsb.Run(context.Background(), w, memdb.New(memdb.Options{}).Factory(), ycsb.RunOptions{Phase: ycsb.PhaseRun, Threads: 1}); err == nil {
		t.Error("run phase without operations accepted")
	}
	if _, err := ycsb.Run(context.Background(), w, memdb.New(memdb.Options{}).Factory(), ycsb.RunOptions{Phase: ycsb.PhaseLoad, Threads: 0}); err == nil {
		t.Error("zero threads accepted")
	}
	var opened atomic.Int64
	failing := func(_ context.Context, thread, _ int) (ycsb.DB, error) {
		if thread == 1 {
			return nil, errors.New("boom")
		}
		opened.Add(1)
		return &noopDB{calls: &atomic.Int64{}}, nil
	}
	if _, err := ycsb.Run(context.Background(), w, failing, ycsb.RunOptions{Phase: ycsb.PhaseLoad, Threads: 3}); err == nil || !strings.Contains(err.Error(), "thread 1") {
		t.Errorf("factory failure: %v", err)
	}
}

func TestRunOptionsFromProperties(t *testing.T) {
	var buf bytes.Buffer
	o, err := ycsb.RunOptionsFromProperties(mustProps(t, "threadcount=8", "target=1000", "maxexecutiontime=60", "status=true", "status.interval=5", "label=x"), ycsb.PhaseRun, &buf)
	if err != nil {
		t.Fatal(err)
	}
	if o.Threads != 8 || o.Target != 1000 || o.MaxExecutionTime != time.Minute || o.Status != &buf || o.StatusInterval != 5*time.Second || o.Label != "x" {
		t.Fatalf("%+v", o)
	}
	o, _ = ycsb.RunOptionsFromProperties(mustProps(t), ycsb.PhaseLoad, &buf)
	if o.Threads != 1 || o.Status != nil || o.StatusInterval != 10*time.Second {
		t.Fatalf("defaults %+v", o)
	}
	for _, bad := range []string{"threadcount=0", "measurementtype=timeseries", "measurement.interval=timeline", "target=-1",
		"warmuptime=-1", "warmupoperations=-5", "warmuptime=5\nwarmupoperations=10", "threadcount=x"} {
		if _, err := ycsb.RunOptionsFromProperties(mustProps(t, bad), ycsb.PhaseRun, nil); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
