package controllers

import (
	"math"

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
	for i := range m.Ops {
		op := &m.Ops[i]
		st := op.Latency.Stats()
		out.OperationStats = append(out.OperationStats, benchv1.OperationResult{
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
		})
	}
	out.TimeSeries = timeSeries(m)
	return out
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
