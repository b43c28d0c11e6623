package results

import (
	"fmt"
	"time"
)

// A phase's disruptions (BenchmarkRun spec.phases[].disruptions): what each
// loader measured around each one. Every loader measures; loader 0, the
// actor of MongoDB commands, also reports what it did (Outcome).
const (
	// DisruptionIntervalMillis is the resolution of a disruption's series
	// (before Encode coarsens it to fit MaxEncodedBytes).
	DisruptionIntervalMillis = 100
	// DisruptionBeforeMillis and DisruptionAfterMillis are the stretch a
	// disruption's series covers: from 10 s before its instant to 30 s
	// after (clipped to the measured window).
	DisruptionBeforeMillis = 10_000
	DisruptionAfterMillis  = 30_000
	// MaxDisruptionPoints bounds a disruption's series.
	MaxDisruptionPoints = (DisruptionBeforeMillis + DisruptionAfterMillis) / DisruptionIntervalMillis
)

// Outcomes of a disruption's action (DisruptionOutcome.State).
const (
	// DisruptionDone: the action was sent and returned without error.
	DisruptionDone = "Done"
	// DisruptionFailed: the action returned an error (Error says which).
	DisruptionFailed = "Failed"
	// DisruptionUnknown: the ledger says the action was sent, by a loader
	// that did not live to report how it ended (it was replaced). It is
	// not sent again.
	DisruptionUnknown = "Unknown"
	// DisruptionNotReached: the phase's measured window ended before the
	// disruption's instant; nothing was sent.
	DisruptionNotReached = "NotReached"
)

// Disruption is one of the phase's disruptions, as one loader measured it
// (in a merged result: every loader's measurements together).
type Disruption struct {
	// Index is the disruption's position in the phase's disruptions.
	Index int `json:"index"`
	// Action is the API's action ("StepDown").
	Action string `json:"action"`
	// AtMillis is when it happens, from the start of the measured window.
	AtMillis int64 `json:"atMillis"`
	// Instant is the measured window's start plus AtMillis, by this
	// loader's clock (merged: loader 0's, the actor's).
	Instant time.Time `json:"instant"`
	// Outcome is what the actor did: set in the actor's result (loader 0
	// for MongoDB commands) and in the merged one, nil in the others.
	Outcome *DisruptionOutcome `json:"outcome,omitempty"`
	// Loaders holds each loader's own measurements, ordered by index: one
	// entry in a loader's result, every loader's in a merged one.
	Loaders []DisruptionLoader `json:"loaders"`
	// Errors counts the operations that failed from the instant to the end
	// of the series (DisruptionAfterMillis, or the window's end), by label:
	// the server's code name ("NotWritablePrimary",
	// "InterruptedDueToReplStateChange", …), or NetworkError, Timeout,
	// ServerSelectionTimeout, Other. Merged: summed over the loaders.
	Errors map[string]int64 `json:"errors,omitempty"`
	// Retried counts the operations, ended in the same stretch, that the
	// driver sent more than once (retryable writes or reads), and
	// RetriedOK those of them that succeeded in the end. Merged: summed.
	Retried   int64 `json:"retried,omitempty"`
	RetriedOK int64 `json:"retriedOK,omitempty"`
	// SeriesStartMillis is where the series starts, from the instant
	// (≤ 0: -DisruptionBeforeMillis, or less before when the instant is
	// closer to the window's start). Point i covers
	// [instant + SeriesStartMillis + i·IntervalMillis, +Millis). Interval
	// boundaries fall on multiples of IntervalMillis from the instant, so
	// the series of every loader align on it, and so does a coarser one.
	SeriesStartMillis int64 `json:"seriesStartMillis"`
	// Series holds throughput (Count, Failed) and latency (successful
	// operations, at series precision) per interval around the instant.
	Series Series `json:"series"`
}

// DisruptionOutcome is what the actor did, and when.
type DisruptionOutcome struct {
	// State is DisruptionDone, DisruptionFailed, DisruptionUnknown or
	// DisruptionNotReached.
	State string `json:"state"`
	// Sent is when the action was sent (zero when NotReached); Returned
	// when its answer came back (nil unless Done or Failed).
	Sent     time.Time  `json:"sent,omitzero"`
	Returned *time.Time `json:"returned,omitempty"`
	// Error is the action's error (Failed), or why the outcome is unknown.
	Error string `json:"error,omitempty"`
	// Primary is the host:port that was primary when the action was sent,
	// as the actor's driver knew it ("" when unknown).
	Primary string `json:"primary,omitempty"`
	// Pod is the pod a pod deletion (KillPrimary, RestartMember) deleted,
	// or whose mongod a Pause froze: set by the controller, which carries
	// those out, from the ledger.
	Pod string `json:"pod,omitempty"`
	// Frozen and Thawed are when a Pause's mongod was seen stopped and
	// continued, as the freezing container reported (Pause only).
	Frozen *time.Time `json:"frozen,omitempty"`
	Thawed *time.Time `json:"thawed,omitempty"`
}

