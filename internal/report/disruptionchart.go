package report

import (
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/results"
)

// The HTML report's charts of a phase with disruptions: its throughput
// (the phase's time-series chart) and p99 over the whole phase from
// status, and, when the report has the phase's merged result (its
// histograms ConfigMap, key result.json.gz), throughput and p99 at the
// 100 ms resolution of each disruption's series, from 10 s before its
// instant to 30 s after. Each disruption's instant is a vertical line, and
// its unavailability window (from the instant to the end of the slowest
// loader's first successful write, or read for a phase without writes) is
// shaded in the colour of the cell's line.

// RunPhase names one phase of one run.
type RunPhase struct {
	Run, Phase string
}

// DisruptionSeries lists the phases whose merged results the HTML report
// draws each disruption's 100 ms series from: for each phase with a
// disruption that was reached, the first repetition of each cell (at most
// maxSeriesLines cells, as every time-series chart) that shows the
// phase's disruptions. The kubectl plugin reads only these ConfigMaps for
// an HTML report, so it reads a bounded number of them however many runs a
// sweep has; without them the report draws what status has.
func (s *Study) DisruptionSeries() []RunPhase {
	var out []RunPhase
	for _, ph := range s.Phases {
		n := 0
		for ci := range s.Cells {
			res, run := disruptedResult(&s.Cells[ci], ph.Name)
			if res == nil {
				continue
			}
			if n == maxSeriesLines {
				break
			}
			n++
			out = append(out, RunPhase{Run: run.Name, Phase: ph.Name})
		}
	}
	return out
}

// disruptedResult is the phase's result in the cell's first repetition
// whose disruptions the report shows (as firstSeries chooses a series),
// and that run; nil when none reached a disruption.
func disruptedResult(c *Cell, phase string) (*benchv1.PhaseResult, *benchv1.BenchmarkRun) {
	for _, r := range c.Runs {
		if r.Run == nil || !c.shows(&r) {
			continue
		}
		res := resultOf(r.Run, phase)
		if res == nil {
			continue
		}
		for _, d := range res.Disruptions {
			if d.Outcome.State != benchv1.DisruptionNotReached {
				return res, r.Run
			}
		}
	}
	return nil, nil
}

// unavailableMicros is how long a disruption's window lasted: the slowest
// loader's time to its first successful write, or read when no loader
// wrote; false when no loader recovered (nothing to shade: the
// vertical line stands alone, and the tables say "never").
func unavailableMicros(d *benchv1.DisruptionResult) (int64, bool) {
	if w := d.WriteUnavailable; w != nil {
		return w.MaxMicros, w.Loaders > 0
	}
	if r := d.ReadUnavailable; r != nil {
		return r.MaxMicros, r.Loaders > 0
	}
	return 0, false
}

// disruptionMarks are a phase's disruptions on a chart whose x is seconds
// since the measured window started: a line per disruption reached, and
// each window shaded in the colour of line (the cell's).
func disruptionMarks(res *benchv1.PhaseResult, line int) ([]instant, []span) {
	var ins []instant
	var sps []span
	for i := range res.Disruptions {
		d := &res.Disruptions[i]
		if d.Outcome.State == benchv1.DisruptionNotReached {
			continue
		}
		at := d.At.Seconds()
		ins = append(ins, instant{X: at, Label: fmt.Sprintf("%d %s", d.Index, d.ActionLabel())})
		if us, ok := unavailableMicros(d); ok {
			sps = append(sps, span{X0: at, X1: at + float64(us)/1e6, Line: line})
		}
	}
	return ins, sps
}

// marksNote says what a disruption chart's lines and shading are.
const marksNote = "Dashed: each disruption's instant; shaded in the line's colour: its unavailability window, " +
	"from the instant to the end of the slowest loader's first successful write (read, without writes)."

