package report

import (
	"bytes"
	"encoding/csv"
	"slices"
	"testing"

	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// TestCSVReplicationLag: a run whose phases report a replication lag gets
// the max_replication_lag_ms column, filled on each phase's OVERALL row;
// studies without one keep their columns (the golden CSVs).
func TestCSVReplicationLag(t *testing.T) {
	run := &benchv1.BenchmarkRun{}
	run.Name = "rs3"
	run.Spec.Topology = benchv1.TopologySpec{Mode: benchv1.TopologyReplicaSet}
	run.Status.Phase = benchv1.RunSucceeded
	run.Status.Results = []benchv1.PhaseResult{
		{Name: "load", Type: benchv1.PhaseLoad, Operations: 10, OperationStats: []benchv1.OperationResult{{Name: "INSERT", Count: 10}},
			MaxReplicationLagMillis: ptr.To[int64](250)},
		{Name: "run", Type: benchv1.PhaseRun, Operations: 10, OperationStats: []benchv1.OperationResult{{Name: "READ", Count: 10}}},
	}
	var buf bytes.Buffer
	if err := CSV(&buf, FromRun(run, nil)); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(rows[0], "max_replication_lag_ms")
	if col < 0 {
		t.Fatalf("no max_replication_lag_ms in %v", rows[0])
	}
	phase, op := slices.Index(rows[0], "phase"), slices.Index(rows[0], "operation")
	got := map[string]string{}
	for _, r := range rows[1:] {
		got[r[phase]+"/"+r[op]] = r[col]
	}
	if got["load/OVERALL"] != "250" || got["load/INSERT"] != "" || got["run/OVERALL"] != "" {
		t.Errorf("lag column %v: want 250 on load's OVERALL row only", got)
	}
}
