package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/sweep"
)

// The Markdown and HTML reports show the same document: a title, a
// summary, and sections of text, tables and lists. It is built once here
// so the two never disagree.

type document struct {
	Title   string
	Summary [][2]string
	Notes   []string
	Parts   []section
}

type section struct {
	Heading string
	Text    []string
	Tables  []table
	Items   []string
}

type table struct {
	Caption string
	// Note is text between the caption and the table.
	Note   string
	Header []string
	// Right marks the columns to right-align (numbers).
	Right []bool
	Rows  [][]string
}

// buildDocument lays the study out; ax is the pivot axis (-1: none).
func (s *Study) buildDocument(ax int) document {
	d := document{Title: strings.TrimPrefix(s.Kind, "Benchmark") + " " + s.Name}
	add := func(k, v string) {
		if v != "" {
			d.Summary = append(d.Summary, [2]string{k, v})
		}
	}
	add("namespace", s.Namespace)
	add("phase", s.Phase)
	add("failed", s.Message)
	for _, a := range s.Axes {
		names := make([]string, len(a.Values))
		for i, v := range a.Values {
			names[i] = v.Name
		}
		kind := ""
		if a.Numeric {
			kind = " (numeric)"
		}
		add("axis "+a.Name+kind, strings.Join(names, ", "))
	}
	if s.Kind == KindSweep {
		add("cells", s.cellCounts())
		add("repetitions", strconv.Itoa(int(s.Repetitions)))
		if n := len(s.invalidRuns()); n > 0 {
			add("invalid runs", fmt.Sprintf("%d, left out of every aggregate (see Invalid runs)", n))
		}
		if w := s.warnedRuns(); len(w) > 0 {
			add("runs with warnings", fmt.Sprintf("%d (see Environment)", len(w)))
		}
		add("baseline", s.Baseline)
		add("best", s.Best)
		add("summary phase", s.SummaryPhase)
	}
	if st := s.times(); st != "" {
		add("time", st)
	}
	if s.Kind == KindRun && len(s.Runs) == 1 {
		// What the environment may skew is read before the numbers.
		add("warnings", strings.Join(runWarnings(&s.Runs[0]), "; "))
		if c := meta.FindStatusCondition(s.Runs[0].Status.Conditions, benchv1.ConditionValid); c != nil {
			v := string(c.Status)
			if c.Status == metav1.ConditionFalse {
				v += ": " + c.Reason + " (see Invalid runs)"
			}
			add("valid", v)
		}
	}

	// A Grow phase's figures are what a growth study is read for.
	growth := s.growth
	for _, gp := range growth {
		d.Parts = append(d.Parts, s.growthSection(gp, len(growth) > 1))
	}
	for i, m := range s.pivotMetrics() {
		sec := s.pivotSection(m, ax)
		if note := s.comparabilityNote(); i == 0 && note != "" {
			sec.Text = append(sec.Text, note)
		}
		d.Parts = append(d.Parts, sec)
	}
	if k := s.kneeSection(); len(k.Items) > 0 {
		d.Parts = append(d.Parts, k)
	}
	// What a disruption study is read for, right after the numbers it
	// disturbed.
	if dis := s.disruptionSection(ax); len(dis.Tables) > 0 {
		d.Parts = append(d.Parts, dis)
	}
	if c := s.comparisonSection(); len(c.Tables) > 0 {
		d.Parts = append(d.Parts, c)
	}
	if s.History != nil {
		d.Parts = append(d.Parts, s.historySection())
	}
	d.Parts = append(d.Parts, s.operationSection())
	if w := s.warmupAndLoadersSection(); len(w.Tables) > 0 {
		d.Parts = append(d.Parts, w)
	}
	d.Parts = append(d.Parts, s.environmentSection())
	if f := s.failureSection(); len(f.Items) > 0 {
		d.Parts = append(d.Parts, f)
	}
	if v := s.invalidSection(); len(v.Items) > 0 {
		d.Parts = append(d.Parts, v)
	}
	return d
}

