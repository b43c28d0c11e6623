package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/compare"
)

// A history chart shows one compared metric over the gated run's
// history: x is the run's place counted back from the gated run (0), so
// "-3" is the third run before it and the table of the same numbers names
// it. The gate's view is drawn over the values: its baseline (the median
// of the regime it compared with) across the regime, a vertical line
// between the two runs of each change point, and the gated run in the
// colour of its verdict. What is drawn around the baseline depends on how
// the gate decided. With the statistical test, a verdict needs a small
// p-value and a change of at least minMagnitudePercent: the band of
// ±minMagnitudePercent is where a change never counts, not a line a value
// crosses into a regression, and its legend says so. With the threshold
// fallback, the change alone decides: the two thresholds are drawn as
// lines, labelled as thresholds.

// Colours of the verdicts and of what the gate made of each run.
var (
	verdictColors = map[benchv1.CompareVerdict]color.Color{
		benchv1.VerdictRegressed:    palette[2],
		benchv1.VerdictImproved:     palette[4],
		benchv1.VerdictAcknowledged: palette[1],
	}
	regimeColor  = palette[0]
	earlierColor = rgb(0x9ab6d3) // the regime's blue, faded
	outsideColor = palette[9]
	minorColor   = rgb(0x999999)
)

// changeKind is what a change point meant to the gate.
type changeKind int

const (
	// changeRegime: the gate's regime starts here.
	changeRegime changeKind = iota
	// changeMajor: an earlier change of at least minMagnitudePercent.
	changeMajor
	// changeMinor: smaller than minMagnitudePercent; ignored.
	changeMinor
)

// changeLine is a change point drawn between two runs.
type changeLine struct {
	X     float64
	Label string
	Kind  changeKind
}

// historyChart is a metric's history chart as data: what renderHistory
// draws, and what the tests check.
type historyChart struct {
	// Title is short (the metric and its verdict): the caption has the
	// rest.
	Title, YLabel string
	// Line joins every point in order; Regime, Earlier and Outside are
	// the history's points by what the gate made of them: compared with,
	// earlier in its window, older than its window.
	Line, Regime, Earlier, Outside plotter.XYs
	// Current is the gated run; its colour and legend say the verdict.
	Current      *plotter.XY
	CurrentColor color.Color
	CurrentLabel string
	// Baseline and the band are drawn from BandFrom to the gated run;
	// HasBaseline is false when the gate had nothing to compare with.
	HasBaseline        bool
	Baseline, BandFrom float64
	BandPercent        float64
	// Thresholds: the gate decided by BandPercent alone (too few runs
	// for the test), so its bounds are thresholds.
	Thresholds bool
	Changes    []changeLine
	XTicks     []plot.Tick
}

// historyChartOf lays out a metric's history; false when there is too
// little to draw (fewer than two points).
func historyChartOf(mh *MetricHistory) (historyChart, bool) {
	n := len(mh.Points)
	if n < 2 {
		return historyChart{}, false
	}
	last := n - 1
	x := func(i int) float64 { return float64(i - last) }
	hc := historyChart{Title: mh.Metric, YLabel: mh.Metric + " (" + mh.Unit + ")"}
	for i, p := range mh.Points {
		xy := plotter.XY{X: x(i), Y: p.Value}
		hc.Line = append(hc.Line, xy)
		switch {
		case p.Current:
			hc.Current = &xy
		case p.InRegime:
			hc.Regime = append(hc.Regime, xy)
		case p.InWindow:
			hc.Earlier = append(hc.Earlier, xy)
		default:
			hc.Outside = append(hc.Outside, xy)
		}
	}
	hc.CurrentColor, hc.CurrentLabel = color.Black, "this run"
	if c := mh.Comparison; c != nil {
		verdict := string(c.Verdict) + " " + percent(c.ChangePercent)
		hc.Title += ": " + verdict
		hc.CurrentLabel += ": " + verdict
		if vc, ok := verdictColors[c.Verdict]; ok {
			hc.CurrentColor = vc
		}
	}
	if mh.Basis != "" {
		hc.HasBaseline, hc.Baseline, hc.BandPercent = true, mh.Baseline, mh.BandPercent
		hc.Thresholds = strings.HasPrefix(mh.Basis, "thresholds")
		hc.BandFrom = x(0) - 0.5
		if mh.RegimeStart >= 0 {
			hc.BandFrom = x(mh.RegimeStart) - 0.5
		}
	}
	for _, cp := range mh.ChangePoints {
		if cp.Index < 0 {
			continue
		}
		cl := changeLine{X: x(cp.Index) - 0.5, Label: percent(cp.ChangePercent), Kind: changeMajor}
		switch {
		case cp.RegimeStart:
			cl.Kind = changeRegime
		case cp.Minor:
			cl.Kind = changeMinor
		}
		hc.Changes = append(hc.Changes, cl)
	}
	hc.XTicks = offsetTicks(n)
	return hc, true
}

