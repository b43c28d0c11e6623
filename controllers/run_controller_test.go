package controllers_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/controllers"
	"github.com/mongobench/mongobench/internal/topology"
)

func newRun(name string, mode benchv1.TopologyMode, shards int32, loaders int32) *benchv1.BenchmarkRun {
	run := &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: benchv1.BenchmarkRunSpec{
			Topology: benchv1.TopologySpec{Mode: mode},
			Workload: benchv1.WorkloadSpec{Preset: "a", RecordCount: ptr.To[int64](10000)},
			Phases: []benchv1.PhaseSpec{
				{Name: "load", Type: benchv1.PhaseLoad, Threads: 8},
				{Name: "S2", Type: benchv1.PhaseRun, Threads: 8, Workload: &benchv1.WorkloadParameters{ReadProportion: ptr.To(0.1), UpdateProportion: ptr.To(0.9)}},
				{Name: "S5", Type: benchv1.PhaseRun, Threads: 16, Workload: &benchv1.WorkloadParameters{ReadProportion: ptr.To(1.0), UpdateProportion: ptr.To(0.0)}},
			},
			Loaders: loaders,
		},
	}
	if mode == benchv1.TopologySharded {
		run.Spec.Topology.Shards = ptr.To(shards)
	}
	return run
}

func (k *cluster) create(run *benchv1.BenchmarkRun) *benchv1.BenchmarkRun {
	k.t.Helper()
	run.Namespace = k.ns
	if err := k.c.Create(k.ctx(), run); err != nil {
		k.t.Fatal(err)
	}
	return run
}

// assertResults checks every phase's merged numbers against the samples.
func assertResults(t *testing.T, run *benchv1.BenchmarkRun) {
	t.Helper()
	if len(run.Status.Results) != len(run.Spec.Phases) {
		t.Fatalf("%d results for %d phases", len(run.Status.Results), len(run.Spec.Phases))
	}
	for i, ph := range run.Spec.Phases {
		res := run.Status.Results[i]
		if res.Name != ph.Name || res.Type != ph.Type {
			t.Errorf("result %d is %s/%s, want %s/%s (phase order)", i, res.Name, res.Type, ph.Name, ph.Type)
		}
		ops, perOp, errs, p99 := expected(run, ph.Name, int(run.Spec.Loaders))
		if res.Operations != ops {
			t.Errorf("%s: %d operations, want %d", ph.Name, res.Operations, ops)
		}
		// Loaders start 100 ms apart and run 5 s: wall time is the span.
		wantRuntime := int64(5000)
		if run.Spec.Loaders > 1 {
			wantRuntime = 5000 + int64(run.Spec.Loaders-1)*100
		}
		if res.RuntimeMillis != wantRuntime {
			t.Errorf("%s: runtime %d ms, want %d", ph.Name, res.RuntimeMillis, wantRuntime)
		}
		wantTP := float64(ops) * 1000 / float64(wantRuntime)
		if d := res.Throughput - wantTP; d > 0.006 || d < -0.006 {
			t.Errorf("%s: throughput %v, want %.2f", ph.Name, res.Throughput, wantTP)
		}
		if res.P99Micros != p99 {
			t.Errorf("%s: p99 %d, want %d (merged histogram, not averaged)", ph.Name, res.P99Micros, p99)
		}
		if res.Loaders != run.Spec.Loaders || res.Threads != run.Spec.Loaders*ph.Threads {
			t.Errorf("%s: loaders %d threads %d", ph.Name, res.Loaders, res.Threads)
		}
		for _, o := range res.OperationStats {
			want, ok := perOp[o.Name]
			if !ok {
				t.Errorf("%s: unexpected operation %s", ph.Name, o.Name)
				continue
			}
			got := [...]int64{o.MinMicros, o.MaxMicros, o.P50Micros, o.P95Micros, o.P99Micros, o.P999Micros}
			exp := [...]int64{want.Min, want.Max, want.P50, want.P95, want.P99, want.P999}
			if got != exp || o.AverageMicros != float64(int64(want.Mean*100+0.5))/100 {
				t.Errorf("%s %s: stats %v avg %v, want %v avg %.2f", ph.Name, o.Name, got, o.AverageMicros, exp, want.Mean)
			}
			if o.Errors != errs[o.Name] || o.Count != want.Count+errs[o.Name] {
				t.Errorf("%s %s: count %d errors %d, want %d / %d", ph.Name, o.Name, o.Count, o.Errors, want.Count+errs[o.Name], errs[o.Name])
			}
		}
		if res.TimeSeries == nil || len(res.TimeSeries.Throughput) == 0 || len(res.TimeSeries.Throughput) > 120 {
			t.Errorf("%s: time series %+v", ph.Name, res.TimeSeries)
		}
	}
	last := run.Status.Results[len(run.Status.Results)-1]
	if s := run.Status.Summary; s == nil || s.Phase != last.Name || s.Throughput != last.Throughput || s.P99Micros != last.P99Micros {
		t.Errorf("summary %+v, want the last Run phase %s", run.Status.Summary, last.Name)
	}
}

