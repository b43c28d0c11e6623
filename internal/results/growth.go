package results

import (
	"fmt"
	"time"
)

// A Grow phase (internal/growth) inserts documents up to a target record
// count and, at every checkpoint, pauses to take the collection's sizes and
// to run each query class for a while. Its Result is of KindGrow: Ops holds
// the phase's overall measurements, one operation per kind (INSERT, Q1..Q4),
// so that merging and every histogram-based figure work as for YCSB phases,
// and Growth holds one row per checkpoint.

// KindGrow is a Grow phase's result: Ops are INSERT and the query classes,
// Growth is set.
const KindGrow Kind = "grow"

// The query classes of a Grow phase, as operation names in Ops and in
// GrowthQuery.Name.
const (
	// OpQ1: equality on number.
	OpQ1 = "Q1"
	// OpQ2: equality on number and number1, two fields projected.
	OpQ2 = "Q2"
	// OpQ3: equality on number, sorted by date descending, skip and limit.
	OpQ3 = "Q3"
	// OpQ4: documents without a condition.
	OpQ4 = "Q4"
)

// GrowthQueryOps are the query classes in their order.
var GrowthQueryOps = []string{OpQ1, OpQ2, OpQ3, OpQ4}

// MaxGrowthCheckpoints bounds a Grow phase's checkpoints, and so the rows
// of its result (and of the BenchmarkRun status that shows them).
const MaxGrowthCheckpoints = 200

// Insert modes of a Grow phase (GrowthResult.InsertMode).
const (
	// InsertUnacknowledged: insertOne with w:0.
	InsertUnacknowledged = "unacknowledged"
	// InsertAcknowledged: insertOne with w:1, j:true.
	InsertAcknowledged = "acknowledged"
	// InsertBatch: insertMany (ordered) of BatchSize documents with w:1,
	// j:true.
	InsertBatch = "batch"
)

// GrowthResult is a Grow phase's record of its collection's growth: the
// settings that shape it and one row per checkpoint reached.
type GrowthResult struct {
	// TargetRecords is the number of documents the phase grows the
	// collection to.
	TargetRecords int64 `json:"targetRecords"`
	// CheckpointEvery is the number of records between checkpoints (the
	// last one is at TargetRecords).
	CheckpointEvery int64 `json:"checkpointEvery"`
	// PlannedCheckpoints is the number of checkpoints of the whole phase;
	// Checkpoints holds fewer when the phase stopped early.
	PlannedCheckpoints int `json:"plannedCheckpoints"`
	// InsertMode is InsertUnacknowledged, InsertAcknowledged or
	// InsertBatch; BatchSize is insertMany's size in batch mode (else 1).
	InsertMode    string `json:"insertMode"`
	BatchSize     int    `json:"batchSize"`
	InsertThreads int    `json:"insertThreads"`
	QueryThreads  int    `json:"queryThreads"`
	// QueryMillis is how long each query class runs at a checkpoint.
	QueryMillis int64 `json:"queryMillis"`
	// Queries are the query classes run at each checkpoint, in order.
	Queries []string `json:"queries,omitempty"`
	// Values is N: number and number1 take values in [0, N), each matching
	// about TargetRecords/N documents once the target is reached.
	Values int64 `json:"values"`
	// Restarts counts the loader processes that resumed this phase from
	// what an earlier one left in the database (0: it ran in one go).
	Restarts int `json:"restarts,omitempty"`
	// RepairedRecords counts documents missing below the resume point that
	// a resuming loader inserted again (holes left by inserts in flight or
	// unacknowledged when the previous loader stopped). They are not
	// measured.
	RepairedRecords int64 `json:"repairedRecords,omitempty"`
	// Checkpoints holds one row per checkpoint reached, in order.
	Checkpoints []GrowthCheckpoint `json:"checkpoints"`
}

// GrowthCheckpoint is one checkpoint: the segment of inserts that led to
// it, the collection's sizes there, and each query class's run.
type GrowthCheckpoint struct {
	// Index is the checkpoint's number, from 1.
	Index int `json:"index"`
	// Records is the number of documents inserted when the checkpoint was
	// taken: Index × CheckpointEvery, or TargetRecords for the last.
	Records int64 `json:"records"`
	// Start and End bound the pause: sizes, then the queries.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Insert is the segment of inserts since the previous checkpoint.
	Insert GrowthInsert `json:"insert"`
	// Sizes are the collection's statistics at the checkpoint; nil when
	// they could not be read (SizesError says why).
	Sizes      *CollectionStats `json:"sizes,omitempty"`
	SizesError string           `json:"sizesError,omitempty"`
	// Queries holds each query class run at the checkpoint, in order.
	Queries []GrowthQuery `json:"queries,omitempty"`
}

// GrowthInsert is one segment of inserts.
type GrowthInsert struct {
	// FromRecords is the record count the segment started at (the
	// previous checkpoint's).
	FromRecords int64 `json:"fromRecords"`
	// Records is the number of documents the measured calls inserted:
	// Records of the checkpoint minus FromRecords, unless a loader stopped
	// abruptly during the segment (then its measurements, and the
	// documents of its calls, are lost; Resumed is set).
	Records int64 `json:"records"`
	// Millis is the time the measured calls took, wall clock, from the
	// segment's first call to its last call's end (summed over the loader
	// processes that worked on the segment).
	Millis int64 `json:"millis"`
	// RecordsPerSec is Records per second of Millis: the insert rate.
	RecordsPerSec float64 `json:"recordsPerSec"`
	// Latency summarises the insert calls: one document each, or one
	// batch each in batch mode (Latency.OpsPerSec is then batches/s).
	Latency LatencySummary `json:"latency"`
	// Resumed reports that a loader resumed the phase during this segment.
	Resumed bool `json:"resumed,omitempty"`
}

