package telemetry

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	type c = map[Counter]int64
	type g = map[Gauge]float64
	series := func(samples ...Sample) *Series {
		s := buildSeries(time.Second, samples...)
		return &s
	}
	sec := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }
	busy := []Sample{
		sampleAt(sec(0), 10_000,
			c{CounterInsert: 0, CounterQuery: 0, CounterUpdate: 0, CounterDelete: 0, CounterGetmore: 0, CounterCommand: 0,
				CounterNetIn: 0, CounterNetOut: 0, CounterEvictedByApp: 5, CounterConnectionsCreated: 10},
			g{GaugeConnections: 10, GaugeCacheUsedPercent: 50, GaugeCacheDirtyPercent: 1, GaugeReadTicketsAvailable: 120,
				GaugeWriteTicketsAvailable: 128, GaugeQueueTotal: 0}),
		sampleAt(sec(1), 11_000,
			c{CounterInsert: 1000, CounterQuery: 10, CounterUpdate: 0, CounterDelete: 0, CounterGetmore: 2, CounterCommand: 40,
				CounterNetIn: 3_000_000, CounterNetOut: 1_000_000, CounterEvictedByApp: 9, CounterConnectionsCreated: 40},
			g{GaugeConnections: 40, GaugeCacheUsedPercent: 80, GaugeCacheDirtyPercent: 21, GaugeReadTicketsAvailable: 0,
				GaugeWriteTicketsAvailable: 100, GaugeQueueTotal: 7}),
		sampleAt(sec(2), 12_000,
			c{CounterInsert: 3000, CounterQuery: 30, CounterUpdate: 0, CounterDelete: 0, CounterGetmore: 4, CounterCommand: 80,
				CounterNetIn: 5_000_000, CounterNetOut: 3_000_000, CounterEvictedByApp: 15, CounterConnectionsCreated: 40},
			g{GaugeConnections: 34, GaugeCacheUsedPercent: 70, GaugeCacheDirtyPercent: 5, GaugeReadTicketsAvailable: 64,
				GaugeWriteTicketsAvailable: 96, GaugeQueueTotal: 2}),
	}
	// The synthetic samples hold only what the summary reads.
	busyAbsent := []string{
		"wiredTiger.cache.bytes currently in the cache", "wiredTiger.cache.tracked dirty bytes in the cache",
		"wiredTiger.cache.maximum bytes configured", "queues.execution.read.out", "queues.execution.write.out",
		"globalLock.currentQueue.readers", "globalLock.currentQueue.writers", "mem.resident", "connections.available",
		"repl.isWritablePrimary",
	}
	wire := Extract(readDoc(t, "serverstatus-wireserver.json"), t0)
	for _, tt := range []struct {
		name string
		s    *Series
		want Summary
	}{{
		name: "busy",
		s:    series(busy...),
		want: Summary{
			Role: "shard", Pod: "mb-shard0-0", Version: "8.0.4", Samples: 3,
			PeakConnections: ptr[int64](40), MeanConnections: ptr(28.0),
			OpsPerSecond: OpRates{
				Insert: ptr(1500.0), Query: ptr(15.0), Update: ptr(0.0), Delete: ptr(0.0), Getmore: ptr(2.0), Command: ptr(40.0),
			},
			MaxCacheUsedPercent: ptr(80.0), MaxCacheDirtyPercent: ptr(21.0),
			MeanNetInMBps: ptr(2.5), MeanNetOutMBps: ptr(1.5),
			EvictionsByAppThreads:   ptr[int64](10),
			MinReadTicketsAvailable: ptr[int64](0), MinWriteTicketsAvailable: ptr[int64](96),
			MaxQueue: ptr[int64](7),
			Absent:   busyAbsent,
		},
	}, {
		// mongo-java-server: connections only. Everything else is nil
		// (not 0) and named absent.
		name: "a server that reports little",
		s:    series(wire, func() Sample { s := wire; s.Time = sec(1); s.UptimeMillis = iv(1267); return s }()),
		want: Summary{
			Role: "shard", Pod: "mb-shard0-0", Version: "6.0.0", Samples: 2,
			PeakConnections: ptr[int64](1), MeanConnections: ptr(1.0),
			Absent: wire.Absent(),
		},
	}, {
		name: "no samples",
		s:    series(),
		want: Summary{Role: "shard", Pod: "mb-shard0-0"},
	}, {
		name: "one sample: gauges but no rates",
		s:    series(busy[1]),
		want: Summary{
			Role: "shard", Pod: "mb-shard0-0", Version: "8.0.4", Samples: 1,
			PeakConnections: ptr[int64](40), MeanConnections: ptr(40.0),
			MaxCacheUsedPercent: ptr(80.0), MaxCacheDirtyPercent: ptr(21.0),
			MinReadTicketsAvailable: ptr[int64](0), MinWriteTicketsAvailable: ptr[int64](100),
			MaxQueue: ptr[int64](7),
			Absent:   busyAbsent,
		},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			equalJSON(t, "summary", Summarize("shard", "mb-shard0-0", tt.s), tt.want)
		})
	}
}

// A summary of a downsampled series equals the one of the raw samples:
// rates come from totals, extremes are kept, means are weighted.
func TestSummarizeDownsampled(t *testing.T) {
	s := buildSeries(time.Second, steadySamples(1000, time.Second)...)
	if s.IntervalMillis == 1000 {
		t.Fatal("the series was not downsampled")
	}
	got := Summarize("standalone", "p", &s)
	if *got.PeakConnections != 19 || math.Abs(*got.MeanConnections-14.5) > 1e-9 || math.Abs(*got.OpsPerSecond.Insert-100) > 0.1 ||
		math.Abs(*got.MeanNetInMBps-1) > 1e-3 {
		b, _ := json.Marshal(got)
		t.Errorf("summary %s", b)
	}
}

// The summary says which statistics the app evictions were read from, and
// only when it has them.
func TestSummarizeEvictionSource(t *testing.T) {
	type c = map[Counter]int64
	s := buildSeries(time.Second,
		withEvictionSource(sampleAt(t0, 1000, c{CounterEvictedByApp: 100}, nil), EvictionsAttemptsMinusFailures),
		withEvictionSource(sampleAt(t0.Add(time.Second), 2000, c{CounterEvictedByApp: 130}, nil), EvictionsAttemptsMinusFailures))
	if s.EvictedByAppFrom != EvictionsAttemptsMinusFailures {
		t.Errorf("series: evictions from %q", s.EvictedByAppFrom)
	}
	got := Summarize("shard", "p", &s)
	if got.EvictionsByAppThreads == nil || *got.EvictionsByAppThreads != 30 || got.EvictionsByAppThreadsFrom != EvictionsAttemptsMinusFailures {
		t.Errorf("evictions %v from %q, want 30 from %q", got.EvictionsByAppThreads, got.EvictionsByAppThreadsFrom, EvictionsAttemptsMinusFailures)
	}
	// One sample: no delta, so neither the count nor its source.
	one := buildSeries(time.Second, withEvictionSource(sampleAt(t0, 1000, c{CounterEvictedByApp: 100}, nil), EvictionsPagesEvicted))
	if got := Summarize("shard", "p", &one); got.EvictionsByAppThreads != nil || got.EvictionsByAppThreadsFrom != "" {
		t.Errorf("one sample: evictions %v from %q", got.EvictionsByAppThreads, got.EvictionsByAppThreadsFrom)
	}
}
