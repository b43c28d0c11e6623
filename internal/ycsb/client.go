package ycsb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
)

// Defaults of RunOptions fields that have no YCSB counterpart.
const (
	// DefaultStopGrace is how long operations in flight may continue after
	// a stop (max execution time or cancellation) before their context is
	// cancelled. YCSB waits for them indefinitely.
	DefaultStopGrace = 10 * time.Second
	// DefaultCleanupTimeout bounds each thread's DB.Cleanup (the flush of
	// buffered inserts), which runs even after cancellation. After a stop
	// it is also bounded by the stop's grace (see Run).
	DefaultCleanupTimeout = 30 * time.Second
	// seriesInterval is the base interval of the time series.
	seriesInterval = time.Second
)

// RunOptions configures Run: YCSB's client properties plus what a Go
// process needs (a seed, bounded stops).
type RunOptions struct {
	// Phase selects DoInsert (load) or DoTransaction (run).
	Phase Phase
	// Threads is threadcount; it is reduced to the operation count when
	// that is smaller.
	Threads int
	// Target is the total operations per second (0: unthrottled).
	Target float64
	// MaxExecutionTime stops the threads between operations when it
	// elapses (0: none).
	MaxExecutionTime time.Duration
	// Status, when not nil, receives YCSB's status line every
	// StatusInterval (YCSB prints it to stderr with -s).
	Status         io.Writer
	StatusInterval time.Duration
	// Label prefixes status lines (YCSB's -l).
	Label string
	// Seed makes the worker RNGs deterministic (thread i uses Seed+i);
	// 0 seeds them randomly.
	Seed uint64
	// StopGrace: see DefaultStopGrace. 0 means the default.
	StopGrace time.Duration
	// CleanupTimeout: see DefaultCleanupTimeout. 0 means the default.
	CleanupTimeout time.Duration
	// Interval is measurement.interval: whether intended latencies are
	// measured besides the service times, and what the report prints.
	Interval MeasurementInterval
	// Warmup and WarmupOperations start the phase with a warm-up of this
	// length (at most one of them is set): its operations run like the
	// rest, under the same throttle, into measurements of their own. The
	// measured window, and MaxExecutionTime, start when it ends. In the
	// load phase warm-up inserts are part of the records to load; in the
	// run phase they come on top of the operation count.
	Warmup           time.Duration
	WarmupOperations int64
	// Ready, when set, is called once every thread's DB is open, with the
	// number of threads, before the clock starts; the run starts when it
	// returns, and fails with its error. The loader opens its connections
	// there and waits for the phase's start barrier.
	Ready func(ctx context.Context, threads int) error
	// OnMeasure, when set, is called once when the measured window
	// starts (at the start, or when the warm-up ends), with its instant.
	OnMeasure func(time.Time)
	// Observer, when set, sees the measurements once per second as they
	// are collected (see Observer).
	Observer Observer
	// Disruptions are measured around (disruption.go): each one's instant
	// is the measured window's start plus its At. None: the threads'
	// hot path is untouched.
	Disruptions []DisruptionSpec
	// DisruptionOnset, when set, says when the loader first saw the
	// database disrupted after a disruption's instant (the driver's
	// monitor lost the primary), if it did: the onset of its
	// unavailability (see kindAgg). Called once per disruption after
	// the run.
	DisruptionOnset func(d DisruptionSpec, instant time.Time) (time.Time, bool)
	// DisruptionRecovered, when set, says when the loader saw the
	// replica set a Partial disruption hit recover after its instant (a
	// primary elected after it), if it did (see kindAgg). Called once per
	// Partial disruption after the run.
	DisruptionRecovered func(d DisruptionSpec, instant time.Time) (time.Time, bool)
	// DisruptionStart, when set, says when a disruption actually began, if
	// later than its instant (a Pause of the primary: when the member was
	// seen stopped, after the controller and the kubelet reacted): its
	// unavailability is measured from then, not from the instant. Called
	// once per disruption reached, after the run.
	DisruptionStart func(d DisruptionSpec, instant time.Time) (time.Time, bool)
}

