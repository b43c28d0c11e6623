package controllers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/controllers"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/telemetry"
	"github.com/mongobench/mongobench/internal/topology"
)

// round2 is the rounding of the status' floats.
func round2(v float64) float64 { return math.Round(v*100) / 100 }

// wantServer is what status.results[].server must hold for a report:
// telemetry.Summarize of each process, rounded to 2 decimals.
func wantServer(rep *telemetry.Payload) []benchv1.ServerSummary {
	f := func(v *float64) *float64 {
		if v == nil {
			return nil
		}
		return ptr.To(round2(*v))
	}
	var out []benchv1.ServerSummary
	for i := range rep.Processes {
		p := &rep.Processes[i]
		s := telemetry.Summarize(p.Role, p.Pod, &p.Series)
		o := s.OpsPerSecond
		out = append(out, benchv1.ServerSummary{
			Role: benchv1.ProcessRole(s.Role), Pod: s.Pod, Version: s.Version, Samples: int32(s.Samples), Restarts: int32(s.Restarts),
			SampleErrors: int32(p.Errors), PrimaryChanges: int32(s.PrimaryChanges), PeakConnections: s.PeakConnections,
			MeanConnections: f(s.MeanConnections), MinConnectionsAvailable: s.MinConnectionsAvailable,
			CacheMaxBytes: s.CacheMaxBytes, CacheMaxBytesChanged: s.CacheMaxBytesChanged,
			OpsPerSecond: &benchv1.OpCounterRates{Insert: f(o.Insert), Query: f(o.Query), Update: f(o.Update), Delete: f(o.Delete),
				Getmore: f(o.Getmore), Command: f(o.Command)},
			MaxCacheUsedPercent: f(s.MaxCacheUsedPercent), MaxCacheDirtyPercent: f(s.MaxCacheDirtyPercent),
			MeanNetInMBps: f(s.MeanNetInMBps), MeanNetOutMBps: f(s.MeanNetOutMBps), AppEvictions: s.EvictionsByAppThreads,
			AppEvictionsFrom:        string(s.EvictionsByAppThreadsFrom),
			MinReadTicketsAvailable: s.MinReadTicketsAvailable, MinWriteTicketsAvailable: s.MinWriteTicketsAvailable, MaxQueue: s.MaxQueue,
		})
	}
	return out
}

// checkServer compares server summaries with wantServer's and with the
// absolute numbers telemetryPayload was built with.
func checkServer(t *testing.T, what string, got []benchv1.ServerSummary, rep *telemetry.Payload, run *benchv1.BenchmarkRun) {
	t.Helper()
	if want := wantServer(rep); !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("%s: server\n got %s\nwant %s", what, g, w)
	}
	procs := topology.Processes(run)
	if len(got) != len(procs) {
		t.Fatalf("%s: %d server entries for %d processes", what, len(got), len(procs))
	}
	for j, p := range procs {
		s := got[j]
		if s.Role != p.Role || s.Pod != p.Name || s.Version != "8.0.4" || s.Samples != telemetrySamples {
			t.Errorf("%s: entry %d is %s %s %s, %d samples; want %s %s", what, j, s.Role, s.Pod, s.Version, s.Samples, p.Role, p.Name)
		}
		// The config server's cache was resized, shard0's primary saw a new
		// election (telemetryPayload).
		wantCache, wantChanges := int64(1)<<30, int32(0)
		if j == 0 {
			wantCache = 2 << 30
		}
		if j == 1 {
			wantChanges = 1
		}
		abs := []struct {
			name string
			got  any
			want any
		}{
			{"insert/s", *s.OpsPerSecond.Insert, float64(1000 * (j + 1))},
			{"query/s", *s.OpsPerSecond.Query, 200.0},
			{"update/s", *s.OpsPerSecond.Update, 0.0},
			{"command/s", *s.OpsPerSecond.Command, 10.0},
			{"peak connections", *s.PeakConnections, int64(15 + j)},
			{"mean connections", *s.MeanConnections, 12.5 + float64(j)},
			{"max cache used %", *s.MaxCacheUsedPercent, 45.0},
			{"max cache dirty %", *s.MaxCacheDirtyPercent, 10.0},
			{"net in MB/s", *s.MeanNetInMBps, 2.0},
			{"net out MB/s", *s.MeanNetOutMBps, 3.0},
			{"app evictions", *s.AppEvictions, int64(25)},
			{"app evictions from", s.AppEvictionsFrom, []string{benchv1.AppEvictionsPagesEvicted, benchv1.AppEvictionsAttemptsMinusFailures}[j%2]},
			{"min read tickets", *s.MinReadTicketsAvailable, int64(123)},
			{"min write tickets", *s.MinWriteTicketsAvailable, int64(118)},
			{"max queue", *s.MaxQueue, int64(5)},
			{"min connections available", *s.MinConnectionsAvailable, int64(50)},
			{"cache max bytes", *s.CacheMaxBytes, wantCache},
			{"cache max bytes changed", s.CacheMaxBytesChanged, j == 0},
			{"primary changes", s.PrimaryChanges, wantChanges},
		}
		for _, a := range abs {
			if a.got != a.want {
				t.Errorf("%s: %s %s = %v, want %v", what, p.Name, a.name, a.got, a.want)
			}
		}
	}
}

