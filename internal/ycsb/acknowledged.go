package ycsb

import (
	"runtime"
	"sync/atomic"
	"time"
)

// ackWindow is YCSB's window of outstanding (handed out but not yet
// acknowledged) values: 2^20.
const (
	ackWindow = 1 << 20
	ackMask   = ackWindow - 1
)

// AcknowledgedCounter is YCSB's AcknowledgedCounterGenerator: Next hands out
// values like a counter, Acknowledge marks one done (inserted, or failed), and
// Last only advances over a contiguous prefix of acknowledged values, so a
// reader that stays at or below Last never targets a record whose insert is
// still in flight.
//
// YCSB keeps a boolean window guarded by a tryLock and a volatile limit; the
// booleans are written without synchronisation. Here every slot stores the
// value it acknowledges (+1, so the zero value means "empty"), which makes a
// slot unambiguous across window wrap-arounds, and the limit advances by CAS:
// any acknowledging goroutine may move it, nobody blocks, and a slot is only
// ever compared against the exact value expected there.
//
// Lost-wakeup freedom: an acknowledger stores its slot, then reads the limit;
// the goroutine advancing the limit CASes it, then reads the next slot. With
// Go's sequentially consistent atomics one of the two sees the other's write,
// so an acknowledged value right after the limit is never left behind.
type AcknowledgedCounter struct {
	counter atomic.Int64
	_       [56]byte // keep the hot counter off the limit's cache line
	limit   atomic.Int64
	_       [56]byte
	// slots is the window, allocated by the first Acknowledge: 8 MB that
	// a phase without inserts never needs (and, held for nothing, would
	// still count in the live heap).
	slots atomic.Pointer[[ackWindow]atomic.Int64]
}

// NewAcknowledgedCounter returns a counter whose first value is start; Last
// is start-1 until start is acknowledged.
func NewAcknowledgedCounter(start int64) *AcknowledgedCounter {
	c := &AcknowledgedCounter{}
	c.counter.Store(start)
	c.limit.Store(start - 1)
	return c
}

// Next hands out the next value.
func (c *AcknowledgedCounter) Next() int64 { return c.counter.Add(1) - 1 }

// Last returns the highest value v such that every value up to v has been
// acknowledged.
func (c *AcknowledgedCounter) Last() int64 { return c.limit.Load() }

// Acknowledge marks v (a value returned by Next) as done.
//
// If v is more than a window ahead of Last, its slot may still hold an
// acknowledged value the limit has not passed yet; YCSB throws "Too many
// unacknowledged insertion keys" there. We wait instead until the straggler
// is acknowledged (it always is: workers acknowledge even failed inserts, and
// DB calls end with their context), which cannot deadlock because the
// straggler's own acknowledgement never waits on us.
func (c *AcknowledgedCounter) Acknowledge(v int64) {
	for wait := time.Microsecond; v-c.limit.Load() > ackWindow; wait = min(2*wait, time.Millisecond) {
		runtime.Gosched()
		time.Sleep(wait)
	}
	slots := c.window()
	slots[v&ackMask].Store(v + 1)
	for {
		l := c.limit.Load()
		if slots[(l+1)&ackMask].Load() != l+2 {
			return
		}
		c.limit.CompareAndSwap(l, l+1)
	}
}

// prepare allocates the window now and touches each of its pages, so that
// neither the allocation nor the pages' first faults fall in a phase's
// first inserts: on the VMs measured (docs/loader.md), making the 8 MB
// ready took up to 40 ms. Not safe to call concurrently with Acknowledge.
func (c *AcknowledgedCounter) prepare() {
	w := c.window()
	const slotsPerPage = 4096 / 8
	for i := 0; i < ackWindow; i += slotsPerPage {
		w[i].Store(w[i].Load()) // a write: the page is the process's now
	}
}

// window returns the slots, allocating them on first use; of goroutines
// racing to, one wins and the others drop theirs.
func (c *AcknowledgedCounter) window() *[ackWindow]atomic.Int64 {
	if w := c.slots.Load(); w != nil {
		return w
	}
	w := new([ackWindow]atomic.Int64)
	if c.slots.CompareAndSwap(nil, w) {
		return w
	}
	return c.slots.Load()
}
