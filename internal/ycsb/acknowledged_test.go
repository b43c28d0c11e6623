package ycsb

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestAcknowledgedCounterConcurrent checks, under concurrency (run with
// -race), that Last never passes a value whose acknowledgement has not
// started, that it is monotonic, and that it ends at the last value.
func TestAcknowledgedCounterConcurrent(t *testing.T) {
	const workers, perWorker = 8, 20_000
	const total = workers * perWorker
	c := NewAcknowledgedCounter(0)
	acked := make([]atomic.Bool, total)
	var stop atomic.Bool
	var observerErr atomic.Value
	var obs sync.WaitGroup
	obs.Add(1)
	go func() {
		defer obs.Done()
		checked := int64(-1)
		for !stop.Load() {
			l := c.Last()
			if l < checked {
				observerErr.Store("Last went backwards")
				return
			}
			for ; checked < l; checked++ {
				if !acked[checked+1].Load() {
					observerErr.Store("Last passed an unacknowledged value")
					return
				}
			}
		}
	}()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := NewRand(uint64(w))
			for range perWorker {
				v := c.Next()
				if r.NextIntn(64) == 0 {
					time.Sleep(time.Duration(r.NextIntn(50)) * time.Microsecond)
				}
				acked[v].Store(true)
				c.Acknowledge(v)
			}
		}()
	}
	wg.Wait()
	stop.Store(true)
	obs.Wait()
	if e := observerErr.Load(); e != nil {
		t.Fatal(e)
	}
	if got := c.Last(); got != total-1 {
		t.Fatalf("Last = %d after acknowledging 0..%d", got, total-1)
	}
}

func TestAcknowledgedCounterStartAndGap(t *testing.T) {
	c := NewAcknowledgedCounter(100)
	if c.Last() != 99 {
		t.Fatalf("initial Last = %d, want 99", c.Last())
	}
	a, b, d := c.Next(), c.Next(), c.Next()
	c.Acknowledge(b)
	c.Acknowledge(d)
	if c.Last() != 99 {
		t.Fatalf("Last = %d with %d unacknowledged", c.Last(), a)
	}
	c.Acknowledge(a)
	if c.Last() != 102 {
		t.Fatalf("Last = %d, want 102", c.Last())
	}
}

// TestAcknowledgedCounterWindowWrap acknowledges more than a window while
// one early value stays outstanding: the acknowledger must wait (YCSB would
// throw) and continue once the straggler is acknowledged.
func TestAcknowledgedCounterWindowWrap(t *testing.T) {
	c := NewAcknowledgedCounter(0)
	straggler := c.Next()
	done := make(chan struct{})
	var progressed atomic.Int64
	go func() {
		defer close(done)
		for range ackWindow + 10 {
			v := c.Next()
			c.Acknowledge(v)
			progressed.Store(v)
		}
	}()
	// It fills the window, then blocks (a generous deadline: only a
	// counter that blocks too early pays it).
	for deadline := time.Now().Add(30 * time.Second); progressed.Load() < ackWindow-1; {
		if time.Now().After(deadline) {
			t.Fatalf("after 30s the acknowledger is at %d; the window holds %d", progressed.Load(), ackWindow)
		}
		time.Sleep(time.Millisecond) // poll interval, bounded by the deadline
	}
	// Give an overrun a chance to show: nothing may pass the window
	// however long this lasts, so a slow machine cannot fail it.
	time.Sleep(20 * time.Millisecond)
	if p := progressed.Load(); p > ackWindow {
		t.Fatalf("acknowledged %d with value 0 outstanding: window overrun", p)
	}
	if c.Last() != -1 {
		t.Fatalf("Last = %d with 0 outstanding", c.Last())
	}
	c.Acknowledge(straggler)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("acknowledger did not resume within 30s")
	}
	if got := c.Last(); got != ackWindow+10 {
		t.Fatalf("Last = %d, want %d", got, ackWindow+10)
	}
}

// TestAcknowledgedCounterWindowOnFirstAcknowledge: the 8 MB window exists
// only once something is acknowledged, so a phase without inserts does not
// hold it.
func TestAcknowledgedCounterWindowOnFirstAcknowledge(t *testing.T) {
	c := NewAcknowledgedCounter(0)
	c.Next()
	if c.slots.Load() != nil {
		t.Fatal("the window was allocated before any acknowledgement")
	}
	c.Acknowledge(0)
	if c.slots.Load() == nil || c.Last() != 0 {
		t.Fatalf("after Acknowledge(0): window %v, Last %d, want a window and 0", c.slots.Load() != nil, c.Last())
	}
}

// TestPrepareMakesTheAckWindowReady: a run phase that inserts gets its
// acknowledgement window from Prepare, before any operation; a load phase
// and a run phase without inserts do not (8 MB for nothing). Acknowledging
// after Prepare behaves as without it.
func TestPrepareMakesTheAckWindowReady(t *testing.T) {
	for _, tc := range []struct {
		workload string
		phase    Phase
		want     bool
	}{
		{"workloadd", PhaseRun, true},
		{"workloade", PhaseRun, true},
		{"workloadd", PhaseLoad, false},
		{"workloada", PhaseRun, false},
	} {
		p, err := LoadProperties([]string{tc.workload}, []string{"recordcount=1000", "operationcount=10"})
		if err != nil {
			t.Fatal(err)
		}
		w, err := NewWorkload(p)
		if err != nil {
			t.Fatal(err)
		}
		w.Prepare(tc.phase)
		if got := w.inserts.ack.slots.Load() != nil; got != tc.want {
			t.Errorf("%s, %v: window ready %v, want %v", tc.workload, tc.phase, got, tc.want)
		}
		if !tc.want {
			continue
		}
		j, _ := w.inserts.next()
		w.inserts.acknowledge(j)
		if last := w.inserts.ack.Last(); last != j {
			t.Errorf("%s: Last %d after acknowledging %d", tc.workload, last, j)
		}
	}
}
