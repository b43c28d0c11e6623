package controllers_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/controllers"
	"github.com/mongobench/mongobench/internal/testutil/kube"
	"github.com/mongobench/mongobench/internal/topology"
)

// TestSpreadPreflightCheck: a Spread run needs one node (one
// spreadTopologyKey domain) per data-bearing mongod, each fitting that
// mongod's requests, and says how many it needed and how many fit.
func TestSpreadPreflightCheck(t *testing.T) {
	const zone = "topology.kubernetes.io/zone"
	node := func(name, cpu, z string, edit ...func(*corev1.Node)) corev1.Node {
		n := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{topology.HostnameLabel: "host-" + name}},
			Status: corev1.NodeStatus{Allocatable: kube.Resources(cpu, "32Gi"),
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
		if z != "" {
			n.Labels[zone] = z
		}
		for _, e := range edit {
			e(&n)
		}
		return n
	}
	cordoned := func(n *corev1.Node) { n.Spec.Unschedulable = true }
	spread := func(mode benchv1.TopologyMode, shards int32, cpu, key string) *benchv1.BenchmarkRun {
		run := newRun("r", mode, shards, 1)
		run.Spec.Placement.Layout = benchv1.LayoutSpread
		run.Spec.Placement.SpreadTopologyKey = key
		run.Spec.Topology.Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}
		return run
	}
	bigRouter := spread(benchv1.TopologySharded, 2, "4", "")
	bigRouter.Spec.Topology.MongosResources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("64")}}
	three := []corev1.Node{node("a", "8", "z1"), node("b", "8", "z1"), node("c", "8", "z2")}
	for _, tc := range []struct {
		name   string
		run    *benchv1.BenchmarkRun
		nodes  []corev1.Node
		reason benchv1.Reason
		msg    string
	}{
		{"3 shards on 3 nodes", spread(benchv1.TopologySharded, 3, "4", ""), three, "", ""},
		// The whole topology (3×6 CPUs) fits no node, but each shard fits one.
		{"each shard fits a node, the sum would not", spread(benchv1.TopologySharded, 3, "6", ""), three, "", ""},
		{"4 shards on 3 nodes", spread(benchv1.TopologySharded, 4, "4", ""), three, benchv1.ReasonInsufficientResources,
			"layout Spread puts each of the topology's 4 data-bearing mongods on a node of its own: 4 nodes needed, 3 fit (each mongod requests cpu=4; " +
				"the largest of the 3 Ready, schedulable nodes matching the run's placement, a, has cpu=8)"},
		{"3 shards, one node too small", spread(benchv1.TopologySharded, 3, "4", ""),
			[]corev1.Node{node("a", "8", ""), node("b", "8", ""), node("c", "2", "")}, benchv1.ReasonInsufficientResources, "3 nodes needed, 2 fit"},
		{"3 shards, one node cordoned", spread(benchv1.TopologySharded, 3, "4", ""),
			[]corev1.Node{node("a", "8", ""), node("b", "8", ""), node("c", "8", "", cordoned)}, benchv1.ReasonInsufficientResources,
			"3 nodes needed, 2 fit (each mongod requests cpu=4; the largest of the 2 Ready"},
		{"a standalone needs one node", spread(benchv1.TopologyStandalone, 0, "4", ""), []corev1.Node{node("a", "8", "")}, "", ""},
		{"2 shards over 2 zones", spread(benchv1.TopologySharded, 2, "4", zone), three, "", ""},
		{"3 shards over 2 zones", spread(benchv1.TopologySharded, 3, "4", zone), three, benchv1.ReasonInsufficientResources,
			"on a topology.kubernetes.io/zone domain of its own: 3 topology.kubernetes.io/zone domains needed, 2 fit"},
		{"nodes without a zone do not count", spread(benchv1.TopologySharded, 2, "4", zone),
			[]corev1.Node{node("a", "8", "z1"), node("b", "8", ""), node("c", "8", "")}, benchv1.ReasonInsufficientResources, "2 topology.kubernetes.io/zone domains needed, 1 fit"},
		{"mongos fits no node", bigRouter, three, benchv1.ReasonInsufficientResources,
			"the mongos (r-mongos) requests cpu=64, and no Ready, schedulable node matching the run's placement has that much allocatable"},
		{"no nodes", spread(benchv1.TopologySharded, 2, "4", ""), []corev1.Node{}, benchv1.ReasonInsufficientResources,
			"2 nodes needed, 0 fit (each mongod requests cpu=4); no Ready, schedulable node matches the run's placement"},
	} {
		reason, msg := controllers.PreflightCheck(tc.run, tc.nodes)
		if reason != tc.reason || !strings.Contains(msg, tc.msg) || (tc.reason == "") != (msg == "") {
			t.Errorf("%s: %s %q,\n want %s %q", tc.name, reason, msg, tc.reason, tc.msg)
		}
	}
	// SameNode, the default, still sums the pods on one node: the run that
	// spreads on these nodes does not fit on one.
	same := spread(benchv1.TopologySharded, 3, "6", "")
	same.Spec.Placement.Layout = ""
	if reason, msg := controllers.PreflightCheck(same, three); reason != benchv1.ReasonInsufficientResources || !strings.Contains(msg, "all of them run on one node") {
		t.Errorf("SameNode: %s %q", reason, msg)
	}
}