// RunOptionsFromProperties reads YCSB's client properties: threadcount (1),
// target (0), maxexecutiontime (0 s), status (false; -s) and
// status.interval (10 s), label, measurement.interval (op, intended or
// both), and the warm-up (warmuptime or warmupoperations). measurementtype
// must be hdrhistogram, the only one implemented. Status lines go to
// statusOut when status is true.
func RunOptionsFromProperties(p *Properties, phase Phase, statusOut io.Writer) (RunOptions, error) {
	o := RunOptions{Phase: phase, Label: p.String("label", "")}
	var errs []error
	var err error
	if o.Threads, err = p.Int(contract.PropThreadCount, 1); err != nil {
		errs = append(errs, err)
	}
	if o.Target, err = p.Float64(contract.PropTarget, 0); err != nil {
		errs = append(errs, err)
	}
	maxExec, err := p.Int64(contract.PropMaxExecutionTime, 0)
	if err != nil {
		errs = append(errs, err)
	}
	status, err := p.Bool("status", false)
	if err != nil {
		errs = append(errs, err)
	}
	interval, err := p.Float64(contract.PropStatusInterval, 10)
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return o, fmt.Errorf("client properties: %w", errors.Join(errs...))
	}
	if mt := p.String("measurementtype", "hdrhistogram"); mt != "hdrhistogram" {
		return o, fmt.Errorf("measurementtype: %q is not supported (only hdrhistogram)", mt)
	}
	if o.Interval, err = ParseMeasurementInterval(p.String(contract.PropMeasurementInterval, "op")); err != nil {
		return o, err
	}
	if o.Warmup, o.WarmupOperations, err = warmupFromProperties(p); err != nil {
		return o, err
	}
	if maxExec < 0 || interval <= 0 {
		return o, fmt.Errorf("maxexecutiontime %d must not be negative and status.interval %v must be positive", maxExec, interval)
	}
	o.MaxExecutionTime = time.Duration(maxExec) * time.Second
	o.StatusInterval = time.Duration(interval * float64(time.Second))
	if status {
		o.Status = statusOut
	}
	return o, o.validate()
}

func (o *RunOptions) validate() error {
	if o.Threads < 1 {
		return fmt.Errorf("threadcount: %d must be at least 1", o.Threads)
	}
	if o.Target < 0 {
		return fmt.Errorf("target: %v must not be negative", o.Target)
	}
	if o.MaxExecutionTime < 0 {
		return fmt.Errorf("maxexecutiontime: %v must not be negative", o.MaxExecutionTime)
	}
	if o.Warmup < 0 || o.WarmupOperations < 0 || (o.Warmup > 0 && o.WarmupOperations > 0) {
		return fmt.Errorf("warm-up: %v and %d operations: at most one, not negative", o.Warmup, o.WarmupOperations)
	}
	if o.Interval > IntervalBoth {
		return fmt.Errorf("measurement.interval: %v is not op, intended or both", o.Interval)
	}
	return nil
}

// ThreadsFor is the number of threads Run starts for w: threadcount,
// lowered to the operation count when that is smaller (YCSB's Client).
func (o *RunOptions) ThreadsFor(w *Workload) int {
	if opcount := w.OperationCount(o.Phase); opcount > 0 && int64(o.Threads) > opcount {
		return int(opcount)
	}
	return o.Threads
}

// warmingUp reports whether the run starts with a warm-up.
func (o *RunOptions) warmingUp() bool { return o.Warmup > 0 || o.WarmupOperations > 0 }

