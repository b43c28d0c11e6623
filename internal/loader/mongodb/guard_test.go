package mongodb

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// waitDone waits for ctx to end, up to d.
func waitDone(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return true
	case <-time.After(d):
		return false
	}
}

func TestWatchdogExpiresLongCallsOnly(t *testing.T) {
	const timeout = 50 * time.Millisecond
	w := newWatchdog(timeout)
	defer w.close()
	var slow, fast guard
	w.add(&slow)
	w.add(&fast)
	parent := context.Background()

	sctx, stoken := slow.begin(w, parent)
	// The fast thread keeps making short calls for longer than the timeout.
	deadline := time.Now().Add(3 * timeout)
	for time.Now().Before(deadline) {
		fctx, ftoken := fast.begin(w, parent)
		if fctx.Err() != nil {
			t.Fatal("a short call's context was cancelled")
		}
		fast.end(ftoken)
	}
	if !waitDone(sctx, 5*time.Second) {
		t.Fatal("the long call was not cancelled")
	}
	slow.end(stoken)
	// The next call gets a fresh context.
	ctx, token := slow.begin(w, parent)
	if ctx.Err() != nil || ctx == sctx {
		t.Fatal("no fresh context after an expiry")
	}
	slow.end(token)
	if got := slow.start.Load(); got != 0 {
		t.Errorf("start = %d after end", got)
	}
}

func TestGuardFollowsItsParent(t *testing.T) {
	w := newWatchdog(time.Hour)
	defer w.close()
	var g guard
	w.add(&g)
	p1, cancel1 := context.WithCancel(context.Background())
	ctx1, tok := g.begin(w, p1)
	g.end(tok)
	ctx1b, tok := g.begin(w, p1)
	g.end(tok)
	if ctx1 != ctx1b {
		t.Error("a new context for the same parent")
	}
	cancel1()
	if !waitDone(ctx1, time.Second) {
		t.Error("cancelling the parent did not end the thread's context")
	}
	p2 := context.Background()
	ctx2, tok := g.begin(w, p2)
	g.end(tok)
	if ctx2.Err() != nil {
		t.Error("a new parent did not give a new context")
	}
	g.release()
	w.remove(&g)
	if !waitDone(ctx2, time.Second) {
		t.Error("release did not cancel the context")
	}
	if len(w.guards) != 0 {
		t.Errorf("%d guards left", len(w.guards))
	}
}

// TestWatchdogRace runs threads and the watchdog concurrently (go test
// -race): every call whose context was cancelled must have been expired.
func TestWatchdogRace(t *testing.T) {
	w := newWatchdog(time.Millisecond)
	defer w.close()
	var wg sync.WaitGroup
	for range 4 {
		g := &guard{}
		w.add(g)
		wg.Go(func() {
			for i := range 2000 {
				ctx, token := g.begin(w, context.Background())
				if i%100 == 0 {
					time.Sleep(2 * time.Millisecond) // long enough to expire, sometimes
				}
				g.end(token)
				if ctx.Err() != nil && g.start.Load() != expired {
					t.Error("a context was cancelled without the call being expired")
					return
				}
			}
			g.release()
			w.remove(g)
		})
	}
	wg.Wait()
}

// TestGuardContextIsItsOwnRoot: a call's context keeps its parent's
// deadline and ends with it, but is a root of its own (none of the
// parent's values), so that the driver's lookups stop short; a parent
// already done gives a call that is done at once.
func TestGuardContextIsItsOwnRoot(t *testing.T) {
	w := newWatchdog(time.Hour)
	defer w.close()
	type key struct{}
	var g guard
	g.attempts = new(atomic.Int64)
	deadline := time.Now().Add(time.Hour)
	parent, cancel := context.WithDeadline(context.WithValue(context.Background(), key{}, "engine"), deadline)
	ctx, tok := g.begin(w, parent)
	g.end(tok)
	if d, ok := ctx.Deadline(); !ok || !d.Equal(deadline) {
		t.Errorf("deadline %v, %v: want the parent's, %v", d, ok, deadline)
	}
	if v := ctx.Value(key{}); v != nil {
		t.Errorf("the call's context sees the parent's value %v: it is not a root of its own", v)
	}
	if v := ctx.Value(attemptsKey{}); v != g.attempts {
		t.Errorf("attempts = %v, want the guard's", v)
	}
	cancel()
	if !waitDone(ctx, time.Second) {
		t.Fatal("cancelling the parent did not end the call's context")
	}
	// A new parent that is already done: the call's context is done before
	// the call starts, not some time after (AfterFunc's goroutine, which
	// with one P cannot run before this goroutine yields).
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	done, cancelDone := context.WithCancel(context.Background())
	cancelDone()
	ctx, tok = g.begin(w, done)
	g.end(tok)
	if ctx.Err() == nil {
		t.Error("a parent already done gave a call context that is not")
	}
	g.release()
}

// afterFuncParent is a cancellable context that counts the functions
// registered with it (context.AfterFunc uses a parent's AfterFunc method)
// and not yet stopped.
type afterFuncParent struct {
	context.Context
	done chan struct{}
	mu   sync.Mutex
	fns  map[int]func()
	next int
}

func newAfterFuncParent() *afterFuncParent {
	return &afterFuncParent{Context: context.Background(), done: make(chan struct{}), fns: map[int]func(){}}
}

// Done is a channel of its own, so that the context package does not take
// the embedded context for a *cancelCtx to register with.
func (p *afterFuncParent) Done() <-chan struct{} { return p.done }

func (p *afterFuncParent) Err() error {
	select {
	case <-p.done:
		return context.Canceled
	default:
		return nil
	}
}

func (p *afterFuncParent) AfterFunc(f func()) func() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	id := p.next
	p.next++
	p.fns[id] = f
	return func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		_, ok := p.fns[id]
		delete(p.fns, id)
		return ok
	}
}

func (p *afterFuncParent) live() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.fns)
}

func (p *afterFuncParent) cancel() {
	p.mu.Lock()
	fns := p.fns
	p.fns = map[int]func(){}
	close(p.done)
	p.mu.Unlock()
	for _, f := range fns {
		f()
	}
}

// TestGuardUnregistersReplacedContexts: a thread whose calls expire gets a
// new context each time; the run-long parent must not keep one function
// per replaced context, and the current one must still end with it.
func TestGuardUnregistersReplacedContexts(t *testing.T) {
	w := newWatchdog(time.Hour)
	defer w.close()
	var g guard
	p := newAfterFuncParent()
	var ctx context.Context
	for range 10 {
		var tok int64
		ctx, tok = g.begin(w, p)
		// As the watchdog does on an expiry: the next call renews.
		if !g.start.CompareAndSwap(tok, expired) {
			t.Fatal("no call to expire")
		}
	}
	if n := p.live(); n != 1 {
		t.Errorf("%d functions registered with the parent after 10 renewals, want 1", n)
	}
	p.cancel()
	if !waitDone(ctx, time.Second) {
		t.Fatal("cancelling the parent did not end the current context")
	}
	g.release()
	if n := p.live(); n != 0 {
		t.Errorf("%d functions registered after release", n)
	}

	q := newAfterFuncParent()
	_, tok := g.begin(w, q)
	g.end(tok)
	g.release()
	if n := q.live(); n != 0 {
		t.Errorf("%d functions registered with the parent after release, want 0", n)
	}
}