func (s *Study) cellCounts() string {
	st := s.Sweep.Status
	if st.CellsInvalid > 0 {
		return fmt.Sprintf("%d (%d done, %d with failed runs, %d without a valid run, %d runs active)",
			st.CellsTotal, st.CellsDone, st.CellsFailed, st.CellsInvalid, st.RunsActive)
	}
	return fmt.Sprintf("%d (%d done, %d with failed runs, %d runs active)", st.CellsTotal, st.CellsDone, st.CellsFailed, st.RunsActive)
}

func (s *Study) times() string {
	var start, end string
	switch {
	case s.Sweep != nil:
		if t := s.Sweep.Status.StartTime; t != nil {
			start = t.UTC().Format("2006-01-02T15:04:05Z")
		}
		if t := s.Sweep.Status.CompletionTime; t != nil {
			end = t.UTC().Format("2006-01-02T15:04:05Z")
		}
	case len(s.Runs) == 1:
		if t := s.Runs[0].Status.StartTime; t != nil {
			start = t.UTC().Format("2006-01-02T15:04:05Z")
		}
		if t := s.Runs[0].Status.CompletionTime; t != nil {
			end = t.UTC().Format("2006-01-02T15:04:05Z")
		}
	}
	if start == "" {
		return ""
	}
	return start + " – " + orDash(end)
}

// pivotSection is a metric's tables: phases as rows, the pivot axis's
// values as columns, one table per combination of the other axes.
func (s *Study) pivotSection(m metric, ax int) section {
	sec := section{Heading: m.Title}
	note := "Median across the successful repetitions"
	switch {
	case s.Kind == KindRun:
		note = "One run"
	case s.Repetitions <= 1:
		note = "One repetition per cell"
	}
	if m.Title == metricReplicationLag.Title {
		// A maximum is not a median, and has no % change (see
		// metricReplicationLag): the note says what it is instead.
		note = "The most a SECONDARY of any replica set was behind its primary while the phase was sampled " +
			"(replSetGetStatus of each primary, with the telemetry)"
		if s.Kind == KindSweep {
			note += ", the largest across the cell's successful repetitions"
		}
		note += "; only the phases with replica sets of several members are shown"
	} else if s.hasBaseline() {
		note += "; in parentheses the change against the baseline cell (" + s.Baseline + ")"
	}
	if m.cov && s.Repetitions > 1 {
		note += "; ± is the coefficient of variation of throughput across the repetitions (sample standard deviation / mean)"
	}
	if m.Title == metricP99.Title {
		note += ". p99 covers every database call of the phase"
	}
	if m.Title == metricIntendedP99.Title {
		note += ". The intended latency of a call runs from the moment the target's schedule meant it to start " +
			"(measurement.interval intended or both), so a stall counts against the calls it delayed; " +
			"only the phases that measured it are shown"
	}
	if n := len(s.invalidRuns()); n > 0 && s.Kind == KindSweep {
		note += "; " + invalidLeftOut(n) + " (see Invalid runs)"
	}
	sec.Text = append(sec.Text, note+".")
	corner := "phase"
	var values []string
	if ax >= 0 {
		corner = "phase \\ " + s.Axes[ax].Name
		for _, v := range s.Axes[ax].Values {
			values = append(values, v.Name)
		}
	}
	for _, sl := range s.cut(ax) {
		t := table{Caption: sl.Title, Header: []string{corner}, Right: []bool{false}}
		if ax < 0 {
			for _, c := range sl.Cells {
				t.Header = append(t.Header, c.Name)
				t.Right = append(t.Right, true)
			}
		} else {
			for _, v := range values {
				t.Header = append(t.Header, v)
				t.Right = append(t.Right, true)
			}
		}
		for _, ph := range s.Phases {
			if m.shown != nil && !m.shown(s, ph.Name) {
				continue
			}
			row := []string{ph.Name + " (" + string(ph.Type) + ")"}
			for _, c := range sl.Cells {
				row = append(row, s.pivotCell(m, c, ph.Name))
			}
			t.Rows = append(t.Rows, row)
		}
		sec.Tables = append(sec.Tables, t)
	}
	return sec
}

func (s *Study) hasBaseline() bool {
	for i := range s.Cells {
		if s.Cells[i].baseline >= 0 {
			return true
		}
	}
	return false
}

