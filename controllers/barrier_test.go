package controllers_test

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/testutil/stubmongo"
	"github.com/mongobench/mongobench/internal/testutil/syncbuf"
	"github.com/mongobench/mongobench/internal/topology"
)

// TestStartBarrier runs a phase of three loaders through the real
// controller, the test playing the kubelet with real loaders (loader.Main,
// the Job's own command line, against the stub server and this API
// server). Loader 2's pod starts three seconds after the others are ready,
// as a pod scheduled late would. Loaders 0 and 1 open their connections, report
// ready and wait; only once loader 2 is ready too does the controller set
// the start instant, and no loader starts measuring before it. The
// phase's window, and so its throughput, holds no stretch where only some
// loaders ran; its status says how far apart they started.
func TestStartBarrier(t *testing.T) { //nolint:gocyclo // one scenario, step by step
	k := newCluster(t)
	limits := testLimits
	limits.StartLead, limits.StartBarrier = time.Second, time.Minute
	startManager(t, &counters{}, limits)
	srv := stubmongo.Start(t)

	run := newRun("barrier", benchv1.TopologyStandalone, 0, 3)
	run.Spec.Phases = []benchv1.PhaseSpec{{Name: "load", Type: benchv1.PhaseLoad, Threads: 4,
		Warmup: &benchv1.WarmupSpec{Operations: ptr.To[int64](300)}}}
	run.Spec.Workload.RecordCount = ptr.To[int64](3000)
	run.Spec.Telemetry.Enabled = ptr.To(false)
	run.Spec.Cleanup = benchv1.CleanupRetain // the test reads the barrier's ConfigMaps afterwards
	run = k.create(run)
	k.bringUp("barrier-mongod")
	k.finishBootstrap(run)

	jobName := topology.PhaseJobName(run, "load")
	args := k.loaderArgs(jobName, "mongodb://"+srv.Addr()+"/ycsb?directConnection=true&w=1")
	codes := make([]int, 3)
	logs := make([]*syncbuf.Buffer, 3)
	started := make([]time.Time, 3)
	var wg sync.WaitGroup
	for i := range 3 {
		logs[i] = &syncbuf.Buffer{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i == 2 { // held back: until loaders 0 and 1 are ready, and 3 s more
				// (No Fatal off the test's goroutine: a loader never ready
				// fails the checks of readiness below.)
				ready := func(i int) bool {
					key := types.NamespacedName{Namespace: k.ns, Name: contract.ReadyConfigMapName(jobName, i)}
					return k.c.Get(k.ctx(), key, &corev1.ConfigMap{}) == nil
				}
				for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline) && (!ready(0) || !ready(1)); {
					time.Sleep(20 * time.Millisecond) // poll interval, bounded by the deadline
				}
				time.Sleep(3 * time.Second) // a late pod: the barrier must wait for it, however long
			}
			started[i] = time.Now()
			codes[i] = k.runLoader(jobName, i, args, logs[i])
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != 0 {
			t.Fatalf("loader %d: exit %d\n%s", i, c, logs[i].String())
		}
	}
	k.completeJob(jobName)
	run = k.waitLifecycle("barrier", benchv1.RunSucceeded)

	start := &corev1.ConfigMap{}
	if err := k.c.Get(k.ctx(), types.NamespacedName{Namespace: k.ns, Name: contract.StartConfigMapName(jobName)}, start); err != nil {
		t.Fatal(err)
	}
	startAt, err := time.Parse(time.RFC3339Nano, start.Data[contract.StartAtKey])
	if err != nil {
		t.Fatal(err)
	}
	var readyAt []time.Time
	for i := range 3 {
		cm := &corev1.ConfigMap{}
		if err := k.c.Get(k.ctx(), types.NamespacedName{Namespace: k.ns, Name: contract.ReadyConfigMapName(jobName, i)}, cm); err != nil {
			t.Fatal(err)
		}
		at, err := time.Parse(time.RFC3339Nano, cm.Data[contract.ReadyAtKey])
		if err != nil {
			t.Fatal(err)
		}
		readyAt = append(readyAt, at)
	}
	if readyAt[2].Before(started[2]) || readyAt[0].After(started[2]) || startAt.Before(readyAt[2]) {
		t.Fatalf("ready at %v (loader 2 started %v), start at %v: the start must follow the last loader's readiness", readyAt, started[2], startAt)
	}
	for i := range 3 {
		cm := &corev1.ConfigMap{}
		if err := k.c.Get(k.ctx(), types.NamespacedName{Namespace: k.ns, Name: contract.ResultConfigMapName(jobName, i)}, cm); err != nil {
			t.Fatal(err)
		}
		r, err := results.Decode(cm.BinaryData[contract.ConfigMapKey])
		if err != nil {
			t.Fatal(err)
		}
		// The warm-up begins at the barrier, the measured window after it.
		if r.Warmup == nil || r.Warmup.Start.Before(startAt) || r.Start.Before(startAt) || !r.Loaders[0].StartAt.Equal(startAt) {
			t.Errorf("loader %d: warm-up from %v, measured from %v; the barrier opened at %v", i, r.Warmup.Start, r.Start, startAt)
		}
	}

	res := run.Status.Results[0]
	// Without the barrier loaders 0 and 1 would have started 3 s or more
	// before loader 2; with it they wake at one instant, late by what a
	// busy machine costs, and each warms up 300 operations.
	if res.StartSkewMillis == nil || *res.StartSkewMillis > 1500 || len(res.LoaderStats) != 3 {
		t.Fatalf("start skew %v, loader stats %+v", res.StartSkewMillis, res.LoaderStats)
	}
	for _, l := range res.LoaderStats {
		if l.Connections != 4 || l.CPUPercent == nil || l.Pod != jobName+"-"+strconv.Itoa(int(l.Index))+"-abcde" {
			t.Errorf("loader %d: %+v", l.Index, l)
		}
	}
	if res.Warmup == nil || res.Warmup.Operations < 300 || res.Operations+res.Warmup.Operations != 3000 {
		t.Errorf("warm-up %+v and %d measured operations of 3000 records", res.Warmup, res.Operations)
	}
	if res.StartTime.Time.Before(startAt.Truncate(time.Second)) { // metav1.Time keeps seconds
		t.Errorf("the phase's window starts %v, before the barrier's %v", res.StartTime, startAt)
	}
}

