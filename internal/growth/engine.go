package growth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/results"
)

// Statuses of the operations in a Grow phase's result, YCSB's names.
const (
	statusOK    = "OK"
	statusError = "ERROR"
)

// Options of Run.
type Options struct {
	// Hostname names the loader in the result.
	Hostname string
	// Log receives what the engine does besides measuring: the resume
	// point, repaired holes (nil: discarded).
	Log io.Writer
	// OnCheckpoint, when set, sees each checkpoint's row: first those an
	// earlier loader saved (earlier is true), then each one this loader
	// takes, once it is saved.
	OnCheckpoint func(row *results.GrowthCheckpoint, earlier bool)
	// StopGrace is how long calls in flight may run on after ctx is
	// cancelled before they are cancelled too.
	StopGrace time.Duration
}

// ErrInsertFailed is wrapped by Run's error when an insert failed: the
// phase stops there (a data set with holes is not the one to measure) and
// can be resumed.
var ErrInsertFailed = errors.New("insert failed")

// Run runs a Grow phase against store: from where an earlier loader left
// off (see resume.go) up to the target, checkpoint by checkpoint. The
// result holds every checkpoint's row, an earlier loader's included, and
// the phase's overall INSERT and Q1..Q4 measurements. When ctx is
// cancelled, Run saves what the interrupted segment measured, so the next
// loader carries on with it, and returns the partial result (StopReason
// Cancelled) and no error. An error that stops the phase (an insert
// failed, the state cannot be saved) comes with the partial result when
// anything was measured; otherwise the result is nil.
func Run(ctx context.Context, cfg Config, store Store, opts Options) (*results.Result, error) {
	e, err := newEngine(cfg, store, opts)
	if err != nil {
		return nil, err
	}
	next, seg, err := e.resume(ctx)
	if err != nil {
		return nil, err
	}
	// After the resume's checks (a collection that is not the phase's is
	// left alone), before the first insert; a no-op when they exist.
	if err := store.EnsureIndexes(ctx); err != nil {
		return nil, fmt.Errorf("indexes: %w", err)
	}
	for seg.Checkpoint <= e.planned {
		target := CheckpointRecords(cfg.TargetRecords, cfg.CheckpointEvery, seg.Checkpoint)
		if next < target {
			err := e.insert(ctx, seg, next, target)
			if err != nil || ctx.Err() != nil {
				return e.stop(ctx, seg, err)
			}
			next = target
		}
		if err := e.checkpoint(ctx, seg, target); err != nil || ctx.Err() != nil {
			return e.stop(ctx, seg, err)
		}
		seg = &segment{Checkpoint: seg.Checkpoint + 1, From: target}
	}
	return e.result(results.StopCompleted, nil), nil
}

// engine is one loader's run of a Grow phase.
type engine struct {
	cfg     Config
	gen     *Generator
	store   Store
	opts    Options
	specs   []QuerySpec
	planned int

	meta stateMeta
	// rows are the checkpoints' rows, without their histograms, which
	// are merged into ops as each row is saved or loaded: memory does not
	// grow with the rows' histograms, only with their summaries.
	rows []results.GrowthCheckpoint
	// ops are the phase's overall measurements so far, by name.
	ops map[string]*results.OpResult
	// workMillis is the time the rows' segments and checkpoints took.
	workMillis int64

	inserters []*inserter
	queriers  []*querier
}

func newEngine(cfg Config, store Store, opts Options) (*engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	gen, err := NewGenerator(cfg.Documents, cfg.TargetRecords)
	if err != nil {
		return nil, err
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	e := &engine{
		cfg: cfg, gen: gen, store: store, opts: opts, specs: cfg.QuerySpecs(),
		planned: int(Checkpoints(cfg.TargetRecords, cfg.CheckpointEvery)),
		ops:     map[string]*results.OpResult{},
	}
	for range cfg.InsertThreads {
		e.inserters = append(e.inserters, &inserter{e: e, calls: newCalls()})
	}
	if len(e.specs) > 0 {
		for range cfg.QueryThreads {
			e.queriers = append(e.queriers, &querier{e: e, calls: newCalls()})
		}
	}
	return e, nil
}

// segment is the inserts between two checkpoints: what they measured so
// far, possibly over several loader processes (the JSON is the state
// document a stopped loader leaves, stateSegment).
type segment struct {
	// Checkpoint is the checkpoint the segment leads to; From the record
	// count it starts at.
	Checkpoint int   `json:"checkpoint"`
	From       int64 `json:"from"`
	// Records are the documents of the measured, successful calls;
	// Nanos their time.
	Records int64 `json:"records"`
	Nanos   int64 `json:"nanos"`
	// Insert holds the calls' statuses and histograms (nil: none yet).
	Insert *results.OpResult `json:"insert,omitempty"`
	// Resumed: a loader resumed the phase during this segment.
	Resumed bool `json:"resumed,omitempty"`
}

// stopped reports whether the phase was told to stop.
func stopped(ctx context.Context) bool { return ctx.Err() != nil }

// graceContext returns the context of calls under ctx: cancelled grace
// after ctx is, so that calls in flight at a stop may finish.
func graceContext(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	opCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(grace, cancel) })
	return opCtx, func() {
		stop()
		cancel()
	}
}