// TestSpreadDiskRoom: a Spread run's data-bearing mongods each need a
// domain with a node whose allocatable ephemeral storage holds their
// volumes (storage.size 10Gi plus the 1Gi oplog of a shard or member),
// and the config server (3Gi) some node; too few is a warning, naming how
// many were needed and how many had room. A node that does not say has
// room.
func TestSpreadDiskRoom(t *testing.T) {
	const zone = "topology.kubernetes.io/zone"
	node := func(name, disk, z string) corev1.Node {
		alloc := kube.Resources("8", "32Gi")
		if disk != "" {
			alloc[corev1.ResourceEphemeralStorage] = resource.MustParse(disk)
		}
		n := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{topology.HostnameLabel: "host-" + name}},
			Status: corev1.NodeStatus{Allocatable: alloc,
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
		if z != "" {
			n.Labels[zone] = z
		}
		return n
	}
	spread := func(mode benchv1.TopologyMode, n int32, key string, medium benchv1.StorageMedium) *benchv1.BenchmarkRun {
		run := newRun("r", mode, n, 1)
		if mode == benchv1.TopologyReplicaSet {
			run.Spec.Topology.Shards, run.Spec.Topology.Members = nil, &n
		}
		run.Spec.Placement.Layout = benchv1.LayoutSpread
		run.Spec.Placement.SpreadTopologyKey = key
		run.Spec.Topology.Storage.Medium = medium
		run.Spec.Topology.Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}}
		return run
	}
	for _, tc := range []struct {
		name  string
		run   *benchv1.BenchmarkRun
		nodes []corev1.Node
		want  []string // "" alone: no warning
	}{
		{"3 shards, 3 roomy nodes", spread(benchv1.TopologySharded, 3, "", ""),
			[]corev1.Node{node("a", "20Gi", ""), node("b", "20Gi", ""), node("c", "11Gi", "")}, []string{""}},
		{"3 shards, 2 roomy nodes", spread(benchv1.TopologySharded, 3, "", ""),
			[]corev1.Node{node("a", "20Gi", ""), node("b", "20Gi", ""), node("c", "10Gi", "")},
			[]string{"each of the topology's 3 data-bearing mongods on a node of its own", "may grow to 11Gi",
				"3 nodes with that much allocatable ephemeral storage needed, 2 have it (of 3 that fit the requests)"}},
		{"nodes that do not say have room", spread(benchv1.TopologySharded, 3, "", ""),
			[]corev1.Node{node("a", "", ""), node("b", "", ""), node("c", "", "")}, []string{""}},
		{"a 3-member set, 1 roomy node", spread(benchv1.TopologyReplicaSet, 3, "", benchv1.StorageDisk),
			[]corev1.Node{node("a", "20Gi", ""), node("b", "5Gi", ""), node("c", "5Gi", "")},
			[]string{"3 nodes with that much allocatable ephemeral storage needed, 1 have it"}},
		{"in Memory only the config server's volume is on the disk", spread(benchv1.TopologySharded, 3, "", benchv1.StorageMemory),
			[]corev1.Node{node("a", "4Gi", ""), node("b", "4Gi", ""), node("c", "4Gi", "")}, []string{""}},
		{"no node holds the config server's volume", spread(benchv1.TopologySharded, 2, "", benchv1.StorageMemory),
			[]corev1.Node{node("a", "2Gi", ""), node("b", "2Gi", "")},
			[]string{"the configsvr's (r-cfg) data volume may grow to 3Gi, and none of the 2 nodes that fit its requests"}},
		{"zones: two roomy nodes in one zone are one domain", spread(benchv1.TopologySharded, 2, zone, ""),
			[]corev1.Node{node("a", "20Gi", "z1"), node("b", "20Gi", "z1"), node("c", "5Gi", "z2")},
			[]string{"2 topology.kubernetes.io/zone domains with that much allocatable ephemeral storage needed, 1 have it (of 2 that fit the requests)"}},
		// Too few fitting domains fails the run (spreadCheck): not a disk warning.
		{"too few nodes at all", spread(benchv1.TopologySharded, 4, "", ""),
			[]corev1.Node{node("a", "1Gi", ""), node("b", "20Gi", "")}, []string{""}},
	} {
		got := controllers.SpreadDiskRoom(tc.run, tc.nodes)
		for _, w := range tc.want {
			if (w == "") != (got == "") || !strings.Contains(got, w) {
				t.Errorf("%s: %q,\n want %q", tc.name, got, w)
			}
		}
	}
}

