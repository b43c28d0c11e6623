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
// for the moment, once per second, when the collector swaps the histograms
// out; no lock or atomic is shared between workers. Recording does not
// allocate once an operation's histogram exists.
//
// Memory: at most 2 histograms per operation kind the worker performs (the
// collector swaps in a spare rather than copying), so the total is bounded
// by threads × operation kinds × histogram size, independent of how many
// operations run.
type Recorder struct {
	mu   sync.Mutex
	hist [numOps][numKinds]*results.Histogram
	// ihist holds intended latencies (measurement.interval intended or
	// both): from the operation's start on the throttle's schedule to its
	// end. Empty when only service time is measured.
	ihist  [numOps][numKinds]*results.Histogram
	status [numOps]StatusCounts
	_      [64]byte // keep neighbouring workers' recorders off one cache line
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder { return &Recorder{} }

// Measure records one operation: its latency goes to the op's histogram if
// the status is OK (or BATCHED_OK), else to its FAILED histogram; the status
// is counted under the op either way (YCSB's measure + reportStatus).
// Statuses outside YCSB's set count as ERROR.
func (r *Recorder) Measure(op Op, st Status, us int64) {
	kind, st := classify(st)
	r.mu.Lock()
	record(&r.hist[op][kind], us)
	r.status[op][st]++
	r.mu.Unlock()
}

// MeasureIntended records one operation like Measure, and its intended
// latency (YCSB's measureIntended): from the moment the throttle meant it
// to start to its end, so that a stall that delays the following
// operations counts against them (coordinated omission).
func (r *Recorder) MeasureIntended(op Op, st Status, us, intendedUs int64) {
	kind, st := classify(st)
	r.mu.Lock()
	record(&r.hist[op][kind], us)
	record(&r.ihist[op][kind], intendedUs)
	r.status[op][st]++
	r.mu.Unlock()
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
// lock is held only to swap pointers and copy the counts; merging happens
// after, with c's spare histograms swapped in.
func (r *Recorder) drain(c *collector, dst *measurementSet) {
	var detached, idetached [numOps][numKinds]*results.Histogram
	r.mu.Lock()
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
