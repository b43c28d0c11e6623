package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/stats"
	"github.com/mongobench/mongobench/internal/sweep"
)

// Kinds of study, as the API calls the object it was built from.
const (
	KindSweep = "BenchmarkSweep"
	KindRun   = "BenchmarkRun"
)

// Histograms holds the stored bytes of each child phase's merged result
// (the ConfigMap a run's status.results[].histograms names, key
// result.json.gz): run name → phase name → bytes. The report carries them
// as they are, so the JSON report can be merged again later.
type Histograms map[string]map[string][]byte

// Study is what every format shows: one model for a sweep and for a run.
type Study struct {
	// Kind is KindSweep or KindRun.
	Kind      string
	Namespace string
	Name      string
	// Phase is the sweep's or the run's phase.
	Phase string
	// Message says why a sweep or run failed (its Failed condition).
	Message string
	// Axes in spec order; none for a run.
	Axes []Axis
	// Repetitions per cell (1 for a run).
	Repetitions int32
	// Baseline, Best and SummaryPhase are the sweep's status fields.
	Baseline     string
	Best         string
	SummaryPhase string
	// Phases are the benchmark phases in execution order.
	Phases []Phase
	// Cells by index.
	Cells []Cell
	// Knees are the sweep's status.knees.
	Knees []benchv1.SweepKnee

	// Sweep is the sweep the study was built from (nil for a run).
	Sweep *benchv1.BenchmarkSweep
	// Runs are the child runs (the run itself for a run study), by name.
	Runs []benchv1.BenchmarkRun
	// Histograms are the children's merged results, as stored.
	Histograms Histograms
	// History is a gated run's history (AddHistory), nil without one.
	History *History
	// growth is each Grow phase's growth, reduced once from the cells
	// when the study is built (reduceGrowth); the formats only render it.
	growth []growthPhase
	// disruptions are the cells' disruptions, reduced once the same way
	// (reduceDisruptions).
	disruptions []cellDisruption
}

// Axis is one axis of the study, its values in spec order.
type Axis struct {
	Name   string
	Values []AxisValue
	// Numeric is true when every value has a distinct number: charts then
	// plot against the numbers, as the sweep's knees do.
	Numeric bool
}

// AxisValue is one value of an axis.
type AxisValue struct {
	Name   string
	Number *float64
}

// Phase is a benchmark phase.
type Phase struct {
	Name string
	Type benchv1.PhaseType
}

// Cell is one cell of the study: its axis values, runs and aggregates.
type Cell struct {
	Index  int32
	Name   string
	Values []benchv1.SweepCellValue
	Phase  benchv1.SweepLifecycle
	Runs   []CellRun
	// Invalid counts the cell's runs that succeeded but are not valid
	// (status.cells[].invalidRuns): Results leave them out.
	Invalid int32
	// Results are the cell's status.results, one per phase.
	Results []benchv1.SweepPhaseStats
	// baseline is the index in Study.Cells of the cell this one is
	// compared with, -1 without one.
	baseline int
	// single marks a run's study: the cell is the run itself, whose own
	// numbers it shows even when the run is not valid.
	single bool
}

// CellRun is one repetition of a cell.
type CellRun struct {
	benchv1.SweepRunStatus
	// Run is the child run, nil when it no longer exists.
	Run *benchv1.BenchmarkRun
}

// Result returns the cell's aggregate of the named phase, nil if none.
func (c *Cell) Result(phase string) *benchv1.SweepPhaseStats {
	for i := range c.Results {
		if c.Results[i].Name == phase {
			return &c.Results[i]
		}
	}
	return nil
}

// Value returns the cell's value of the named axis.
func (c *Cell) Value(axis string) (benchv1.SweepCellValue, bool) {
	for _, v := range c.Values {
		if v.Axis == axis {
			return v, true
		}
	}
	return benchv1.SweepCellValue{}, false
}

// measured lists the repetitions whose numbers the cell shows, if they
// still exist: the usable ones (succeeded, not invalid), which the sweep
// aggregates; for a run's study, the run once it succeeded, valid or not.
func (c *Cell) measured() []*benchv1.BenchmarkRun {
	var out []*benchv1.BenchmarkRun
	for i := range c.Runs {
		if c.shows(&c.Runs[i]) {
			out = append(out, c.Runs[i].Run)
		}
	}
	return out
}

