//go:build e2e

// Package e2e runs BenchmarkRuns against real MongoDB on a kind cluster that
// hack/e2e.sh (make test-e2e) creates: the manager and loader images built
// from this tree, installed with the Helm chart. It needs Docker; `make
// test` never compiles it (build tag e2e).
package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/topology"
)

const runTimeout = 15 * time.Minute

type suite struct {
	t  *testing.T
	c  client.Client
	ns string
}

func setup(t *testing.T) *suite {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := benchv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		t.Fatalf("kubeconfig (run through make test-e2e): %v", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-",
		Labels: map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}}}
	if err := c.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	s := &suite{t: t, c: c, ns: ns.Name}
	t.Cleanup(func() {
		if t.Failed() {
			s.dump()
		}
		_ = c.Delete(context.Background(), ns)
	})
	return s
}

func smallRun(name string, mode benchv1.TopologyMode, shards int32) *benchv1.BenchmarkRun {
	run := &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: benchv1.BenchmarkRunSpec{
			Topology: benchv1.TopologySpec{Mode: mode, Image: "mongo:8.0.16", WiredTigerCacheSizeGB: "0.25"},
			Workload: benchv1.WorkloadSpec{Preset: "a", RecordCount: ptr.To[int64](10000),
				WorkloadParameters: benchv1.WorkloadParameters{OperationCount: ptr.To[int64](20000)}},
			Phases: []benchv1.PhaseSpec{
				{Name: "load", Type: benchv1.PhaseLoad, Threads: 8, BatchSize: ptr.To[int32](100)},
				{Name: "a", Type: benchv1.PhaseRun, Threads: 8},
			},
			Loaders: 2,
			Timeout: &metav1.Duration{Duration: runTimeout},
		},
	}
	if mode == benchv1.TopologySharded {
		run.Spec.Topology.Shards = ptr.To(shards)
	}
	return run
}

func (s *suite) create(run *benchv1.BenchmarkRun) {
	s.t.Helper()
	run.Namespace = s.ns
	if err := s.c.Create(context.Background(), run); err != nil {
		s.t.Fatal(err)
	}
}

func (s *suite) get(name string) *benchv1.BenchmarkRun {
	s.t.Helper()
	run := &benchv1.BenchmarkRun{}
	if err := s.c.Get(context.Background(), client.ObjectKey{Namespace: s.ns, Name: name}, run); err != nil {
		s.t.Fatal(err)
	}
	return run
}

// wait polls until cond holds or the deadline passes.
func (s *suite) wait(what string, timeout time.Duration, cond func() bool) {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(2 * time.Second) // poll interval, bounded by the deadline
	}
}

// waitEnd waits until the run succeeded or failed and returns it.
func (s *suite) waitEnd(name string) *benchv1.BenchmarkRun {
	s.t.Helper()
	var run *benchv1.BenchmarkRun
	s.wait(name+" to finish", runTimeout+time.Minute, func() bool {
		run = s.get(name)
		return run.Status.Phase == benchv1.RunSucceeded || run.Status.Phase == benchv1.RunFailed
	})
	return run
}

func failure(run *benchv1.BenchmarkRun) string {
	for _, c := range run.Status.Conditions {
		if c.Type == benchv1.ConditionFailed && c.Status == metav1.ConditionTrue {
			return c.Reason + ": " + c.Message
		}
	}
	return ""
}

func (s *suite) pods(labels client.MatchingLabels) []corev1.Pod {
	s.t.Helper()
	var pods corev1.PodList
	if err := s.c.List(context.Background(), &pods, client.InNamespace(s.ns), labels); err != nil {
		s.t.Fatal(err)
	}
	return pods.Items
}

