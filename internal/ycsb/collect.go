package ycsb

import (
	"time"

	"github.com/mongobench/mongobench/internal/results"
)

// measurementSet is a histogram per operation and outcome plus status counts.
type measurementSet struct {
	h      [numOps][numKinds]*results.Histogram
	status [numOps]StatusCounts
}

// hist returns the histogram for (op, kind), creating it.
func (m *measurementSet) hist(op Op, kind int) *results.Histogram {
	if m.h[op][kind] == nil {
		m.h[op][kind] = results.NewHistogram()
	}
	return m.h[op][kind]
}

// count returns the number of samples in (op, kind).
func (m *measurementSet) count(op Op, kind int) int64 { return m.h[op][kind].Count() }

// addTo merges m into dst.
func (m *measurementSet) addTo(dst *measurementSet) {
	for op := range m.h {
		for kind, h := range m.h[op] {
			if h.Count() > 0 {
				dst.hist(Op(op), kind).Merge(h)
			}
		}
		dst.status[op].add(&m.status[op])
	}
}

// reset empties m, keeping its histograms for reuse.
func (m *measurementSet) reset() {
	for op := range m.h {
		for _, h := range m.h[op] {
			if h != nil {
				h.Reset()
			}
		}
		m.status[op] = StatusCounts{}
	}
}

// collector gathers the workers' recorders once per base interval (one
// second) into: the interval's measurements (one series point), the status
// line's measurements (since the last status line), and the run's totals.
// It runs on one goroutine; only Recorder.drain touches worker state.
type collector struct {
	recorders []*Recorder
	spares    []*results.Histogram

	interval measurementSet
	status   measurementSet
	total    measurementSet
	// exists marks the measurements YCSB would have created by now: "<OP>"
	// once anything was measured or a status reported for it, "<OP>-FAILED"
	// once a failure was measured. The status line lists exactly these.
	exists [numOps][numKinds]bool

	series *results.SeriesBuilder
}

func newCollector(recorders []*Recorder, base time.Duration) *collector {
	return &collector{recorders: recorders, series: results.NewSeriesBuilder(base)}
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
		r.drain(c)
	}
	point := results.Point{Millis: max(d.Milliseconds(), 1)}
	for op := range numOps {
		ok, failed := c.interval.count(op, kindOK), c.interval.count(op, kindFailed)
		if ok > 0 || c.interval.status[op].Total() > 0 {
			c.exists[op][kindOK] = true
		}
		if failed > 0 {
			c.exists[op][kindFailed] = true
		}
		if ok+failed == 0 {
			continue
		}
		po := results.PointOp{Name: op.String(), Count: ok + failed}
		if ok > 0 {
			po.Latency = results.NewSeriesHistogram()
			po.Latency.Merge(c.interval.h[op][kindOK])
		}
		point.Ops = append(point.Ops, po)
	}
	c.series.Add(point)
	c.interval.addTo(&c.status)
	c.interval.addTo(&c.total)
	c.interval.reset()
}
