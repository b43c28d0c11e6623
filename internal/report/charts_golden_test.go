package report

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	goldenfile "github.com/mongobench/mongobench/internal/testutil/golden"
)

// docsChart is the chart the docs show (docs/reports.md): the connections
// study fixture's throughput of its run phase against threads, drawn by
// this package, so the docs show what users get.
const docsChart = "../../docs/img/connections-throughput.svg"

// goldenAt compares got with the file at path (relative to this
// package), or rewrites it with -update, like golden.
func goldenAt(t *testing.T, path string, got []byte) {
	t.Helper()
	goldenfile.Check(t, path, got, *update, "go test ./internal/report -update")
}

// renderSpec draws a chart spec, failing the test on an error.
func renderSpec(t *testing.T, sp chartSpec) string {
	t.Helper()
	svg, err := render(sp)
	if err != nil {
		t.Fatal(err)
	}
	return svg
}

// chartTitled finds a chart of the study by its title.
func chartTitled(t *testing.T, charts []chart, title string) chart {
	t.Helper()
	for _, c := range charts {
		if c.Title == title {
			return c
		}
	}
	var titles []string
	for _, c := range charts {
		titles = append(titles, c.Title)
	}
	t.Fatalf("no chart %q among %q", title, titles)
	return chart{}
}

// The connections study compares pool sizes along threads: each phase
// gets its own throughput chart, threads on a log₂ x, a line per pool
// size with the repetitions' min–max, and the knees.
func TestAxisChartsComparePoolSizes(t *testing.T) {
	s := sweepStudy(t, "pool")
	ax, err := s.AxisIndex("threads")
	if err != nil {
		t.Fatal(err)
	}
	m := chartMetric{"Throughput", metricThroughput.Unit, metricThroughput.value}
	for _, ph := range s.Phases {
		sp := s.axisChart(s.Axes[ax], s.cut(ax), m, ph)
		var names []string
		for _, l := range sp.Lines {
			names = append(names, l.Name)
			if len(l.XYs) == 0 || l.Spread == nil || len(l.Spread) != len(l.XYs) {
				t.Errorf("%s, %s: %d points, %d whiskers", sp.Title, l.Name, len(l.XYs), len(l.Spread))
			}
		}
		if want := []string{"maxPoolSize=10", "maxPoolSize=100", "maxPoolSize=unbounded"}; !slices.Equal(names, want) {
			t.Errorf("%s: lines %q, want %q", sp.Title, names, want)
		}
		if !sp.XLog2 || sp.XLabel != "threads (log₂ scale)" {
			t.Errorf("%s: x %q, log₂ %v", sp.Title, sp.XLabel, sp.XLog2)
		}
	}
	// The whiskers are the repetitions' range: 8 threads, pool 10, run.
	c := s.cut(ax)[0].Cells[0]
	lo, hi := repetitionRange(c, "run", metricThroughput.value)
	r := c.Result("run")
	if !(lo < hi) || r.MinThroughput != lo || r.MaxThroughput != hi {
		t.Errorf("%s: range [%v, %v], the sweep's [%v, %v]", c.Name, lo, hi, r.MinThroughput, r.MaxThroughput)
	}

	charts, err := s.charts()
	if err != nil {
		t.Fatal(err)
	}
	for _, ph := range s.Phases {
		chartTitled(t, charts, "Throughput against threads (phase "+ph.Name+")")
	}
	doc := chartTitled(t, charts, "Throughput against threads (phase run)")
	for _, w := range []string{"threads (log₂ scale)", "maxPoolSize=unbounded", whiskerLegend, "knee (95% of best)", ">128<"} {
		if !strings.Contains(doc.SVG, w) {
			t.Errorf("the run phase's chart has no %q", w)
		}
	}
	goldenAt(t, docsChart, []byte(doc.SVG+"\n"))
	// The docs show it: a chart no page links is no documentation.
	if md, err := os.ReadFile("../../docs/reports.md"); err != nil || !strings.Contains(string(md), "](img/connections-throughput.svg)") {
		t.Errorf("docs/reports.md does not show %s (%v)", docsChart, err)
	}
}

// An axis that does not double is linear; one line, named "median",
// when there is no other axis.
func TestAxisChartLinear(t *testing.T) {
	s := sweepStudy(t, "microsharding")
	charts, err := s.charts()
	if err != nil {
		t.Fatal(err)
	}
	c := chartTitled(t, charts, "Throughput against topology (phase S2)")
	if strings.Contains(c.SVG, "log₂") || !strings.Contains(c.SVG, ">median<") {
		t.Errorf("the S2 chart is on a log axis or has no line named median")
	}
	goldenAt(t, "testdata/microsharding-throughput-S2.svg", []byte(c.SVG+"\n"))
}

