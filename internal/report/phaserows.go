package report

import (
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/stats"
)

// A run's phase results as CSV rows, encoded once for the two CSVs that
// hold them: the report's (CSV: a row per cell, repetition, phase and
// operation) and `kubectl mongobench results -o csv` (one run's). Each
// puts its own columns around them (the study, cell and axes, or the
// run's namespace; the Valid condition first or last), which is why each
// has its own header, but a phase's rows and their numbers are the same.

// Names of a phase's rows beside its operations'.
const (
	// RowOverall is the row of a phase's own numbers (YCSB's [OVERALL]).
	RowOverall = "OVERALL"
	// RowWarmup is the row of a phase's warm-up ([WARMUP]); its
	// operations' rows are RowWarmup-<OP> ([WARMUP-READ]).
	RowWarmup = "WARMUP"
	// RowLoader is a row of one loader's figures.
	RowLoader = "LOADER"
	// RowDisruption is a row of one of the phase's disruptions
	// (DisruptionColumns).
	RowDisruption = "DISRUPTION"
)

// Column groups of PhaseRow, as both CSVs' headers name them.
var (
	// MeasuredColumns are PhaseRow.Measured's.
	MeasuredColumns = []string{"count", "errors", "ops_per_sec", "runtime_ms", "avg_us", "min_us", "max_us", "p50_us", "p95_us",
		"p99_us", "p999_us"}
	// IntendedColumns are PhaseRow.Intended's.
	IntendedColumns = []string{"intended_avg_us", "intended_min_us", "intended_max_us", "intended_p50_us", "intended_p95_us",
		"intended_p99_us", "intended_p999_us"}
)

// DisruptionColumns are PhaseRow.Disruption's: a disruption as status
// has it (status.results[].disruptions[]), times in µs from its instant.
// disruption is its index in spec.phases[].disruptions; instant and sent
// are RFC 3339 UTC with microseconds; write_*, read_* and new_primary_*
// are the maximum and median over the loaders that measured one, how
// many did (loaders) and how many did not (never_recovered, missing);
// disruption_errors is the operations that failed in the 30 s after the
// instant and error_labels their labels ("NotWritablePrimary=120;..."),
// most frequent first; before_* and after_* are the phase's throughput
// and p99 before the instant and once it recovered, over before_ms and
// after_ms. A figure the disruption does not have is empty.
var DisruptionColumns = []string{"disruption", "action", "at_ms", "instant", "outcome", "sent", "action_us", "action_error", "primary",
	"write_unavailable_max_us", "write_unavailable_median_us", "write_loaders", "write_never_recovered",
	"read_unavailable_max_us", "read_unavailable_median_us", "read_loaders", "read_never_recovered",
	"new_primary_max_us", "new_primary_median_us", "new_primary_loaders", "new_primary_missing", "new_primary_telemetry_us",
	"disruption_errors", "error_labels", "retried", "retried_ok",
	"before_ms", "before_ops_per_sec", "before_p99_us", "after_ms", "after_ops_per_sec", "after_p99_us"}

// loaderColumns is the number of PhaseRow.Loader's columns: start_skew_ms,
// loader, the loader's pod, connections, connect_ms, cpu_percent,
// cpu_limit, throttled_percent (the CSVs name the pod's column apart).
const loaderColumns = 8

// PhaseRow is one row of a phase's results.
type PhaseRow struct {
	// Operation is RowOverall, an operation (READ, ...), RowWarmup,
	// RowWarmup-<OP> or RowLoader.
	Operation string
	// Measured fills MeasuredColumns. An OVERALL or WARMUP row has count
	// (the phase's operations), ops_per_sec, runtime_ms and p99_us; an
	// operation's row all of them, ops_per_sec its count over the phase's
	// (or warm-up's) runtime; a LOADER row runtime_ms only.
	Measured []string
	// Intended fills IntendedColumns: an operation's intended latencies,
	// on an OVERALL row the phase's intended p99; empty strings for none.
	Intended []string
	// Loader fills the loader columns: start_skew_ms on an OVERALL row,
	// the rest on a LOADER row; empty strings for none.
	Loader []string
	// Disruption fills DisruptionColumns on a DISRUPTION row; nil on the
	// others. A CSV has those columns only when a phase has disruptions,
	// so the CSV of a run without any is what it was before they existed.
	Disruption []string
}