func TestStandaloneLifecycle(t *testing.T) { //nolint:gocyclo // one scenario, step by step
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	run := k.create(newRun("sa", benchv1.TopologyStandalone, 0, 1))

	// Provisioning: one mongod, the Services, the Jobs' identity.
	pod := k.pod("sa-mongod")
	if pod.Spec.NodeSelector != nil {
		t.Errorf("the anchor pod is placed by the scheduler; selector %v", pod.Spec.NodeSelector)
	}
	if got := strings.Join(pod.Spec.Containers[0].Args, " "); got != "mongod --port 27017 --dbpath /data/db --bind_ip_all --wiredTigerCacheSizeGB 1" {
		t.Errorf("args %s", got)
	}
	for _, name := range []string{"sa-db", "sa-mongo"} {
		if !k.exists(&corev1.Service{}, name) {
			t.Errorf("service %s missing", name)
		}
	}
	// Pending until the scheduler places the anchor pod.
	r := k.waitRun("sa", "waiting for a node", func(r *benchv1.BenchmarkRun) bool {
		c := cond(r, benchv1.ConditionTopologyReady)
		return c != nil && c.Reason == string(benchv1.ReasonWaitingForNode)
	})
	if c := cond(r, benchv1.ConditionTopologyReady); r.Status.Phase != benchv1.RunPending || c.Status != metav1.ConditionFalse ||
		!strings.Contains(c.Message, "waiting for pod sa-mongod to be scheduled") || !strings.Contains(c.Message, "mongod not ready") {
		t.Errorf("phase %s, TopologyReady %+v", r.Status.Phase, c)
	}
	// No bootstrap before the pod is ready.
	k.schedule(pod, "node-a")
	k.markRunning("sa-mongod", false, 0)
	r = k.waitRun("sa", "node recorded", func(r *benchv1.BenchmarkRun) bool { return r.Status.NodeName == "node-a" })
	if r.Status.Phase != benchv1.RunProvisioning {
		t.Errorf("phase %s once the node is known, want Provisioning", r.Status.Phase)
	}
	if k.exists(&batchv1.Job{}, "sa-bootstrap") {
		t.Fatal("bootstrap Job created before the mongod is ready")
	}
	k.markRunning("sa-mongod", true, 0)
	job := k.job("sa-bootstrap")
	if got := strings.Join(job.Spec.Template.Spec.Containers[0].Args, " "); !strings.Contains(got, "--mode standalone --standalone sa-mongod.sa-db."+k.ns+".svc.cluster.local:27017") {
		t.Errorf("bootstrap args %s", got)
	}
	k.finishBootstrap(r)
	r = k.waitLifecycle("sa", benchv1.RunLoading)
	if c := cond(r, benchv1.ConditionTopologyReady); c.Status != metav1.ConditionTrue || r.Status.Topology.ServerVersion != "8.0.4" {
		t.Errorf("TopologyReady %+v, topology %+v", c, r.Status.Topology)
	}

	// Phases run in order, one Job each, the next only after the previous.
	for i, ph := range run.Spec.Phases {
		name := topology.PhaseJobName(run, ph.Name)
		j := k.job(name)
		if i+1 < len(run.Spec.Phases) && k.exists(&batchv1.Job{}, topology.PhaseJobName(run, run.Spec.Phases[i+1].Name)) {
			t.Fatalf("phase %s started before %s finished", run.Spec.Phases[i+1].Name, ph.Name)
		}
		if *j.Spec.Completions != 1 || *j.Spec.BackoffLimit != 0 || j.Spec.Template.Spec.Containers[0].Image != loaderImage {
			t.Errorf("job %s spec %+v", name, j.Spec)
		}
		r = k.waitRun("sa", "current phase "+ph.Name, func(r *benchv1.BenchmarkRun) bool { return r.Status.CurrentPhase == ph.Name })
		wantPhase := benchv1.RunRunning
		if ph.Type == benchv1.PhaseLoad {
			wantPhase = benchv1.RunLoading
		}
		if r.Status.Phase != wantPhase {
			t.Errorf("during %s the run is %s, want %s", ph.Name, r.Status.Phase, wantPhase)
		}
		k.finishPhase(run, ph)
	}
	r = k.waitLifecycle("sa", benchv1.RunSucceeded)
	assertResults(t, r)
	if c := cond(r, benchv1.ConditionComplete); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("Complete %+v", c)
	}
	if r.Status.CompletionTime == nil || r.Status.ObservedGeneration != r.Generation {
		t.Errorf("completion %v observedGeneration %d", r.Status.CompletionTime, r.Status.ObservedGeneration)
	}

	// Cleanup: Delete removes the topology and finished Jobs, keeps results.
	k.eventually("cleanup", 30*time.Second, func() (bool, error) {
		return k.gone(&corev1.Pod{}, "sa-mongod") && k.gone(&batchv1.Job{}, "sa-s5") && k.gone(&corev1.Service{}, "sa-mongo") &&
			k.gone(&corev1.ConfigMap{}, "sa-s5-result-0") && k.gone(&corev1.ServiceAccount{}, "sa-jobs"), nil
	})
	if len(k.run("sa").Status.Results) != 3 {
		t.Error("results lost in cleanup")
	}
	// Each phase's merged histograms survive it.
	k.assertHistograms(r)
	// Each phase's YCSB text report survives the cleanup, rebuilt from the
	// merged histograms: it agrees with status line for line.
	cm := k.diagnostics("sa")
	if len(cm.Data) != len(r.Status.Results) {
		t.Errorf("diagnostics of a successful run hold %d keys, want one report per phase", len(cm.Data))
	}
	for _, res := range r.Status.Results {
		report := cm.Data[res.Name+controllers.DiagnosticsYCSBTextSuffix]
		want := []string{fmt.Sprintf("[OVERALL], RunTime(ms), %d\n", res.RuntimeMillis)}
		for _, op := range res.OperationStats {
			want = append(want, fmt.Sprintf("[%s], Operations, %d\n", op.Name, op.Count-op.Errors),
				fmt.Sprintf("[%s], 95thPercentileLatency(us), %d\n", op.Name, op.P95Micros),
				fmt.Sprintf("[%s], 99thPercentileLatency(us), %d\n", op.Name, op.P99Micros),
				fmt.Sprintf("[%s], Return=OK, ", op.Name))
		}
		for _, w := range want {
			if !strings.Contains(report, w) {
				t.Errorf("report of %s lacks %q:\n%s", res.Name, w, report)
			}
		}
	}

	// Events tell the story.
	k.assertEvents("sa", "NodeSelected", "Bootstrapped", "TopologyReady", "PhaseStarted", "PhaseCompleted", "Succeeded", "CleanedUp")
	k.assertPrinterColumns("sa", fmt.Sprintf("%v", r.Status.Summary.Throughput), fmt.Sprint(r.Status.Summary.P99Micros), "Succeeded", "Standalone")
}

