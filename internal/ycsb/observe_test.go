package ycsb_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/ycsb"
	"github.com/mongobench/mongobench/internal/ycsb/memdb"
)

// countingObserver sums what it observes, warm-up and measured apart, as
// the loader's metrics do: it merges and keeps nothing of the collector's.
type countingObserver struct {
	calls                  int
	warm, measured         map[string]int64
	failed                 map[string]int64
	latency, intended      *results.Histogram
	warmAfterMeasure, errs int
	sawMeasured            bool
}

func (c *countingObserver) Observe(o *ycsb.Observation) {
	c.calls++
	if o.Warmup && c.sawMeasured {
		c.warmAfterMeasure++
	}
	c.sawMeasured = c.sawMeasured || !o.Warmup
	for _, op := range o.Ops {
		if op.OK == nil && op.Failed == nil {
			c.errs++
		}
		m := c.measured
		if o.Warmup {
			m = c.warm
		}
		m[op.Op.String()] += op.OK.Count() + op.Failed.Count()
		c.failed[op.Op.String()] += op.Failed.Count()
		if op.Op == ycsb.OpRead {
			c.latency.Merge(op.OK)
			c.intended.Merge(op.IntendedOK)
		}
	}
}

// TestObserverSeesEveryOperationOnce: what an Observer is handed over a
// run adds up to the run's own counts, the warm-up's apart from the
// measured window's, failures as failures; the intended latencies come
// when measurement.interval measures them; nothing comes twice.
func TestObserverSeesEveryOperationOnce(t *testing.T) {
	w, _ := ycsb.NewWorkload(mustProps(t, "recordcount=50", "operationcount=3000", "readproportion=0.5", "updateproportion=0.5"))
	var n atomic.Int64
	store := memdb.New(memdb.Options{Hook: func(_ context.Context, op ycsb.Op, _ []byte) (ycsb.Status, bool) {
		if op == ycsb.OpUpdate && n.Add(1)%10 == 0 {
			return ycsb.StatusError, true
		}
		return ycsb.StatusOK, true // answered here: the store is empty
	}})
	obs := &countingObserver{warm: map[string]int64{}, measured: map[string]int64{}, failed: map[string]int64{},
		latency: results.NewHistogram(), intended: results.NewHistogram()}
	res, err := ycsb.Run(context.Background(), w, store.Factory(), ycsb.RunOptions{
		Phase: ycsb.PhaseRun, Threads: 3, Seed: 7, WarmupOperations: 500, Interval: ycsb.IntervalBoth, Observer: obs,
	})
	if err != nil {
		t.Fatal(err)
	}
	if obs.calls == 0 || obs.errs > 0 || obs.warmAfterMeasure > 0 {
		t.Fatalf("%d observations, %d empty operations, %d warm-up observations after measuring", obs.calls, obs.errs, obs.warmAfterMeasure)
	}
	var warm, measured int64
	for _, v := range obs.warm {
		warm += v
	}
	for name, v := range obs.measured {
		if name != "CLEANUP" {
			measured += v
		}
	}
	if warm != res.Warmup.Operations || measured != res.Operations {
		t.Errorf("observed %d warm-up and %d measured operations, the run counted %d and %d", warm, measured, res.Warmup.Operations, res.Operations)
	}
	if obs.measured["CLEANUP"] != 3 {
		t.Errorf("observed %d CLEANUPs, want one per thread", obs.measured["CLEANUP"])
	}
	var wantFailed int64
	for _, op := range append(res.Ops, res.Warmup.Ops...) {
		if op.Op != ycsb.OpUpdate && op.Failed.Count() > 0 {
			t.Errorf("%d %s failed", op.Failed.Count(), op.Op)
		}
		wantFailed += op.Failed.Count()
	}
	if obs.failed["UPDATE"] == 0 || obs.failed["UPDATE"] != wantFailed {
		t.Errorf("observed %d failed UPDATEs, the run measured %d", obs.failed["UPDATE"], wantFailed)
	}
	if obs.latency.Count() != obs.warm["READ"]+obs.measured["READ"] || obs.intended.Count() != obs.latency.Count() {
		t.Errorf("READ latencies %d, intended %d, operations %d", obs.latency.Count(), obs.intended.Count(), obs.warm["READ"]+obs.measured["READ"])
	}
}
