package telemetry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/mongobench/mongobench/internal/results"
)

// GaugeStat summarises a gauge's values in an interval. N 0 means no data.
type GaugeStat struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

func (g *GaugeStat) merge(o GaugeStat) {
	switch {
	case o.N == 0:
		return
	case g.N == 0:
		*g = o
		return
	}
	n := g.N + o.N
	g.Mean = (g.Mean*float64(g.N) + o.Mean*float64(o.N)) / float64(n)
	g.Min = math.Min(g.Min, o.Min)
	g.Max = math.Max(g.Max, o.Max)
	g.N = n
}

// CounterDeltas holds one Delta per Counter. In JSON it is an object keyed
// by counter name; counters without data are left out.
type CounterDeltas [NumCounters]Delta

// GaugeStats holds one GaugeStat per Gauge. In JSON it is an object keyed
// by gauge name; gauges without data are left out.
type GaugeStats [NumGauges]GaugeStat

// Point is one interval of a process's series: the samples taken in it, and
// the counter deltas of the intervals between samples that end in it.
type Point struct {
	// Samples is the number of serverStatus samples taken in the interval
	// (0 when the process could not be sampled then).
	Samples  int           `json:"samples"`
	Counters CounterDeltas `json:"counters"`
	Gauges   GaugeStats    `json:"gauges"`
}

// Rate is counter c per second over the point; false when there is no data.
func (p *Point) Rate(c Counter) (float64, bool) { return p.Counters[c].Rate() }

func (p *Point) merge(o *Point) {
	p.Samples += o.Samples
	for i := range p.Counters {
		p.Counters[i].add(o.Counters[i])
	}
	for i := range p.Gauges {
		p.Gauges[i].merge(o.Gauges[i])
	}
}

// MaxPrimaryChangeTimes bounds Series.PrimaryChangeTimes: ten StepDowns
// (api MaxDisruptions) are seen as at most two changes each by a member
// (it steps down, it sees the new primary), with room for as many more.
const MaxPrimaryChangeTimes = 64

// MaxRestartTimes bounds Series.RestartTimes: a phase restarts a member at
// most once per disruption (api MaxDisruptions), with room for as many
// more.
const MaxRestartTimes = 20

// Series is the telemetry of one process over a phase, in at most
// results.MaxSeriesPoints points. Point i covers the samples taken in
// [Start + i·IntervalMillis, +IntervalMillis) and the counter deltas of the
// intervals ending at those samples; a point's counter Millis may therefore
// exceed IntervalMillis after a gap. Counter totals are exact whatever the
// downsampling; rates are time-weighted (total count over total time) and
// gauge means are weighted by the number of samples.
type Series struct {
	Start          time.Time `json:"start"`
	IntervalMillis int64     `json:"intervalMillis"`
	Points         []Point   `json:"points"`
	// Version is the server version of the last sample that reported one.
	Version string `json:"version,omitempty"`
	// EvictedByAppFrom is what the evictedByApp counter was read from in
	// the last sample that had it (see EvictionSource).
	EvictedByAppFrom EvictionSource `json:"evictedByAppFrom,omitempty"`
	// Restarts counts the restarts seen (uptime going down).
	Restarts int `json:"restarts,omitempty"`
	// RestartTimes are the times of the samples that saw them, the first
	// MaxRestartTimes of them: what tells a restart a planned pod
	// deletion caused (KillPrimary, RestartMember) from one it did not.
	RestartTimes []time.Time `json:"restartTimes,omitempty"`
	// PrimaryChanges counts the samples of a replica set member in which
	// its view of the primary changed from the one before (see
	// ReplView.changedFrom): an election, a step-down, another primary.
	// What changes across a restart is the restart's, not counted here.
	PrimaryChanges int `json:"primaryChanges,omitempty"`
	// PrimaryChangeTimes are the times of the samples PrimaryChanges
	// counted, the first MaxPrimaryChangeTimes of them: what tells an
	// election a planned disruption caused (a StepDown, at a known
	// instant) from one it did not.
	PrimaryChangeTimes []time.Time `json:"primaryChangeTimes,omitempty"`
	// MaxReplLagMillis is the most a SECONDARY was behind this process
	// while it was the primary of a set of several members (see
	// ReplLagMillis); nil when it never was.
	MaxReplLagMillis *int64 `json:"maxReplLagMillis,omitempty"`
	// Absent lists the serverStatus fields that no sample held.
	Absent []string `json:"absent,omitempty"`
}

// Samples is the number of samples in the series.
func (s *Series) Samples() int {
	n := 0
	for i := range s.Points {
		n += s.Points[i].Samples
	}
	return n
}