// inserter is one insert thread's state, kept from segment to segment: its
// buffers and histograms are reused, so a segment allocates nothing per
// document.
type inserter struct {
	e       *engine
	buf     []byte
	ends    []int
	docs    []bson.Raw
	calls   calls
	records int64
}

// calls tallies one thread's calls of one kind (insert calls, or one query
// class's) between two drains: the successful ones' latencies, the failed
// ones' apart, as results.OpResult keeps them.
type calls struct {
	latency *results.Histogram
	failed  *results.Histogram
	ok      int64
	errs    int64
}

func newCalls() calls { return calls{latency: results.NewHistogram()} }

// record counts a call of us microseconds that succeeded or failed.
func (c *calls) record(us int64, failed bool) {
	if !failed {
		c.latency.Record(us)
		c.ok++
		return
	}
	if c.failed == nil {
		c.failed = results.NewHistogram()
	}
	c.failed.Record(us)
	c.errs++
}

// drain moves the tally into op and resets it.
func (c *calls) drain(op *results.OpResult) {
	if c.ok > 0 {
		op.Statuses[statusOK] += c.ok
		results.MergeHistogram(&op.Latency, c.latency)
		c.latency.Reset()
	}
	if c.errs > 0 {
		op.Statuses[statusError] += c.errs
		results.MergeHistogram(&op.Failed, c.failed)
		c.failed.Reset()
	}
	c.ok, c.errs = 0, 0
}

// insert runs the segment's inserts of records [from, to) with the insert
// threads, each taking the next record (or batch) in order, until done,
// stopped (ctx) or an insert fails.
func (e *engine) insert(ctx context.Context, seg *segment, from, to int64) error {
	opCtx, release := graceContext(ctx, e.opts.StopGrace)
	defer release()
	var next atomic.Int64
	next.Store(from)
	var failure struct {
		sync.Mutex
		err error
	}
	var failed atomic.Bool
	fail := func(err error) {
		failure.Lock()
		if failure.err == nil {
			failure.err = err
		}
		failure.Unlock()
		failed.Store(true)
	}
	chunk := int64(e.cfg.BatchSize)
	start := time.Now()
	var wg sync.WaitGroup
	for _, w := range e.inserters {
		wg.Go(func() {
			for ctx.Err() == nil && !failed.Load() {
				i := next.Add(chunk) - chunk
				if i >= to {
					return
				}
				if err := w.insert(opCtx, i, min(chunk, to-i)); err != nil {
					fail(err)
					return
				}
			}
		})
	}
	wg.Wait()
	seg.Nanos += time.Since(start).Nanoseconds()
	if seg.Insert == nil {
		seg.Insert = &results.OpResult{Name: results.OpInsert, Statuses: map[string]int64{}}
	}
	for _, w := range e.inserters {
		w.drain(seg)
	}
	return failure.err
}

// insert writes records [i, i+n) with one call.
func (w *inserter) insert(ctx context.Context, i, n int64) error {
	w.buf, w.ends, w.docs = w.buf[:0], w.ends[:0], w.docs[:0]
	for k := range n {
		w.buf = w.e.gen.AppendDocument(w.buf, i+k)
		w.ends = append(w.ends, len(w.buf))
	}
	start := 0
	for _, end := range w.ends {
		w.docs = append(w.docs, bson.Raw(w.buf[start:end]))
		start = end
	}
	t0 := time.Now()
	err := w.e.store.Insert(ctx, w.docs)
	us := time.Since(t0).Microseconds()
	if err != nil && ctx.Err() != nil {
		// Cancelled after a stop, StopGrace later: not a failure of the
		// server's, and whether the call landed the resume finds out.
		return nil //nolint:nilerr // a stop, which the caller sees in its own context
	}
	w.calls.record(us, err != nil)
	if err != nil {
		if n == 1 {
			return fmt.Errorf("%w: record %d: %w", ErrInsertFailed, i, err)
		}
		return fmt.Errorf("%w: records %d to %d: %w", ErrInsertFailed, i, i+n-1, err)
	}
	w.records += n
	return nil
}

