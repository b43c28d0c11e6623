package controllers_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
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
