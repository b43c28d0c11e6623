package ycsb_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/ycsb"
	"github.com/mongobench/mongobench/internal/ycsb/memdb"
)

// callLog records when each call entered and left the (stub) database.
type callLog struct {
	mu          sync.Mutex
	enter, exit []time.Time
}

// stallingStore is a memdb store whose calls succeed at once, except call
// number stallAt, which takes stall: a server that stops for a moment.
func stallingStore(log *callLog, stallAt int, stall time.Duration) *memdb.Store {
	return memdb.New(memdb.Options{Hook: func(context.Context, ycsb.Op, []byte) (ycsb.Status, bool) {
		log.mu.Lock()
		n := len(log.enter)
		log.enter = append(log.enter, time.Now())
		log.mu.Unlock()
		if n == stallAt {
			time.Sleep(stall)
		}
		log.mu.Lock()
		log.exit = append(log.exit, time.Now())
		log.mu.Unlock()
		return ycsb.StatusOK, true
	}})
}

// TestIntendedLatencyUnderAStall: one thread at 200 ops/s (a 5 ms tick)
// whose 100th call stalls for 1 s. The calls after it start late and run
// back to back until the thread catches up with its schedule: their
// service times stay small, but each one's intended latency, measured from
// its slot on the schedule (YCSB's ClientThread.throttleNanos: threadStart
// + i·tick), carries the delay. The test computes every operation's
// intended latency from the schedule and the calls' times itself and
// checks the loader's histogram against it.
func TestIntendedLatencyUnderAStall(t *testing.T) {
	const (
		ops     = 600
		target  = 200
		stallAt = 100
		stall   = time.Second
	)
	tick := time.Second / target
	w, err := ycsb.NewWorkload(mustProps(t, "recordcount=100", "operationcount=600", "readproportion=1", "updateproportion=0"))
	if err != nil {
		t.Fatal(err)
	}
	log := &callLog{}
	var report bytes.Buffer
	res, err := ycsb.Run(context.Background(), w, stallingStore(log, stallAt, stall).Factory(), ycsb.RunOptions{
		Phase: ycsb.PhaseRun, Threads: 1, Target: target, Seed: 1, Interval: ycsb.IntervalIntended,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := ycsb.WriteText(&report, res, []float64{50, 99, 99.9}); err != nil {
		t.Fatal(err)
	}
	read := res.Op(ycsb.OpRead)
	if read == nil || read.OK.Count() != ops || read.IntendedOK.Count() != ops {
		t.Fatalf("READ measured %+v", read)
	}

	// The schedule: the thread starts just before its first call; call
	// i ≥ 1 was meant to start at start + i·tick; call 0 has no slot of its
	// own (YCSB's holder is empty), so its intended start is its start.
	want := results.NewHistogram()
	start := log.enter[0]
	for i := range ops {
		intendedStart := log.enter[0]
		if i > 0 {
			intendedStart = start.Add(time.Duration(i) * tick)
		}
		want.Record(log.exit[i].Sub(intendedStart).Microseconds())
	}
	for _, p := range []float64{50, 90, 99, 99.9, 100} {
		got, exp := read.IntendedOK.Percentile(p), want.Percentile(p)
		// The loader's clock reads are microseconds off the hook's, and
		// the thread's start is a little before its first call.
		if d := got - exp; d < -2000 || d > 2000 {
			t.Errorf("intended p%v = %d µs, the schedule says %d µs", p, got, exp)
		}
	}
	// What coordinated omission hides: the stall delayed ~200 calls
	// (its length in ticks), yet only one call was slow.
	if p99 := read.OK.Percentile(99); p99 > 50_000 {
		t.Errorf("service-time p99 %d µs: only one call in %d was slow", p99, ops)
	}
	if maxv := read.IntendedOK.Percentile(100); maxv < stall.Microseconds() {
		t.Errorf("intended max %d µs, less than the stall", maxv)
	}
	if p99 := read.IntendedOK.Percentile(99); p99 < 900_000 {
		t.Errorf("intended p99 %d µs: the calls the stall delayed should dominate it", p99)
	}
	// measurement.interval=intended: YCSB reports the intended latencies
	// under the operation's own name, with its Return lines.
	if !strings.Contains(report.String(), "[READ], Return=OK, 600\n") || strings.Contains(report.String(), "Intended-") {
		t.Errorf("report:\n%s", report.String())
	}
	if got := reportValue(t, report.String(), "[READ], 99thPercentileLatency(us)"); got != read.IntendedOK.Percentile(99) {
		t.Errorf("report's READ p99 %d is not the intended p99 %d", got, read.IntendedOK.Percentile(99))
	}
}

// TestIntendedWithoutTarget: without a target no operation has a slot on a
// schedule, so, as in YCSB, intended latency is the service time.
func TestIntendedWithoutTarget(t *testing.T) {
	w, err := ycsb.NewWorkload(mustProps(t, "recordcount=100", "operationcount=300", "readproportion=0.5", "updateproportion=0",
		"readmodifywriteproportion=0.5"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := ycsb.Run(context.Background(), w, stallingStore(&callLog{}, 50, 20*time.Millisecond).Factory(), ycsb.RunOptions{
		Phase: ycsb.PhaseRun, Threads: 2, Seed: 1, Interval: ycsb.IntervalBoth,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Ops {
		if m.IntendedOK.Count() != m.OK.Count() || m.IntendedFailed.Count() != m.Failed.Count() {
			t.Fatalf("%s: %d intended for %d measured", m.Op, m.IntendedOK.Count(), m.OK.Count())
		}
		for _, p := range []float64{0, 50, 99, 100} {
			if a, b := m.OK.Percentile(p), m.IntendedOK.Percentile(p); b < a || b > a+a/50+2 {
				t.Errorf("%s p%v: intended %d µs, service time %d µs", m.Op, p, b, a)
			}
		}
	}
	r := res.ToResult("h")
	if r.MeasurementInterval != results.IntervalBoth || r.Op("READ-MODIFY-WRITE").Intended.Count() == 0 {
		t.Fatalf("result: interval %q, %+v", r.MeasurementInterval, r.Op("READ-MODIFY-WRITE"))
	}
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestOpIntervalKeepsNoIntended: the default measures service times only,
// at no extra cost.
func TestOpIntervalKeepsNoIntended(t *testing.T) {
	w, _ := ycsb.NewWorkload(mustProps(t, "recordcount=100", "operationcount=100"))
	res, err := ycsb.Run(context.Background(), w, stallingStore(&callLog{}, -1, 0).Factory(), ycsb.RunOptions{
		Phase: ycsb.PhaseRun, Threads: 1, Target: 10000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Ops {
		if m.IntendedOK != nil || m.IntendedFailed != nil {
			t.Fatalf("%s has intended latencies with measurement.interval op", m.Op)
		}
	}
	if r := res.ToResult("h"); r.MeasurementInterval != "" || r.CombinedIntended() != nil {
		t.Fatalf("result says %q", r.MeasurementInterval)
	}
}

// TestTextIntervals: the text output of each measurement.interval, line
// for line as YCSB 0.17.0's Measurements.exportMeasurements prints it: op
// blocks only; intended blocks under the operations' names with the Return
// lines; op blocks then "Intended-<OP>" blocks without them.
func TestTextIntervals(t *testing.T) {
	h := func(vals ...int64) *results.Histogram {
		x := results.NewHistogram()
		for _, v := range vals {
			x.Record(v)
		}
		return x
	}
	r := &results.Result{
		RuntimeMillis: 1000, Operations: 3,
		Ops: []results.OpResult{
			{Name: "READ", Statuses: map[string]int64{"OK": 2, "ERROR": 1}, Latency: h(100, 200), Failed: h(50),
				Intended: h(1100, 1200), IntendedFailed: h(1050)},
			{Name: "CLEANUP", Statuses: map[string]int64{"OK": 1}, Latency: h(7), Intended: h(7)},
		},
	}
	render := func(interval string) string {
		r.MeasurementInterval = interval
		var b bytes.Buffer
		if err := ycsb.WriteTextSummary(&b, ycsb.ResultTextSummary(r, []float64{99})); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	head := "[OVERALL], RunTime(ms), 1000\n[OVERALL], Throughput(ops/sec), 3.0\n"
	blk := func(name string, n, avg, minv, maxv, p99 string) string {
		return "[" + name + "], Operations, " + n + "\n[" + name + "], AverageLatency(us), " + avg + "\n[" + name +
			"], MinLatency(us), " + minv + "\n[" + name + "], MaxLatency(us), " + maxv + "\n[" + name +
			"], 99thPercentileLatency(us), " + p99 + "\n"
	}
	opBlocks := blk("READ", "2", "150.0", "100", "200", "200") + "[READ], Return=OK, 2\n[READ], Return=ERROR, 1\n" +
		blk("READ-FAILED", "1", "50.0", "50", "50", "50") + blk("CLEANUP", "1", "7.0", "7", "7", "7")
	for _, c := range []struct{ interval, want string }{
		{"", head + opBlocks},
		{"intended", head + blk("READ", "2", "1150.0", "1100", "1200", "1200") + "[READ], Return=OK, 2\n[READ], Return=ERROR, 1\n" +
			blk("READ-FAILED", "1", "1050.0", "1050", "1050", "1050") + blk("CLEANUP", "1", "7.0", "7", "7", "7")},
		{"both", head + opBlocks + blk("Intended-READ", "2", "1150.0", "1100", "1200", "1200") +
			blk("Intended-READ-FAILED", "1", "1050.0", "1050", "1050", "1050") + blk("Intended-CLEANUP", "1", "7.0", "7", "7", "7")},
	} {
		if got := render(c.interval); got != c.want {
			t.Errorf("measurement.interval %q:\n%s\nwant:\n%s", c.interval, got, c.want)
		}
	}
}

// reportValue reads the value of a "[NAME], Metric" line of a text report.
func reportValue(t *testing.T, report, prefix string) int64 {
	t.Helper()
	for _, line := range strings.Split(report, "\n") {
		if v, ok := strings.CutPrefix(line, prefix+", "); ok {
			var n int64
			for _, c := range v {
				if c < '0' || c > '9' {
					break
				}
				n = n*10 + int64(c-'0')
			}
			return n
		}
	}
	t.Fatalf("no %q in the report:\n%s", prefix, report)
	return 0
}
