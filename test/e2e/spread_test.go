//go:build e2e

package e2e

import (
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// TestSpreadShards: a 2-shard run with placement.layout Spread on kind's
// two workers (hack/kind-config.yaml; the control plane is tainted). Each
// shard's mongod gets a worker of its own, the config server and mongos go
// where they fit, the run records both nodes by role, the collection is
// sharded over both shards, and the run succeeds with real results.
func TestSpreadShards(t *testing.T) {
	s := setup(t)
	const shards = 2
	run := smallRun("spread", benchv1.TopologySharded, shards)
	run.Spec.Placement.Layout = benchv1.LayoutSpread
	s.create(run)
	s.wait("the load phase", runTimeout, func() bool {
		r := s.get("spread")
		if r.Status.Phase == benchv1.RunFailed {
			t.Fatalf("run failed: %s", failure(r))
		}
		return r.Status.Phase == benchv1.RunLoading || r.Status.Phase == benchv1.RunRunning
	})
	r := s.get("spread")
	shardNodes := map[string]string{}
	recorded := map[benchv1.RoleNode]bool{}
	for _, rn := range r.Status.Nodes {
		recorded[rn] = true
	}
	for _, p := range s.pods(client.MatchingLabels{benchv1.LabelRun: "spread", benchv1.LabelDatabase: "true"}) {
		role := benchv1.ProcessRole(p.Labels[benchv1.LabelRole])
		if role == benchv1.RoleShard {
			shardNodes[p.Name] = p.Spec.NodeName
		}
		if !recorded[benchv1.RoleNode{Role: role, Node: p.Spec.NodeName}] {
			t.Errorf("status.nodes %+v lacks %s on %s (pod %s)", r.Status.Nodes, role, p.Spec.NodeName, p.Name)
		}
	}
	if len(shardNodes) != shards || shardNodes["spread-shard0"] == shardNodes["spread-shard1"] {
		t.Errorf("shards on %v, want a node each", shardNodes)
	}
	if r.Status.NodeName != "" {
		t.Errorf("status.nodeName %q on a Spread run", r.Status.NodeName)
	}
	done := s.waitEnd("spread")
	if done.Status.Phase != benchv1.RunSucceeded {
		t.Fatalf("run failed: %s", failure(done))
	}
	s.checkResults(done)
	if got := len(done.Status.Topology.Chunks); got != shards {
		t.Errorf("chunks reported for %d shards, want %d: %+v", got, shards, done.Status.Topology.Chunks)
	}
	if e := done.Status.Environment; e == nil || len(e.Nodes) < shards || e.Node != nil {
		t.Errorf("environment %+v, want every node of the run in nodes", e)
	}
}
