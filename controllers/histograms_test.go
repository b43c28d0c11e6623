package controllers_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/topology"
)

// assertHistograms checks that every phase's merged result is in the
// ConfigMap named by status.results[].histograms, owned by the run, not
// being deleted (call it after the cleanup), and that its histograms give
// exactly the numbers in status.
func (k *cluster) assertHistograms(run *benchv1.BenchmarkRun) { //nolint:gocyclo // one check per status field
	k.t.Helper()
	t := k.t
	for _, res := range run.Status.Results {
		if want := topology.HistogramsConfigMapName(run, res.Name); res.Histograms != want {
			t.Errorf("%s: status.histograms %q, want %q", res.Name, res.Histograms, want)
			continue
		}
		cm := &corev1.ConfigMap{}
		if err := k.c.Get(k.ctx(), types.NamespacedName{Namespace: k.ns, Name: res.Histograms}, cm); err != nil {
			t.Errorf("%s: histograms ConfigMap: %v", res.Name, err)
			continue
		}
		if ref := metav1.GetControllerOf(cm); cm.DeletionTimestamp != nil || ref == nil || ref.UID != run.UID || ref.Kind != "BenchmarkRun" {
			t.Errorf("%s: histograms ConfigMap deleted at %v, owner %+v", res.Name, cm.DeletionTimestamp, cm.OwnerReferences)
		}
		if cm.Labels[benchv1.LabelComponent] != benchv1.ComponentHistograms || len(cm.BinaryData) != 1 || len(cm.Data) != 0 {
			t.Errorf("%s: histograms ConfigMap labels %v, binary keys %d, data keys %d", res.Name, cm.Labels, len(cm.BinaryData), len(cm.Data))
		}
		m, err := results.DecodeMerged(cm.BinaryData[contract.ConfigMapKey])
		if err != nil {
			t.Errorf("%s: %v", res.Name, err)
			continue
		}
		if m.Operations != res.Operations || m.RuntimeMillis != res.RuntimeMillis || int32(m.Loader.Count) != res.Loaders ||
			m.CombinedLatency().Percentile(99) != res.P99Micros || len(m.Ops) != len(res.OperationStats) {
			t.Errorf("%s: the kept merge has %d operations in %d ms from %d loaders, p99 %d, %d operation types; status %d, %d, %d, %d, %d",
				res.Name, m.Operations, m.RuntimeMillis, m.Loader.Count, m.CombinedLatency().Percentile(99), len(m.Ops),
				res.Operations, res.RuntimeMillis, res.Loaders, res.P99Micros, len(res.OperationStats))
		}
		for _, o := range res.OperationStats {
			op := m.Op(o.Name)
			if op == nil {
				t.Errorf("%s: %s is not in the kept merge", res.Name, o.Name)
				continue
			}
			st := op.Latency.Stats()
			got := [...]int64{op.Total(), op.Errors(), op.Failed.Count(), st.Min, st.Max, st.P50, st.P95, st.P99, st.P999}
			want := [...]int64{o.Count, o.Errors, o.Errors, o.MinMicros, o.MaxMicros, o.P50Micros, o.P95Micros, o.P99Micros, o.P999Micros}
			if got != want || round2(st.Mean) != o.AverageMicros {
				t.Errorf("%s %s: the kept histograms give %v avg %v, status %v avg %v", res.Name, o.Name, got, round2(st.Mean), want, o.AverageMicros)
			}
		}
		// The test's series fit: the kept series is status's, interval for
		// interval.
		if ts := res.TimeSeries; len(m.Series.Points) != len(ts.Throughput) || len(ts.P99Micros) == 0 {
			t.Errorf("%s: %d points kept, %d in status", res.Name, len(m.Series.Points), len(ts.Throughput))
		} else {
			for _, s := range ts.P99Micros {
				for i, p := range m.Series.Points {
					if po := p.Op(s.Name); po == nil || po.Latency.Percentile(99) != s.Values[i] {
						t.Errorf("%s %s: point %d of the kept series differs from status's p99 %d", res.Name, s.Name, i, s.Values[i])
					}
				}
			}
		}
	}
}

