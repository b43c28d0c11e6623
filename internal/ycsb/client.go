package ycsb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

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
}

// RunOptionsFromProperties reads YCSB's client properties: threadcount (1),
// target (0), maxexecutiontime (0 s), status (false; -s) and
// status.interval (10 s), label. measurementtype must be hdrhistogram and
// measurement.interval op, the only ones implemented. Status lines go to
// statusOut when status is true.
func RunOptionsFromProperties(p *Properties, phase Phase, statusOut io.Writer) (RunOptions, error) {
	o := RunOptions{Phase: phase, Label: p.String("label", "")}
	var errs []error
	var err error
	if o.Threads, err = p.Int("threadcount", 1); err != nil {
		errs = append(errs, err)
	}
	if o.Target, err = p.Float64("target", 0); err != nil {
		errs = append(errs, err)
	}
	maxExec, err := p.Int64("maxexecutiontime", 0)
	if err != nil {
		errs = append(errs, err)
	}
	status, err := p.Bool("status", false)
	if err != nil {
		errs = append(errs, err)
	}
	interval, err := p.Float64("status.interval", 10)
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return o, fmt.Errorf("client properties: %w", errors.Join(errs...))
	}
	if mt := p.String("measurementtype", "hdrhistogram"); mt != "hdrhistogram" {
		return o, fmt.Errorf("measurementtype: %q is not supported (only hdrhistogram)", mt)
	}
	if mi := p.String("measurement.interval", "op"); mi != "op" {
		return o, fmt.Errorf("measurement.interval: %q is not supported (only op)", mi)
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
	return nil
}

// OpMeasurement is one operation's totals: YCSB's "<OP>" and "<OP>-FAILED"
// measurements and the "<OP>" status counts.
type OpMeasurement struct {
	Op       Op
	Statuses StatusCounts
	// OK holds the latencies of successful calls, Failed of the others.
	// Both are non-nil, possibly empty.
	OK, Failed *results.Histogram
}

// RunResult is what a run measured.
type RunResult struct {
	Phase                    Phase
	LoaderIndex, LoaderCount int
	Threads                  int
	// PlannedOperations is the operation count the threads were given
	// (0: unlimited).
	PlannedOperations int64
	Start, End        time.Time
	// RuntimeMillis is YCSB's RunTime(ms): from starting the threads to
	// the end of the last one's cleanup.
	RuntimeMillis int64
	// Operations is YCSB's opsDone: completed top-level operations
	// (inserts or transactions), failed ones included.
	Operations int64
	StopReason results.StopReason
	// Ops lists the operations that were measured, in report order.
	Ops []OpMeasurement
	// Series has one point per second, coalesced to at most
	// results.MaxSeriesPoints.
	Series results.Series
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
	opcount int64 // 0: unlimited
	opsDone atomic.Int64
	_       [56]byte
}

// client is one Run in progress.
type client struct {
	w       *Workload
	opts    RunOptions
	workers []*worker
	col     *collector

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
}

// Run executes one phase of the workload with YCSB's client semantics and
// returns its measurements. Each thread gets its own DB from newDB (opened
// before the clock starts, unlike YCSB, so connection setup is not counted
// in the runtime), its share of the operation count (opcount/threads, the
// first opcount%threads one more), and runs until its share is done, max
// execution time elapses, or ctx is cancelled. Stops happen between
// operations; operations in flight get StopGrace before their context is
// cancelled. A cancelled run still returns its partial measurements, with
// StopReason Cancelled, and a nil error. Cleanup (flush) always runs; after
// a stop it shares the in-flight operations' grace, so that everything
// ends within StopGrace of a stop (a SIGTERM's deadline is short),
// measured as CLEANUP.
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
	threads := opts.Threads
	if opcount > 0 && int64(threads) > opcount {
		threads = int(opcount)
	}

	dbs, err := openDBs(ctx, newDB, threads, opts.CleanupTimeout)
	if err != nil {
		return nil, err
	}

	c := &client{w: w, opts: opts, stop: make(chan struct{}), done: make(chan struct{})}
	recorders := make([]*Recorder, threads)
	for i := range threads {
		rng := NewRandomRand()
		if opts.Seed != 0 {
			rng = NewRand(opts.Seed + uint64(i))
		}
		recorders[i] = NewRecorder()
		ts := w.NewThreadState(rng, recorders[i])
		ts.stop = c.stop
		share := opcount / int64(threads)
		if int64(i) < opcount%int64(threads) {
			share++
		}
		c.workers = append(c.workers, &worker{db: dbs[i], ts: ts, opcount: share})
	}
	c.col = newCollector(recorders, seriesInterval)

	opsCtx, cancelOps := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelOps()
	c.opsCtx = opsCtx

	start := time.Now()
	reporterDone := make(chan struct{})
	go func() {
		defer close(reporterDone)
		c.report(start)
	}()
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
	close(c.done)
	<-reporterDone
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
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		defer cancel()
		for _, db := range dbs {
			if db != nil {
				_, _ = db.Cleanup(cctx)
			}
		}
		return nil, err
	}
	return dbs, nil
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

// watch turns max execution time and cancellation into a stop request, and
// cancels the operations' context StopGrace later if threads are still
// busy, so a hanging DB call cannot hold the run (YCSB's TerminatorThread
// waits forever).
func (c *client) watch(ctx context.Context, cancelOps context.CancelFunc) {
	var deadline <-chan time.Time
	if c.opts.MaxExecutionTime > 0 {
		t := time.NewTimer(c.opts.MaxExecutionTime)
		defer t.Stop()
		deadline = t.C
	}
	select {
	case <-c.done:
		return
	case <-ctx.Done():
		c.requestStop(results.StopCancelled)
	case <-deadline:
		c.requestStop(results.StopMaxExecutionTime)
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
	var done int64
	for (wk.opcount == 0 || done < wk.opcount) && !c.stopped.Load() {
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
		done++
		wk.opsDone.Store(done)
		if tick > 0 && !sleepUntil(start.Add(time.Duration(done)*tick)) {
			break
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
	wk.ts.rec.Measure(OpCleanup, st, time.Since(cstart).Microseconds())
	c.failedBufferedInserts.Add(int64(failed))
}

// report collects measurements every second and prints YCSB's status line
// every StatusInterval, plus one at the start and one at the end, like
// YCSB's StatusThread.
func (c *client) report(start time.Time) {
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
	ticker := time.NewTicker(seriesInterval)
	defer ticker.Stop()
	last := start
	for n := 1; ; n++ {
		select {
		case t := <-ticker.C:
			c.col.collect(seriesInterval)
			last = t
			if c.opts.Status != nil && n%every == 0 {
				status()
			}
		case <-c.done:
			c.col.collect(min(time.Since(last), seriesInterval))
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
		Start:                         start,
		End:                           end,
		RuntimeMillis:                 end.Sub(start).Milliseconds(),
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
		r.Operations += wk.opsDone.Load()
	}
	tot := &c.col.total
	for op := range numOps {
		if tot.count(op, kindOK)+tot.count(op, kindFailed) == 0 && tot.status[op].Total() == 0 {
			continue
		}
		r.Ops = append(r.Ops, OpMeasurement{
			Op:       op,
			Statuses: tot.status[op],
			OK:       tot.hist(op, kindOK),
			Failed:   tot.hist(op, kindFailed),
		})
	}
	return r
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
	}
	for _, m := range r.Ops {
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
		out.Ops = append(out.Ops, op)
	}
	return out
}