// drain moves the thread's measurements into the segment and resets them.
func (w *inserter) drain(seg *segment) {
	w.calls.drain(seg.Insert)
	seg.Records += w.records
	w.records = 0
}

// querier is one query thread's state, reused from run to run.
type querier struct {
	e      *engine
	filter []byte
	calls  calls
	docs   int64
}

// checkpoint takes the checkpoint that ends seg at records: sizes, then
// each query class; then it saves the row and adds it to the result. A
// stop (ctx) leaves it unfinished: no row, and the next loader takes it
// again.
func (e *engine) checkpoint(ctx context.Context, seg *segment, records int64) error {
	row := results.GrowthCheckpoint{Index: seg.Checkpoint, Records: records, Start: time.Now()}
	if st, err := e.store.CollStats(ctx); err != nil {
		row.SizesError = err.Error()
	} else {
		row.Sizes = &st
	}
	stored := storedRow{}
	for k := range e.specs {
		if stopped(ctx) {
			return nil
		}
		q, op := e.query(ctx, &e.specs[k], seg.Checkpoint, records)
		row.Queries = append(row.Queries, q)
		stored.Ops = append(stored.Ops, op)
	}
	if stopped(ctx) {
		return nil
	}
	row.End = time.Now()
	ins := seg.Insert
	if ins == nil {
		ins = &results.OpResult{Name: results.OpInsert, Statuses: map[string]int64{}}
	}
	row.Insert = results.GrowthInsert{
		FromRecords: seg.From, Records: seg.Records, Millis: time.Duration(seg.Nanos).Milliseconds(),
		Latency: results.Summarize(ins.Latency, ins.Total(), ins.Errors(), time.Duration(seg.Nanos)), Resumed: seg.Resumed,
	}
	if seg.Nanos > 0 {
		row.Insert.RecordsPerSec = float64(seg.Records) / time.Duration(seg.Nanos).Seconds()
	}
	stored.Row = row
	stored.Ops = append([]results.OpResult{*ins}, stored.Ops...)
	stored.WorkMillis = time.Duration(seg.Nanos).Milliseconds() + row.End.Sub(row.Start).Milliseconds()
	if err := e.saveRow(ctx, &stored); err != nil {
		return err
	}
	// The segment is in the row now; a stale one must not be taken up.
	if seg.Resumed {
		if err := e.store.DeleteState(context.WithoutCancel(ctx), stateSegment); err != nil {
			return fmt.Errorf("checkpoint %d: %w", seg.Checkpoint, err)
		}
	}
	e.addRow(&stored)
	if e.opts.OnCheckpoint != nil {
		e.opts.OnCheckpoint(&e.rows[len(e.rows)-1], false)
	}
	return nil
}

