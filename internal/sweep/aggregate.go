package sweep

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/stats"
)

// KneeFraction is the share of the best throughput that counts as
// saturated: the knee is the smallest value reaching it.
const KneeFraction = 0.95

// latencyOps are the operations whose latencies make a phase's mean
// latency and error count: single database calls, as for the phase's p99
// (READ-MODIFY-WRITE is left out because its READ and UPDATE are counted
// under their own names).
var latencyOps = map[string]bool{"READ": true, "UPDATE": true, "INSERT": true, "SCAN": true, "DELETE": true}

// Aggregate is what the children's status says about the sweep.
type Aggregate struct {
	Cells       []benchv1.SweepCellStatus
	CellsDone   int32
	CellsFailed int32
	// CellsInvalid counts the ended cells with a successful run but no
	// valid one; RunsInvalid the runs that succeeded but are not valid.
	CellsInvalid int32
	RunsInvalid  int32
	RunsActive   int32
	RunsDone     int
	RunsFailed   int
	Knees        []benchv1.SweepKnee
	Baseline     string
	SummaryPhase string
	Best         string
}

// Ended reports whether a run succeeded or failed.
func Ended(run *benchv1.BenchmarkRun) bool {
	return run.Status.Phase == benchv1.RunSucceeded || run.Status.Phase == benchv1.RunFailed
}

// AggregateRuns aggregates the child runs (by name; absent = not created)
// into per-cell statistics, % change against the baseline, knees and the
// best cell. Only usable repetitions (benchv1.BenchmarkRun.Usable:
// succeeded and not invalid) enter the statistics; a cell whose
// successful runs are all invalid has none, as a cell whose runs failed.
func AggregateRuns(spec *benchv1.BenchmarkSweepSpec, axes []Axis, cells []Cell, plan []Planned,
	runs map[string]*benchv1.BenchmarkRun) Aggregate {
	var agg Aggregate
	byCell := make([][]Planned, len(cells))
	for _, p := range plan {
		byCell[p.Cell] = append(byCell[p.Cell], p)
	}
	agg.Cells = make([]benchv1.SweepCellStatus, len(cells))
	for i := range cells {
		c := &cells[i]
		ps := byCell[i]
		sort.Slice(ps, func(a, b int) bool { return ps[a].Repetition < ps[b].Repetition })
		cs := benchv1.SweepCellStatus{Index: int32(c.Index), Name: c.Name(), Values: c.Values}
		var ok []*benchv1.BenchmarkRun
		created, ended, failed, succeeded := 0, 0, 0, 0
		for _, p := range ps {
			rs := benchv1.SweepRunStatus{Name: p.Name, Repetition: int32(p.Repetition)}
			if run := runs[p.Name]; run != nil {
				created++
				rs.Phase = run.Status.Phase
				rs.UID = run.UID
				if run.Status.Environment != nil {
					rs.Fingerprint = run.Status.Environment.Fingerprint
				}
				switch run.Status.Phase {
				case benchv1.RunSucceeded:
					ended++
					succeeded++
					if vc := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionValid); vc != nil {
						rs.Valid = ptr.To(vc.Status != metav1.ConditionFalse)
					}
					if inv := run.Invalid(); inv != nil {
						rs.InvalidReason = inv.Reason
						cs.InvalidRuns++
					} else {
						ok = append(ok, run)
					}
				case benchv1.RunFailed:
					ended++
					failed++
					if cond := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionFailed); cond != nil {
						rs.Reason = cond.Reason
					}
				default:
					agg.RunsActive++
				}
			}
			cs.Runs = append(cs.Runs, rs)
		}
		agg.RunsDone += ended
		agg.RunsFailed += failed
		agg.RunsInvalid += cs.InvalidRuns
		switch {
		case created == 0:
			cs.Phase = benchv1.SweepPending
		case ended < len(ps):
			cs.Phase = benchv1.SweepRunning
		case failed == 0:
			cs.Phase = benchv1.SweepSucceeded
		case failed == len(ps):
			cs.Phase = benchv1.SweepFailed
		default:
			cs.Phase = benchv1.SweepPartiallySucceeded
		}
		if len(ps) > 0 && ended == len(ps) {
			agg.CellsDone++
		}
		if failed > 0 {
			agg.CellsFailed++
		}
		if len(ps) > 0 && ended == len(ps) && succeeded > 0 && len(ok) == 0 {
			agg.CellsInvalid++
		}
		cs.Results = phaseStats(c.Spec.Phases, ok)
		agg.Cells[i] = cs
	}
	agg.Baseline = baselineName(spec, axes)
	compareWithBaseline(spec, axes, agg.Cells)
	agg.Knees = knees(axes, agg.Cells)
	agg.SummaryPhase = summaryPhase(&spec.Template)
	agg.Best = best(agg.Cells, agg.SummaryPhase)
	return agg
}