func TestShardedLifecycle(t *testing.T) { //nolint:gocyclo // one scenario, step by step
	k := newCluster(t)
	// The pre-flight check wants a node of the pool the run selects.
	ensureNode(t, k.c, "node-b", map[string]string{"pool": "bench"}, nodeSize)
	startManager(t, &counters{}, testLimits)
	run := newRun("ms", benchv1.TopologySharded, 4, 3)
	run.Spec.Placement.NodeSelector = map[string]string{"pool": "bench"}
	run = k.create(run)

	// The anchor (config server) comes first; the rest wait for its node.
	cfg := k.pod("ms-cfg")
	if k.exists(&corev1.Pod{}, "ms-shard0") {
		t.Fatal("shards created before the config server was scheduled")
	}
	if cfg.Spec.NodeSelector["pool"] != "bench" || cfg.Spec.NodeSelector[topology.HostnameLabel] != "" {
		t.Errorf("anchor selector %v", cfg.Spec.NodeSelector)
	}
	k.schedule(cfg, "node-b")
	k.markRunning("ms-cfg", true, 0)
	procs := []string{"ms-shard0", "ms-shard1", "ms-shard2", "ms-shard3", "ms-mongos"}
	for _, name := range procs {
		p := k.pod(name)
		// Pinned through the scheduler by the node's hostname label.
		if p.Spec.NodeName != "" || p.Spec.NodeSelector[topology.HostnameLabel] != "host-b" || p.Spec.NodeSelector["pool"] != "bench" {
			t.Errorf("%s: nodeName %q selector %v", name, p.Spec.NodeName, p.Spec.NodeSelector)
		}
		if p.OwnerReferences[0].Name != "ms" || p.Labels[benchv1.LabelRun] != "ms" {
			t.Errorf("%s: owner %v labels %v", name, p.OwnerReferences, p.Labels)
		}
	}
	if got := strings.Join(k.pod("ms-mongos").Spec.Containers[0].Args, " "); got != "mongos --configdb cfg/ms-cfg.ms-db."+k.ns+".svc.cluster.local:27019 --bind_ip_all --port 27017" {
		t.Errorf("mongos args %s", got)
	}
	for _, name := range procs[:3] {
		k.bringUp(name)
	}
	r := k.waitRun("ms", "3/4 shards", func(r *benchv1.BenchmarkRun) bool {
		c := cond(r, benchv1.ConditionTopologyReady)
		return c != nil && strings.Contains(c.Message, "config server ready, 3/4 shards ready, mongos not ready")
	})
	if r.Status.NodeName != "node-b" {
		t.Errorf("nodeName %q", r.Status.NodeName)
	}
	// status.nodes lists the one node by role.
	wantNodes := []benchv1.RoleNode{{Role: benchv1.RoleConfigServer, Node: "node-b"}, {Role: benchv1.RoleMongos, Node: "node-b"},
		{Role: benchv1.RoleShard, Node: "node-b"}}
	if !slices.Equal(r.Status.Nodes, wantNodes) {
		t.Errorf("status.nodes %+v, want %+v", r.Status.Nodes, wantNodes)
	}
	if k.exists(&batchv1.Job{}, "ms-bootstrap") {
		t.Fatal("bootstrap before every shard is ready")
	}
	k.bringUp("ms-shard3")
	// Bootstrap starts without mongos: it cannot be ready before its
	// config server is initiated.
	job := k.job("ms-bootstrap")
	args := strings.Join(job.Spec.Template.Spec.Containers[0].Args, " ")
	for i := 0; i < 4; i++ {
		if want := fmt.Sprintf("--shard shard%d=ms-shard%d.ms-db.%s.svc.cluster.local:27018", i, i, k.ns); !strings.Contains(args, want) {
			t.Errorf("bootstrap args lack %q: %s", want, args)
		}
	}
	k.finishBootstrap(r)
	r = k.waitRun("ms", "waiting for mongos", func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Topology != nil && r.Status.Topology.ServerVersion == "8.0.4"
	})
	if len(r.Status.Topology.Chunks) != 4 || r.Status.Topology.Chunks[1].Chunks != 2 {
		t.Errorf("chunks %+v", r.Status.Topology.Chunks)
	}
	if r.Status.Phase != benchv1.RunProvisioning {
		t.Errorf("phase %s before mongos is ready", r.Status.Phase)
	}
	k.bringUp("ms-mongos")
	r = k.waitLifecycle("ms", benchv1.RunLoading)
	if len(r.Status.Topology.Processes) != 6 || r.Status.Topology.EntryPoint != "ms-mongo."+k.ns+".svc.cluster.local:27017" {
		t.Errorf("topology %+v", r.Status.Topology)
	}

	for _, ph := range run.Spec.Phases {
		j := k.job(topology.PhaseJobName(run, ph.Name))
		if *j.Spec.Completions != 3 || *j.Spec.Parallelism != 3 || *j.Spec.CompletionMode != batchv1.IndexedCompletion {
			t.Errorf("%s: %+v", j.Name, j.Spec)
		}
		args := strings.Join(j.Spec.Template.Spec.Containers[0].Args, " ")
		if !strings.Contains(args, "-p loader.count=3") || !strings.Contains(args, "mongodb.url=mongodb://ms-mongo."+k.ns+".svc.cluster.local:27017/ycsb") {
			t.Errorf("%s args %s", j.Name, args)
		}
		k.finishPhase(run, ph)
	}
	r = k.waitLifecycle("ms", benchv1.RunSucceeded)
	assertResults(t, r)
	k.eventually("cleanup", 30*time.Second, func() (bool, error) {
		var pods corev1.PodList
		if err := k.c.List(k.ctx(), &pods, client.InNamespace(k.ns)); err != nil {
			return false, err
		}
		for _, p := range pods.Items {
			if p.DeletionTimestamp == nil {
				return false, fmt.Errorf("pod %s not deleted", p.Name)
			}
		}
		return len(pods.Items) == 6 && k.gone(&corev1.ConfigMap{}, "ms-s5-result-2"), nil
	})
	k.assertHistograms(r)
}

