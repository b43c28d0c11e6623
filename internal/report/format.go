package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// Format is an output format of the report.
type Format string

// Formats.
const (
	FormatMarkdown Format = "md"
	FormatCSV      Format = "csv"
	FormatJSON     Format = "json"
	FormatHTML     Format = "html"
)

// Formats lists the formats, the default first.
func Formats() []Format { return []Format{FormatMarkdown, FormatCSV, FormatJSON, FormatHTML} }

// Options choose what the tables show.
type Options struct {
	// Axis is the axis whose values are the columns of the pivot tables
	// (default: the first axis). With more axes there is one table per
	// combination of the other axes' values.
	Axis string
}

// Write renders the study in format f.
func Write(w io.Writer, s *Study, f Format, o Options) error {
	switch f {
	case FormatMarkdown:
		return Markdown(w, s, o)
	case FormatCSV:
		return CSV(w, s)
	case FormatJSON:
		return JSON(w, s)
	case FormatHTML:
		return HTML(w, s, o)
	}
	return fmt.Errorf("unknown report format %q", f)
}

// metric is one number of a cell's phase aggregate, as the pivot tables
// and charts show it.
type metric struct {
	Title string // table heading
	Unit  string // chart axis label
	value func(*benchv1.SweepPhaseStats) float64
	// change is the % against the baseline (NaN: none).
	change   func(s *Study, c *Cell, r *benchv1.SweepPhaseStats) float64
	decimals int
	// cov adds the throughput's coefficient of variation.
	cov bool
	// shown, when set, keeps a pivot table to the phases it is true of:
	// the others would be rows of dashes.
	shown func(s *Study, phase string) bool
}

var (
	metricThroughput = metric{
		Title: "Throughput (ops/s)", Unit: "throughput (ops/s)",
		value:  func(r *benchv1.SweepPhaseStats) float64 { return r.MedianThroughput },
		change: func(_ *Study, _ *Cell, r *benchv1.SweepPhaseStats) float64 { return orNaN(r.ThroughputChangePercent) },
		cov:    true,
	}
	metricP99 = metric{
		Title: "p99 latency (µs)", Unit: "p99 latency (µs)",
		value:  func(r *benchv1.SweepPhaseStats) float64 { return r.MedianP99Micros },
		change: func(_ *Study, _ *Cell, r *benchv1.SweepPhaseStats) float64 { return orNaN(r.P99ChangePercent) },
	}
	metricMean = metric{
		Title: "Mean latency (µs)", Unit: "mean latency (µs)",
		value:    func(r *benchv1.SweepPhaseStats) float64 { return r.MedianMeanMicros },
		change:   func(s *Study, c *Cell, r *benchv1.SweepPhaseStats) float64 { return s.meanChange(c, r.Name) },
		decimals: 1,
	}
	// metricIntendedP99 is NaN ("-") for a phase that measured no
	// intended latencies.
	metricIntendedP99 = metric{
		Title: "Intended p99 latency (µs)", Unit: "intended p99 latency (µs)",
		value:  intendedP99,
		change: func(s *Study, c *Cell, r *benchv1.SweepPhaseStats) float64 { return s.intendedChange(c, r.Name) },
		shown:  (*Study).phaseMeasuresIntended,
	}
	// metricReplicationLag is a maximum, not a median, and has no change
	// against the baseline: a worst case of a few samples is no measure
	// of a cell to compare in %.
	metricReplicationLag = metric{
		Title: "Maximum replication lag (ms)", Unit: "replication lag (ms)",
		value:  replicationLag,
		change: func(*Study, *Cell, *benchv1.SweepPhaseStats) float64 { return math.NaN() },
		shown:  (*Study).phaseReplicates,
	}
)

// pivotMetrics are the metrics of the pivot tables: the intended p99
// after the p99 when a phase measured it, the replication lag last when a
// phase has one.
func (s *Study) pivotMetrics() []metric {
	out := []metric{metricThroughput, metricP99, metricMean}
	if s.measuresIntended() {
		out = []metric{metricThroughput, metricP99, metricIntendedP99, metricMean}
	}
	// The lag comes after the latencies it may explain (a w:majority
	// write waits for a SECONDARY), and only for studies with replica
	// sets of several members.
	if s.replicates() {
		out = append(out, metricReplicationLag)
	}
	return out
}

// pivotCell is what a pivot table shows for a cell's phase:
// "41,230 (+175.0%) ±1.2%", "15,000 (baseline)", "no valid run" (a cell
// whose runs succeeded but are all invalid) or "-".
func (s *Study) pivotCell(m metric, c *Cell, phase string) string {
	if c == nil {
		return "-"
	}
	if c.withoutValidRun() {
		return "no valid run"
	}
	r := c.Result(phase)
	if r == nil || math.IsNaN(m.value(r)) {
		return "-"
	}
	out := number(m.value(r), m.decimals)
	switch ch := m.change(s, c, r); {
	case s.isBaseline(c):
		out += " (baseline)"
	case !math.IsNaN(ch):
		out += " (" + percent(ch) + ")"
	}
	if m.cov && r.ThroughputCoVPercent != nil {
		out += " ±" + strconv.FormatFloat(*r.ThroughputCoVPercent, 'f', 1, 64) + "%"
	}
	return out
}

// number formats v with a thousands separator and fixed decimals.
func number(v float64, decimals int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for i, d := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	if hasFrac {
		b.WriteString("." + frac)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// median formats a median of integers: exact, so x.5 keeps its half.
func median(v float64) string {
	if v == math.Trunc(v) {
		return number(v, 0)
	}
	return number(v, 1)
}

// wholeMedian formats the median of whole counts as whole numbers: the
// middle count, or, where an even number of them has no middle one, the
// two middle counts ("14,720 / 14,721"; with two counts, both). A count's
// median of 14,720.5 operations would be a number no run measured.
func wholeMedian(counts []float64) string {
	if len(counts) == 0 {
		return "-"
	}
	xs := slices.Sorted(slices.Values(counts))
	lo, hi := xs[(len(xs)-1)/2], xs[len(xs)/2]
	if lo == hi {
		return number(lo, 0)
	}
	return number(lo, 0) + " / " + number(hi, 0)
}

// percent formats a change: "+175.0%", "-3.2%", never "-0.0%".
func percent(p float64) string {
	s := strconv.FormatFloat(p, 'f', 1, 64)
	if s == "-0.0" {
		s = "0.0"
	}
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s + "%"
}

func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// plain formats a float for machines (CSV): shortest exact form.
func plain(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
