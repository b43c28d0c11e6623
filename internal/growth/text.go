package growth

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/mongobench/mongobench/internal/results"
)

// The text output of a Grow phase (stdout of `loader grow`): one line per
// checkpoint as it is taken (WriteCheckpoint), then the phase's totals
// (WriteTextSummary). Every line has YCSB's "[NAME], metric, value" form, so
// YCSB report parsers read it. Latencies are in µs.

// WriteCheckpoint writes a checkpoint's line:
//
//	[CHECKPOINT], i/n, records=... insert.rec/s=... Q1.ops/s=... count=... size=...
//
// with earlier=true for a row an earlier loader took.
func WriteCheckpoint(w io.Writer, row *results.GrowthCheckpoint, planned int, earlier bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "[CHECKPOINT], %d/%d, ", row.Index, planned)
	in := &row.Insert
	fmt.Fprintf(&b, "records=%d insert.records=%d insert.sec=%.1f insert.rec/s=%.1f insert.p50=%d insert.p99=%d insert.errors=%d",
		row.Records, in.Records, float64(in.Millis)/1000, in.RecordsPerSec, in.Latency.P50Micros, in.Latency.P99Micros, in.Latency.Errors)
	if in.Resumed {
		b.WriteString(" insert.resumed=true")
	}
	for _, q := range row.Queries {
		fmt.Fprintf(&b, " %s.ops/s=%.1f %s.p50=%d %s.p99=%d %s.docs=%d %s.errors=%d",
			q.Name, q.Latency.OpsPerSec, q.Name, q.Latency.P50Micros, q.Name, q.Latency.P99Micros, q.Name, q.Documents, q.Name, q.Latency.Errors)
	}
	if s := row.Sizes; s != nil {
		opt := func(name string, v *int64) {
			if v != nil {
				fmt.Fprintf(&b, " %s=%d", name, *v)
			}
		}
		opt("count", s.Count)
		opt("size", s.Size)
		opt("storageSize", s.StorageSize)
		opt("totalIndexSize", s.TotalIndexSize)
		for _, name := range slices.Sorted(maps.Keys(s.IndexSizes)) {
			fmt.Fprintf(&b, " index.%s=%d", name, s.IndexSizes[name])
		}
		if len(s.Shards) > 0 {
			fmt.Fprintf(&b, " shards=%d", len(s.Shards))
		}
	} else if row.SizesError != "" {
		fmt.Fprintf(&b, " sizes=unavailable (%s)", strings.ReplaceAll(row.SizesError, "\n", " "))
	}
	if earlier {
		b.WriteString(" earlier=true")
	}
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	return nil
}

// WriteTextSummary writes the phase's totals: [OVERALL] runtime and
// throughput, [GROWTH] records, checkpoints, restarts, then per operation
// (INSERT, Q1..Q4) its count, latencies and statuses, as YCSB prints them.
func WriteTextSummary(w io.Writer, r *results.Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "[OVERALL], RunTime(ms), %d\n", r.RuntimeMillis)
	fmt.Fprintf(&b, "[OVERALL], Throughput(ops/sec), %s\n", formatFloat(r.Throughput()))
	if g := r.Growth; g != nil {
		records := int64(0)
		if n := len(g.Checkpoints); n > 0 {
			records = g.Checkpoints[n-1].Records
		}
		fmt.Fprintf(&b, "[GROWTH], Records, %d\n", records)
		fmt.Fprintf(&b, "[GROWTH], TargetRecords, %d\n", g.TargetRecords)
		fmt.Fprintf(&b, "[GROWTH], Checkpoints, %d\n", len(g.Checkpoints))
		fmt.Fprintf(&b, "[GROWTH], PlannedCheckpoints, %d\n", g.PlannedCheckpoints)
		fmt.Fprintf(&b, "[GROWTH], Restarts, %d\n", g.Restarts)
		fmt.Fprintf(&b, "[GROWTH], RepairedRecords, %d\n", g.RepairedRecords)
	}
	for i := range r.Ops {
		op := &r.Ops[i]
		s := op.Latency.Stats()
		fmt.Fprintf(&b, "[%s], Operations, %d\n", op.Name, op.Total())
		fmt.Fprintf(&b, "[%s], AverageLatency(us), %s\n", op.Name, formatFloat(s.Mean))
		fmt.Fprintf(&b, "[%s], MinLatency(us), %d\n", op.Name, s.Min)
		fmt.Fprintf(&b, "[%s], MaxLatency(us), %d\n", op.Name, s.Max)
		fmt.Fprintf(&b, "[%s], 50thPercentileLatency(us), %d\n", op.Name, s.P50)
		fmt.Fprintf(&b, "[%s], 95thPercentileLatency(us), %d\n", op.Name, s.P95)
		fmt.Fprintf(&b, "[%s], 99thPercentileLatency(us), %d\n", op.Name, s.P99)
		for _, st := range slices.Sorted(maps.Keys(op.Statuses)) {
			fmt.Fprintf(&b, "[%s], Return=%s, %d\n", op.Name, st, op.Statuses[st])
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	return nil
}

func formatFloat(f float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", f), "0"), ".")
}
