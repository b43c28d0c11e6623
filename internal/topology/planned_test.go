package topology

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// PlannedOperations reads what the loaders read: the preset's file under
// the run's properties, shared out among spec.loaders.
func TestPlannedOperations(t *testing.T) {
	load := benchv1.PhaseSpec{Name: "load", Type: benchv1.PhaseLoad}
	runPhase := benchv1.PhaseSpec{Name: "S5", Type: benchv1.PhaseRun}
	for _, tc := range []struct {
		name      string
		preset    benchv1.WorkloadPreset
		records   *int64
		ops       *int64
		loaders   int32
		override  *int64 // the Run phase's own operationCount
		warmup    *int64 // the Run phase's warmup.operations
		load, run int64
	}{
		{name: "no preset: the defaults", loaders: 1, load: DefaultCount, run: DefaultCount},
		{name: "preset a: its file", preset: "a", loaders: 1, load: 1000, run: 1000},
		{name: "preset S5: its file", preset: "S5", loaders: 4, load: 5_000_000, run: 5_000_000},
		{name: "counts over the preset, three loaders", preset: "a", records: ptr.To[int64](10_000), ops: ptr.To[int64](30_001), loaders: 3,
			load: 10_000, run: 30_001},
		{name: "the phase's override", preset: "a", ops: ptr.To[int64](30_000), override: ptr.To[int64](500), loaders: 2, load: 1000, run: 500},
		{name: "time only", records: ptr.To[int64](100), ops: ptr.To[int64](0), loaders: 2, load: 100, run: 0},
		{name: "a counted warm-up on top of a run's", preset: "a", ops: ptr.To[int64](30_000), warmup: ptr.To[int64](3_001), loaders: 2,
			load: 1000, run: 33_001},
		{name: "a warm-up of a phase bounded by time", records: ptr.To[int64](100), ops: ptr.To[int64](0), warmup: ptr.To[int64](50),
			loaders: 2, load: 100, run: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := standalone()
			run.Spec.Loaders = tc.loaders
			run.Spec.Workload.Preset = tc.preset
			run.Spec.Workload.RecordCount, run.Spec.Workload.OperationCount = tc.records, tc.ops
			rp := runPhase
			if tc.override != nil {
				rp.Workload = &benchv1.WorkloadParameters{OperationCount: tc.override}
			}
			if tc.warmup != nil {
				rp.Warmup = &benchv1.WarmupSpec{Operations: tc.warmup}
			}
			run.Spec.Phases = []benchv1.PhaseSpec{load, rp}
			if got, err := PlannedOperations(run, &run.Spec.Phases[0]); err != nil || got != tc.load {
				t.Errorf("load: %d, %v; want %d", got, err, tc.load)
			}
			if got, err := PlannedOperations(run, &run.Spec.Phases[1]); err != nil || got != tc.run {
				t.Errorf("run: %d, %v; want %d", got, err, tc.run)
			}
		})
	}
}

func TestPlannedOperationsOfAGrowPhase(t *testing.T) {
	run := standalone()
	run.Spec.Phases = []benchv1.PhaseSpec{{Name: "grow", Type: benchv1.PhaseGrow, Grow: &benchv1.GrowSpec{TargetRecords: 1000}}}
	if _, err := PlannedOperations(run, &run.Spec.Phases[0]); err == nil || !strings.Contains(err.Error(), "no operation count") {
		t.Fatalf("error %v, want one saying a Grow phase has no operation count", err)
	}
}

func TestMaxExecutionSeconds(t *testing.T) {
	for _, tc := range []struct {
		d    *metav1.Duration
		want int64
	}{
		{nil, 0},
		{&metav1.Duration{Duration: time.Second}, 1},
		{&metav1.Duration{Duration: 1500 * time.Millisecond}, 2},
		{&metav1.Duration{Duration: 10 * time.Minute}, 600},
	} {
		if got := MaxExecutionSeconds(&benchv1.PhaseSpec{MaxExecutionTime: tc.d}); got != tc.want {
			t.Errorf("MaxExecutionSeconds(%v) = %d, want %d", tc.d, got, tc.want)
		}
	}
}