// OpMeasurement is one operation's totals: YCSB's "<OP>" and "<OP>-FAILED"
// measurements and the "<OP>" status counts.
type OpMeasurement struct {
	Op       Op
	Statuses StatusCounts
	// OK holds the latencies of successful calls, Failed of the others.
	// Both are non-nil, possibly empty.
	OK, Failed *results.Histogram
	// IntendedOK and IntendedFailed hold their intended latencies; nil
	// when measurement.interval is op.
	IntendedOK, IntendedFailed *results.Histogram
}

// WarmupResult is what the warm-up measured: its operations (apart from
// the phase's) from the start of the threads to the measured window.
type WarmupResult struct {
	Start, End time.Time
	// Operations counts the warm-up's top-level operations, failed ones
	// included.
	Operations int64
	Ops        []OpMeasurement
}

// RunResult is what a run measured.
type RunResult struct {
	Phase                    Phase
	LoaderIndex, LoaderCount int
	Threads                  int
	// PlannedOperations is the operation count the threads were given
	// (0: unlimited).
	PlannedOperations int64
	// Start is when the measured window started: when the threads
	// started, or when the warm-up ended. End is when the last thread's
	// cleanup ended.
	Start, End time.Time
	// RuntimeMillis is YCSB's RunTime(ms): from Start to End.
	RuntimeMillis int64
	// Interval is measurement.interval.
	Interval MeasurementInterval
	// Warmup is nil without a warm-up. WarmupUnfinished: the threads
	// ended (their work done, or stopped) before the warm-up did, so the
	// measured window is empty.
	Warmup           *WarmupResult
	WarmupUnfinished bool
	// Operations is YCSB's opsDone: completed top-level operations
	// (inserts or transactions), failed ones included.
	Operations int64
	StopReason results.StopReason
	// Ops lists the operations that were measured, in report order.
	Ops []OpMeasurement
	// Series has one point per second, coalesced to at most
	// results.MaxSeriesPoints.
	Series results.Series
	// Disruptions holds what was measured around each of
	// RunOptions.Disruptions, in index order (this loader's measurements
	// only; the loader adds what it knows: the outcome, the new primary).
	Disruptions []results.Disruption
	// FailedBufferedInserts counts buffered inserts (BATCHED_OK) that the
	// final flush in Cleanup could not write. They are not in the INSERT
	// status counts, which were taken when the inserts were buffered.
	FailedBufferedInserts int64
	// CleanupErrors holds the errors DB.Cleanup returned.
	CleanupErrors []error
	// ThreadsStoppedOnInsertFailure counts load threads that stopped early
	// because an insert failed after its retries (YCSB 0.17.0 behaviour).
	ThreadsStoppedOnInsertFailure int
}

// Op returns the measurement of op, or nil if it was not measured.
func (r *RunResult) Op(op Op) *OpMeasurement {
	for i := range r.Ops {
		if r.Ops[i].Op == op {
			return &r.Ops[i]
		}
	}
	return nil
}

// Throughput is YCSB's [OVERALL] Throughput(ops/sec): 1000·ops/runtime(ms),
// computed in Java's double arithmetic (Infinity or NaN for a zero runtime).
func (r *RunResult) Throughput() float64 {
	return 1000.0 * float64(r.Operations) / float64(r.RuntimeMillis)
}

// worker is one client thread.
type worker struct {
	db      DB
	ts      *ThreadState
	rec     *Recorder // the measured window's; ts.rec is warm during the warm-up
	opcount int64     // 0: unlimited
	// opsDone counts the operations done towards opcount (the warm-up's
	// are in it in the load phase, whose records they are, and not in the
	// run phase): progress for the status line.
	opsDone atomic.Int64
	// measured and warm count the measured window's and the warm-up's
	// operations; written by the thread, read once it ended.
	measured, warm int64
	// dis is the thread's disruption tracker (nil without disruptions);
	// ts.dis is set to it once the measured window started.
	dis *threadDisruptions
	_   [32]byte
}