// TestStartBarrierTimeout: a loader that never gets ready (its pod runs but
// cannot reach MongoDB, say) fails the phase after --start-barrier-timeout,
// naming it, instead of holding the others until the Job's deadline.
func TestStartBarrierTimeout(t *testing.T) {
	k := newCluster(t)
	limits := testLimits
	limits.StartLead, limits.StartBarrier = time.Second, 2*time.Second
	startManager(t, &counters{}, limits)
	run := newRun("stuck", benchv1.TopologyStandalone, 0, 2)
	run = k.create(run)
	k.bringUp("stuck-mongod")
	k.finishBootstrap(run)
	jobName := topology.PhaseJobName(run, "load")
	k.job(jobName)
	ready := &corev1.ConfigMap{Data: map[string]string{contract.ReadyAtKey: time.Now().UTC().Format(time.RFC3339Nano)}}
	ready.Name, ready.Namespace = contract.ReadyConfigMapName(jobName, 0), k.ns
	ready.Labels = map[string]string{benchv1.LabelManagedBy: benchv1.ManagedBy, benchv1.LabelRun: run.Name}
	ready.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(run, benchv1.GroupVersion.WithKind("BenchmarkRun"))}
	if err := k.c.Create(k.ctx(), ready); err != nil {
		t.Fatal(err)
	}
	run = k.waitLifecycle("stuck", benchv1.RunFailed)
	if msg := failedMessage(run); !strings.Contains(msg, "phase load: 1 of 2 loaders were ready to start, loader(s) 1 still not after 2s") {
		t.Fatalf("failed: %s", msg)
	}
	if k.exists(&corev1.ConfigMap{}, contract.StartConfigMapName(jobName)) {
		t.Error("the barrier opened with a loader missing")
	}
}
