package loader

import (
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// The loader's garbage collection: paced by the heap that holds pointers.
//
// Nearly everything a loader allocates per operation is garbage at once
// (the driver's command and reply buffers: 7 KB for a point read, 13 KB for
// an insert, 70 KB for a scan of 50 documents). What stays live is mostly
// memory without pointers: latency histograms (about 188 KB each whatever
// they hold, one per thread, operation and outcome, their spares, the
// interval's and the totals: several MB with 8 threads) and the insert
// sequence's acknowledgement window (8 MB). The GC does not scan such
// memory, so keeping it costs next to nothing per collection; but Go sizes
// the heap between two collections by the whole live heap: at GOGC=400 a
// loader with 12 MB of it allocates 50 MB between collections where its
// garbage needs 16. That costs more than the collections it saves: every
// new buffer lands in memory long out of the CPU's caches. Measured
// against the stub server (hack/perf-loader.sh), the bare driver loop
// holding 10 MB of idle pointer-free ballast took 22% more CPU per scan and
// 4% more per insert; the loader's scans took 20% more than the bare loop
// until it paced its GC this way.
//
// So the loader sets the GC percent, four times a second, to what makes a
// cycle allocate DefaultGCPercent% of the heap's scannable part (the
// runtime's /gc/scan/heap:bytes), and never less than 16 MB: what GOGC=400
// gives a program whose live heap is that part alone (at GOGC=400 the
// runtime's minimum heap is 4 MB × 4). A phase's first quarter second runs
// at DefaultGCPercent.

// DefaultGCPercent is the loader's GC target for the scannable heap, when
// GOGC is not set. At Go's default (100) the loader would collect every
// few MB allocated, every few hundred operations.
const DefaultGCPercent = 400

// gcPaceEvery is how often the GC percent follows the heap.
const gcPaceEvery = 250 * time.Millisecond

// minWorkingHeap is the smallest scannable heap the percent is computed
// for: cycles of at least 16 MB at DefaultGCPercent.
const minWorkingHeap = 4 << 20

// ConfigureGC paces the GC (see above) unless the GOGC environment
// variable is set (the user's choice wins), and returns a function that
// stops the pacing and restores the previous setting. cmd/loader calls it
// once at start-up.
func ConfigureGC(getenv func(string) string) (restore func()) {
	if getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(DefaultGCPercent)
	p := &gcPacer{read: readHeap, set: debug.SetGCPercent, last: DefaultGCPercent}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(gcPaceEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				p.step()
			}
		}
	}()
	return func() {
		close(stop)
		<-done
		debug.SetGCPercent(old)
	}
}

// gcPacer sets the GC percent from the heap.
type gcPacer struct {
	read func() (live, scannable int64)
	set  func(int) int
	last int
}

func (p *gcPacer) step() {
	if pct := gcPercent(p.read()); pct != p.last {
		p.set(pct)
		p.last = pct
	}
}

// gcPercent is the percent that makes a cycle allocate DefaultGCPercent% of
// the scannable heap (at least minWorkingHeap): Go's heap goal is
// live + live × percent / 100.
func gcPercent(live, scannable int64) int {
	working := max(scannable, minWorkingHeap)
	if live <= working {
		return DefaultGCPercent
	}
	return max(int(DefaultGCPercent*working/live), 1)
}

// The runtime metrics the pacer reads.
const (
	// liveHeap is the heap the last GC found live.
	liveHeap = "/gc/heap/live:bytes"
	// scanHeap is the part of the heap that holds pointers: live objects
	// up to their last pointer.
	scanHeap = "/gc/scan/heap:bytes"
)

// readHeap returns the live heap after the last collection and its
// scannable part.
func readHeap() (live, scannable int64) {
	s := []metrics.Sample{{Name: liveHeap}, {Name: scanHeap}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 {
		live = int64(s[0].Value.Uint64())
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		scannable = int64(s[1].Value.Uint64())
	}
	return live, scannable
}
