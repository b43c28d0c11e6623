package ycsb

import (
	"math/rand/v2"
	"testing"

	"github.com/mongobench/mongobench/internal/results"
)

// TestRecorderBufferRecordsEveryMeasurement checks that the buffered
// recorder ends with exactly what recording each measurement straight into
// its histogram and status count gives: across buffer fills (an intended
// pair straddling the end of the buffer included), drains between and in
// the middle of fills, latencies outside the histograms' range and
// statuses outside YCSB's set.
func TestRecorderBufferRecordsEveryMeasurement(t *testing.T) {
	for _, tc := range []struct {
		name     string
		count    int
		intended bool
		drains   []int // drain after this many measurements
	}{
		{name: "empty", count: 0},
		{name: "one", count: 1},
		{name: "one short of full", count: recorderBuffer - 1},
		{name: "full", count: recorderBuffer},
		{name: "one past full", count: recorderBuffer + 1},
		{name: "many fills", count: 5*recorderBuffer + 17},
		{name: "drains between", count: 3 * recorderBuffer, drains: []int{1, recorderBuffer - 1, recorderBuffer + 5, 2 * recorderBuffer}},
		{name: "intended", count: 3*recorderBuffer + 3, intended: true},
		{name: "intended straddling", count: recorderBuffer/2 + 1, intended: true, drains: []int{0, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.count), 3))
			rec := NewRecorder()
			var got, want measurementSet
			c := &collector{}
			drains := tc.drains
			for i := range tc.count {
				for len(drains) > 0 && drains[0] == i {
					rec.drain(c, &got)
					drains = drains[1:]
				}
				op := Op(rng.IntN(int(numOps)))
				st := Status(rng.IntN(int(numStatuses) + 2)) // and two outside the set
				us := rng.Int64N(5000) - 10
				switch rng.IntN(50) {
				case 0:
					us = results.HighestMicros + rng.Int64N(1e6)
				case 1:
					us = -rng.Int64N(1e6)
				}
				kind, counted := classify(st)
				want.hist(op, kind).Record(us)
				want.status[op][counted]++
				if !tc.intended {
					rec.Measure(op, st, us)
					continue
				}
				// A pair takes two slots; the single measurements mixed in
				// below change the parity, so some pair finds one slot
				// left at the buffer's end and must flush first.
				ius := us + rng.Int64N(100)
				want.intended(op, kind).Record(ius)
				rec.MeasureIntended(op, st, us, ius)
				if i%7 == 0 {
					st2 := Status(rng.IntN(int(numStatuses)))
					kind2, counted2 := classify(st2)
					want.hist(OpVerify, kind2).Record(us)
					want.status[OpVerify][counted2]++
					rec.Measure(OpVerify, st2, us)
				}
			}
			rec.drain(c, &got)
			if rec.n != 0 {
				t.Fatalf("%d measurements still pending after a drain", rec.n)
			}
			for op := range numOps {
				for kind := range numKinds {
					if !sameHistogram(got.h[op][kind], want.h[op][kind]) {
						t.Errorf("%v kind %d: histogram of %d samples, want %d", op, kind, countOf(got.h[op][kind]), countOf(want.h[op][kind]))
					}
					if !sameHistogram(got.ih[op][kind], want.ih[op][kind]) {
						t.Errorf("%v kind %d: intended histogram of %d samples, want %d", op, kind, countOf(got.ih[op][kind]), countOf(want.ih[op][kind]))
					}
				}
				if got.status[op] != want.status[op] {
					t.Errorf("%v: status counts %v, want %v", op, got.status[op], want.status[op])
				}
			}
		})
	}
}

// sameHistogram compares two histograms of a measurementSet, where nil and
// empty are the same.
func sameHistogram(a, b *results.Histogram) bool {
	if countOf(a) == 0 || countOf(b) == 0 {
		return countOf(a) == countOf(b)
	}
	return a.Equal(b)
}

func countOf(h *results.Histogram) int64 {
	if h == nil {
		return 0
	}
	return h.Count()
}
