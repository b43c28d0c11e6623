package sweep

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// TestReplicaSetTopologies: a topologies axis takes ReplicaSet cells
// (named rs-<members>, numbered by members), which drop the sharded-only
// fields; a Standalone or Sharded cell of a ReplicaSet template drops
// members.
func TestReplicaSetTopologies(t *testing.T) {
	spec := &benchv1.BenchmarkSweepSpec{
		Template: benchv1.BenchmarkRunSpec{Topology: benchv1.TopologySpec{Mode: benchv1.TopologyReplicaSet, Members: ptr.To[int32](5),
			Image: "mongo:8.0.16", MongosResources: nil}},
		Axes: []benchv1.SweepAxis{{Name: "topologies", Topologies: []benchv1.SweepTopology{
			{Mode: benchv1.TopologyReplicaSet, Members: ptr.To[int32](1)},
			{Mode: benchv1.TopologyReplicaSet},
			{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](2)},
			{Mode: benchv1.TopologyStandalone},
		}}},
	}
	axes, cells, err := Expand(spec)
	if err != nil {
		t.Fatal(err)
	}
	wantNames := []string{"rs-1", "rs-3", "2-shards", "standalone"}
	wantNumbers := []float64{1, 3, 2, 1}
	for i, v := range axes[0].Values {
		if v.Name != wantNames[i] || v.Number == nil || *v.Number != wantNumbers[i] {
			t.Errorf("value %d: %s %v, want %s %v", i, v.Name, v.Number, wantNames[i], wantNumbers[i])
		}
	}
	want := []struct {
		mode    benchv1.TopologyMode
		members *int32
	}{{benchv1.TopologyReplicaSet, ptr.To[int32](1)}, {benchv1.TopologyReplicaSet, nil}, {benchv1.TopologySharded, nil}, {benchv1.TopologyStandalone, nil}}
	for i, c := range cells {
		topo := c.Spec.Topology
		if topo.Mode != want[i].mode || (topo.Members == nil) != (want[i].members == nil) ||
			(topo.Members != nil && *topo.Members != *want[i].members) || topo.Image != "mongo:8.0.16" {
			t.Errorf("cell %s: topology %+v, want mode %s members %v and the template's image", c.Name(), topo, want[i].mode, want[i].members)
		}
	}
}

// TestMicroshardingRSSampleExpands: the sample's baseline is its
// one-member replica set.
func TestMicroshardingRSSampleExpands(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "config", "samples", "bench_v1alpha1_benchmarksweep_study-microsharding-rs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var sw benchv1.BenchmarkSweep
	if err := yaml.UnmarshalStrict(b, &sw); err != nil {
		t.Fatal(err)
	}
	_, cells, err := Expand(&sw.Spec)
	if err != nil {
		t.Fatal(err)
	}
	base := cells[0]
	if base.Name() != "rs-1" || sw.Spec.Baseline["topologies"] != "rs-1" {
		t.Fatalf("first cell %s, baseline %v: want rs-1", base.Name(), sw.Spec.Baseline)
	}
	if base.Spec.Topology.Mode != benchv1.TopologyReplicaSet || base.Spec.Topology.Members == nil || *base.Spec.Topology.Members != 1 {
		t.Errorf("baseline topology %+v: want a one-member replica set", base.Spec.Topology)
	}
	for _, c := range cells[1:] {
		if c.Spec.Topology.Mode != benchv1.TopologySharded || c.Spec.Topology.Members != nil {
			t.Errorf("cell %s topology %+v", c.Name(), c.Spec.Topology)
		}
	}
}

// TestAggregateReplicationLag: a cell's phase reports the largest lag of
// its runs; a cell whose runs report none has none.
func TestAggregateReplicationLag(t *testing.T) {
	spec := &benchv1.BenchmarkSweepSpec{
		Template: template(),
		Axes: []benchv1.SweepAxis{{Name: "topologies", Topologies: []benchv1.SweepTopology{
			{Mode: benchv1.TopologyReplicaSet}, {Mode: benchv1.TopologyStandalone},
		}}},
		Repetitions: 2,
	}
	axes, cells, err := Expand(spec)
	if err != nil {
		t.Fatal(err)
	}
	plan := Plan("s", len(cells), 2, benchv1.SweepSequential, 0)
	lagged := func(ms int64) *benchv1.BenchmarkRun {
		r := result("S2", 1000, 900)
		r.MaxReplicationLagMillis = ptr.To(ms)
		return succeeded(r)
	}
	agg := AggregateRuns(spec, axes, cells, plan, map[string]*benchv1.BenchmarkRun{
		"s-0-r1": lagged(40), "s-0-r2": lagged(900),
		"s-1-r1": succeeded(result("S2", 1000, 900)), "s-1-r2": succeeded(result("S2", 1000, 900)),
	})
	if l := agg.Cells[0].Results[0].MaxReplicationLagMillis; l == nil || *l != 900 {
		t.Errorf("replica set cell lag %v, want 900", l)
	}
	if l := agg.Cells[1].Results[0].MaxReplicationLagMillis; l != nil {
		t.Errorf("standalone cell lag %d", *l)
	}
}
