package results

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/mongobench/mongobench/internal/stats"
)

// mergeDisruptions merges the disruptions every loader of a phase measured
// (rs in any order): each loader must report the same disruptions (index,
// action, at), which the phase's Job gave them all. Per disruption, the
// loaders' own measurements are concatenated by loader index, the errors
// and retries summed, the series merged point by point on the instant's
// grid at the coarsest interval any loader kept, and the instant and the
// outcome are loader 0's (the actor's).
func mergeDisruptions(rs []*Result) ([]Disruption, error) {
	var first *Result
	for _, r := range rs {
		if first == nil || r.Loader.Index < first.Loader.Index {
			first = r
		}
	}
	if first == nil || len(first.Disruptions) == 0 {
		for _, r := range rs {
			if len(r.Disruptions) > 0 {
				return nil, fmt.Errorf("loader %d measured %d disruptions, loader %d none", r.Loader.Index, len(r.Disruptions), first.Loader.Index)
			}
		}
		return nil, nil
	}
	out := make([]Disruption, len(first.Disruptions))
	for i := range first.Disruptions {
		f := &first.Disruptions[i]
		out[i] = Disruption{Index: f.Index, Action: f.Action, AtMillis: f.AtMillis, Instant: f.Instant}
		if f.Outcome != nil {
			o := *f.Outcome
			out[i].Outcome = &o
		}
	}
	series := make([][]*Disruption, len(out))
	for _, r := range rs {
		if len(r.Disruptions) != len(out) {
			return nil, fmt.Errorf("loader %d measured %d disruptions, loader %d %d", r.Loader.Index, len(r.Disruptions),
				first.Loader.Index, len(out))
		}
		for i := range r.Disruptions {
			d, m := &r.Disruptions[i], &out[i]
			if d.Index != m.Index || d.Action != m.Action || d.AtMillis != m.AtMillis {
				return nil, fmt.Errorf("loader %d's disruption %d is %s at %d ms (index %d), loader %d's is %s at %d ms (index %d)",
					r.Loader.Index, i, d.Action, d.AtMillis, d.Index, first.Loader.Index, m.Action, m.AtMillis, m.Index)
			}
			m.Loaders = append(m.Loaders, d.Loaders...)
			for label, n := range d.Errors {
				if m.Errors == nil {
					m.Errors = map[string]int64{}
				}
				m.Errors[label] += n
			}
			m.Retried += d.Retried
			m.RetriedOK += d.RetriedOK
			series[i] = append(series[i], d)
		}
	}
	for i := range out {
		m := &out[i]
		slices.SortFunc(m.Loaders, func(a, b DisruptionLoader) int { return a.Index - b.Index })
		for j := 1; j < len(m.Loaders); j++ {
			if m.Loaders[j].Index == m.Loaders[j-1].Index {
				return nil, fmt.Errorf("disruption %d: two measurements of loader %d", m.Index, m.Loaders[j].Index)
			}
		}
		start, s, err := mergeDisruptionSeries(series[i])
		if err != nil {
			return nil, fmt.Errorf("disruption %d: %w", m.Index, err)
		}
		m.SeriesStartMillis, m.Series = start, s
	}
	return out, nil
}

// mergeDisruptionSeries merges the loaders' series of one disruption on
// its instant's grid: each series is first brought to the coarsest
// interval (its points grouped by the multiple of that interval, from the
// instant, they start in), then the loaders' points of one interval are
// added. The merged series runs from the earliest start to the latest end;
// an interval inside it that no loader covered (their series did not
// overlap) is kept, empty, so that point i stays at start + i·interval.
func mergeDisruptionSeries(ds []*Disruption) (int64, Series, error) {
	var interval int64
	for _, d := range ds {
		if len(d.Series.Points) > 0 && d.Series.IntervalMillis > interval {
			interval = d.Series.IntervalMillis
		}
	}
	if interval == 0 {
		return 0, Series{}, nil
	}
	buckets := map[int64]*Point{}
	var lo, hi int64 = math.MaxInt64, math.MinInt64
	for _, d := range ds {
		s := &d.Series
		if len(s.Points) == 0 {
			continue
		}
		if s.IntervalMillis <= 0 || interval%s.IntervalMillis != 0 {
			return 0, Series{}, fmt.Errorf("series intervals %d ms and %d ms cannot be aligned", s.IntervalMillis, interval)
		}
		own := map[int64]*Point{}
		for k := range s.Points {
			p := &s.Points[k]
			b := floorDiv(d.SeriesStartMillis+int64(k)*s.IntervalMillis, interval)
			if own[b] == nil {
				own[b] = &Point{}
			}
			own[b].add(p, true)
		}
		for b, p := range own {
			if buckets[b] == nil {
				buckets[b] = &Point{}
			}
			buckets[b].add(p, false)
			lo, hi = min(lo, b), max(hi, b)
		}
	}
	out := Series{IntervalMillis: interval, Points: make([]Point, 0, hi-lo+1)}
	for b := lo; b <= hi; b++ {
		p := buckets[b]
		if p == nil {
			p = &Point{Millis: interval}
		}
		out.Points = append(out.Points, *p)
	}
	start := lo * interval
	// Loaders whose series start or end apart (their windows did) can
	// widen the merge past the bound: coarsen it, still on the grid.
	for len(out.Points) > MaxDisruptionPoints+1 {
		start, out = coarsenOnInstant(start, out)
	}
	return start, out, nil
}