// addDisruptionMarks marks the disruptions of the cells drawn on a chart
// of the phase over time: the instants once (every cell's disruptions are
// at the same at), each cell's windows in its line's colour.
func addDisruptionMarks(sp *chartSpec, drawn []*benchv1.PhaseResult) bool {
	marked := false
	for li, res := range drawn {
		ins, sps := disruptionMarks(res, li)
		for _, in := range ins {
			if !containsInstant(sp.Instants, in) {
				sp.Instants = append(sp.Instants, in)
			}
		}
		sp.Spans = append(sp.Spans, sps...)
		marked = marked || len(ins) > 0
	}
	return marked
}

func containsInstant(xs []instant, in instant) bool {
	for _, x := range xs {
		if x.X == in.X && x.Label == in.Label {
			return true
		}
	}
	return false
}

// p99OverTimeChart draws a phase with disruptions' p99 over time from
// status: its series keeps each operation's p99 per interval, so a line
// per cell and operation (an interval without a success has no point),
// each cell the repetition the throughput chart draws. nil when the phase
// has no disruption reached or no p99 series.
func (s *Study) p99OverTimeChart(ph Phase) (chartSpec, string) {
	sp := chartSpec{Title: "p99 latency over time: " + ph.Name + " (" + string(ph.Type) + ")",
		XLabel: "time since the phase started (s)", YLabel: "p99 latency (µs)"}
	var omitted []string
	for ci := range s.Cells {
		c := &s.Cells[ci]
		res, _ := firstSeries(c, ph.Name)
		if res == nil || len(res.TimeSeries.P99Micros) == 0 || wholeIntervals(res) < minSeriesIntervals {
			continue
		}
		if ins, _ := disruptionMarks(res, 0); len(ins) == 0 {
			continue
		}
		ts := res.TimeSeries
		whole := wholeIntervals(res)
		first := len(sp.Lines)
		for _, op := range ts.P99Micros {
			if len(sp.Lines) == maxSeriesLines {
				omitted = append(omitted, c.Name+" "+op.Name)
				continue
			}
			name := op.Name
			if len(s.Cells) > 1 {
				name = c.Name + " " + op.Name
			}
			line := series{Name: name}
			for i, v := range op.Values[:min(whole, len(op.Values))] {
				if v > 0 {
					line.XYs = append(line.XYs, plotter.XY{X: float64(int64(i+1)*ts.IntervalMillis) / 1000, Y: float64(v)})
				}
			}
			if len(line.XYs) > 0 {
				sp.Lines = append(sp.Lines, line)
			}
		}
		if len(sp.Lines) > first {
			// The cell's windows once, in the colour of its first line.
			ins, sps := disruptionMarks(res, first)
			for _, in := range ins {
				if !containsInstant(sp.Instants, in) {
					sp.Instants = append(sp.Instants, in)
				}
			}
			sp.Spans = append(sp.Spans, sps...)
		}
	}
	if len(sp.Lines) == 0 {
		return sp, ""
	}
	notes := []string{"Each operation's p99 per interval of the phase's series (status keeps no p99 of all operations " +
		"per interval); an interval in which an operation had no success has no point.", marksNote}
	if len(omitted) > 0 {
		notes = append(notes, fmt.Sprintf("%d lines not drawn, to keep the chart readable: %s.", len(omitted), strings.Join(omitted, ", ")))
	}
	return sp, strings.Join(notes, " ")
}

