package report

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/stats"
)

// A phase's disruptions (spec.phases[].disruptions, measured in
// status.results[].disruptions): reduced once per cell, phase and
// disruption when the study is built (reduceDisruptions), across the
// cell's usable repetitions as every other table, and rendered by every
// format from that one reduction. The CSV has each repetition's as status
// has them (PhaseRows).

// maxErrorLabels is how many error labels a table's cell names (the most
// frequent; CSV and JSON have them all).
const maxErrorLabels = 3

// disruptionStates is the API's order of outcomes.
var disruptionStates = []benchv1.DisruptionState{benchv1.DisruptionDone, benchv1.DisruptionFailed, benchv1.DisruptionUnknown,
	benchv1.DisruptionNotReached}

// cellDisruption is one disruption of a cell's phase across the cell's
// repetitions that reported it. Each figure is a list of one value per
// repetition that measured it; the formats show their median
// (internal/stats). Counts of loaders are summed over the repetitions, so
// a loader that never recovered in any of them is never hidden by a
// median.
type cellDisruption struct {
	Cell   *Cell
	Phase  string
	Index  int32
	Action benchv1.DisruptionAction
	// Target is the replica set it hit in a Sharded topology ("" else).
	Target string
	At     time.Duration
	// Repetitions is how many repetitions reported the disruption.
	Repetitions int
	// States counts the repetitions by outcome.
	States map[benchv1.DisruptionState]int
	// ActionMicros is how long the action took to return (Done, Failed).
	ActionMicros []float64
	// Primaries are the members the action was sent to, each once.
	Primaries []string
	// Write, Read and NewPrimary are the times every loader measured.
	Write, Read, NewPrimary loaderFigures
	// Telemetry is status' newPrimaryTelemetryMicros.
	Telemetry []float64
	// Errors is each reached repetition's failed operations in the 30 s
	// after the instant, Labels per label the same (0 where a repetition
	// had none of it), RetriedAll and RetriedOK its retried operations:
	// of every repetition whose disruption was reached (a NotReached one
	// measured nothing).
	Errors     []float64
	Labels     map[string][]float64
	RetriedAll []float64
	RetriedOK  []float64
	// Before and After are the phase's throughput and p99 around it.
	BeforeOps, BeforeP99, AfterOps, AfterP99 []float64
	// Problems say why an action failed or its outcome is unknown, one
	// per repetition that says so.
	Problems []string
}

// loaderFigures is a time every loader measured (benchv1.LoaderTimes)
// across repetitions: each one's maximum and median over its loaders,
// and the loaders that measured one and that did not, summed.
type loaderFigures struct {
	Max, Median     []float64
	Loaders, Missed int
}

func (f *loaderFigures) add(t *benchv1.LoaderTimes) {
	if t == nil {
		return
	}
	if t.Loaders > 0 {
		f.Max = append(f.Max, float64(t.MaxMicros))
		f.Median = append(f.Median, float64(t.MedianMicros))
	}
	f.Loaders += int(t.Loaders)
	f.Missed += int(t.Missing)
}

// measured reports whether any loader of any repetition measured the
// time or tried and never got it.
func (f *loaderFigures) measured() bool { return f.Loaders+f.Missed > 0 }

// reduceDisruptions reduces the cells' disruptions, in cell, phase and
// disruption order.
func (s *Study) reduceDisruptions() {
	s.disruptions = nil
	for ci := range s.Cells {
		c := &s.Cells[ci]
		runs := c.measured()
		for _, ph := range s.Phases {
			byIndex := map[int32]*cellDisruption{}
			for _, run := range runs {
				res := resultOf(run, ph.Name)
				if res == nil {
					continue
				}
				for i := range res.Disruptions {
					d := &res.Disruptions[i]
					cd := byIndex[d.Index]
					if cd == nil {
						cd = &cellDisruption{Cell: c, Phase: ph.Name, Index: d.Index, Action: d.Action, Target: d.Target, At: d.At.Duration,
							States: map[benchv1.DisruptionState]int{}, Labels: map[string][]float64{}}
						byIndex[d.Index] = cd
					}
					cd.add(run, d, s.Kind == KindSweep)
				}
			}
			for _, i := range slices.Sorted(maps.Keys(byIndex)) {
				s.disruptions = append(s.disruptions, *byIndex[i])
			}
		}
	}
}