func cond(r *benchv1.BenchmarkRun, typ string) *metav1.Condition {
	for i := range r.Status.Conditions {
		if r.Status.Conditions[i].Type == typ {
			return &r.Status.Conditions[i]
		}
	}
	return nil
}

// assertEvents checks the run's events include these reasons.
func (k *cluster) assertEvents(run string, reasons ...string) {
	k.t.Helper()
	k.eventually("events of "+run, 30*time.Second, func() (bool, error) {
		var evs corev1.EventList
		if err := k.c.List(k.ctx(), &evs, client.InNamespace(k.ns)); err != nil {
			return false, err
		}
		seen := map[string]bool{}
		for _, e := range evs.Items {
			if e.InvolvedObject.Name == run {
				seen[e.Reason] = true
			}
		}
		for _, r := range reasons {
			if !seen[r] {
				return false, fmt.Errorf("no %s event (have %v)", r, seen)
			}
		}
		return true, nil
	})
}

// assertPrinterColumns runs `kubectl get benchmarkruns` against the API
// server and checks the row shows these values.
func (k *cluster) assertPrinterColumns(run string, want ...string) {
	k.t.Helper()
	user, err := env.AddUser(envtestUser(), nil)
	if err != nil {
		k.t.Fatal(err)
	}
	kubectl, err := user.Kubectl()
	if err != nil {
		k.t.Fatal(err)
	}
	out, errOut, err := kubectl.Run("get", "benchmarkruns", "-n", k.ns, run)
	if err != nil {
		k.t.Fatalf("kubectl get: %v %s", err, readAll(errOut))
	}
	text := readAll(out)
	header := strings.Fields(strings.SplitN(text, "\n", 2)[0])
	if strings.Join(header, " ") != "NAME PHASE MODE SHARDS WORKLOAD THREADS OPS/S P99-MICROS REGRESSED VALID AGE" {
		k.t.Errorf("columns %v", header)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			k.t.Errorf("kubectl get lacks %q:\n%s", w, text)
		}
	}
}
