package ycsb

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/mongobench/mongobench/internal/results"
)

// DefaultPercentiles is YCSB 0.17.0's hdrhistogram.percentiles ("95,99";
// master prints "50,95,99").
const DefaultPercentiles = "95,99"

// ParsePercentiles parses a comma-separated hdrhistogram.percentiles value.
// YCSB falls back to the default with a warning on a bad value; we return an
// error.
func ParsePercentiles(s string) ([]float64, error) {
	var out []float64
	for _, part := range strings.Split(s, ",") {
		f, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil || f < 0 || f > 100 {
			return nil, fmt.Errorf("hdrhistogram.percentiles: %q is not a percentile between 0 and 100", part)
		}
		out = append(out, f)
	}
	return out, nil
}

// PercentilesFromProperties reads hdrhistogram.percentiles.
func PercentilesFromProperties(p *Properties) ([]float64, error) {
	return ParsePercentiles(p.String("hdrhistogram.percentiles", DefaultPercentiles))
}

// percentileName is YCSB's OneMeasurementHdrHistogram naming: an integral
// percentile gets an English ordinal ("95th", "1st", "11th", "22nd"), any
// other is printed with Double.toString ("99.9"); then
// "PercentileLatency(us)".
func percentileName(p float64) string {
	if p != math.Trunc(p) {
		return FormatJavaDouble(p) + "PercentileLatency(us)"
	}
	j := int64(p)
	suffix := "th"
	switch j % 100 {
	case 11, 12, 13:
	default:
		suffix = [...]string{"th", "st", "nd", "rd", "th", "th", "th", "th", "th", "th"}[j%10]
	}
	return strconv.FormatInt(j, 10) + suffix + "PercentileLatency(us)"
}

// WriteText writes YCSB's text exporter output for the run: WriteTextSummary
// of r.TextSummary(percentiles).
func WriteText(w io.Writer, r *RunResult, percentiles []float64) error {
	return WriteTextSummary(w, r.TextSummary(percentiles))
}

// TextSummary is the content of YCSB's text output (its text exporter's),
// whatever measured it: a loader's run (RunResult.TextSummary) or results
// stored elsewhere (the kubectl plugin rebuilds one from a BenchmarkRun's
// status). Keeping the numbers
// apart from the printing gives the byte-exact format one home,
// WriteTextSummary.
type TextSummary struct {
	// RuntimeMillis is [OVERALL] RunTime(ms).
	RuntimeMillis int64
	// Operations is YCSB's opsDone (failed operations included), the
	// numerator of [OVERALL] Throughput(ops/sec).
	Operations int64
	// Ops in report order.
	Ops []OpSummary
	// FailedBufferedInserts counts buffered inserts the final flush lost.
	FailedBufferedInserts int64
	// Interval is measurement.interval: which latencies the blocks show.
	Interval MeasurementInterval
	// Warmup is nil without a warm-up.
	Warmup *WarmupSummary
}

// WarmupSummary is the warm-up's part of the report: its wall time and
// operations, and its measurements (service times).
type WarmupSummary struct {
	RuntimeMillis int64
	Operations    int64
	Ops           []OpSummary
}

// Throughput is [OVERALL] Throughput(ops/sec): 1000·ops/runtime(ms),
// computed in Java's double arithmetic (Infinity or NaN for a zero
// runtime), so a summary rebuilt from stored counts prints the value the
// loader printed.
func (s *TextSummary) Throughput() float64 {
	return 1000.0 * float64(s.Operations) / float64(s.RuntimeMillis)
}

// OpSummary is one operation type: YCSB's "<OP>" measurement with its
// Return counts, and its "<OP>-FAILED" measurement when known.
type OpSummary struct {
	// Name is YCSB's operation name (READ, UPDATE, ..., CLEANUP).
	Name string
	// OK summarises the latencies of successful operations.
	OK LatencySummary
	// Failed summarises the latencies of unsuccessful operations; nil when
	// they are not known (then no "<OP>-FAILED" block is printed).
	Failed *LatencySummary
	// IntendedOK and IntendedFailed summarise the intended latencies
	// (measurement.interval intended or both); IntendedFailed is nil when
	// no operation failed.
	IntendedOK     LatencySummary
	IntendedFailed *LatencySummary
	// Returns counts operations by YCSB status in report order (see
	// SortedStatusCounts); zero counts are not printed.
	Returns []StatusCount
}