func (s *Study) kneeSection() section {
	sec := section{Heading: "Knees"}
	fraction := strconv.FormatFloat(sweep.KneeFraction*100, 'f', -1, 64) + "%"
	if len(s.Knees) > 0 {
		sec.Text = []string{"Where adding more stops paying: the smallest value of a numeric axis whose median throughput reaches " +
			fraction + " of the best."}
	}
	for _, k := range s.Knees {
		at := ""
		if k.At != "" {
			at = " at " + k.At
		}
		share := "-"
		if k.BestThroughput > 0 {
			share = strconv.FormatFloat(k.Throughput/k.BestThroughput*100, 'f', 1, 64) + "%"
		}
		smallest := s.smallestValue(k.Axis) == k.Value
		var line string
		switch {
		case k.Value == k.BestValue && smallest:
			// Nothing to scale: "keeps scaling up to" its first value
			// would say the opposite of what was measured.
			line = fmt.Sprintf("%s%s is best at %s=%s, the smallest value (%s ops/s): %s do not help",
				k.Phase, at, k.Axis, k.Value, number(k.Throughput, 0), s.more(k.Axis))
		case k.Value == k.BestValue:
			line = fmt.Sprintf("%s%s keeps scaling up to %s=%s, its best (%s ops/s): no smaller value reaches %s of it",
				k.Phase, at, k.Axis, k.Value, number(k.Throughput, 0), fraction)
		case smallest:
			line = fmt.Sprintf("%s%s saturates at once, at %s=%s, the smallest value: %s ops/s, %s of the best (%s, %s ops/s)",
				k.Phase, at, k.Axis, k.Value, number(k.Throughput, 0), share, k.BestValue, number(k.BestThroughput, 0))
		default:
			line = fmt.Sprintf("%s%s saturates at %s=%s: %s ops/s, %s of the best (%s, %s ops/s)",
				k.Phase, at, k.Axis, k.Value, number(k.Throughput, 0), share, k.BestValue, number(k.BestThroughput, 0))
		}
		sec.Items = append(sec.Items, line)
	}
	return sec
}

// smallestValue names the value of the axis with the smallest number
// ("" for an axis without numbers): a knee there means the axis did not
// pay from its first step.
func (s *Study) smallestValue(axis string) string {
	name, least := "", math.Inf(1)
	for _, a := range s.Axes {
		if a.Name != axis {
			continue
		}
		for _, v := range a.Values {
			if v.Number != nil && *v.Number < least {
				name, least = v.Name, *v.Number
			}
		}
	}
	return name
}

// more says what the larger values of an axis add, by the kind of axis
// the sweep's spec gives it: "more shards" along topologies.
func (s *Study) more(axis string) string {
	if s.Sweep != nil {
		for _, a := range s.Sweep.Spec.Axes {
			if a.Name != axis {
				continue
			}
			switch {
			case len(a.Topologies) > 0:
				return "more shards"
			case len(a.Threads) > 0:
				return "more threads"
			case len(a.MaxPoolSize) > 0:
				return "larger pools"
			}
		}
	}
	return "larger values of " + axis
}

