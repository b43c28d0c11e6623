package v1alpha1_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestGrowPhasesAreValidated(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	spec := func(phases string) string {
		return "  topology: {mode: Standalone}\n  phases:\n" + phases
	}
	cases := []struct {
		name, spec, want string
	}{
		{"minimal", spec(`  - {name: grow, type: Grow, grow: {targetRecords: 2000000}}
`), ""},
		{"null queries", spec(`  - {name: grow, type: Grow, grow: {targetRecords: 2000000, queries: null}}
`), ""},
		{"no queries", spec(`  - {name: grow, type: Grow, grow: {targetRecords: 2000000, queries: []}}
`), ""},
		{"the study", spec(`  - name: grow
    type: Grow
    grow:
      targetRecords: 200000000
      checkpointEvery: 10000000
      insertMode: Batch
      batchSize: 1000
      queryThreads: 8
      queryDuration: 60s
      queries: [Q1, Q3]
      queryParameters: {q1Limit: 10, q2Projection: [number, date], q3Skip: 100, q3Limit: 10, q4Limit: 100}
      matchesPerValue: 10
      payloadBytes: 945
      seed: 7
`), ""},
		{"200 checkpoints", spec(`  - {name: grow, type: Grow, grow: {targetRecords: 2000000, checkpointEvery: 10000}}
`), ""},
		{"201 checkpoints", spec(`  - {name: grow, type: Grow, grow: {targetRecords: 2000001, checkpointEvery: 10000}}
`), "at most 200 checkpoints"},
		{"no grow", spec(`  - {name: grow, type: Grow}
`), "grow is required on a Grow phase and only allowed there"},
		{"grow on a Load phase", spec(`  - {name: load, type: Load, grow: {targetRecords: 10}}
`), "grow is required on a Grow phase and only allowed there"},
		{"with a Run phase", spec(`  - {name: grow, type: Grow, grow: {targetRecords: 10}}
  - {name: run, type: Run, maxExecutionTime: 1m}
`), "a run with a Grow phase has no other phase"},
		{"after a Load phase", spec(`  - {name: load, type: Load}
  - {name: grow, type: Grow, grow: {targetRecords: 10}}
`), "a run with a Grow phase has no other phase"},
		{"batchSize without Batch", spec(`  - {name: grow, type: Grow, grow: {targetRecords: 10, batchSize: 5}}
`), "batchSize is only used with insertMode: Batch"},
		{"YCSB's batchSize", spec(`  - {name: grow, type: Grow, batchSize: 5, grow: {targetRecords: 10}}
`), "batchSize, target and maxExecutionTime are YCSB's"},
		{"batches too big for the loader", spec(`  - {name: grow, type: Grow, grow: {targetRecords: 10, insertMode: Batch, batchSize: 100000, payloadBytes: 1048576}}
`), "must stay within 1 GiB"},
		{"big batches", spec(`  - {name: grow, type: Grow, grow: {targetRecords: 10, insertMode: Batch, batchSize: 100000, insertThreads: 4}}
`), ""},
		{"unknown query", spec(`  - {name: grow, type: Grow, grow: {targetRecords: 10, queries: [Q5]}}
`), `Unsupported value: "Q5"`},
		{"twice a query", spec(`  - {name: grow, type: Grow, grow: {targetRecords: 10, queries: [Q1, Q1]}}
`), "Duplicate value"},
		{"short queries", spec(`  - {name: grow, type: Grow, grow: {targetRecords: 10, queryDuration: 500ms}}
`), "queryDuration must be between 1s and 1h"},
		{"ranged", "  topology: {mode: Sharded, shards: 2, shardKey: Ranged}\n  phases:\n" + `  - {name: grow, type: Grow, grow: {targetRecords: 10}}
`, "a Grow run shards on hashed _id"},
		{"hashed", "  topology: {mode: Sharded, shards: 3, shardKey: Hashed}\n  phases:\n" + `  - {name: grow, type: Grow, grow: {targetRecords: 10}}
`, ""},
		{"two loaders", "  loaders: 2\n" + spec(`  - {name: grow, type: Grow, grow: {targetRecords: 10}}
`), "a Grow phase runs in one loader pod"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u, err := create(t, c, ns, run("grow-"+string(rune('a'+i)), tc.spec))
			expectAdmission(t, err, tc.want)
			if tc.name == "no queries" {
				phases, _, _ := unstructured.NestedSlice(u.Object, "spec", "phases")
				if q, ok := phases[0].(map[string]any)["grow"].(map[string]any)["queries"].([]any); !ok || len(q) != 0 {
					t.Errorf("queries: [] became %v", phases[0].(map[string]any)["grow"])
				}
			}
			if tc.name == "minimal" || tc.name == "null queries" {
				phases, _, _ := unstructured.NestedSlice(u.Object, "spec", "phases")
				g := phases[0].(map[string]any)["grow"].(map[string]any)
				if g["insertMode"] != "Acknowledged" || g["insertThreads"] != int64(1) || g["queryThreads"] != int64(4) ||
					g["queryDuration"] != "30s" || len(g["queries"].([]any)) != 4 {
					t.Errorf("defaults: %v", g)
				}
			}
		})
	}
}