// TestTelemetrySummaries: a report becomes the status' summaries; an
// unusable one is refused with a reason, so that it can never reach the
// API server.
func TestTelemetrySummaries(t *testing.T) {
	run := newRun("t", benchv1.TopologySharded, 2, 1)
	rep := telemetryPayload(run)
	server, coll, err := controllers.TelemetrySummaries(encodeTelemetry(t, rep), 4)
	if err != nil {
		t.Fatal(err)
	}
	checkServer(t, "summaries", server, rep, run)
	if coll == nil || *coll.Count != 5000 || *coll.Size != 5000*1100 || coll.IndexSizes["_id_"] != 128<<10 || len(coll.Shards) != 2 ||
		coll.Shards[1].Shard != "shard1" || *coll.Shards[1].Count != 2500 || *coll.Shards[1].TotalIndexSize != 96<<10 {
		t.Errorf("collection %+v", coll)
	}

	// No collection statistics: no collection summary, and no error.
	noColl := telemetryPayload(run)
	noColl.Collection = &telemetry.CollectionPayload{Errors: 3, LastError: "timeout"}
	if _, coll, err := controllers.TelemetrySummaries(encodeTelemetry(t, noColl), 4); err != nil || coll != nil {
		t.Errorf("without final statistics: collection %+v, error %v", coll, err)
	}

	mutate := func(f func(*telemetry.Payload)) []byte {
		r := telemetryPayload(run)
		f(r)
		return encodeTelemetry(t, r)
	}
	huge := gz(t, `{"processes":[],"start":"`+strings.Repeat(" ", controllers.MaxTelemetryDecodedBytes)+`"}`)
	full := encodeTelemetry(t, rep)
	for _, tc := range []struct {
		name, payload, want string
	}{
		{"not gzip", `{"processes":[]}`, "not gzip"},
		{"truncated", string(full[:len(full)/2]), "truncated"},
		{"not JSON", string(gz(t, "serverStatus")), "parse"},
		{"unknown field", string(gz(t, `{"processes":[],"extra":1}`)), "unknown field"},
		{"too big", string(huge), "more than 16777216 bytes"},
		{"invalid series", string(mutate(func(r *telemetry.Payload) { r.Processes[0].Series.IntervalMillis = 0 })), "interval"},
		{"negative delta", string(mutate(func(r *telemetry.Payload) { r.Processes[1].Series.Points[1].Counters[0].Count = -5 })), "negative delta"},
		{"duplicate pod", string(mutate(func(r *telemetry.Payload) { r.Processes[1].Pod = r.Processes[0].Pod })), "reported twice"},
		{"empty pod", string(mutate(func(r *telemetry.Payload) { r.Processes[1].Pod = "" })), "empty"},
		{"unknown role", string(mutate(func(r *telemetry.Payload) { r.Processes[0].Role = "arbiter" })), "unknown role"},
		{"unknown eviction statistics", string(mutate(func(r *telemetry.Payload) { r.Processes[0].Series.EvictedByAppFrom = "guessed" })),
			"unknown source of the app evictions"},
		{"too many processes", string(mutate(func(r *telemetry.Payload) {
			r.Processes = append(r.Processes, r.Processes[0])
			r.Processes[4].Pod = "t-extra"
		})), "5 processes reported"},
		{"duplicate shard", string(mutate(func(r *telemetry.Payload) { r.Collection.Final.Shards[1].Shard = "shard0" })), "reported twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, c, err := controllers.TelemetrySummaries([]byte(tc.payload), 4)
			if err == nil || !strings.Contains(err.Error(), tc.want) || s != nil || c != nil {
				t.Errorf("got %v, %v, error %v; want an error with %q", s, c, err, tc.want)
			}
		})
	}
}