// client is one Run in progress.
type client struct {
	w       *Workload
	opts    RunOptions
	workers []*worker
	col     *collector
	// dis measures around the disruptions; nil without any.
	dis *disruptionSet

	opsCtx    context.Context
	stop      chan struct{}
	stopped   atomic.Bool
	stopOnce  sync.Once
	reason    atomic.Pointer[results.StopReason]
	threadsWG sync.WaitGroup
	done      chan struct{} // closed when every thread has finished

	mu                    sync.Mutex
	cleanupErrors         []error
	failedBufferedInserts atomic.Int64
	stoppedOnFailure      atomic.Int64

	// warming is true during the warm-up; measuring is closed when the
	// measured window starts, at measureStart (written before the close).
	warming      atomic.Bool
	warmOps      atomic.Int64
	measureOnce  sync.Once
	measuring    chan struct{}
	measureStart time.Time
	// warmupUnfinished: the threads ended during the warm-up (written
	// before done is closed).
	warmupUnfinished bool
}

// Run executes one phase of the workload with YCSB's client semantics and
// returns its measurements. Each thread gets its own DB from newDB (opened
// before the clock starts, unlike YCSB, so connection setup is not counted
// in the runtime; then opts.Ready), its share of the operation count
// (opcount/threads, the first opcount%threads one more), and runs until
// its share is done, max execution time elapses, or ctx is cancelled.
// With a warm-up, the threads start with it and its operations go to
// measurements of their own; the measured window (Start, RuntimeMillis,
// the series, MaxExecutionTime) starts when it ends. Stops happen between
// operations; operations in flight get StopGrace before their context is
// cancelled. A cancelled run still returns its partial measurements, with
// StopReason Cancelled, and a nil error. Cleanup (flush) always runs;
// after a stop it shares the in-flight operations' grace, so that
// everything ends within StopGrace of a stop (a SIGTERM's deadline is
// short), measured as CLEANUP.
func Run(ctx context.Context, w *Workload, newDB DBFactory, opts RunOptions) (*RunResult, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if err := w.checkPhase(opts.Phase); err != nil {
		return nil, err
	}
	if opts.StopGrace <= 0 {
		opts.StopGrace = DefaultStopGrace
	}
	if opts.CleanupTimeout <= 0 {
		opts.CleanupTimeout = DefaultCleanupTimeout
	}
	opcount := w.OperationCount(opts.Phase)
	threads := opts.ThreadsFor(w)
	if opts.Phase == PhaseLoad && opcount > 0 && opts.WarmupOperations >= opcount {
		return nil, fmt.Errorf("warm-up of %d operations leaves none of the %d records to load to measure", opts.WarmupOperations, opcount)
	}

	dbs, err := openDBs(ctx, newDB, threads, opts.CleanupTimeout)
	if err != nil {
		return nil, err
	}
	if opts.Ready != nil {
		if err := opts.Ready(ctx, threads); err != nil {
			cleanupDBs(ctx, dbs, opts.CleanupTimeout)
			return nil, err
		}
	}

	c := &client{w: w, opts: opts, stop: make(chan struct{}), done: make(chan struct{}), measuring: make(chan struct{})}
	if len(opts.Disruptions) > 0 {
		c.dis = newDisruptionSet(opts.Disruptions)
	}
	recorders := make([]*Recorder, threads)
	var warm []*Recorder
	for i := range threads {
		rng := NewRandomRand()
		if opts.Seed != 0 {
			rng = NewRand(opts.Seed + uint64(i))
		}
		recorders[i] = NewRecorder()
		rec := recorders[i]
		if opts.warmingUp() {
			rec = NewRecorder()
			warm = append(warm, rec)
		}
		ts := w.NewThreadState(rng, rec)
		ts.stop = c.stop
		ts.intended = opts.Interval.Intended()
		share := opcount / int64(threads)
		if int64(i) < opcount%int64(threads) {
			share++
		}
		wk := &worker{db: dbs[i], ts: ts, rec: recorders[i], opcount: share}
		if c.dis != nil {
			wk.dis = c.dis.newThread(dbs[i])
		}
		c.workers = append(c.workers, wk)
	}
	c.col = newCollector(recorders, warm, seriesInterval, opts.Interval)
	c.col.observer = opts.Observer
	c.col.dis = c.dis

	opsCtx, cancelOps := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelOps()
	c.opsCtx = opsCtx

	start := time.Now()
	if opts.warmingUp() {
		c.warming.Store(true)
	} else {
		c.startMeasuring(start)
	}
	statusDone, statusStarted := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(statusDone)
		c.status(start, statusStarted)
	}()
	<-statusStarted // the first status line shows the start, before any operation
	watcherDone := make(chan struct{})
	go func() {
		defer close(watcherDone)
		c.watch(ctx, cancelOps)
	}()
	for _, wk := range c.workers {
		c.threadsWG.Add(1)
		go func() {
			defer c.threadsWG.Done()
			c.runThread(wk, threads)
		}()
	}
	c.threadsWG.Wait()
	end := time.Now()
	// A warm-up that never ended (a stop, a load that failed first)
	// leaves an empty measured window at the end.
	c.warmupUnfinished = c.warming.Load()
	c.startMeasuring(end)
	close(c.done)
	<-statusDone
	<-watcherDone

	return c.result(start, end, threads, opcount), nil
}