// LatencySummary is one measurement block: count, mean, min, max and
// percentiles, in microseconds.
type LatencySummary struct {
	Operations    int64
	AverageMicros float64
	MinMicros     int64
	MaxMicros     int64
	// Percentiles in print order.
	Percentiles []PercentileValue
}

// PercentileValue is one "<p>PercentileLatency(us)" line.
type PercentileValue struct {
	Percentile float64
	Micros     int64
}

// StatusCount is one "Return=<Status>" line.
type StatusCount struct {
	Status string
	Count  int64
}

// TextSummary extracts the text output's numbers from the run's
// histograms, with the given percentiles.
func (r *RunResult) TextSummary(percentiles []float64) *TextSummary {
	s := &TextSummary{
		RuntimeMillis:         r.RuntimeMillis,
		Operations:            r.Operations,
		FailedBufferedInserts: r.FailedBufferedInserts,
		Interval:              r.Interval,
		Ops:                   opSummaries(r.Ops, percentiles),
	}
	if w := r.Warmup; w != nil {
		s.Warmup = &WarmupSummary{RuntimeMillis: w.End.Sub(w.Start).Milliseconds(), Operations: w.Operations,
			Ops: opSummaries(w.Ops, percentiles)}
	}
	return s
}

func opSummaries(ms []OpMeasurement, percentiles []float64) []OpSummary {
	out := make([]OpSummary, 0, len(ms))
	for _, m := range ms {
		op := OpSummary{Name: m.Op.String()}
		op.OK, op.Failed = latencySummaries(m.OK, m.Failed, percentiles)
		if m.IntendedOK != nil || m.IntendedFailed != nil {
			op.IntendedOK, op.IntendedFailed = latencySummaries(m.IntendedOK, m.IntendedFailed, percentiles)
		}
		for st, n := range m.Statuses {
			if n > 0 {
				op.Returns = append(op.Returns, StatusCount{Status: Status(st).String(), Count: n})
			}
		}
		out = append(out, op)
	}
	return out
}

// latencySummaries summarises a measurement and its failures' (nil when
// none failed).
func latencySummaries(ok, failed *results.Histogram, percentiles []float64) (LatencySummary, *LatencySummary) {
	if ok == nil {
		ok = results.NewHistogram()
	}
	s := latencySummary(ok, percentiles)
	if failed.Count() == 0 {
		return s, nil
	}
	f := latencySummary(failed, percentiles)
	return s, &f
}

// ResultTextSummary extracts the text output's numbers from a stored
// result: one loader's, or the exact merge of a phase's loaders (the
// controller keeps that text for each phase of a run, in its diagnostics). For one loader it is the summary
// the loader printed.
func ResultTextSummary(r *results.Result, percentiles []float64) *TextSummary {
	s := &TextSummary{RuntimeMillis: r.RuntimeMillis, Operations: r.Operations, FailedBufferedInserts: r.LostInserts,
		Interval: IntervalOp}
	if r.MeasurementInterval != results.IntervalOp {
		s.Interval, _ = ParseMeasurementInterval(r.MeasurementInterval)
	}
	s.Ops = resultOpSummaries(r.Ops, percentiles, s.Interval.Intended())
	if w := r.Warmup; w != nil {
		s.Warmup = &WarmupSummary{RuntimeMillis: w.End.Sub(w.Start).Milliseconds(), Operations: w.Operations,
			Ops: resultOpSummaries(w.Ops, percentiles, s.Interval.Intended())}
	}
	return s
}

func resultOpSummaries(ops []results.OpResult, percentiles []float64, intended bool) []OpSummary {
	out := make([]OpSummary, 0, len(ops))
	for i := range ops {
		op := &ops[i]
		sum := OpSummary{Name: op.Name, Returns: SortedStatusCounts(op.Statuses)}
		sum.OK, sum.Failed = latencySummaries(op.Latency, op.Failed, percentiles)
		if intended {
			sum.IntendedOK, sum.IntendedFailed = latencySummaries(op.Intended, op.IntendedFailed, percentiles)
		}
		out = append(out, sum)
	}
	return out
}

func latencySummary(h *results.Histogram, percentiles []float64) LatencySummary {
	st := h.Stats()
	l := LatencySummary{Operations: st.Count, AverageMicros: st.Mean, MinMicros: st.Min, MaxMicros: st.Max}
	for _, p := range percentiles {
		l.Percentiles = append(l.Percentiles, PercentileValue{Percentile: p, Micros: h.Percentile(p)})
	}
	return l
}

