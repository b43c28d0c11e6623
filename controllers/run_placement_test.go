package controllers_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/controllers"
	"github.com/mongobench/mongobench/internal/testutil/kube"
	"github.com/mongobench/mongobench/internal/topology"
)

// cpuEach gives every database process of a run the same CPU request.
func cpuEach(run *benchv1.BenchmarkRun, cpu string) {
	res := corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}
	run.Spec.Topology.Resources = res
	if run.Spec.Topology.Mode == benchv1.TopologySharded {
		run.Spec.Topology.MongosResources = res.DeepCopy()
		run.Spec.Topology.ConfigServerResources = res.DeepCopy()
	}
}

// TestPreflightCheck: the verdict a run and a sweep's cell share, from the
// Nodes alone.
func TestPreflightCheck(t *testing.T) {
	node := func(name, cpu string, edit func(*corev1.Node)) corev1.Node {
		n := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"pool": "eight"}},
			Status: corev1.NodeStatus{Allocatable: kube.Resources(cpu, "32Gi"),
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
		if edit != nil {
			edit(&n)
		}
		return n
	}
	notReady := func(n *corev1.Node) { n.Status.Conditions[0].Status = corev1.ConditionFalse }
	tainted := func(n *corev1.Node) {
		n.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule}}
	}
	sharded := func(cpu string) *benchv1.BenchmarkRun {
		run := newRun("r", benchv1.TopologySharded, 2, 1)
		run.Spec.Topology.Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}
		return run
	}
	named := sharded("1")
	named.Spec.Placement.NodeName = "node-z"
	selecting := sharded("1")
	selecting.Spec.Placement.NodeSelector = map[string]string{"pool": "sixteen"}
	for _, tc := range []struct {
		name   string
		run    *benchv1.BenchmarkRun
		nodes  []corev1.Node
		reason benchv1.Reason
		msg    string
	}{
		{"fits", sharded("4"), []corev1.Node{node("a", "8", nil)}, "", ""},
		{"fits the bigger node", sharded("20"), []corev1.Node{node("a", "8", nil), node("b", "64", nil)}, "", ""},
		{"20 CPUs per shard on 8-CPU nodes", sharded("20"), []corev1.Node{node("a", "8", nil), node("b", "8", nil)},
			benchv1.ReasonInsufficientResources, "the topology's 4 database pods request cpu=40 in total, and all of them run on one node; " +
				"no Ready, schedulable node matching the run's placement has that much allocatable (2 such nodes; the largest, a, has cpu=8)"},
		{"the big node is not Ready", sharded("20"), []corev1.Node{node("a", "8", nil), node("b", "64", notReady)},
			benchv1.ReasonInsufficientResources, "(1 such nodes; the largest, a, has cpu=8)"},
		{"the big node's taint is not tolerated", sharded("20"), []corev1.Node{node("a", "8", nil), node("b", "64", tainted)},
			benchv1.ReasonInsufficientResources, "(1 such nodes; the largest, a, has cpu=8)"},
		{"no node matches", selecting, []corev1.Node{node("a", "64", nil)},
			benchv1.ReasonInsufficientResources, "no Ready, schedulable node matches the run's placement"},
		{"no nodes", sharded("1"), []corev1.Node{}, benchv1.ReasonInsufficientResources, "no Ready, schedulable node matches"},
		{"no such node", named, []corev1.Node{node("a", "64", nil)}, benchv1.ReasonNodeNotFound, `placement.nodeName "node-z": no such node`},
	} {
		reason, msg := controllers.PreflightCheck(tc.run, tc.nodes)
		if reason != tc.reason || !strings.Contains(msg, tc.msg) || (tc.reason == "") != (msg == "") {
			t.Errorf("%s: %s %q, want %s %q", tc.name, reason, msg, tc.reason, tc.msg)
		}
	}
}

