package report

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// TestComparabilityNoteNamesTheOneMemberSet: the standalone-vs-shards
// warning names the study's one-member replica set as the like-with-like
// baseline, or points to the sample sweep that has one.
func TestComparabilityNoteNamesTheOneMemberSet(t *testing.T) {
	cell := func(name string, topo benchv1.TopologySpec) Cell {
		run := &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{Topology: topo}}
		return Cell{Name: name, Runs: []CellRun{{Run: run}}}
	}
	sa := cell("standalone", benchv1.TopologySpec{Mode: benchv1.TopologyStandalone})
	sh := cell("2-shards", benchv1.TopologySpec{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](2)})
	rs1 := cell("rs-1", benchv1.TopologySpec{Mode: benchv1.TopologyReplicaSet, Members: ptr.To[int32](1)})
	rs3 := cell("rs-3", benchv1.TopologySpec{Mode: benchv1.TopologyReplicaSet})

	note := (&Study{Cells: []Cell{sa, sh, rs1, rs3}}).comparabilityNote()
	if !strings.Contains(note, "The like-with-like baseline for them is cell rs-1: a one-member replica set, a standalone with an oplog.") {
		t.Errorf("with a one-member set: %s", note)
	}
	note = (&Study{Cells: []Cell{sa, sh, rs3}}).comparabilityNote()
	if !strings.Contains(note, "which this study has no cell of; the sample sweep study-microsharding-rs") {
		t.Errorf("without one (a three-member set is not it): %s", note)
	}
	if note := (&Study{Cells: []Cell{rs1, sh}}).comparabilityNote(); note != "" {
		t.Errorf("a one-member set against shards is like with like: %s", note)
	}
}