// add counts one repetition's disruption; named puts the run's name in
// its problems (a sweep's).
func (cd *cellDisruption) add(run *benchv1.BenchmarkRun, d *benchv1.DisruptionResult, named bool) {
	cd.Repetitions++
	o := &d.Outcome
	cd.States[o.State]++
	if o.DurationMicros != nil {
		cd.ActionMicros = append(cd.ActionMicros, float64(*o.DurationMicros))
	}
	if o.Primary != "" && !slices.Contains(cd.Primaries, o.Primary) {
		cd.Primaries = append(cd.Primaries, o.Primary)
	}
	if o.Error != "" {
		p := string(o.State) + ": " + o.Error
		if named {
			p = run.Name + ": " + p
		}
		cd.Problems = append(cd.Problems, p)
	}
	cd.Write.add(d.WriteUnavailable)
	cd.Read.add(d.ReadUnavailable)
	cd.NewPrimary.add(d.NewPrimary)
	if d.NewPrimaryTelemetryMicros != nil {
		cd.Telemetry = append(cd.Telemetry, float64(*d.NewPrimaryTelemetryMicros))
	}
	if o.State != benchv1.DisruptionNotReached {
		reached := len(cd.Errors)
		var total int64
		for _, e := range d.Errors {
			total += e.Count
			if _, ok := cd.Labels[e.Label]; !ok {
				// The repetitions before this one had none of it.
				cd.Labels[e.Label] = make([]float64, reached)
			}
			cd.Labels[e.Label] = append(cd.Labels[e.Label], float64(e.Count))
		}
		for l, xs := range cd.Labels {
			if len(xs) == reached {
				cd.Labels[l] = append(xs, 0)
			}
		}
		cd.Errors = append(cd.Errors, float64(total))
		cd.RetriedAll = append(cd.RetriedAll, float64(d.Retried))
		cd.RetriedOK = append(cd.RetriedOK, float64(d.RetriedOK))
	}
	if b := d.Before; b != nil {
		cd.BeforeOps = append(cd.BeforeOps, b.Throughput)
		cd.BeforeP99 = append(cd.BeforeP99, float64(b.P99Micros))
	}
	if a := d.After; a != nil {
		cd.AfterOps = append(cd.AfterOps, a.Throughput)
		cd.AfterP99 = append(cd.AfterP99, float64(a.P99Micros))
	}
}

// label names the disruption: "0 StepDown at 30s", "1 KillPrimary shard1
// at 1m0s".
func (cd *cellDisruption) label() string {
	return fmt.Sprintf("%d %s at %s", cd.Index, cd.actionLabel(), cd.At)
}

// actionLabel is the action with the replica set it hit, if any.
func (cd *cellDisruption) actionLabel() string {
	return (&benchv1.DisruptionResult{Action: cd.Action, Target: cd.Target}).ActionLabel()
}

// errorLabels are the labels with the median count of each across the
// reached repetitions, the most frequent first (then by name).
func (cd *cellDisruption) errorLabels() []labelCount {
	out := make([]labelCount, 0, len(cd.Labels))
	for l, xs := range cd.Labels {
		out = append(out, labelCount{Label: l, Count: stats.Median(xs), Counts: xs})
	}
	slices.SortFunc(out, func(a, b labelCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Label, b.Label))
	})
	return out
}

type labelCount struct {
	Label string
	// Count is the median of Counts, each reached repetition's.
	Count  float64
	Counts []float64
}

// outcome is "Done", or with several repetitions "Done ×2, Failed ×1",
// and the action's median duration: "Done (812.3 ms)".
func (cd *cellDisruption) outcome() string {
	var parts []string
	for _, st := range disruptionStates {
		if n := cd.States[st]; n > 0 {
			if cd.Repetitions > 1 || len(cd.States) > 1 {
				parts = append(parts, fmt.Sprintf("%s ×%d", st, n))
			} else {
				parts = append(parts, string(st))
			}
		}
	}
	out := strings.Join(parts, ", ")
	if len(cd.ActionMicros) > 0 {
		out += " (" + millis(stats.Median(cd.ActionMicros)) + " ms)"
	}
	return out
}

