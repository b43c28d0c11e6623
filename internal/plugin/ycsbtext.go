package plugin

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// statusPercentileOf is a latency percentile a phase's status keeps per
// operation, of its service times and of its intended latencies.
type statusPercentileOf struct {
	p        float64
	value    func(*benchv1.OperationResult) int64
	intended func(*benchv1.IntendedLatency) int64
}

// statusPercentiles are the percentiles status keeps, hence the only ones
// a report rebuilt from status can print.
var statusPercentiles = []statusPercentileOf{
	{50, func(o *benchv1.OperationResult) int64 { return o.P50Micros }, func(i *benchv1.IntendedLatency) int64 { return i.P50Micros }},
	{95, func(o *benchv1.OperationResult) int64 { return o.P95Micros }, func(i *benchv1.IntendedLatency) int64 { return i.P95Micros }},
	{99, func(o *benchv1.OperationResult) int64 { return o.P99Micros }, func(i *benchv1.IntendedLatency) int64 { return i.P99Micros }},
	{99.9, func(o *benchv1.OperationResult) int64 { return o.P999Micros }, func(i *benchv1.IntendedLatency) int64 { return i.P999Micros }},
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

func statusPercentile(p float64) *statusPercentileOf {
	for i := range statusPercentiles {
		if statusPercentiles[i].p == p {
			return &statusPercentiles[i]
		}
	}
	return nil
}

// ycsbTextSummary rebuilds the numbers of YCSB's text report from a phase's
// status, for ycsb.WriteTextSummary, the writer the loader uses: with
// measurement.interval intended or both, the intended blocks as YCSB
// 0.17.0 prints them; with a warm-up, its [WARMUP] lines and
// [WARMUP-<OP>] blocks. Status lacks the latencies of failed operations,
// so there are no "<OP>-FAILED" blocks (the Return= lines still count
// every failure), and its average latencies are rounded to hundredths.
func ycsbTextSummary(r *benchv1.PhaseResult, percentiles []float64) *ycsb.TextSummary {
	s := &ycsb.TextSummary{
		RuntimeMillis:         r.RuntimeMillis,
		Operations:            r.Operations,
		FailedBufferedInserts: r.LostInserts,
		Interval:              ycsb.IntervalOp,
	}
	if r.MeasurementInterval != "" {
		// The API's enum is YCSB's values; an unknown one prints the
		// service times, which status always has.
		s.Interval, _ = ycsb.ParseMeasurementInterval(string(r.MeasurementInterval))
	}
	s.Ops = opSummaries(r.OperationStats, percentiles, s.Interval.Intended())
	if w := r.Warmup; w != nil {
		s.Warmup = &ycsb.WarmupSummary{RuntimeMillis: w.RuntimeMillis, Operations: w.Operations,
			Ops: opSummaries(w.OperationStats, percentiles, false)}
	}
	return s
}

// opSummaries are the report's operations: their successful operations'
// latencies (the <OP> measurement holds those only), with their intended
// latencies when measured. An operation without intended latencies in an
// intended report (none succeeded) gets an empty block, as the loader's
// writer prints an empty histogram.
func opSummaries(ops []benchv1.OperationResult, percentiles []float64, intended bool) []ycsb.OpSummary {
	out := make([]ycsb.OpSummary, 0, len(ops))
	for i := range ops {
		o := &ops[i]
		ok := ycsb.LatencySummary{Operations: o.Count - o.Errors, AverageMicros: o.AverageMicros, MinMicros: o.MinMicros, MaxMicros: o.MaxMicros}
		ok.Percentiles = statusPercentileValues(percentiles, func(sp *statusPercentileOf) int64 { return sp.value(o) })
		sum := ycsb.OpSummary{Name: o.Name, OK: ok, Returns: ycsb.SortedStatusCounts(o.Statuses)}
		if intended {
			sum.IntendedOK = ycsb.LatencySummary{Percentiles: statusPercentileValues(percentiles, func(*statusPercentileOf) int64 { return 0 })}
			if it := o.Intended; it != nil {
				// Every successful call has an intended latency.
				sum.IntendedOK = ycsb.LatencySummary{Operations: o.Count - o.Errors, AverageMicros: it.AverageMicros,
					MinMicros: it.MinMicros, MaxMicros: it.MaxMicros,
					Percentiles: statusPercentileValues(percentiles, func(sp *statusPercentileOf) int64 { return sp.intended(it) })}
			}
		}
		out = append(out, sum)
	}
	return out
}

// statusPercentileValues are the percentile lines of a block, each value
// read by value from the status percentile it names.
func statusPercentileValues(percentiles []float64, value func(*statusPercentileOf) int64) []ycsb.PercentileValue {
	var out []ycsb.PercentileValue
	for _, p := range percentiles {
		if sp := statusPercentile(p); sp != nil {
			out = append(out, ycsb.PercentileValue{Percentile: p, Micros: value(sp)})
		}
	}
	return out
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
		if err := ycsb.WriteTextSummary(w, ycsbTextSummary(r, percentiles)); err != nil {
			return fmt.Errorf("phase %s: %w", r.Name, err)
		}
		if _, err := io.WriteString(w, ycsbDisruptionLines(r.Disruptions)); err != nil {
			return fmt.Errorf("phase %s: write disruptions: %w", r.Name, err)
		}
	}
	return nil
}

