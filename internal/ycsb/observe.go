package ycsb

import "github.com/mongobench/mongobench/internal/results"

// Observer sees the measurements as the collector gathers them: once per
// series interval (one second) and once at the end, from the collector's
// goroutine, never from a worker. The workers' hot path is untouched:
// observing costs nothing per operation, and what an Observer does per
// call (merging a few histograms) is paid once a second. The loader's live
// metrics (internal/loader/metrics) are fed this way, from the same
// measurements as the report.
type Observer interface {
	// Observe receives what was measured since the previous call. The
	// histograms are the collector's and are reused after it returns:
	// merge them, do not keep them.
	Observe(o *Observation)
}

// Observation is what the workers measured in one collection.
type Observation struct {
	// Warmup is true for the warm-up's operations, false for the
	// measured window's.
	Warmup bool
	// Ops lists the operations measured, in report order (CLEANUP
	// included).
	Ops []ObservedOp
}

// ObservedOp is one operation's measurements in an Observation.
type ObservedOp struct {
	Op Op
	// OK and Failed are the latencies (µs) of the operations that
	// succeeded and of the others; nil when there were none. IntendedOK and
	// IntendedFailed are their intended latencies, nil unless
	// measurement.interval measures them.
	OK, Failed, IntendedOK, IntendedFailed *results.Histogram
}

// observe hands m to the observer, if any.
func (c *collector) observe(m *measurementSet, warmup bool) {
	if c.observer == nil {
		return
	}
	o := &c.observation
	o.Warmup = warmup
	o.Ops = o.Ops[:0]
	nonEmpty := func(h *results.Histogram) *results.Histogram {
		if h.Count() == 0 {
			return nil
		}
		return h
	}
	for op := range numOps {
		ok, failed := nonEmpty(m.h[op][kindOK]), nonEmpty(m.h[op][kindFailed])
		if ok == nil && failed == nil {
			continue
		}
		o.Ops = append(o.Ops, ObservedOp{Op: op, OK: ok, Failed: failed,
			IntendedOK: nonEmpty(m.ih[op][kindOK]), IntendedFailed: nonEmpty(m.ih[op][kindFailed])})
	}
	if len(o.Ops) > 0 {
		c.observer.Observe(o)
	}
}
