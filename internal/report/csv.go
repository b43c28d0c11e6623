package report

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// csvFixed are the CSV's columns besides the axes.
var (
	csvLead  = []string{"study", "cell_index", "cell"}
	csvTrail = []string{
		"repetition", "run", "run_phase", "reason", "fingerprint", "phase", "phase_type", "operation",
		"count", "errors", "ops_per_sec", "runtime_ms", "avg_us", "min_us", "max_us", "p50_us", "p95_us", "p99_us", "p999_us",
	}
)

// csvRunColumns are the leading columns of csvTrail that name the run
// (repetition, run, run_phase, reason, fingerprint).
const csvRunColumns = 5

// csvHistory are the columns a run's report with a history adds (see
// CSV).
var csvHistory = []string{"history_of", "completion_time", "change_point"}

// overall names the row of a phase's own numbers (YCSB's [OVERALL]), as
// `kubectl mongobench results -o csv` does.
const overall = "OVERALL"

// CSV writes the study in long format (RFC 4180, one header row, nothing
// else): a row per cell × repetition × phase × operation, each axis's value
// in a column named after the axis (and its number in <axis>_number when
// the axis has numbers), so pandas or a spreadsheet can pivot it any way.
// Each phase also has an OVERALL row with the phase's operations,
// throughput and p99 over all database calls. A run without results (it
// failed early, or no longer exists) has one row with its phase and
// reason and the measurement columns empty. An axis named like another
// column is headed axis:<name>.
//
// A run's report with a history (AddHistory) adds the history's runs
// after the study's, oldest first, in rows of the same shape (no cell,
// no repetition), and three columns: history_of (on a history run's rows,
// the gated run), completion_time (RFC 3339, UTC) and change_point (on a
// history run's row of a compared metric's phase and operation, OVERALL
// for a whole phase's: the metric's change points that start at the run,
// "throughput -10.2% (p=3e-07), regime starts", joined by "; ").
func CSV(w io.Writer, s *Study) error {
	header, withNumber := csvHeader(s)
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	// tail fills the history's columns; nil without a history.
	var tail func(run *benchv1.BenchmarkRun, phase, op string) []string
	if s.History != nil {
		tail = s.History.csvColumns
	}
	for ci := range s.Cells {
		c := &s.Cells[ci]
		lead := []string{s.Name, strconv.Itoa(int(c.Index)), c.Name}
		for _, a := range s.Axes {
			v, _ := c.Value(a.Name)
			lead = append(lead, v.Value)
		}
		for i, a := range s.Axes {
			if withNumber[i] {
				v, _ := c.Value(a.Name)
				n := ""
				if v.Number != nil {
					n = plain(*v.Number)
				}
				lead = append(lead, n)
			}
		}
		for _, r := range c.Runs {
			phase, fp := r.Phase, r.Fingerprint
			if r.Run != nil {
				phase = cmp.Or(r.Run.Status.Phase, phase)
				if e := r.Run.Status.Environment; e != nil && e.Fingerprint != "" {
					fp = e.Fingerprint
				}
			}
			run := []string{strconv.Itoa(int(r.Repetition)), r.Name, string(phase), r.Reason, fp}
			if err := writeRunRows(cw, slices.Concat(lead, run), r.Run, tail); err != nil {
				return err
			}
		}
	}
	if h := s.History; h != nil {
		// The history's runs, oldest first: no cell, no repetition; the
		// axis columns (a run's study has none) stay empty.
		axes := len(header) - len(csvLead) - len(csvTrail) - len(csvHistory)
		for _, r := range h.Runs {
			fp := ""
			if e := r.Status.Environment; e != nil {
				fp = e.Fingerprint
			}
			lead := slices.Concat([]string{s.Name, "", ""}, make([]string, axes), []string{"", r.Name, string(r.Status.Phase), "", fp})
			if err := writeRunRows(cw, lead, r, tail); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}

// csvHeader is the CSV's header, and which axes have a number column.
func csvHeader(s *Study) ([]string, []bool) {
	header := slices.Clone(csvLead)
	taken := map[string]bool{}
	for _, h := range slices.Concat(csvLead, csvTrail) {
		taken[h] = true
	}
	if s.History != nil {
		for _, h := range csvHistory {
			taken[h] = true
		}
	}
	col := func(name string) string {
		if taken[name] {
			name = "axis:" + name
		}
		taken[name] = true
		return name
	}
	withNumber := make([]bool, 0, len(s.Axes))
	for _, a := range s.Axes {
		header = append(header, col(a.Name))
		has := slices.ContainsFunc(a.Values, func(v AxisValue) bool { return v.Number != nil })
		withNumber = append(withNumber, has)
	}
	for i, a := range s.Axes {
		if withNumber[i] {
			header = append(header, col(a.Name+"_number"))
		}
	}
	header = append(header, csvTrail...)
	if s.History != nil {
		header = append(header, csvHistory...)
	}
	return header, withNumber
}

// csvColumns are the history's columns of a run's row of a phase and
// operation: history_of, completion_time, change_point.
func (h *History) csvColumns(run *benchv1.BenchmarkRun, phase, op string) []string {
	of, done, cp := "", "", ""
	if run != nil && run.Name != h.Run {
		of = h.Run
	}
	if run != nil && run.Status.CompletionTime != nil {
		done = run.Status.CompletionTime.UTC().Format(time.RFC3339)
	}
	if of != "" && phase != "" {
		cp = h.changePointsAt(run.Name, phase, op)
	}
	return []string{of, done, cp}
}

// writeRunRows writes a run's rows: an OVERALL row per phase and a row per
// operation, or one row without measurements when the run has no
// results. lead fills the columns before them (study, cell, axes,
// repetition, run, run_phase, reason, fingerprint), tail (if any) the
// history's columns after them.
func writeRunRows(cw *csv.Writer, lead []string, run *benchv1.BenchmarkRun, tail func(*benchv1.BenchmarkRun, string, string) []string) error {
	i64 := func(n int64) string { return strconv.FormatInt(n, 10) }
	row := func(phase, op string, cols ...string) []string {
		out := append(slices.Clone(lead), cols...)
		if tail != nil {
			out = append(out, tail(run, phase, op)...)
		}
		return out
	}
	var res []benchv1.PhaseResult
	if run != nil {
		res = run.Status.Results
	}
	if len(res) == 0 {
		if err := cw.Write(row("", "", make([]string, len(csvTrail)-csvRunColumns)...)); err != nil {
			return fmt.Errorf("write csv: %w", err)
		}
		return nil
	}
	for pi := range res {
		p := &res[pi]
		rows := [][]string{row(p.Name, overall, p.Name, string(p.Type), overall, i64(p.Operations), "", plain(p.Throughput), i64(p.RuntimeMillis),
			"", "", "", "", "", i64(p.P99Micros), "")}
		for _, op := range p.OperationStats {
			rows = append(rows, row(p.Name, op.Name, p.Name, string(p.Type), op.Name, i64(op.Count), i64(op.Errors),
				plain(opsPerSec(op.Count, p.RuntimeMillis)), i64(p.RuntimeMillis), plain(op.AverageMicros),
				i64(op.MinMicros), i64(op.MaxMicros), i64(op.P50Micros), i64(op.P95Micros), i64(op.P99Micros), i64(op.P999Micros)))
		}
		if err := cw.WriteAll(rows); err != nil {
			return fmt.Errorf("write csv: %w", err)
		}
	}
	return nil
}

// opsPerSec is count / runtime rounded to hundredths, like a phase's
// throughput in status (0 for an empty runtime).
func opsPerSec(count, runtimeMillis int64) float64 {
	if runtimeMillis <= 0 {
		return 0
	}
	return math.Round(float64(count)*1000/float64(runtimeMillis)*100) / 100
}
