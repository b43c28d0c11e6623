package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// nightlyStudy is the gated run's study with its history (shown runs; 0:
// the gate's window).
func nightlyStudy(t *testing.T, shown int) *Study {
	t.Helper()
	run, all := loadNightly(t)
	s := FromRun(run, nil)
	if err := s.AddHistory(all, shown); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestHistoryGolden(t *testing.T) {
	var md bytes.Buffer
	if err := Markdown(&md, nightlyStudy(t, 0), Options{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "nightly.md", md.Bytes())
	// --history 12: the latest 12 runs, the regime's start among them.
	var out bytes.Buffer
	if err := CSV(&out, nightlyStudy(t, 12)); err != nil {
		t.Fatal(err)
	}
	golden(t, "nightly-history12.csv", out.Bytes())
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatalf("the CSV is not one rectangular table: %v", err)
	}
	// The gated run's rows, then 12 history runs' (oldest first).
	col := func(name string) int { return slices.Index(rows[0], name) }
	var runs []string
	for _, r := range rows[1:] {
		if n := r[col("run")]; !slices.Contains(runs, n) {
			runs = append(runs, n)
			if of := r[col("history_of")]; (of == "") != (len(runs) == 1) || (of != "" && of != nightlyName(nightlyGated)) {
				t.Errorf("%s: history_of %q", n, of)
			}
		}
	}
	if len(runs) != 13 || runs[0] != nightlyName(nightlyGated) || runs[1] != nightlyName(nightlyGated-13) {
		t.Errorf("runs %v", runs)
	}
}

// The history is the gate's: the runs it took, the change point of the
// fixture's step where the regime starts, the verdicts of status.
func TestHistoryOfTheGate(t *testing.T) {
	s := nightlyStudy(t, 0)
	h := s.History
	if h.Window != 30 || h.Shown != 30 || h.MinRuns != 5 || h.PValue != 0.001 || h.MinMagnitudePercent != 5 || len(h.Metrics) != 3 {
		t.Fatalf("history %+v", h)
	}
	// 29 earlier runs, one failed, one completed later: 27 runs.
	if len(h.Runs) != 27 || h.Runs[0].Name != nightlyName(0) || h.Runs[26].Name != nightlyName(nightlyGated-1) {
		t.Fatalf("%d runs, from %s to %s", len(h.Runs), h.Runs[0].Name, h.Runs[len(h.Runs)-1].Name)
	}
	for i := range h.Metrics {
		checkGatedMetric(t, &h.Metrics[i], s.Runs[0].Name)
	}
	if up := h.Metrics[0].ChangePoints; up[len(up)-1].ChangePercent < 12 || up[len(up)-1].ChangePercent > 16 {
		t.Errorf("the step up is %+v", up)
	}
	if v := h.Metrics[2].Comparison.Verdict; v != benchv1.VerdictAcknowledged {
		t.Errorf("a UPDATE p99: %s", v)
	}
}

// checkGatedMetric checks a metric of the nightly fixture's gated run.
func checkGatedMetric(t *testing.T, mh *MetricHistory, run string) {
	t.Helper()
	// The gate compared with the 11 runs since the step (one failed).
	if mh.RegimeRuns != 11 || mh.Basis != "11-run history" || mh.Comparison == nil || mh.Comparison.Basis != mh.Basis ||
		mh.Comparison.Baseline != mh.Baseline || len(mh.Notes) != 0 {
		t.Errorf("%s: regime of %d runs, basis %q, baseline %v, status %+v, notes %q", mh.Metric, mh.RegimeRuns, mh.Basis, mh.Baseline, mh.Comparison, mh.Notes)
	}
	if len(mh.Points) != 28 || !mh.Points[27].Current || mh.Points[27].Run != run {
		t.Fatalf("%s: %d points", mh.Metric, len(mh.Points))
	}
	var regime []HistoryChangePoint
	for _, cp := range mh.ChangePoints {
		if cp.RegimeStart {
			regime = append(regime, cp)
		}
	}
	if len(regime) != 1 || regime[0].Run != nightlyName(nightlyStep) || regime[0].Index != nightlyStep || mh.RegimeStart != nightlyStep {
		t.Fatalf("%s: change points %+v, regime from %d; want the regime to start at %s (%d)",
			mh.Metric, mh.ChangePoints, mh.RegimeStart, nightlyName(nightlyStep), nightlyStep)
	}
	for j, p := range mh.Points[:27] {
		if !p.InWindow || p.InRegime != (j >= nightlyStep) {
			t.Errorf("%s: point %d %+v", mh.Metric, j, p)
		}
	}
}

// The chart marks the change point between the last run before the step
// and the first after it, counted back from the gated run, and draws the
// baseline across the regime.
func TestHistoryChartMarksTheStep(t *testing.T) {
	s := nightlyStudy(t, 0)
	mh := &s.History.Metrics[0]
	hc, ok := historyChartOf(mh)
	if !ok {
		t.Fatal("no chart")
	}
	// 27 history points and the gated run at 0: the step's first run
	// (point 16) is 11 runs before it.
	want := float64(nightlyStep-27) - 0.5
	var lines []changeLine
	for _, c := range hc.Changes {
		if c.Kind == changeRegime {
			lines = append(lines, c)
		}
	}
	if len(lines) != 1 || lines[0].X != want || hc.BandFrom != want {
		t.Fatalf("regime lines %+v, band from %v; want both at %v", lines, hc.BandFrom, want)
	}
	if hc.Current == nil || hc.Current.X != 0 || hc.CurrentColor != verdictColors[benchv1.VerdictRegressed] ||
		!strings.HasPrefix(hc.CurrentLabel, "this run: Regressed -13.") || len(hc.Regime) != 11 || len(hc.Earlier) != 16 || len(hc.Outside) != 0 {
		t.Errorf("current %+v %q, %d regime, %d earlier, %d outside points", hc.Current, hc.CurrentLabel, len(hc.Regime), len(hc.Earlier), len(hc.Outside))
	}
	if hc.Title != "a throughput: Regressed -13.2%" {
		t.Errorf("title %q", hc.Title)
	}
	svg, err := renderHistory(hc)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{lines[0].Label, hc.Title, "this run: Regressed -13.2%", "change point: regime starts", "compared with", "earlier in the window", "baseline (median)", "±5%: never a verdict"} {
		if !strings.Contains(svg, ">"+w+"<") {
			t.Errorf("the SVG has no text %q", w)
		}
	}
}

// Change points in a synthetic series: a step of 20% and, in the regime
// after it, one of 2% that is significant but smaller than the minimum
// magnitude: the regime starts at the first, the second is drawn as
// minor; shown fewer runs than the window, an older regime start is said
// to be older than the runs shown.
func TestHistoryChangePointKinds(t *testing.T) {
	level := func(i int) float64 {
		switch {
		case i < 10:
			return 1000
		case i < 20:
			return 1200
		}
		return 1224
	}
	// A quiet, deterministic noise: ±0.2%.
	noise := []float64{0.998, 1.001, 1.002, 0.999, 1.000, 1.002, 0.998, 1.001, 0.999, 1.000}
	var runs []benchv1.BenchmarkRun
	for i := 0; i < 31; i++ {
		r := benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "r" + string(rune('a'+i/26)) + string(rune('a'+i%26)), UID: types.UID(rune('A' + i))}}
		r.Status.Phase = benchv1.RunSucceeded
		r.Status.CompletionTime = &metav1.Time{Time: nightlyStart.Add(time.Duration(i) * time.Hour)}
		r.Status.Results = []benchv1.PhaseResult{{Name: "a", Throughput: level(i) * noise[i%len(noise)]}}
		r.Spec.Compare = &benchv1.CompareSpec{Baseline: benchv1.CompareBaseline{History: &benchv1.HistoryBaseline{Window: 30, MinRuns: 5}},
			Metrics: []benchv1.CompareMetric{{Phase: "a", Metric: benchv1.MetricThroughput}}}
		runs = append(runs, r)
	}
	gated := runs[30].DeepCopy()
	s := FromRun(gated, nil)
	if err := s.AddHistory(runs, 0); err != nil {
		t.Fatal(err)
	}
	mh := s.History.Metrics[0]
	type cp struct {
		run           string
		index         int
		regime, minor bool
	}
	var got []cp
	for _, c := range mh.ChangePoints {
		got = append(got, cp{c.Run, c.Index, c.RegimeStart, c.Minor})
	}
	if want := []cp{{runs[10].Name, 10, true, false}, {runs[20].Name, 20, false, true}}; !slices.Equal(got, want) {
		t.Fatalf("change points %+v, want %+v", got, want)
	}
	if mh.RegimeStart != 10 || mh.RegimeRuns != 20 || mh.Comparison != nil || mh.Basis != "20-run history" {
		t.Errorf("regime from %d, %d runs, basis %q", mh.RegimeStart, mh.RegimeRuns, mh.Basis)
	}
	hc, _ := historyChartOf(&mh)
	if kinds := []changeKind{hc.Changes[0].Kind, hc.Changes[1].Kind}; !slices.Equal(kinds, []changeKind{changeRegime, changeMinor}) ||
		hc.Changes[0].X != -20.5 || hc.Changes[1].X != -10.5 || hc.Title != "a throughput" {
		t.Errorf("chart: %+v, title %q", hc.Changes, hc.Title)
	}
	// 15 runs shown of the gate's 30: the regime began before them.
	s = FromRun(gated, nil)
	if err := s.AddHistory(runs, 15); err != nil {
		t.Fatal(err)
	}
	mh = s.History.Metrics[0]
	if mh.RegimeStart != -1 || mh.RegimeRuns != 20 || len(mh.Points) != 16 || mh.ChangePoints[0].Index != -1 || mh.ChangePoints[1].Index != 5 ||
		mh.Points[0].Run != runs[15].Name {
		t.Errorf("15 shown: regime from %d, %d points, change points %+v", mh.RegimeStart, len(mh.Points), mh.ChangePoints)
	}
	md := string(mustMarkdown(t, s))
	if !strings.Contains(md, "- a throughput: a change point older than the runs shown, at "+runs[10].Name+" (+20.0%)") {
		t.Errorf("the older change point is not said:\n%s", md)
	}
	// All 30 shown of a window of 29: the oldest is outside the window.
	narrow := gated.DeepCopy()
	narrow.Spec.Compare.Baseline.History.Window = 29
	s = FromRun(narrow, nil)
	if err := s.AddHistory(runs, 100); err != nil {
		t.Fatal(err)
	}
	if p := s.History.Metrics[0].Points; len(p) != 31 || p[0].InWindow || !p[1].InWindow {
		t.Errorf("100 shown: %d points, the first %+v", len(p), p[0])
	}
	hc, _ = historyChartOf(&s.History.Metrics[0])
	if len(hc.Outside) != 1 || hc.Outside[0].X != -30 {
		t.Errorf("outside the window: %+v", hc.Outside)
	}
}