// query runs one class for the query duration with the query threads.
func (e *engine) query(ctx context.Context, spec *QuerySpec, checkpoint int, records int64) (results.GrowthQuery, results.OpResult) {
	opCtx, release := graceContext(ctx, e.opts.StopGrace)
	defer release()
	class := uint64(slices.Index(results.GrowthQueryOps, spec.Name))
	start := time.Now()
	deadline := start.Add(e.cfg.QueryDuration)
	var wg sync.WaitGroup
	for t, q := range e.queriers {
		// Query values are reproducible: a stream per seed, checkpoint,
		// class and thread.
		rng := rand.New(rand.NewPCG(mix(e.gen.key^uint64(checkpoint)), class<<32|uint64(t)))
		wg.Go(func() {
			// At least one query per thread, however short the duration
			// or slow the machine: a checkpoint always measures each class.
			for first := true; ctx.Err() == nil && (first || time.Now().Before(deadline)); first = false {
				q.filter = e.appendFilter(q.filter[:0], spec.Name, rng, records)
				t0 := time.Now()
				n, err := e.store.Find(opCtx, spec, q.filter)
				q.calls.record(time.Since(t0).Microseconds(), err != nil)
				if err == nil {
					q.docs += int64(n)
				}
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	op := results.OpResult{Name: spec.Name, Statuses: map[string]int64{}}
	var docs int64
	for _, q := range e.queriers {
		q.calls.drain(&op)
		docs += q.docs
		q.docs = 0
	}
	return results.GrowthQuery{Name: spec.Name, Millis: took.Milliseconds(), Documents: docs,
		Latency: results.Summarize(op.Latency, op.Total(), op.Errors(), took)}, op
}

// appendFilter appends the filter of a query of class name: values
// uniform in [0, N) drawn from rng; for Q2 with independent number1, the
// values of a random inserted record.
func (e *engine) appendFilter(dst []byte, name string, rng *rand.Rand, records int64) []byte {
	idx, dst := bsoncore.ReserveLength(dst)
	switch name {
	case results.OpQ1, results.OpQ3:
		dst = bsoncore.AppendInt64Element(dst, FieldNumber, rng.Int64N(e.gen.Values()))
	case results.OpQ2:
		var v, w int64
		if e.gen.Paired() {
			v = rng.Int64N(e.gen.Values())
			w = e.gen.Pair(v)
		} else {
			r := rng.Int64N(records)
			v, w = e.gen.Number(r), e.gen.Number1(r)
		}
		dst = bsoncore.AppendInt64Element(dst, FieldNumber, v)
		dst = bsoncore.AppendInt64Element(dst, FieldNumber1, w)
	}
	dst = append(dst, 0)
	return bsoncore.UpdateLength(dst, idx, int32(len(dst[idx:])))
}

// stop ends a phase that was stopped (ctx) or failed (err): the
// interrupted segment's measurements are saved for the next loader, and
// the partial result returned.
func (e *engine) stop(ctx context.Context, seg *segment, err error) (*results.Result, error) {
	if seg.Insert != nil && seg.Insert.Total() > 0 {
		if serr := e.saveSegment(context.WithoutCancel(ctx), seg); serr != nil {
			err = errors.Join(err, serr)
		}
	}
	return e.result(results.StopCancelled, seg), err
}

// addOp merges op into the phase's overall measurements.
func (e *engine) addOp(op *results.OpResult) {
	if op == nil || op.Total() == 0 {
		return
	}
	m := e.ops[op.Name]
	if m == nil {
		m = &results.OpResult{Name: op.Name, Statuses: map[string]int64{}}
		e.ops[op.Name] = m
	}
	m.Add(op)
}

// result is the phase's result: the rows' measurements and, when seg is
// not nil, those of the unfinished segment. It ends the engine's use.
func (e *engine) result(stop results.StopReason, seg *segment) *results.Result {
	work := e.workMillis
	if seg != nil && seg.Insert != nil {
		e.addOp(seg.Insert)
		work += time.Duration(seg.Nanos).Milliseconds()
	}
	r := &results.Result{
		Version: results.FormatVersion, Kind: results.KindGrow,
		Loader: results.Identity{Index: 0, Count: 1, Threads: max(e.cfg.InsertThreads, e.cfg.QueryThreads), Hostname: e.opts.Hostname},
		Start:  e.meta.Start, End: time.Now(), RuntimeMillis: work, StopReason: stop,
		Growth: &results.GrowthResult{
			TargetRecords: e.cfg.TargetRecords, CheckpointEvery: e.cfg.CheckpointEvery, PlannedCheckpoints: e.planned,
			InsertMode: e.cfg.InsertMode, BatchSize: e.cfg.BatchSize, InsertThreads: e.cfg.InsertThreads,
			QueryThreads: e.cfg.QueryThreads, QueryMillis: e.cfg.QueryDuration.Milliseconds(),
			Queries: slices.Clone(e.cfg.Queries), Values: e.gen.Values(),
			Restarts: e.meta.Restarts, RepairedRecords: e.meta.Repaired,
			Checkpoints: slices.Clone(e.rows),
		},
	}
	for _, name := range append([]string{results.OpInsert}, results.GrowthQueryOps...) {
		if op := e.ops[name]; op != nil {
			r.Ops = append(r.Ops, *op)
			r.Operations += op.Total()
		}
	}
	if r.Ops == nil {
		r.Ops = []results.OpResult{}
	}
	return r
}