// openDBs opens one DB per thread, concurrently; on failure it cleans up the
// ones that opened.
func openDBs(ctx context.Context, newDB DBFactory, threads int, cleanupTimeout time.Duration) ([]DB, error) {
	dbs := make([]DB, threads)
	errs := make([]error, threads)
	var wg sync.WaitGroup
	for i := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := newDB(ctx, i, threads)
			if err == nil && db == nil {
				err = errors.New("factory returned no DB")
			}
			if err != nil {
				errs[i] = fmt.Errorf("open DB for thread %d: %w", i, err)
			}
			dbs[i] = db
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		cleanupDBs(ctx, dbs, cleanupTimeout)
		return nil, err
	}
	return dbs, nil
}

// cleanupDBs cleans up the DBs that opened, when the run cannot start.
func cleanupDBs(ctx context.Context, dbs []DB, cleanupTimeout time.Duration) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	for _, db := range dbs {
		if db != nil {
			_, _ = db.Cleanup(cctx)
		}
	}
}

// startMeasuring starts the measured window at t, once: the threads move to
// their measured recorders before their next operation.
func (c *client) startMeasuring(t time.Time) {
	c.measureOnce.Do(func() {
		c.measureStart = t
		c.warming.Store(false)
		close(c.measuring)
		if c.opts.OnMeasure != nil {
			c.opts.OnMeasure(t)
		}
	})
}

// watchDisruptions starts wk's disruption tracker, once the measured
// window started (measureStart is written before warming is cleared).
func (c *client) watchDisruptions(wk *worker) {
	if wk.dis != nil && wk.ts.dis == nil {
		wk.dis.begin(c.measureStart)
		wk.ts.dis = wk.dis
	}
}

// requestStop makes the threads stop between operations, recording why
// (the first reason wins).
func (c *client) requestStop(reason results.StopReason) {
	c.stopOnce.Do(func() {
		c.reason.Store(&reason)
		c.stopped.Store(true)
		close(c.stop)
	})
}

