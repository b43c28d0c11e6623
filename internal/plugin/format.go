package plugin

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
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
// phase's own numbers (YCSB's [OVERALL]).
const overallRow = "OVERALL"

// writeTable prints an aligned table like kubectl's: per phase an OVERALL
// row (operations, throughput, runtime, p99 of all database calls) and a
// row per operation type. "-" marks a value that does not exist for the
// row.
func writeTable(w io.Writer, doc *resultsDoc) error {
	tw := printers.GetNewTabWriter(w)
	// The tab writer buffers everything; Flush reports a write error.
	_, _ = fmt.Fprintln(tw, "PHASE\tOPERATION\tCOUNT\tERRORS\tOPS/S\tRUNTIME\tAVG(us)\tP50(us)\tP95(us)\tP99(us)\tP99.9(us)")
	for _, ph := range doc.Phases {
		_, _ = fmt.Fprintf(tw, "%s\t%s\t%d\t-\t%s\t%s\t-\t-\t-\t%d\t-\n",
			ph.Name, overallRow, ph.Count, fixed2(ph.OpsPerSec), time.Duration(ph.RuntimeMillis)*time.Millisecond, ph.P99Micros)
		for _, op := range ph.Operations {
			_, _ = fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t-\t%s\t%d\t%d\t%d\t%d\n",
				ph.Name, op.Name, op.Count, op.Errors, fixed2(op.OpsPerSec), fixed2(op.AvgMicros),
				op.P50Micros, op.P95Micros, op.P99Micros, op.P999Micros)
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
}

// writeCSV prints one row per phase and operation, after an OVERALL row
// per phase whose per-operation columns are empty. runtime_ms is the
// phase's on every row, so ops_per_sec = count*1000/runtime_ms can be
// checked row by row.
func writeCSV(w io.Writer, doc *resultsDoc) error {
	cw := csv.NewWriter(w)
	i := func(n int64) string { return strconv.FormatInt(n, 10) }
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	rows := [][]string{csvHeader}
	for _, ph := range doc.Phases {
		rows = append(rows, []string{
			doc.Namespace, doc.Name, ph.Name, string(ph.Type), overallRow, i(ph.Count), "", f(ph.OpsPerSec), i(ph.RuntimeMillis),
			"", "", "", "", "", i(ph.P99Micros), "",
		})
		for _, op := range ph.Operations {
			rows = append(rows, []string{
				doc.Namespace, doc.Name, ph.Name, string(ph.Type), op.Name, i(op.Count), i(op.Errors), f(op.OpsPerSec), i(ph.RuntimeMillis),
				f(op.AvgMicros), i(op.MinMicros), i(op.MaxMicros), i(op.P50Micros), i(op.P95Micros), i(op.P99Micros), i(op.P999Micros),
			})
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
