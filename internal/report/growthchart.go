package report

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// growthCharts draws a Grow phase's figures against the records in the
// collection, the way the growth study showed them: a chart per metric
// (insert rate and p99, each query class's throughput and p99, data,
// index and storage size) with a line per cell, at most maxSeriesLines.
func (s *Study) growthCharts() ([]chart, error) {
	var out []chart
	for _, gp := range s.growth {
		for _, m := range gp.metrics() {
			sp, note := s.growthChart(gp, m)
			var err error
			if out, err = appendChart(out, sp, note); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// growthChart lays out a metric of a Grow phase: x the records (from 0,
// ticks like 50M), y the metric (sizes in the unit their largest value
// makes readable), a line per cell.
func (s *Study) growthChart(gp growthPhase, m growthMetric) (chartSpec, string) {
	sp := chartSpec{Title: m.Name + " against records (phase " + gp.Phase.Name + ")", XLabel: "records", YLabel: m.Unit,
		XTicker: countTicks{}, XFromZero: true, LegendBelow: true}
	scale := 1.0
	if m.bytes {
		u := gp.byteUnit(m)
		scale = u.Scale
		sp.YLabel += " (" + u.Name + ")"
	}
	var omitted []string
	for _, c := range gp.Cells {
		line := series{Name: c.Cell.Name}
		for i := range c.Rows {
			if v := m.value(&c.Rows[i]); !math.IsNaN(v) {
				line.XYs = append(line.XYs, plotter.XY{X: float64(c.Rows[i].Records), Y: v / scale})
			}
		}
		if len(line.XYs) == 0 {
			continue
		}
		if len(sp.Lines) == maxSeriesLines {
			omitted = append(omitted, c.Cell.Name)
			continue
		}
		sp.Lines = append(sp.Lines, line)
	}
	var notes []string
	if m.note != "" {
		notes = append(notes, m.note)
	}
	if s.Repetitions > 1 && len(sp.Lines) > 0 {
		notes = append(notes, "Median across each cell's successful repetitions.")
	}
	if len(omitted) > 0 {
		notes = append(notes, fmt.Sprintf("%d cells not drawn, to keep the chart readable: %s.", len(omitted), strings.Join(omitted, ", ")))
	}
	return sp, strings.Join(notes, " ")
}

// countTicks label a count axis: four to six steps of 1, 2, 2.5 or 5
// times a power of ten, written like 50M or 1.5M, with four unlabelled
// ticks between.
type countTicks struct{}

func (countTicks) Ticks(lo, hi float64) []plot.Tick {
	span := hi - lo
	if !(span > 0) || math.IsInf(span, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	mag := math.Pow(10, math.Floor(math.Log10(span)))
	step := 10 * mag
	for _, m := range []float64{0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5} {
		if span/(m*mag) <= 6 {
			step = m * mag
			break
		}
	}
	minor := step / 5
	var ticks []plot.Tick
	for i := math.Ceil(lo / minor); i*minor <= hi*(1+1e-12); i++ {
		t := plot.Tick{Value: i * minor}
		if math.Mod(i, 5) == 0 {
			t.Label, _ = compactCount(t.Value)
		}
		ticks = append(ticks, t)
	}
	return ticks
}
