package validity

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// memberSet is a three-member ReplicaSet run that passes every check.
func memberSet() *benchv1.BenchmarkRun {
	run := &benchv1.BenchmarkRun{}
	run.Spec.Topology = benchv1.TopologySpec{Mode: benchv1.TopologyReplicaSet, Members: ptr.To[int32](3), WiredTigerCacheSizeGB: "0.5"}
	run.Status.Topology = &benchv1.TopologyStatus{}
	var servers []benchv1.ServerSummary
	for _, pod := range []string{"r-rs0-0", "r-rs0-1", "r-rs0-2"} {
		run.Status.Topology.Processes = append(run.Status.Topology.Processes, benchv1.ProcessStatus{Role: benchv1.RoleMember, Pod: pod, ReplicaSet: "rs0"})
		servers = append(servers, benchv1.ServerSummary{Role: benchv1.RoleMember, Pod: pod, Samples: 60,
			MinConnectionsAvailable: ptr.To[int64](800), CacheMaxBytes: ptr.To[int64](512 << 20)})
	}
	run.Status.Results = []benchv1.PhaseResult{{Name: "run", OperationStats: []benchv1.OperationResult{{Name: "READ", Count: 1000}}, Server: servers}}
	return run
}

// TestMemberSetElection: an election during the measured window, which
// every member sees, makes the run invalid once, naming the set and the
// members that saw it; the members' caches are checked like a shard's.
func TestMemberSetElection(t *testing.T) {
	run := memberSet()
	if p := Check(run); len(p) != 0 {
		t.Fatalf("healthy set: %+v", p)
	}
	srv := run.Status.Results[0].Server
	srv[0].PrimaryChanges, srv[1].PrimaryChanges, srv[2].PrimaryChanges = 1, 2, 1
	p := Check(run)
	if len(p) != 1 || p[0].Reason != benchv1.ReasonPrimaryChanged {
		t.Fatalf("problems %+v, want one PrimaryChanged for the set", p)
	}
	want := "phase run: replica set rs0 changed primary during the measured window (up to 2 time(s), seen by 3 of its 3 members: r-rs0-0, r-rs0-1, r-rs0-2)"
	if p[0].Message != want {
		t.Errorf("message %q\nwant %q", p[0].Message, want)
	}

	// One member alone saw it (the others' samples fell between): still
	// an election of the set.
	run = memberSet()
	run.Status.Results[0].Server[2].PrimaryChanges = 1
	if p := Check(run); len(p) != 1 || !strings.Contains(p[0].Message, "seen by 1 of its 3 members: r-rs0-2") {
		t.Errorf("problems %+v", p)
	}

	// A member's cache of another size is the member's problem.
	run = memberSet()
	run.Status.Results[0].Server[1].CacheMaxBytes = ptr.To[int64](1 << 30)
	if p := Check(run); len(p) != 1 || p[0].Reason != benchv1.ReasonCacheSizeMismatch || !strings.Contains(p[0].Message, "member r-rs0-1") {
		t.Errorf("problems %+v, want the member's CacheSizeMismatch", p)
	}

	// A run recorded before status named the sets: one problem per process.
	run = memberSet()
	run.Status.Topology = nil
	run.Status.Results[0].Server[0].PrimaryChanges, run.Status.Results[0].Server[1].PrimaryChanges = 1, 1
	if p := Check(run); len(p) != 2 || !strings.Contains(p[0].Message, "member r-rs0-0 saw its replica set's primary change 1 time(s)") {
		t.Errorf("problems %+v", p)
	}
}