// checkResults: every phase measured operations, without a single error.
func (s *suite) checkResults(run *benchv1.BenchmarkRun) {
	s.t.Helper()
	if len(run.Status.Results) != len(run.Spec.Phases) {
		s.t.Fatalf("%d results for %d phases", len(run.Status.Results), len(run.Spec.Phases))
	}
	for _, r := range run.Status.Results {
		if r.Throughput <= 0 || r.Operations <= 0 || r.P99Micros <= 0 {
			s.t.Errorf("%s: throughput %v, operations %d, p99 %d", r.Name, r.Throughput, r.Operations, r.P99Micros)
		}
		for _, o := range r.OperationStats {
			if o.Errors != 0 {
				s.t.Errorf("%s %s: %d errors %v", r.Name, o.Name, o.Errors, o.Statuses)
			}
		}
		if r.Type == benchv1.PhaseLoad && r.Operations != 10000 {
			s.t.Errorf("load inserted %d records, want 10000", r.Operations)
		}
	}
	if run.Status.Summary == nil || run.Status.Summary.Throughput <= 0 {
		s.t.Errorf("summary %+v", run.Status.Summary)
	}
	s.checkTelemetry(run)
	s.checkEnvironment(run)
	s.checkValidity(run)
}

// checkValidity: against real servers the run is Valid, and the figures
// its checks read are what the run configured. The WiredTiger cache of
// every mongod is ⌊1024 × 0.25⌋ MiB (smallRun's wiredTigerCacheSizeGB, and
// the config server's), which proves internal/validity's arithmetic
// against the server's own; each loader opened a connection per thread
// before its clock started, and the two loaders started together.
func (s *suite) checkValidity(run *benchv1.BenchmarkRun) {
	s.t.Helper()
	c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionValid)
	if c == nil || c.Status != metav1.ConditionTrue {
		s.t.Errorf("Valid condition %+v", c)
	}
	for i, r := range run.Status.Results {
		ph := run.Spec.Phases[i]
		for _, sv := range r.Server {
			if sv.Role == benchv1.RoleMongos {
				continue
			}
			if sv.CacheMaxBytes == nil || *sv.CacheMaxBytes != 256<<20 || sv.CacheMaxBytesChanged || sv.Restarts != 0 || sv.PrimaryChanges != 0 {
				s.t.Errorf("%s: %s %s: cache %v (changed %v), restarts %d, primary changes %d", r.Name, sv.Role, sv.Pod,
					sv.CacheMaxBytes, sv.CacheMaxBytesChanged, sv.Restarts, sv.PrimaryChanges)
			}
			if sv.MinConnectionsAvailable == nil || *sv.MinConnectionsAvailable <= 0 {
				s.t.Errorf("%s: %s %s: connections available down to %v", r.Name, sv.Role, sv.Pod, sv.MinConnectionsAvailable)
			}
		}
		if len(r.LoaderStats) != int(run.Spec.Loaders) || r.StartSkewMillis == nil || *r.StartSkewMillis > 1000 {
			s.t.Errorf("%s: loader stats %+v, start skew %v", r.Name, r.LoaderStats, r.StartSkewMillis)
			continue
		}
		for _, l := range r.LoaderStats {
			if l.Connections != max(ph.Threads, 1) || l.CPUPercent == nil {
				s.t.Errorf("%s: loader %d opened %d connections for %d threads, CPU %v", r.Name, l.Index, l.Connections, ph.Threads, l.CPUPercent)
			}
		}
	}
}

// checkEnvironment: the real servers described themselves and the run
// carries its fingerprint as a label.
func (s *suite) checkEnvironment(run *benchv1.BenchmarkRun) {
	s.t.Helper()
	env := run.Status.Environment
	if env == nil || env.Fingerprint == "" || run.Labels[benchv1.LabelFingerprint] != env.Fingerprint || env.Node == nil ||
		env.Node.KernelVersion == "" || env.KubernetesVersion == "" || env.DriverVersion == "" {
		s.t.Errorf("environment %+v, labels %v", env, run.Labels)
		return
	}
	m := env.MongoDB
	if m == nil || m.GitVersion == "" || !strings.HasPrefix(m.Allocator, "tcmalloc") || m.StorageEngine != "wiredTiger" ||
		m.FeatureCompatibilityVersion == "" || len(m.Processes) == 0 || m.Processes[0].Options == "" {
		s.t.Errorf("mongodb environment %+v", m)
		return
	}
	// Every replica-set member (the shards, the config server) runs with
	// the run's oplog size: getCmdLineOpts' parsed
	// replication.oplogSizeMB, an int32 (Extended JSON as bson.Raw writes
	// it, or relaxed).
	oplog := regexp.MustCompile(`"oplogSizeMB":\s*(\{"\$numberInt":\s*"1024"\}|1024\b)`)
	for _, p := range m.Processes {
		replSet := strings.Contains(p.Options, `"replSet"`) || strings.Contains(p.Options, `"replSetName"`)
		if replSet && !oplog.MatchString(p.Options) {
			s.t.Errorf("%s runs without --oplogSize 1024: %s", p.Host, p.Options)
		}
	}
}

