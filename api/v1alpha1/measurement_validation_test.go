package v1alpha1_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestMeasurementIsValidated: warm-ups, measurement intervals, the
// intendedP99 metric and the validity thresholds are checked at apply.
func TestMeasurementIsValidated(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	base := "  topology: {mode: Standalone}\n  workload: {preset: a, recordCount: 1000}\n"
	cases := []struct {
		name, spec, want string
	}{
		{"a timed warm-up and both", base + `  measurement: {interval: intended}
  phases:
  - {name: load, type: Load, warmup: {operations: 500}}
  - {name: run, type: Run, target: 1000, warmup: {duration: 30s}, measurement: {interval: both}}
`, ""},
		{"warm-up by both", base + `  phases:
  - {name: load, type: Load}
  - {name: run, type: Run, warmup: {duration: 30s, operations: 10}}
`, "warmup takes either duration or operations"},
		{"an empty warm-up", base + `  phases:
  - {name: load, type: Load}
  - {name: run, type: Run, warmup: {}}
`, "warmup takes either duration or operations"},
		{"a short warm-up", base + `  phases:
  - {name: load, type: Load}
  - {name: run, type: Run, warmup: {duration: 100ms}}
`, "warmup.duration must be between 1s and 24h"},
		{"a load warmed up by most records", base + `  phases:
  - {name: load, type: Load, warmup: {operations: 501}}
`, "a Load phase's warmup.operations may be at most half of recordCount"},
		{"fewer warm-up operations than loaders", base + `  loaders: 4
  phases:
  - {name: load, type: Load}
  - {name: run, type: Run, warmup: {operations: 3}}
`, "it must be at least loaders"},
		{"a Grow phase's warm-up", "  topology: {mode: Standalone}\n  phases:\n  - {name: grow, type: Grow, grow: {targetRecords: 10}, warmup: {duration: 5s}}\n",
			"warmup and measurement are YCSB's"},
		{"an unknown interval", base + `  measurement: {interval: timeline}
  phases:
  - {name: load, type: Load}
`, `Unsupported value: "timeline"`},
		{"intendedP99 of a phase measured op", base + `  phases:
  - {name: load, type: Load}
  - {name: run, type: Run, target: 1000}
  compare:
    baseline: {runRef: x}
    metrics: [{phase: run, metric: intendedP99}]
`, "an intendedP99 metric needs its phase measured with measurement.interval intended or both"},
		{"intendedP99 of a phase measured both", base + `  phases:
  - {name: load, type: Load}
  - {name: run, type: Run, target: 1000, measurement: {interval: both}}
  compare:
    baseline: {runRef: x}
    metrics: [{phase: run, metric: intendedP99}, {phase: run, operation: READ, metric: intendedP99}]
`, ""},
		{"intendedP99 of the run's interval", base + `  measurement: {interval: intended}
  phases:
  - {name: load, type: Load}
  - {name: run, type: Run}
  compare:
    baseline: {runRef: x}
    metrics: [{phase: run, metric: intendedP99}]
`, ""},
		{"a negative error threshold", base + "  validity: {maxErrorPercent: -1}\n", "maxErrorPercent"},
		{"a loader CPU threshold of 0", base + "  validity: {maxLoaderCPUPercent: 0}\n", "maxLoaderCPUPercent"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u, err := create(t, c, ns, run("measure-"+string(rune('a'+i)), tc.spec))
			expectAdmission(t, err, tc.want)
			if i == 0 {
				v, _, _ := unstructured.NestedMap(u.Object, "spec", "validity")
				if v["maxErrorPercent"] != 0.1 || v["maxLoaderCPUPercent"] != int64(90) || v["maxLoaderThrottledPercent"] != int64(5) {
					t.Errorf("validity defaults %v", v)
				}
			}
		})
	}
}
