package sweep

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/topology"
)

// CheckSize fails a sweep whose status, once every run succeeded, would
// not fit in benchv1.MaxSweepStatusBytes: the status patch would fail on
// every retry and the sweep never end. The controller checks it once,
// before creating anything (it costs an aggregation of the whole sweep).
func CheckSize(spec *benchv1.BenchmarkSweepSpec, axes []Axis, cells []Cell) error {
	n, err := statusBytes(spec, axes, cells)
	if err != nil {
		return err
	}
	if n > benchv1.MaxSweepStatusBytes {
		phases := 0
		for i := range cells {
			phases += len(cells[i].Spec.Phases)
		}
		return fmt.Errorf("the sweep's status would take %d KiB (%d cells, %d phases in all, their knees, runs and comparisons); "+
			"at most %d KiB fit: use fewer cells, phases, numeric axes or compared metrics", n>>10, len(cells), phases, benchv1.MaxSweepStatusBytes>>10)
	}
	return nil
}

// statusBytes is the size of the sweep's status once every run succeeded:
// the status is aggregated from stand-in runs whose every phase has every
// field the aggregation reads (an intended p99 where the phase measures
// intended latencies), with numbers of full precision, and encoded as the
// API server stores it. Knees count too: they grow with the numeric axes,
// their slices and the phases. Each run's entry then says it is invalid
// with the longest reason, as if all but the cells' results were invalid:
// an upper bound of what validity adds.
func statusBytes(spec *benchv1.BenchmarkSweepSpec, axes []Axis, cells []Cell) (int, error) {
	reps := int(max(spec.Repetitions, 1))
	plan := Plan("s", len(cells), reps, benchv1.SweepSequential, 0)
	runs := make(map[string]*benchv1.BenchmarkRun, len(plan))
	for _, p := range plan {
		run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{UID: types.UID("00000000-0000-0000-0000-000000000000")}}
		run.Status.Phase = benchv1.RunSucceeded
		run.Status.Environment = &benchv1.EnvironmentStatus{Fingerprint: "0123456789abcdef"}
		run.Status.Conditions = []metav1.Condition{{Type: benchv1.ConditionValid, Status: metav1.ConditionTrue}}
		cellRun := &benchv1.BenchmarkRun{Spec: cells[p.Cell].Spec}
		for i := range cells[p.Cell].Spec.Phases {
			ph := &cells[p.Cell].Spec.Phases[i]
			// Distinct, irrational-looking numbers: medians, CoVs and %
			// changes print with all their digits.
			x := float64(p.Cell+1)*1234.5678901234567 + float64(p.Repetition)*math.Pi + float64(i)
			res := benchv1.PhaseResult{
				Name: ph.Name, Type: ph.Type, Throughput: x, P99Micros: int64(x * 7),
				OperationStats: []benchv1.OperationResult{{Name: "READ", Count: 1 << 40, Errors: 1 << 20, AverageMicros: x / 3}},
				Server:         []benchv1.ServerSummary{{PeakConnections: ptr.To[int64](1 << 20), MaxCacheDirtyPercent: ptr.To(x / 1e3)}},
				// The widest lag a status holds: the sweep's budget counts it.
				MaxReplicationLagMillis: ptr.To[int64](1 << 40),
			}
			if in := topology.MeasurementIntervalOf(cellRun, ph); in == benchv1.MeasureIntended || in == benchv1.MeasureBoth {
				res.IntendedP99Micros = ptr.To(int64(x * 11))
			}
			run.Status.Results = append(run.Status.Results, res)
		}
		runs[p.Name] = run
	}
	agg := AggregateRuns(spec, axes, cells, plan, runs)
	st := benchv1.BenchmarkSweepStatus{
		Phase: benchv1.SweepPartiallySucceeded, Seed: ptr.To[int64](math.MaxInt64), CellsTotal: int32(len(cells)),
		CellsDone: int32(len(cells)), CellsFailed: int32(len(cells)), CellsInvalid: int32(len(cells)),
		RunsActive: int32(len(plan)), RunsInvalid: int32(len(plan)),
		Cells: agg.Cells, Knees: agg.Knees, Baseline: agg.Baseline, Best: agg.Best, SummaryPhase: agg.SummaryPhase,
	}
	if c := spec.Compare; c != nil {
		// A verdict per metric and cell, with every string at its longest:
		// the basis names a sweep and a cell, the acknowledgement its reason.
		ack := 0
		for _, a := range c.Acknowledged {
			ack = max(ack, len(a.Reason))
		}
		rows := make([]benchv1.MetricComparison, 0, len(c.Metrics))
		for range c.Metrics {
			rows = append(rows, benchv1.MetricComparison{
				Metric: strings.Repeat("m", 60), Baseline: math.Pi * 1e6, Current: math.E * 1e6, ChangePercent: -math.Pi,
				PValue: ptr.To(math.SmallestNonzeroFloat64), Verdict: benchv1.VerdictAcknowledged,
				Basis: strings.Repeat("b", 128+70*len(axes)), Acknowledged: strings.Repeat("a", ack),
			})
		}
		for i := range agg.Cells {
			agg.Cells[i].Comparison = rows
		}
	}
	for range plan {
		st.Order = append(st.Order, RunName("ssssssssssssssssssssssssssssssss", 255, 10))
	}
	longestReason := ""
	for _, r := range benchv1.ValidityReasons() {
		if len(r) > len(longestReason) {
			longestReason = string(r)
		}
	}
	for i := range st.Cells {
		st.Cells[i].InvalidRuns = int32(reps)
		for j := range st.Cells[i].Runs {
			r := &st.Cells[i].Runs[j]
			r.Name = RunName("ssssssssssssssssssssssssssssssss", 255, 10)
			r.Valid, r.InvalidReason = ptr.To(false), longestReason
		}
	}
	b, err := json.Marshal(st)
	if err != nil {
		return 0, fmt.Errorf("encode the sweep's status: %w", err)
	}
	// Conditions and timestamps: a few hundred bytes, messages bounded.
	return len(b) + 16<<10, nil
}