// TestPreflightFailsAtOnce: a 4-shard topology asking 3 CPUs per process
// (18 in all) where the only matching node has 4 fails at once, naming the
// sum and the largest node, and creates no pod.
func TestPreflightFailsAtOnce(t *testing.T) {
	k := newCluster(t)
	ensureNode(t, k.c, "node-small", map[string]string{topology.HostnameLabel: "host-small", "pool": "small"}, kube.Resources("4", "16Gi"))
	startManager(t, &counters{}, testLimits)
	run := newRun("toobig", benchv1.TopologySharded, 4, 1)
	cpuEach(run, "3")
	run.Spec.Placement.NodeSelector = map[string]string{"pool": "small"}
	start := time.Now()
	k.create(run)
	k.waitFailed("toobig", string(benchv1.ReasonInsufficientResources),
		"the topology's 6 database pods request cpu=18 in total, and all of them run on one node",
		"no Ready, schedulable node matching the run's placement has that much allocatable (1 such nodes; the largest, node-small, has cpu=4)")
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the pre-flight failure took %s", d)
	}
	var pods corev1.PodList
	if err := k.c.List(k.ctx(), &pods); err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.Labels[benchv1.LabelRun] == "toobig" && p.Namespace == k.ns {
			t.Errorf("pod %s created for a topology that fits no node", p.Name)
		}
	}

	// A selector that matches no Ready node fails at once too.
	ensureNode(t, k.c, "node-cordoned", map[string]string{topology.HostnameLabel: "host-cordoned", "pool": "cordoned"}, kube.Resources("64", "256Gi"))
	n := &corev1.Node{}
	if err := k.c.Get(k.ctx(), client.ObjectKey{Name: "node-cordoned"}, n); err != nil {
		t.Fatal(err)
	}
	n.Spec.Unschedulable = true
	if err := k.c.Update(k.ctx(), n); err != nil {
		t.Fatal(err)
	}
	run = newRun("nowhere", benchv1.TopologyStandalone, 0, 1)
	run.Spec.Placement.NodeSelector = map[string]string{"pool": "cordoned"}
	k.create(run)
	k.waitFailed("nowhere", string(benchv1.ReasonInsufficientResources), "no Ready, schedulable node matches the run's placement")
}

// TestPreflightRestrictsTheAnchor: with a small and a big node matching,
// the anchor pod may only go to the big one.
func TestPreflightRestrictsTheAnchor(t *testing.T) {
	k := newCluster(t)
	ensureNode(t, k.c, "node-mixed-small", map[string]string{topology.HostnameLabel: "host-mixed-small", "pool": "mixed"}, kube.Resources("4", "16Gi"))
	ensureNode(t, k.c, "node-mixed-big", map[string]string{topology.HostnameLabel: "host-mixed-big", "pool": "mixed"}, kube.Resources("64", "256Gi"))
	startManager(t, &counters{}, testLimits)
	run := newRun("fits", benchv1.TopologySharded, 4, 1)
	cpuEach(run, "3")
	run.Spec.Placement.NodeSelector = map[string]string{"pool": "mixed"}
	k.create(run)
	anchor := k.pod("fits-cfg")
	a := anchor.Spec.Affinity
	if a == nil || a.NodeAffinity == nil {
		t.Fatalf("anchor affinity %+v: want a node affinity to the big node", a)
	}
	req := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0]
	if req.Key != topology.HostnameLabel || req.Operator != corev1.NodeSelectorOpIn || len(req.Values) != 1 || req.Values[0] != "host-mixed-big" {
		t.Errorf("anchor node affinity %+v", req)
	}
	if a.PodAntiAffinity == nil {
		t.Error("an exclusive run's anchor has no pod anti-affinity")
	}
}

// TestExclusiveRunWaitsPending: every node is busy with another run; the
// new run's anchor is unschedulable (anti-affinity) for longer than the
// unschedulable timeout. The run stays Pending with WaitingForNode, naming
// the busy run, and starts once a node is free.
func TestExclusiveRunWaitsPending(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	hog := k.create(newRun("hog", benchv1.TopologyStandalone, 0, 1))
	k.upToPhase(hog, 1) // hog's mongod runs on node-a
	loader := k.jobPod(k.job("hog-s2"), 0)
	k.schedule(loader, "node-b") // and its loader on node-b
	k.markRunning(loader.Name, true, 0)

	k.create(newRun("waiter", benchv1.TopologyStandalone, 0, 1))
	k.pod("waiter-mongod")
	k.setPodStatus("waiter-mongod", func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodPending
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
			Message:            "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.",
			LastTransitionTime: metav1.NewTime(time.Now().Add(-3 * testLimits.Unschedulable))}}
	})
	want := []string{"waiting for a node free of other benchmarks (placement.exclusive):", "node-a (used by ", "node-b (used by " + k.ns + "/hog)"}
	var r *benchv1.BenchmarkRun
	k.eventually("waiter waiting for a node", 30*time.Second, func() (bool, error) {
		r = k.run("waiter")
		c := cond(r, benchv1.ConditionTopologyReady)
		if c == nil || c.Reason != string(benchv1.ReasonWaitingForNode) {
			return false, fmt.Errorf("TopologyReady %+v", c)
		}
		for _, w := range want {
			if !strings.Contains(c.Message, w) {
				return false, fmt.Errorf("message lacks %q: %s", w, c.Message)
			}
		}
		// hog is named on both nodes (runs of other tests may be, too).
		if n := strings.Count(c.Message, k.ns+"/hog"); n != 2 {
			return false, fmt.Errorf("message names %s/hog %d times, want 2: %s", k.ns, n, c.Message)
		}
		return true, nil
	})
	if r.Status.Phase != benchv1.RunPending {
		t.Errorf("phase %s while waiting for a node, want Pending", r.Status.Phase)
	}
	// Waiting is not failing: past the unschedulable timeout, it still waits.
	k.holdRun("waiter", 2*time.Second, func(r *benchv1.BenchmarkRun) string {
		if r.Status.Phase != benchv1.RunPending {
			return "phase " + string(r.Status.Phase) + ": " + failedMessage(r)
		}
		return ""
	})

	// hog finishes; its node is free; the scheduler places waiter there.
	k.setPodStatus(loader.Name, func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded })
	k.finishPhase(hog, hog.Spec.Phases[1])
	k.finishPhase(hog, hog.Spec.Phases[2])
	k.waitLifecycle("hog", benchv1.RunSucceeded)
	k.dbPodDeleted("hog-mongod")
	k.bringUp("waiter-mongod")
	k.waitLifecycle("waiter", benchv1.RunProvisioning)
}