// zoomCharts draws each disruption of the phase at its series' 100 ms
// resolution, from the merged results the report has: throughput (a line
// per cell of its successful operations, and of its failed ones where it
// had any) and p99 of the successful operations, x in seconds from the
// instant.
func (s *Study) zoomCharts(ph Phase, merged map[RunPhase]*results.Result) []chartSpec {
	type drawn struct {
		cell string
		res  *benchv1.PhaseResult
		m    *results.Result
	}
	var cells []drawn
	for ci := range s.Cells {
		c := &s.Cells[ci]
		res, run := disruptedResult(c, ph.Name)
		if res == nil {
			continue
		}
		if m := merged[RunPhase{Run: run.Name, Phase: ph.Name}]; m != nil {
			cells = append(cells, drawn{c.Name, res, m})
		}
		if len(cells) == maxSeriesLines {
			break
		}
	}
	if len(cells) == 0 {
		return nil
	}
	var out []chartSpec
	for _, d0 := range cells[0].res.Disruptions {
		if d0.Outcome.State == benchv1.DisruptionNotReached {
			continue
		}
		name := fmt.Sprintf("disruption %d (%s at %s): %s (%s)", d0.Index, d0.ActionLabel(), d0.At.Duration, ph.Name, ph.Type)
		thr := chartSpec{Title: "Throughput around " + name, XLabel: "time from the disruption (s)", YLabel: "throughput (ops/s)",
			Instants: []instant{{X: 0, Label: fmt.Sprintf("%d %s", d0.Index, d0.ActionLabel())}}, LegendBelow: len(cells) > 1, NoPoints: true}
		lat := chartSpec{Title: "p99 latency around " + name, XLabel: thr.XLabel, YLabel: "p99 latency (µs)",
			Instants: thr.Instants, LegendBelow: thr.LegendBelow, NoPoints: true}
		for _, c := range cells {
			md := mergedDisruption(c.m, d0.Index)
			sd := statusDisruption(c.res, d0.Index)
			if md == nil || sd == nil || len(md.Series.Points) == 0 {
				continue
			}
			prefix := ""
			if len(cells) > 1 {
				prefix = c.cell + ": "
			}
			ok, failed, p99 := zoomLines(md)
			if us, recovered := unavailableMicros(sd); recovered {
				thr.Spans = append(thr.Spans, span{X0: 0, X1: float64(us) / 1e6, Line: len(thr.Lines)})
				lat.Spans = append(lat.Spans, span{X0: 0, X1: float64(us) / 1e6, Line: len(lat.Lines)})
			}
			thr.Lines = append(thr.Lines, series{Name: prefix + "succeeded", XYs: ok})
			if failed != nil {
				thr.Lines = append(thr.Lines, series{Name: prefix + "failed", XYs: failed})
			}
			if len(p99) > 0 {
				lat.Lines = append(lat.Lines, series{Name: prefix + "p99", XYs: p99})
			}
		}
		out = append(out, thr, lat)
	}
	return out
}

// zoomLines are a disruption's series as lines, x in seconds from the
// instant at each interval's end: the successful operations' throughput,
// the failed ones' (nil when none failed) and the p99 of the successful
// ones (no point where none succeeded).
func zoomLines(d *results.Disruption) (ok, failed, p99 plotter.XYs) {
	anyFailed := false
	for i := range d.Series.Points {
		p := &d.Series.Points[i]
		x := float64(d.SeriesStartMillis+int64(i)*d.Series.IntervalMillis+p.Millis) / 1000
		var n, nf int64
		h := results.NewSeriesHistogram()
		for _, o := range p.Ops {
			n += o.Count
			nf += o.Failed
			if o.Latency.Count() > 0 {
				h.Merge(o.Latency)
			}
		}
		rate := func(k int64) float64 { return float64(k) * 1000 / float64(p.Millis) }
		ok = append(ok, plotter.XY{X: x, Y: rate(n - nf)})
		failed = append(failed, plotter.XY{X: x, Y: rate(nf)})
		anyFailed = anyFailed || nf > 0
		if h.Count() > 0 {
			p99 = append(p99, plotter.XY{X: x, Y: float64(h.Percentile(99))})
		}
	}
	if !anyFailed {
		failed = nil
	}
	return ok, failed, p99
}

func mergedDisruption(m *results.Result, index int32) *results.Disruption {
	for i := range m.Disruptions {
		if m.Disruptions[i].Index == int(index) {
			return &m.Disruptions[i]
		}
	}
	return nil
}