// millis writes µs as ms with one decimal and thousands separators.
func millis(us float64) string { return number(us/1000, 1) }

// medianOr is the median of xs formatted by f, "-" without any.
func medianOr(xs []float64, f func(float64) string) string {
	if len(xs) == 0 {
		return "-"
	}
	return f(stats.Median(xs))
}

// down is a table's cell of an unavailability: "1,734.0 / 1,612.5" (ms,
// the median of the repetitions' maximum and median over their loaders),
// with "(1 never)" when loaders never recovered; "-" when no loader tried.
func (f *loaderFigures) down(never string) string {
	if !f.measured() {
		return "-"
	}
	out := "-"
	if len(f.Max) > 0 {
		out = millis(stats.Median(f.Max)) + " / " + millis(stats.Median(f.Median))
	}
	if f.Missed > 0 {
		out += fmt.Sprintf(" (%d %s)", f.Missed, never)
	}
	return out
}

// newPrimary is "1,500.0" (ms, the median of the repetitions' maximum
// over their loaders), with telemetry's "(telemetry 2,000.0)" and the
// loaders whose driver saw none "(1 none)".
func (cd *cellDisruption) newPrimary() string {
	out := "-"
	if len(cd.NewPrimary.Max) > 0 {
		out = millis(stats.Median(cd.NewPrimary.Max))
	}
	if cd.NewPrimary.Missed > 0 {
		out += fmt.Sprintf(" (%d none)", cd.NewPrimary.Missed)
	}
	if len(cd.Telemetry) > 0 {
		out += " (telemetry " + millis(stats.Median(cd.Telemetry)) + ")"
	}
	return out
}