// ycsbDisruptionLines are a phase's disruptions as YCSB-like lines, after
// its report: "[DISRUPTION 0 StepDown], WriteUnavailableMax(ms), 1734.0".
// Each is a "[SECTION], Metric, value" line with a number for its value,
// so a parser of YCSB's reports reads them as one more section, and one
// that knows nothing of them can skip the sections it does not know. The
// outcome and the error labels are in the metric's name, as YCSB puts a
// return status in "Return=OK": "Outcome=Done, 1", "Error=NotWritablePrimary,
// 120". A figure the disruption does not have has no line. Times are in
// ms (µs for the action's own duration, as precise as status).
func ycsbDisruptionLines(ds []benchv1.DisruptionResult) string {
	var b strings.Builder
	for i := range ds {
		d := &ds[i]
		section := fmt.Sprintf("[DISRUPTION %d %s]", d.Index, d.ActionLabel())
		line := func(metric, value string) {
			// A ", " would split the line for a parser.
			b.WriteString(section + ", " + strings.ReplaceAll(metric, ", ", " ") + ", " + value + "\n")
		}
		ms := func(us int64) string { return strconv.FormatFloat(float64(us)/1000, 'f', 1, 64) }
		d64 := func(n int64) string { return strconv.FormatInt(n, 10) }
		line("At(ms)", d64(d.At.Milliseconds()))
		line("Outcome="+string(d.Outcome.State), "1")
		if d.Outcome.DurationMicros != nil {
			line("ActionTime(us)", d64(*d.Outcome.DurationMicros))
		}
		if d.Outcome.FrozenMicros != nil {
			line("Frozen(ms)", ms(*d.Outcome.FrozenMicros))
		}
		times := func(name string, t *benchv1.LoaderTimes, missing string) {
			if t == nil {
				return
			}
			if t.Loaders > 0 {
				line(name+"Max(ms)", ms(t.MaxMicros))
				line(name+"Median(ms)", ms(t.MedianMicros))
			}
			line(name+"Loaders", strconv.Itoa(int(t.Loaders)))
			line(missing, strconv.Itoa(int(t.Missing)))
		}
		times("WriteUnavailable", d.WriteUnavailable, "WriteNeverRecovered")
		times("ReadUnavailable", d.ReadUnavailable, "ReadNeverRecovered")
		times("NewPrimary", d.NewPrimary, "NewPrimaryMissing")
		if d.NewPrimaryTelemetryMicros != nil {
			line("NewPrimaryTelemetry(ms)", ms(*d.NewPrimaryTelemetryMicros))
		}
		if d.Outcome.State == benchv1.DisruptionNotReached {
			continue
		}
		var total int64
		for _, e := range d.Errors {
			total += e.Count
		}
		line("Errors", d64(total))
		for _, e := range d.Errors {
			line("Error="+e.Label, d64(e.Count))
		}
		line("Retried", d64(d.Retried))
		line("RetriedOK", d64(d.RetriedOK))
		for _, p := range []struct {
			when string
			perf *benchv1.DisruptionPerformance
		}{{"Before", d.Before}, {"After", d.After}} {
			if p.perf != nil {
				line("Throughput"+p.when+"(ops/sec)", strconv.FormatFloat(p.perf.Throughput, 'f', -1, 64))
				line("99thPercentileLatency"+p.when+"(us)", d64(p.perf.P99Micros))
			}
		}
	}
	return b.String()
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
