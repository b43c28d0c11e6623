package mongodb

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Operation timeouts without a timer per operation.
//
// Every driver call must be bounded (mongodb.operationtimeout), so that a
// stop (maxexecutiontime, SIGTERM) never waits on a hung call. The obvious
// context.WithTimeout per call costs about 2 µs of client CPU per operation
// here (a timer, a child registered in the engine's shared context, five
// allocations), about 6% of a whole operation against a fast server, and a
// deadline makes the driver add maxTimeMS to every command, which YCSB's
// binding does not send. Instead each thread runs its calls under one
// cancellable context of its own, and each Client runs one watchdog that
// cancels a thread's context when its current call has been running longer
// than the timeout. A call costs two atomic stores and an atomic load: its
// start is the watchdog's tick count, not a clock reading (a clock read is
// as dear as the rest of the guard). The timeout fires between timeout and
// timeout + 2·watchdogTick(timeout), never before.
//
// A cancelled context closes the call's connection (the driver's
// cancellation listener) and the call fails with context.Canceled: ERROR.
// The thread's next call gets a fresh context.
//
// The thread's context is a root of its own: a child of
// context.Background with the engine context's deadline, if it has one,
// that context.AfterFunc cancels when the engine's context ends. It
// carries none of the engine context's values; the binding needs none
// (the one value its command monitor reads, attemptsKey, is the guard's
// own). The driver asks a call's context for its deadline and for values
// (its session and timeout keys, none of them set here) on every call,
// and each question walks the context's chain to its root: derived from
// the engine's context, the chain went through the engine's contexts and
// whatever the loader's main put above them. Rooted here, the walks are
// one or two steps. That was about 1% of the loader's CPU per operation
// against the stub server (docs/loader.md, "The call's context").

// guard bounds one thread's calls. begin/end are called by the thread only;
// expire by the watchdog.
type guard struct {
	// start is the running call's start (the watchdog's tick count when
	// it began, > 0), 0 when no call runs, expired after the watchdog
	// cancelled the context.
	start atomic.Int64
	// cancel is the current context's; the watchdog reads it, the thread
	// replaces it (after an expiry, when start is expired).
	cancel atomic.Pointer[context.CancelFunc]

	// attempts, when set (disruptions are measured), travels in the
	// thread's context to the command monitor, which counts the thread's
	// failed command attempts in it (commandFailed).
	attempts *atomic.Int64

	// Thread-only.
	ctx    context.Context
	parent context.Context
	// stop unregisters the AfterFunc that cancels ctx with parent.
	stop func() bool
}

const expired = -1

// begin returns the context for a call starting now and the token end
// needs. parent is the engine's context for the operation; it is the same
// for every call of a run, so the thread's context is derived from it once.
func (g *guard) begin(w *watchdog, parent context.Context) (context.Context, int64) {
	if g.ctx == nil || parent != g.parent || g.start.Load() == expired {
		g.drop()
		ctx, cancel := rootContext(parent)
		g.stop = context.AfterFunc(parent, cancel)
		if parent.Err() != nil {
			// AfterFunc would cancel it in a goroutine of its own: this
			// call must see its parent's end at once, as a child would.
			cancel()
		}
		g.parent = parent
		if g.attempts != nil {
			// Once per context, not per call.
			ctx = context.WithValue(ctx, attemptsKey{}, g.attempts)
		}
		g.ctx = ctx
		g.cancel.Store(&cancel)
	}
	now := w.ticks.Load()
	g.start.Store(now)
	return g.ctx, now
}

// end marks the call that began at token finished, unless the watchdog
// expired it meanwhile (then the next begin renews the context).
func (g *guard) end(token int64) { g.start.CompareAndSwap(token, 0) }

// release cancels the thread's context (its DB is done); a later begin
// starts afresh.
func (g *guard) release() {
	g.drop()
	g.ctx, g.parent = nil, nil
}

// drop cancels the thread's current context, if any, and unregisters it
// from its parent: a context replaced after each expiry must not stay in
// the run-long engine context's list of functions to call.
func (g *guard) drop() {
	if c := g.cancel.Load(); c != nil {
		(*c)()
	}
	if g.stop != nil {
		g.stop()
		g.stop = nil
	}
}

// rootContext returns a cancellable child of context.Background with
// parent's deadline, if it has one (the cleanup's flush runs under one):
// the driver then bounds the call, and adds maxTimeMS, as under parent
// (driver v2.9.3: x/mongo/driver/operation.go, calculateMaxTimeMS via
// driverutil.CalculateMaxTimeMS reads ctx.Deadline; topology/connection.go
// sets the socket deadlines from it).
func rootContext(parent context.Context) (context.Context, context.CancelFunc) {
	if d, ok := parent.Deadline(); ok {
		return context.WithDeadline(context.Background(), d)
	}
	return context.WithCancel(context.Background())
}

// watchdog cancels the calls of its guards that exceed the timeout.
type watchdog struct {
	timeout time.Duration
	tick    time.Duration
	// ticks counts the ticks, from 1: the coarse clock of the calls'
	// starts. A tick the ticker drops (a slow watchdog) only makes
	// expiries later, never earlier.
	ticks atomic.Int64
	// late is how many ticks must have passed since a call's start tick
	// for it to be expired: its start lies somewhere within that tick, so
	// one more than fit in the timeout.
	late int64

	mu     sync.Mutex
	guards []*guard

	stop chan struct{}
	done chan struct{}
}

// watchdogTick is how often the watchdog looks: an eighth of the timeout,
// between 1 ms and 1 s.
func watchdogTick(timeout time.Duration) time.Duration {
	return min(max(timeout/8, time.Millisecond), time.Second)
}

func newWatchdog(timeout time.Duration) *watchdog {
	tick := watchdogTick(timeout)
	w := &watchdog{timeout: timeout, tick: tick, late: int64((timeout+tick-1)/tick) + 1,
		stop: make(chan struct{}), done: make(chan struct{})}
	w.ticks.Store(1)
	go w.run()
	return w
}

func (w *watchdog) add(g *guard) {
	w.mu.Lock()
	w.guards = append(w.guards, g)
	w.mu.Unlock()
}

func (w *watchdog) remove(g *guard) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, o := range w.guards {
		if o == g {
			w.guards = append(w.guards[:i], w.guards[i+1:]...)
			return
		}
	}
}

func (w *watchdog) run() {
	defer close(w.done)
	t := time.NewTicker(w.tick)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			w.ticks.Add(1)
			w.check()
		}
	}
}

// check expires every call that started more than the timeout ago: at
// least late ticks before the current one.
func (w *watchdog) check() {
	limit := w.ticks.Load() - w.late + 1
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, g := range w.guards {
		// Load the cancel func before claiming the call: the thread only
		// replaces it after seeing start == expired, i.e. after our CAS.
		cancel := g.cancel.Load()
		s := g.start.Load()
		if s > 0 && s < limit && cancel != nil && g.start.CompareAndSwap(s, expired) {
			(*cancel)()
		}
	}
}

// close stops the watchdog.
func (w *watchdog) close() {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
}
