package report

import (
	"strconv"

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
}

// PhaseRows are a phase's rows: OVERALL, one per operation, with a
// warm-up WARMUP and one per WARMUP-<OP>, then a LOADER row per loader
// that reported its figures.
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
	return rows
}