// shows reports whether the cell shows the repetition's numbers (see
// measured).
func (c *Cell) shows(r *CellRun) bool {
	return r.Run != nil && (r.Run.Usable() || c.single && r.Run.Status.Phase == benchv1.RunSucceeded)
}

// withoutValidRun reports whether the cell has runs that succeeded but
// none that is valid: it has no results, like a cell whose runs failed.
func (c *Cell) withoutValidRun() bool {
	return c.Invalid > 0 && !c.single && len(c.Results) == 0
}

// FromSweep builds the study of a sweep. runs are its children (others are
// ignored); histograms may be nil.
func FromSweep(sw *benchv1.BenchmarkSweep, runs []benchv1.BenchmarkRun, histograms Histograms) (*Study, error) {
	st := &sw.Status
	s := &Study{
		Kind:         KindSweep,
		Namespace:    sw.Namespace,
		Name:         sw.Name,
		Phase:        string(st.Phase),
		Message:      failedMessage(st.Conditions),
		Repetitions:  max(sw.Spec.Repetitions, 1),
		Baseline:     st.Baseline,
		Best:         st.Best,
		SummaryPhase: st.SummaryPhase,
		Knees:        st.Knees,
		Sweep:        sw,
		Histograms:   histograms,
	}
	byName := make(map[string]*benchv1.BenchmarkRun, len(runs))
	for i := range runs {
		byName[runs[i].Name] = &runs[i]
	}
	cells := slices.Clone(st.Cells)
	slices.SortFunc(cells, func(a, b benchv1.SweepCellStatus) int { return cmp.Compare(a.Index, b.Index) })
	used := map[string]bool{}
	for _, cs := range cells {
		c := Cell{Index: cs.Index, Name: cs.Name, Values: cs.Values, Phase: cs.Phase, Invalid: cs.InvalidRuns, Results: cs.Results, baseline: -1}
		reps := slices.Clone(cs.Runs)
		slices.SortFunc(reps, func(a, b benchv1.SweepRunStatus) int { return cmp.Compare(a.Repetition, b.Repetition) })
		for _, r := range reps {
			run := byName[r.Name]
			if run != nil {
				used[r.Name] = true
			}
			c.Runs = append(c.Runs, CellRun{SweepRunStatus: r, Run: run})
		}
		s.Cells = append(s.Cells, c)
	}
	for name := range used {
		s.Runs = append(s.Runs, *byName[name])
	}
	slices.SortFunc(s.Runs, func(a, b benchv1.BenchmarkRun) int { return strings.Compare(a.Name, b.Name) })

	axisNames := make([]string, len(sw.Spec.Axes))
	for i, a := range sw.Spec.Axes {
		axisNames[i] = a.Name
	}
	axes, err := axesOf(axisNames, s.Cells)
	if err != nil {
		return nil, fmt.Errorf("sweep %s: %w", sw.Name, err)
	}
	s.Axes = axes
	s.Phases = phasesOf(sw.Spec.Template.Phases, s.Cells, s.Runs)
	s.linkBaselines(&sw.Spec)
	s.reduceGrowth()
	s.reduceDisruptions()
	return s, nil
}

// FromRun builds the study of a single run: one cell, named after the run,
// whose aggregate is the run's own numbers (one repetition).
func FromRun(run *benchv1.BenchmarkRun, histograms Histograms) *Study {
	s := &Study{
		Kind:        KindRun,
		Namespace:   run.Namespace,
		Name:        run.Name,
		Phase:       string(run.Status.Phase),
		Message:     failedMessage(run.Status.Conditions),
		Repetitions: 1,
		Runs:        []benchv1.BenchmarkRun{*run},
		Histograms:  histograms,
	}
	r := &s.Runs[0]
	cr := CellRun{SweepRunStatus: benchv1.SweepRunStatus{Name: run.Name, Repetition: 1, Phase: run.Status.Phase}, Run: r}
	if fc := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionFailed); fc != nil && fc.Status == metav1.ConditionTrue {
		cr.Reason = fc.Reason
	}
	if run.Status.Environment != nil {
		cr.Fingerprint = run.Status.Environment.Fingerprint
	}
	c := Cell{Index: 0, Name: run.Name, Phase: cellPhase(run.Status.Phase), Runs: []CellRun{cr}, baseline: -1, single: true}
	if inv := run.Invalid(); inv != nil {
		c.Invalid, cr.Valid, cr.InvalidReason = 1, ptrTo(false), inv.Reason
		c.Runs[0] = cr
	}
	for i := range run.Status.Results {
		c.Results = append(c.Results, phaseStats(&run.Status.Results[i]))
	}
	s.Cells = []Cell{c}
	s.Phases = phasesOf(run.Spec.Phases, s.Cells, s.Runs)
	s.reduceGrowth()
	s.reduceDisruptions()
	return s
}

