package plugin

import (
	"fmt"
	"io"
	"strings"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// statusPercentiles are the latency percentiles a phase's status keeps per
// operation, hence the only ones a report rebuilt from status can print.
var statusPercentiles = []struct {
	p     float64
	value func(*benchv1.OperationResult) int64
}{
	{50, func(o *benchv1.OperationResult) int64 { return o.P50Micros }},
	{95, func(o *benchv1.OperationResult) int64 { return o.P95Micros }},
	{99, func(o *benchv1.OperationResult) int64 { return o.P99Micros }},
	{99.9, func(o *benchv1.OperationResult) int64 { return o.P999Micros }},
}

// parseStatusPercentiles reads --percentiles (hdrhistogram.percentiles'
// syntax), refusing percentiles that status does not hold.
func parseStatusPercentiles(s string) ([]float64, error) {
	ps, err := ycsb.ParsePercentiles(s)
	if err != nil {
		return nil, fmt.Errorf("--percentiles: %w", err)
	}
	for _, p := range ps {
		if statusPercentile(p) == nil {
			return nil, fmt.Errorf("--percentiles: status keeps the 50th, 95th, 99th and 99.9th percentiles only, not %v", p)
		}
	}
	return ps, nil
}

func statusPercentile(p float64) func(*benchv1.OperationResult) int64 {
	for _, sp := range statusPercentiles {
		if sp.p == p {
			return sp.value
		}
	}
	return nil
}

// ycsbSummary rebuilds the numbers of YCSB's text report from a phase's
// status, for ycsb.WriteSummary, the writer the loader uses. Status lacks
// the latencies of failed operations, so there are no "<OP>-FAILED"
// blocks (the Return= lines still count every failure), and its average
// latency is rounded to hundredths.
func ycsbSummary(r *benchv1.PhaseResult, percentiles []float64) *ycsb.Summary {
	s := &ycsb.Summary{
		RuntimeMillis:         r.RuntimeMillis,
		Operations:            r.Operations,
		FailedBufferedInserts: r.LostInserts,
	}
	for i := range r.OperationStats {
		o := &r.OperationStats[i]
		ok := ycsb.LatencySummary{
			// The <OP> measurement holds successful operations only.
			Operations:    o.Count - o.Errors,
			AverageMicros: o.AverageMicros,
			MinMicros:     o.MinMicros,
			MaxMicros:     o.MaxMicros,
		}
		for _, p := range percentiles {
			if v := statusPercentile(p); v != nil {
				ok.Percentiles = append(ok.Percentiles, ycsb.PercentileValue{Percentile: p, Micros: v(o)})
			}
		}
		s.Ops = append(s.Ops, ycsb.OpSummary{Name: o.Name, OK: ok, Returns: ycsb.SortedStatusCounts(o.Statuses)})
	}
	return s
}

// writeYCSB prints YCSB's text report of each phase. Before each report
// comes a header line, "# run/NAME phase=P type=T loaders=N threads=N",
// which YCSB parsers skip like the other lines YCSB prints around its
// report (they read "[SECTION], Metric, value" lines). With header false
// (a single phase asked for with --phase) the output is exactly a YCSB
// report.
func writeYCSB(w io.Writer, run *benchv1.BenchmarkRun, phases []benchv1.PhaseResult, percentiles []float64, header bool) error {
	for i := range phases {
		r := &phases[i]
		if header {
			h := fmt.Sprintf("# %s phase=%s type=%s loaders=%d threads=%d\n",
				Ref{Kind: KindRun, Name: run.Name}, r.Name, r.Type, r.Loaders, r.Threads)
			if _, err := io.WriteString(w, h); err != nil {
				return fmt.Errorf("write report header: %w", err)
			}
		}
		if err := ycsb.WriteSummary(w, ycsbSummary(r, percentiles)); err != nil {
			return fmt.Errorf("phase %s: %w", r.Name, err)
		}
	}
	return nil
}

// phaseNames lists the finished phases for messages.
func phaseNames(rs []benchv1.PhaseResult) string {
	if len(rs) == 0 {
		return "none"
	}
	names := make([]string, len(rs))
	for i := range rs {
		names[i] = rs[i].Name
	}
	return strings.Join(names, ", ")
}
