package telemetry

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestDiff(t *testing.T) {
	sec := time.Second
	type c = map[Counter]int64
	tests := []struct {
		name      string
		prev, cur Sample
		restarted bool
		want      map[Counter]Delta // counters not listed have no data
	}{{
		name: "counters grow",
		prev: sampleAt(t0, 10_000, c{CounterInsert: 100, CounterNetIn: 5000}, nil),
		cur:  sampleAt(t0.Add(sec), 11_000, c{CounterInsert: 350, CounterNetIn: 9000}, nil),
		want: map[Counter]Delta{CounterInsert: {250, 1000}, CounterNetIn: {4000, 1000}},
	}, {
		name: "an idle counter has a rate of zero, not no data",
		prev: sampleAt(t0, 10_000, c{CounterDelete: 7}, nil),
		cur:  sampleAt(t0.Add(2*sec), 12_000, c{CounterDelete: 7}, nil),
		want: map[Counter]Delta{CounterDelete: {0, 2000}},
	}, {
		// The process restarted 400 ms before cur: its counters count from
		// the restart, over the 400 ms since.
		name:      "restart: counts from the restart, over the uptime",
		prev:      sampleAt(t0, 10_000, c{CounterInsert: 1_000_000, CounterQuery: 50}, nil),
		cur:       sampleAt(t0.Add(sec), 400, c{CounterInsert: 40, CounterQuery: 0}, nil),
		restarted: true,
		want:      map[Counter]Delta{CounterInsert: {40, 400}, CounterQuery: {0, 400}},
	}, {
		name:      "restart: the span never exceeds the time between samples",
		prev:      sampleAt(t0, 10_000, c{CounterInsert: 1_000_000}, nil),
		cur:       sampleAt(t0.Add(sec), 5_000, c{CounterInsert: 300}, nil),
		restarted: true,
		want:      map[Counter]Delta{CounterInsert: {300, 1000}},
	}, {
		name:      "restart: a counter that appeared with the restart counts too",
		prev:      sampleAt(t0, 10_000, nil, nil),
		cur:       sampleAt(t0.Add(sec), 500, c{CounterInsert: 20}, nil),
		restarted: true,
		want:      map[Counter]Delta{CounterInsert: {20, 500}},
	}, {
		name:      "restart with an uptime of zero: no time, no data",
		prev:      sampleAt(t0, 10_000, c{CounterInsert: 1_000_000}, nil),
		cur:       sampleAt(t0.Add(sec), 0, c{CounterInsert: 0}, nil),
		restarted: true,
	}, {
		// After an upgrade past 8.1 the app evictions are another count
		// (attempts − failures): no delta from the old statistic.
		name: "app evictions read from other statistics: no data for them",
		prev: withEvictionSource(sampleAt(t0, 10_000, c{CounterInsert: 1, CounterEvictedByApp: 900}, nil), EvictionsPagesEvicted),
		cur:  withEvictionSource(sampleAt(t0.Add(sec), 11_000, c{CounterInsert: 2, CounterEvictedByApp: 950}, nil), EvictionsAttemptsMinusFailures),
		want: map[Counter]Delta{CounterInsert: {1, 1000}},
	}, {
		name: "app evictions read from the same statistics: counted",
		prev: withEvictionSource(sampleAt(t0, 10_000, c{CounterEvictedByApp: 900}, nil), EvictionsAttemptsMinusFailures),
		cur:  withEvictionSource(sampleAt(t0.Add(sec), 11_000, c{CounterEvictedByApp: 950}, nil), EvictionsAttemptsMinusFailures),
		want: map[Counter]Delta{CounterEvictedByApp: {50, 1000}},
	}, {
		name:      "app evictions from other statistics after a restart: counted from the restart",
		prev:      withEvictionSource(sampleAt(t0, 10_000, c{CounterEvictedByApp: 900}, nil), EvictionsPagesEvicted),
		cur:       withEvictionSource(sampleAt(t0.Add(sec), 500, c{CounterEvictedByApp: 4}, nil), EvictionsAttemptsMinusFailures),
		restarted: true,
		want:      map[Counter]Delta{CounterEvictedByApp: {4, 500}},
	}, {
		name: "a counter that goes down without a restart counts from zero",
		prev: sampleAt(t0, 10_000, c{CounterInsert: 1_000_000, CounterUpdate: 10}, nil),
		cur:  sampleAt(t0.Add(sec), 11_000, c{CounterInsert: 25, CounterUpdate: 30}, nil),
		want: map[Counter]Delta{CounterInsert: {25, 1000}, CounterUpdate: {20, 1000}},
	}, {
		name: "without uptime a decrease is a reset of that counter only",
		prev: Sample{Time: t0, Counters: [NumCounters]Opt[int64]{CounterInsert: iv(1000), CounterQuery: iv(10)}},
		cur:  Sample{Time: t0.Add(sec), Counters: [NumCounters]Opt[int64]{CounterInsert: iv(5), CounterQuery: iv(15)}},
		want: map[Counter]Delta{CounterInsert: {5, 1000}, CounterQuery: {5, 1000}},
	}, {
		name: "absent in either sample: no data",
		prev: sampleAt(t0, 10_000, c{CounterInsert: 1, CounterQuery: 1}, nil),
		cur:  sampleAt(t0.Add(sec), 11_000, c{CounterInsert: 2, CounterUpdate: 2}, nil),
		want: map[Counter]Delta{CounterInsert: {1, 1000}},
	}, {
		name: "a negative counter is not data",
		prev: sampleAt(t0, 10_000, c{CounterInsert: -5}, nil),
		cur:  sampleAt(t0.Add(sec), 11_000, c{CounterInsert: -1}, nil),
	}, {
		name: "same time: no data",
		prev: sampleAt(t0, 10_000, c{CounterInsert: 1}, nil),
		cur:  sampleAt(t0, 10_000, c{CounterInsert: 2}, nil),
	}, {
		name: "time going backwards: no data",
		prev: sampleAt(t0, 10_000, c{CounterInsert: 1}, nil),
		cur:  sampleAt(t0.Add(-sec), 11_000, c{CounterInsert: 2}, nil),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Diff(&tt.prev, &tt.cur)
			if got.Restarted != tt.restarted {
				t.Errorf("Restarted = %v, want %v", got.Restarted, tt.restarted)
			}
			for i := range NumCounters {
				if got.Deltas[i] != tt.want[i] {
					t.Errorf("%s: %+v, want %+v", i, got.Deltas[i], tt.want[i])
				}
			}
		})
	}
}

