package results

// coarsen doubles the interval of the disruption's series, keeping its
// boundaries on multiples of the new interval from the instant (so that
// the series of several loaders still align, and a merge can coarsen them
// alike): the start moves down to such a multiple, and each point merges
// the (one or two) points of the finer series it covers. A first point
// that covers only its later half keeps the length it covers (Millis), as
// the last point does. false when there is nothing to coarsen.
func (d *Disruption) coarsen() bool {
	s := &d.Series
	if len(s.Points) <= 1 || s.IntervalMillis <= 0 {
		return false
	}
	wide := 2 * s.IntervalMillis
	start := floorMultiple(d.SeriesStartMillis, wide)
	out := make([]Point, 0, len(s.Points)/2+2)
	for i := range s.Points {
		j := int((d.SeriesStartMillis + int64(i)*s.IntervalMillis - start) / wide)
		for len(out) <= j {
			out = append(out, Point{})
		}
		out[j].add(&s.Points[i], true)
	}
	d.SeriesStartMillis = start
	s.Points = out
	s.IntervalMillis = wide
	return true
}

// floorMultiple is the greatest multiple of m at or below v (m > 0).
func floorMultiple(v, m int64) int64 {
	q := v / m
	if v%m != 0 && v < 0 {
		q--
	}
	return q * m
}

// coarsenDisruptions coarsens every disruption series of r that has more
// points than its main series, or, when none has, none; it returns whether
// it did. Encode calls it on a copy.
func coarsenDisruptions(r *Result) bool {
	longest := 0
	for i := range r.Disruptions {
		longest = max(longest, len(r.Disruptions[i].Series.Points))
	}
	if longest <= 1 || (longest <= len(r.Series.Points) && len(r.Series.Points) > 1) {
		return false
	}
	ds := make([]Disruption, len(r.Disruptions))
	copy(ds, r.Disruptions)
	for i := range ds {
		ds[i].Series.Points = append([]Point(nil), ds[i].Series.Points...)
		ds[i].coarsen()
	}
	r.Disruptions = ds
	return true
}