// phaseStats is a single run's phase as a one-repetition aggregate, by the
// definitions of SweepPhaseStats.
func phaseStats(r *benchv1.PhaseResult) benchv1.SweepPhaseStats {
	out := benchv1.SweepPhaseStats{
		Name: r.Name, Type: r.Type, Repetitions: 1,
		MedianThroughput: r.Throughput, MinThroughput: r.Throughput, MaxThroughput: r.Throughput,
		MedianP99Micros: float64(r.P99Micros),
	}
	if r.IntendedP99Micros != nil {
		out.MedianIntendedP99Micros = ptrTo(float64(*r.IntendedP99Micros))
	}
	out.MedianMeanMicros, _ = sweep.MeanLatency(r)
	for _, op := range r.OperationStats {
		out.Errors += op.Errors
	}
	if r.MaxReplicationLagMillis != nil {
		out.MaxReplicationLagMillis = ptrTo(*r.MaxReplicationLagMillis)
	}
	for _, sv := range r.Server {
		if sv.PeakConnections != nil && (out.PeakConnections == nil || *sv.PeakConnections > *out.PeakConnections) {
			out.PeakConnections = ptrTo(*sv.PeakConnections)
		}
		if sv.MaxCacheDirtyPercent != nil && (out.MaxCacheDirtyPercent == nil || *sv.MaxCacheDirtyPercent > *out.MaxCacheDirtyPercent) {
			out.MaxCacheDirtyPercent = ptrTo(*sv.MaxCacheDirtyPercent)
		}
	}
	return out
}

func cellPhase(p benchv1.RunLifecycle) benchv1.SweepLifecycle {
	switch p {
	case benchv1.RunSucceeded:
		return benchv1.SweepSucceeded
	case benchv1.RunFailed:
		return benchv1.SweepFailed
	case "", benchv1.RunPending:
		return benchv1.SweepPending
	}
	return benchv1.SweepRunning
}

func failedMessage(conds []metav1.Condition) string {
	if c := meta.FindStatusCondition(conds, benchv1.ConditionFailed); c != nil && c.Status == metav1.ConditionTrue {
		return c.Reason + ": " + c.Message
	}
	return ""
}

// axesOf reads the axes' values from the cells, in the order the cells
// meet them: cells are indexed last axis fastest, so that is the spec's
// order, and the value names and numbers are the controller's (no second
// implementation of how a topology or a pool size is named).
func axesOf(names []string, cells []Cell) ([]Axis, error) {
	if len(names) == 0 && len(cells) > 0 {
		for _, v := range cells[0].Values {
			names = append(names, v.Axis)
		}
	}
	axes := make([]Axis, len(names))
	for i, n := range names {
		axes[i].Name = n
	}
	for _, c := range cells {
		if len(c.Values) != len(names) {
			return nil, fmt.Errorf("cell %d (%s) has %d axis values, the sweep %d axes", c.Index, c.Name, len(c.Values), len(names))
		}
		for i, v := range c.Values {
			if v.Axis != names[i] {
				return nil, fmt.Errorf("cell %d (%s): value %d is of axis %q, want %q", c.Index, c.Name, i, v.Axis, names[i])
			}
			if !slices.ContainsFunc(axes[i].Values, func(x AxisValue) bool { return x.Name == v.Value }) {
				axes[i].Values = append(axes[i].Values, AxisValue{Name: v.Value, Number: v.Number})
			}
		}
	}
	for i := range axes {
		axes[i].Numeric = numeric(axes[i].Values)
	}
	return axes, nil
}

// numeric reports whether every value has a distinct number (the API's
// definition of a numeric axis).
func numeric(vs []AxisValue) bool {
	seen := map[float64]bool{}
	for _, v := range vs {
		if v.Number == nil || seen[*v.Number] || math.IsNaN(*v.Number) {
			return false
		}
		seen[*v.Number] = true
	}
	return len(vs) > 0
}

