package controllers_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/testutil/kube"
	"github.com/mongobench/mongobench/internal/topology"
)

// nodesOf maps each run to the nodes its live database pods are bound to.
func (k *cluster) nodesOf(runs ...string) map[string]map[string]bool {
	k.t.Helper()
	var pods corev1.PodList
	if err := k.c.List(k.ctx(), &pods, client.InNamespace(k.ns), client.MatchingLabels{benchv1.LabelDatabase: "true"}); err != nil {
		k.t.Fatal(err)
	}
	out := map[string]map[string]bool{}
	for _, r := range runs {
		out[r] = map[string]bool{}
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" && p.DeletionTimestamp == nil && out[p.Labels[benchv1.LabelRun]] != nil {
			out[p.Labels[benchv1.LabelRun]][p.Spec.NodeName] = true
		}
	}
	return out
}

// TestExclusiveRunsNeverShareANode runs the real kube-scheduler: three
// 2-shard runs are applied at the same moment onto a pool of two nodes.
// Two get a node each (never the same); the third stays Pending with
// WaitingForNode naming the busy runs, even past the unschedulable
// timeout, and starts on the node the first run frees.
//
// The pool's nodes are tainted and only these runs tolerate the taint:
// the real scheduler also places the pods other tests left behind, and
// those must not make the pool busy.
func TestExclusiveRunsNeverShareANode(t *testing.T) {
	k := newCluster(t)
	for _, n := range []string{"pool-1", "pool-2"} {
		ensureNode(t, k.c, n, map[string]string{topology.HostnameLabel: "host-" + n, "pool": "exclusive"}, kube.Resources("16", "64Gi"))
		taintNode(t, k.c, n, corev1.Taint{Key: "mongobench.test/pool", Value: "exclusive", Effect: corev1.TaintEffectNoSchedule})
	}
	env.StartScheduler(t)
	limits := testLimits
	limits.Unschedulable = 2 * time.Second // waiting must never trip it
	startManager(t, &counters{}, limits)
	stop := k.autopilotWith(autopilotOptions{realScheduler: true, holdPhases: true})
	defer stop()

	names := []string{"ex-1", "ex-2", "ex-3"}
	runs := map[string]*benchv1.BenchmarkRun{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, name := range names {
		run := newRun(name, benchv1.TopologySharded, 2, 1)
		run.Namespace = k.ns
		run.Spec.Placement.NodeSelector = map[string]string{"pool": "exclusive"}
		run.Spec.Placement.Tolerations = []corev1.Toleration{{Key: "mongobench.test/pool", Operator: corev1.TolerationOpEqual, Value: "exclusive",
			Effect: corev1.TaintEffectNoSchedule}}
		wg.Add(1)
		go func() { // the same moment
			defer wg.Done()
			if err := k.c.Create(context.Background(), run); err != nil {
				t.Error(err)
			}
			mu.Lock()
			runs[run.Name] = run
			mu.Unlock()
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	// Two runs load, one per node; the third waits.
	var loading, waiting []string
	k.eventually("two runs loading, one waiting", 90*time.Second, func() (bool, error) {
		loading, waiting = nil, nil
		var states []string
		for _, name := range names {
			r := k.run(name)
			if c := cond(r, benchv1.ConditionTopologyReady); c != nil {
				states = append(states, fmt.Sprintf("%s %s %s: %s", name, r.Status.Phase, c.Reason, c.Message))
			} else {
				states = append(states, fmt.Sprintf("%s %s", name, r.Status.Phase))
			}
			if r.Status.Phase == benchv1.RunFailed {
				return false, fmt.Errorf("%s failed: %s", name, failedMessage(r))
			}
			c := cond(r, benchv1.ConditionTopologyReady)
			switch {
			case r.Status.Phase == benchv1.RunLoading:
				loading = append(loading, name)
			case r.Status.Phase == benchv1.RunPending && c != nil && c.Reason == string(benchv1.ReasonWaitingForNode) &&
				strings.Contains(c.Message, "waiting for a node free of other benchmarks"):
				waiting = append(waiting, name)
			}
		}
		if len(loading) == 2 && len(waiting) == 1 {
			return true, nil
		}
		return false, fmt.Errorf("%s", strings.Join(states, "; "))
	})
	placed := k.nodesOf(names...)
	a, b, w := placed[loading[0]], placed[loading[1]], placed[waiting[0]]
	if len(a) != 1 || len(b) != 1 || len(w) != 0 {
		t.Fatalf("nodes: %s on %v, %s on %v, %s on %v; want one node each for the first two, none for the third", loading[0], a, loading[1], b, waiting[0], w)
	}
	for n := range a {
		if b[n] {
			t.Fatalf("%s and %s share node %s", loading[0], loading[1], n)
		}
	}
	msg := cond(k.run(waiting[0]), benchv1.ConditionTopologyReady).Message
	for _, busy := range loading {
		if !strings.Contains(msg, k.ns+"/"+busy) {
			t.Errorf("the waiting run's message does not name busy run %s: %s", busy, msg)
		}
	}
	// Past the unschedulable timeout it still waits.
	k.holdRun(waiting[0], 3*limits.Unschedulable, func(r *benchv1.BenchmarkRun) string {
		if r.Status.Phase != benchv1.RunPending {
			return "phase " + string(r.Status.Phase) + ": " + failedMessage(r)
		}
		return ""
	})

	first := runs[loading[0]]
	// The first run finishes; its pods go; the third run gets its node.
	for _, ph := range first.Spec.Phases {
		k.finishPhase(k.run(first.Name), ph)
	}
	k.waitLifecycle(first.Name, benchv1.RunSucceeded)
	k.eventually(waiting[0]+" placed", 90*time.Second, func() (bool, error) {
		r := k.run(waiting[0])
		if r.Status.Phase == benchv1.RunFailed {
			return false, fmt.Errorf("failed: %s", failedMessage(r))
		}
		return r.Status.Phase == benchv1.RunLoading, nil
	})
	placed = k.nodesOf(names...)
	for n := range placed[waiting[0]] {
		if placed[loading[1]][n] {
			t.Errorf("%s was placed on %s beside the still running %s", waiting[0], n, loading[1])
		}
	}
	if len(placed[waiting[0]]) != 1 {
		t.Errorf("%s's pods are on %v, want one node", waiting[0], placed[waiting[0]])
	}
}

// taintNode sets the node's taints to exactly taint.
func taintNode(t *testing.T, c client.Client, name string, taint corev1.Taint) {
	t.Helper()
	n := &corev1.Node{}
	if err := c.Get(context.Background(), client.ObjectKey{Name: name}, n); err != nil {
		t.Fatal(err)
	}
	n.Spec.Taints = []corev1.Taint{taint}
	if err := c.Update(context.Background(), n); err != nil {
		t.Fatalf("taint node %s: %v", name, err)
	}
}

// TestSpreadRunsWithTheScheduler runs layout Spread through the real
// kube-scheduler on a pool of three nodes: a run that needs four nodes
// fails at once, creating no pod; a 3-shard run puts each shard on a node
// of its own and records them (status.nodes, the environment); its loader
// keeps off the database nodes once a fourth node can take it; a second
// exclusive run waits, half placed, past the unschedulable timeout, and
// is placed once the first run frees its nodes.
//
// The pool's nodes are tainted and only these runs tolerate the taint, as
// in TestExclusiveRunsNeverShareANode.
func TestSpreadRunsWithTheScheduler(t *testing.T) { //nolint:gocyclo // one scenario, step by step
	k := newCluster(t)
	taint := corev1.Taint{Key: "mongobench.test/pool", Value: "spread", Effect: corev1.TaintEffectNoSchedule}
	toleration := corev1.Toleration{Key: taint.Key, Operator: corev1.TolerationOpEqual, Value: taint.Value, Effect: taint.Effect}
	addNode := func(n string) {
		ensureNode(t, k.c, n, map[string]string{topology.HostnameLabel: "host-" + n, "pool": "spread"}, kube.Resources("16", "64Gi"))
		taintNode(t, k.c, n, taint)
	}
	for _, n := range []string{"spread-1", "spread-2", "spread-3"} {
		addNode(n)
	}
	env.StartScheduler(t)
	limits := testLimits
	limits.Unschedulable = 2 * time.Second // waiting must never trip it
	startManager(t, &counters{}, limits)
	stop := k.autopilotWith(autopilotOptions{realScheduler: true, holdPhases: true})
	defer stop()
	spread := func(name string, shards int32) *benchv1.BenchmarkRun {
		run := newRun(name, benchv1.TopologySharded, shards, 1)
		run.Spec.Placement.Layout = benchv1.LayoutSpread
		run.Spec.Placement.NodeSelector = map[string]string{"pool": "spread"}
		run.Spec.Placement.Tolerations = []corev1.Toleration{toleration}
		return k.create(run)
	}
	podsOf := func(run string) []corev1.Pod {
		var pods corev1.PodList
		if err := k.c.List(k.ctx(), &pods, client.InNamespace(k.ns), client.MatchingLabels{benchv1.LabelRun: run, benchv1.LabelDatabase: "true"}); err != nil {
			t.Fatal(err)
		}
		return pods.Items
	}
	notFailed := func(name string) *benchv1.BenchmarkRun {
		r := k.run(name)
		if r.Status.Phase == benchv1.RunFailed {
			t.Fatalf("%s failed: %s", name, failedMessage(r))
		}
		return r
	}
	shardNodes := func(run string) map[string]string {
		out := map[string]string{}
		for _, p := range podsOf(run) {
			if p.Labels[benchv1.LabelRole] == string(benchv1.RoleShard) && p.DeletionTimestamp == nil {
				out[p.Name] = p.Spec.NodeName
			}
		}
		return out
	}

	// Four shards, three nodes: failed before any pod exists.
	spread("sp-4", 4)
	r := k.waitLifecycle("sp-4", benchv1.RunFailed)
	if c := cond(r, benchv1.ConditionFailed); c == nil || c.Reason != string(benchv1.ReasonInsufficientResources) ||
		!strings.Contains(c.Message, "4 nodes needed, 3 fit") {
		t.Fatalf("sp-4: %+v, want InsufficientResources naming 4 nodes needed and 3 that fit", c)
	}
	if pods := podsOf("sp-4"); len(pods) != 0 {
		t.Fatalf("sp-4 created %d pods", len(pods))
	}

	// Three shards on three nodes.
	spread("sp-3", 3)
	k.eventually("sp-3 loading", 90*time.Second, func() (bool, error) {
		r := notFailed("sp-3")
		c := cond(r, benchv1.ConditionTopologyReady)
		if r.Status.Phase != benchv1.RunLoading {
			return false, fmt.Errorf("phase %s, %+v", r.Status.Phase, c)
		}
		return true, nil
	})
	placed := shardNodes("sp-3")
	distinct := map[string]bool{}
	for _, n := range placed {
		distinct[n] = true
	}
	if len(placed) != 3 || len(distinct) != 3 {
		t.Fatalf("sp-3's shards are on %v, want three nodes", placed)
	}
	r = k.run("sp-3")
	var want []benchv1.RoleNode
	for _, p := range podsOf("sp-3") {
		rn := benchv1.RoleNode{Role: benchv1.ProcessRole(p.Labels[benchv1.LabelRole]), Node: p.Spec.NodeName}
		if !slices.Contains(want, rn) {
			want = append(want, rn)
		}
	}
	slices.SortFunc(want, func(a, b benchv1.RoleNode) int {
		return strings.Compare(string(a.Role)+"/"+a.Node, string(b.Role)+"/"+b.Node)
	})
	if r.Status.NodeName != "" || !slices.Equal(r.Status.Nodes, want) {
		t.Errorf("status.nodeName %q, status.nodes %+v; want no nodeName and %+v", r.Status.NodeName, r.Status.Nodes, want)
	}
	if e := r.Status.Environment; e == nil || e.Node != nil || e.Fingerprint == "" {
		t.Errorf("environment %+v, want nodes and a fingerprint", e)
	} else {
		recorded := map[string]bool{}
		for _, n := range e.Nodes {
			recorded[n.Name] = true
		}
		for _, rn := range r.Status.Nodes {
			if !recorded[rn.Node] {
				t.Errorf("environment.nodes %+v lacks node %s", e.Nodes, rn.Node)
			}
		}
	}

	// A fourth node: sp-3's loader goes there, not beside a shard. The
	// pod is the load Job's template (no Job controller runs here), kept
	// to the pool as a pool of four nodes would.
	addNode("spread-4")
	job := &batchv1.Job{}
	if err := k.c.Get(k.ctx(), client.ObjectKey{Namespace: k.ns, Name: topology.PhaseJobName(r, "load")}, job); err != nil {
		t.Fatal(err)
	}
	loader := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: job.Name + "-0", Namespace: k.ns, Labels: job.Spec.Template.Labels},
		Spec: *job.Spec.Template.Spec.DeepCopy()}
	loader.Spec.NodeSelector = map[string]string{"pool": "spread"}
	loader.Spec.Tolerations = append(loader.Spec.Tolerations, toleration)
	if err := k.c.Create(k.ctx(), loader); err != nil {
		t.Fatal(err)
	}
	k.eventually("the loader scheduled", 60*time.Second, func() (bool, error) {
		err := k.c.Get(k.ctx(), client.ObjectKeyFromObject(loader), loader)
		return err == nil && loader.Spec.NodeName != "", err
	})
	if loader.Spec.NodeName != "spread-4" {
		t.Errorf("the loader went to %s, want spread-4, the one node without a database pod (shards on %v)", loader.Spec.NodeName, placed)
	}
	if err := k.c.Delete(k.ctx(), loader, client.GracePeriodSeconds(0)); err != nil {
		t.Fatal(err)
	}
	k.eventually("the loader gone", 30*time.Second, func() (bool, error) {
		err := k.c.Get(k.ctx(), client.ObjectKeyFromObject(loader), &corev1.Pod{})
		return apierrors.IsNotFound(err), nil
	})

	// A second exclusive run: one shard finds spread-4, the other waits
	// for a node sp-3 holds.
	spread("sp-2", 2)
	k.eventually("sp-2 waiting", 60*time.Second, func() (bool, error) {
		r := notFailed("sp-2")
		c := cond(r, benchv1.ConditionTopologyReady)
		if r.Status.Phase != benchv1.RunPending || c == nil || c.Reason != string(benchv1.ReasonWaitingForNode) ||
			!strings.Contains(c.Message, "waiting for a node free of other benchmarks") {
			return false, fmt.Errorf("phase %s, %+v", r.Status.Phase, c)
		}
		if !strings.Contains(c.Message, k.ns+"/sp-3") {
			return false, fmt.Errorf("the message does not name sp-3: %s", c.Message)
		}
		return true, nil
	})
	k.holdRun("sp-2", 3*limits.Unschedulable, func(r *benchv1.BenchmarkRun) string {
		if r.Status.Phase != benchv1.RunPending {
			return "phase " + string(r.Status.Phase) + ": " + failedMessage(r)
		}
		return ""
	})
	for pod, n := range shardNodes("sp-2") {
		if n != "" && n != "spread-4" {
			t.Errorf("%s is on %s beside the running sp-3", pod, n)
		}
	}

	// sp-3 ends; sp-2 gets its nodes, one per shard.
	for _, ph := range r.Spec.Phases {
		k.finishPhase(k.run("sp-3"), ph)
	}
	k.waitLifecycle("sp-3", benchv1.RunSucceeded)
	k.eventually("sp-2 loading", 90*time.Second, func() (bool, error) {
		if r := notFailed("sp-2"); r.Status.Phase != benchv1.RunLoading {
			return false, fmt.Errorf("phase %s", r.Status.Phase)
		}
		return true, nil
	})
	placed = shardNodes("sp-2")
	if len(placed) != 2 || placed["sp-2-shard0"] == placed["sp-2-shard1"] {
		t.Errorf("sp-2's shards are on %v, want two nodes", placed)
	}
}