// watch ends a timed warm-up, turns max execution time (counted from the
// measured window's start) and cancellation into a stop request, and
// cancels the operations' context StopGrace later if threads are still
// busy, so a hanging DB call cannot hold the run (YCSB's TerminatorThread
// waits forever).
func (c *client) watch(ctx context.Context, cancelOps context.CancelFunc) {
	var warmupEnd <-chan time.Time
	if c.opts.Warmup > 0 {
		t := time.NewTimer(c.opts.Warmup)
		defer t.Stop()
		warmupEnd = t.C
	}
	measuring := c.measuring
	var deadline <-chan time.Time
wait:
	for {
		select {
		case <-c.done:
			return
		case <-ctx.Done():
			c.requestStop(results.StopCancelled)
			break wait
		case t := <-warmupEnd:
			warmupEnd = nil
			c.startMeasuring(t)
		case <-measuring:
			measuring = nil
			if c.opts.MaxExecutionTime > 0 {
				t := time.NewTimer(c.opts.MaxExecutionTime - time.Since(c.measureStart))
				defer t.Stop()
				deadline = t.C
			}
		case <-deadline:
			c.requestStop(results.StopMaxExecutionTime)
			break wait
		}
	}
	grace := time.NewTimer(c.opts.StopGrace)
	defer grace.Stop()
	select {
	case <-c.done:
	case <-grace.C:
		cancelOps()
	}
}

// runThread is ClientThread.run: the operation loop with YCSB's throttle,
// then the DB's cleanup.
func (c *client) runThread(wk *worker, threads int) {
	var timer *time.Timer
	sleepUntil := func(deadline time.Time) bool {
		d := time.Until(deadline)
		if d <= 0 {
			return true
		}
		if timer == nil {
			timer = time.NewTimer(d)
		} else {
			timer.Reset(d)
		}
		select {
		case <-timer.C:
			return true
		case <-c.stop:
			timer.Stop()
			return false
		}
	}

	// YCSB: targetOpsTickNs = (long)(1e6 / targetperthreadperms), with the
	// target divided by the actual thread count (YCSB divides by the
	// configured count even when it lowered it to the operation count).
	var tick time.Duration
	perThreadPerMs := c.opts.Target / float64(threads) / 1000
	if perThreadPerMs > 0 {
		tick = time.Duration(javaLong(1e6 / perThreadPerMs))
		if perThreadPerMs <= 1 && tick > 0 {
			// Spread slow threads' first operations over one tick, as
			// YCSB does, so they do not all hit the DB at once.
			sleepUntil(time.Now().Add(time.Duration(wk.ts.rng.NextNonNegativeLong() % int64(tick))))
		}
	}

	start := time.Now()
	// The thread records into its warm-up recorder until it sees the
	// warm-up ended (maybe before its first operation).
	warming := wk.ts.rec != wk.rec
	if !warming {
		c.watchDisruptions(wk)
	}
	// issued counts every operation, warm-up included: the throttle's
	// schedule runs on through the end of the warm-up.
	var issued, done int64
	for (wk.opcount == 0 || done < wk.opcount) && !c.stopped.Load() {
		if warming && !c.warming.Load() {
			warming = false
			wk.ts.rec = wk.rec
			c.watchDisruptions(wk)
		}
		var ok bool
		if c.opts.Phase == PhaseLoad {
			ok = c.w.DoInsert(c.opsCtx, wk.db, wk.ts)
			if !ok {
				c.stoppedOnFailure.Add(1)
			}
		} else {
			ok = c.w.DoTransaction(c.opsCtx, wk.db, wk.ts)
		}
		if !ok {
			break
		}
		issued++
		if warming {
			wk.warm++
			if c.opts.Phase == PhaseLoad {
				// A warm-up insert is one of the records to load.
				done++
				wk.opsDone.Store(done)
			}
			if n := c.opts.WarmupOperations; n > 0 && c.warmOps.Add(1) == n {
				c.startMeasuring(time.Now())
			}
		} else {
			wk.measured++
			done++
			wk.opsDone.Store(done)
		}
		if tick > 0 {
			deadline := start.Add(time.Duration(issued) * tick)
			if !sleepUntil(deadline) {
				break
			}
			// YCSB's throttleNanos: the next operation's intended start
			// is its slot on the schedule, however late it really starts.
			wk.ts.intendedStart = deadline
		}
	}

	// YCSB sets the intended start to 0 before the cleanup: its intended
	// latency is its service time.
	wk.ts.intendedStart = time.Time{}
	// The flush belongs to the measured window (it writes measured
	// inserts), unless the warm-up never ended.
	if !c.warming.Load() {
		wk.ts.rec = wk.rec
		if warming {
			c.watchDisruptions(wk)
		}
	}
	// opsCtx outlives Run's ctx's cancellation but ends StopGrace after a stop:
	// a flush after a stop must not outlast the grace either.
	cctx, cancel := context.WithTimeout(c.opsCtx, c.opts.CleanupTimeout)
	defer cancel()
	cstart := time.Now()
	failed, err := wk.db.Cleanup(cctx)
	st := StatusOK
	if err != nil {
		st = StatusError
		c.mu.Lock()
		c.cleanupErrors = append(c.cleanupErrors, err)
		c.mu.Unlock()
	}
	wk.ts.measure(OpCleanup, st, cstart)
	c.failedBufferedInserts.Add(int64(failed))
}