func (s *Study) operationSection() section {
	sec := section{Heading: "Latency by operation (µs)"}
	rows := s.operationRows()
	if len(rows) == 0 {
		sec.Text = []string{"No successful run with results."}
		return sec
	}
	note := "Per cell, phase and operation: the median across the successful repetitions (reps) of each number."
	t := table{
		Header: []string{"cell", "phase", "operation", "reps", "count", "errors", "p50", "p95", "p99", "p99.9", "mean"},
		Right:  []bool{false, false, false, true, true, true, true, true, true, true, true},
	}
	if s.Kind == KindRun {
		note = "Per phase and operation, the run's numbers."
	}
	note += " Latencies cover successful operations; count includes failed ones."
	if slices.ContainsFunc(rows, func(r operationRow) bool { return strings.Contains(wholeMedian(r.Counts)+wholeMedian(r.Errors), "/") }) {
		note += " Count and errors are whole operations: " + pairsNote
	}
	if s.reportsCleanup() {
		note += " YCSB's CLEANUP, each thread's last call, is not an operation of the workload and is left out " +
			"(the CSV and JSON reports keep it)."
	}
	if n := len(s.invalidRuns()); n > 0 && s.Kind == KindSweep {
		note += " " + strings.ToUpper(invalidLeftOut(n)[:1]) + invalidLeftOut(n)[1:] + " (see Invalid runs)."
	}
	intended := s.measuresIntended()
	if intended {
		note += " Intended p99 is the p99 of the calls' intended latencies (\"-\" where the phase did not measure them)."
		t.Header = append(t.Header, "intended p99")
		t.Right = append(t.Right, true)
	}
	sec.Text = []string{note}
	var batched []string
	for _, r := range rows {
		op := r.Operation
		if r.Batched {
			op += " †"
			if at := r.Phase; !slices.Contains(batched, at) {
				batched = append(batched, at)
			}
		}
		row := []string{r.Cell.Name, r.Phase, op, strconv.Itoa(r.Repetitions), wholeMedian(r.Counts), wholeMedian(r.Errors),
			median(r.P50), median(r.P95), median(r.P99), median(r.P999), number(r.Mean, 1)}
		if intended {
			row = append(row, median(r.IntendedP99))
		}
		t.Rows = append(t.Rows, row)
	}
	if len(batched) > 0 {
		sec.Text = append(sec.Text, batchedNote(batched))
	}
	sec.Tables = []table{s.perRun(t)}
	return sec
}

// pairsNote explains the "a / b" of a median count (wholeMedian): a
// median of 14,720.5 operations would be a count no run measured.
const pairsNote = "\"a / b\" where an even number of repetitions has no middle count, the two middle ones (with two repetitions, both)."

// batchedNote is the footnote of the INSERT rows of phases with
// batchsize > 1 (marked †), whose latencies are mostly 0: the loader's
// MongoDB binding (internal/loader/mongodb, DB.Insert), like YCSB's,
// only buffers an insert until batchsize are pending, and returns
// BATCHED_OK without a database call; the insert that fills the batch
// writes them all with one insertMany, and its latency is the batch's.
func batchedNote(phases []string) string {
	where := "phase " + phases[0]
	if len(phases) > 1 {
		where = "phases " + strings.Join(phases, ", ")
	}
	return "† Batched inserts (" + where + ", batchsize above 1): as in YCSB, an insert that only joins its thread's batch " +
		"returns BATCHED_OK at once, without a database call, and is recorded with a latency of 0 µs; the insert that fills " +
		"the batch writes the whole batch with one insertMany, and is recorded with that call's latency. So the low percentiles " +
		"are 0, the high ones a whole batch's write, the mean a batch's write shared by its documents, and count is of " +
		"documents, not of calls. A thread's last, partial batch is written by its CLEANUP."
}