// checkTelemetry: every phase has server telemetry from every process of
// the real MongoDB, the busiest process saw at least as many connections
// as the client had threads, and after the Load phase the collection
// holds recordCount records of about fieldcount × fieldlength bytes each
// (workload a: 10 × 100; BSON adds field names and lengths).
func (s *suite) checkTelemetry(run *benchv1.BenchmarkRun) {
	s.t.Helper()
	processes := 1
	switch run.Spec.Topology.Mode {
	case benchv1.TopologySharded:
		processes = int(*run.Spec.Topology.Shards) + 2
	case benchv1.TopologyReplicaSet:
		processes = int(topology.Members(run))
	}
	for i, r := range run.Status.Results {
		ph := run.Spec.Phases[i]
		threads := int64(max(run.Spec.Loaders, 1)) * int64(max(ph.Threads, 1))
		if len(r.Server) != processes || r.Telemetry == "" {
			s.t.Errorf("%s: %d server entries (want %d), telemetry ConfigMap %q", r.Name, len(r.Server), processes, r.Telemetry)
			continue
		}
		var peak int64
		for _, sv := range r.Server {
			if sv.Samples < 1 || sv.SampleErrors != 0 || sv.Version == "" {
				s.t.Errorf("%s: process %s: %d samples, %d errors, version %q", r.Name, sv.Pod, sv.Samples, sv.SampleErrors, sv.Version)
			}
			if sv.PeakConnections != nil && *sv.PeakConnections > peak {
				peak = *sv.PeakConnections
			}
		}
		if peak < threads {
			s.t.Errorf("%s: peak connections %d, fewer than the client's %d threads", r.Name, peak, threads)
		}
		if r.Type != benchv1.PhaseLoad {
			continue
		}
		c := r.Collection
		const records, recordBytes = 10000, 10 * 100
		if c == nil || c.Count == nil || *c.Count != records || c.Size == nil ||
			*c.Size < records*recordBytes || *c.Size > records*recordBytes*3/2 {
			s.t.Errorf("%s: collection after loading %d records of ~%d bytes: %+v", r.Name, records, recordBytes, c)
		}
		if run.Spec.Topology.Mode == benchv1.TopologySharded && c != nil {
			var sum int64
			for _, sh := range c.Shards {
				if sh.Count != nil {
					sum += *sh.Count
				}
			}
			if len(c.Shards) != processes-2 || c.Count == nil || sum != *c.Count {
				s.t.Errorf("%s: per-shard split %+v does not add up to %v", r.Name, c.Shards, c.Count)
			}
		}
	}
}