// historyTitle is the chart's title and the table's caption: the
// metric and the gate's verdict, in the words of the Regressed condition.
func historyTitle(mh *MetricHistory) string {
	c := mh.Comparison
	if c == nil {
		return mh.Metric + ": no verdict in status.comparison"
	}
	s := compare.Summary(mh.Metric, compare.Result{ChangePercent: c.ChangePercent, PValue: c.PValue, Basis: c.Basis}) + ": " + string(c.Verdict)
	if c.Acknowledged != "" {
		s += " (" + c.Acknowledged + ")"
	}
	return s
}

// offsetTicks labels the runs' places: about ten labels, the gated run
// as "this run", a tick (unlabelled) at every run.
func offsetTicks(n int) []plot.Tick {
	step := 1
	for _, s := range []int{1, 2, 5, 10, 20, 50, 100} {
		step = s
		if n/s <= 10 {
			break
		}
	}
	var out []plot.Tick
	for i := -(n - 1); i <= 0; i++ {
		t := plot.Tick{Value: float64(i)}
		switch {
		case i == 0:
			t.Label = "this run"
		case -i%step == 0 && -i > step/2:
			t.Label = strconv.Itoa(i)
		}
		out = append(out, t)
	}
	return out
}

// historyCharts draws the history chart of each compared metric.
func (h *History) charts() ([]chart, error) {
	var out []chart
	for i := range h.Metrics {
		mh := &h.Metrics[i]
		hc, ok := historyChartOf(mh)
		if !ok {
			continue
		}
		svg, err := renderHistory(hc)
		if err != nil {
			return nil, err
		}
		out = append(out, chart{Title: "History of " + historyTitle(mh), Note: regimeText(h, mh), SVG: svg})
	}
	return out, nil
}

// regimeText says what the gate compared the run with.
func regimeText(h *History, mh *MetricHistory) string {
	if mh.Basis == "" {
		return strings.Join(mh.Notes, " ")
	}
	since := ""
	for _, cp := range mh.ChangePoints {
		if cp.RegimeStart {
			since = " since the change point at " + cp.Run
		}
	}
	need := fmt.Sprintf("a p-value below %s and a change of at least %s%%", strconv.FormatFloat(h.PValue, 'g', -1, 64), plain(mh.BandPercent))
	if strings.HasPrefix(mh.Basis, "thresholds") {
		need = fmt.Sprintf("a change of more than %s%% (maxRegressionPercent; %s)", plain(mh.BandPercent), mh.Basis)
	}
	s := fmt.Sprintf("Baseline: the median of the %d runs%s, %s %s; a verdict needs %s.",
		mh.RegimeRuns, since, number(mh.Baseline, mh.decimals()), mh.Unit, need)
	if len(mh.Notes) > 0 {
		s += " " + strings.Join(mh.Notes, " ")
	}
	return s
}