// topErrors names the most frequent labels: "NotWritablePrimary 120,
// InterruptedDueToReplStateChange 8, …".
func (cd *cellDisruption) topErrors() string {
	labels := cd.errorLabels()
	var parts []string
	for i, l := range labels {
		if i == maxErrorLabels {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, l.Label+" "+wholeMedian(l.Counts))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// retried is "11 (9 ok)", "0", or "-" when no repetition reached it.
func (cd *cellDisruption) retried() string {
	if len(cd.RetriedAll) == 0 {
		return "-"
	}
	if stats.Max(cd.RetriedAll) == 0 {
		return "0"
	}
	return wholeMedian(cd.RetriedAll) + " (" + wholeMedian(cd.RetriedOK) + " ok)"
}

// beforeAfter is "2,010 → 1,988".
func beforeAfter(before, after []float64, f func(float64) string) string {
	if len(before) == 0 && len(after) == 0 {
		return "-"
	}
	return medianOr(before, f) + " → " + medianOr(after, f)
}

// spread is the median of xs with, across several repetitions that
// differ, their range: "1,734.0 [1,612.5–1,801.2]"; "-" without any.
func spread(xs []float64, f func(float64) string) string {
	if len(xs) == 0 {
		return "-"
	}
	out := f(stats.Median(xs))
	if lo, hi := stats.Min(xs), stats.Max(xs); len(xs) > 1 && lo != hi {
		out += " [" + f(lo) + "–" + f(hi) + "]"
	}
	return out
}

// disruptionSection is the disruptions' tables, when a phase has any: a
// row per cell, phase and disruption, and in a sweep with an axis the
// figures a sweep compares, one table per combination of the other axes
// with the axis's values as columns.
func (s *Study) disruptionSection(ax int) section {
	sec := section{Heading: "Disruptions"}
	if len(s.disruptions) == 0 {
		return sec
	}
	note := "Per phase and disruption (spec.phases[].disruptions), the run's figures."
	if s.Kind == KindSweep {
		note = "Per cell, phase and disruption: the median across the successful, valid repetitions (reps) of each figure; " +
			"outcomes are counted per repetition, and loaders that never recovered are summed over the repetitions."
	}
	sec.Text = []string{note + " At counts from the start of the phase's measured window. Outcome: what the action did " +
		"(Done, Failed, Unknown: sent by a loader that was replaced before it reported, NotReached: the phase ended first), and " +
		"how long it took to return. Writes and reads unavailable: from the instant to the end of each loader's first successful " +
		"write (insert, update, delete) or read (read, scan) after it saw the disruption, the maximum / median over the loaders " +
		"(ms); never: loaders that tried and did not recover before the phase ended. New primary: the most any loader's driver " +
		"took to know of a primary elected after the instant (ms), and what telemetry's samples saw. Errors: the operations " +
		"that failed in the 30 s after the instant, with the most frequent labels; retried: those the driver sent more than " +
		"once, and how many of them succeeded. Before → after: the phase's throughput and p99 before the instant, and over " +
		"the last half of the time to the next disruption or the phase's end (recovered)."}
	t := table{
		Header: []string{"cell", "phase", "disruption", "reps", "outcome", "sent to", "writes unavailable, max / median (ms)",
			"reads unavailable, max / median (ms)", "new primary (ms)", "errors", "error labels", "retried", "ops/s before → after",
			"p99 (µs) before → after"},
		Right: []bool{false, false, false, true, false, false, true, true, true, true, false, true, true, true},
	}
	var problems []string
	for i := range s.disruptions {
		cd := &s.disruptions[i]
		t.Rows = append(t.Rows, []string{cd.Cell.Name, cd.Phase, cd.label(), strconv.Itoa(cd.Repetitions), cd.outcome(),
			orDash(strings.Join(cd.Primaries, ", ")), cd.Write.down("never"), cd.Read.down("never"), cd.newPrimary(),
			wholeMedian(cd.Errors), cd.topErrors(), cd.retried(),
			beforeAfter(cd.BeforeOps, cd.AfterOps, func(v float64) string { return number(v, 0) }),
			beforeAfter(cd.BeforeP99, cd.AfterP99, median)})
		for _, p := range cd.Problems {
			where := fmt.Sprintf("phase %s, disruption %s", cd.Phase, cd.label())
			if s.Kind == KindSweep {
				where = "cell " + cd.Cell.Name + ", " + where
			}
			problems = append(problems, where+": "+p)
		}
	}
	if s.Kind == KindSweep && slices.ContainsFunc(t.Rows, func(r []string) bool { return strings.Contains(r[9]+r[10]+r[11], "/") }) {
		sec.Text = append(sec.Text, "Errors and retried are whole operations: "+pairsNote)
	}
	if s.Kind == KindSweep {
		// Each repetition's primary is a member of its own run: the CSV
		// and JSON name them.
		t = dropColumn(t, "sent to")
	}
	sec.Tables = []table{s.perRun(t)}
	if s.Kind == KindSweep && ax >= 0 {
		sec.Tables = append(sec.Tables, s.disruptionComparison(ax)...)
	}
	sec.Items = problems
	return sec
}

// dropColumn is t without its column named name.
func dropColumn(t table, name string) table {
	i := slices.Index(t.Header, name)
	if i < 0 {
		return t
	}
	t.Header = slices.Delete(slices.Clone(t.Header), i, i+1)
	if i < len(t.Right) {
		t.Right = slices.Delete(slices.Clone(t.Right), i, i+1)
	}
	for r := range t.Rows {
		t.Rows[r] = slices.Delete(slices.Clone(t.Rows[r]), i, i+1)
	}
	return t
}

// disruptionFigure is a figure the sweep's comparison tables show.
type disruptionFigure struct {
	Name  string
	value func(*cellDisruption) string
}

var disruptionFigures = []disruptionFigure{
	{"outcome", (*cellDisruption).outcome},
	{"writes unavailable, max (ms)", func(cd *cellDisruption) string { return never(spread(cd.Write.Max, millis), cd.Write) }},
	{"writes unavailable, median (ms)", func(cd *cellDisruption) string { return spread(cd.Write.Median, millis) }},
	{"reads unavailable, max (ms)", func(cd *cellDisruption) string { return never(spread(cd.Read.Max, millis), cd.Read) }},
	{"reads unavailable, median (ms)", func(cd *cellDisruption) string { return spread(cd.Read.Median, millis) }},
	{"errors", func(cd *cellDisruption) string { return spread(cd.Errors, median) }},
	{"retried", func(cd *cellDisruption) string { return spread(cd.RetriedAll, median) }},
	{"retried, succeeded", func(cd *cellDisruption) string { return spread(cd.RetriedOK, median) }},
}

// never appends to a maximum the loaders that never recovered: the
// maximum is then a lower bound.
func never(v string, f loaderFigures) string {
	if f.Missed > 0 {
		return v + fmt.Sprintf(" (%d never)", f.Missed)
	}
	return v
}

// disruptionComparison is a table per combination of the other axes: a
// row per phase, disruption and figure, a column per value of the axis,
// each cell the median across its repetitions and their range.
func (s *Study) disruptionComparison(ax int) []table {
	type key struct {
		phase string
		index int32
	}
	byCell := map[*Cell]map[key]*cellDisruption{}
	var keys []key
	for i := range s.disruptions {
		cd := &s.disruptions[i]
		k := key{cd.Phase, cd.Index}
		if byCell[cd.Cell] == nil {
			byCell[cd.Cell] = map[key]*cellDisruption{}
		}
		byCell[cd.Cell][k] = cd
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	phaseRank := func(name string) int { return slices.IndexFunc(s.Phases, func(p Phase) bool { return p.Name == name }) }
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(phaseRank(a.phase), phaseRank(b.phase)), cmp.Compare(a.index, b.index))
	})
	var out []table
	for _, sl := range s.cut(ax) {
		caption := "Disruptions compared along " + s.Axes[ax].Name
		if sl.Title != "" {
			caption += ", " + sl.Title
		}
		t := table{Caption: caption, Header: []string{"disruption \\ " + s.Axes[ax].Name}, Right: []bool{false}}
		if len(out) == 0 {
			t.Note = "Per cell, the median across its repetitions and, where they differ, their range [min–max]."
		}
		for _, v := range s.Axes[ax].Values {
			t.Header = append(t.Header, v.Name)
			t.Right = append(t.Right, true)
		}
		for _, k := range keys {
			// The disruption's name when every cell of the slice agrees
			// on it (an axis may patch the phases' disruptions).
			names := map[string]bool{}
			for _, c := range sl.Cells {
				if cd := byCell[c][k]; c != nil && cd != nil {
					names[cd.actionLabel()+" at "+cd.At.String()] = true
				}
			}
			if len(names) == 0 {
				continue
			}
			name := fmt.Sprintf("%s: %d", k.phase, k.index)
			if len(names) == 1 {
				for n := range names {
					name += " " + n
				}
			}
			reached := false
			for _, c := range sl.Cells {
				if cd := byCell[c][k]; c != nil && cd != nil {
					reached = reached || cd.States[benchv1.DisruptionNotReached] < cd.Repetitions
				}
			}
			figures := disruptionFigures
			if !reached {
				// Nothing measured: its outcome says why.
				figures = figures[:1]
			}
			for _, f := range figures {
				row := []string{name + ", " + f.Name}
				for _, c := range sl.Cells {
					cell := "-"
					if cd := byCell[c][k]; c != nil && cd != nil {
						cell = f.value(cd)
					}
					row = append(row, cell)
				}
				t.Rows = append(t.Rows, row)
			}
		}
		if len(t.Rows) > 0 {
			out = append(out, t)
		}
	}
	return out
}

