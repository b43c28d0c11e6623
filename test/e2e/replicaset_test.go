//go:build e2e

package e2e

import (
	"os"
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/topology"
)

// TestReplicaSet: a three-member set on one node, written with w: majority
// and read with readConcern majority, succeeds with error-free results;
// the bootstrap left one PRIMARY and two SECONDARY, which status says and
// the members confirm; every member holds the loaded records (majority
// writes reach two of three at once, the third by replication).
func TestReplicaSet(t *testing.T) {
	kubectl := os.Getenv("E2E_KUBECTL")
	if kubectl == "" {
		t.Fatal("E2E_KUBECTL must be set (run through make test-e2e)")
	}
	s := setup(t)
	run := smallRun("replset", benchv1.TopologyReplicaSet, 0)
	run.Spec.Topology.Members = ptr.To[int32](3)
	run.Spec.Driver = benchv1.DriverSpec{WriteConcern: "majority", ReadConcern: "majority", ReadPreference: "primary"}
	run.Spec.Cleanup = benchv1.CleanupRetain
	s.create(run)
	done := s.waitEnd("replset")
	if done.Status.Phase != benchv1.RunSucceeded {
		t.Fatalf("run failed: %s", failure(done))
	}
	s.checkResults(done)

	states := map[string]int{}
	for _, p := range done.Status.Topology.Processes {
		if p.Role != benchv1.RoleMember || p.ReplicaSet != topology.ReplicaSetName {
			t.Errorf("process %+v: want a member of %s", p, topology.ReplicaSetName)
		}
		states[p.State]++
	}
	if len(done.Status.Topology.Processes) != 3 || states["PRIMARY"] != 1 || states["SECONDARY"] != 2 {
		t.Errorf("status.topology.processes %+v: want 1 PRIMARY and 2 SECONDARY", done.Status.Topology.Processes)
	}
	// The primary's view of its secondaries, sampled with serverStatus:
	// every phase has a lag (0 when they kept up), and a primary reports it.
	for _, r := range done.Status.Results {
		if r.MaxReplicationLagMillis == nil || *r.MaxReplicationLagMillis < 0 {
			t.Errorf("phase %s: replication lag %v, want one", r.Name, r.MaxReplicationLagMillis)
		}
	}
	db := s.pods(client.MatchingLabels{benchv1.LabelRun: "replset", benchv1.LabelDatabase: "true"})
	nodes := map[string]bool{}
	for _, p := range db {
		nodes[p.Spec.NodeName] = true
	}
	if len(db) != 3 || len(nodes) != 1 || !nodes[done.Status.NodeName] {
		t.Errorf("%d DB pods on nodes %v, want 3 on %s", len(db), nodes, done.Status.NodeName)
	}

	for i := range 3 {
		pod := topology.MemberName(done, i)
		members := s.mongosh(kubectl, pod, string(benchv1.RoleMember), topology.PortMongod,
			`db.adminCommand({replSetGetStatus: 1}).members.filter(m => m.state === 1 || m.state === 2).length`)
		if members != "3" {
			t.Errorf("%s: %s members PRIMARY or SECONDARY, want 3", pod, members)
		}
		// A secondary answers a direct read with readPreference nearest;
		// the member furthest behind may still be applying the last
		// batches when the run ends: polled, not slept on.
		s.wait(pod+" holds every loaded record", time.Minute, func() bool {
			count := s.mongosh(kubectl, pod, string(benchv1.RoleMember), topology.PortMongod,
				`db.getMongo().setReadPref("nearest"); db.getSiblingDB("ycsb").usertable.countDocuments({})`)
			return strings.TrimSpace(count) == "10000"
		})
	}
}