// renderHistory draws a history chart into an SVG element, its legend
// right of the plot as render does: the gated run first, then the
// history's points, the gate's baseline and band, the change points.
func renderHistory(hc historyChart) (string, error) {
	p := plot.New()
	p.Title.Text = hc.Title
	p.X.Label.Text = "runs before this one (oldest left)"
	p.Y.Label.Text = hc.YLabel
	p.Y.Tick.Marker = readableTicks{}
	p.X.Tick.Marker = plot.ConstantTicks(hc.XTicks)
	p.Add(plotter.NewGrid())
	p.X.Min, p.X.Max = hc.Line[0].X-0.7, 0.7

	// The y range holds the values and the band, with room above for
	// the change points' labels.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, xy := range hc.Line {
		lo, hi = math.Min(lo, xy.Y), math.Max(hi, xy.Y)
	}
	band := hc.Baseline * hc.BandPercent / 100
	if hc.HasBaseline {
		lo, hi = math.Min(lo, hc.Baseline-band), math.Max(hi, hc.Baseline+band)
	}
	pad := (hi - lo) * 0.08
	if pad == 0 {
		pad = math.Max(math.Abs(hi)*0.05, 1)
	}
	// Values are never negative: the axis stops at 0 if it gets there.
	p.Y.Min, p.Y.Max = math.Max(lo-pad, math.Min(lo, 0)), hi+2.5*pad

	var current, points, gate, changes []legendEntry
	fail := func(what string, err error) error { return fmt.Errorf("chart %q, %s: %w", hc.Title, what, err) }

	if hc.HasBaseline {
		left, right := hc.BandFrom, 0.3
		switch {
		case band > 0 && hc.Thresholds:
			// Beyond either line the change alone is a verdict.
			for i, y := range []float64{hc.Baseline - band, hc.Baseline + band} {
				l, err := plotter.NewLine(plotter.XYs{{X: left, Y: y}, {X: right, Y: y}})
				if err != nil {
					return "", fail("threshold", err)
				}
				l.Color, l.Width, l.Dashes = palette[2], vg.Points(1), []vg.Length{vg.Points(2), vg.Points(2)}
				p.Add(l)
				if i == 0 {
					gate = append(gate, legendEntry{"verdict threshold ±" + plain(hc.BandPercent) + "%", l})
				}
			}
		case band > 0:
			poly, err := plotter.NewPolygon(plotter.XYs{{X: left, Y: hc.Baseline - band}, {X: right, Y: hc.Baseline - band},
				{X: right, Y: hc.Baseline + band}, {X: left, Y: hc.Baseline + band}})
			if err != nil {
				return "", fail("band", err)
			}
			poly.Color = color.NRGBA{R: 0x4e, G: 0x79, B: 0xa7, A: 0x30}
			poly.Width = 0
			p.Add(poly)
			gate = append(gate, legendEntry{"±" + plain(hc.BandPercent) + "%: never a verdict", poly})
		}
		base, err := plotter.NewLine(plotter.XYs{{X: left, Y: hc.Baseline}, {X: right, Y: hc.Baseline}})
		if err != nil {
			return "", fail("baseline", err)
		}
		base.Color, base.Width, base.Dashes = rgb(0x555555), vg.Points(1), []vg.Length{vg.Points(5), vg.Points(3)}
		p.Add(base)
		gate = append([]legendEntry{{"baseline (median)", base}}, gate...)
	}

	// Change points: a vertical line each, its change on top.
	var cpXYs plotter.XYs
	var cpLabels []string
	seen := map[changeKind]bool{}
	for _, cl := range hc.Changes {
		l, err := plotter.NewLine(plotter.XYs{{X: cl.X, Y: p.Y.Min}, {X: cl.X, Y: p.Y.Max}})
		if err != nil {
			return "", fail("change point", err)
		}
		name := ""
		switch cl.Kind {
		case changeRegime:
			l.Color, l.Width, name = palette[2], vg.Points(1.5), "change point: regime starts"
		case changeMajor:
			l.Color, l.Width, l.Dashes, name = palette[2], vg.Points(1), []vg.Length{vg.Points(4), vg.Points(3)}, "earlier change point"
		case changeMinor:
			l.Color, l.Width, l.Dashes, name = minorColor, vg.Points(1), []vg.Length{vg.Points(1), vg.Points(3)}, "change below the minimum"
		}
		p.Add(l)
		if !seen[cl.Kind] {
			seen[cl.Kind] = true
			changes = append(changes, legendEntry{name, l})
		}
		cpXYs = append(cpXYs, plotter.XY{X: cl.X, Y: p.Y.Max})
		cpLabels = append(cpLabels, cl.Label)
	}
	if len(cpXYs) > 0 {
		labels, err := plotter.NewLabels(plotter.XYLabels{XYs: cpXYs, Labels: cpLabels})
		if err != nil {
			return "", fail("change point labels", err)
		}
		for i := range labels.TextStyle {
			labels.TextStyle[i].YAlign = draw.YTop
			labels.TextStyle[i].Font.Size = vg.Points(8)
		}
		labels.Offset = vg.Point{X: vg.Points(3), Y: -vg.Points(2)}
		p.Add(labels)
	}

	line, err := plotter.NewLine(hc.Line)
	if err != nil {
		return "", fail("line", err)
	}
	line.Color, line.Width = rgb(0xbbbbbb), vg.Points(1)
	p.Add(line)
	for _, g := range []struct {
		xys   plotter.XYs
		c     color.Color
		name  string
		glyph draw.GlyphDrawer
	}{
		{hc.Regime, regimeColor, "compared with", draw.CircleGlyph{}},
		{hc.Earlier, earlierColor, "earlier in the window", draw.CircleGlyph{}},
		{hc.Outside, outsideColor, "older than the window", draw.CrossGlyph{}},
	} {
		if len(g.xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(g.xys)
		if err != nil {
			return "", fail(g.name, err)
		}
		sc.Color, sc.Shape, sc.Radius = g.c, g.glyph, vg.Points(3)
		p.Add(sc)
		points = append(points, legendEntry{g.name, sc})
	}
	if hc.Current != nil {
		cur, err := plotter.NewScatter(plotter.XYs{*hc.Current})
		if err != nil {
			return "", fail("this run", err)
		}
		cur.Color, cur.Shape, cur.Radius = hc.CurrentColor, draw.PyramidGlyph{}, vg.Points(6)
		p.Add(cur)
		current = append(current, legendEntry{hc.CurrentLabel, cur})
	}

	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	for _, e := range slices.Concat(current, points, gate, changes) {
		legend.Add(e.name, e.thumb)
	}
	return drawSVG(p, legend, hc.Title)
}

// legendEntry is a line of a chart's legend.
type legendEntry struct {
	name  string
	thumb plot.Thumbnailer
}