func statusDisruption(res *benchv1.PhaseResult, index int32) *benchv1.DisruptionResult {
	for i := range res.Disruptions {
		if res.Disruptions[i].Index == index {
			return &res.Disruptions[i]
		}
	}
	return nil
}

// zoomNote says what a 100 ms chart shows.
const zoomNote = "At the 100 ms resolution of the disruption's series, from the phase's merged result (every loader's " +
	"operations together), one repetition per cell. " + marksNote

// mergedResults decodes the study's merged results of the phases
// DisruptionSeries names, those the report has; one that does not decode
// is left out (the plugin checked it when it read it).
func (s *Study) mergedResults() map[RunPhase]*results.Result {
	out := map[RunPhase]*results.Result{}
	for _, rp := range s.DisruptionSeries() {
		b := s.Histograms[rp.Run][rp.Phase]
		if b == nil {
			continue
		}
		if m, err := results.DecodeMerged(b); err == nil {
			out[rp] = m
		}
	}
	return out
}

// disruptionPlot is what marks disruptions on a chart: the shaded windows
// (drawn under the lines), the instants' dashed lines and labels (over
// them), and their legend entries.
type disruptionPlot struct {
	under, over []plot.Plotter
	legend      []legendLine
}

// markHeight is how high the marks reach: a little above the highest
// point of any line, so they span the plot without setting its scale.
func markHeight(lines []series) float64 {
	top := 0.0
	for _, l := range lines {
		for _, xy := range l.XYs {
			top = max(top, xy.Y)
		}
	}
	if top <= 0 {
		return 1
	}
	return top * 1.04
}

// disruptionPlotters draws sp's spans and instants.
func disruptionPlotters(sp chartSpec) (disruptionPlot, error) {
	var out disruptionPlot
	top := markHeight(sp.Lines)
	for _, w := range sp.Spans {
		if w.X1 <= w.X0 {
			continue
		}
		band, err := plotter.NewPolygon(plotter.XYs{{X: w.X0, Y: 0}, {X: w.X1, Y: 0}, {X: w.X1, Y: top}, {X: w.X0, Y: top}})
		if err != nil {
			return out, fmt.Errorf("chart %q, unavailability window: %w", sp.Title, err)
		}
		r, g, b, _ := palette[w.Line%len(palette)].RGBA()
		band.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x40}
		band.Width = 0
		out.under = append(out.under, band)
		if len(out.legend) == 0 {
			out.legend = append(out.legend, legendLine{Name: windowLegend, Thumbs: []plot.Thumbnailer{band}})
		}
	}
	if len(sp.Instants) == 0 {
		return out, nil
	}
	xys := make(plotter.XYs, 0, len(sp.Instants))
	labels := make([]string, 0, len(sp.Instants))
	var first *plotter.Line
	for _, in := range sp.Instants {
		l, err := plotter.NewLine(plotter.XYs{{X: in.X, Y: 0}, {X: in.X, Y: top}})
		if err != nil {
			return out, fmt.Errorf("chart %q, disruption %s: %w", sp.Title, in.Label, err)
		}
		l.Color = color.Black
		l.Width = vg.Points(1)
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		out.over = append(out.over, l)
		if first == nil {
			first = l
		}
		xys = append(xys, plotter.XY{X: in.X, Y: top})
		labels = append(labels, in.Label)
	}
	names, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return out, fmt.Errorf("chart %q, disruption labels: %w", sp.Title, err)
	}
	for i := range names.TextStyle {
		names.TextStyle[i].Font.Size = vg.Points(9)
		names.TextStyle[i].YAlign = draw.YTop
	}
	names.Offset = vg.Point{X: vg.Points(3)}
	out.over = append(out.over, names)
	out.legend = append([]legendLine{{Name: instantLegend, Thumbs: []plot.Thumbnailer{first}}}, out.legend...)
	return out, nil
}

// The legend's names of the marks.
const (
	instantLegend = "disruption"
	windowLegend  = "unavailable (slowest loader)"
)
