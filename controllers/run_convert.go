package controllers

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/results"
)

// phaseResult turns a phase's merged loader result into its status entry.
// Every latency comes from the merged histograms, never from averaging the
// loaders' percentiles.
func phaseResult(ph *benchv1.PhaseSpec, m *results.Result) benchv1.PhaseResult {
	out := benchv1.PhaseResult{
		Name:           ph.Name,
		Type:           ph.Type,
		Loaders:        int32(m.Loader.Count),
		Threads:        int32(m.Loader.Threads),
		StartTime:      metav1.NewTime(m.Start),
		CompletionTime: metav1.NewTime(m.End),
		RuntimeMillis:  m.RuntimeMillis,
		Operations:     m.Operations,
		Throughput:     round2(m.Throughput()),
		StopReason:     string(m.StopReason),
		P99Micros:      m.CombinedLatency().Percentile(99),
		LostInserts:    m.LostInserts,
	}
	out.OperationStats = operationStats(m.Ops)
	if m.MeasurementInterval != results.IntervalOp {
		out.MeasurementInterval = benchv1.MeasurementInterval(m.MeasurementInterval)
		p99 := m.CombinedIntended().Percentile(99)
		out.IntendedP99Micros = &p99
	}
	if w := m.Warmup; w != nil {
		wr := &benchv1.WarmupResult{
			RuntimeMillis:  max(w.End.Sub(w.Start).Milliseconds(), 0),
			Operations:     w.Operations,
			P99Micros:      (&results.Result{Ops: w.Ops}).CombinedLatency().Percentile(99),
			OperationStats: operationStats(w.Ops),
		}
		if wr.RuntimeMillis > 0 {
			wr.Throughput = round2(float64(w.Operations) * 1000 / float64(wr.RuntimeMillis))
		}
		out.Warmup = wr
	}
	out.LoaderStats, out.StartSkewMillis = loaderStats(m.Loaders)
	out.TimeSeries = timeSeries(m)
	out.Disruptions = disruptionResults(ph, m)
	if g := m.Growth; g != nil {
		// A Grow phase's throughput and p99 are its inserts': documents per
		// second of insert time, and the insert calls' p99. Mixing in the
		// checkpoints' queries (and counting a batch as one operation)
		// would make the summary, a sweep's medians and a gate's
		// throughput meaningless; the queries have their own rows.
		var records, millis int64
		for _, c := range g.Checkpoints {
			records += c.Insert.Records
			millis += c.Insert.Millis
		}
		out.Throughput = 0
		if millis > 0 {
			out.Throughput = round2(float64(records) * 1000 / float64(millis))
		}
		out.P99Micros = 0
		if op := m.Op(results.OpInsert); op != nil {
			out.P99Micros = op.Latency.Percentile(99)
		}
	}
	return out
}

// operationStats are the status rows of a result's operations: every
// latency from the merged histograms.
func operationStats(ops []results.OpResult) []benchv1.OperationResult {
	var out []benchv1.OperationResult //nolint:prealloc // nil without operations: status leaves them out
	for i := range ops {
		op := &ops[i]
		st := op.Latency.Stats()
		row := benchv1.OperationResult{
			Name:          op.Name,
			Count:         op.Total(),
			Errors:        op.Errors(),
			Statuses:      op.Statuses,
			AverageMicros: round2(st.Mean),
			MinMicros:     st.Min,
			MaxMicros:     st.Max,
			P50Micros:     st.P50,
			P95Micros:     st.P95,
			P99Micros:     st.P99,
			P999Micros:    st.P999,
		}
		if op.Intended.Count() > 0 {
			it := op.Intended.Stats()
			row.Intended = &benchv1.IntendedLatency{AverageMicros: round2(it.Mean), MinMicros: it.Min, MaxMicros: it.Max, P50Micros: it.P50,
				P95Micros: it.P95, P99Micros: it.P99, P999Micros: it.P999}
		}
		out = append(out, row)
	}
	return out
}

