package results

import (
	"fmt"
	"time"
)

// MaxSeriesPoints bounds a time series: at most this many points per loader
// and per merged phase, whatever the run's length, so results and the
// BenchmarkRun status stay small. Longer runs get wider intervals.
const MaxSeriesPoints = 120

// Series is a per-interval time series of one loader (or of a merged
// phase). Point i covers [start + i·IntervalMillis, +Millis).
type Series struct {
	IntervalMillis int64   `json:"intervalMillis"`
	Points         []Point `json:"points"`
}

// Point is one interval of a series.
type Point struct {
	// Millis is the length of time the point covers: IntervalMillis except
	// for the last point of a run, which may be shorter.
	Millis int64     `json:"millis"`
	Ops    []PointOp `json:"ops,omitempty"`
}

// PointOp is one operation type's activity in one interval.
type PointOp struct {
	Name string `json:"name"`
	// Count is every operation of this type in the interval, failed ones
	// included (they count towards throughput, as in YCSB).
	Count int64 `json:"count"`
	// Failed is how many of Count failed (results of format version 3 on;
	// 0 in older ones, which did not count them).
	Failed int64 `json:"failed,omitempty"`
	// Latency of the successful operations, at series precision.
	Latency *Histogram `json:"latency,omitempty"`
}

// Count is the number of operations in the point.
func (p *Point) Count() int64 {
	var n int64
	for _, o := range p.Ops {
		n += o.Count
	}
	return n
}

// Throughput is the point's operations per second.
func (p *Point) Throughput() float64 {
	if p.Millis <= 0 {
		return 0
	}
	return float64(p.Count()) * 1000 / float64(p.Millis)
}

// Op returns the named operation of the point or nil.
func (p *Point) Op(name string) *PointOp {
	for i := range p.Ops {
		if p.Ops[i].Name == name {
			return &p.Ops[i]
		}
	}
	return nil
}

// add merges q into p (same or adjacent intervals: counts add, histograms
// merge, lengths add when adjacent is true).
func (p *Point) add(q *Point, adjacent bool) {
	if adjacent {
		p.Millis += q.Millis
	} else if q.Millis > p.Millis {
		p.Millis = q.Millis
	}
	for _, qo := range q.Ops {
		po := p.Op(qo.Name)
		if po == nil {
			p.Ops = append(p.Ops, PointOp{Name: qo.Name})
			po = &p.Ops[len(p.Ops)-1]
		}
		po.Count += qo.Count
		po.Failed += qo.Failed
		if qo.Latency.Count() > 0 {
			if po.Latency == nil {
				po.Latency = NewSeriesHistogram()
			}
			po.Latency.Merge(qo.Latency)
		}
	}
	sortOps(p.Ops, func(o PointOp) string { return o.Name })
}

// coalesce merges consecutive groups of factor points, multiplying the
// interval by factor.
func (s *Series) coalesce(factor int) {
	if factor <= 1 || len(s.Points) == 0 {
		return
	}
	out := make([]Point, 0, (len(s.Points)+factor-1)/factor)
	for i := 0; i < len(s.Points); i += factor {
		p := Point{}
		for j := i; j < i+factor && j < len(s.Points); j++ {
			p.add(&s.Points[j], true)
		}
		out = append(out, p)
	}
	s.Points = out
	s.IntervalMillis *= int64(factor)
}

// Validate checks the series' shape.
func (s *Series) Validate() error {
	if len(s.Points) > MaxSeriesPoints {
		return fmt.Errorf("series has %d points, at most %d allowed", len(s.Points), MaxSeriesPoints)
	}
	if len(s.Points) > 0 && s.IntervalMillis <= 0 {
		return fmt.Errorf("series interval %d ms must be positive", s.IntervalMillis)
	}
	for i, p := range s.Points {
		if p.Millis <= 0 || p.Millis > s.IntervalMillis {
			return fmt.Errorf("series point %d covers %d ms, interval is %d ms", i, p.Millis, s.IntervalMillis)
		}
		for _, o := range p.Ops {
			if o.Count < 0 || o.Latency.Count() > o.Count {
				return fmt.Errorf("series point %d, %s: %d latency samples for %d operations", i, o.Name, o.Latency.Count(), o.Count)
			}
		}
	}
	return nil
}

// SeriesBuilder collects base intervals (e.g. one per second) into a Series
// of at most MaxSeriesPoints points, doubling the interval whenever the
// series would grow past the bound. Memory is bounded by MaxSeriesPoints
// points whatever the run's length.
type SeriesBuilder struct {
	base    time.Duration
	series  Series
	pending Point
	// pendingBase counts the base intervals in pending.
	pendingBase int64
}

// NewSeriesBuilder starts a series whose smallest interval is base.
func NewSeriesBuilder(base time.Duration) *SeriesBuilder {
	return &SeriesBuilder{base: base, series: Series{IntervalMillis: base.Milliseconds()}}
}

// Add appends one base interval. p.Millis may be shorter than the base
// interval only for the last one. The builder takes ownership of p.
func (b *SeriesBuilder) Add(p Point) {
	b.pending.add(&p, true)
	b.pendingBase++
	if b.pendingBase*b.base.Milliseconds() < b.series.IntervalMillis {
		return
	}
	b.push()
}

func (b *SeriesBuilder) push() {
	if len(b.series.Points) == MaxSeriesPoints {
		b.series.coalesce(2)
		// The pending point now covers half of the new interval: keep
		// accumulating into it.
		if b.pendingBase*b.base.Milliseconds() < b.series.IntervalMillis {
			return
		}
	}
	b.series.Points = append(b.series.Points, b.pending)
	b.pending = Point{}
	b.pendingBase = 0
}

// Series returns the series with any partly filled interval as its last
// (shorter) point. The builder must not be used afterwards.
func (b *SeriesBuilder) Series() Series {
	if b.pendingBase > 0 {
		if len(b.series.Points) == MaxSeriesPoints {
			b.series.coalesce(2)
		}
		b.series.Points = append(b.series.Points, b.pending)
		b.pending = Point{}
		b.pendingBase = 0
	}
	return b.series
}

// mergeSeries merges the series of parallel loaders point by point (aligned
// on each loader's start), first bringing them to the widest interval.
func mergeSeries(all []Series) (Series, error) {
	var interval int64
	for _, s := range all {
		if len(s.Points) > 0 && s.IntervalMillis > interval {
			interval = s.IntervalMillis
		}
	}
	out := Series{IntervalMillis: interval}
	for _, s := range all {
		if len(s.Points) == 0 {
			continue
		}
		if interval%s.IntervalMillis != 0 {
			return Series{}, fmt.Errorf("series intervals %d ms and %d ms cannot be aligned", s.IntervalMillis, interval)
		}
		s = Series{IntervalMillis: s.IntervalMillis, Points: append([]Point(nil), s.Points...)}
		s.coalesce(int(interval / s.IntervalMillis))
		for i := range s.Points {
			if i == len(out.Points) {
				out.Points = append(out.Points, Point{})
			}
			out.Points[i].add(&s.Points[i], false)
		}
	}
	if len(out.Points) > MaxSeriesPoints {
		out.coalesce(2)
	}
	return out, nil
}
