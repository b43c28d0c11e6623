package ycsb

import (
	"bufio"
	"fmt"
	"io"
	"math"
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

// WriteReport writes YCSB's text exporter output for the run, line for line
// in YCSB's format ("[NAME], Metric, value", Java number formatting):
// [OVERALL] RunTime and Throughput, then for each measurement Operations,
// AverageLatency, Min, Max, the configured percentiles, and for "<OP>"
// measurements their Return=<STATUS> counts. Measurements come in the fixed
// order of Ops, each "<OP>" followed by its "<OP>-FAILED" (YCSB prints them
// in hash-map order). YCSB's JVM lines (TOTAL_GCS_*, TOTAL_GC_TIME*) are not
// printed: there is no JVM. CLEANUP has no Return lines, as in YCSB. When
// buffered inserts were lost in the final flush, an extra line
// "[INSERT], FailedBufferedInserts, n" says so (YCSB loses such inserts
// without a word).
func WriteReport(w io.Writer, r *RunResult, percentiles []float64) error {
	bw := bufio.NewWriter(w)
	line := func(name, metric, value string) {
		// bufio.Writer keeps the first error; Flush below returns it.
		_, _ = bw.WriteString("[" + name + "], " + metric + ", " + value + "\n")
	}
	itoa := func(n int64) string { return strconv.FormatInt(n, 10) }

	line("OVERALL", "RunTime(ms)", itoa(r.RuntimeMillis))
	line("OVERALL", "Throughput(ops/sec)", FormatJavaDouble(r.Throughput()))
	block := func(name string, h *results.Histogram) {
		s := h.Stats()
		line(name, "Operations", itoa(s.Count))
		line(name, "AverageLatency(us)", FormatJavaDouble(s.Mean))
		line(name, "MinLatency(us)", itoa(s.Min))
		line(name, "MaxLatency(us)", itoa(s.Max))
		for _, p := range percentiles {
			line(name, percentileName(p), itoa(h.Percentile(p)))
		}
	}
	for _, m := range r.Ops {
		if m.OK.Count() > 0 || m.Statuses.Total() > 0 {
			block(m.Op.String(), m.OK)
			if m.Op != OpCleanup {
				for s, n := range m.Statuses {
					if n > 0 {
						line(m.Op.String(), "Return="+Status(s).String(), itoa(n))
					}
				}
			}
		}
		if m.Failed.Count() > 0 {
			block(m.Op.FailedName(), m.Failed)
		}
	}
	if r.FailedBufferedInserts > 0 {
		line(OpInsert.String(), "FailedBufferedInserts", itoa(r.FailedBufferedInserts))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