// loaderStats are the loaders' own figures in status, and how far apart
// their measured windows started (nil for one loader, or loaders that did
// not report it).
func loaderStats(ls []results.LoaderStats) ([]benchv1.LoaderResult, *int64) {
	var out []benchv1.LoaderResult //nolint:prealloc // nil without loaders' figures: status leaves them out
	var first, last time.Time
	for _, l := range ls {
		r := benchv1.LoaderResult{Index: int32(l.Index), Pod: l.Hostname, Connections: int32(l.Connections), ConnectMillis: l.ConnectMillis}
		if c := l.CPU; c != nil {
			used := round2(c.UsedPercent())
			r.CPUPercent = &used
			r.CPULimit = strconv.FormatFloat(float64(c.LimitMilliCPU)/1000, 'f', -1, 64) + " (" + c.LimitSource + ")"
			if c.Throttled() {
				th := round2(c.ThrottledPercent())
				r.ThrottledPercent = &th
			}
		}
		out = append(out, r)
		if first.IsZero() || l.Start.Before(first) {
			first = l.Start
		}
		if l.Start.After(last) {
			last = l.Start
		}
	}
	if len(ls) < 2 {
		return out, nil
	}
	skew := last.Sub(first).Milliseconds()
	return out, &skew
}

// growthStatus is a Grow phase's checkpoints as status shows them. A
// checkpoint's sizes that cannot be shown (more shards than the run has,
// bad index names) are left out, and problems says why.
func growthStatus(g *results.GrowthResult, maxShards int) (out *benchv1.GrowthStatus, problems []string) {
	if g == nil {
		return nil, nil
	}
	out = &benchv1.GrowthStatus{TargetRecords: g.TargetRecords, CheckpointEvery: g.CheckpointEvery,
		PlannedCheckpoints: int32(g.PlannedCheckpoints), InsertMode: growInsertMode(g.InsertMode),
		Restarts: int32(g.Restarts), RepairedRecords: g.RepairedRecords}
	for i := range g.Checkpoints {
		c := &g.Checkpoints[i]
		row := benchv1.GrowthCheckpoint{Records: c.Records, Time: metav1.NewTime(c.Start),
			InsertsPerSec: round2(c.Insert.RecordsPerSec), InsertP50Micros: c.Insert.Latency.P50Micros,
			InsertP99Micros: c.Insert.Latency.P99Micros, InsertErrors: c.Insert.Latency.Errors, Resumed: c.Insert.Resumed}
		for _, q := range c.Queries {
			docs := 0.0 // documents come from the successful queries only
			if ok := q.Latency.Count - q.Latency.Errors; ok > 0 {
				docs = round2(float64(q.Documents) / float64(ok))
			}
			row.Queries = append(row.Queries, benchv1.GrowthQueryResult{Name: benchv1.GrowQuery(q.Name), OpsPerSec: round2(q.Latency.OpsPerSec),
				P50Micros: q.Latency.P50Micros, P99Micros: q.Latency.P99Micros, DocumentsPerQuery: docs, Errors: q.Latency.Errors})
		}
		if c.Sizes != nil {
			sizes, err := collectionSummary(c.Sizes, maxShards)
			if err != nil {
				problems = append(problems, fmt.Sprintf("checkpoint %d: sizes left out: %v", c.Index, err))
			}
			if sizes != nil {
				for j := range sizes.Shards {
					sh := &sizes.Shards[j]
					sh.Size, sh.StorageSize, sh.TotalIndexSize = nil, nil, nil
				}
			}
			row.Sizes = sizes
		}
		out.Checkpoints = append(out.Checkpoints, row)
	}
	return out, problems
}

// growInsertMode maps the loader's insert mode onto the API's.
func growInsertMode(mode string) benchv1.GrowInsertMode {
	for _, m := range []benchv1.GrowInsertMode{benchv1.GrowUnacknowledged, benchv1.GrowAcknowledged, benchv1.GrowBatch} {
		if strings.EqualFold(string(m), mode) {
			return m
		}
	}
	return benchv1.GrowInsertMode(mode)
}

// timeSeries flattens the merged series into columns for plots: throughput
// per interval and, per operation, the interval's p99.
func timeSeries(m *results.Result) *benchv1.TimeSeries {
	if len(m.Series.Points) == 0 {
		return nil
	}
	ts := &benchv1.TimeSeries{IntervalMillis: m.Series.IntervalMillis}
	seen := map[string]bool{}
	for _, p := range m.Series.Points {
		ts.Throughput = append(ts.Throughput, round2(p.Throughput()))
		for _, o := range p.Ops {
			seen[o.Name] = true
		}
	}
	for _, name := range results.OperationOrder {
		if !seen[name] {
			continue
		}
		series := benchv1.OperationSeries{Name: name, Values: make([]int64, len(m.Series.Points))}
		for i, p := range m.Series.Points {
			if o := p.Op(name); o != nil {
				series.Values[i] = o.Latency.Percentile(99)
			}
		}
		ts.P99Micros = append(ts.P99Micros, series)
	}
	return ts
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }
