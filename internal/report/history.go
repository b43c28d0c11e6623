package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/compare"
	"github.com/mongobench/mongobench/internal/stats"
)

// History is a gated run's history as its regression gate reads it
// (spec.compare.baseline.history): per compared metric, the metric over
// the latest history runs and the run itself, the history's change
// points, and the regime the gate tested the run against. The runs are
// chosen by internal/compare, as the run controller chooses them, and the
// regime is compare.HistoryRegime's, so the report shows what the gate
// saw; the verdicts are status.comparison's.
type History struct {
	// Run is the gated run.
	Run string `json:"run"`
	// Selector selected the candidate runs (compare.RunHistorySelector).
	Selector string `json:"selector"`
	// Window is how many of the latest runs the gate takes.
	Window int `json:"window"`
	// Shown is how many of the latest history runs the report shows
	// (Window unless asked otherwise); Runs are fewer when fewer exist.
	Shown int `json:"shown"`
	// ChangePointPValue is the significance of the change points
	// (stats.RegimePValue); PValue and MinMagnitudePercent are the gate's
	// test, MinRuns the fewest runs it needs.
	ChangePointPValue   float64 `json:"changePointPValue"`
	PValue              float64 `json:"pValue"`
	MinMagnitudePercent float64 `json:"minMagnitudePercent"`
	MinRuns             int     `json:"minRuns"`
	// Metrics are spec.compare.metrics, in spec order.
	Metrics []MetricHistory `json:"metrics"`
	// Runs are the history runs shown, oldest first.
	Runs []*benchv1.BenchmarkRun `json:"-"`
}

// MetricHistory is one compared metric over the history.
type MetricHistory struct {
	// Metric is named as status.comparison names it.
	Metric string `json:"metric"`
	// Phase and Operation ("" for the phase as a whole) locate it.
	Phase     string `json:"phase"`
	Operation string `json:"operation,omitempty"`
	// Kind is throughput, p99, p999 or mean; Unit ops/s or µs.
	Kind benchv1.CompareMetricKind `json:"kind"`
	Unit string                    `json:"unit"`
	// HigherIsBetter is the metric's direction.
	HigherIsBetter bool `json:"higherIsBetter"`
	// Points are the shown history runs that have the metric, oldest
	// first, then the run itself (Current) when it has the metric.
	Points []HistoryPoint `json:"points"`
	// ChangePoints are the change points of the history the gate took
	// (its window), at ChangePointPValue, oldest first.
	ChangePoints []HistoryChangePoint `json:"changePoints"`
	// RegimeRuns is how many runs the gate compared the run with: those
	// since the last change point of at least MinMagnitudePercent, or the
	// whole window. RegimeStart is the index in Points of the first of
	// them, -1 when it is older than the runs shown.
	RegimeRuns  int `json:"regimeRuns"`
	RegimeStart int `json:"regimeStart"`
	// Baseline is the regime's median, what the run's value is compared
	// with; BandPercent is the change the gate needs for a verdict
	// (minMagnitudePercent for the test, the metric's maxRegressionPercent
	// when it fell back to thresholds); Basis is compare's description.
	// They are computed from the runs as they are now (see Notes when
	// that is not what the gate saw).
	Baseline    float64 `json:"baseline"`
	BandPercent float64 `json:"bandPercent"`
	Basis       string  `json:"basis"`
	// Comparison is the gate's verdict (status.comparison), nil if none.
	Comparison *benchv1.MetricComparison `json:"comparison,omitempty"`
	// Notes say what the chart cannot: a history that changed since the
	// gate judged the run, a metric missing from a run.
	Notes []string `json:"notes,omitempty"`
}

// HistoryPoint is a run's value of a metric.
type HistoryPoint struct {
	Run            string      `json:"run"`
	CompletionTime metav1.Time `json:"completionTime"`
	Value          float64     `json:"value"`
	// Current marks the gated run itself.
	Current bool `json:"current,omitempty"`
	// InWindow: the run is among the history's latest Window runs, the
	// ones the gate took; InRegime: the gate compared with it.
	InWindow bool `json:"inWindow"`
	InRegime bool `json:"inRegime"`
}

// HistoryChangePoint is a change point of the history: its mean shifts
// from Run on.
type HistoryChangePoint struct {
	// Run is the first run after the change; Index its index in Points,
	// -1 when it is older than the runs shown.
	Run   string `json:"run"`
	Index int    `json:"index"`
	// ChangePercent is the shift of the mean, after against before;
	// PValue Welch's test between the neighbouring change points.
	ChangePercent float64 `json:"changePercent"`
	PValue        float64 `json:"pValue"`
	// RegimeStart: the gate's regime starts here. Minor: smaller than
	// minMagnitudePercent, so the gate does not cut the history there.
	RegimeStart bool `json:"regimeStart,omitempty"`
	Minor       bool `json:"minor,omitempty"`
}

// AddHistory gives a run's study the history of its regression gate:
// candidates are the runs its history selector selects
// (compare.RunHistorySelector; the run itself may be among them), shown how
// many of the latest history runs to show (≤ 0: the gate's window). A run
// that has not completed has no history yet (the study is left as it
// is). Only a run whose spec.compare baseline is a history has one.
func (s *Study) AddHistory(candidates []benchv1.BenchmarkRun, shown int) error {
	if s.Kind != KindRun || len(s.Runs) != 1 {
		return fmt.Errorf("a history belongs to a run's report, not a %s's", s.Kind)
	}
	run := &s.Runs[0]
	spec := run.Spec.Compare
	if spec == nil || spec.Baseline.History == nil {
		return fmt.Errorf("run %s is not compared with a history (spec.compare.baseline.history)", run.Name)
	}
	if run.Status.CompletionTime == nil {
		return nil
	}
	sel, err := compare.RunHistorySelector(run)
	if err != nil {
		return fmt.Errorf("select the history of run %s: %w", run.Name, err)
	}
	window := compare.Window(spec.Baseline.History)
	if shown <= 0 {
		shown = window
	}
	gate := compare.HistoryRuns(run, candidates, window)
	h := &History{Run: run.Name, Selector: sel.String(), Window: window, Shown: shown, ChangePointPValue: stats.RegimePValue,
		Runs: compare.HistoryRuns(run, candidates, shown)}
	o := compare.OptionsFor(spec, benchv1.CompareMetric{})
	h.PValue, h.MinMagnitudePercent, h.MinRuns = o.PValue, o.MinMagnitudePercent, o.MinRuns
	for _, m := range spec.Metrics {
		h.Metrics = append(h.Metrics, metricHistory(run, h.Runs, gate, m, compare.OptionsFor(spec, m)))
	}
	s.History = h
	return nil
}

// metricHistory reads metric m over the shown runs and the gate's window
// (gate), and finds the gate's regime in the window.
func metricHistory(run *benchv1.BenchmarkRun, shown, gate []*benchv1.BenchmarkRun, m benchv1.CompareMetric, o compare.HistoryOptions) MetricHistory {
	d := compare.MetricDirection(m)
	mh := MetricHistory{Metric: compare.MetricName(m), Phase: m.Phase, Operation: m.Operation, Kind: m.Metric, Unit: "µs",
		HigherIsBetter: d == compare.HigherIsBetter, RegimeStart: -1}
	if m.Metric == benchv1.MetricThroughput {
		mh.Unit = "ops/s"
	}
	for i := range run.Status.Comparison {
		if run.Status.Comparison[i].Metric == mh.Metric {
			mh.Comparison = &run.Status.Comparison[i]
		}
	}
	// The gate's series: the window's runs that have the metric, as the
	// controller reads them.
	var gateRuns []string
	var gateVals []float64
	for _, r := range gate {
		if v, ok := compare.MetricValue(r, m); ok {
			gateRuns = append(gateRuns, r.Name)
			gateVals = append(gateVals, v)
		}
	}
	regime := compare.HistoryRegime(gateVals, o)
	inRegime := map[string]bool{}
	if len(gateRuns) > 0 {
		mh.RegimeRuns = len(gateRuns) - regime.Start
		for _, n := range gateRuns[regime.Start:] {
			inRegime[n] = true
		}
	}
	missing := 0
	for _, r := range shown {
		v, ok := compare.MetricValue(r, m)
		if !ok {
			missing++
			continue
		}
		inWindow := slices.Contains(gateRuns, r.Name)
		if inRegime[r.Name] && mh.RegimeStart < 0 {
			mh.RegimeStart = len(mh.Points)
		}
		mh.Points = append(mh.Points, HistoryPoint{Run: r.Name, CompletionTime: *r.Status.CompletionTime, Value: v,
			InWindow: inWindow, InRegime: inRegime[r.Name]})
	}
	if mh.RegimeStart >= 0 && mh.Points[mh.RegimeStart].Run != gateRuns[regime.Start] {
		// The regime's first run is older than the runs shown.
		mh.RegimeStart = -1
	}
	index := map[string]int{}
	for i, p := range mh.Points {
		index[p.Run] = i
	}
	for _, cp := range regime.ChangePoints {
		hc := HistoryChangePoint{Run: gateRuns[cp.Index], Index: -1, ChangePercent: cp.Change * 100, PValue: cp.Test.P,
			RegimeStart: cp.Index == regime.Start, Minor: math.Abs(cp.Change) < o.MinMagnitudePercent/100}
		if i, ok := index[hc.Run]; ok {
			hc.Index = i
		}
		mh.ChangePoints = append(mh.ChangePoints, hc)
	}
	if missing > 0 {
		mh.Notes = append(mh.Notes, fmt.Sprintf("%d of the %d history runs shown have no %s.", missing, len(shown), mh.Metric))
	}
	cur, ok := compare.MetricValue(run, m)
	if !ok {
		mh.Notes = append(mh.Notes, "This run has no "+mh.Metric+".")
		return mh
	}
	mh.Points = append(mh.Points, HistoryPoint{Run: run.Name, CompletionTime: *run.Status.CompletionTime, Value: cur, Current: true})
	if len(gateVals) == 0 {
		mh.Notes = append(mh.Notes, "No earlier run has "+mh.Metric+": nothing to compare with.")
		return mh
	}
	res, err := compare.AgainstHistory(gateVals, []float64{cur}, d, o)
	if err != nil {
		mh.Notes = append(mh.Notes, "No comparison: "+err.Error()+".")
		return mh
	}
	mh.Baseline, mh.Basis, mh.BandPercent = res.Baseline, res.Basis, o.MinMagnitudePercent
	if res.PValue == nil {
		mh.BandPercent = o.MaxRegressionPercent
	}
	// The gate judged the run when it completed; runs deleted or
	// relabelled since change what the report finds.
	if c := mh.Comparison; c != nil && (c.Basis != res.Basis || !sameValue(c.Baseline, res.Baseline)) {
		mh.Notes = append(mh.Notes, fmt.Sprintf("The history has changed since the gate judged this run: it compared with %s (baseline %s), "+
			"the runs there now make %s (baseline %s); the chart shows the runs as they are now.",
			c.Basis, number(c.Baseline, 1), res.Basis, number(res.Baseline, 1)))
	}
	return mh
}

// decimals are the decimals a value of the metric is shown with:
// percentiles are whole microseconds.
func (mh *MetricHistory) decimals() int {
	if mh.Kind == benchv1.MetricP99 || mh.Kind == benchv1.MetricP999 {
		return 0
	}
	return 1
}

// sameValue compares a baseline recomputed here with the one status keeps
// (JSON round-trips floats exactly, but allow for the last bit).
func sameValue(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// changePointText describes a change point as the tables do:
// "-10.2% (p=3e-07), regime starts".
func (h *History) changePointText(cp HistoryChangePoint) string {
	c := percent(cp.ChangePercent) + " (p=" + strconv.FormatFloat(cp.PValue, 'g', 2, 64) + ")"
	switch {
	case cp.RegimeStart:
		c += ", regime starts"
	case cp.Minor:
		c += ", below " + plain(h.MinMagnitudePercent) + "%"
	}
	return c
}

// changePointsAt lists the change points that start at a history run, of
// the compared metrics of a phase and operation (OVERALL: the phase's
// own), for the CSV: "throughput -10.2% (p=3e-07), regime starts".
func (h *History) changePointsAt(run, phase, op string) string {
	var out []string
	for _, mh := range h.Metrics {
		if mh.Phase != phase || cmp.Or(mh.Operation, RowOverall) != op {
			continue
		}
		for _, cp := range mh.ChangePoints {
			if cp.Run == run {
				out = append(out, string(mh.Kind)+" "+h.changePointText(cp))
			}
		}
	}
	return strings.Join(out, "; ")
}

// historySection is the history in text: what the gate takes, then per
// metric a table of the runs (their place as the chart counts it, name,
// completion, value), the change points and what the gate made of each
// run, so that Markdown carries what the HTML report's charts show.
func (s *Study) historySection() section {
	h := s.History
	sec := section{Heading: "History"}
	shown := ""
	if h.Shown != h.Window {
		shown = fmt.Sprintf("; shown: the latest %d", h.Shown)
	}
	sec.Text = []string{
		fmt.Sprintf("The gate compares %s with the Succeeded runs selected by %s that completed before it, the latest %d "+
			"(compare.baseline.history.window)%s. # counts the runs back from this one (0).", h.Run, h.Selector, h.Window, shown),
		fmt.Sprintf("Change points: binary segmentation with Welch's t-test, significance %s. The gate compares the run with the runs since "+
			"the last change point of at least %s%% (minMagnitudePercent): by the prediction t-test, significance %s (pValue), or, with fewer "+
			"than %d of them (minRuns), by the metric's maxRegressionPercent against their median.",
			strconv.FormatFloat(h.ChangePointPValue, 'g', -1, 64), plain(h.MinMagnitudePercent),
			strconv.FormatFloat(h.PValue, 'g', -1, 64), h.MinRuns),
	}
	if len(h.Runs) == 0 {
		sec.Text = append(sec.Text, "No earlier run matches: there is no history yet.")
	}
	for i := range h.Metrics {
		mh := &h.Metrics[i]
		t := table{Caption: historyTitle(mh), Note: regimeText(h, mh),
			Header: []string{"#", "run", "completed", mh.Unit, "change point", "gate"},
			Right:  []bool{true, false, false, true, false, false}}
		changes := map[int]string{}
		for _, cp := range mh.ChangePoints {
			if cp.Index < 0 {
				continue
			}
			changes[cp.Index] = h.changePointText(cp)
		}
		last := len(mh.Points) - 1
		for j, p := range mh.Points {
			gate := "compared with"
			switch {
			case p.Current && mh.Comparison != nil:
				gate = "this run: " + string(mh.Comparison.Verdict) + " " + percent(mh.Comparison.ChangePercent)
			case p.Current:
				gate = "this run"
			case !p.InWindow:
				gate = "older than the window"
			case !p.InRegime:
				gate = "before the regime"
			}
			t.Rows = append(t.Rows, []string{strconv.Itoa(j - last), p.Run, p.CompletionTime.UTC().Format(time.RFC3339),
				number(p.Value, mh.decimals()), orDash(changes[j]), gate})
		}
		for _, cp := range mh.ChangePoints {
			if cp.Index < 0 {
				sec.Items = append(sec.Items, fmt.Sprintf("%s: a change point older than the runs shown, at %s (%s)", mh.Metric, cp.Run, percent(cp.ChangePercent)))
			}
		}
		sec.Tables = append(sec.Tables, t)
	}
	return sec
}