// TestSpreadRunCountsTheDisk: a 2-shard Spread run whose shards' volumes
// may grow to 11Gi each, on a pool of three nodes that fit its requests of
// which one has that much allocatable ephemeral storage. The scheduler
// places its pods (here the test, as kubelet and scheduler); the run goes
// on, and its Warnings condition says how many nodes it needed with room
// and how many had it.
func TestSpreadRunCountsTheDisk(t *testing.T) {
	k := newCluster(t)
	withDisk := func(disk string) corev1.ResourceList {
		r := kube.Resources("32", "128Gi")
		r[corev1.ResourceEphemeralStorage] = resource.MustParse(disk)
		return r
	}
	for n, disk := range map[string]string{"sdisk-1": "100Gi", "sdisk-2": "8Gi", "sdisk-3": "8Gi"} {
		ensureNode(t, k.c, n, map[string]string{topology.HostnameLabel: "host-" + n, "pool": "spreaddisk"}, withDisk(disk))
	}
	startManager(t, &counters{}, testLimits)

	run := newRun("spready", benchv1.TopologySharded, 2, 1)
	run.Spec.Placement.Layout = benchv1.LayoutSpread
	run.Spec.Placement.NodeSelector = map[string]string{"pool": "spreaddisk"}
	run = k.create(run)
	shardNodes := []string{"sdisk-1", "sdisk-2"}
	for _, p := range topology.Processes(run) {
		node := "sdisk-3" // the config server and mongos
		if topology.DataBearing(p) {
			node, shardNodes = shardNodes[0], shardNodes[1:]
		}
		k.schedule(k.pod(p.Name), node)
		k.markRunning(p.Name, true, 0)
	}
	k.finishBootstrap(run)
	r := k.waitRun("spready", "its environment recorded", func(r *benchv1.BenchmarkRun) bool { return cond(r, benchv1.ConditionWarnings) != nil })
	if r.Status.Phase == benchv1.RunFailed {
		t.Fatalf("failed: %s", failedMessage(r))
	}
	if c := cond(r, benchv1.ConditionWarnings); c == nil || c.Status != metav1.ConditionTrue ||
		!strings.Contains(c.Message, "each one's data volumes on its node's disk may grow to 11Gi") ||
		!strings.Contains(c.Message, "2 nodes with that much allocatable ephemeral storage needed, 1 have it (of 3 that fit the requests)") {
		t.Errorf("warnings: %+v", c)
	}
}