// mergedPayload is what the controller stores for a phase: the exact merge
// of its loaders' results, encoded.
func mergedPayload(t *testing.T, run *benchv1.BenchmarkRun, ph benchv1.PhaseSpec) []byte {
	t.Helper()
	n := int(run.Spec.Loaders)
	var rs []*results.Result
	for i := 0; i < n; i++ {
		r, err := results.Decode(loaderResult(t, run, ph, i, n))
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	m, err := results.Merge(rs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := results.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestOversizedHistogramsAreNotKept: two loaders report 60 operation types
// each (names of their own, wide latency spreads), each result within
// results.MaxEncodedBytes but their merge's histograms beyond it, so no
// series coarsening can make the merge fit. The phase still succeeds with
// its results in status; only its histograms are not kept, and a Warning
// says so. The next phases keep theirs.
func TestOversizedHistogramsAreNotKept(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	run := k.create(newRun("bighist", benchv1.TopologyStandalone, 0, 2))
	k.upToPhase(run, 0)
	load := run.Spec.Phases[0]
	var rs []*results.Result
	var encoded [2][]byte
	for i := range encoded {
		r := wideLoadResult(i, 2, 60)
		b, err := results.Encode(r)
		if err != nil {
			t.Fatalf("loader %d: %v", i, err)
		}
		rs, encoded[i] = append(rs, r), b
		k.writeResultCM(k.run("bighist"), topology.PhaseJobName(run, load.Name), i, map[string][]byte{contract.ConfigMapKey: b}, nil)
	}
	merged, err := results.Merge(rs)
	if err != nil {
		t.Fatal(err)
	}
	full, err := results.GzipJSON(merged, "result")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("loaders' results %d and %d bytes, their merge %d", len(encoded[0]), len(encoded[1]), len(full))
	if len(full) <= results.MaxEncodedBytes {
		t.Fatalf("the merge is %d bytes: the test needs more than %d", len(full), results.MaxEncodedBytes)
	}
	k.completeJob(topology.PhaseJobName(run, load.Name))
	for _, ph := range run.Spec.Phases[1:] {
		k.finishPhase(run, ph)
	}
	r := k.waitLifecycle("bighist", benchv1.RunSucceeded)
	if res := r.Status.Results[0]; res.Histograms != "" || len(res.OperationStats) != 120 || res.Operations != merged.Operations {
		t.Errorf("load: histograms %q, %d operation types, %d operations; want none, 120, %d",
			res.Histograms, len(res.OperationStats), res.Operations, merged.Operations)
	}
	if k.exists(&corev1.ConfigMap{}, topology.HistogramsConfigMapName(run, load.Name)) {
		t.Error("load: a histograms ConfigMap for histograms that were not kept")
	}
	e := k.waitEvent("bighist", string(benchv1.EventHistogramsNotKept))
	if e.Type != corev1.EventTypeWarning || !strings.Contains(e.Message, "phase load: the merged histograms are not kept") ||
		!strings.Contains(e.Message, fmt.Sprintf("more than the %d allowed", results.MaxEncodedBytes)) || len(e.Message) > 1024 {
		t.Errorf("event %s: %s", e.Type, e.Message)
	}
	r.Status.Results = r.Status.Results[1:]
	k.assertHistograms(r)
}

// wideLoadResult is loader i of n's Load result with ops operation types
// of its own, each with a wide latency spread, and no series.
func wideLoadResult(i, n, ops int) *results.Result {
	rng := rand.New(rand.NewPCG(11, uint64(i)))
	start := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	r := &results.Result{Version: results.FormatVersion, Kind: results.KindLoad, Loader: results.Identity{Index: i, Count: n, Threads: 8},
		Start: start, End: start.Add(5 * time.Second), RuntimeMillis: 5000, StopReason: results.StopCompleted}
	for j := 0; j < ops; j++ {
		h := results.NewHistogram()
		for s := 0; s < 20_000; s++ {
			h.Record(int64(math.Exp(math.Log(100) + rng.Float64()*math.Log(1e5)))) // 100 µs to 10 s, log-uniform
		}
		r.Ops = append(r.Ops, results.OpResult{Name: fmt.Sprintf("OP-%d-%02d", i, j), Statuses: map[string]int64{"OK": 20_000}, Latency: h})
		r.Operations += 20_000
	}
	return r
}
