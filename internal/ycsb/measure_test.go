package ycsb

import (
	"math/rand/v2"
	"testing"

	"github.com/mongobench/mongobench/internal/results"
)

// TestRecorderBufferRecordsEveryMeasurement checks that the buffered
// recorder ends with exactly what recording each measurement straight into
// its histogram and status count gives: across buffer fills, an intended
// pair that finds one slot left at the buffer's end, drains between and in
// the middle of fills, latencies outside the histograms' range (some too
// large for the packed field) and statuses outside YCSB's set (up to 255,
// the whole of the packed field).
func TestRecorderBufferRecordsEveryMeasurement(t *testing.T) {
	for _, tc := range []struct {
		name     string
		count    int
		intended bool
		// singlesFirst plain measurements come before the loop's;
		// singleEvery, when set, adds one after every that many pairs.
		singlesFirst, singleEvery int
		drains                    []int // drain before measurement i of the loop
		// lastSlot: some pair must find exactly one slot left.
		lastSlot bool
	}{
		{name: "empty", count: 0},
		{name: "one", count: 1},
		{name: "one short of full", count: recorderBuffer - 1},
		{name: "full", count: recorderBuffer},
		{name: "one past full", count: recorderBuffer + 1},
		{name: "many fills", count: 5*recorderBuffer + 17},
		{name: "drains between", count: 3 * recorderBuffer, drains: []int{1, recorderBuffer - 1, recorderBuffer + 5, 2 * recorderBuffer}},
		{name: "intended", count: 3*recorderBuffer + 3, intended: true, singleEvery: 7, lastSlot: true},
		{name: "intended at the last slot", count: recorderBuffer/2 + 1, intended: true, singlesFirst: 1, lastSlot: true},
		{name: "intended with drains", count: 2*recorderBuffer + 9, intended: true, singleEvery: 5, drains: []int{0, 3, recorderBuffer / 2}, lastSlot: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.count), 3))
			rec := NewRecorder()
			var got, want measurementSet
			c := &collector{}
			measure := func(op Op) int64 {
				st := Status(rng.IntN(int(numStatuses) + 2)) // and two outside the set
				us := rng.Int64N(5000) - 10
				switch rng.IntN(50) {
				case 0:
					us = results.HighestMicros + rng.Int64N(1e6)
				case 1:
					us = -rng.Int64N(1e6)
				case 2:
					us = 1<<45 + rng.Int64N(1e6) // past the packed field's 40 bits
				case 3:
					st = 255
				}
				kind, counted := classify(st)
				want.hist(op, kind).Record(us)
				want.status[op][counted]++
				rec.Measure(op, st, us)
				return us
			}
			for range tc.singlesFirst {
				measure(OpVerify)
			}
			drains := tc.drains
			lastSlot := false
			for i := range tc.count {
				for len(drains) > 0 && drains[0] == i {
					rec.drain(c, &got)
					drains = drains[1:]
				}
				op := Op(rng.IntN(int(numOps)))
				if !tc.intended {
					measure(op)
					continue
				}
				st := Status(rng.IntN(int(numStatuses) + 2))
				us := rng.Int64N(5000) - 10
				ius := us + rng.Int64N(100)
				kind, counted := classify(st)
				want.hist(op, kind).Record(us)
				want.intended(op, kind).Record(ius)
				want.status[op][counted]++
				lastSlot = lastSlot || rec.n == recorderBuffer-1
				rec.MeasureIntended(op, st, us, ius)
				if tc.singleEvery > 0 && i%tc.singleEvery == 0 {
					measure(OpVerify)
				}
			}
			if tc.lastSlot && !lastSlot {
				t.Fatal("no intended pair found one slot left: the case does not test what it says")
			}
			rec.drain(c, &got)
			if rec.n != 0 {
				t.Fatalf("%d measurements still pending after a drain", rec.n)
			}
			for op := range numOps {
				for kind := range numKinds {
					if !got.h[op][kind].Equal(want.h[op][kind]) {
						t.Errorf("%v kind %d: histogram of %d samples, want %d", op, kind, got.h[op][kind].Count(), want.h[op][kind].Count())
					}
					if !got.ih[op][kind].Equal(want.ih[op][kind]) {
						t.Errorf("%v kind %d: intended histogram of %d samples, want %d", op, kind, got.ih[op][kind].Count(), want.ih[op][kind].Count())
					}
				}
				if got.status[op] != want.status[op] {
					t.Errorf("%v: status counts %v, want %v", op, got.status[op], want.status[op])
				}
			}
		})
	}
}