// PhaseRows are a phase's rows: OVERALL, one per operation, with a
// warm-up WARMUP and one per WARMUP-<OP>, then a LOADER row per loader
// that reported its figures, then a DISRUPTION row per disruption (its
// measurement, intended and loader columns empty).
func PhaseRows(p *benchv1.PhaseResult) []PhaseRow {
	i64 := func(n int64) string { return strconv.FormatInt(n, 10) }
	opt := func(v *int64) string {
		if v == nil {
			return ""
		}
		return i64(*v)
	}
	optf := func(v *float64) string {
		if v == nil {
			return ""
		}
		return plain(*v)
	}
	none := func(n int) []string { return make([]string, n) }
	rows := []PhaseRow{{Operation: RowOverall,
		Measured: []string{i64(p.Operations), "", plain(p.Throughput), i64(p.RuntimeMillis), "", "", "", "", "", i64(p.P99Micros), ""},
		Intended: []string{"", "", "", "", "", opt(p.IntendedP99Micros), ""},
		Loader:   append([]string{opt(p.StartSkewMillis)}, none(loaderColumns-1)...)}}
	ops := func(prefix string, list []benchv1.OperationResult, runtimeMillis int64) {
		for _, op := range list {
			r := PhaseRow{Operation: prefix + op.Name, Measured: []string{i64(op.Count), i64(op.Errors),
				plain(stats.OpsPerSec(op.Count, runtimeMillis)), i64(runtimeMillis), plain(op.AverageMicros),
				i64(op.MinMicros), i64(op.MaxMicros), i64(op.P50Micros), i64(op.P95Micros), i64(op.P99Micros), i64(op.P999Micros)},
				Intended: none(len(IntendedColumns)), Loader: none(loaderColumns)}
			if it := op.Intended; it != nil {
				r.Intended = []string{plain(it.AverageMicros), i64(it.MinMicros), i64(it.MaxMicros), i64(it.P50Micros), i64(it.P95Micros),
					i64(it.P99Micros), i64(it.P999Micros)}
			}
			rows = append(rows, r)
		}
	}
	ops("", p.OperationStats, p.RuntimeMillis)
	if wu := p.Warmup; wu != nil {
		rows = append(rows, PhaseRow{Operation: RowWarmup,
			Measured: []string{i64(wu.Operations), "", plain(wu.Throughput), i64(wu.RuntimeMillis), "", "", "", "", "", i64(wu.P99Micros), ""},
			Intended: none(len(IntendedColumns)), Loader: none(loaderColumns)})
		ops(RowWarmup+"-", wu.OperationStats, wu.RuntimeMillis)
	}
	for _, l := range p.LoaderStats {
		rows = append(rows, PhaseRow{Operation: RowLoader,
			Measured: []string{"", "", "", i64(p.RuntimeMillis), "", "", "", "", "", "", ""},
			Intended: none(len(IntendedColumns)),
			Loader: []string{"", strconv.Itoa(int(l.Index)), l.Pod, strconv.Itoa(int(l.Connections)), i64(l.ConnectMillis),
				optf(l.CPUPercent), l.CPULimit, optf(l.ThrottledPercent)}})
	}
	for i := range p.Disruptions {
		rows = append(rows, PhaseRow{Operation: RowDisruption, Measured: none(len(MeasuredColumns)), Intended: none(len(IntendedColumns)),
			Loader: none(loaderColumns), Disruption: disruptionColumns(&p.Disruptions[i])})
	}
	return rows
}

// disruptionColumns are a disruption's DisruptionColumns.
func disruptionColumns(d *benchv1.DisruptionResult) []string {
	i64 := func(n int64) string { return strconv.FormatInt(n, 10) }
	opt := func(v *int64) string {
		if v == nil {
			return ""
		}
		return i64(*v)
	}
	at := func(t *metav1.MicroTime) string {
		if t == nil || t.IsZero() {
			return ""
		}
		return t.UTC().Format(microRFC3339)
	}
	times := func(t *benchv1.LoaderTimes) []string {
		if t == nil {
			return make([]string, 4)
		}
		out := []string{"", "", strconv.Itoa(int(t.Loaders)), strconv.Itoa(int(t.Missing))}
		if t.Loaders > 0 {
			out[0], out[1] = i64(t.MaxMicros), i64(t.MedianMicros)
		}
		return out
	}
	perf := func(p *benchv1.DisruptionPerformance) []string {
		if p == nil {
			return make([]string, 3)
		}
		return []string{i64(p.Millis), plain(p.Throughput), i64(p.P99Micros)}
	}
	var total int64
	labels := make([]string, 0, len(d.Errors))
	for _, e := range d.Errors {
		total += e.Count
		labels = append(labels, e.Label+"="+i64(e.Count))
	}
	o := &d.Outcome
	out := []string{strconv.Itoa(int(d.Index)), d.ActionLabel(), i64(d.At.Milliseconds()), at(&d.Instant), string(o.State), at(o.Sent),
		opt(o.DurationMicros), o.Error, o.Primary}
	out = append(out, times(d.WriteUnavailable)...)
	out = append(out, times(d.ReadUnavailable)...)
	out = append(out, times(d.NewPrimary)...)
	if o.State == benchv1.DisruptionNotReached {
		// Nothing was sent, so nothing failed or was retried because of it.
		out = append(out, opt(d.NewPrimaryTelemetryMicros), "", "", "", "")
	} else {
		out = append(out, opt(d.NewPrimaryTelemetryMicros), i64(total), strings.Join(labels, ";"), i64(d.Retried), i64(d.RetriedOK))
	}
	out = append(out, perf(d.Before)...)
	return append(out, perf(d.After)...)
}

// microRFC3339 is RFC 3339 with microseconds, the precision of an
// instant in status (metav1.MicroTime).
const microRFC3339 = "2006-01-02T15:04:05.000000Z07:00"