// TestStandalone: a standalone run completes with error-free results, every
// DB pod on the run's node, loaders on another node (PreferOtherNode, and
// kind has two workers), objects retained for inspection (Retain).
func TestStandalone(t *testing.T) {
	s := setup(t)
	run := smallRun("standalone", benchv1.TopologyStandalone, 0)
	run.Spec.Cleanup = benchv1.CleanupRetain
	s.create(run)
	done := s.waitEnd("standalone")
	if done.Status.Phase != benchv1.RunSucceeded {
		t.Fatalf("run failed: %s", failure(done))
	}
	s.checkResults(done)
	// The plugin and the kept YCSB reports, against the real thing.
	if code, out := s.plugin("wait", "run/standalone", "--timeout", "1m"); code != 0 || !strings.Contains(out, "Succeeded") {
		t.Errorf("kubectl mongobench wait exited %d:\n%s", code, out)
	}
	if code, out := s.plugin("results", "run/standalone", "-o", "ycsb", "--phase", "a"); code != 0 ||
		!strings.HasPrefix(out, "[OVERALL], RunTime(ms), ") || !strings.Contains(out, "[OVERALL], Throughput(ops/sec), ") {
		t.Errorf("kubectl mongobench results -o ycsb exited %d:\n%s", code, out)
	}
	diag := s.diagnostics(done)
	for _, ph := range done.Spec.Phases {
		if rep := diag.Data[ph.Name+".ycsb.txt"]; !strings.HasPrefix(rep, "[OVERALL], RunTime(ms), ") {
			t.Errorf("diagnostics lack phase %s's YCSB report: %q", ph.Name, rep)
		}
	}
	node := done.Status.NodeName
	for _, p := range s.pods(client.MatchingLabels{benchv1.LabelRun: "standalone", benchv1.LabelDatabase: "true"}) {
		if p.Spec.NodeName != node {
			t.Errorf("DB pod %s on %s, run node %s", p.Name, p.Spec.NodeName, node)
		}
	}
	loaders := s.pods(client.MatchingLabels{benchv1.LabelRun: "standalone", benchv1.LabelComponent: benchv1.ComponentLoader})
	if len(loaders) == 0 {
		t.Fatal("no loader pods retained")
	}
	for _, p := range loaders {
		if p.Spec.NodeName == node {
			t.Errorf("loader pod %s shares the DB node %s although another worker is free (PreferOtherNode)", p.Name, node)
		}
	}
}

// TestSharded: chunks spread over every shard, every DB pod on one node,
// and Delete cleanup removes the topology but keeps the results.
func TestSharded(t *testing.T) {
	s := setup(t)
	const shards = 3
	s.create(smallRun("sharded", benchv1.TopologySharded, shards))
	s.wait("the load phase", runTimeout, func() bool {
		r := s.get("sharded")
		if r.Status.Phase == benchv1.RunFailed {
			t.Fatalf("run failed: %s", failure(r))
		}
		return r.Status.Phase == benchv1.RunLoading || r.Status.Phase == benchv1.RunRunning
	})
	r := s.get("sharded")
	nodes := map[string]bool{}
	db := s.pods(client.MatchingLabels{benchv1.LabelRun: "sharded", benchv1.LabelDatabase: "true"})
	for _, p := range db {
		nodes[p.Spec.NodeName] = true
	}
	if len(db) != shards+2 || len(nodes) != 1 || !nodes[r.Status.NodeName] {
		t.Errorf("%d DB pods on nodes %v, want %d on %s", len(db), nodes, shards+2, r.Status.NodeName)
	}
	if got := len(r.Status.Topology.Chunks); got != shards {
		t.Errorf("chunks reported for %d shards, want %d: %+v", got, shards, r.Status.Topology.Chunks)
	}
	for _, c := range r.Status.Topology.Chunks {
		if c.Chunks < 1 {
			t.Errorf("shard %s has no chunk of the collection: %+v", c.Shard, r.Status.Topology.Chunks)
		}
	}
	done := s.waitEnd("sharded")
	if done.Status.Phase != benchv1.RunSucceeded {
		t.Fatalf("run failed: %s", failure(done))
	}
	s.checkResults(done)
	s.wait("cleanup of the DB pods", 3*time.Minute, func() bool {
		return len(s.pods(client.MatchingLabels{benchv1.LabelRun: "sharded", benchv1.LabelDatabase: "true"})) == 0
	})
	if len(s.get("sharded").Status.Results) != 2 {
		t.Error("cleanup lost the results")
	}
	var jobs batchv1.JobList
	if err := s.c.List(context.Background(), &jobs, client.InNamespace(s.ns)); err != nil || len(jobs.Items) != 0 {
		t.Errorf("finished Jobs not cleaned up: %d (%v)", len(jobs.Items), err)
	}
}

