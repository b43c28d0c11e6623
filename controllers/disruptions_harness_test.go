package controllers_test

import (
	"strings"
	"time"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/results"
)

// harnessDisruptions is what loader `loader` of a phase reports of the
// phase's disruptions, as the loaders do (internal/results): its own
// measurements, and, in loader 0's, the outcome of the StepDown it sent.
// Loader i recovered writes after 1 s + i·250 ms and reads after
// 400 ms + i·100 ms, its driver saw the new primary after 900 ms, and it
// saw 5·(i+1) NotWritablePrimary errors (loader 1 a network error too);
// the series, from 1 s before the instant, holds 10 READs per 100 ms, 2
// of them failing in the first 500 ms after the instant. In a run named
// unrecovered-*, loader 1 wrote after each instant and never succeeded
// again (no write unavailability of its own).
func harnessDisruptions(run *benchv1.BenchmarkRun, ph benchv1.PhaseSpec, start time.Time, loader int) []results.Disruption {
	var out []results.Disruption
	for i, d := range ph.Disruptions {
		instant := start.Add(d.At.Duration)
		w := int64(1_000_000 + loader*250_000)
		writeUnavailable := &w
		if loader == 1 && strings.HasPrefix(run.Name, "unrecovered-") {
			writeUnavailable = nil
		}
		r := int64(400_000 + loader*100_000)
		np := int64(900_000)
		rd := results.Disruption{Index: i, Action: string(d.Action), AtMillis: d.At.Milliseconds(), Instant: instant,
			Loaders: []results.DisruptionLoader{{Index: loader, WriteUnavailableMicros: writeUnavailable, Writes: 12, ReadUnavailableMicros: &r, Reads: 4,
				NewPrimaryMicros: &np}},
			Errors:  map[string]int64{"NotWritablePrimary": int64(5 * (loader + 1))},
			Retried: 2, RetriedOK: 1,
			SeriesStartMillis: -1000, Series: results.Series{IntervalMillis: results.DisruptionIntervalMillis}}
		if loader == 1 {
			rd.Errors["NetworkError"] = 1
		}
		if loader == 0 {
			returned := instant.Add(800 * time.Millisecond)
			rd.Outcome = &results.DisruptionOutcome{State: results.DisruptionDone, Sent: instant, Returned: &returned, Primary: "rs-rs0-0.rs-db:27017"}
		}
		for k := range 20 {
			p := results.Point{Millis: results.DisruptionIntervalMillis, Ops: []results.PointOp{{Name: "READ", Count: 10, Latency: results.NewSeriesHistogram()}}}
			if k >= 10 && k < 15 {
				p.Ops[0].Failed = 2
			}
			p.Ops[0].Latency.RecordN(int64(500+100*k), p.Ops[0].Count-p.Ops[0].Failed)
			rd.Series.Points = append(rd.Series.Points, p)
		}
		out = append(out, rd)
	}
	return out
}