// phasesOf lists the benchmark phases: the spec's, then any other a cell
// or run reports (an axis may patch the phases), in order of appearance.
func phasesOf(spec []benchv1.PhaseSpec, cells []Cell, runs []benchv1.BenchmarkRun) []Phase {
	var out []Phase
	add := func(name string, typ benchv1.PhaseType) {
		if !slices.ContainsFunc(out, func(p Phase) bool { return p.Name == name }) {
			out = append(out, Phase{Name: name, Type: typ})
		}
	}
	for _, p := range spec {
		add(p.Name, p.Type)
	}
	for _, c := range cells {
		for _, r := range c.Results {
			add(r.Name, r.Type)
		}
	}
	for _, r := range runs {
		for _, p := range r.Status.Results {
			add(p.Name, p.Type)
		}
	}
	return out
}

// linkBaselines finds each cell's baseline cell by the sweep's own rule
// (sweep.BaselineCell: the cell's values with the baseline's axes set to
// the baseline's). Status gives the % change of throughput and p99; the
// link gives the mean latency's the same way.
func (s *Study) linkBaselines(spec *benchv1.BenchmarkSweepSpec) {
	axes, err := sweep.ResolveAxes(spec)
	if err != nil {
		// The controller failed such a sweep (InvalidSweep): no cells.
		return
	}
	byIndex := map[int32]int{}
	for i := range s.Cells {
		byIndex[s.Cells[i].Index] = i
	}
	for i := range s.Cells {
		if b := sweep.BaselineCell(spec, axes, int(s.Cells[i].Index)); b >= 0 {
			if j, ok := byIndex[int32(b)]; ok {
				s.Cells[i].baseline = j
			}
		}
	}
}

// isBaseline reports whether the cell is its own baseline.
func (s *Study) isBaseline(c *Cell) bool {
	return c.baseline >= 0 && &s.Cells[c.baseline] == c
}

// meanChange is the change of the cell's median mean latency against its
// baseline's, in %; NaN without a baseline or a result on either side.
func (s *Study) meanChange(c *Cell, phase string) float64 {
	return s.changeOf(c, phase, func(r *benchv1.SweepPhaseStats) float64 { return r.MedianMeanMicros })
}

// intendedChange is the change of the cell's median intended p99 against
// its baseline's, in %; NaN when either has none.
func (s *Study) intendedChange(c *Cell, phase string) float64 {
	return s.changeOf(c, phase, intendedP99)
}

// changeOf is the change of a number of the cell's phase against its
// baseline cell's, in %; NaN without a baseline, a result on either side,
// or the number (NaN) in either.
func (s *Study) changeOf(c *Cell, phase string, value func(*benchv1.SweepPhaseStats) float64) float64 {
	if c.baseline < 0 {
		return math.NaN()
	}
	r, b := c.Result(phase), s.Cells[c.baseline].Result(phase)
	if r == nil || b == nil {
		return math.NaN()
	}
	return stats.ChangePercent(value(b), value(r))
}

// intendedP99 is a phase aggregate's median intended p99, NaN without one.
func intendedP99(r *benchv1.SweepPhaseStats) float64 {
	return orNaN(r.MedianIntendedP99Micros)
}

// phaseMeasuresIntended reports whether any cell has intended latencies
// in the phase.
func (s *Study) phaseMeasuresIntended(phase string) bool {
	for i := range s.Cells {
		if r := s.Cells[i].Result(phase); r != nil && r.MedianIntendedP99Micros != nil {
			return true
		}
	}
	return false
}

// measuresIntended reports whether any phase of any cell has intended
// latencies: only then do the reports show them.
func (s *Study) measuresIntended() bool {
	for i := range s.Cells {
		for _, r := range s.Cells[i].Results {
			if r.MedianIntendedP99Micros != nil {
				return true
			}
		}
	}
	return false
}

// replicationLag is a phase aggregate's maximum replication lag (ms),
// NaN without one: a cell of standalones or one-member sets has none.
func replicationLag(r *benchv1.SweepPhaseStats) float64 {
	if r.MaxReplicationLagMillis == nil {
		return math.NaN()
	}
	return float64(*r.MaxReplicationLagMillis)
}

// phaseReplicates reports whether any cell has a replication lag in the
// phase.
func (s *Study) phaseReplicates(phase string) bool {
	for i := range s.Cells {
		if r := s.Cells[i].Result(phase); r != nil && r.MaxReplicationLagMillis != nil {
			return true
		}
	}
	return false
}

// replicates reports whether any phase of any cell has a replication lag:
// only then do the Markdown and HTML reports show it, so a study of
// standalones gets no table of dashes.
func (s *Study) replicates() bool {
	return slices.ContainsFunc(s.Phases, func(p Phase) bool { return s.phaseReplicates(p.Name) })
}