// A history that changed since the gate judged the run (runs deleted) is
// shown as it is now, and says so.
func TestHistoryChangedSinceTheGate(t *testing.T) {
	run, all := loadNightly(t)
	var kept []benchv1.BenchmarkRun
	for i := range all {
		if all[i].Name != nightlyName(nightlyGated-1) && all[i].Name != nightlyName(nightlyGated-2) {
			kept = append(kept, all[i])
		}
	}
	s := FromRun(run, nil)
	if err := s.AddHistory(kept, 0); err != nil {
		t.Fatal(err)
	}
	mh := s.History.Metrics[0]
	if len(mh.Notes) != 1 || !strings.HasPrefix(mh.Notes[0], "The history has changed since the gate judged this run: it compared with 11-run history") ||
		!strings.Contains(mh.Notes[0], "the runs there now make 9-run history") {
		t.Errorf("notes %q", mh.Notes)
	}
}

func TestAddHistoryErrors(t *testing.T) {
	run, all := loadNightly(t)
	if err := sweepStudy(t, "pool").AddHistory(all, 0); err == nil || err.Error() != "a history belongs to a run's report, not a BenchmarkSweep's" {
		t.Errorf("sweep: %v", err)
	}
	other := run.DeepCopy()
	other.Spec.Compare.Baseline = benchv1.CompareBaseline{RunRef: "x"}
	if err := FromRun(other, nil).AddHistory(all, 0); err == nil || !strings.Contains(err.Error(), "is not compared with a history") {
		t.Errorf("runRef: %v", err)
	}
	// A run that has not completed has no history yet.
	running := run.DeepCopy()
	running.Status.Phase, running.Status.CompletionTime = benchv1.RunRunning, nil
	s := FromRun(running, nil)
	if err := s.AddHistory(all, 0); err != nil || s.History != nil {
		t.Errorf("running: %v, %+v", err, s.History)
	}
	// The first run of a pipeline: no earlier run.
	s = FromRun(run, nil)
	if err := s.AddHistory([]benchv1.BenchmarkRun{*run}, 0); err != nil {
		t.Fatal(err)
	}
	md := string(mustMarkdown(t, s))
	if !strings.Contains(md, "No earlier run matches: there is no history yet.") ||
		!strings.Contains(md, "No earlier run has a throughput: nothing to compare with.") {
		t.Errorf("no history:\n%s", md[strings.Index(md, "## History"):])
	}
}

// The JSON report carries the series; the HTML page draws a chart per
// compared metric before the others.
func TestHistoryJSONAndHTML(t *testing.T) {
	s := nightlyStudy(t, 0)
	var buf bytes.Buffer
	if err := JSON(&buf, s); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		History History `json:"history"`
	}
	if err := json.Unmarshal(buf.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	h := rep.History
	if h.Run != nightlyName(nightlyGated) || len(h.Metrics) != 3 || len(h.Metrics[0].Points) != 28 || h.Metrics[0].Points[27].Value != s.Runs[0].Status.Results[1].Throughput ||
		h.Metrics[1].Operation != "READ" || h.Metrics[0].ChangePoints[len(h.Metrics[0].ChangePoints)-1].Run != nightlyName(nightlyStep) {
		t.Errorf("json history %+v", h)
	}
	buf.Reset()
	if err := HTML(&buf, s, Options{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	first := strings.Index(page, "<figcaption>")
	if n := strings.Count(page, "<svg"); n != 5 || !strings.HasPrefix(page[first:], "<figcaption>History of a throughput -13.") {
		t.Errorf("%d charts; the first caption: %.80s", n, page[first:])
	}
}
