package controllers_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/testutil/kube"
	"github.com/mongobench/mongobench/internal/topology"
)

// TestSweepChildrenNeverShareANode runs a sweep of three 2-shard cells
// with parallelism 3 through the real run controller and the real
// kube-scheduler on a pool of two nodes: the sweep starts all three, the
// exclusive placement (the template's default) puts two on different
// nodes and keeps the third Pending until a node is free, and the sweep
// completes with every cell's results.
func TestSweepChildrenNeverShareANode(t *testing.T) {
	k := newCluster(t)
	for _, n := range []string{"sweep-pool-1", "sweep-pool-2"} {
		ensureNode(t, k.c, n, map[string]string{topology.HostnameLabel: "host-" + n, "pool": "sweep"}, kube.Resources("16", "64Gi"))
		taintNode(t, k.c, n, corev1.Taint{Key: "mongobench.test/pool", Value: "sweep", Effect: corev1.TaintEffectNoSchedule})
	}
	env.StartScheduler(t)
	limits := testLimits
	limits.Unschedulable = 2 * time.Second // waiting for a node must never trip it
	startManager(t, &counters{}, limits)
	stop := k.autopilotWith(autopilotOptions{realScheduler: true, holdPhases: true})
	defer stop()

	sw := newSweep("excl", benchv1.SweepAxis{Name: "threads", Threads: []int32{1, 2, 4}})
	sw.Spec.Template.Topology = benchv1.TopologySpec{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](2)}
	sw.Spec.Template.Placement.NodeSelector = map[string]string{"pool": "sweep"}
	sw.Spec.Template.Placement.Tolerations = []corev1.Toleration{{Key: "mongobench.test/pool", Operator: corev1.TolerationOpEqual,
		Value: "sweep", Effect: corev1.TaintEffectNoSchedule}}
	sw.Spec.Parallelism = 3
	k.createSweep(sw)
	names := []string{"excl-0-r1", "excl-1-r1", "excl-2-r1"}
	k.waitChildren("excl", names...)

	var loading, waiting []string
	k.eventually("two runs loading on the pool, one waiting", 90*time.Second, func() (bool, error) {
		loading, waiting = nil, nil
		var states []string
		for _, name := range names {
			r := k.run(name)
			c := cond(r, benchv1.ConditionTopologyReady)
			states = append(states, fmt.Sprintf("%s %s", name, r.Status.Phase))
			switch {
			case r.Status.Phase == benchv1.RunFailed:
				return false, fmt.Errorf("%s failed: %s", name, failedMessage(r))
			case r.Status.Phase == benchv1.RunLoading:
				loading = append(loading, name)
			case r.Status.Phase == benchv1.RunPending && c != nil && c.Reason == string(benchv1.ReasonWaitingForNode):
				waiting = append(waiting, name)
			}
		}
		if len(loading) == 2 && len(waiting) == 1 {
			return true, nil
		}
		return false, fmt.Errorf("%s", strings.Join(states, "; "))
	})
	placed := k.nodesOf(names...)
	for n := range placed[loading[0]] {
		if placed[loading[1]][n] {
			t.Fatalf("%s and %s share node %s", loading[0], loading[1], n)
		}
	}
	if st := k.sweep("excl"); st.Status.RunsActive != 3 || st.Status.Phase != benchv1.SweepRunning {
		t.Errorf("sweep: %d active, phase %s", st.Status.RunsActive, st.Status.Phase)
	}
	finish := func(name string) {
		run := k.run(name)
		for _, ph := range run.Spec.Phases {
			k.finishPhase(k.run(name), ph)
		}
		k.waitLifecycle(name, benchv1.RunSucceeded)
	}
	finish(loading[0])
	k.eventually(waiting[0]+" loading", 90*time.Second, func() (bool, error) {
		return k.run(waiting[0]).Status.Phase == benchv1.RunLoading, nil
	})
	placed = k.nodesOf(names...)
	for n := range placed[waiting[0]] {
		if placed[loading[1]][n] {
			t.Errorf("%s was placed on %s beside the still running %s", waiting[0], n, loading[1])
		}
	}
	finish(loading[1])
	finish(waiting[0])
	st := k.waitSweep("excl", "Succeeded", func(s *benchv1.BenchmarkSweep) bool { return s.Status.Phase == benchv1.SweepSucceeded })
	for _, c := range st.Status.Cells {
		if len(c.Results) != 3 || c.Results[1].MedianThroughput <= 0 || c.Runs[0].Fingerprint == "" {
			t.Errorf("cell %s: results %+v runs %+v", c.Name, c.Results, c.Runs)
		}
	}
}

// TestManySweepsAtOnce runs 3 sweeps × 20 cells at once through the real
// run controller (the test plays scheduler, kubelet and Job controller):
// every sweep succeeds, and the sweep controller's reconciles and writes
// per run stay bounded: no hot loop, no write without a change.
func TestManySweepsAtOnce(t *testing.T) {
	const sweeps, cells, parallelism = 3, 20, 4
	k := newCluster(t)
	count := &counters{}
	before := reconcilesOf(t, "benchmarksweep")
	startManager(t, count, testLimits)
	stop := k.autopilot()
	defer stop()
	start := time.Now()
	threads := make([]int32, cells)
	for i := range threads {
		threads[i] = int32(i + 1)
	}
	for i := 0; i < sweeps; i++ {
		sw := newSweep(fmt.Sprintf("many-%d", i), benchv1.SweepAxis{Name: "threads", Threads: threads})
		// The fake scheduler binds pods without looking at affinities.
		sw.Spec.Template.Placement.Exclusive = ptr.To(false)
		sw.Spec.Parallelism = parallelism
		k.createSweep(sw)
	}
	for i := 0; i < sweeps; i++ {
		name := fmt.Sprintf("many-%d", i)
		k.eventually("sweep "+name+" done", 3*time.Minute, func() (bool, error) {
			st := k.sweep(name)
			if st.Status.Phase == benchv1.SweepSucceeded {
				return true, nil
			}
			if sweepCond(st, benchv1.ConditionFailed) != nil && sweepCond(st, benchv1.ConditionFailed).Status == "True" {
				t.Fatalf("sweep %s failed: %s", name, sweepCond(st, benchv1.ConditionFailed).Message)
			}
			return false, fmt.Errorf("%d/%d cells done, %d active", st.Status.CellsDone, st.Status.CellsTotal, st.Status.RunsActive)
		})
		st := k.sweep(name)
		if len(st.Status.Cells) != cells || st.Status.Knees == nil || st.Status.Best == "" {
			t.Errorf("sweep %s: %d cells, knees %v, best %q", name, len(st.Status.Cells), st.Status.Knees, st.Status.Best)
		}
	}
	runs := float64(sweeps * cells)
	reconciles := float64(reconcilesOf(t, "benchmarksweep") - before)
	writes := float64(count.sweepWrites.Load())
	t.Logf("%d sweeps × %d cells succeeded in %s: %.1f sweep reconciles and %.1f sweep API writes (dry runs included) per run",
		sweeps, cells, time.Since(start).Round(time.Second), reconciles/runs, writes/runs)
	// Each run's ~10 status changes wake its sweep once each; a creation,
	// a dry run and a few status patches are its writes.
	if reconciles/runs > 20 {
		t.Errorf("%.1f sweep reconciles per run: the sweep controller hot-loops", reconciles/runs)
	}
	if writes/runs > 10 {
		t.Errorf("%.1f sweep writes per run: the sweep controller writes without changes", writes/runs)
	}
	k.noReconcileErrors()
}