// TestShardedRanged: a Ranged run starts balanced. The bootstrap splits the
// collection at the quantiles of the keys the Load phase inserts and moves
// one range to each shard, so status.topology.chunks shows one chunk per
// shard, and after the Load phase each shard holds its share of the
// records, to within one (ordered keys: the ranges cut user0..user9999 in
// string order, where user10 < user2).
func TestShardedRanged(t *testing.T) {
	kubectl := os.Getenv("E2E_KUBECTL")
	if kubectl == "" {
		t.Fatal("E2E_KUBECTL must be set (run through make test-e2e)")
	}
	s := setup(t)
	const shards, records = 3, 10000
	run := smallRun("ranged", benchv1.TopologySharded, shards)
	run.Spec.Topology.ShardKey = benchv1.ShardKeyRanged
	run.Spec.Workload.InsertOrder = "ordered"
	// The shards are read after the run (whose Run phase reads and updates
	// only, so the counts are the Load phase's); the namespace's deletion
	// removes everything.
	run.Spec.Cleanup = benchv1.CleanupRetain
	s.create(run)
	done := s.waitEnd("ranged")
	if done.Status.Phase != benchv1.RunSucceeded {
		t.Fatalf("run failed: %s", failure(done))
	}
	s.checkResults(done)

	chunks := done.Status.Topology.Chunks
	if len(chunks) != shards {
		t.Fatalf("chunks reported for %d shards, want %d: %+v", len(chunks), shards, chunks)
	}
	for i, c := range chunks {
		if c.Shard != topology.ShardName(i) || c.Chunks != 1 {
			t.Errorf("chunks %+v: want one chunk on each of shard0..shard%d", chunks, shards-1)
			break
		}
	}

	// Count each shard's documents on the shard itself (no orphans: the
	// ranges moved while empty), and compare with its share: the first
	// records%shards shards hold one more.
	total := 0
	for _, p := range topology.Processes(done) {
		if p.Role != benchv1.RoleShard {
			continue
		}
		out := s.mongosh(kubectl, p.Name, string(p.Role), p.Port, `db.getSiblingDB("ycsb").usertable.countDocuments({})`)
		n, err := strconv.Atoi(out)
		if err != nil {
			t.Fatalf("%s: count %q: %v", p.Name, out, err)
		}
		want := records / shards
		if p.Index < records%shards {
			want++
		}
		if n != want {
			t.Errorf("%s holds %d records, want %d (its share of %d)", p.Name, n, want, records)
		}
		total += n
	}
	if total != records {
		t.Errorf("the shards hold %d records, want %d", total, records)
	}

	// Without retryable writes (driver.retryWrites false, the default) the
	// loads through mongos wrote nothing to the shards' config.transactions:
	// serverStatus.transactions.transactionsCollectionWriteCount counts
	// those writes (MongoDB's serverStatus reference). With the driver's
	// default every one of the 10,000 inserts would have.
	for _, p := range topology.Processes(done) {
		if p.Role != benchv1.RoleShard {
			continue
		}
		out := s.mongosh(kubectl, p.Name, string(p.Role), p.Port, `db.serverStatus().transactions.transactionsCollectionWriteCount`)
		if n, err := strconv.Atoi(out); err != nil || n > 100 {
			t.Errorf("%s: %q writes to config.transactions (%v): the loaders' writes were retryable", p.Name, out, err)
		}
	}
}