// AxisIndex returns the index of the named axis; "" means the first axis.
// A study without axes (a run) has none, and naming one is an error.
func (s *Study) AxisIndex(name string) (int, error) {
	if len(s.Axes) == 0 {
		if name != "" {
			return -1, fmt.Errorf("%s %s has no axes (only a sweep has)", strings.ToLower(strings.TrimPrefix(s.Kind, "Benchmark")), s.Name)
		}
		return -1, nil
	}
	if name == "" {
		return 0, nil
	}
	names := make([]string, len(s.Axes))
	for i, a := range s.Axes {
		if a.Name == name {
			return i, nil
		}
		names[i] = a.Name
	}
	return -1, fmt.Errorf("sweep %s has no axis %q (its axes: %s)", s.Name, name, strings.Join(names, ", "))
}

// slice is one combination of the values of every axis but one: a table
// or chart along that axis.
type slice struct {
	// Title names the other axes' values ("maxPoolSize=10"), in the form
	// of status.knees[].at; empty with one axis.
	Title string
	// Cells has one entry per value of the axis, nil where no cell exists.
	Cells []*Cell
}

// cut cuts the study along axis ax: one slice per combination of the
// other axes' values, in cell order.
func (s *Study) cut(ax int) []slice {
	if ax < 0 {
		out := slice{}
		for i := range s.Cells {
			out.Cells = append(out.Cells, &s.Cells[i])
		}
		return []slice{out}
	}
	var out []slice
	index := map[string]int{}
	for i := range s.Cells {
		c := &s.Cells[i]
		var parts []string
		for j, v := range c.Values {
			if j != ax {
				parts = append(parts, v.Axis+"="+v.Value)
			}
		}
		key := strings.Join(parts, ",")
		k, ok := index[key]
		if !ok {
			k = len(out)
			index[key] = k
			out = append(out, slice{Title: key, Cells: make([]*Cell, len(s.Axes[ax].Values))})
		}
		for vi, v := range s.Axes[ax].Values {
			if c.Values[ax].Value == v.Name {
				out[k].Cells[vi] = c
			}
		}
	}
	return out
}

// operationRow is one operation of one phase of a cell, the median of each
// number across the cell's usable repetitions (IntendedP99 across those
// that measured it, NaN when none did).
type operationRow struct {
	Cell        *Cell
	Phase       string
	Operation   string
	Repetitions int
	// Counts and Errors are each repetition's, whole numbers: their median
	// may not be one (wholeMedian).
	Counts      []float64
	Errors      []float64
	P50         float64
	P95         float64
	P99         float64
	P999        float64
	Mean        float64
	IntendedP99 float64
	// Batched marks an operation some of whose calls only joined a batch
	// (status BATCHED_OK): their latencies are 0 (batchedNote).
	Batched bool
}

// operationRows lists every cell × phase × operation, in cell, phase and
// canonical operation order. YCSB's CLEANUP is left out: it is each
// thread's last call (the binding's Cleanup, which writes a trailing
// partial batch of inserts), not an operation of the workload, and its
// few calls would read as the workload's latencies.
func (s *Study) operationRows() []operationRow {
	out := make([]operationRow, 0, len(s.Cells)*len(s.Phases))
	for ci := range s.Cells {
		c := &s.Cells[ci]
		runs := c.measured()
		for _, ph := range s.Phases {
			byOp := map[string][]*benchv1.OperationResult{}
			for _, run := range runs {
				for i := range run.Status.Results {
					r := &run.Status.Results[i]
					if r.Name != ph.Name {
						continue
					}
					for j := range r.OperationStats {
						op := &r.OperationStats[j]
						byOp[op.Name] = append(byOp[op.Name], op)
					}
				}
			}
			delete(byOp, results.OpCleanup)
			for _, name := range operationOrder(byOp) {
				ops := byOp[name]
				each := func(f func(*benchv1.OperationResult) float64) []float64 {
					xs := make([]float64, len(ops))
					for i, op := range ops {
						xs[i] = f(op)
					}
					return xs
				}
				med := func(f func(*benchv1.OperationResult) float64) float64 { return stats.Median(each(f)) }
				out = append(out, operationRow{
					Cell: c, Phase: ph.Name, Operation: name, Repetitions: len(ops),
					Counts: each(func(o *benchv1.OperationResult) float64 { return float64(o.Count) }),
					Errors: each(func(o *benchv1.OperationResult) float64 { return float64(o.Errors) }),
					P50:    med(func(o *benchv1.OperationResult) float64 { return float64(o.P50Micros) }),
					P95:    med(func(o *benchv1.OperationResult) float64 { return float64(o.P95Micros) }),
					P99:    med(func(o *benchv1.OperationResult) float64 { return float64(o.P99Micros) }),
					P999:   med(func(o *benchv1.OperationResult) float64 { return float64(o.P999Micros) }),
					Mean:   med(func(o *benchv1.OperationResult) float64 { return o.AverageMicros }),
				})
				var intended []float64
				for _, op := range ops {
					if op.Intended != nil {
						intended = append(intended, float64(op.Intended.P99Micros))
					}
				}
				for _, op := range ops {
					out[len(out)-1].Batched = out[len(out)-1].Batched || op.Statuses[results.StatusBatchedOK] > 0
				}
				out[len(out)-1].IntendedP99 = math.NaN()
				if len(intended) > 0 {
					out[len(out)-1].IntendedP99 = stats.Median(intended)
				}
			}
		}
	}
	return out
}

