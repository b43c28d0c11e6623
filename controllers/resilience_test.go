package controllers_test

import (
	"fmt"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/topology"
)

// TestManagerRestartBetweenEverySteps stops and restarts the manager
// between every pair of steps of a sharded run: it must resume each time
// without duplicating or re-creating anything, re-running a finished phase,
// or losing a result.
func TestManagerRestartBetweenEverySteps(t *testing.T) {
	k := newCluster(t)
	m := startManager(t, &counters{}, testLimits)
	run := k.create(newRun("rs", benchv1.TopologySharded, 2, 2))

	uids := map[string]types.UID{}
	check := func(step string) {
		t.Helper()
		objs := map[string]client.ObjectList{"pod": &corev1.PodList{}, "job": &batchv1.JobList{}, "configmap": &corev1.ConfigMapList{}}
		for kind, list := range objs {
			if err := k.c.List(k.ctx(), list, client.InNamespace(k.ns)); err != nil {
				t.Fatal(err)
			}
			var items []client.Object
			switch l := list.(type) {
			case *corev1.PodList:
				for i := range l.Items {
					items = append(items, &l.Items[i])
				}
			case *batchv1.JobList:
				for i := range l.Items {
					items = append(items, &l.Items[i])
				}
			case *corev1.ConfigMapList:
				for i := range l.Items {
					items = append(items, &l.Items[i])
				}
			}
			for _, o := range items {
				key := kind + "/" + o.GetName()
				if old, ok := uids[key]; ok && old != o.GetUID() {
					t.Errorf("after %s: %s was re-created", step, key)
				}
				uids[key] = o.GetUID()
			}
		}
	}
	step := func(name string, f func()) {
		t.Helper()
		f()
		check(name)
		m = m.restart()
		check(name + " (after restart)")
	}

	step("anchor created", func() { k.pod("rs-cfg") })
	step("anchor running", func() { k.bringUp("rs-cfg") })
	step("shards created", func() { k.pod("rs-shard1"); k.pod("rs-mongos") })
	step("shards ready", func() { k.bringUp("rs-shard0"); k.bringUp("rs-shard1") })
	step("bootstrap started", func() { k.job("rs-bootstrap") })
	step("bootstrap done", func() {
		k.finishBootstrap(k.run("rs"))
		k.waitRun("rs", "bootstrap recorded", func(r *benchv1.BenchmarkRun) bool {
			return r.Status.Topology != nil && r.Status.Topology.ServerVersion != ""
		})
	})
	step("mongos ready", func() { k.bringUp("rs-mongos"); k.waitLifecycle("rs", benchv1.RunLoading) })
	for i, ph := range run.Spec.Phases {
		step("phase "+ph.Name+" started", func() { k.job(topology.PhaseJobName(run, ph.Name)) })
		if i == 1 {
			// As if a manager had merged the phase and stored its
			// histograms, then stopped before its status was: the next
			// merge finds the ConfigMap and takes it (the UID check).
			step("phase "+ph.Name+"'s histograms stored", func() {
				if err := k.c.Create(k.ctx(), topology.HistogramsConfigMap(run, ph.Name, mergedPayload(t, run, ph))); err != nil {
					t.Fatal(err)
				}
			})
		}
		step("phase "+ph.Name+" finished", func() {
			k.finishPhase(run, ph)
			k.waitRun("rs", fmt.Sprintf("%d results", i+1), func(r *benchv1.BenchmarkRun) bool { return len(r.Status.Results) == i+1 })
		})
	}
	r := k.waitLifecycle("rs", benchv1.RunSucceeded)
	assertResults(t, r)
	m.restart()
	// A finished run stays finished across restarts, results intact.
	r2 := k.waitRun("rs", "still succeeded", func(r *benchv1.BenchmarkRun) bool { return r.Status.Phase == benchv1.RunSucceeded })
	if len(r2.Status.Results) != 3 || r2.Status.Results[2].P99Micros != r.Status.Results[2].P99Micros {
		t.Errorf("results changed after a restart: %+v", r2.Status.Results)
	}
	k.eventually("cleanup", 30*time.Second, func() (bool, error) {
		return k.gone(&corev1.ConfigMap{}, "rs-s5-result-1"), nil
	})
	check("cleanup")
	k.assertHistograms(r2)
}

// TestManyConcurrentRuns runs 50 runs at once: each must succeed with its
// own results, and the controller must not hot-loop (reconciles and API
// writes per run stay low).
func TestManyConcurrentRuns(t *testing.T) {
	const runs = 50
	k := newCluster(t)
	count := &counters{}
	reconcilesBefore := reconcileTotal(t)
	startManager(t, count, testLimits)
	stop := k.autopilot()
	defer stop()
	start := time.Now()
	var all []*benchv1.BenchmarkRun
	for i := 0; i < runs; i++ {
		var run *benchv1.BenchmarkRun
		if i%3 == 0 {
			run = newRun(fmt.Sprintf("scale-%02d", i), benchv1.TopologySharded, 2, 2)
		} else {
			run = newRun(fmt.Sprintf("scale-%02d", i), benchv1.TopologyStandalone, 0, int32(1+i%2))
		}
		all = append(all, k.create(run))
	}
	for _, run := range all {
		r := k.waitRun(run.Name, "succeeded", func(r *benchv1.BenchmarkRun) bool {
			if r.Status.Phase == benchv1.RunFailed {
				t.Fatalf("%s failed: %s", r.Name, failedMessage(r))
			}
			return r.Status.Phase == benchv1.RunSucceeded
		})
		assertResults(t, r)
	}
	// Let cleanups finish so their writes are counted too.
	k.eventually("cleanups", 60*time.Second, func() (bool, error) {
		var jobs batchv1.JobList
		err := k.c.List(k.ctx(), &jobs, client.InNamespace(k.ns))
		return err == nil && len(jobs.Items) == 0, err
	})
	elapsed := time.Since(start)
	reconciles := reconcileTotal(t) - reconcilesBefore
	writes := count.writes.Load()
	t.Logf("%d runs succeeded in %s: %.1f reconciles and %.1f API writes per run", runs, elapsed.Round(time.Second),
		float64(reconciles)/runs, float64(writes)/runs)
	// Each run creates ~12-16 objects, deletes them again and stores ~10
	// status changes; anything far above means hot-looping or writes
	// without a change.
	if w := float64(writes) / runs; w > 60 {
		t.Errorf("%.1f API writes per run: the controller writes without changes", w)
	}
	if rc := float64(reconciles) / runs; rc > 120 {
		t.Errorf("%.1f reconciles per run: the controller hot-loops", rc)
	}
	// Fifty runs make status patches collide; a conflict requeues quietly
	// (debug level) and no reconcile returns both a result and an error.
	t.Logf("%d status patch conflicts logged at debug level", len(logs.Lines("conflict")))
	if got := logs.Lines("Reconciler returned both"); len(got) > 0 {
		t.Errorf("controller-runtime warned %d times, e.g. %s", len(got), got[0])
	}
	if got := logs.Lines(`"level":"error"`, "the object has been modified"); len(got) > 0 {
		t.Errorf("%d conflicts logged as errors, e.g. %s", len(got), got[0])
	}
}