// status collects measurements every second and prints YCSB's status line
// every StatusInterval, plus one at the start and one at the end, like
// YCSB's StatusThread. During a warm-up it collects the warm-up's
// measurements only (status lines show them); the series' first interval
// starts with the measured window.
func (c *client) status(start time.Time, started chan<- struct{}) {
	every := max(int(c.opts.StatusInterval/time.Second), 1)
	startMs := start.UnixMilli()
	intervalStartMs := startMs
	var lastTotal int64
	status := func() {
		now := time.Now()
		nowMs := startMs + now.Sub(start).Milliseconds()
		var total, todo int64
		for _, wk := range c.workers {
			d := wk.opsDone.Load()
			total += d
			todo += max(wk.opcount-d, 0)
		}
		line := statusLine(c.opts.Label, now, startMs, intervalStartMs, nowMs, total, lastTotal, todo, c.col.statusSummary())
		_, _ = io.WriteString(c.opts.Status, line+"\n")
		c.col.status.reset()
		lastTotal, intervalStartMs = total, nowMs
	}
	if c.opts.Status != nil {
		status()
	}
	close(started)
	ticker := time.NewTicker(seriesInterval)
	defer ticker.Stop()
	last := start
	measuring := c.measuring
	warming := true
	// measureNow switches to the measured window once it started: what
	// the warm-up left is collected, and the series' intervals are
	// counted from the window's start.
	measureNow := func() bool {
		select {
		case <-measuring:
		default:
			return false
		}
		measuring = nil
		if !warming {
			return false
		}
		warming = false
		c.col.collectWarm()
		last = c.measureStart
		ticker.Reset(max(seriesInterval-time.Since(last), time.Millisecond))
		return true
	}
	if len(c.col.warm) == 0 {
		// No warm-up: the window started with the threads.
		measuring, warming = nil, false
	}
	for n := 1; ; n++ {
		select {
		case <-measuring:
			measureNow()
			n-- // not a tick
		case t := <-ticker.C:
			if measureNow() {
				// The window started since the last tick: its first
				// interval ends a whole interval after its start.
				n--
				continue
			}
			if warming {
				c.col.collectWarm()
			} else if t.After(last) {
				c.col.collect(seriesInterval)
				last = t
			}
			if c.opts.Status != nil && n%every == 0 {
				status()
			}
		case <-c.done:
			measureNow()
			c.col.collectWarm()
			if !warming && !c.warmupUnfinished {
				c.col.collect(min(max(time.Since(last), 0), seriesInterval))
			}
			if c.opts.Status != nil {
				status()
			}
			return
		}
	}
}