// TestPhaseTelemetry: loader 0 reports the servers' telemetry beside its
// result. A phase with a good report gets one server summary per process,
// the collection's statistics and a ConfigMap <run>-telemetry-<phase>
// owned by the run that survives the cleanup; a corrupt report is a
// Warning and the run still succeeds; a phase without telemetry has none.
func TestPhaseTelemetry(t *testing.T) { //nolint:gocyclo // one scenario, step by step
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	stop := k.autopilotWith(autopilotOptions{holdPhases: true})
	defer stop()
	run := k.create(newRun("tel", benchv1.TopologySharded, 2, 2))
	rep := telemetryPayload(run)
	payload := encodeTelemetry(t, rep)
	payloads := [][]byte{payload, gz(t, `{"processes": [{"role": "shard", "pod": "tel-shard0", "series": {"points": "garbage"`), nil}
	for i, ph := range run.Spec.Phases {
		k.waitRun("tel", "phase "+ph.Name, func(r *benchv1.BenchmarkRun) bool { return r.Status.CurrentPhase == ph.Name })
		k.finishPhaseWith(run, ph, payloads[i])
	}
	r := k.waitLifecycle("tel", benchv1.RunSucceeded)
	assertResults(t, r)

	// Load: the summaries, the collection, the ConfigMap.
	load := r.Status.Results[0]
	checkServer(t, "load", load.Server, rep, run)
	if c := load.Collection; c == nil || *c.Count != 5000 || *c.StorageSize != 2<<20 || len(c.Shards) != 2 || c.IndexSizes["_id_hashed"] != 64<<10 {
		t.Errorf("load: collection %+v", c)
	}
	if load.Telemetry != "tel-telemetry-load" {
		t.Errorf("load: telemetry ConfigMap %q", load.Telemetry)
	}
	// S2's report is corrupt, S5 has none: results without telemetry.
	for _, res := range r.Status.Results[1:] {
		if res.Server != nil || res.Collection != nil || res.Telemetry != "" {
			t.Errorf("%s: server %v, collection %v, telemetry %q; want none", res.Name, res.Server, res.Collection, res.Telemetry)
		}
		if k.exists(&corev1.ConfigMap{}, topology.TelemetryConfigMapName(run, res.Name)) {
			t.Errorf("%s: a telemetry ConfigMap without telemetry", res.Name)
		}
	}
	k.eventually("a Warning for S2's telemetry", 30*time.Second, func() (bool, error) {
		var evs corev1.EventList
		if err := k.c.List(k.ctx(), &evs, client.InNamespace(k.ns)); err != nil {
			return false, err
		}
		for _, e := range evs.Items {
			if e.InvolvedObject.Name == "tel" && e.Reason == string(benchv1.EventTelemetryInvalid) {
				if e.Type != corev1.EventTypeWarning || !strings.Contains(e.Message, "phase S2") || !strings.Contains(e.Message, "tel-s2-result-0") ||
					len(e.Message) > 1024 {
					return false, fmt.Errorf("event %s: %s", e.Type, e.Message)
				}
				return true, nil
			}
		}
		return false, nil
	})

	// The cleanup deletes the result ConfigMaps and keeps the telemetry.
	k.eventually("cleanup", 30*time.Second, func() (bool, error) {
		return k.gone(&corev1.ConfigMap{}, "tel-load-result-0") && k.gone(&corev1.ConfigMap{}, "tel-s5-result-1"), nil
	})
	k.diagnostics("tel")
	cm := &corev1.ConfigMap{}
	if err := k.c.Get(k.ctx(), types.NamespacedName{Namespace: k.ns, Name: "tel-telemetry-load"}, cm); err != nil {
		t.Fatalf("telemetry ConfigMap after cleanup: %v", err)
	}
	if cm.DeletionTimestamp != nil {
		t.Error("telemetry ConfigMap being deleted")
	}
	if ref := metav1.GetControllerOf(cm); ref == nil || ref.UID != run.UID || ref.Kind != "BenchmarkRun" {
		t.Errorf("telemetry ConfigMap owner %+v", cm.OwnerReferences)
	}
	if !bytes.Equal(cm.BinaryData[contract.TelemetryKey], payload) || len(cm.BinaryData) != 1 || len(cm.Data) != 0 {
		t.Errorf("telemetry ConfigMap holds %d binary keys, not the report as loader 0 wrote it", len(cm.BinaryData))
	}
	if cm.Labels[benchv1.LabelComponent] != benchv1.ComponentTelemetry || cm.Labels[benchv1.LabelPhase] != "load" || cm.Labels[benchv1.LabelRun] != "tel" {
		t.Errorf("telemetry ConfigMap labels %v", cm.Labels)
	}
}

