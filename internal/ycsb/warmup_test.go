package ycsb_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/ycsb"
	"github.com/mongobench/mongobench/internal/ycsb/memdb"
)

// slowStore succeeds every call after d, logging when each started.
func slowStore(log *callLog, d time.Duration) *memdb.Store {
	return memdb.New(memdb.Options{Hook: func(context.Context, ycsb.Op, []byte) (ycsb.Status, bool) {
		log.mu.Lock()
		log.enter = append(log.enter, time.Now())
		log.mu.Unlock()
		time.Sleep(d)
		return ycsb.StatusOK, true
	}})
}

// countBefore counts the calls that started before t.
func (l *callLog) countBefore(t time.Time) (before, after int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range l.enter {
		if e.Before(t) {
			before++
		} else {
			after++
		}
	}
	return before, after
}

// TestTimedWarmup: the first 400 ms go to the warm-up; the measured window
// starts when it ends and lasts maxexecutiontime from there. Every call
// that started before the window is a warm-up operation (a thread changes
// recorders only between operations, so a warm-up operation may straddle
// the window's start, a measured one never precedes it).
func TestTimedWarmup(t *testing.T) {
	w, _ := ycsb.NewWorkload(mustProps(t, "recordcount=100", "operationcount=0", "readproportion=1", "updateproportion=0"))
	log := &callLog{}
	var measureStart time.Time
	res, err := ycsb.Run(context.Background(), w, slowStore(log, time.Millisecond).Factory(), ycsb.RunOptions{
		Phase: ycsb.PhaseRun, Threads: 2, Seed: 1, Warmup: 400 * time.Millisecond, MaxExecutionTime: time.Second,
		OnMeasure: func(t time.Time) { measureStart = t },
	})
	if err != nil {
		t.Fatal(err)
	}
	wu := res.Warmup
	if wu == nil || wu.Operations == 0 || !res.Start.Equal(wu.End) || !measureStart.Equal(res.Start) {
		t.Fatalf("warm-up %+v, measured window from %v (OnMeasure %v)", wu, res.Start, measureStart)
	}
	// Timers fire late on a busy machine, never early.
	if d := wu.End.Sub(wu.Start); d < 400*time.Millisecond || d > 3*time.Second {
		t.Errorf("warm-up lasted %v", d)
	}
	if res.RuntimeMillis < 1000 || res.RuntimeMillis > 4000 || res.StopReason != "MaxExecutionTime" {
		t.Errorf("measured window %d ms, stopped by %s: maxexecutiontime counts from the end of the warm-up", res.RuntimeMillis, res.StopReason)
	}
	before, after := log.countBefore(res.Start)
	if before > wu.Operations || after < res.Operations || before+after != wu.Operations+res.Operations {
		t.Errorf("%d calls before the window and %d after; warm-up %d, measured %d", before, after, wu.Operations, res.Operations)
	}
	checkOpsCounted(t, res)
	// The series covers the measured window only.
	var inSeries int64
	for _, p := range res.Series.Points {
		if op := p.Op("READ"); op != nil {
			inSeries += op.Count
		}
	}
	if inSeries != res.Operations || len(res.Series.Points) > 5 {
		t.Errorf("series: %d operations in %d points, measured %d", inSeries, len(res.Series.Points), res.Operations)
	}
	var report bytes.Buffer
	if err := ycsb.WriteText(&report, res, []float64{99}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[WARMUP], Operations, ", "[WARMUP-READ], Operations, ", "[WARMUP-READ], Return=OK, "} {
		if !strings.Contains(report.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, report.String())
		}
	}
	r := res.ToResult("h")
	if r.Warmup == nil || r.Warmup.Operations != wu.Operations || r.Warmup.Op("READ").Total() != wu.Operations {
		t.Fatalf("result warm-up %+v", r.Warmup)
	}
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
}

// checkOpsCounted: the measured and warm-up measurements count exactly the
// operations each says it ran (a READ per operation here).
func checkOpsCounted(t *testing.T, res *ycsb.RunResult) {
	t.Helper()
	if got := res.Op(ycsb.OpRead).Statuses.Total(); got != res.Operations {
		t.Errorf("measured READ statuses %d, operations %d", got, res.Operations)
	}
	var warm int64
	for _, m := range res.Warmup.Ops {
		if m.Op == ycsb.OpRead {
			warm = m.Statuses.Total()
		}
	}
	if warm != res.Warmup.Operations {
		t.Errorf("warm-up READ statuses %d, operations %d", warm, res.Warmup.Operations)
	}
}