// jsonDisruption is a cell's disruption of a phase as the Markdown and
// HTML reports show it: the median of each figure across the cell's
// successful, valid repetitions that measured it (µs, ops/s), and the
// loaders that measured it or never recovered, summed over them. The
// runs' own are in runs[].status.results[].disruptions.
type jsonDisruption struct {
	Phase       string         `json:"phase"`
	Cell        int32          `json:"cell"`
	CellName    string         `json:"cellName"`
	Index       int32          `json:"index"`
	Action      string         `json:"action"`
	Target      string         `json:"target,omitempty"`
	AtMillis    int64          `json:"atMillis"`
	Repetitions int            `json:"repetitions"`
	Outcomes    map[string]int `json:"outcomes"`
	// ActionMicros is how long the action took to return.
	ActionMicros *float64 `json:"actionMicros,omitempty"`
	Primaries    []string `json:"primaries,omitempty"`
	// WriteUnavailable, ReadUnavailable and NewPrimary: the medians of
	// the repetitions' maximum and median over their loaders.
	WriteUnavailable          *jsonLoaderTimes `json:"writeUnavailable,omitempty"`
	ReadUnavailable           *jsonLoaderTimes `json:"readUnavailable,omitempty"`
	NewPrimary                *jsonLoaderTimes `json:"newPrimary,omitempty"`
	NewPrimaryTelemetryMicros *float64         `json:"newPrimaryTelemetryMicros,omitempty"`
	// Errors, ErrorLabels, Retried and RetriedOK are medians across the
	// repetitions that reached the disruption.
	Errors      *float64         `json:"errors,omitempty"`
	ErrorLabels []jsonErrorLabel `json:"errorLabels,omitempty"`
	Retried     *float64         `json:"retried,omitempty"`
	RetriedOK   *float64         `json:"retriedOK,omitempty"`
	Before      *jsonPerformance `json:"before,omitempty"`
	After       *jsonPerformance `json:"after,omitempty"`
	// Problems say why an action failed or its outcome is unknown.
	Problems []string `json:"problems,omitempty"`
}