// holdRun checks for a while that a run keeps satisfying a condition (bad
// returns what is wrong, or "").
func (k *cluster) holdRun(name string, window time.Duration, bad func(*benchv1.BenchmarkRun) string) {
	k.t.Helper()
	deadline := time.Now().Add(window)
	for time.Now().Before(deadline) {
		if msg := bad(k.run(name)); msg != "" {
			k.t.Fatalf("%s: %s", name, msg)
		}
		time.Sleep(50 * time.Millisecond) // observation interval
	}
}

// TestPreflightCountsTheDisk: a 2-shard run's volumes on the node's disk
// may grow to 25 GiB (2 × (10 GiB + a 1 GiB oplog) + the config server's
// 3 GiB). Of two nodes that fit its requests, the anchor goes to the one
// whose allocatable ephemeral storage holds that; on a pool where none
// does, the run goes on and its Warnings condition says why.
func TestPreflightCountsTheDisk(t *testing.T) {
	k := newCluster(t)
	withDisk := func(disk string) corev1.ResourceList {
		r := kube.Resources("32", "128Gi")
		r[corev1.ResourceEphemeralStorage] = resource.MustParse(disk)
		return r
	}
	ensureNode(t, k.c, "node-disk-small", map[string]string{topology.HostnameLabel: "host-disk-small", "pool": "disk"}, withDisk("20Gi"))
	ensureNode(t, k.c, "node-disk-big", map[string]string{topology.HostnameLabel: "host-disk-big", "pool": "disk"}, withDisk("100Gi"))
	ensureNode(t, k.c, "node-tiny-disk", map[string]string{topology.HostnameLabel: "host-tiny-disk", "pool": "tiny"}, withDisk("8Gi"))
	startManager(t, &counters{}, testLimits)
	if got := topology.NodeDiskVolumes(newRun("x", benchv1.TopologySharded, 2, 1)); got.Cmp(resource.MustParse("25Gi")) != 0 {
		t.Fatalf("disk volumes of 2 shards: %s", got.String())
	}

	run := newRun("disky", benchv1.TopologySharded, 2, 1)
	run.Spec.Placement.NodeSelector = map[string]string{"pool": "disk"}
	k.create(run)
	a := k.pod("disky-cfg").Spec.Affinity
	if a == nil || a.NodeAffinity == nil {
		t.Fatalf("anchor affinity %+v: want the node with the disk", a)
	}
	if req := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0]; len(req.Values) != 1 ||
		req.Values[0] != "host-disk-big" {
		t.Errorf("anchor node affinity %+v", req)
	}

	small := newRun("small-disk", benchv1.TopologyStandalone, 0, 1)
	small.Spec.Placement.NodeSelector = map[string]string{"pool": "tiny"}
	k.create(small)
	k.schedule(k.pod("small-disk-mongod"), "node-tiny-disk")
	k.markRunning("small-disk-mongod", true, 0)
	k.finishBootstrap(small)
	r := k.waitRun("small-disk", "its environment recorded", func(r *benchv1.BenchmarkRun) bool { return cond(r, benchv1.ConditionWarnings) != nil })
	if c := cond(r, benchv1.ConditionWarnings); c == nil || c.Status != metav1.ConditionTrue ||
		!strings.Contains(c.Message, "the data volumes on node node-tiny-disk's disk may grow to 10Gi") ||
		!strings.Contains(c.Message, "it has 8Gi of allocatable ephemeral storage") {
		t.Errorf("warnings: %+v", c)
	}
}