// TestWarmupOperationsRunPhase: a run phase's warm-up comes on top of its
// operation count; it ends when the loader's threads together did the
// warm-up's operations (plus those already under way, at most one per other
// thread).
func TestWarmupOperationsRunPhase(t *testing.T) {
	w, _ := ycsb.NewWorkload(mustProps(t, "recordcount=100", "operationcount=300", "readproportion=1", "updateproportion=0"))
	log := &callLog{}
	res, err := ycsb.Run(context.Background(), w, slowStore(log, 100*time.Microsecond).Factory(), ycsb.RunOptions{
		Phase: ycsb.PhaseRun, Threads: 3, Seed: 1, WarmupOperations: 50,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Operations != 300 || res.Warmup == nil || res.Warmup.Operations < 50 || res.Warmup.Operations > 52 {
		t.Fatalf("measured %d, warm-up %+v", res.Operations, res.Warmup)
	}
	if n := int64(len(log.enter)); n != res.Operations+res.Warmup.Operations {
		t.Errorf("%d calls for %d + %d operations", n, res.Operations, res.Warmup.Operations)
	}
	checkOpsCounted(t, res)
}

// TestWarmupOperationsLoadPhase: a load phase's warm-up inserts are records
// of the data set, which stays recordcount records.
func TestWarmupOperationsLoadPhase(t *testing.T) {
	w, _ := ycsb.NewWorkload(mustProps(t, "recordcount=300"))
	store := memdb.New(memdb.Options{})
	res, err := ycsb.Run(context.Background(), w, store.Factory(), ycsb.RunOptions{
		Phase: ycsb.PhaseLoad, Threads: 2, Seed: 1, WarmupOperations: 100,
	})
	if err != nil {
		t.Fatal(err)
	}
	if store.Len() != 300 || res.Warmup == nil || res.Operations+res.Warmup.Operations != 300 || res.Warmup.Operations < 100 {
		t.Fatalf("stored %d, measured %d, warm-up %+v", store.Len(), res.Operations, res.Warmup)
	}
	if got := res.Op(ycsb.OpInsert).Statuses.Total(); got != res.Operations {
		t.Errorf("measured INSERT statuses %d, operations %d", got, res.Operations)
	}
	// Nothing would be left to measure.
	if _, err := ycsb.Run(context.Background(), w, memdb.New(memdb.Options{}).Factory(), ycsb.RunOptions{
		Phase: ycsb.PhaseLoad, Threads: 2, WarmupOperations: 300}); err == nil {
		t.Error("a warm-up of every record was accepted")
	}
}

// TestStopDuringWarmup: a stop before the warm-up ended leaves an empty
// measured window and the warm-up's measurements.
func TestStopDuringWarmup(t *testing.T) {
	w, _ := ycsb.NewWorkload(mustProps(t, "recordcount=100", "operationcount=0", "readproportion=1", "updateproportion=0"))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	res, err := ycsb.Run(ctx, w, slowStore(&callLog{}, time.Millisecond).Factory(), ycsb.RunOptions{
		Phase: ycsb.PhaseRun, Threads: 2, Seed: 1, Warmup: time.Hour, StopGrace: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != "Cancelled" || res.Operations != 0 || res.RuntimeMillis != 0 || res.Warmup == nil || res.Warmup.Operations == 0 ||
		len(res.Series.Points) != 0 {
		t.Fatalf("stopped in the warm-up: %+v, warm-up %+v", res, res.Warmup)
	}
	if err := res.ToResult("h").Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestReadyRunsBeforeTheClock: the run starts when Ready returns, and
// fails with its error.
func TestReadyRunsBeforeTheClock(t *testing.T) {
	w, _ := ycsb.NewWorkload(mustProps(t, "recordcount=100", "operationcount=10"))
	var ready time.Time
	res, err := ycsb.Run(context.Background(), w, loadStore(t, "recordcount=100").Factory(), ycsb.RunOptions{
		Phase: ycsb.PhaseRun, Threads: 1, Ready: func(context.Context, int) error {
			time.Sleep(50 * time.Millisecond)
			ready = time.Now()
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Start.Before(ready) {
		t.Fatalf("started %v, ready %v, runtime %d ms", res.Start, ready, res.RuntimeMillis)
	}
	_, err = ycsb.Run(context.Background(), w, loadStore(t, "recordcount=100").Factory(), ycsb.RunOptions{
		Phase: ycsb.PhaseRun, Threads: 1, Ready: func(context.Context, int) error { return context.DeadlineExceeded }})
	if err == nil {
		t.Fatal("a failed Ready did not fail the run")
	}
}

// TestWarmupOutlastingTheLoad: a timed warm-up longer than the load it
// warms up leaves an empty measured window, and says so.
func TestWarmupOutlastingTheLoad(t *testing.T) {
	w, _ := ycsb.NewWorkload(mustProps(t, "recordcount=200"))
	store := memdb.New(memdb.Options{})
	res, err := ycsb.Run(context.Background(), w, store.Factory(), ycsb.RunOptions{
		Phase: ycsb.PhaseLoad, Threads: 2, Seed: 1, Warmup: time.Hour,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.WarmupUnfinished || res.Operations != 0 || res.Warmup.Operations != 200 || store.Len() != 200 || res.StopReason != "Completed" {
		t.Fatalf("unfinished %v, measured %d, warm-up %+v, stored %d", res.WarmupUnfinished, res.Operations, res.Warmup, store.Len())
	}
	// A warm-up that ended is not unfinished.
	res, err = ycsb.Run(context.Background(), w, memdb.New(memdb.Options{}).Factory(), ycsb.RunOptions{
		Phase: ycsb.PhaseLoad, Threads: 2, Seed: 1, WarmupOperations: 50,
	})
	if err != nil || res.WarmupUnfinished {
		t.Fatalf("%v, unfinished %v", err, res.WarmupUnfinished)
	}
}
