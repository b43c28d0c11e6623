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
	mu     sync.Mutex
	hist   [numOps][numKinds]*results.Histogram
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
	kind := kindOK
	if !st.IsOK() {
		kind = kindFailed
	}
	if st >= numStatuses {
		st = StatusError
	}
	r.mu.Lock()
	h := r.hist[op][kind]
	if h == nil {
		h = results.NewHistogram() // once per (worker, op, outcome)
		r.hist[op][kind] = h
	}
	h.Record(us)
	r.status[op][st]++
	r.mu.Unlock()
}

// drain moves the recorder's measurements into c, leaving it empty. The lock
// is held only to swap pointers and copy the counts; merging happens after.
func (r *Recorder) drain(c *collector) {
	var detached [numOps][numKinds]*results.Histogram
	r.mu.Lock()
	for op := range r.hist {
		for kind, h := range r.hist[op] {
			if h != nil && h.Count() > 0 {
				r.hist[op][kind] = c.spare()
				detached[op][kind] = h
			}
		}
		c.interval.status[op].add(&r.status[op])
		r.status[op] = StatusCounts{}
	}
	r.mu.Unlock()
	for op := range detached {
		for kind, h := range detached[op] {
			if h != nil {
				c.interval.hist(Op(op), kind).Merge(h)
				h.Reset()
				c.spares = append(c.spares, h)
			}
		}
	}
}
