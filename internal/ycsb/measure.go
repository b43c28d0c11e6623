package ycsb

import (
	"sync"

	"github.com/mongobench/mongobench/internal/results"
)

// Histogram slots per operation: successful calls ("<OP>") and the others
// ("<OP>-FAILED"), as YCSB's DBWrapper splits them.
const (
	kindOK = iota
	kindFailed
	numKinds
)

// Recorder holds one worker's measurements since the collector last drained
// them: a latency histogram per operation and outcome, and counts per
// status. Only its worker records into it, so its mutex is uncontended except
// for the moment, once per second, when the collector drains it (records
// what is pending, at most 511 measurements, and swaps the histograms out);
// no lock or atomic is shared between workers. Recording does not allocate
// once an operation's histogram exists.
//
// A measurement is first appended to a small buffer and goes into its
// histogram and status count when the buffer is full or the collector
// drains the recorder, whichever comes first. Between two of a worker's
// measurements the driver runs a whole call, which pushes the histograms'
// lines out of the core's caches; recording straight away cost a chain of
// dependent misses per operation (recorder, histogram, counts; profiled in
// situ with internal/loader/mongodb's BenchmarkPaired, where
// hdrhistogram's setCountAtIndex alone was about 1% of the loader's CPU).
// Appending touches one line that the next appends share, and the batch is
// recorded in a tight loop while the lines stay cached. Histograms and
// counts are sums, so the order of recording changes nothing in them.
//
// Memory: at most 2 histograms per operation kind the worker performs (the
// collector swaps in a spare rather than copying), so the total is bounded
// by threads × operation kinds × histogram size, independent of how many
// operations run; the buffer is a fixed 4 KB.
type Recorder struct {
	mu sync.Mutex
	// n measurements are pending in buf (see pending).
	n   int
	buf [recorderBuffer]pending

	hist [numOps][numKinds]*results.Histogram
	// ihist holds intended latencies (measurement.interval intended or
	// both): from the operation's start on the throttle's schedule to its
	// end. Empty when only service time is measured.
	ihist  [numOps][numKinds]*results.Histogram
	status [numOps]StatusCounts
	_      [64]byte // keep neighbouring workers' recorders off one cache line
}

// recorderBuffer is how many measurements a Recorder holds before it
// records them: 4 KB. They wait at most until the next drain (a second),
// and no reader sees the wait: drain records whatever is pending first.
const recorderBuffer = 512

// pending is one buffered measurement: the latency in µs (clamped to the
// histograms' range, as Histogram.Record would clamp it) in the low 40
// bits, then the status (8 bits) and the operation (8 bits), and the
// intendedOnly flag for the second entry of MeasureIntended, which goes to
// the intended-latency histogram and is not counted again.
type pending uint64

const (
	pendingStatusShift = 40
	pendingOpShift     = 48
	intendedOnly       = pending(1) << 56
	pendingMicrosMask  = pending(1)<<pendingStatusShift - 1
)

func pack(op Op, st Status, us int64) pending {
	us = min(max(us, 0), results.HighestMicros)
	return pending(us) | pending(st)<<pendingStatusShift | pending(op)<<pendingOpShift
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder { return &Recorder{} }

// Measure records one operation: its latency goes to the op's histogram if
// the status is OK (or BATCHED_OK), else to its FAILED histogram; the status
// is counted under the op either way (YCSB's measure + reportStatus).
// Statuses outside YCSB's set count as ERROR.
func (r *Recorder) Measure(op Op, st Status, us int64) {
	r.mu.Lock()
	if r.n == len(r.buf) {
		r.flush()
	}
	r.buf[r.n] = pack(op, st, us)
	r.n++
	r.mu.Unlock()
}

// MeasureIntended records one operation like Measure, and its intended
// latency (YCSB's measureIntended): from the moment the throttle meant it
// to start to its end, so that a stall that delays the following
// operations counts against them (coordinated omission).
func (r *Recorder) MeasureIntended(op Op, st Status, us, intendedUs int64) {
	r.mu.Lock()
	if r.n > len(r.buf)-2 {
		r.flush()
	}
	r.buf[r.n] = pack(op, st, us)
	r.buf[r.n+1] = pack(op, st, intendedUs) | intendedOnly
	r.n += 2
	r.mu.Unlock()
}

// flush records the pending measurements into the histograms and counts.
// r.mu must be held.
func (r *Recorder) flush() {
	for _, p := range r.buf[:r.n] {
		op := Op(p >> pendingOpShift)
		kind, st := classify(Status(p >> pendingStatusShift))
		us := int64(p & pendingMicrosMask)
		if p&intendedOnly != 0 {
			record(&r.ihist[op][kind], us)
			continue
		}
		record(&r.hist[op][kind], us)
		r.status[op][st]++
	}
	r.n = 0
}

// classify returns the histogram slot of an operation that ended with
// status st (kindOK for OK and BATCHED_OK, else kindFailed) and the status
// it is counted under: st, or ERROR for a status outside YCSB's set.
func classify(st Status) (kind int, counted Status) {
	kind = kindOK
	if !st.IsOK() {
		kind = kindFailed
	}
	if st >= numStatuses {
		st = StatusError
	}
	return kind, st
}

// record adds us to the histogram in slot, creating it on first use.
func record(slot **results.Histogram, us int64) {
	h := *slot
	if h == nil {
		h = results.NewHistogram() // once per (worker, op, outcome)
		*slot = h
	}
	h.Record(us)
}

// drain moves the recorder's measurements into dst, leaving it empty. The
// lock is held to record the pending measurements (a few microseconds at
// most; the worker waits only if it measures meanwhile, after its latency
// was taken), swap pointers and copy the counts; merging happens after,
// with c's spare histograms swapped in.
func (r *Recorder) drain(c *collector, dst *measurementSet) {
	var detached, idetached [numOps][numKinds]*results.Histogram
	r.mu.Lock()
	r.flush()
	for op := range r.hist {
		for kind := range numKinds {
			if h := r.hist[op][kind]; h != nil && h.Count() > 0 {
				r.hist[op][kind] = c.spare()
				detached[op][kind] = h
			}
			if h := r.ihist[op][kind]; h != nil && h.Count() > 0 {
				r.ihist[op][kind] = c.spare()
				idetached[op][kind] = h
			}
		}
		dst.status[op].add(&r.status[op])
		r.status[op] = StatusCounts{}
	}
	r.mu.Unlock()
	for op := range detached {
		for kind := range numKinds {
			if h := detached[op][kind]; h != nil {
				dst.hist(Op(op), kind).Merge(h)
				c.recycle(h)
			}
			if h := idetached[op][kind]; h != nil {
				dst.intended(Op(op), kind).Merge(h)
				c.recycle(h)
			}
		}
	}
}