// phaseStats aggregates each phase over the usable runs, in the cell's
// phase order.
func phaseStats(phases []benchv1.PhaseSpec, runs []*benchv1.BenchmarkRun) []benchv1.SweepPhaseStats {
	if len(runs) == 0 {
		return nil
	}
	var out []benchv1.SweepPhaseStats
	for _, ph := range phases {
		var tput, p99, mean, intended []float64
		st := benchv1.SweepPhaseStats{Name: ph.Name, Type: ph.Type}
		for _, run := range runs {
			res := findResult(run, ph.Name)
			if res == nil {
				continue
			}
			tput = append(tput, res.Throughput)
			p99 = append(p99, float64(res.P99Micros))
			if res.IntendedP99Micros != nil {
				intended = append(intended, float64(*res.IntendedP99Micros))
			}
			if m, ok := MeanLatency(res); ok {
				mean = append(mean, m)
			}
			for _, op := range res.OperationStats {
				if latencyOps[op.Name] {
					st.Errors += op.Errors
				}
			}
			if l := res.MaxReplicationLagMillis; l != nil && (st.MaxReplicationLagMillis == nil || *l > *st.MaxReplicationLagMillis) {
				st.MaxReplicationLagMillis = ptr.To(*l)
			}
			for _, s := range res.Server {
				if s.PeakConnections != nil && (st.PeakConnections == nil || *s.PeakConnections > *st.PeakConnections) {
					st.PeakConnections = ptr.To(*s.PeakConnections)
				}
				if s.MaxCacheDirtyPercent != nil && (st.MaxCacheDirtyPercent == nil || *s.MaxCacheDirtyPercent > *st.MaxCacheDirtyPercent) {
					st.MaxCacheDirtyPercent = ptr.To(*s.MaxCacheDirtyPercent)
				}
			}
		}
		if len(tput) == 0 {
			continue
		}
		st.Repetitions = int32(len(tput))
		st.MedianThroughput = stats.Median(tput)
		st.MinThroughput = stats.Min(tput)
		st.MaxThroughput = stats.Max(tput)
		if cov := stats.CoV(tput); len(tput) > 1 && !math.IsNaN(cov) {
			st.ThroughputCoVPercent = ptr.To(cov * 100)
		}
		st.MedianP99Micros = stats.Median(p99)
		if len(mean) > 0 {
			st.MedianMeanMicros = stats.Median(mean)
		}
		if len(intended) > 0 {
			st.MedianIntendedP99Micros = ptr.To(stats.Median(intended))
		}
		out = append(out, st)
	}
	return out
}

