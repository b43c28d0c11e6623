package loader

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/testutil/wireserver"
)

// TestStartBarrier runs two loaders of one phase, as its Indexed Job's
// pods do, against the wire server and a real API server, the test playing
// the controller: each loader, once its connections are open, reports
// ready in its ConfigMap and waits; loader 1 starts only once loader 0 is
// ready, so loader 0 waits on it. Only when both are ready does the
// test write the start instant, and neither loader's measured window
// starts before it.
func TestStartBarrier(t *testing.T) {
	kenv := startAPIServer(t)
	srv := wireserver.Shared(t)
	db, _ := wireserver.TestDatabase(t, srv)
	admin, err := kubernetes.NewForConfig(kenv.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// A namespace of its own: the API server outlives the test (-count=N).
	nsObj, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "barrier-"}},
		metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ns := nsObj.Name
	newWriter := adminWriter(t, kenv)
	const job = "r2-run"
	args := []string{"run", "-P", "workloadc", "-p", "recordcount=100", "-p", "operationcount=200", "-p", "loader.count=2",
		"-p", "mongodb.url=" + wireserver.DatabaseURI(srv.Addr(), db), "-threads", "3",
		"--result-configmap", contract.ResultConfigMapPrefix(job), "--result-labels", "bench.mongobench.io/run=r2",
		"--" + contract.FlagStartBarrier, job}
	type outcome struct {
		code   int
		stderr string
	}
	out := make([]outcome, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i == 1 { // loader 1's pod starts late: once loader 0 is ready
				for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
					_, err := admin.CoreV1().ConfigMaps(ns).Get(ctx, contract.ReadyConfigMapName(job, 0), metav1.GetOptions{})
					if err == nil {
						break
					}
					time.Sleep(20 * time.Millisecond) // poll interval, bounded by the deadline
				}
			}
			env := map[string]string{"POD_NAMESPACE": ns, "POD_NAME": job + "-" + strconv.Itoa(i), "JOB_COMPLETION_INDEX": strconv.Itoa(i)}
			code, _, stderr, _ := runMain(t, env, newWriter, args...)
			out[i] = outcome{code, stderr}
		}()
	}

	// The controller: wait for every loader to be ready.
	ready := make([]time.Time, 2)
	deadline := time.Now().Add(30 * time.Second)
	for i := 0; i < 2; {
		cm, err := admin.CoreV1().ConfigMaps(ns).Get(ctx, contract.ReadyConfigMapName(job, i), metav1.GetOptions{})
		switch {
		case err == nil:
			if ready[i], err = time.Parse(time.RFC3339Nano, cm.Data[contract.ReadyAtKey]); err != nil {
				t.Fatal(err)
			}
			if cm.Data[contract.ReadyConnectionsKey] != "3" || cm.Labels[contract.LabelLoaderIndex] != strconv.Itoa(i) {
				t.Errorf("ready ConfigMap %d: %v, labels %v", i, cm.Data, cm.Labels)
			}
			i++
			continue
		case !apierrors.IsNotFound(err):
			t.Fatal(err)
		case time.Now().After(deadline):
			t.Fatalf("loader %d never became ready", i)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !ready[1].After(ready[0]) {
		t.Errorf("loader 1 was ready at %v, before loader 0 at %v, though it started once loader 0 was ready", ready[1], ready[0])
	}
	startAt := time.Now().Add(700 * time.Millisecond).UTC()
	if _, err := admin.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: contract.StartConfigMapName(job)},
		Data:       map[string]string{contract.StartAtKey: startAt.Format(time.RFC3339Nano)},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	wg.Wait()

	var starts []time.Time
	for i, o := range out {
		if o.code != 0 || !strings.Contains(o.stderr, "ready; waiting for the start") {
			t.Fatalf("loader %d: exit %d\n%s", i, o.code, o.stderr)
		}
		cm, err := admin.CoreV1().ConfigMaps(ns).Get(ctx, contract.ResultConfigMapName(job, i), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := results.Decode(cm.BinaryData[contract.ConfigMapKey])
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Loaders) != 1 || !r.Loaders[0].StartAt.Equal(startAt) || r.Loaders[0].Connections != 3 || r.Loaders[0].CPU == nil {
			t.Fatalf("loader %d stats %+v", i, r.Loaders)
		}
		if r.Start.Before(startAt) || !r.Loaders[0].Start.Equal(r.Start) {
			t.Errorf("loader %d started measuring at %v, before the barrier's %v", i, r.Start, startAt)
		}
		starts = append(starts, r.Start)
	}
	// Both slept until the same instant; a busy machine wakes them late.
	if d := starts[1].Sub(starts[0]).Abs(); d > 500*time.Millisecond {
		t.Errorf("loaders started %v apart", d)
	}
}

// TestStartBarrierNeedsTheResultFlags: the ready ConfigMap is written like
// the result, so the barrier without a result ConfigMap is a usage error.
func TestStartBarrierNeedsTheResultFlags(t *testing.T) {
	_, err := newStartBarrier("r1-run", nil, 0)
	var u usageError
	if !errors.As(err, &u) || !strings.Contains(err.Error(), "--result-configmap") {
		t.Fatalf("err %v", err)
	}
	if b, err := newStartBarrier("", nil, 0); b != nil || err != nil {
		t.Fatalf("no barrier: %v %v", b, err)
	}
}