// mongosh evaluates a JavaScript expression in a MongoDB pod's container
// and returns the last line it prints. HOME moves to the writable /tmp:
// mongosh keeps its logs there, and the root filesystem is read-only.
func (s *suite) mongosh(kubectl, pod, container string, port int32, expr string) string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectl, "-n", s.ns, "exec", pod, "-c", container, "--",
		"env", "HOME=/tmp", "mongosh", "--quiet", "--norc", "--port", strconv.Itoa(int(port)), "--eval", expr)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		s.t.Fatalf("kubectl exec %s mongosh --eval %s: %v\n%s%s", pod, expr, err, stdout.String(), stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// TestWrongMongoImageFails: an image that cannot be pulled fails the run
// with a reason that names it; the plugin's wait exits 1 with it, and the
// diagnostics keep the container's state after the Delete cleanup.
func TestWrongMongoImageFails(t *testing.T) {
	s := setup(t)
	run := smallRun("badmongo", benchv1.TopologyStandalone, 0)
	run.Spec.Topology.Image = "mongo:0.0.0-does-not-exist"
	s.create(run)
	code, out := s.plugin("wait", "run/badmongo", "--timeout", (runTimeout + time.Minute).String())
	done := s.get("badmongo")
	if done.Status.Phase != benchv1.RunFailed || !strings.Contains(failure(done), "mongo:0.0.0-does-not-exist") {
		t.Fatalf("phase %s, failure %q", done.Status.Phase, failure(done))
	}
	if code != 1 || !strings.Contains(out, string(benchv1.ReasonTopologyFailed)) || !strings.Contains(out, "mongo:0.0.0-does-not-exist") {
		t.Errorf("kubectl mongobench wait exited %d:\n%s", code, out)
	}
	diag := s.diagnostics(done)
	if c := diag.Data["containers.txt"]; !strings.Contains(c, "mongo:0.0.0-does-not-exist") || !strings.Contains(c, "waiting: ") {
		t.Errorf("containers.txt does not describe the mongod that cannot pull its image:\n%s", c)
	}
}

// TestExclusiveRunsShareNoNode: two runs applied together on kind's two
// workers. Each run's loaders go to the other worker (PreferOtherNode), so
// with placement.exclusive the second run waits Pending until the first is
// done: at no moment do both runs' database pods, or one run's database
// pods and the other's loaders, share a node. Both succeed.
func TestExclusiveRunsShareNoNode(t *testing.T) {
	s := setup(t)
	names := []string{"excl-1", "excl-2"}
	for _, n := range names {
		s.create(smallRun(n, benchv1.TopologyStandalone, 0))
	}
	waited := false
	s.wait("both runs to end", 2*runTimeout, func() bool {
		var pods corev1.PodList
		if err := s.c.List(context.Background(), &pods, client.InNamespace(s.ns)); err != nil {
			t.Fatal(err)
		}
		type placed struct {
			run, node string
			at        time.Time
		}
		var db, loaders []placed
		for _, p := range pods.Items {
			active := p.Spec.NodeName != "" && p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
			if !active {
				continue
			}
			pl := placed{run: p.Labels[benchv1.LabelRun], node: p.Spec.NodeName}
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionTrue {
					pl.at = c.LastTransitionTime.Time
				}
			}
			switch {
			case p.Labels[benchv1.LabelDatabase] == "true":
				db = append(db, pl)
			case p.Labels[benchv1.LabelComponent] == benchv1.ComponentLoader:
				loaders = append(loaders, pl)
			}
		}
		for _, d := range db {
			for _, o := range db {
				if o.run != d.run && o.node == d.node {
					t.Fatalf("%s and %s both have database pods on %s", d.run, o.run, d.node)
				}
			}
			// A loader may join an exclusive run's node (loaders only
			// prefer other nodes); a database pod must not join a node
			// where another run's loader is already at work.
			for _, l := range loaders {
				if l.run != d.run && l.node == d.node && d.at.After(l.at) {
					t.Fatalf("%s's database pod was placed on %s at %s, while %s's loader (placed at %s) was at work there",
						d.run, d.node, d.at.Format(time.RFC3339), l.run, l.at.Format(time.RFC3339))
				}
			}
		}
		ended := 0
		for _, n := range names {
			r := s.get(n)
			if c := meta.FindStatusCondition(r.Status.Conditions, benchv1.ConditionTopologyReady); c != nil && c.Reason == string(benchv1.ReasonWaitingForNode) &&
				strings.Contains(c.Message, "placement.exclusive") {
				waited = true
			}
			if r.Status.Phase == benchv1.RunSucceeded || r.Status.Phase == benchv1.RunFailed {
				ended++
			}
		}
		return ended == len(names)
	})
	for _, n := range names {
		done := s.get(n)
		if done.Status.Phase != benchv1.RunSucceeded {
			t.Fatalf("%s failed: %s", n, failure(done))
		}
		s.checkResults(done)
	}
	if !waited {
		t.Log("neither run had to wait for a node (the loaders fit beside the first run's node)")
	}
}

