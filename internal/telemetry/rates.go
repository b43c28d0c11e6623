package telemetry

// Delta is a counter's increase over some time. Millis 0 means no data: the
// counter was absent from one of the samples, or no time passed.
type Delta struct {
	// Count is the increase of the counter.
	Count int64 `json:"count"`
	// Millis is the time over which Count accrued.
	Millis int64 `json:"millis"`
}

// Rate is Count per second; false when there is no data.
func (d Delta) Rate() (float64, bool) {
	if d.Millis <= 0 {
		return 0, false
	}
	return float64(d.Count) * 1000 / float64(d.Millis), true
}

func (d *Delta) add(o Delta) {
	d.Count += o.Count
	d.Millis += o.Millis
}

// Interval is what the counters of one process did between two consecutive
// samples of it.
type Interval struct {
	// Restarted reports that the process restarted between the samples:
	// uptimeMillis went down.
	Restarted bool
	// Deltas holds each counter's increase and the time it accrued over.
	Deltas [NumCounters]Delta
}

// Diff computes the counter deltas from prev to cur, two consecutive samples
// of one process, over the time between them (cur.Time − prev.Time). It never
// yields a negative or inflated rate:
//
//   - A restart (uptimeMillis went down) resets every counter to zero. The
//     interval then counts from the restart: each delta is the counter's
//     value in cur, accrued over cur's uptime (at most the time between the
//     samples). What the process did between prev and its end is lost, and
//     the time it was down is not counted.
//   - A counter that went down without a restart (a reset or a wrap the
//     uptime does not show) counts from zero: its delta is its value in cur,
//     over the whole interval.
//   - A counter absent from either sample, or time that did not move
//     forward, gives no data (Millis 0); so does CounterEvictedByApp read
//     from other statistics in the two samples without a restart (an
//     upgrade past 8.1 is one), which are not the same count.
func Diff(prev, cur *Sample) Interval {
	var iv Interval
	wall := cur.Time.Sub(prev.Time).Milliseconds()
	if wall <= 0 {
		return iv
	}
	span := wall
	if p, ok := prev.UptimeMillis.Get(); ok {
		if c, ok := cur.UptimeMillis.Get(); ok && c < p {
			iv.Restarted = true
			span = min(c, wall)
		}
	}
	if span <= 0 {
		return iv
	}
	for i := range iv.Deltas {
		c, ok := cur.Counters[i].Get()
		if !ok || c < 0 {
			continue
		}
		switch p, ok := prev.Counters[i].Get(); {
		case iv.Restarted:
			iv.Deltas[i] = Delta{Count: c, Millis: span}
		case Counter(i) == CounterEvictedByApp && prev.EvictedByAppFrom != cur.EvictedByAppFrom:
			// Another count: nothing to compare with.
		case !ok:
			// The counter appeared: nothing to compare with.
		case c < p:
			iv.Deltas[i] = Delta{Count: c, Millis: wall}
		default:
			iv.Deltas[i] = Delta{Count: c - p, Millis: wall}
		}
	}
	return iv
}