// coarsenOnInstant doubles a disruption series' interval, keeping its
// boundaries on multiples of the new interval from the instant.
func coarsenOnInstant(start int64, s Series) (int64, Series) {
	interval := 2 * s.IntervalMillis
	out := Series{IntervalMillis: interval}
	newStart := floorDiv(start, interval) * interval
	for k := range s.Points {
		b := int(floorDiv(start+int64(k)*s.IntervalMillis-newStart, interval))
		for len(out.Points) <= b {
			out.Points = append(out.Points, Point{})
		}
		out.Points[b].add(&s.Points[k], true)
	}
	return newStart, out
}

// floorDiv is a/b rounded towards minus infinity (b > 0): a series may
// start before its instant.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// LoaderTimes summarises a time every loader measured from a disruption's
// instant: the maximum and the median over the loaders that measured one
// (Measured), and how many did not (Missing).
type LoaderTimes struct {
	MaxMicros, MedianMicros int64
	Measured, Missing       int
}

// loaderTimes summarises one time of every loader; tried says whether a
// loader without a time counts as missing. ok is false when no loader
// measured one and none is missing.
func loaderTimes(ls []DisruptionLoader, value func(*DisruptionLoader) *int64, tried func(*DisruptionLoader) bool) (LoaderTimes, bool) {
	var out LoaderTimes
	var xs []float64
	for i := range ls {
		l := &ls[i]
		switch v := value(l); {
		case v != nil:
			xs = append(xs, float64(*v))
		case tried(l):
			out.Missing++
		}
	}
	out.Measured = len(xs)
	if len(xs) > 0 {
		out.MaxMicros = int64(stats.Max(xs))
		out.MedianMicros = int64(math.Round(stats.Median(xs)))
	}
	return out, out.Measured+out.Missing > 0
}

// WriteUnavailable is the loaders' time to their first successful write
// after the instant; Missing counts those that wrote and never succeeded
// (unrecovered). ok is false when no loader wrote after the instant.
func (d *Disruption) WriteUnavailable() (LoaderTimes, bool) {
	return loaderTimes(d.Loaders, func(l *DisruptionLoader) *int64 { return l.WriteUnavailableMicros },
		func(l *DisruptionLoader) bool { return l.Writes > 0 })
}

// ReadUnavailable is the same for reads.
func (d *Disruption) ReadUnavailable() (LoaderTimes, bool) {
	return loaderTimes(d.Loaders, func(l *DisruptionLoader) *int64 { return l.ReadUnavailableMicros },
		func(l *DisruptionLoader) bool { return l.Reads > 0 })
}

// NewPrimary is the loaders' time to when their driver knew of a primary
// elected after the instant; Missing counts the drivers that did not.
func (d *Disruption) NewPrimary() (LoaderTimes, bool) {
	return loaderTimes(d.Loaders, func(l *DisruptionLoader) *int64 { return l.NewPrimaryMicros },
		func(*DisruptionLoader) bool { return true })
}

// Performance is throughput and p99 over a stretch of a series.
type Performance struct {
	// Millis is the stretch's length: the whole intervals it holds.
	Millis int64
	// Throughput is operations, failed ones included, per second.
	Throughput float64
	// P99Micros is the p99 of the successful operations' latencies at
	// series precision (0 without any).
	P99Micros int64
}

// SeriesPerformance is the throughput and p99 of the result's series over
// the points that lie wholly within [from, to) (point i covers
// [Start + i·interval, +Millis)). ok is false when no point does.
func (r *Result) SeriesPerformance(from, to time.Time) (Performance, bool) {
	s := &r.Series
	if s.IntervalMillis <= 0 {
		return Performance{}, false
	}
	var out Performance
	var count int64
	lat := NewSeriesHistogram()
	for i := range s.Points {
		p := &s.Points[i]
		ps := r.Start.Add(time.Duration(int64(i)*s.IntervalMillis) * time.Millisecond)
		if ps.Before(from) || ps.Add(time.Duration(p.Millis)*time.Millisecond).After(to) {
			continue
		}
		out.Millis += p.Millis
		count += p.Count()
		for _, o := range p.Ops {
			if o.Latency.Count() > 0 {
				lat.Merge(o.Latency)
			}
		}
	}
	if out.Millis == 0 {
		return Performance{}, false
	}
	out.Throughput = float64(count) * 1000 / float64(out.Millis)
	out.P99Micros = lat.Percentile(99)
	return out, true
}

// DisruptionPerformance is the phase's performance before disruption i of
// r.Disruptions, from the measured window's start (or the end of the
// previous disruption's series stretch, DisruptionAfterMillis after its
// instant) to its instant, and after it recovered: the last half of the
// time from its instant to the next disruption's instant, or to the
// window's end. Either is nil when no whole interval of the series fits.
func (r *Result) DisruptionPerformance(i int) (before, after *Performance) {
	d := &r.Disruptions[i]
	from := r.Start
	if i > 0 {
		if end := r.Disruptions[i-1].Instant.Add(DisruptionAfterMillis * time.Millisecond); end.After(from) {
			from = end
		}
	}
	if p, ok := r.SeriesPerformance(from, d.Instant); ok {
		before = &p
	}
	to := r.End
	if i+1 < len(r.Disruptions) && r.Disruptions[i+1].Instant.Before(to) {
		to = r.Disruptions[i+1].Instant
	}
	if to.After(d.Instant) {
		if p, ok := r.SeriesPerformance(d.Instant.Add(to.Sub(d.Instant)/2), to); ok {
			after = &p
		}
	}
	return before, after
}
