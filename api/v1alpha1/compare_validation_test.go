package v1alpha1_test

import (
	"testing"
)

func TestCompareIsValidated(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	spec := func(compare string) string {
		return "  topology: {mode: Standalone}\n  workload: {preset: a}\n  compare:\n" + compare
	}
	cases := []struct {
		name, compare, want string
	}{
		{"history", `    baseline: {history: {}}
    metrics: [{phase: run, metric: throughput}, {phase: run, operation: READ, metric: p999}]
    acknowledged: [{metric: "run READ p999", reason: "JIRA-1", until: "2026-12-31T00:00:00Z"}]
`, ""},
		{"run and sweep refs", `    baseline: {runRef: nightly-1, sweepRef: {name: s, cell: {topologies: 2-shards}}}
    metrics: [{phase: run, metric: throughput}]
`, "baseline sets exactly one of runRef, sweepRef or history"},
		{"a sweep's cell", `    baseline: {sweepRef: {name: s, cell: {topologies: 2-shards}}}
    metrics: [{phase: run, metric: throughput}]
`, ""},
		{"a sweep without a cell", `    baseline: {sweepRef: {name: s}}
    metrics: [{phase: run, metric: throughput}]
`, "a run's compare.baseline.sweepRef must name a cell"},
		{"no baseline", `    baseline: {}
    metrics: [{phase: run, metric: throughput}]
`, "baseline sets exactly one of runRef, sweepRef or history"},
		{"p999 of a phase", `    baseline: {runRef: x}
    metrics: [{phase: run, metric: p999}]
`, "p999 is kept per operation"},
		{"twice the same metric", `    baseline: {runRef: x}
    metrics: [{phase: run, metric: p99}, {phase: run, metric: p99, maxRegressionPercent: 5}]
`, "each phase, operation and metric may be compared once"},
		{"p-value 0", `    baseline: {runRef: x}
    metrics: [{phase: run, metric: p99}]
    pValue: 0
`, "pValue must be in (0, 0.5]"},
		{"no metrics", `    baseline: {runRef: x}
    metrics: []
`, "should have at least 1 items"},
		{"unknown metric", `    baseline: {runRef: x}
    metrics: [{phase: run, metric: p95}]
`, `Unsupported value: "p95"`},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := create(t, c, ns, run("cmp-"+string(rune('a'+i)), spec(tc.compare)))
			expectAdmission(t, err, tc.want)
		})
	}
}

// TestUnavailabilityMetricsAreValidated: unavailabilityWrites and
// unavailabilityReads are a phase's, over its disruptions: the phase must
// have some, and no operation is named.
func TestUnavailabilityMetricsAreValidated(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	spec := func(disruptions, metrics string) string {
		return "  topology: {mode: ReplicaSet, members: 3}\n  workload: {preset: a}\n  phases:\n  - {name: load, type: Load}\n" +
			"  - {name: run, type: Run, maxExecutionTime: 2m" + disruptions + "}\n" +
			"  compare:\n    baseline: {history: {}}\n    metrics: " + metrics + "\n"
	}
	stepDown := ", disruptions: [{at: 30s, action: StepDown}]"
	cases := []struct{ name, spec, want string }{
		{"writes and reads of a disrupted phase", spec(stepDown,
			"[{phase: run, metric: unavailabilityWrites, maxRegressionPercent: 50}, {phase: run, metric: unavailabilityReads, direction: LowerIsBetter}]"), ""},
		{"a phase without disruptions", spec("", "[{phase: run, metric: unavailabilityWrites}]"),
			"an unavailabilityWrites or unavailabilityReads metric needs its phase to have disruptions"},
		{"an empty list of disruptions", spec(", disruptions: []", "[{phase: run, metric: unavailabilityReads}]"),
			"an unavailabilityWrites or unavailabilityReads metric needs its phase to have disruptions"},
		{"another phase's disruptions", spec(stepDown, "[{phase: load, metric: unavailabilityWrites}]"),
			"an unavailabilityWrites or unavailabilityReads metric needs its phase to have disruptions"},
		{"per operation", spec(stepDown, "[{phase: run, operation: UPDATE, metric: unavailabilityWrites}]"),
			"unavailabilityWrites and unavailabilityReads are a phase's, over its disruptions: leave operation out"},
		{"misspelt", spec(stepDown, "[{phase: run, metric: unavailabilityWrite}]"), `Unsupported value: "unavailabilityWrite"`},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := create(t, c, ns, run("unav-"+string(rune('a'+i)), tc.spec))
			expectAdmission(t, err, tc.want)
		})
	}
}
