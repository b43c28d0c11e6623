package mongodb

import (
	"context"
	"sync"
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