func (s *Study) environmentSection() section {
	sec := section{Heading: "Environment"}
	env := s.compareEnvironments()
	if len(env.Fingerprints) == 0 {
		sec.Text = []string{"No run recorded its environment."}
		return sec
	}
	fp := table{Caption: "Fingerprints (status.environment.fingerprint): runs with the same one are comparable",
		Header: []string{"fingerprint", "cells", "runs"}}
	for _, g := range env.Fingerprints {
		fp.Rows = append(fp.Rows, []string{g.Fingerprint, strings.Join(g.Cells, ", "), strings.Join(g.Runs, ", ")})
	}
	sec.Tables = append(sec.Tables, fp)
	switch {
	case len(env.Fingerprints) == 1:
		sec.Text = append(sec.Text, "Every run has the same fingerprint.")
	case len(env.Mixed) == 0 && len(s.Cells) > 1:
		sec.Text = append(sec.Text, "The repetitions of each cell share a fingerprint. Fingerprints differ between cells "+
			"as far as the axes change what they hash (topology, driver settings, loaders, the phases' properties)"+
			diffSuffix(env)+".")
	}
	for _, m := range env.Mixed {
		line := "Cell " + m.Cell + " mixes environments (" + strings.Join(m.Runs, ", ") + ")"
		if len(m.Fields) > 0 {
			line += ", differing in " + strings.Join(m.Fields, ", ")
		} else {
			line += ": the recorded fields agree, so what differs is in the runs' specs"
		}
		sec.Items = append(sec.Items, "Warning: "+line+"; its median combines numbers that may not be comparable.")
	}
	if s.Kind == KindSweep {
		for _, w := range s.warnedRuns() {
			sec.Items = append(sec.Items, fmt.Sprintf("Warnings of %s (cell %s, repetition %d): %s",
				w.Name, w.Cell.Name, w.Repetition, w.Message))
		}
	}
	if len(env.Unrecorded) > 0 {
		sec.Items = append(sec.Items, "No environment recorded by: "+strings.Join(env.Unrecorded, ", ")+".")
	}
	if len(env.Common) > 0 {
		t := table{Caption: "Recorded by every run alike", Header: []string{"field", "value"}}
		for _, f := range env.Common {
			t.Rows = append(t.Rows, []string{f.Name, f.Value})
		}
		sec.Tables = append(sec.Tables, t)
	}
	if len(env.Differ) > 0 {
		t := table{Caption: "Fields that differ between runs", Header: []string{"field", "value", "cells (or runs)"}}
		for _, d := range env.Differ {
			for _, v := range d.Values {
				t.Rows = append(t.Rows, []string{d.Field, orDash(v.Value), strings.Join(s.cellsOrRuns(v.Runs), ", ")})
			}
		}
		sec.Tables = append(sec.Tables, t)
	}
	return sec
}

// cellsOrRuns names runs compactly: a cell whose recorded runs are all
// among them by the cell's name, the others by run name.
func (s *Study) cellsOrRuns(runs []string) []string {
	var out []string
	for ci := range s.Cells {
		c := &s.Cells[ci]
		var in, recorded []string
		for _, r := range c.Runs {
			if r.Run == nil || r.Run.Status.Environment == nil {
				continue
			}
			recorded = append(recorded, r.Name)
			if slices.Contains(runs, r.Name) {
				in = append(in, r.Name)
			}
		}
		switch {
		case len(in) == 0:
		case len(in) == len(recorded) && s.Kind == KindSweep:
			out = append(out, c.Name)
		default:
			out = append(out, in...)
		}
	}
	return out
}

func diffSuffix(env environment) string {
	if len(env.Differ) == 0 {
		return "; the recorded environment fields are the same everywhere"
	}
	names := make([]string, len(env.Differ))
	for i, d := range env.Differ {
		names[i] = d.Field
	}
	return "; recorded fields that differ: " + strings.Join(names, ", ")
}