// bigStatus is the status of a finished run of shards micro-shards and
// phases phases, each with full results: three operations, a time series
// of 120 points, a server summary of every process with every field set,
// and the collection's statistics with the split by shard.
func bigStatus(t *testing.T, run *benchv1.BenchmarkRun) benchv1.BenchmarkRunStatus {
	t.Helper()
	procs := len(topology.Processes(run))
	server, coll, err := controllers.TelemetrySummaries(encodeTelemetry(t, telemetryPayload(run)), procs)
	if err != nil {
		t.Fatal(err)
	}
	// Realistic widths: 7 significant digits where the synthetic report
	// has round numbers.
	for i := range server {
		s := &server[i]
		for _, f := range []*float64{s.MeanConnections, s.OpsPerSecond.Insert, s.OpsPerSecond.Query, s.OpsPerSecond.Update,
			s.OpsPerSecond.Delete, s.OpsPerSecond.Getmore, s.OpsPerSecond.Command, s.MaxCacheUsedPercent, s.MaxCacheDirtyPercent,
			s.MeanNetInMBps, s.MeanNetOutMBps} {
			*f += 12345.67
		}
		*s.AppEvictions += 123456789
		*s.MinConnectionsAvailable += 838000
		s.Restarts, s.SampleErrors, s.PrimaryChanges, s.CacheMaxBytesChanged = 1, 2, 3, true
	}
	now := metav1.NewTime(time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC))
	st := benchv1.BenchmarkRunStatus{Phase: benchv1.RunSucceeded, StartTime: &now, CompletionTime: &now, NodeName: "node-a",
		Diagnostics: run.Name + "-diagnostics", Summary: &benchv1.RunSummary{Phase: "phase-9", Throughput: 205761.32, P99Micros: 12345},
		Topology: &benchv1.TopologyStatus{EntryPoint: run.Name + "-mongo.bench-abcde.svc.cluster.local:27017", ServerVersion: "8.0.4"}}
	for _, typ := range []string{benchv1.ConditionTopologyReady, benchv1.ConditionComplete, benchv1.ConditionFailed} {
		st.Conditions = append(st.Conditions, metav1.Condition{Type: typ, Status: metav1.ConditionTrue, Reason: "Succeeded",
			Message: "all 10 phases finished", LastTransitionTime: now})
	}
	for i, p := range topology.Processes(run) {
		st.Topology.Processes = append(st.Topology.Processes, benchv1.ProcessStatus{Role: p.Role, Pod: p.Name, Ready: true,
			Address: topology.Address(run, p, "cluster.local")})
		if p.Role == benchv1.RoleShard {
			st.Topology.Chunks = append(st.Topology.Chunks, benchv1.ShardChunks{Shard: topology.ShardName(p.Index), Chunks: int32(i)})
		}
	}
	for _, ph := range run.Spec.Phases {
		res := benchv1.PhaseResult{Name: ph.Name, Type: ph.Type, Loaders: 4, Threads: 64, StartTime: now, CompletionTime: now,
			RuntimeMillis: 600000, Operations: 123456789, Throughput: 205761.32, StopReason: string(results.StopCompleted), P99Micros: 12345,
			Server: server, Collection: coll, Telemetry: topology.TelemetryConfigMapName(run, ph.Name),
			Histograms: topology.HistogramsConfigMapName(run, ph.Name)}
		ts := &benchv1.TimeSeries{IntervalMillis: 5000}
		for _, op := range []string{results.OpRead, results.OpUpdate, results.OpInsert} {
			res.OperationStats = append(res.OperationStats, benchv1.OperationResult{Name: op, Count: 41152263, Errors: 12,
				Statuses: map[string]int64{"OK": 41152251, "ERROR": 12}, AverageMicros: 1234.56, MinMicros: 101, MaxMicros: 1234567,
				P50Micros: 1001, P95Micros: 5001, P99Micros: 12345, P999Micros: 54321})
			series := benchv1.OperationSeries{Name: op}
			for i := 0; i < results.MaxSeriesPoints; i++ {
				series.Values = append(series.Values, 12345)
			}
			ts.P99Micros = append(ts.P99Micros, series)
		}
		for i := 0; i < results.MaxSeriesPoints; i++ {
			ts.Throughput = append(ts.Throughput, 205761.32)
		}
		res.TimeSeries = ts
		st.Results = append(st.Results, res)
	}
	return st
}