func TestDoubles(t *testing.T) {
	for _, tc := range []struct {
		values []float64
		want   bool
	}{
		{[]float64{1, 2, 4, 8, 16, 32, 64, 80}, true}, // the connections study
		{[]float64{8, 32, 128}, true},
		{[]float64{128, 8, 32}, true},     // in any order
		{[]float64{1, 2, 4, 6, 8}, false}, // shards: steps of 2
		{[]float64{10, 20, 30, 40}, false},
		{[]float64{1, 2}, false},          // two points need no scale
		{[]float64{0, 1, 2, 4, 8}, false}, // no log of 0
		{[]float64{2, 4, 8}, false},       // two doublings: a linear axis shows them
		{[]float64{1, 2, 4, 8, 9, 10, 11}, false},
	} {
		a := Axis{Name: "x"}
		for _, v := range tc.values {
			a.Values = append(a.Values, AxisValue{Number: ptrTo(v)})
		}
		if got := doubles(a); got != tc.want {
			t.Errorf("doubles(%v) = %v, want %v", tc.values, got, tc.want)
		}
	}
}

// withTails gives the first series of each cell's phase a last interval
// of 1 ms, as a loader whose threads finish just after a whole interval
// records it: a rate of few operations.
func withTails(s *Study, phase string) {
	for ci := range s.Cells {
		res, _ := firstSeries(&s.Cells[ci], phase)
		if res == nil {
			continue
		}
		ts := res.TimeSeries
		ts.Throughput = append(ts.Throughput, 666)
		res.RuntimeMillis = int64(len(ts.Throughput)-1)*ts.IntervalMillis + 1
	}
}

// The last, partial interval is not drawn: no line ends in a collapse.
func TestTimeSeriesDropsPartialInterval(t *testing.T) {
	s := sweepStudy(t, "pool")
	plain, _ := s.timeSeriesChart(s.Phases[1])
	withTails(s, "run")
	sp, note := s.timeSeriesChart(s.Phases[1])
	if len(sp.Lines) == 0 || len(sp.Lines) != len(plain.Lines) {
		t.Fatalf("%d lines, %d without tails", len(sp.Lines), len(plain.Lines))
	}
	for i, l := range sp.Lines {
		if !slices.Equal(l.XYs, plain.Lines[i].XYs) {
			t.Errorf("%s: %v, want the series without its tail %v", l.Name, l.XYs, plain.Lines[i].XYs)
		}
	}
	if !strings.Contains(note, "Each line ends at its last whole interval") {
		t.Errorf("note %q says nothing of the partial interval", note)
	}
	svg := renderSpec(t, sp)
	goldenAt(t, "testdata/pool-time-run.svg", []byte(svg+"\n"))
}

func TestWholeIntervals(t *testing.T) {
	res := func(runtime int64, n int) *benchv1.PhaseResult {
		return &benchv1.PhaseResult{RuntimeMillis: runtime, TimeSeries: &benchv1.TimeSeries{IntervalMillis: 1000, Throughput: make([]float64, n)}}
	}
	for _, tc := range []struct {
		runtime int64
		n, want int
	}{
		{10000, 10, 10}, // whole
		{10001, 11, 10}, // a 1 ms tail
		{10500, 11, 10}, // half an interval
		{10950, 11, 11}, // within a tenth of a whole one
		{9998, 10, 10},  // the runtime's clock a little short
		{0, 5, 5},       // no runtime: take the series as it is
	} {
		if got := wholeIntervals(res(tc.runtime, tc.n)); got != tc.want {
			t.Errorf("%d points over %d ms: %d whole, want %d", tc.n, tc.runtime, got, tc.want)
		}
	}
}

// A phase shorter than three intervals has no time chart; the page says
// why where the chart would be.
func TestShortPhaseHasNoTimeChart(t *testing.T) {
	s := sweepStudy(t, "pool")
	for ci := range s.Cells {
		for _, r := range s.Cells[ci].Runs {
			if r.Run == nil {
				continue
			}
			for i := range r.Run.Status.Results {
				if res := &r.Run.Status.Results[i]; res.Name == "load" && res.TimeSeries != nil {
					res.TimeSeries.IntervalMillis = 1000
					res.TimeSeries.Throughput = []float64{30000, 31000, 12}
					res.RuntimeMillis = 2004
				}
			}
		}
	}
	charts, err := s.charts()
	if err != nil {
		t.Fatal(err)
	}
	c := chartTitled(t, charts, "Throughput over time: load (Load)")
	want := "No chart of phase load's throughput over time: it ran 2.004 s, fewer than 3 whole intervals of 1 s, too short for a trend; the tables have its numbers."
	if c.SVG != "" || c.Note != want {
		t.Errorf("load: %d bytes of SVG, note %q; want none and %q", len(c.SVG), c.Note, want)
	}
	if c := chartTitled(t, charts, "Throughput over time: run (Run)"); c.SVG == "" {
		t.Error("the run phase lost its time chart")
	}
	var buf bytes.Buffer
	if err := HTML(&buf, s, Options{}); err != nil {
		t.Fatal(err)
	}
	if page := buf.String(); !strings.Contains(page, `<p class="note">No chart of phase load&#39;s throughput over time: it ran 2.004 s`) {
		t.Error("the page does not say why the load phase has no time chart")
	}
}