// Total is counter c's increase over the whole series.
func (s *Series) Total(c Counter) Delta {
	var d Delta
	for i := range s.Points {
		d.add(s.Points[i].Counters[c])
	}
	return d
}

// Gauge is gauge g over the whole series.
func (s *Series) Gauge(g Gauge) GaugeStat {
	var st GaugeStat
	for i := range s.Points {
		st.merge(s.Points[i].Gauges[g])
	}
	return st
}

// coalesce merges pairs of points, doubling the interval.
func (s *Series) coalesce() {
	out := s.Points[:0]
	for i := 0; i < len(s.Points); i += 2 {
		p := s.Points[i]
		if i+1 < len(s.Points) {
			p.merge(&s.Points[i+1])
		}
		out = append(out, p)
	}
	clear(s.Points[len(out):])
	s.Points = out
	s.IntervalMillis *= 2
}

// Validate checks the series' shape: what a decoder must refuse.
func (s *Series) Validate() error {
	if n := len(s.PrimaryChangeTimes); n > MaxPrimaryChangeTimes || n > s.PrimaryChanges {
		return fmt.Errorf("telemetry series has %d primary change times for %d changes (at most %d kept)", n, s.PrimaryChanges, MaxPrimaryChangeTimes)
	}
	for i := 1; i < len(s.PrimaryChangeTimes); i++ {
		if s.PrimaryChangeTimes[i].Before(s.PrimaryChangeTimes[i-1]) {
			return fmt.Errorf("telemetry series' primary change times are out of order at %d", i)
		}
	}
	if n := len(s.RestartTimes); n > MaxRestartTimes || n > s.Restarts {
		return fmt.Errorf("telemetry series has %d restart times for %d restarts (at most %d kept)", n, s.Restarts, MaxRestartTimes)
	}
	for i := 1; i < len(s.RestartTimes); i++ {
		if s.RestartTimes[i].Before(s.RestartTimes[i-1]) {
			return fmt.Errorf("telemetry series' restart times are out of order at %d", i)
		}
	}
	if len(s.Points) > results.MaxSeriesPoints {
		return fmt.Errorf("telemetry series has %d points, at most %d allowed", len(s.Points), results.MaxSeriesPoints)
	}
	if len(s.Points) > 0 && s.IntervalMillis <= 0 {
		return fmt.Errorf("telemetry series interval %d ms must be positive", s.IntervalMillis)
	}
	for i := range s.Points {
		p := &s.Points[i]
		if p.Samples < 0 {
			return fmt.Errorf("telemetry point %d: %d samples", i, p.Samples)
		}
		for c, d := range p.Counters {
			if d.Count < 0 || d.Millis < 0 {
				return fmt.Errorf("telemetry point %d, %s: negative delta %d over %d ms", i, Counter(c), d.Count, d.Millis)
			}
		}
		for g, st := range p.Gauges {
			if st.N < 0 || st.N > p.Samples || (st.N > 0 && (st.Min > st.Mean || st.Mean > st.Max)) {
				return fmt.Errorf("telemetry point %d, %s: %d values (of %d samples), min %g, mean %g, max %g",
					i, Gauge(g), st.N, p.Samples, st.Min, st.Mean, st.Max)
			}
		}
	}
	return nil
}

// SeriesBuilder turns the consecutive samples of one process into a Series,
// computing counter deltas between samples (Diff) and doubling the interval
// whenever a sample falls beyond results.MaxSeriesPoints points, as the
// client series does (results.SeriesBuilder). Memory is bounded by
// MaxSeriesPoints points whatever the run's length. Samples must come in
// time order.
type SeriesBuilder struct {
	series Series
	// prev is the last sample, for deltas.
	prev     Sample
	havePrev bool
	// seen ORs the presence of every field over the samples so far.
	seen Sample
	// repl is the last view of the primary known since the last restart.
	repl ReplView
}

// NewSeriesBuilder starts a series at start whose smallest interval is
// interval (the sampling interval; 1 s when not positive).
func NewSeriesBuilder(start time.Time, interval time.Duration) *SeriesBuilder {
	if interval <= 0 {
		interval = time.Second
	}
	return &SeriesBuilder{series: Series{Start: start, IntervalMillis: max(interval.Milliseconds(), 1)}}
}

