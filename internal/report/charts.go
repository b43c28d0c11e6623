package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/results"
)

// maxSeriesLines bounds the lines of a time-series chart: beyond about ten
// colours a chart stops being readable, and the tables hold every cell.
const maxSeriesLines = 10

// chartWidth and chartHeight are every chart's size; the page scales them
// down on narrow screens.
const (
	chartWidth  = 7 * vg.Inch
	chartHeight = 3.6 * vg.Inch
)

// palette is Tableau's ten categorical colours: distinct for up to
// maxSeriesLines lines, and a fixed order keeps renderings stable.
var palette = []color.Color{
	rgb(0x4e79a7), rgb(0xf28e2b), rgb(0xe15759), rgb(0x76b7b2), rgb(0x59a14f),
	rgb(0xedc948), rgb(0xb07aa1), rgb(0xff9da7), rgb(0x9c755f), rgb(0xbab0ac),
}

func rgb(v uint32) color.Color {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

// chart is one rendered chart: an SVG document without its XML prolog,
// ready to be inlined into HTML. A chart without SVG is one the report
// does not draw, and its note says why.
type chart struct {
	Title string
	// Note says what the chart leaves out, if anything.
	Note string
	SVG  string
}

// series is one line of a chart.
type series struct {
	Name string
	XYs  plotter.XYs
	// Spread is the min–max whisker of each point, as distances below
	// and above it; nil without repetitions to spread.
	Spread plotter.YErrors
}

// marker is a labelled point drawn over the lines (a knee).
type marker struct {
	X, Y  float64
	Label string
}

// instant is a vertical dashed line across a chart at X, labelled at
// its top (a disruption's instant).
type instant struct {
	X     float64
	Label string
}

// span is a shaded stretch of x, in the colour of line Line (a cell's
// unavailability window), under the lines.
type span struct {
	X0, X1 float64
	Line   int
}

type chartSpec struct {
	Title, XLabel, YLabel string
	Lines                 []series
	Markers               []marker
	// Instants and Spans mark disruptions (disruptionchart.go); a chart
	// without them is drawn as it always was.
	Instants []instant
	Spans    []span
	// XTicks names the x values (axis values by their numbers); nil: the
	// XTicker's ticks.
	XTicks []plot.Tick
	// XTicker labels the x axis without XTicks; nil: readableTicks.
	XTicker plot.Ticker
	// XFromZero starts the x axis at 0 (a count, such as records).
	XFromZero bool
	// XLog2 draws x on a log₂ scale: axis values that double would bunch
	// up at the left of a linear one.
	XLog2 bool
	// LegendBelow puts the legend under the plot, in columns in reading
	// order, for lines with long names (cells), which a legend right of
	// the plot would squeeze it for.
	LegendBelow bool
	// NoPoints draws the lines without a glyph at each point: a series
	// of hundreds of points (100 ms) would be a smear of glyphs.
	NoPoints bool
}

// chartMetric is what an axis chart plots of a phase.
type chartMetric struct {
	// Title starts the chart's title ("Throughput against threads").
	Title, Unit string
	value       func(*benchv1.SweepPhaseStats) float64
}

func peakConnections(r *benchv1.SweepPhaseStats) float64 {
	if r.PeakConnections == nil {
		return math.NaN()
	}
	return float64(*r.PeakConnections)
}

// charts draws every chart of the study. For each numeric axis, what the
// study compares: throughput, p99, intended p99 (where a phase measured
// it), mean latency and peak server connections (where telemetry
// recorded them) against the axis, a chart per metric and phase — phases
// differ by orders of magnitude, so they never share a y axis — with a
// line per combination of the other axes' values, the repetitions'
// spread as whiskers and the knees marked. Then each phase's throughput
// over time, one line per cell; a phase too short for one is a chart
// without SVG whose note says why.
func (s *Study) charts() ([]chart, error) {
	var out []chart
	connAxes := s.connectionAxes()
	for ai, a := range s.Axes {
		if !a.Numeric {
			continue
		}
		metrics := []chartMetric{
			{"Throughput", metricThroughput.Unit, metricThroughput.value},
			{"p99 latency", metricP99.Unit, metricP99.value},
			{"Intended p99 latency", metricIntendedP99.Unit, metricIntendedP99.value},
			{"Mean latency", metricMean.Unit, metricMean.value},
		}
		if connAxes[ai] {
			metrics = append(metrics, chartMetric{"Peak server connections", "peak connections (any MongoDB process)", peakConnections})
		}
		cuts := s.cut(ai)
		var omitted []string
		if len(cuts) > maxSeriesLines {
			// Beyond maxSeriesLines colours repeat; the tables have
			// every slice.
			for _, sl := range cuts[maxSeriesLines:] {
				omitted = append(omitted, sl.Title)
			}
			cuts = cuts[:maxSeriesLines]
		}
		for mi, m := range metrics {
			for _, ph := range s.Phases {
				sp := s.axisChart(a, cuts, m, ph)
				if mi == 0 {
					sp.Markers = s.kneeMarkers(a, cuts, ph)
				}
				note := s.spreadNote(sp)
				if len(omitted) > 0 {
					note = strings.TrimSpace(note + fmt.Sprintf(" %d lines not drawn, to keep the chart readable: %s.", len(omitted), strings.Join(omitted, "; ")))
				}
				var err error
				if out, err = appendChart(out, sp, note); err != nil {
					return nil, err
				}
			}
		}
	}
	var merged map[RunPhase]*results.Result
	if len(s.disruptions) > 0 {
		merged = s.mergedResults()
	}
	for _, ph := range s.Phases {
		sp, note := s.timeSeriesChart(ph)
		if len(sp.Lines) == 0 && note != "" {
			out = append(out, chart{Title: sp.Title, Note: note})
			continue
		}
		var err error
		if out, err = appendChart(out, sp, note); err != nil {
			return nil, err
		}
		if len(s.disruptions) == 0 {
			continue
		}
		// A phase with disruptions: its p99 over time, then each
		// disruption at 100 ms.
		if sp, note := s.p99OverTimeChart(ph); len(sp.Lines) > 0 {
			if out, err = appendChart(out, sp, note); err != nil {
				return nil, err
			}
		}
		for _, sp := range s.zoomCharts(ph, merged) {
			if out, err = appendChart(out, sp, zoomNote); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// appendChart renders sp, with its note, after the charts of out; a spec
// without lines is no chart.
func appendChart(out []chart, sp chartSpec, note string) ([]chart, error) {
	if len(sp.Lines) == 0 {
		return out, nil
	}
	svg, err := render(sp)
	if err != nil {
		return nil, err
	}
	return append(out, chart{Title: sp.Title, Note: note, SVG: svg}), nil
}

// spreadNote says what the points and whiskers of an axis chart are.
func (s *Study) spreadNote(sp chartSpec) string {
	for _, l := range sp.Lines {
		if l.Spread != nil {
			return "Points: the median of each cell's usable repetitions; whiskers: their minimum and maximum."
		}
	}
	if s.Repetitions > 1 {
		return "Points: the median of each cell's usable repetitions (no whisker where they agree or only one is usable)."
	}
	return ""
}

// axisChart plots a metric of a phase against the axis's numbers: a line
// per slice (combination of the other axes' values), named by those
// values, each point the cell's median with its repetitions' min–max.
func (s *Study) axisChart(a Axis, cuts []slice, m chartMetric, ph Phase) chartSpec {
	sp := chartSpec{Title: m.Title + " against " + a.Name + " (phase " + ph.Name + ")", XLabel: a.Name, YLabel: m.Unit,
		XTicks: make([]plot.Tick, len(a.Values)), XLog2: doubles(a)}
	for i, v := range a.Values {
		sp.XTicks[i] = plot.Tick{Value: *v.Number, Label: v.Name}
	}
	if sp.XLog2 {
		sp.XLabel += " (log₂ scale)"
	}
	for _, sl := range cuts {
		line := series{Name: sl.Title}
		if line.Name == "" {
			line.Name = "median"
		}
		var spread plotter.YErrors
		spreads := false
		for vi, c := range sl.Cells {
			if c == nil {
				continue
			}
			r := c.Result(ph.Name)
			if r == nil || math.IsNaN(m.value(r)) {
				continue
			}
			med := m.value(r)
			line.XYs = append(line.XYs, plotter.XY{X: *a.Values[vi].Number, Y: med})
			lo, hi := repetitionRange(c, ph.Name, m.value)
			e := struct{ Low, High float64 }{math.Max(0, med-lo), math.Max(0, hi-med)}
			if math.IsNaN(lo) {
				e.Low, e.High = 0, 0
			}
			spreads = spreads || e.Low > 0 || e.High > 0
			spread = append(spread, e)
		}
		if spreads {
			line.Spread = spread
		}
		if len(line.XYs) > 0 {
			sp.Lines = append(sp.Lines, line)
		}
	}
	return sp
}

// repetitionRange is the least and greatest value of a cell's phase
// across the repetitions the cell shows (NaN without two of them).
func repetitionRange(c *Cell, phase string, value func(*benchv1.SweepPhaseStats) float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	n := 0
	for _, run := range c.measured() {
		for i := range run.Status.Results {
			res := &run.Status.Results[i]
			if res.Name != phase {
				continue
			}
			ps := phaseStats(res)
			if v := value(&ps); !math.IsNaN(v) {
				lo, hi, n = math.Min(lo, v), math.Max(hi, v), n+1
			}
		}
	}
	if n < 2 {
		return math.NaN(), math.NaN()
	}
	return lo, hi
}

// doubles reports whether an axis's values roughly double from one to
// the next (1, 2, 4, … 80; 8, 32, 128): on a linear axis all but the
// last few would crowd its left edge. Most steps must at least
// about double (×1.8), and the values span three doublings.
func doubles(a Axis) bool {
	vs := make([]float64, 0, len(a.Values))
	for _, v := range a.Values {
		if v.Number == nil || *v.Number <= 0 {
			return false
		}
		vs = append(vs, *v.Number)
	}
	if len(vs) < 3 {
		return false
	}
	sort.Float64s(vs)
	big := 0
	for i := 1; i < len(vs); i++ {
		if vs[i]/vs[i-1] >= 1.8 {
			big++
		}
	}
	return 2*big > len(vs)-1 && vs[len(vs)-1]/vs[0] >= 8
}

// kneeMarkers marks the status's knees of the phase along the axis, one
// per slice drawn; the ring sits on its slice's line, whose colour names
// it.
func (s *Study) kneeMarkers(a Axis, cuts []slice, ph Phase) []marker {
	var out []marker
	for _, k := range s.Knees {
		drawn := slices.ContainsFunc(cuts, func(sl slice) bool { return sl.Title == k.At })
		if k.Axis == a.Name && k.Phase == ph.Name && drawn {
			out = append(out, marker{X: k.Number, Y: k.Throughput})
		}
	}
	return out
}

// connectionAxes chooses the axes to plot connections against, when any
// phase has telemetry: a numeric axis named threads (connections follow
// the client's threads), else every numeric axis.
func (s *Study) connectionAxes() map[int]bool {
	out := map[int]bool{}
	has := false
	for _, c := range s.Cells {
		for _, r := range c.Results {
			has = has || r.PeakConnections != nil
		}
	}
	if !has {
		return out
	}
	for i, a := range s.Axes {
		if a.Numeric && strings.EqualFold(a.Name, "threads") {
			out[i] = true
			return out
		}
	}
	for i, a := range s.Axes {
		out[i] = a.Numeric
	}
	return out
}

// minSeriesIntervals is the fewest whole intervals a line of throughput
// over time needs: with fewer it is a point or two, not a trend, and the
// tables say the same better.
const minSeriesIntervals = 3

// timeSeriesChart plots a phase's throughput over time, one line per cell
// from its first repetition that has a series and is not invalid, at most
// maxSeriesLines. A last interval shorter than the others is left out:
// the loader's threads finish one by one in it, so its rate is not the
// phase's, and drawn at a whole interval's place it looked like a
// collapse at the end of every line. A cell with fewer than
// minSeriesIntervals whole intervals gets no line; a phase none of whose
// cells has one gets no chart, and the note says why.
func (s *Study) timeSeriesChart(ph Phase) (chartSpec, string) {
	sp := chartSpec{Title: "Throughput over time: " + ph.Name + " (" + string(ph.Type) + ")",
		XLabel: "time since the phase started (s)", YLabel: "throughput (ops/s)"}
	var omitted, short []string
	partial := 0
	var shortest *benchv1.PhaseResult
	// drawn are the lines' phase results, in line order.
	var drawn []*benchv1.PhaseResult
	for ci := range s.Cells {
		c := &s.Cells[ci]
		res, rep := firstSeries(c, ph.Name)
		if res == nil {
			continue
		}
		ts := res.TimeSeries
		whole := wholeIntervals(res)
		if whole < len(ts.Throughput) {
			partial++
		}
		if whole < minSeriesIntervals {
			short = append(short, c.Name)
			if shortest == nil || res.RuntimeMillis < shortest.RuntimeMillis {
				shortest = res
			}
			continue
		}
		if len(sp.Lines) == maxSeriesLines {
			omitted = append(omitted, c.Name)
			continue
		}
		name := c.Name
		if s.Repetitions > 1 {
			name += fmt.Sprintf(" (r%d)", rep)
		}
		line := series{Name: name}
		for i, v := range ts.Throughput[:whole] {
			line.XYs = append(line.XYs, plotter.XY{X: float64(int64(i+1)*ts.IntervalMillis) / 1000, Y: v})
		}
		sp.Lines = append(sp.Lines, line)
		drawn = append(drawn, res)
	}
	if len(sp.Lines) == 0 {
		if shortest == nil {
			return sp, ""
		}
		return sp, fmt.Sprintf("No chart of phase %s's throughput over time: it ran %s, fewer than %d whole intervals of %s, "+
			"too short for a trend; the tables have its numbers.",
			ph.Name, seconds(shortest.RuntimeMillis), minSeriesIntervals, seconds(shortest.TimeSeries.IntervalMillis))
	}
	var notes []string
	if s.Repetitions > 1 {
		notes = append(notes, "One repetition per cell (the first with a series).")
	}
	if partial > 0 {
		notes = append(notes, "Each line ends at its last whole interval: the shorter last one, as the threads finish, is left out.")
	}
	if len(short) > 0 {
		notes = append(notes, fmt.Sprintf("%d cells not drawn, with fewer than %d whole intervals: %s.", len(short), minSeriesIntervals, strings.Join(short, ", ")))
	}
	if len(omitted) > 0 {
		notes = append(notes, fmt.Sprintf("%d cells not drawn, to keep the chart readable: %s.", len(omitted), strings.Join(omitted, ", ")))
	}
	if addDisruptionMarks(&sp, drawn) {
		notes = append(notes, marksNote)
	}
	return sp, strings.Join(notes, " ")
}

// wholeIntervals is how many of a phase's series points cover a whole
// interval: all but the last when the phase's runtime ends before the
// last interval does (by more than a tenth of one: the loaders' clocks
// and the runtime's are not the same to the millisecond). Without a
// runtime every point counts.
func wholeIntervals(res *benchv1.PhaseResult) int {
	ts := res.TimeSeries
	n := len(ts.Throughput)
	if res.RuntimeMillis <= 0 || n == 0 {
		return n
	}
	if last := res.RuntimeMillis - int64(n-1)*ts.IntervalMillis; last*10 < ts.IntervalMillis*9 {
		return n - 1
	}
	return n
}

// seconds writes milliseconds as seconds, like "2.5 s" or "120 s".
func seconds(ms int64) string {
	return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) + " s"
}

// firstSeries is the phase's result with a series in the cell's first
// repetition that has one, and that repetition.
func firstSeries(c *Cell, phase string) (*benchv1.PhaseResult, int32) {
	for _, r := range c.Runs {
		if r.Run == nil || !c.single && r.Run.Invalid() != nil {
			// An invalid run's series is not the cell's.
			continue
		}
		for i := range r.Run.Status.Results {
			res := &r.Run.Status.Results[i]
			if res.Name == phase && res.TimeSeries != nil && len(res.TimeSeries.Throughput) > 0 && res.TimeSeries.IntervalMillis > 0 {
				return res, r.Repetition
			}
		}
	}
	return nil, 0
}

// render draws a chart with gonum/plot into an SVG element. The legend
// goes right of the plot, where it cannot hide a line.
func render(sp chartSpec) (string, error) {
	p := plot.New()
	p.Title.Text = sp.Title
	p.X.Label.Text = sp.XLabel
	p.Y.Label.Text = sp.YLabel
	p.Y.Min = 0
	p.Y.Tick.Marker = readableTicks{}
	p.X.Tick.Marker = readableTicks{}
	if sp.XTicker != nil {
		p.X.Tick.Marker = sp.XTicker
	}
	if sp.XFromZero {
		p.X.Min = 0
	}
	p.Add(plotter.NewGrid())
	if sp.XTicks != nil {
		p.X.Tick.Marker = plot.ConstantTicks(sp.XTicks)
		// Room for the first and last value's names.
		lo, hi := sp.XTicks[0].Value, sp.XTicks[0].Value
		for _, t := range sp.XTicks {
			lo, hi = math.Min(lo, t.Value), math.Max(hi, t.Value)
		}
		if sp.XLog2 {
			// The same room in doublings.
			pad := math.Max((math.Log2(hi)-math.Log2(lo))*0.05, 0.15)
			p.X.Min, p.X.Max = lo/math.Exp2(pad), hi*math.Exp2(pad)
		} else {
			pad := math.Max((hi-lo)*0.05, 0.5)
			p.X.Min, p.X.Max = lo-pad, hi+pad
		}
	}
	if sp.XLog2 {
		p.X.Scale = plot.LogScale{}
	}
	legend := plot.NewLegend()
	legend.Top = true
	legend.Left = true
	entries := make([]legendLine, 0, len(sp.Lines))
	var marks disruptionPlot
	if len(sp.Spans)+len(sp.Instants) > 0 {
		var err error
		if marks, err = disruptionPlotters(sp); err != nil {
			return "", err
		}
		// The windows under the lines, the instants over them.
		p.Add(marks.under...)
	}
	whiskers := false
	for i, l := range sp.Lines {
		line, points, err := plotter.NewLinePoints(l.XYs)
		if err != nil {
			return "", fmt.Errorf("chart %q, line %s: %w", sp.Title, l.Name, err)
		}
		line.Color = palette[i%len(palette)]
		line.Width = vg.Points(1.5)
		points.Color = line.Color
		points.Shape = plotutil.Shape(i)
		if sp.NoPoints {
			p.Add(line)
			legend.Add(l.Name, line)
			entries = append(entries, legendLine{Name: l.Name, Thumbs: []plot.Thumbnailer{line}})
			continue
		}
		p.Add(line, points)
		if l.Spread != nil {
			bars, err := plotter.NewYErrorBars(struct {
				plotter.XYs
				plotter.YErrors
			}{l.XYs, l.Spread})
			if err != nil {
				return "", fmt.Errorf("chart %q, line %s's whiskers: %w", sp.Title, l.Name, err)
			}
			bars.Color = line.Color
			bars.Width = vg.Points(1)
			bars.CapWidth = vg.Points(6)
			p.Add(bars)
			whiskers = true
		}
		legend.Add(l.Name, line, points)
		entries = append(entries, legendLine{Name: l.Name, Thumbs: []plot.Thumbnailer{line, points}})
	}
	if whiskers {
		legend.Add(whiskerLegend, whiskerThumb{})
		entries = append(entries, legendLine{Name: whiskerLegend, Thumbs: []plot.Thumbnailer{whiskerThumb{}}})
	}
	if len(sp.Markers) > 0 {
		xys := make(plotter.XYs, len(sp.Markers))
		labels := make([]string, len(sp.Markers))
		for i, m := range sp.Markers {
			xys[i] = plotter.XY{X: m.X, Y: m.Y}
			labels[i] = m.Label
		}
		knees, err := plotter.NewScatter(xys)
		if err != nil {
			return "", fmt.Errorf("chart %q, knees: %w", sp.Title, err)
		}
		knees.Shape = draw.RingGlyph{}
		knees.Radius = vg.Points(6)
		knees.Color = color.Black
		p.Add(knees)
		if labelled := slices.ContainsFunc(sp.Markers, func(m marker) bool { return m.Label != "" }); labelled {
			names, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
			if err != nil {
				return "", fmt.Errorf("chart %q, knee labels: %w", sp.Title, err)
			}
			for i := range names.TextStyle {
				names.TextStyle[i].YAlign = draw.YCenter
				names.TextStyle[i].Font.Size = vg.Points(9)
			}
			names.Offset = vg.Point{X: vg.Points(8)}
			p.Add(names)
		}
		legend.Add("knee (95% of best)", knees)
		entries = append(entries, legendLine{Name: "knee (95% of best)", Thumbs: []plot.Thumbnailer{knees}})
	}
	p.Add(marks.over...)
	for _, e := range marks.legend {
		legend.Add(e.Name, e.Thumbs...)
	}
	entries = append(entries, marks.legend...)
	if sp.LegendBelow {
		return drawSVGLegendBelow(p, entries, sp.Title)
	}
	return drawSVG(p, legend, sp.Title)
}

// whiskerLegend names the whiskers in a legend.
const whiskerLegend = "min–max of repetitions"

// whiskerThumb draws a whisker in a legend: a grey vertical bar with
// caps, since each line's whiskers are in its colour.
type whiskerThumb struct{}

func (whiskerThumb) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	w := vg.Points(3)
	sty := draw.LineStyle{Color: rgb(0x555555), Width: vg.Points(1)}
	c.StrokeLine2(sty, x, c.Min.Y, x, c.Max.Y)
	c.StrokeLine2(sty, x-w, c.Min.Y, x+w, c.Min.Y)
	c.StrokeLine2(sty, x-w, c.Max.Y, x+w, c.Max.Y)
}

// legendLine is a legend's entry: a name and what it looks like.
type legendLine struct {
	Name   string
	Thumbs []plot.Thumbnailer
}

// drawSVGLegendBelow draws a plot of chartWidth × chartHeight with its
// legend under it, as many columns as the names allow, entries in
// reading order (left to right, then down), in an SVG element.
func drawSVGLegendBelow(p *plot.Plot, entries []legendLine, title string) (string, error) {
	const margin = 40 // points left of the legend: about the y axis's labels
	newLegend := func() plot.Legend {
		l := plot.NewLegend()
		l.Top, l.Left = true, true
		l.TextStyle.Font.Size = vg.Points(10)
		return l
	}
	measure := draw.New(vgsvg.New(chartWidth, chartHeight))
	var widest vg.Length
	for _, e := range entries {
		l := newLegend()
		l.Add(e.Name, e.Thumbs...)
		widest = max(widest, l.Rectangle(measure).Size().X)
	}
	colWidth := widest + vg.Points(16)
	cols := max(1, min(len(entries), int((chartWidth-vg.Points(margin))/colWidth)))
	columns := make([]plot.Legend, cols)
	for i := range columns {
		columns[i] = newLegend()
	}
	for i, e := range entries {
		columns[i%cols].Add(e.Name, e.Thumbs...)
	}
	var lh vg.Length
	for _, l := range columns {
		lh = max(lh, l.Rectangle(measure).Size().Y)
	}
	pad := vg.Points(8)
	height := chartHeight + lh + pad
	c := vgsvg.New(chartWidth, height)
	dc := draw.New(c)
	p.Draw(draw.Crop(dc, 0, 0, lh+pad, 0))
	for i, l := range columns {
		l.Draw(draw.Crop(dc, vg.Points(margin)+vg.Length(i)*colWidth, 0, 0, -(height - lh - pad/2)))
	}
	return svgElement(c, title)
}

// drawSVG draws a plot and its legend, right of it, into an SVG element.
func drawSVG(p *plot.Plot, legend plot.Legend, title string) (string, error) {
	c := vgsvg.New(chartWidth, chartHeight)
	dc := draw.New(c)
	lw := legend.Rectangle(dc).Size().X + vg.Points(16)
	p.Draw(draw.Crop(dc, 0, -lw, 0, 0))
	legend.Draw(draw.Crop(dc, chartWidth-lw+vg.Points(8), 0, 0, -vg.Points(24)))
	return svgElement(c, title)
}

// svgElement is what was drawn on c as an SVG element to inline into
// HTML: the document without its XML declaration, which an inline <svg>
// takes none of.
func svgElement(c *vgsvg.Canvas, title string) (string, error) {
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return "", fmt.Errorf("render chart %q: %w", title, err)
	}
	svg := buf.String()
	if i := strings.Index(svg, "<svg"); i > 0 {
		svg = svg[i:]
	}
	return svg, nil
}

// readableTicks are gonum's default ticks labelled like the tables:
// thousands separators, no decimals on whole numbers.
type readableTicks struct{}

func (readableTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	whole := true
	for _, t := range ticks {
		whole = whole && (t.Label == "" || t.Value == math.Trunc(t.Value))
	}
	for i, t := range ticks {
		if t.Label == "" {
			continue
		}
		if whole {
			ticks[i].Label = number(t.Value, 0)
		} else {
			ticks[i].Label = strconv.FormatFloat(t.Value, 'f', tickDecimals(ticks), 64)
		}
	}
	return ticks
}

// tickDecimals is the fewest decimals that write every labelled tick
// exactly (up to floating-point noise: 0.6000000000000001 is 0.6).
func tickDecimals(ticks []plot.Tick) int {
	for d := 0; d < 10; d++ {
		scale := math.Pow(10, float64(d))
		exact := true
		for _, t := range ticks {
			if t.Label != "" {
				r := math.Round(t.Value*scale) / scale
				exact = exact && math.Abs(r-t.Value) <= 1e-9*math.Max(1, math.Abs(t.Value))
			}
		}
		if exact {
			return d
		}
	}
	return 10
}