// DisruptionLoader is what one loader saw of a disruption.
type DisruptionLoader struct {
	Index int `json:"index"`
	// WriteUnavailableMicros is the time from the instant to the end of
	// the first successful write (INSERT, UPDATE, DELETE; not a write only
	// buffered by batching) that started at or after the instant and at
	// or after the loader saw the disruption (the onset: the end of the
	// first write that failed or that the driver retried after the
	// instant, or when the driver's monitor lost the primary, whichever
	// came first; without an onset, the instant itself). An operation
	// that started between the instant and the disruption reaching the
	// server proves nothing about availability: the onset excludes it
	// (internal/ycsb kindAgg). ReadUnavailableMicros is the same for reads
	// (READ, SCAN). Nil when the
	// loader had no such success before its measured window ended:
	// Writes/Reads then say whether it tried (unrecovered) or not (the
	// workload has none, or the window ended first).
	WriteUnavailableMicros *int64 `json:"writeUnavailableMicros,omitempty"`
	ReadUnavailableMicros  *int64 `json:"readUnavailableMicros,omitempty"`
	// Writes and Reads count the operations of each kind that started at
	// or after the instant, until the first success (included).
	Writes int64 `json:"writes"`
	Reads  int64 `json:"reads"`
	// NewPrimaryMicros is the time from the instant to when this loader's
	// driver first knew of a writable primary elected after it (a greater
	// electionId than the primary's at the instant, or another member);
	// nil when it did not within the series' stretch.
	NewPrimaryMicros *int64 `json:"newPrimaryMicros,omitempty"`
}

// validateDisruptions checks a result's disruptions: in index order, every
// loader's entry in range and in order, the series on the instant's grid.
func validateDisruptions(ds []Disruption, loaders int) error { //nolint:gocyclo // one list of checks
	for i := range ds {
		d := &ds[i]
		if d.Index < 0 || (i > 0 && d.Index <= ds[i-1].Index) {
			return fmt.Errorf("disruption %d: index %d out of order", i, d.Index)
		}
		if d.Action == "" || d.AtMillis < 0 {
			return fmt.Errorf("disruption %d: action %q at %d ms", d.Index, d.Action, d.AtMillis)
		}
		if o := d.Outcome; o != nil {
			switch o.State {
			case DisruptionDone, DisruptionFailed:
				if o.Returned == nil || o.Returned.Before(o.Sent) {
					return fmt.Errorf("disruption %d: %s without a return after it was sent", d.Index, o.State)
				}
			case DisruptionUnknown, DisruptionNotReached:
				if o.Returned != nil {
					return fmt.Errorf("disruption %d: %s with a return time", d.Index, o.State)
				}
			default:
				return fmt.Errorf("disruption %d: unknown outcome %q", d.Index, o.State)
			}
		}
		if len(d.Loaders) == 0 {
			return fmt.Errorf("disruption %d: no loader's measurements", d.Index)
		}
		for j, l := range d.Loaders {
			if l.Index < 0 || l.Index >= loaders || (j > 0 && l.Index <= d.Loaders[j-1].Index) {
				return fmt.Errorf("disruption %d: loader %d out of order or range (%d loaders)", d.Index, l.Index, loaders)
			}
			for _, v := range []*int64{l.WriteUnavailableMicros, l.ReadUnavailableMicros, l.NewPrimaryMicros} {
				if v != nil && *v < 0 {
					return fmt.Errorf("disruption %d, loader %d: negative time %d µs", d.Index, l.Index, *v)
				}
			}
			if l.Writes < 0 || l.Reads < 0 || (l.WriteUnavailableMicros != nil && l.Writes == 0) ||
				(l.ReadUnavailableMicros != nil && l.Reads == 0) {
				return fmt.Errorf("disruption %d, loader %d: %d writes and %d reads for the times measured", d.Index, l.Index, l.Writes, l.Reads)
			}
		}
		for label, n := range d.Errors {
			if label == "" || n <= 0 {
				return fmt.Errorf("disruption %d: error count %q = %d", d.Index, label, n)
			}
		}
		if d.Retried < 0 || d.RetriedOK < 0 || d.RetriedOK > d.Retried {
			return fmt.Errorf("disruption %d: %d retried operations, %d of them succeeded", d.Index, d.Retried, d.RetriedOK)
		}
		if err := d.validateSeries(); err != nil {
			return fmt.Errorf("disruption %d: %w", d.Index, err)
		}
	}
	return nil
}

func (d *Disruption) validateSeries() error {
	s := &d.Series
	if len(s.Points) == 0 {
		return nil
	}
	if s.IntervalMillis < DisruptionIntervalMillis || s.IntervalMillis%DisruptionIntervalMillis != 0 {
		return fmt.Errorf("series interval %d ms: want a multiple of %d ms", s.IntervalMillis, DisruptionIntervalMillis)
	}
	if d.SeriesStartMillis > 0 || d.SeriesStartMillis < -DisruptionBeforeMillis-s.IntervalMillis {
		return fmt.Errorf("series starts %d ms from the instant", d.SeriesStartMillis)
	}
	if len(s.Points) > MaxDisruptionPoints+1 {
		return fmt.Errorf("series has %d points, at most %d allowed", len(s.Points), MaxDisruptionPoints+1)
	}
	for i, p := range s.Points {
		if p.Millis <= 0 || p.Millis > s.IntervalMillis {
			return fmt.Errorf("series point %d covers %d ms, interval is %d ms", i, p.Millis, s.IntervalMillis)
		}
		for _, o := range p.Ops {
			if o.Count < 0 || o.Failed < 0 || o.Failed > o.Count || o.Latency.Count() > o.Count-o.Failed {
				return fmt.Errorf("series point %d, %s: %d latency samples, %d failed, for %d operations", i, o.Name,
					o.Latency.Count(), o.Failed, o.Count)
			}
		}
	}
	return nil
}