// Add records a sample.
func (b *SeriesBuilder) Add(s *Sample) {
	idx := b.index(s.Time)
	for idx >= results.MaxSeriesPoints {
		b.series.coalesce()
		idx = b.index(s.Time)
	}
	for len(b.series.Points) <= idx {
		b.series.Points = append(b.series.Points, Point{})
	}
	p := &b.series.Points[idx]
	p.Samples++
	for g, v := range s.Gauges {
		if v.Valid {
			p.Gauges[g].merge(GaugeStat{N: 1, Mean: v.V, Min: v.V, Max: v.V})
		}
	}
	if b.havePrev {
		iv := Diff(&b.prev, s)
		for c, d := range iv.Deltas {
			p.Counters[c].add(d)
		}
		if iv.Restarted {
			b.series.Restarts++
			if len(b.series.RestartTimes) < MaxRestartTimes {
				b.series.RestartTimes = append(b.series.RestartTimes, s.Time)
			}
			b.repl = ReplView{}
		}
	}
	if s.Repl.changedFrom(b.repl) {
		b.series.PrimaryChanges++
		if len(b.series.PrimaryChangeTimes) < MaxPrimaryChangeTimes {
			b.series.PrimaryChangeTimes = append(b.series.PrimaryChangeTimes, s.Time)
		}
	}
	if s.ReplLagMillis.Valid && (b.series.MaxReplLagMillis == nil || s.ReplLagMillis.V > *b.series.MaxReplLagMillis) {
		v := s.ReplLagMillis.V
		b.series.MaxReplLagMillis = &v
	}
	s.Repl.update(&b.repl)
	b.prev, b.havePrev = *s, true
	b.see(s)
}

// index is the point a time falls in (times before the start fall in the
// first).
func (b *SeriesBuilder) index(t time.Time) int {
	d := t.Sub(b.series.Start).Milliseconds()
	if d < 0 {
		return 0
	}
	return int(min(d/b.series.IntervalMillis, math.MaxInt32))
}

func (b *SeriesBuilder) see(s *Sample) {
	if s.Version != "" {
		b.seen.Version = s.Version
		b.series.Version = s.Version
	}
	if s.TicketsPath != "" {
		b.seen.TicketsPath = s.TicketsPath
	}
	if s.EvictedByAppFrom != "" {
		b.series.EvictedByAppFrom = s.EvictedByAppFrom
	}
	b.seen.UptimeMillis.Valid = b.seen.UptimeMillis.Valid || s.UptimeMillis.Valid
	b.seen.Repl.Member = b.seen.Repl.Member || s.Repl.Member
	for i := range s.Counters {
		b.seen.Counters[i].Valid = b.seen.Counters[i].Valid || s.Counters[i].Valid
	}
	for i := range s.Gauges {
		b.seen.Gauges[i].Valid = b.seen.Gauges[i].Valid || s.Gauges[i].Valid
	}
}

// Series returns a copy of the series so far; the builder remains usable.
func (b *SeriesBuilder) Series() Series {
	s := b.series
	s.Points = append([]Point(nil), b.series.Points...)
	if b.havePrev {
		s.Absent = b.seen.Absent()
	}
	return s
}

// MarshalJSON writes the deltas with data as {"insert": {...}, ...}.
func (c CounterDeltas) MarshalJSON() ([]byte, error) {
	return marshalNamed(c[:], Counter.String, func(d Delta) bool { return d.Millis > 0 })
}

// UnmarshalJSON reads what MarshalJSON writes.
func (c *CounterDeltas) UnmarshalJSON(b []byte) error {
	return unmarshalNamed(b, c[:], Counter.String)
}

// MarshalJSON writes the gauges with data as {"connections": {...}, ...}.
func (g GaugeStats) MarshalJSON() ([]byte, error) {
	return marshalNamed(g[:], Gauge.String, func(st GaugeStat) bool { return st.N > 0 })
}

// UnmarshalJSON reads what MarshalJSON writes.
func (g *GaugeStats) UnmarshalJSON(b []byte) error {
	return unmarshalNamed(b, g[:], Gauge.String)
}

// marshalNamed writes vals as a JSON object keyed by name(index), in index
// order, leaving out the values without data.
func marshalNamed[K ~int, T any](vals []T, name func(K) string, has func(T) bool) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, v := range vals {
		if !has(v) {
			continue
		}
		if buf.Len() > 1 {
			buf.WriteByte(',')
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", name(K(i)), err)
		}
		fmt.Fprintf(&buf, "%q:", name(K(i)))
		buf.Write(b)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// unmarshalNamed reads a JSON object written by marshalNamed; an unknown
// name is an error.
func unmarshalNamed[K ~int, T any](b []byte, vals []T, name func(K) string) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("parse telemetry values: %w", err)
	}
	clear(vals)
	for i := range vals {
		raw, ok := m[name(K(i))]
		if !ok {
			continue
		}
		if err := json.Unmarshal(raw, &vals[i]); err != nil {
			return fmt.Errorf("parse %s: %w", name(K(i)), err)
		}
		delete(m, name(K(i)))
	}
	for k := range m {
		return fmt.Errorf("unknown telemetry field %q", k)
	}
	return nil
}
