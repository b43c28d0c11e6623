package plugin

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/cli-runtime/pkg/printers"
)

// Output formats of the results command.
const (
	outputTable = "table"
	outputJSON  = "json"
	outputCSV   = "csv"
	outputYCSB  = "ycsb"
)

var outputFormats = []string{outputTable, outputJSON, outputCSV, outputYCSB}

// overallRow names the per-phase row of the table and CSV that holds the
// phase's own numbers (YCSB's [OVERALL]); warmupRow the row of its
// warm-up's ([WARMUP]), whose operations' rows are named warmupRow-<OP>
// as YCSB-style reports name them ([WARMUP-READ]); loaderRow the CSV
// rows of each loader's figures.
const (
	overallRow = "OVERALL"
	warmupRow  = "WARMUP"
	loaderRow  = "LOADER"
)

// writeTable prints aligned tables like kubectl's. The results: per phase
// an OVERALL row (operations, throughput, runtime, p99 of all database
// calls), a row per operation type, and with a warm-up a WARMUP row and a
// WARMUP-<OP> row per operation; an INTENDED-P99(us) column when a phase
// measured intended latencies. Then, when the loaders reported them,
// their figures (connections, CPU use and throttling, each phase's start
// skew), and the run's Valid condition. "-" marks a value that does not
// exist for the row.
func writeTable(w io.Writer, doc *resultsDoc) error {
	tw := printers.GetNewTabWriter(w)
	intended := doc.measuresIntended()
	// The tab writer buffers everything; Flush reports a write error.
	row := func(cells []string, intendedP99 string) {
		if intended {
			cells = append(cells, intendedP99)
		}
		_, _ = fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	d := func(n int64) string { return strconv.FormatInt(n, 10) }
	dur := func(ms int64) string { return (time.Duration(ms) * time.Millisecond).String() }
	ops := func(phase, prefix string, list []operationDoc) {
		for _, op := range list {
			it := "-"
			if op.Intended != nil {
				it = d(op.Intended.P99Micros)
			}
			row([]string{phase, prefix + op.Name, d(op.Count), d(op.Errors), fixed2(op.OpsPerSec), "-", fixed2(op.AvgMicros),
				d(op.P50Micros), d(op.P95Micros), d(op.P99Micros), d(op.P999Micros)}, it)
		}
	}
	row([]string{"PHASE", "OPERATION", "COUNT", "ERRORS", "OPS/S", "RUNTIME", "AVG(us)", "P50(us)", "P95(us)", "P99(us)", "P99.9(us)"}, "INTENDED-P99(us)")
	for _, ph := range doc.Phases {
		it := "-"
		if ph.IntendedP99Micros != nil {
			it = d(*ph.IntendedP99Micros)
		}
		row([]string{ph.Name, overallRow, d(ph.Count), "-", fixed2(ph.OpsPerSec), dur(ph.RuntimeMillis), "-", "-", "-", d(ph.P99Micros), "-"}, it)
		ops(ph.Name, "", ph.Operations)
		if wu := ph.Warmup; wu != nil {
			row([]string{ph.Name, warmupRow, d(wu.Count), "-", fixed2(wu.OpsPerSec), dur(wu.RuntimeMillis), "-", "-", "-", d(wu.P99Micros), "-"}, "-")
			ops(ph.Name, warmupRow+"-", wu.Operations)
		}
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	if err := writeLoaderTable(w, doc); err != nil {
		return err
	}
	if v := doc.Valid; v != nil {
		tw = printers.GetNewTabWriter(w)
		_, _ = fmt.Fprintf(tw, "\nVALID\tREASON\tMESSAGE\n%s\t%s\t%s\n", v.Status, v.Reason, v.Message)
		if err := tw.Flush(); err != nil {
			return fmt.Errorf("write table: %w", err)
		}
	}
	return nil
}

// writeLoaderTable prints each loader's figures per phase, after a blank
// line, when any phase has them: connections opened before the clock
// started and how long that took, CPU use over the measured window in %
// of what the loader may use (CPU-LIMIT), the time its CPU quota
// throttled it in % of the window, and the phase's start skew.
func writeLoaderTable(w io.Writer, doc *resultsDoc) error {
	has := false
	for _, ph := range doc.Phases {
		has = has || len(ph.LoaderStats) > 0
	}
	if !has {
		return nil
	}
	pct := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return fixed2(*p) + "%"
	}
	tw := printers.GetNewTabWriter(w)
	_, _ = fmt.Fprintln(tw, "\nPHASE\tLOADER\tPOD\tCONNECTIONS\tCONNECT\tCPU\tCPU-LIMIT\tTHROTTLED\tSTART-SKEW")
	for _, ph := range doc.Phases {
		skew := "-"
		if ph.StartSkewMillis != nil {
			skew = (time.Duration(*ph.StartSkewMillis) * time.Millisecond).String()
		}
		for _, l := range ph.LoaderStats {
			_, _ = fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", ph.Name, l.Index, orDash(l.Pod), l.Connections,
				time.Duration(l.ConnectMillis)*time.Millisecond, pct(l.CPUPercent), orDash(l.CPULimit), pct(l.ThrottledPercent), skew)
		}
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	return nil
}

// csvHeader is the header row of "results -o csv". Columns are only ever
// appended, so scripts may address them by position.
var csvHeader = []string{
	"namespace", "run", "phase", "type", "operation", "count", "errors", "ops_per_sec", "runtime_ms",
	"avg_us", "min_us", "max_us", "p50_us", "p95_us", "p99_us", "p999_us",
	"intended_avg_us", "intended_min_us", "intended_max_us", "intended_p50_us", "intended_p95_us", "intended_p99_us", "intended_p999_us",
	"start_skew_ms", "loader", "pod", "connections", "connect_ms", "cpu_percent", "cpu_limit", "throttled_percent",
	"valid", "valid_reason",
}

// writeCSV prints one row per phase and operation, after an OVERALL row
// per phase whose per-operation columns are empty; with a warm-up, a
// WARMUP row and a WARMUP-<OP> row per operation; then a LOADER row per
// loader that reported its figures (loader to throttled_percent, the
// other measurement columns empty). runtime_ms is the phase's on every
// row (the warm-up's on its rows), so ops_per_sec = count*1000/runtime_ms
// can be checked row by row. The intended_* columns hold an operation's
// intended latencies (intended_p99_us on OVERALL rows: the phase's),
// start_skew_ms is on OVERALL rows, and valid and valid_reason (the run's
// Valid condition) are on every row.
func writeCSV(w io.Writer, doc *resultsDoc) error {
	cw := csv.NewWriter(w)
	i := func(n int64) string { return strconv.FormatInt(n, 10) }
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	opt := func(p *int64) string {
		if p == nil {
			return ""
		}
		return i(*p)
	}
	optf := func(p *float64) string {
		if p == nil {
			return ""
		}
		return f(*p)
	}
	valid := []string{"", ""}
	if v := doc.Valid; v != nil {
		valid = []string{v.Status, v.Reason}
	}
	const intendedCols, loaderCols = 7, 8
	rows := [][]string{csvHeader}
	row := func(ph *phaseDoc, op string, measured, intended, loader []string) {
		r := append([]string{doc.Namespace, doc.Name, ph.Name, string(ph.Type), op}, measured...)
		if intended == nil {
			intended = make([]string, intendedCols)
		}
		if loader == nil {
			loader = make([]string, loaderCols)
		}
		rows = append(rows, slices.Concat(r, intended, loader, valid))
	}
	ops := func(ph *phaseDoc, prefix string, list []operationDoc, runtimeMillis int64) {
		for _, op := range list {
			var intended []string
			if it := op.Intended; it != nil {
				intended = []string{f(it.AvgMicros), i(it.MinMicros), i(it.MaxMicros), i(it.P50Micros), i(it.P95Micros), i(it.P99Micros), i(it.P999Micros)}
			}
			row(ph, prefix+op.Name, []string{i(op.Count), i(op.Errors), f(op.OpsPerSec), i(runtimeMillis),
				f(op.AvgMicros), i(op.MinMicros), i(op.MaxMicros), i(op.P50Micros), i(op.P95Micros), i(op.P99Micros), i(op.P999Micros)}, intended, nil)
		}
	}
	for pi := range doc.Phases {
		ph := &doc.Phases[pi]
		row(ph, overallRow, []string{i(ph.Count), "", f(ph.OpsPerSec), i(ph.RuntimeMillis), "", "", "", "", "", i(ph.P99Micros), ""},
			[]string{"", "", "", "", "", opt(ph.IntendedP99Micros), ""}, []string{opt(ph.StartSkewMillis), "", "", "", "", "", "", ""})
		ops(ph, "", ph.Operations, ph.RuntimeMillis)
		if wu := ph.Warmup; wu != nil {
			row(ph, warmupRow, []string{i(wu.Count), "", f(wu.OpsPerSec), i(wu.RuntimeMillis), "", "", "", "", "", i(wu.P99Micros), ""}, nil, nil)
			ops(ph, warmupRow+"-", wu.Operations, wu.RuntimeMillis)
		}
		for _, l := range ph.LoaderStats {
			row(ph, loaderRow, []string{"", "", "", i(ph.RuntimeMillis), "", "", "", "", "", "", ""}, nil,
				[]string{"", strconv.Itoa(int(l.Index)), l.Pod, strconv.Itoa(int(l.Connections)), i(l.ConnectMillis),
					optf(l.CPUPercent), l.CPULimit, optf(l.ThrottledPercent)})
		}
	}
	if err := cw.WriteAll(rows); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}

// writeJSON prints the results document, indented, with a final newline.
func writeJSON(w io.Writer, doc *resultsDoc) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}

func fixed2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
