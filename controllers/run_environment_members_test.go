package controllers

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/topology"
)

// TestFingerprintOfMembers: a replica set's members, unset or 3, are the
// same set; shards and config servers of one member, said or not, keep
// the fingerprint of the runs recorded before they could be said; more
// members, and retryWrites against a set, set runs apart.
func TestFingerprintOfMembers(t *testing.T) {
	fp := func(topo benchv1.TopologySpec, retry bool) string {
		t.Helper()
		run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns1"},
			Spec: benchv1.BenchmarkRunSpec{Topology: topo, Driver: benchv1.DriverSpec{RetryWrites: retry},
				Phases: []benchv1.PhaseSpec{{Name: "load", Type: benchv1.PhaseLoad}}}}
		run.Spec.Topology.Image = "mongo:8.0.16"
		env := &benchv1.EnvironmentStatus{}
		for i := range run.Spec.Phases {
			env.Phases = append(env.Phases, benchv1.PhaseEnvironment{Name: run.Spec.Phases[i].Name,
				Properties: topology.PhaseProperties(run, &run.Spec.Phases[i], "cluster.local")})
		}
		f, err := fingerprint(run, env)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	rs := benchv1.TopologySpec{Mode: benchv1.TopologyReplicaSet}
	rs3 := benchv1.TopologySpec{Mode: benchv1.TopologyReplicaSet, Members: ptr.To[int32](3)}
	rs1 := benchv1.TopologySpec{Mode: benchv1.TopologyReplicaSet, Members: ptr.To[int32](1)}
	if fp(rs, false) != fp(rs3, false) {
		t.Error("members unset and 3 differ")
	}
	if fp(rs1, false) == fp(rs3, false) {
		t.Error("1 and 3 members alike")
	}
	if fp(rs, true) == fp(rs, false) {
		t.Error("retryWrites does not set replica-set runs apart (the driver retries writes to a set)")
	}
	sh := benchv1.TopologySpec{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](2)}
	sh1 := benchv1.TopologySpec{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](2), ShardMembers: ptr.To[int32](1), ConfigServerMembers: ptr.To[int32](1)}
	sh3 := benchv1.TopologySpec{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](2), ShardMembers: ptr.To[int32](3)}
	cfg3 := benchv1.TopologySpec{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](2), ConfigServerMembers: ptr.To[int32](3)}
	if fp(sh, false) != fp(sh1, false) {
		t.Error("one-member shards said and unsaid differ")
	}
	if fp(sh3, false) == fp(sh, false) || fp(cfg3, false) == fp(sh, false) || fp(sh3, false) == fp(cfg3, false) {
		t.Error("more members alike")
	}
}