// SortedStatusCounts orders counts keyed by YCSB status name ("OK",
// "NOT_FOUND", ...) the way the report prints them: YCSB's Status order,
// then unknown names sorted. Zero counts are dropped.
func SortedStatusCounts(counts map[string]int64) []StatusCount {
	rank := func(name string) int {
		for i, n := range statusNames {
			if n == name {
				return i
			}
		}
		return len(statusNames)
	}
	var out []StatusCount
	for name, n := range counts {
		if n != 0 {
			out = append(out, StatusCount{Status: name, Count: n})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		ri, rj := rank(out[i].Status), rank(out[j].Status)
		if ri != rj {
			return ri < rj
		}
		return out[i].Status < out[j].Status
	})
	return out
}

// WriteTextSummary writes YCSB's text exporter output, line for line in YCSB's
// format ("[NAME], Metric, value", Java number formatting): [OVERALL]
// RunTime and Throughput, then for each operation its "<OP>" block
// (Operations, AverageLatency, Min, Max, the percentiles) with its
// Return=<STATUS> counts, followed by its "<OP>-FAILED" block. Operations
// come in the summary's order (YCSB prints them in hash-map order). YCSB's
// JVM lines (TOTAL_GCS_*, TOTAL_GC_TIME*) are not printed: there is no JVM.
// CLEANUP has no Return lines, as in YCSB. When buffered inserts were lost
// in the final flush, an extra line "[INSERT], FailedBufferedInserts, n"
// says so (YCSB loses such inserts without a word).
func WriteTextSummary(w io.Writer, s *TextSummary) error {
	bw := bufio.NewWriter(w)
	line := func(name, metric, value string) {
		// bufio.Writer keeps the first error; Flush below returns it.
		_, _ = bw.WriteString("[" + name + "], " + metric + ", " + value + "\n")
	}
	itoa := func(n int64) string { return strconv.FormatInt(n, 10) }

	line("OVERALL", "RunTime(ms)", itoa(s.RuntimeMillis))
	line("OVERALL", "Throughput(ops/sec)", FormatJavaDouble(s.Throughput()))
	block := func(name string, l *LatencySummary) {
		line(name, "Operations", itoa(l.Operations))
		line(name, "AverageLatency(us)", FormatJavaDouble(l.AverageMicros))
		line(name, "MinLatency(us)", itoa(l.MinMicros))
		line(name, "MaxLatency(us)", itoa(l.MaxMicros))
		for _, p := range l.Percentiles {
			line(name, percentileName(p.Percentile), itoa(p.Micros))
		}
	}
	// ops prints YCSB's blocks of one map of measurements: "<OP>" with its
	// Return lines when asked, then "<OP>-FAILED".
	ops := func(prefix string, list []OpSummary, intended, returns bool) {
		for i := range list {
			op := &list[i]
			ok, failed := &op.OK, op.Failed
			if intended {
				ok, failed = &op.IntendedOK, op.IntendedFailed
			}
			var n int64
			for _, r := range op.Returns {
				n += r.Count
			}
			if ok.Operations > 0 || (returns && n > 0) {
				block(prefix+op.Name, ok)
				if returns && op.Name != OpCleanup.String() {
					for _, r := range op.Returns {
						if r.Count > 0 {
							line(prefix+op.Name, "Return="+r.Status, itoa(r.Count))
						}
					}
				}
			}
			if failed != nil && failed.Operations > 0 {
				block(prefix+op.Name+"-FAILED", failed)
			}
		}
	}
	// YCSB's Measurements.exportMeasurements: the op map, then the
	// intended map. With measurement.interval intended only the latter
	// exists, under the operations' own names and with the Return lines;
	// with both, it follows as "Intended-<OP>" without them.
	switch s.Interval {
	case IntervalIntended:
		ops("", s.Ops, true, true)
	case IntervalBoth:
		ops("", s.Ops, false, true)
		ops(IntendedPrefix, s.Ops, true, false)
	default:
		ops("", s.Ops, false, true)
	}
	if s.FailedBufferedInserts > 0 {
		line(OpInsert.String(), "FailedBufferedInserts", itoa(s.FailedBufferedInserts))
	}
	if w := s.Warmup; w != nil {
		// Not YCSB's: the warm-up, after everything YCSB prints, under
		// names of its own.
		line("WARMUP", "RunTime(ms)", itoa(w.RuntimeMillis))
		line("WARMUP", "Operations", itoa(w.Operations))
		ops(WarmupPrefix, w.Ops, false, true)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