func TestDeltaRate(t *testing.T) {
	if r, ok := (Delta{Count: 250, Millis: 500}).Rate(); !ok || r != 500 {
		t.Errorf("Rate = %v, %v; want 500", r, ok)
	}
	if r, ok := (Delta{Count: 250}).Rate(); ok || r != 0 {
		t.Errorf("Rate without time = %v, %v; want no data", r, ok)
	}
}

// Whatever the counters and uptimes do (restarts, resets, jitter), no
// delta is negative and no rate exceeds what really happened: a counter
// incremented by at most maxStep per millisecond never shows more.
func TestDiffNeverInflates(t *testing.T) {
	const maxStep = 5 // per ms
	rng := rand.New(rand.NewPCG(1, 2))
	var trueCount, uptime int64 = 0, 1000
	prev := sampleAt(t0, uptime, map[Counter]int64{CounterInsert: 0}, nil)
	for i := range 10_000 {
		wall := int64(1 + rng.IntN(2000))
		cur := Sample{Time: prev.Time.Add(time.Duration(wall) * time.Millisecond)}
		if rng.IntN(20) == 0 { // a restart at some point in the interval
			uptime = rng.Int64N(wall + 1)
			trueCount = rng.Int64N(uptime*maxStep + 1)
		} else {
			uptime += wall
			trueCount += rng.Int64N(wall*maxStep + 1)
		}
		cur.UptimeMillis = iv(uptime)
		cur.Counters[CounterInsert] = iv(trueCount)
		d := Diff(&prev, &cur).Deltas[CounterInsert]
		if d.Count < 0 || d.Millis < 0 || d.Millis > wall {
			t.Fatalf("step %d: delta %+v over %d ms", i, d, wall)
		}
		if r, ok := d.Rate(); ok && r > maxStep*1000 {
			t.Fatalf("step %d: rate %v above the possible %v (delta %+v)", i, r, maxStep*1000, d)
		}
		prev = cur
	}
}