// MeanLatency is a phase's mean latency over its successful single
// database calls: the operations' means weighted by their successful
// counts. False when nothing succeeded.
func MeanLatency(res *benchv1.PhaseResult) (float64, bool) {
	var sum float64
	var n int64
	for _, op := range res.OperationStats {
		if !latencyOps[op.Name] {
			continue
		}
		ok := op.Count - op.Errors
		if ok <= 0 {
			continue
		}
		sum += op.AverageMicros * float64(ok)
		n += ok
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

func findResult(run *benchv1.BenchmarkRun, phase string) *benchv1.PhaseResult {
	for i := range run.Status.Results {
		if run.Status.Results[i].Name == phase {
			return &run.Status.Results[i]
		}
	}
	return nil
}

func findStats(cs *benchv1.SweepCellStatus, phase string) *benchv1.SweepPhaseStats {
	for i := range cs.Results {
		if cs.Results[i].Name == phase {
			return &cs.Results[i]
		}
	}
	return nil
}

// BaselineCell is the index of the cell a cell is compared with: the
// cell's coordinates with the baseline's axes set to the baseline's
// values. -1 without a baseline.
func BaselineCell(spec *benchv1.BenchmarkSweepSpec, axes []Axis, cell int) int {
	if len(spec.Baseline) == 0 {
		return -1
	}
	coords := Coordinates(axes, cell)
	for k := range axes {
		if v, ok := spec.Baseline[axes[k].Name]; ok {
			i := valueIndex(&axes[k], string(v))
			if i < 0 {
				return -1
			}
			coords[k] = i
		}
	}
	return Index(axes, coords)
}

func compareWithBaseline(spec *benchv1.BenchmarkSweepSpec, axes []Axis, cells []benchv1.SweepCellStatus) {
	for i := range cells {
		b := BaselineCell(spec, axes, i)
		if b < 0 {
			continue
		}
		for j := range cells[i].Results {
			st := &cells[i].Results[j]
			base := findStats(&cells[b], st.Name)
			if base == nil {
				continue
			}
			if d := stats.ChangePercent(base.MedianThroughput, st.MedianThroughput); !math.IsNaN(d) {
				st.ThroughputChangePercent = ptr.To(d)
			}
			if d := stats.ChangePercent(base.MedianP99Micros, st.MedianP99Micros); !math.IsNaN(d) {
				st.P99ChangePercent = ptr.To(d)
			}
		}
	}
}

// baselineName names the baseline: the cell when it fixes every axis,
// else the values it fixes, in axis order.
func baselineName(spec *benchv1.BenchmarkSweepSpec, axes []Axis) string {
	if len(spec.Baseline) == 0 {
		return ""
	}
	var names, fixed []string
	for _, a := range axes {
		v, ok := spec.Baseline[a.Name]
		if !ok {
			names = nil
			fixed = append(fixed, a.Name+"=*")
			continue
		}
		fixed = append(fixed, a.Name+"="+string(v))
		names = append(names, string(v))
	}
	if len(names) == len(axes) {
		return strings.Join(names, "/")
	}
	return strings.Join(fixed, ",")
}

// knees finds, for each numeric axis, phase and combination of the other
// axes' values, the smallest value whose median throughput reaches
// KneeFraction of the best.
func knees(axes []Axis, cells []benchv1.SweepCellStatus) []benchv1.SweepKnee {
	var out []benchv1.SweepKnee
	phases := phaseNames(cells)
	for k := range axes {
		a := &axes[k]
		if !a.Numeric() || len(a.Values) < 2 {
			continue
		}
		// Slices: cells grouped by every other axis's value.
		slices := map[string][]int{}
		var order []string
		for i := range cells {
			at := sliceKey(cells[i].Values, k)
			if _, ok := slices[at]; !ok {
				order = append(order, at)
			}
			slices[at] = append(slices[at], i)
		}
		for _, at := range order {
			for _, ph := range phases {
				type point struct {
					x          float64
					name       string
					throughput float64
				}
				var pts []point
				for _, i := range slices[at] {
					st := findStats(&cells[i], ph)
					if st == nil {
						continue
					}
					v := cells[i].Values[k]
					pts = append(pts, point{*v.Number, v.Value, st.MedianThroughput})
				}
				if len(pts) < 2 {
					continue
				}
				sort.Slice(pts, func(i, j int) bool { return pts[i].x < pts[j].x })
				bestI := 0
				for i, p := range pts {
					if p.throughput > pts[bestI].throughput {
						bestI = i
					}
				}
				for _, p := range pts {
					if p.throughput >= KneeFraction*pts[bestI].throughput {
						out = append(out, benchv1.SweepKnee{Axis: a.Name, Phase: ph, At: at, Value: p.name, Number: p.x,
							Throughput: p.throughput, BestValue: pts[bestI].name, BestThroughput: pts[bestI].throughput})
						break
					}
				}
			}
		}
	}
	return out
}

func sliceKey(values []benchv1.SweepCellValue, skip int) string {
	var parts []string
	for i, v := range values {
		if i != skip {
			parts = append(parts, v.Axis+"="+v.Value)
		}
	}
	return strings.Join(parts, ",")
}

// phaseNames lists the phases of every cell's results, in order of first
// appearance.
func phaseNames(cells []benchv1.SweepCellStatus) []string {
	var names []string
	seen := map[string]bool{}
	for i := range cells {
		for _, r := range cells[i].Results {
			if !seen[r.Name] {
				seen[r.Name] = true
				names = append(names, r.Name)
			}
		}
	}
	return names
}

// summaryPhase is the template's last Run phase (the one a run's summary
// shows), else its last phase.
func summaryPhase(t *benchv1.BenchmarkRunSpec) string {
	for i := len(t.Phases) - 1; i >= 0; i-- {
		if t.Phases[i].Type == benchv1.PhaseRun {
			return t.Phases[i].Name
		}
	}
	if len(t.Phases) > 0 {
		return t.Phases[len(t.Phases)-1].Name
	}
	return ""
}

// best names the cell with the highest median throughput in the summary
// phase, for the BEST printer column.
func best(cells []benchv1.SweepCellStatus, phase string) string {
	bestI, bestT := -1, 0.0
	for i := range cells {
		if st := findStats(&cells[i], phase); st != nil && (bestI < 0 || st.MedianThroughput > bestT) {
			bestI, bestT = i, st.MedianThroughput
		}
	}
	if bestI < 0 {
		return ""
	}
	return fmt.Sprintf("%s: %s ops/s", cells[bestI].Name, strconv.FormatFloat(math.Round(bestT), 'f', -1, 64))
}

// Terminal reports whether a sweep phase is final.
func Terminal(p benchv1.SweepLifecycle) bool {
	return p == benchv1.SweepSucceeded || p == benchv1.SweepFailed || p == benchv1.SweepPartiallySucceeded
}