type jsonLoaderTimes struct {
	MaxMicros    *float64 `json:"maxMicros,omitempty"`
	MedianMicros *float64 `json:"medianMicros,omitempty"`
	// Repetitions is how many repetitions had a loader that measured it.
	Repetitions int `json:"repetitions"`
	Loaders     int `json:"loaders"`
	Missing     int `json:"missing,omitempty"`
}

type jsonErrorLabel struct {
	Label string  `json:"label"`
	Count float64 `json:"count"`
}

type jsonPerformance struct {
	Throughput float64 `json:"throughput"`
	P99Micros  float64 `json:"p99Micros"`
}

// jsonDisruptionsOf is the study's disruptions for the JSON report.
func (s *Study) jsonDisruptionsOf() []jsonDisruption {
	med := func(xs []float64) *float64 {
		if len(xs) == 0 {
			return nil
		}
		return ptrTo(stats.Median(xs))
	}
	times := func(f loaderFigures) *jsonLoaderTimes {
		if !f.measured() {
			return nil
		}
		return &jsonLoaderTimes{MaxMicros: med(f.Max), MedianMicros: med(f.Median), Repetitions: len(f.Max), Loaders: f.Loaders, Missing: f.Missed}
	}
	perf := func(ops, p99 []float64) *jsonPerformance {
		if len(ops) == 0 {
			return nil
		}
		return &jsonPerformance{Throughput: stats.Median(ops), P99Micros: stats.Median(p99)}
	}
	out := make([]jsonDisruption, 0, len(s.disruptions))
	for i := range s.disruptions {
		cd := &s.disruptions[i]
		jd := jsonDisruption{Phase: cd.Phase, Cell: cd.Cell.Index, CellName: cd.Cell.Name, Index: cd.Index, Action: string(cd.Action), Target: cd.Target,
			AtMillis: cd.At.Milliseconds(), Repetitions: cd.Repetitions, Outcomes: map[string]int{}, ActionMicros: med(cd.ActionMicros),
			Primaries: cd.Primaries, WriteUnavailable: times(cd.Write), ReadUnavailable: times(cd.Read), NewPrimary: times(cd.NewPrimary),
			NewPrimaryTelemetryMicros: med(cd.Telemetry), Errors: med(cd.Errors), Retried: med(cd.RetriedAll), RetriedOK: med(cd.RetriedOK),
			Before: perf(cd.BeforeOps, cd.BeforeP99), After: perf(cd.AfterOps, cd.AfterP99), Problems: cd.Problems}
		for st, n := range cd.States {
			jd.Outcomes[string(st)] = n
		}
		for _, l := range cd.errorLabels() {
			jd.ErrorLabels = append(jd.ErrorLabels, jsonErrorLabel{Label: l.Label, Count: l.Count})
		}
		out = append(out, jd)
	}
	return out
}