// runWarnings are the lines of a run's Warnings condition when it is
// True (the controller joins them with newlines), nil otherwise.
func runWarnings(run *benchv1.BenchmarkRun) []string {
	c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionWarnings)
	if c == nil || c.Status != metav1.ConditionTrue {
		return nil
	}
	var out []string
	for _, l := range strings.Split(c.Message, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// warnedRuns lists the runs, in cell order, whose Warnings condition is
// True, the message its lines joined by "; ". A warning does not make a
// run invalid: its numbers stay in the aggregates, and the reader judges.
func (s *Study) warnedRuns() []flaggedRun {
	var out []flaggedRun
	for ci := range s.Cells {
		c := &s.Cells[ci]
		for _, r := range c.Runs {
			if r.Run == nil {
				continue
			}
			if w := runWarnings(r.Run); len(w) > 0 {
				out = append(out, flaggedRun{Cell: c, Name: r.Name, Repetition: r.Repetition, Reason: string(benchv1.ReasonEnvironmentWarnings),
					Message: strings.Join(w, "; ")})
			}
		}
	}
	return out
}

// invalidLeftOut says how many invalid runs an aggregate leaves out.
func invalidLeftOut(n int) string {
	if n == 1 {
		return "1 invalid run is left out"
	}
	return strconv.Itoa(n) + " invalid runs are left out"
}

// invalidSection lists the runs that succeeded but are not valid, with
// their Valid condition, and how many each cell left out.
func (s *Study) invalidSection() section {
	sec := section{Heading: "Invalid runs"}
	runs := s.invalidRuns()
	if len(runs) == 0 {
		return sec
	}
	if s.Kind == KindRun {
		sec.Text = []string{"The run succeeded, but its Valid condition is False: what it measured is not only the database " +
			"under the run's settings. Its numbers above are its own; a sweep leaves such a run out of its cell's results, " +
			"and a regression history leaves it out too."}
	} else {
		sec.Text = []string{"These runs succeeded, but their Valid condition is False: what they measured is not only the database " +
			"under the runs' settings. Their numbers stay in their status (and in the CSV and JSON reports) but enter no aggregate: " +
			"not the medians, CoV, % changes, knees or best, nor the latencies by operation, warm-ups and loaders above, nor the gate."}
		t := table{Header: []string{"cell", "runs", "valid (aggregated)", "invalid (left out)"}, Right: []bool{false, true, true, true}}
		for ci := range s.Cells {
			c := &s.Cells[ci]
			if c.Invalid == 0 {
				continue
			}
			valid := strconv.Itoa(len(c.measured()))
			if c.withoutValidRun() {
				valid += " (no results)"
			}
			t.Rows = append(t.Rows, []string{c.Name, strconv.Itoa(len(c.Runs)), valid, strconv.Itoa(int(c.Invalid))})
		}
		sec.Tables = []table{t}
	}
	for _, r := range runs {
		sec.Items = append(sec.Items, r.item(s.Kind != KindRun))
	}
	return sec
}

func (s *Study) failureSection() section {
	sec := section{Heading: "Failed runs"}
	for _, f := range s.failedRuns() {
		sec.Items = append(sec.Items, f.item(true))
	}
	return sec
}

// comparisonSection is the regression gate's verdicts (spec.compare) of
// every run that has them, with its Regressed condition.
func (s *Study) comparisonSection() section {
	sec := section{Heading: "Comparison with the baseline"}
	t := table{Header: []string{"run", "metric", "baseline", "current", "change", "p-value", "verdict", "basis"},
		Right: []bool{false, false, true, true, true, true, false, false}}
	for i := range s.Runs {
		run := &s.Runs[i]
		for _, m := range run.Status.Comparison {
			t.Rows = append(t.Rows, comparisonRow(run.Name, m))
		}
		if c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionRegressed); c != nil {
			sec.Text = append(sec.Text, fmt.Sprintf("%s: Regressed %s: %s", run.Name, c.Status, c.Message))
		}
	}
	if len(t.Rows) > 0 {
		sec.Tables = append(sec.Tables, t)
	}
	if s.Sweep != nil {
		s.sweepComparison(&sec)
	}
	return sec
}

// comparisonRow is one verdict of the comparison tables, of the run or
// cell named first.
func comparisonRow(first string, m benchv1.MetricComparison) []string {
	p := "-"
	if m.PValue != nil {
		p = strconv.FormatFloat(*m.PValue, 'g', 2, 64)
	}
	verdict := string(m.Verdict)
	if m.Acknowledged != "" {
		verdict += " (" + m.Acknowledged + ")"
	}
	return []string{first, m.Metric, number(m.Baseline, 1), number(m.Current, 1), percent(m.ChangePercent), p, verdict, m.Basis}
}

// sweepComparison adds a sweep's own gate (spec.compare on the sweep):
// the verdicts of each cell and the sweep's Regressed condition.
func (s *Study) sweepComparison(sec *section) {
	t := table{Header: []string{"cell", "metric", "baseline", "current", "change", "p-value", "verdict", "basis"},
		Right: []bool{false, false, true, true, true, true, false, false}}
	for _, c := range s.Sweep.Status.Cells {
		for _, m := range c.Comparison {
			t.Rows = append(t.Rows, comparisonRow(c.Name, m))
		}
	}
	if c := meta.FindStatusCondition(s.Sweep.Status.Conditions, benchv1.ConditionRegressed); c != nil {
		sec.Text = append(sec.Text, fmt.Sprintf("sweep %s: Regressed %s: %s", s.Sweep.Name, c.Status, c.Message))
	}
	if len(t.Rows) > 0 {
		sec.Tables = append(sec.Tables, t)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