// plugin runs kubectl-mongobench (built by hack/e2e.sh) against the kind
// cluster in the suite's namespace and returns its exit code and output.
func (s *suite) plugin(args ...string) (int, string) {
	s.t.Helper()
	bin := os.Getenv("E2E_PLUGIN")
	if bin == "" {
		s.t.Fatal("E2E_PLUGIN must name the kubectl-mongobench binary (run through make test-e2e)")
	}
	cmd := exec.Command(bin, append([]string{"-n", s.ns}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String()
	default:
		s.t.Fatalf("kubectl-mongobench %v: %v", args, err)
		return -1, ""
	}
}

// diagnostics returns the run's diagnostics ConfigMap, named in status.
func (s *suite) diagnostics(run *benchv1.BenchmarkRun) *corev1.ConfigMap {
	s.t.Helper()
	if run.Status.Diagnostics != run.Name+"-diagnostics" {
		s.t.Fatalf("status.diagnostics %q", run.Status.Diagnostics)
	}
	cm := &corev1.ConfigMap{}
	if err := s.c.Get(context.Background(), client.ObjectKey{Namespace: s.ns, Name: run.Status.Diagnostics}, cm); err != nil {
		s.t.Fatal(err)
	}
	return cm
}

// TestWrongLoaderImageFails reinstalls the manager with a loader image that
// does not exist: the run must fail with a reason, not hang.
func TestWrongLoaderImageFails(t *testing.T) {
	helm, chart := os.Getenv("E2E_HELM"), os.Getenv("E2E_CHART")
	if helm == "" || chart == "" {
		t.Fatal("E2E_HELM and E2E_CHART must be set (run through make test-e2e)")
	}
	upgrade := func(args ...string) {
		t.Helper()
		cmd := exec.Command(helm, append([]string{"upgrade", "mongobench", chart, "-n", "mongobench-system", "--reuse-values", "--wait", "--timeout", "3m"}, args...)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("helm upgrade %v: %v\n%s", args, err, out.String())
		}
	}
	upgrade("--set", "loaderImage.tag=does-not-exist", "--set", "controller.imagePullTimeout=45s")
	t.Cleanup(func() {
		upgrade("--set", "loaderImage.tag="+os.Getenv("E2E_LOADER_TAG"), "--set", "controller.imagePullTimeout=3m")
	})
	s := setup(t)
	s.create(smallRun("badloader", benchv1.TopologyStandalone, 0))
	done := s.waitEnd("badloader")
	if done.Status.Phase != benchv1.RunFailed || !strings.Contains(failure(done), "does-not-exist") {
		t.Fatalf("phase %s, failure %q", done.Status.Phase, failure(done))
	}
}

// dump prints what a person would look at when a run goes wrong.
func (s *suite) dump() {
	ctx := context.Background()
	var runs benchv1.BenchmarkRunList
	_ = s.c.List(ctx, &runs, client.InNamespace(s.ns))
	for _, r := range runs.Items {
		s.t.Logf("run %s: phase %s, conditions %+v", r.Name, r.Status.Phase, r.Status.Conditions)
	}
	var pods corev1.PodList
	_ = s.c.List(ctx, &pods, client.InNamespace(s.ns))
	for _, p := range pods.Items {
		s.t.Logf("pod %s on %s: %s %+v", p.Name, p.Spec.NodeName, p.Status.Phase, p.Status.ContainerStatuses)
	}
	var events corev1.EventList
	_ = s.c.List(ctx, &events, client.InNamespace(s.ns))
	for _, e := range events.Items {
		s.t.Logf("event %s %s: %s", e.InvolvedObject.Name, e.Reason, e.Message)
	}
	fmt.Fprintln(os.Stderr, "(see also the manager's logs: kubectl -n mongobench-system logs deploy/mongobench)")
}