// TestStatusSize: a run of 8 shards (10 processes with the config server
// and mongos) and 10 phases, each with every server summary and the
// collection split over 8 shards, stays well under etcd's 1.5 MiB, and
// the API server accepts it; so does the largest run the schema allows
// (16 shards, 16 phases). No manager runs: the test writes the status.
func TestStatusSize(t *testing.T) {
	k := newCluster(t)
	for _, tc := range []struct {
		shards, phases int32
		budget         int
	}{
		{8, 10, 512 << 10}, // a third of etcd's 1.5 MiB
		{16, 16, 1 << 20},  // the schema's limits: still under 1 MiB
	} {
		name := fmt.Sprintf("size-%d-%d", tc.shards, tc.phases)
		run := newRun(name, benchv1.TopologySharded, tc.shards, 4)
		run.Spec.Phases = nil
		for i := int32(0); i < tc.phases; i++ {
			typ := benchv1.PhaseRun
			if i == 0 {
				typ = benchv1.PhaseLoad
			}
			run.Spec.Phases = append(run.Spec.Phases, benchv1.PhaseSpec{Name: fmt.Sprintf("phase-%d", i), Type: typ, Threads: 16})
		}
		run = k.create(run)
		run.Status = bigStatus(t, run)
		if n := len(run.Status.Results[0].Server); n != int(tc.shards)+2 {
			t.Fatalf("%s: %d server summaries per phase, want %d", name, n, tc.shards+2)
		}
		if err := k.c.Status().Update(k.ctx(), run); err != nil {
			t.Fatalf("%s: the API server refuses the status: %v", name, err)
		}
		stored := k.run(name)
		if !reflect.DeepEqual(stored.Status.Results, run.Status.Results) {
			t.Errorf("%s: the stored results differ from those written", name)
		}
		b, err := json.Marshal(stored)
		if err != nil {
			t.Fatal(err)
		}
		var telemetryBytes int
		for _, res := range stored.Status.Results {
			s, _ := json.Marshal(res.Server)
			c, _ := json.Marshal(res.Collection)
			telemetryBytes += len(s) + len(c)
		}
		t.Logf("BenchmarkRun of %d shards × %d phases: %d bytes (%.1f KiB) as JSON, %d of them server and collection summaries",
			tc.shards, tc.phases, len(b), float64(len(b))/1024, telemetryBytes)
		if len(b) > tc.budget {
			t.Errorf("%s: the run is %d bytes, more than %d", name, len(b), tc.budget)
		}
	}
}
