package ycsb

import (
	"time"

	"github.com/mongobench/mongobench/internal/results"
)

// measurementSet is a histogram per operation and outcome, the intended
// latencies' histograms when they are measured, and status counts.
type measurementSet struct {
	h      [numOps][numKinds]*results.Histogram
	ih     [numOps][numKinds]*results.Histogram
	status [numOps]StatusCounts
}

// hist returns the histogram for (op, kind), creating it.
func (m *measurementSet) hist(op Op, kind int) *results.Histogram {
	if m.h[op][kind] == nil {
		m.h[op][kind] = results.NewHistogram()
	}
	return m.h[op][kind]
}

// intended returns the intended-latency histogram for (op, kind), creating
// it.
func (m *measurementSet) intended(op Op, kind int) *results.Histogram {
	if m.ih[op][kind] == nil {
		m.ih[op][kind] = results.NewHistogram()
	}
	return m.ih[op][kind]
}

// count returns the number of samples in (op, kind).
func (m *measurementSet) count(op Op, kind int) int64 { return m.h[op][kind].Count() }

// addTo merges m into dst.
func (m *measurementSet) addTo(dst *measurementSet) {
	for op := range m.h {
		for kind := range numKinds {
			if h := m.h[op][kind]; h.Count() > 0 {
				dst.hist(Op(op), kind).Merge(h)
			}
			if h := m.ih[op][kind]; h.Count() > 0 {
				dst.intended(Op(op), kind).Merge(h)
			}
		}
		dst.status[op].add(&m.status[op])
	}
}

// reset empties m, keeping its histograms for reuse.
func (m *measurementSet) reset() {
	for op := range m.h {
		for kind := range numKinds {
			if h := m.h[op][kind]; h != nil {
				h.Reset()
			}
			if h := m.ih[op][kind]; h != nil {
				h.Reset()
			}
		}
		m.status[op] = StatusCounts{}
	}
}

// collector gathers the workers' recorders once per base interval (one
// second) into: the interval's measurements (one series point), the status
// line's measurements (since the last status line), and the run's totals.
// The warm-up's recorders are gathered apart, into the status line's
// measurements and the warm-up's totals only. It runs on one goroutine;
// only Recorder.drain touches worker state.
type collector struct {
	recorders []*Recorder
	// warm are the workers' warm-up recorders (none without a warm-up).
	warm   []*Recorder
	spares []*results.Histogram
	// mode is measurement.interval: which latencies the status line shows.
	mode MeasurementInterval

	interval   measurementSet
	status     measurementSet
	total      measurementSet
	warmTotal  measurementSet
	warmPeriod measurementSet
	// exists marks the measurements YCSB would have created by now: "<OP>"
	// once anything was measured or a status reported for it, "<OP>-FAILED"
	// once a failure was measured. The status line lists exactly these.
	exists [numOps][numKinds]bool

	series *results.SeriesBuilder
	// dis, when set, has its samples drained with every collection.
	dis *disruptionSet

	// observer, when set, sees every collection (RunOptions.Observer);
	// observation is reused between calls.
	observer    Observer
	observation Observation
}

func newCollector(recorders, warm []*Recorder, base time.Duration, mode MeasurementInterval) *collector {
	return &collector{recorders: recorders, warm: warm, mode: mode, series: results.NewSeriesBuilder(base)}
}

// recycle keeps a drained histogram, emptied, as a spare.
func (c *collector) recycle(h *results.Histogram) {
	h.Reset()
	c.spares = append(c.spares, h)
}

// collectWarm drains the warm-up recorders into the status line's
// measurements and the warm-up's totals: warm-up operations are shown
// while they run but are no part of the phase's series or totals.
func (c *collector) collectWarm() {
	for _, r := range c.warm {
		r.drain(c, &c.warmPeriod)
	}
	c.markExisting(&c.warmPeriod)
	c.observe(&c.warmPeriod, true)
	c.warmPeriod.addTo(&c.status)
	c.warmPeriod.addTo(&c.warmTotal)
	c.warmPeriod.reset()
}

// markExisting marks the measurements that m makes exist.
func (c *collector) markExisting(m *measurementSet) {
	for op := range numOps {
		if m.count(op, kindOK) > 0 || m.status[op].Total() > 0 {
			c.exists[op][kindOK] = true
		}
		if m.count(op, kindFailed) > 0 {
			c.exists[op][kindFailed] = true
		}
	}
}

// spare returns an empty histogram to swap into a recorder.
func (c *collector) spare() *results.Histogram {
	if n := len(c.spares); n > 0 {
		h := c.spares[n-1]
		c.spares = c.spares[:n-1]
		return h
	}
	return results.NewHistogram()
}

// collect drains every recorder and closes one interval of length d: it
// becomes a series point and is added to the status and total measurements.
func (c *collector) collect(d time.Duration) {
	for _, r := range c.recorders {
		r.drain(c, &c.interval)
	}
	c.markExisting(&c.interval)
	point := results.Point{Millis: max(d.Milliseconds(), 1)}
	for op := range numOps {
		ok, failed := c.interval.count(op, kindOK), c.interval.count(op, kindFailed)
		if ok+failed == 0 {
			continue
		}
		po := results.PointOp{Name: op.String(), Count: ok + failed, Failed: failed}
		if ok > 0 {
			po.Latency = results.NewSeriesHistogram()
			po.Latency.Merge(c.interval.h[op][kindOK])
		}
		point.Ops = append(point.Ops, po)
	}
	c.series.Add(point)
	if c.dis != nil {
		c.dis.drain()
	}
	c.observe(&c.interval, false)
	c.interval.addTo(&c.status)
	c.interval.addTo(&c.total)
	c.interval.reset()
}