// reportsCleanup reports whether a run the operation table would show
// reports YCSB's CLEANUP, which the table leaves out.
func (s *Study) reportsCleanup() bool {
	for ci := range s.Cells {
		for _, run := range s.Cells[ci].measured() {
			for _, r := range run.Status.Results {
				if slices.ContainsFunc(r.OperationStats, func(op benchv1.OperationResult) bool { return op.Name == results.OpCleanup }) {
					return true
				}
			}
		}
	}
	return false
}

// operationOrder sorts operation names as results do: the canonical order,
// then the rest alphabetically.
func operationOrder[T any](m map[string]T) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	rank := func(n string) int {
		if i := slices.Index(results.OperationOrder, n); i >= 0 {
			return i
		}
		return len(results.OperationOrder)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), strings.Compare(a, b))
	})
	return names
}

// flaggedRun is a repetition that failed or is not valid, with the
// reason and message of the condition (or the sweep's record) that says
// so.
type flaggedRun struct {
	Cell       *Cell
	Name       string
	Repetition int32
	Reason     string
	Message    string
}

// item is the run as an entry of a report's list: "NAME (cell CELL,
// repetition N): REASON: MESSAGE", without the cell and repetition when
// withCell is false, without ": MESSAGE" when there is none.
func (f flaggedRun) item(withCell bool) string {
	line := f.Name + ": " + orDash(f.Reason)
	if withCell {
		line = fmt.Sprintf("%s (cell %s, repetition %d): %s", f.Name, f.Cell.Name, f.Repetition, orDash(f.Reason))
	}
	if f.Message != "" {
		line += ": " + f.Message
	}
	return line
}

// failedRuns lists the failed repetitions in cell order, the message from
// the child's Failed condition when the child still exists.
func (s *Study) failedRuns() []flaggedRun {
	var out []flaggedRun
	for ci := range s.Cells {
		c := &s.Cells[ci]
		for _, r := range c.Runs {
			phase := r.Phase
			if r.Run != nil && r.Run.Status.Phase != "" {
				phase = r.Run.Status.Phase
			}
			if phase != benchv1.RunFailed {
				continue
			}
			f := flaggedRun{Cell: c, Name: r.Name, Repetition: r.Repetition, Reason: r.Reason}
			if r.Run != nil {
				if fc := meta.FindStatusCondition(r.Run.Status.Conditions, benchv1.ConditionFailed); fc != nil {
					f.Reason, f.Message = cmp.Or(fc.Reason, f.Reason), fc.Message
				}
			}
			out = append(out, f)
		}
	}
	return out
}

// invalidRuns lists the invalid repetitions in cell order, the reason and
// message from the child's Valid condition when it still exists, else the
// reason the sweep recorded.
func (s *Study) invalidRuns() []flaggedRun {
	var out []flaggedRun
	for ci := range s.Cells {
		c := &s.Cells[ci]
		for _, r := range c.Runs {
			inv := flaggedRun{Cell: c, Name: r.Name, Repetition: r.Repetition, Reason: r.InvalidReason}
			switch {
			case r.Run != nil:
				vc := r.Run.Invalid()
				if vc == nil {
					continue
				}
				inv.Reason, inv.Message = vc.Reason, vc.Message
			case r.Valid == nil || *r.Valid:
				continue
			}
			out = append(out, inv)
		}
	}
	return out
}

func ptrTo[T any](v T) *T { return &v }