// result assembles the RunResult after every thread and the reporter ended.
func (c *client) result(start, end time.Time, threads int, opcount int64) *RunResult {
	r := &RunResult{
		Phase:                         c.opts.Phase,
		Threads:                       threads,
		PlannedOperations:             opcount,
		Start:                         c.measureStart,
		End:                           end,
		RuntimeMillis:                 end.Sub(c.measureStart).Milliseconds(),
		Interval:                      c.opts.Interval,
		StopReason:                    results.StopCompleted,
		Series:                        c.col.series.Series(),
		FailedBufferedInserts:         c.failedBufferedInserts.Load(),
		CleanupErrors:                 c.cleanupErrors,
		ThreadsStoppedOnInsertFailure: int(c.stoppedOnFailure.Load()),
	}
	r.LoaderIndex, r.LoaderCount = c.w.Loader()
	if reason := c.reason.Load(); reason != nil {
		r.StopReason = *reason
	}
	for _, wk := range c.workers {
		r.Operations += wk.measured
	}
	r.Ops = c.opMeasurements(&c.col.total)
	if c.dis != nil {
		c.dis.drain() // what the threads recorded after the last collection
		r.Disruptions = c.dis.results(c.measureStart, end.Sub(c.measureStart), r.LoaderIndex, &c.opts)
	}
	if c.opts.warmingUp() {
		wr := &WarmupResult{Start: start, End: c.measureStart, Ops: c.opMeasurements(&c.col.warmTotal)}
		for _, wk := range c.workers {
			wr.Operations += wk.warm
		}
		r.Warmup = wr
		r.WarmupUnfinished = c.warmupUnfinished
	}
	return r
}

// opMeasurements lists the operations measured in m, in report order.
func (c *client) opMeasurements(m *measurementSet) []OpMeasurement {
	var out []OpMeasurement
	for op := range numOps {
		if m.count(op, kindOK)+m.count(op, kindFailed) == 0 && m.status[op].Total() == 0 {
			continue
		}
		om := OpMeasurement{Op: op, Statuses: m.status[op], OK: m.hist(op, kindOK), Failed: m.hist(op, kindFailed)}
		if c.opts.Interval.Intended() {
			om.IntendedOK, om.IntendedFailed = m.intended(op, kindOK), m.intended(op, kindFailed)
		}
		out = append(out, om)
	}
	return out
}

// ToResult converts the run into the shared result format written by the
// loader and merged by the controller.
func (r *RunResult) ToResult(hostname string) *results.Result {
	kind := results.KindRun
	if r.Phase == PhaseLoad {
		kind = results.KindLoad
	}
	out := &results.Result{
		Version:           results.FormatVersion,
		Kind:              kind,
		Loader:            results.Identity{Index: r.LoaderIndex, Count: r.LoaderCount, Threads: r.Threads, Hostname: hostname},
		Start:             r.Start,
		End:               r.End,
		RuntimeMillis:     r.RuntimeMillis,
		Operations:        r.Operations,
		PlannedOperations: r.PlannedOperations,
		StopReason:        r.StopReason,
		LostInserts:       r.FailedBufferedInserts,
		Series:            r.Series,
		Ops:               opResults(r.Ops),
		Disruptions:       r.Disruptions,
	}
	if r.Interval != IntervalOp {
		out.MeasurementInterval = r.Interval.String()
	}
	if w := r.Warmup; w != nil {
		out.Warmup = &results.Warmup{Start: w.Start, End: w.End, Operations: w.Operations, Ops: opResults(w.Ops)}
	}
	return out
}

// opResults converts measurements into the result format's operations.
func opResults(ms []OpMeasurement) []results.OpResult {
	var out []results.OpResult //nolint:prealloc // nil without measurements, as the result format has always written it
	for _, m := range ms {
		op := results.OpResult{Name: m.Op.String(), Statuses: map[string]int64{}}
		for s, n := range m.Statuses {
			if n > 0 {
				op.Statuses[Status(s).String()] = n
			}
		}
		if m.OK.Count() > 0 {
			op.Latency = m.OK
		}
		if m.Failed.Count() > 0 {
			op.Failed = m.Failed
		}
		if m.IntendedOK.Count() > 0 {
			op.Intended = m.IntendedOK
		}
		if m.IntendedFailed.Count() > 0 {
			op.IntendedFailed = m.IntendedFailed
		}
		out = append(out, op)
	}
	return out
}
