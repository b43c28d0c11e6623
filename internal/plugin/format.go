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

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/cli-runtime/pkg/printers"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/report"
)

// Output formats of the results command.
const (
	outputTable = "table"
	outputJSON  = "json"
	outputCSV   = "csv"
	outputYCSB  = "ycsb"
)

var outputFormats = []string{outputTable, outputJSON, outputCSV, outputYCSB}

// writeTable prints aligned tables like kubectl's. The results: per phase
// an OVERALL row (operations, throughput, runtime, p99 of all database
// calls), a row per operation type, and with a warm-up a WARMUP row and a
// WARMUP-<OP> row per operation; an INTENDED-P99(us) column when a phase
// measured intended latencies. Then, when the loaders reported them,
// their figures (connections, CPU use and throttling, each phase's start
// skew), a phase's disruptions (writeDisruptionTable), and the run's Valid
// condition. "-" marks a value that does not exist for the row.
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
		row([]string{ph.Name, report.RowOverall, d(ph.Count), "-", fixed2(ph.OpsPerSec), dur(ph.RuntimeMillis), "-", "-", "-", d(ph.P99Micros), "-"}, it)
		ops(ph.Name, "", ph.Operations)
		if wu := ph.Warmup; wu != nil {
			row([]string{ph.Name, report.RowWarmup, d(wu.Count), "-", fixed2(wu.OpsPerSec), dur(wu.RuntimeMillis), "-", "-", "-", d(wu.P99Micros), "-"}, "-")
			ops(ph.Name, report.RowWarmup+"-", wu.Operations)
		}
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	if err := writeLoaderTable(w, doc); err != nil {
		return err
	}
	if err := writeDisruptionTable(w, doc); err != nil {
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

// maxErrorLabels is how many error labels a disruption's row names (the
// most frequent; status and -o json have them all).
const maxErrorLabels = 3

// writeDisruptionTable prints the phases' disruptions, after a blank line,
// when any phase has them: per disruption its action and at, the actor's
// outcome (and how long the action took), how long writes and reads were
// unavailable (maximum/median over the loaders, and how many loaders
// never recovered), the time to a new primary (the loaders' drivers'
// maximum, and telemetry's when the phase had it), the most frequent
// error labels, the operations the driver retried (of them, those that
// succeeded), and the phase's throughput and p99 before the disruption →
// after it recovered.
func writeDisruptionTable(w io.Writer, doc *resultsDoc) error {
	has := false
	for _, ph := range doc.Phases {
		has = has || len(ph.Disruptions) > 0
	}
	if !has {
		return nil
	}
	tw := printers.GetNewTabWriter(w)
	_, _ = fmt.Fprintln(tw, "\nPHASE\tDISRUPTION\tAT\tOUTCOME\tWRITES-DOWN(max/med)\tREADS-DOWN(max/med)\tNEW-PRIMARY\tERRORS\tRETRIED\t"+
		"OPS/S(before→after)\tP99(us)(before→after)")
	for _, ph := range doc.Phases {
		for i := range ph.Disruptions {
			d := &ph.Disruptions[i]
			_, _ = fmt.Fprintf(tw, "%s\t%d %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", ph.Name, d.Index, d.ActionLabel(), d.At.Duration,
				outcomeCell(&d.Outcome), downCell(d.WriteUnavailable), downCell(d.ReadUnavailable), newPrimaryCell(d), errorsCell(d.Errors),
				retriedCell(d), beforeAfter(d, func(p *benchv1.DisruptionPerformance) string { return fixed2(p.Throughput) }),
				beforeAfter(d, func(p *benchv1.DisruptionPerformance) string { return strconv.FormatInt(p.P99Micros, 10) }))
		}
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	return nil
}

// micros is a time in µs as a duration, to the millisecond above 1 s.
func micros(us int64) string {
	d := time.Duration(us) * time.Microsecond
	if d >= time.Second {
		d = d.Round(time.Millisecond)
	}
	return d.String()
}

// outcomeCell is the action's state, how long it took, and for a pod
// deletion the pod deleted.
func outcomeCell(o *benchv1.DisruptionOutcome) string {
	s := string(o.State)
	if o.DurationMicros != nil {
		s += " (" + micros(*o.DurationMicros) + ")"
	}
	if o.Pod != "" {
		s += " pod " + o.Pod
	}
	if o.FrozenMicros != nil {
		s += " frozen " + micros(*o.FrozenMicros)
	}
	return s
}

// downCell is max/median over the loaders that recovered, and how many
// did not ("-" when no loader tried).
func downCell(t *benchv1.LoaderTimes) string {
	if t == nil {
		return "-"
	}
	s := "-"
	if t.Loaders > 0 {
		s = micros(t.MaxMicros) + "/" + micros(t.MedianMicros)
	}
	if t.Missing > 0 {
		s += fmt.Sprintf(" (%d never)", t.Missing)
	}
	return s
}

func newPrimaryCell(d *benchv1.DisruptionResult) string {
	s := "-"
	if t := d.NewPrimary; t != nil && t.Loaders > 0 {
		s = micros(t.MaxMicros)
	}
	if d.NewPrimaryTelemetryMicros != nil {
		s += " (telemetry " + micros(*d.NewPrimaryTelemetryMicros) + ")"
	}
	return s
}

func errorsCell(errs []benchv1.DisruptionErrorCount) string {
	if len(errs) == 0 {
		return "0"
	}
	var parts []string
	for i, e := range errs {
		if i == maxErrorLabels {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, e.Label+":"+strconv.FormatInt(e.Count, 10))
	}
	return strings.Join(parts, " ")
}

func retriedCell(d *benchv1.DisruptionResult) string {
	if d.Retried == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%d ok)", d.Retried, d.RetriedOK)
}

func beforeAfter(d *benchv1.DisruptionResult, f func(*benchv1.DisruptionPerformance) string) string {
	cell := func(p *benchv1.DisruptionPerformance) string {
		if p == nil {
			return "-"
		}
		return f(p)
	}
	return cell(d.Before) + "→" + cell(d.After)
}

// csvHeader is the header row of "results -o csv". Columns are only ever
// appended, so scripts may address them by position.
var csvHeader = slices.Concat([]string{"namespace", "run", "phase", "type", "operation"}, report.MeasuredColumns, report.IntendedColumns,
	[]string{"start_skew_ms", "loader", "pod", "connections", "connect_ms", "cpu_percent", "cpu_limit", "throttled_percent",
		"valid", "valid_reason"})

// writeCSV prints one row per phase and operation, after an OVERALL row
// per phase whose per-operation columns are empty; with a warm-up, a
// WARMUP row and a WARMUP-<OP> row per operation; then a LOADER row per
// loader that reported its figures (loader to throttled_percent, the
// other measurement columns empty). runtime_ms is the phase's on every
// row (the warm-up's on its rows), so ops_per_sec = count*1000/runtime_ms
// can be checked row by row. The intended_* columns hold an operation's
// intended latencies (intended_p99_us on OVERALL rows: the phase's),
// start_skew_ms is on OVERALL rows, and valid and valid_reason (the run's
// Valid condition) are on every row. A run with disruptions adds
// report.DisruptionColumns after valid_reason and a DISRUPTION row per
// disruption at the end of its phase's rows (the other rows leave them
// empty); a run without any has neither, so its CSV is what it always
// was. The rows are the study report's (report.PhaseRows), with the
// run's namespace and name before them and the Valid condition after.
func writeCSV(w io.Writer, run *benchv1.BenchmarkRun) error {
	valid := []string{"", ""}
	if c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionValid); c != nil {
		valid = []string{string(c.Status), c.Reason}
	}
	disruptions := slices.ContainsFunc(run.Status.Results, func(p benchv1.PhaseResult) bool { return len(p.Disruptions) > 0 })
	header := csvHeader
	if disruptions {
		header = slices.Concat(csvHeader, report.DisruptionColumns)
	}
	rows := [][]string{header}
	for i := range run.Status.Results {
		p := &run.Status.Results[i]
		for _, r := range report.PhaseRows(p) {
			row := slices.Concat([]string{run.Namespace, run.Name, p.Name, string(p.Type), r.Operation}, r.Measured,
				r.Intended, r.Loader, valid)
			if disruptions {
				d := r.Disruption
				if d == nil {
					d = make([]string, len(report.DisruptionColumns))
				}
				row = append(row, d...)
			}
			rows = append(rows, row)
		}
	}
	cw := csv.NewWriter(w)
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