// The gated run's history chart, as the statistical test decided it: the
// band is where a change never counts, labelled so, not a threshold.
func TestHistoryChartGolden(t *testing.T) {
	s := nightlyStudy(t, 0)
	hc, ok := historyChartOf(&s.History.Metrics[0])
	if !ok || hc.Thresholds {
		t.Fatalf("chart %v, thresholds %v: want the test's chart", ok, hc.Thresholds)
	}
	svg, err := renderHistory(hc)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(svg, ">±5%: never a verdict<") || strings.Contains(svg, "threshold") || strings.Contains(svg, "needed") {
		t.Error("the band is not labelled as where a change never counts, or is called a threshold")
	}
	goldenAt(t, "testdata/nightly-history.svg", []byte(svg+"\n"))
}

// With too few runs for the test the gate decides by maxRegressionPercent
// alone: the chart draws those thresholds as lines, named thresholds,
// and no band.
func TestHistoryChartThresholds(t *testing.T) {
	var runs []benchv1.BenchmarkRun
	for i, v := range []float64{1000, 1010, 995, 1005, 860} {
		r := benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "r" + string(rune('a'+i)), UID: types.UID(rune('A' + i))}}
		r.Status.Phase = benchv1.RunSucceeded
		r.Status.CompletionTime = &metav1.Time{Time: nightlyStart.Add(time.Duration(i) * time.Hour)}
		r.Status.Results = []benchv1.PhaseResult{{Name: "a", Throughput: v}}
		r.Spec.Compare = &benchv1.CompareSpec{Baseline: benchv1.CompareBaseline{History: &benchv1.HistoryBaseline{Window: 30, MinRuns: 5}},
			Metrics: []benchv1.CompareMetric{{Phase: "a", Metric: benchv1.MetricThroughput, MaxRegressionPercent: ptrTo(10.0)}}}
		runs = append(runs, r)
	}
	s := FromRun(runs[4].DeepCopy(), nil)
	if err := s.AddHistory(runs, 0); err != nil {
		t.Fatal(err)
	}
	mh := &s.History.Metrics[0]
	hc, ok := historyChartOf(mh)
	if !ok || !hc.Thresholds || hc.BandPercent != 10 {
		t.Fatalf("chart %v, basis %q, thresholds %v at %v%%", ok, mh.Basis, hc.Thresholds, hc.BandPercent)
	}
	svg, err := renderHistory(hc)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(svg, ">verdict threshold ±10%<") || strings.Contains(svg, "never a verdict") {
		t.Error("the thresholds are not drawn as thresholds")
	}
	goldenAt(t, "testdata/history-thresholds.svg", []byte(svg+"\n"))
}

// More combinations of the other axes than colours: the first
// maxSeriesLines are drawn, the note names the rest, and knees only of
// the lines drawn.
func TestAxisChartsBounded(t *testing.T) {
	s := &Study{Kind: KindSweep, Name: "wide", Repetitions: 1, Phases: []Phase{{Name: "run", Type: benchv1.PhaseRun}}}
	threads := Axis{Name: "threads", Numeric: true}
	for _, n := range []float64{1, 2, 4} {
		threads.Values = append(threads.Values, AxisValue{Name: strconv.Itoa(int(n)), Number: ptrTo(n)})
	}
	other := Axis{Name: "x"}
	for i := 0; i < 12; i++ {
		other.Values = append(other.Values, AxisValue{Name: "v" + strconv.Itoa(i)})
	}
	s.Axes = []Axis{threads, other}
	for _, th := range threads.Values {
		for _, o := range other.Values {
			s.Cells = append(s.Cells, Cell{Name: th.Name + "/" + o.Name, baseline: -1,
				Values:  []benchv1.SweepCellValue{{Axis: "threads", Value: th.Name, Number: th.Number}, {Axis: "x", Value: o.Name}},
				Results: []benchv1.SweepPhaseStats{{Name: "run", Repetitions: 1, MedianThroughput: 100 * *th.Number}}})
		}
	}
	for _, at := range []string{"x=v0", "x=v11"} {
		s.Knees = append(s.Knees, benchv1.SweepKnee{Axis: "threads", Phase: "run", At: at, Value: "2", Number: 2, Throughput: 200})
	}
	charts, err := s.charts()
	if err != nil {
		t.Fatal(err)
	}
	c := chartTitled(t, charts, "Throughput against threads (phase run)")
	if c.Note != "2 lines not drawn, to keep the chart readable: x=v10; x=v11." {
		t.Errorf("note %q", c.Note)
	}
	if n := strings.Count(c.SVG, ">x=v"); n != maxSeriesLines {
		t.Errorf("%d lines in the legend, want %d", n, maxSeriesLines)
	}
	if ms := s.kneeMarkers(threads, s.cut(0)[:maxSeriesLines], s.Phases[0]); len(ms) != 1 {
		t.Errorf("%d knees marked, want the one of a line drawn", len(ms))
	}
}
