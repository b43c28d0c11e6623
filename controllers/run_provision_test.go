package controllers

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/topology"
)

// TestReadinessBranches: what readiness says of each process, one row per
// branch (ago and now are run_problems_test.go's).
func TestReadinessBranches(t *testing.T) {
	standalone := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "sa"},
		Spec: benchv1.BenchmarkRunSpec{Topology: benchv1.TopologySpec{Mode: benchv1.TopologyStandalone}}}
	sharded := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "sh"},
		Spec: benchv1.BenchmarkRunSpec{Topology: benchv1.TopologySpec{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](2)}}}
	pod := func(ready corev1.ConditionStatus) *corev1.Pod {
		return &corev1.Pod{Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: ready}}}}
	}
	deleting := pod(corev1.ConditionTrue)
	deleting.DeletionTimestamp = ptr.To(ago(time.Second))
	up, down := pod(corev1.ConditionTrue), pod(corev1.ConditionFalse)
	noCondition := &corev1.Pod{}

	for _, tc := range []struct {
		name            string
		run             *benchv1.BenchmarkRun
		pods            map[string]*corev1.Pod
		wantAll, wantDB bool
		wantMsg         string
	}{
		{"standalone ready", standalone, map[string]*corev1.Pod{"sa-mongod": up}, true, true, "mongod ready"},
		{"standalone pod missing", standalone, nil, false, false, "mongod not ready"},
		{"standalone not ready", standalone, map[string]*corev1.Pod{"sa-mongod": down}, false, false, "mongod not ready"},
		{"standalone without a Ready condition", standalone, map[string]*corev1.Pod{"sa-mongod": noCondition}, false, false, "mongod not ready"},
		{"standalone being deleted", standalone, map[string]*corev1.Pod{"sa-mongod": deleting}, false, false, "mongod not ready"},
		{"sharded all ready", sharded, map[string]*corev1.Pod{"sh-cfg": up, "sh-shard0": up, "sh-shard1": up, "sh-mongos": up},
			true, true, "config server ready, 2/2 shards ready, mongos ready"},
		{"sharded data ready, mongos not (before the bootstrap)", sharded, map[string]*corev1.Pod{"sh-cfg": up, "sh-shard0": up, "sh-shard1": up},
			false, true, "config server ready, 2/2 shards ready, mongos not ready"},
		{"sharded, a shard not ready", sharded, map[string]*corev1.Pod{"sh-cfg": up, "sh-shard0": up, "sh-shard1": down, "sh-mongos": up},
			false, false, "config server ready, 1/2 shards ready, mongos ready"},
		{"sharded, config server not ready", sharded, map[string]*corev1.Pod{"sh-cfg": down, "sh-shard0": up, "sh-shard1": up, "sh-mongos": up},
			false, false, "config server not ready, 2/2 shards ready, mongos ready"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			all, db, msg := readiness(&runState{run: tc.run, pods: tc.pods}, topology.Processes(tc.run))
			if all != tc.wantAll || db != tc.wantDB || msg != tc.wantMsg {
				t.Errorf("got all=%t dataReady=%t %q, want all=%t dataReady=%t %q", all, db, msg, tc.wantAll, tc.wantDB, tc.wantMsg)
			}
		})
	}
}

// TestRecordNodes: what recordNodes records from the pods' nodes, for a
// one-node run and a Spread run, and that it never overwrites what status
// already holds (the placePods path after a lost status patch relies on
// both).
func TestRecordNodes(t *testing.T) {
	oneNode := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "sh"},
		Spec: benchv1.BenchmarkRunSpec{Topology: benchv1.TopologySpec{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](2)}}}
	spread := oneNode.DeepCopy()
	spread.Spec.Placement.Layout = benchv1.LayoutSpread
	// placed puts every pod of run on a node: the anchor's for a one-node
	// run, one per process for a Spread run; skip leaves one pod out.
	placed := func(run *benchv1.BenchmarkRun, skip string) map[string]*corev1.Pod {
		pods := map[string]*corev1.Pod{}
		for i, p := range topology.Processes(run) {
			if p.Name == skip {
				continue
			}
			node := "n0"
			if topology.Spread(run) {
				node = "n" + string(rune('0'+i))
			}
			pods[p.Name] = &corev1.Pod{Spec: corev1.PodSpec{NodeName: node}}
		}
		return pods
	}
	procs := topology.Processes(oneNode)
	anchor, last := procs[0].Name, procs[len(procs)-1].Name
	recorded := []benchv1.RoleNode{{Role: benchv1.RoleConfigServer, Node: "old"}}

	for _, tc := range []struct {
		name      string
		run       *benchv1.BenchmarkRun
		pods      map[string]*corev1.Pod
		status    benchv1.BenchmarkRunStatus
		wantNode  string
		wantNodes []benchv1.RoleNode
		wantEvent bool
	}{
		{name: "one node, every pod placed", run: oneNode, pods: placed(oneNode, ""), wantNode: "n0",
			wantNodes: roleNodes(procs, func(topology.Process) string { return "n0" }), wantEvent: true},
		{name: "one node, a pod still to create: the node, not yet the roles", run: oneNode, pods: placed(oneNode, last),
			wantNode: "n0", wantEvent: true},
		{name: "one node, the anchor not there: nothing", run: oneNode, pods: placed(oneNode, anchor)},
		{name: "one node, already recorded: kept, no event", run: oneNode, pods: placed(oneNode, ""),
			status: benchv1.BenchmarkRunStatus{NodeName: "old", Nodes: recorded}, wantNode: "old", wantNodes: recorded},
		{name: "spread, every pod placed", run: spread, pods: placed(spread, ""), wantEvent: true,
			wantNodes: roleNodes(topology.Processes(spread), func(p topology.Process) string {
				return placed(spread, "")[p.Name].Spec.NodeName
			})},
		{name: "spread, a pod unplaced: nothing", run: spread, pods: placed(spread, last)},
		{name: "spread, already recorded: kept", run: spread, pods: placed(spread, ""),
			status: benchv1.BenchmarkRunStatus{Nodes: recorded}, wantNodes: recorded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := tc.run.DeepCopy()
			run.Status = *tc.status.DeepCopy()
			s := &runState{statusKit: newStatusKit(run, time.Now()), run: run, pods: tc.pods}
			recordNodes(s)
			if run.Status.NodeName != tc.wantNode {
				t.Errorf("status.nodeName %q, want %q", run.Status.NodeName, tc.wantNode)
			}
			if !equality.Semantic.DeepEqual(run.Status.Nodes, tc.wantNodes) {
				t.Errorf("status.nodes %+v, want %+v", run.Status.Nodes, tc.wantNodes)
			}
			if got := len(s.events) > 0; got != tc.wantEvent {
				t.Errorf("events %+v, want one: %v", s.events, tc.wantEvent)
			}
		})
	}
}