// GrowthQuery is one query class's run at a checkpoint.
type GrowthQuery struct {
	// Name is OpQ1..OpQ4.
	Name string `json:"name"`
	// Millis is the run's length, wall clock.
	Millis int64 `json:"millis"`
	// Documents is the number of documents every query of the run
	// returned, in total.
	Documents int64          `json:"documents"`
	Latency   LatencySummary `json:"latency"`
}

// LatencySummary are a histogram's figures: what a checkpoint row shows.
// The histograms themselves are merged into the phase's Ops; a row keeps
// only these numbers, so a result of MaxGrowthCheckpoints rows stays small.
type LatencySummary struct {
	// Count is the number of calls, failed ones included; Errors of them
	// failed.
	Count  int64 `json:"count"`
	Errors int64 `json:"errors,omitempty"`
	// OpsPerSec is Count per second of the run or segment.
	OpsPerSec float64 `json:"opsPerSec"`
	// Latencies of the successful calls, µs (Java HdrHistogram's
	// percentile rule, as everywhere in results).
	MeanMicros float64 `json:"meanMicros"`
	P50Micros  int64   `json:"p50Micros"`
	P95Micros  int64   `json:"p95Micros"`
	P99Micros  int64   `json:"p99Micros"`
	P999Micros int64   `json:"p999Micros"`
	MaxMicros  int64   `json:"maxMicros"`
}

// Summarize returns the summary of count calls (errors of them failed)
// that took d, whose successful ones h holds.
func Summarize(h *Histogram, count, errors int64, d time.Duration) LatencySummary {
	s := h.Stats()
	l := LatencySummary{Count: count, Errors: errors, MeanMicros: s.Mean, P50Micros: s.P50, P95Micros: s.P95,
		P99Micros: s.P99, P999Micros: s.P999, MaxMicros: s.Max}
	if d > 0 {
		l.OpsPerSec = float64(count) / d.Seconds()
	}
	return l
}

// Query returns the checkpoint's run of the named class, or nil.
func (c *GrowthCheckpoint) Query(name string) *GrowthQuery {
	for i := range c.Queries {
		if c.Queries[i].Name == name {
			return &c.Queries[i]
		}
	}
	return nil
}

// validate checks a Grow phase's rows against its settings.
func (g *GrowthResult) validate() error {
	switch g.InsertMode {
	case InsertUnacknowledged, InsertAcknowledged, InsertBatch:
	default:
		return fmt.Errorf("growth: unknown insert mode %q", g.InsertMode)
	}
	if g.TargetRecords < 1 || g.CheckpointEvery < 1 || g.Values < 1 || g.BatchSize < 1 {
		return fmt.Errorf("growth: target %d, checkpoint every %d, values %d and batch size %d must be positive",
			g.TargetRecords, g.CheckpointEvery, g.Values, g.BatchSize)
	}
	if g.PlannedCheckpoints < 1 || g.PlannedCheckpoints > MaxGrowthCheckpoints {
		return fmt.Errorf("growth: %d planned checkpoints, want 1 to %d", g.PlannedCheckpoints, MaxGrowthCheckpoints)
	}
	if len(g.Checkpoints) > g.PlannedCheckpoints {
		return fmt.Errorf("growth: %d checkpoints of %d planned", len(g.Checkpoints), g.PlannedCheckpoints)
	}
	var prev int64
	for i := range g.Checkpoints {
		c := &g.Checkpoints[i]
		if c.Index != i+1 {
			return fmt.Errorf("growth: row %d is checkpoint %d", i+1, c.Index)
		}
		if c.Records <= prev || c.Records > g.TargetRecords {
			return fmt.Errorf("growth: checkpoint %d at %d records, after %d (target %d)", c.Index, c.Records, prev, g.TargetRecords)
		}
		if c.Insert.FromRecords != prev || c.Insert.Records < 0 || c.Insert.Records > c.Records-prev {
			return fmt.Errorf("growth: checkpoint %d: segment from %d with %d records measured, want from %d and at most %d",
				c.Index, c.Insert.FromRecords, c.Insert.Records, prev, c.Records-prev)
		}
		seen := map[string]bool{}
		for _, q := range c.Queries {
			if seen[q.Name] || (q.Name != OpQ1 && q.Name != OpQ2 && q.Name != OpQ3 && q.Name != OpQ4) {
				return fmt.Errorf("growth: checkpoint %d: unknown or repeated query class %q", c.Index, q.Name)
			}
			seen[q.Name] = true
		}
		prev = c.Records
	}
	return nil
}

// clone copies g's rows, so a merged result does not share them with its
// input (the collection statistics, never modified, are shared).
func (g *GrowthResult) clone() *GrowthResult {
	if g == nil {
		return nil
	}
	c := *g
	c.Queries = append([]string(nil), g.Queries...)
	c.Checkpoints = make([]GrowthCheckpoint, len(g.Checkpoints))
	for i, cp := range g.Checkpoints {
		cp.Queries = append([]GrowthQuery(nil), cp.Queries...)
		c.Checkpoints[i] = cp
	}
	return &c
}
