package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
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
// ready to be inlined into HTML.
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
}

// marker is a labelled point drawn over the lines (a knee).
type marker struct {
	X, Y  float64
	Label string
}

type chartSpec struct {
	Title, XLabel, YLabel string
	Lines                 []series
	Markers               []marker
	// XTicks names the x values (axis values by their numbers); nil: the
	// XTicker's ticks.
	XTicks []plot.Tick
	// XTicker labels the x axis without XTicks; nil: readableTicks.
	XTicker plot.Ticker
	// XFromZero starts the x axis at 0 (a count, such as records).
	XFromZero bool
	// LegendBelow puts the legend under the plot, in columns in reading
	// order, for lines with long names (cells), which a legend right of
	// the plot would squeeze it for.
	LegendBelow bool
}

// charts draws every chart of the study: for each numeric axis (and each
// combination of the other axes) throughput, p99, intended p99 (when a
// phase measured it) and mean latency against the axis with one line per
// phase and the knees marked, peak server
// connections where telemetry recorded them; then each phase's throughput
// over time, one line per cell.
func (s *Study) charts() ([]chart, error) {
	var out []chart
	connAxes := s.connectionAxes()
	for ai, a := range s.Axes {
		if !a.Numeric {
			continue
		}
		ticks := make([]plot.Tick, len(a.Values))
		for i, v := range a.Values {
			ticks[i] = plot.Tick{Value: *v.Number, Label: v.Name}
		}
		for _, sl := range s.cut(ai) {
			at := ""
			if sl.Title != "" {
				at = " (" + sl.Title + ")"
			}
			specs := []chartSpec{
				s.axisChart(a, sl, metricThroughput, "Throughput against "+a.Name+at),
				s.axisChart(a, sl, metricP99, "p99 latency against "+a.Name+at),
			}
			if s.measuresIntended() {
				specs = append(specs, s.axisChart(a, sl, metricIntendedP99, "Intended p99 latency against "+a.Name+at))
			}
			specs = append(specs, s.axisChart(a, sl, metricMean, "Mean latency against "+a.Name+at))
			specs[0].Markers = s.kneeMarkers(a, sl)
			if connAxes[ai] {
				if c := s.connectionChart(a, sl, "Peak server connections against "+a.Name+at); len(c.Lines) > 0 {
					specs = append(specs, c)
				}
			}
			for _, sp := range specs {
				sp.XTicks = ticks
				var err error
				if out, err = appendChart(out, sp, ""); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, ph := range s.Phases {
		sp, note := s.timeSeriesChart(ph)
		var err error
		if out, err = appendChart(out, sp, note); err != nil {
			return nil, err
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

// axisChart plots a metric of a slice against the axis's numbers, a line
// per phase that has the metric.
func (s *Study) axisChart(a Axis, sl slice, m metric, title string) chartSpec {
	sp := chartSpec{Title: title, XLabel: a.Name, YLabel: m.Unit}
	for _, ph := range s.Phases {
		line := series{Name: ph.Name}
		for vi, c := range sl.Cells {
			if c == nil {
				continue
			}
			if r := c.Result(ph.Name); r != nil && !math.IsNaN(m.value(r)) {
				line.XYs = append(line.XYs, plotter.XY{X: *a.Values[vi].Number, Y: m.value(r)})
			}
		}
		if len(line.XYs) > 0 {
			sp.Lines = append(sp.Lines, line)
		}
	}
	return sp
}

// kneeMarkers marks the status's knees of the slice's phases.
func (s *Study) kneeMarkers(a Axis, sl slice) []marker {
	var out []marker
	for _, k := range s.Knees {
		if k.Axis == a.Name && k.At == sl.Title {
			out = append(out, marker{X: k.Number, Y: k.Throughput, Label: k.Phase})
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

func (s *Study) connectionChart(a Axis, sl slice, title string) chartSpec {
	sp := chartSpec{Title: title, XLabel: a.Name, YLabel: "peak connections (any MongoDB process)"}
	for _, ph := range s.Phases {
		line := series{Name: ph.Name}
		for vi, c := range sl.Cells {
			if c == nil {
				continue
			}
			if r := c.Result(ph.Name); r != nil && r.PeakConnections != nil {
				line.XYs = append(line.XYs, plotter.XY{X: *a.Values[vi].Number, Y: float64(*r.PeakConnections)})
			}
		}
		if len(line.XYs) > 0 {
			sp.Lines = append(sp.Lines, line)
		}
	}
	return sp
}

// timeSeriesChart plots a phase's throughput over time, one line per cell
// from its first repetition that has a series and is not invalid, at most
// maxSeriesLines.
func (s *Study) timeSeriesChart(ph Phase) (chartSpec, string) {
	sp := chartSpec{Title: "Throughput over time: " + ph.Name + " (" + string(ph.Type) + ")",
		XLabel: "time since the phase started (s)", YLabel: "throughput (ops/s)"}
	var omitted []string
	for ci := range s.Cells {
		c := &s.Cells[ci]
		ts, rep := firstSeries(c, ph.Name)
		if ts == nil {
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
		for i, v := range ts.Throughput {
			line.XYs = append(line.XYs, plotter.XY{X: float64(int64(i+1)*ts.IntervalMillis) / 1000, Y: v})
		}
		sp.Lines = append(sp.Lines, line)
	}
	note := ""
	if s.Repetitions > 1 && len(sp.Lines) > 0 {
		note = "One repetition per cell (the first with a series)."
	}
	if len(omitted) > 0 {
		note = strings.TrimSpace(note + fmt.Sprintf(" %d cells not drawn, to keep the chart readable: %s.", len(omitted), strings.Join(omitted, ", ")))
	}
	return sp, note
}

func firstSeries(c *Cell, phase string) (*benchv1.TimeSeries, int32) {
	for _, r := range c.Runs {
		if r.Run == nil || !c.single && r.Run.Invalid() != nil {
			// An invalid run's series is not the cell's.
			continue
		}
		for i := range r.Run.Status.Results {
			res := &r.Run.Status.Results[i]
			if res.Name == phase && res.TimeSeries != nil && len(res.TimeSeries.Throughput) > 0 && res.TimeSeries.IntervalMillis > 0 {
				return res.TimeSeries, r.Repetition
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
		pad := math.Max((hi-lo)*0.05, 0.5)
		p.X.Min, p.X.Max = lo-pad, hi+pad
	}
	legend := plot.NewLegend()
	legend.Top = true
	legend.Left = true
	entries := make([]legendLine, 0, len(sp.Lines))
	for i, l := range sp.Lines {
		line, points, err := plotter.NewLinePoints(l.XYs)
		if err != nil {
			return "", fmt.Errorf("chart %q, line %s: %w", sp.Title, l.Name, err)
		}
		line.Color = palette[i%len(palette)]
		line.Width = vg.Points(1.5)
		points.Color = line.Color
		points.Shape = plotutil.Shape(i)
		p.Add(line, points)
		legend.Add(l.Name, line, points)
		entries = append(entries, legendLine{Name: l.Name, Thumbs: []plot.Thumbnailer{line, points}})
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
		names, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
		if err != nil {
			return "", fmt.Errorf("chart %q, knee labels: %w", sp.Title, err)
		}
		for i := range names.TextStyle {
			names.TextStyle[i].YAlign = draw.YCenter
			names.TextStyle[i].Font.Size = vg.Points(9)
		}
		names.Offset = vg.Point{X: vg.Points(8)}
		p.Add(knees, names)
		legend.Add("knee (95% of best)", knees)
		entries = append(entries, legendLine{Name: "knee (95% of best)", Thumbs: []plot.Thumbnailer{knees}})
	}
	if sp.LegendBelow {
		return drawSVGLegendBelow(p, entries, sp.Title)
	}
	return drawSVG(p, legend, sp.Title)
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
