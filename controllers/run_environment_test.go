package controllers

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/topology"
)

// TestFingerprint: what must match for two runs to be comparable changes
// the fingerprint; names, namespaces, hosts, node names and zones do not.
func TestFingerprint(t *testing.T) {
	base := func() (*benchv1.BenchmarkRun, *benchv1.EnvironmentStatus) {
		run := &benchv1.BenchmarkRun{
			ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns1"},
			Spec: benchv1.BenchmarkRunSpec{
				Topology: benchv1.TopologySpec{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](2), Image: "mongo:8.0.16", WiredTigerCacheSizeGB: "1"},
				Workload: benchv1.WorkloadSpec{Preset: "a"},
				Phases:   []benchv1.PhaseSpec{{Name: "load", Type: benchv1.PhaseLoad}, {Name: "run", Type: benchv1.PhaseRun, Threads: 8}},
				Loaders:  2,
			},
			Status: benchv1.BenchmarkRunStatus{Topology: &benchv1.TopologyStatus{ServerVersion: "8.0.16"}},
		}
		cpu, mem := resource.MustParse("16"), resource.MustParse("64Gi")
		env := &benchv1.EnvironmentStatus{
			LoaderImage: "ghcr.io/mongobench/mongobench-loader:v0.1.0",
			MongoDB: &benchv1.MongoDBEnvironment{Version: "8.0.16", GitVersion: "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d",
				Allocator: "tcmalloc-google", FeatureCompatibilityVersion: "8.0", StorageEngine: "wiredTiger"},
			Node: &benchv1.NodeEnvironment{Name: "node-a", KernelVersion: "6.8.0", OSImage: "Ubuntu 24.04", Architecture: "amd64",
				ContainerRuntimeVersion: "containerd://2.0", InstanceType: "m7i.4xlarge", Zone: "z1", AllocatableCPU: &cpu, AllocatableMemory: &mem},
		}
		for i := range run.Spec.Phases {
			env.Phases = append(env.Phases, benchv1.PhaseEnvironment{Name: run.Spec.Phases[i].Name,
				Properties: topology.PhaseProperties(run, &run.Spec.Phases[i], "cluster.local")})
		}
		return run, env
	}
	// reprops records the phases' properties again, after a change to the
	// spec, as recordEnvironment would have.
	reprops := func(r *benchv1.BenchmarkRun, e *benchv1.EnvironmentStatus) {
		for i := range r.Spec.Phases {
			e.Phases[i].Properties = topology.PhaseProperties(r, &r.Spec.Phases[i], "cluster.local")
		}
	}
	fp := func(run *benchv1.BenchmarkRun, env *benchv1.EnvironmentStatus) string {
		t.Helper()
		f, err := fingerprint(run, env)
		if err != nil || len(f) != 16 {
			t.Fatalf("fingerprint %q, %v", f, err)
		}
		return f
	}
	run, env := base()
	want := fp(run, env)
	if again := fp(base()); again != want {
		t.Fatalf("not stable: %s, then %s", want, again)
	}
	// What this run's fingerprint has been since spec.security existed: a
	// setting added off by default (security.auth) must leave it be, or
	// every default history would start afresh. A change here is one
	// that docs/telemetry.md must announce.
	if want != "00c577fdff18be1e" {
		t.Errorf("fingerprint %s: runs without security.auth no longer match the runs recorded before it existed", want)
	}
	for _, tc := range []struct {
		name   string
		mutate func(*benchv1.BenchmarkRun, *benchv1.EnvironmentStatus)
		same   bool
	}{
		{"another name and namespace", func(r *benchv1.BenchmarkRun, e *benchv1.EnvironmentStatus) {
			r.Name, r.Namespace = "b", "ns2"
			reprops(r, e) // mongodb.url names the run's own hosts
		}, true},
		{"another node of the same shape, in another zone", func(_ *benchv1.BenchmarkRun, e *benchv1.EnvironmentStatus) {
			e.Node.Name, e.Node.Zone = "node-b", "z2"
		}, true},
		{"a timeout or cleanup policy", func(r *benchv1.BenchmarkRun, _ *benchv1.EnvironmentStatus) {
			r.Spec.Cleanup = benchv1.CleanupRetain
			r.Spec.Timeout = &metav1.Duration{}
		}, true},
		{"another server version", func(r *benchv1.BenchmarkRun, e *benchv1.EnvironmentStatus) {
			r.Status.Topology.ServerVersion = "8.0.17"
			e.MongoDB.Version = "8.0.17"
		}, false},
		{"another buildInfo version", func(_ *benchv1.BenchmarkRun, e *benchv1.EnvironmentStatus) {
			e.MongoDB.Version = "8.0.17"
		}, false},
		{"another build of the same version", func(_ *benchv1.BenchmarkRun, e *benchv1.EnvironmentStatus) {
			e.MongoDB.GitVersion = "ffffffffffffffffffffffffffffffffffffffff"
		}, false},
		// A run recorded before status.environment.mongodb.version existed
		// keeps its fingerprint: the version is the same buildInfo reply's
		// (status.topology.serverVersion).
		{"no buildInfo version recorded", func(_ *benchv1.BenchmarkRun, e *benchv1.EnvironmentStatus) {
			e.MongoDB.Version = ""
		}, true},
		{"another cache size", func(r *benchv1.BenchmarkRun, _ *benchv1.EnvironmentStatus) {
			r.Spec.Topology.WiredTigerCacheSizeGB = "2"
		}, false},
		{"another shard count", func(r *benchv1.BenchmarkRun, _ *benchv1.EnvironmentStatus) { r.Spec.Topology.Shards = ptr.To[int32](4) }, false},
		{"another kernel", func(_ *benchv1.BenchmarkRun, e *benchv1.EnvironmentStatus) { e.Node.KernelVersion = "6.9.0" }, false},
		{"a smaller node", func(_ *benchv1.BenchmarkRun, e *benchv1.EnvironmentStatus) {
			q := resource.MustParse("8")
			e.Node.AllocatableCPU = &q
		}, false},
		{"another loader image", func(_ *benchv1.BenchmarkRun, e *benchv1.EnvironmentStatus) { e.LoaderImage += "-rc1" }, false},
		{"another driver version", func(_ *benchv1.BenchmarkRun, e *benchv1.EnvironmentStatus) { e.DriverVersion = "v2.10.0" }, false},
		{"another workload property", func(_ *benchv1.BenchmarkRun, e *benchv1.EnvironmentStatus) {
			e.Phases[1].Properties["threadcount"] = "16"
		}, false},
		{"another loader count", func(r *benchv1.BenchmarkRun, _ *benchv1.EnvironmentStatus) { r.Spec.Loaders = 4 }, false},
		// The loaders' threads and target are flags (-threads, -target),
		// recorded under YCSB's names for them: a throttled run and an
		// unthrottled one, or runs at other thread counts, never compare.
		{"other threads", func(r *benchv1.BenchmarkRun, e *benchv1.EnvironmentStatus) {
			r.Spec.Phases[1].Threads = 16
			reprops(r, e)
		}, false},
		{"one thread, said", func(r *benchv1.BenchmarkRun, e *benchv1.EnvironmentStatus) {
			r.Spec.Phases[0].Threads = 1 // the default
			reprops(r, e)
		}, true},
		{"a target", func(r *benchv1.BenchmarkRun, e *benchv1.EnvironmentStatus) {
			r.Spec.Target = 2000
			reprops(r, e)
		}, false},
		{"a phase's target", func(r *benchv1.BenchmarkRun, e *benchv1.EnvironmentStatus) {
			r.Spec.Phases[1].Target = ptr.To[int64](2000)
			reprops(r, e)
		}, false},
		{"unthrottled, said", func(r *benchv1.BenchmarkRun, e *benchv1.EnvironmentStatus) {
			r.Spec.Phases[1].Target = ptr.To[int64](0)
			reprops(r, e)
		}, true},
		// mongodb.url, which carries retryWrites to the loaders, is left
		// out of the phases: the setting itself must count.
		{"another oplog size", func(r *benchv1.BenchmarkRun, _ *benchv1.EnvironmentStatus) { r.Spec.Topology.OplogSizeMB = 2048 }, false},
		{"the default oplog size, said", func(r *benchv1.BenchmarkRun, _ *benchv1.EnvironmentStatus) {
			r.Spec.Topology.OplogSizeMB = topology.DefaultOplogSizeMB
		}, true},
		{"retryable writes", func(r *benchv1.BenchmarkRun, e *benchv1.EnvironmentStatus) {
			r.Spec.Driver.RetryWrites = true
			reprops(r, e)
		}, false},
		// The network plugin enforces a NetworkPolicy on the node measured.
		{"no NetworkPolicy", func(r *benchv1.BenchmarkRun, _ *benchv1.EnvironmentStatus) {
			r.Spec.Security = &benchv1.SecuritySpec{NetworkPolicy: ptr.To(false)}
		}, false},
		{"a NetworkPolicy, said", func(r *benchv1.BenchmarkRun, _ *benchv1.EnvironmentStatus) {
			r.Spec.Security = &benchv1.SecuritySpec{NetworkPolicy: ptr.To(true)}
		}, true},
		// Access control costs a handshake per connection and a check per
		// command.
		{"auth", func(r *benchv1.BenchmarkRun, _ *benchv1.EnvironmentStatus) {
			r.Spec.Security = &benchv1.SecuritySpec{NetworkPolicy: ptr.To(true), Auth: true}
		}, false},
		{"no auth, said", func(r *benchv1.BenchmarkRun, _ *benchv1.EnvironmentStatus) {
			r.Spec.Security = &benchv1.SecuritySpec{NetworkPolicy: ptr.To(true), Auth: false}
		}, true},
		{"auth without a NetworkPolicy", func(r *benchv1.BenchmarkRun, _ *benchv1.EnvironmentStatus) {
			r.Spec.Security = &benchv1.SecuritySpec{NetworkPolicy: ptr.To(false), Auth: true}
		}, false},
	} {
		r, e := base()
		tc.mutate(r, e)
		if got := fp(r, e); (got == want) != tc.same {
			t.Errorf("%s: fingerprint %s, base %s; same = %v, want %v", tc.name, got, want, got == want, tc.same)
		}
	}
}

// TestFingerprintOfAStandalone: settings a standalone ignores do not set
// two standalone runs apart; the same settings do set sharded runs apart
// (TestFingerprint).
func TestFingerprintOfAStandalone(t *testing.T) {
	base := func() *benchv1.BenchmarkRun {
		return &benchv1.BenchmarkRun{
			ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns1"},
			Spec: benchv1.BenchmarkRunSpec{
				Topology: benchv1.TopologySpec{Mode: benchv1.TopologyStandalone, Image: "mongo:8.0.16", WiredTigerCacheSizeGB: "1"},
				Phases:   []benchv1.PhaseSpec{{Name: "load", Type: benchv1.PhaseLoad}},
			},
		}
	}
	fp := func(run *benchv1.BenchmarkRun) string {
		t.Helper()
		env := &benchv1.EnvironmentStatus{}
		for i := range run.Spec.Phases {
			env.Phases = append(env.Phases, benchv1.PhaseEnvironment{Name: run.Spec.Phases[i].Name,
				Properties: topology.PhaseProperties(run, &run.Spec.Phases[i], "cluster.local")})
		}
		f, err := fingerprint(run, env)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	want := fp(base())
	// The driver never makes a write to a standalone retryable.
	run := base()
	run.Spec.Driver.RetryWrites = true
	if got := fp(run); got != want {
		t.Errorf("retryWrites set a standalone run apart: %s, base %s", got, want)
	}
	// A standalone has no oplog.
	run = base()
	run.Spec.Topology.OplogSizeMB = 4096
	if got := fp(run); got != want {
		t.Errorf("oplogSizeMB set a standalone run apart: %s, base %s", got, want)
	}
}

// TestFingerprintOfASpreadRun: a Spread run records every node by role;
// the nodes' names, zones and the order they were listed in do not set
// runs apart, their facts, roles and the layout do.
func TestFingerprintOfASpreadRun(t *testing.T) {
	node := func(name, kernel string, roles ...benchv1.ProcessRole) benchv1.RoleNodeEnvironment {
		cpu := resource.MustParse("16")
		return benchv1.RoleNodeEnvironment{Roles: roles, NodeEnvironment: benchv1.NodeEnvironment{Name: name, Zone: "z-" + name,
			KernelVersion: kernel, Architecture: "amd64", AllocatableCPU: &cpu}}
	}
	base := func() (*benchv1.BenchmarkRun, *benchv1.EnvironmentStatus) {
		run := &benchv1.BenchmarkRun{
			ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns1"},
			Spec: benchv1.BenchmarkRunSpec{
				Topology:  benchv1.TopologySpec{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](2), Image: "mongo:8.0.16"},
				Placement: benchv1.PlacementSpec{Layout: benchv1.LayoutSpread},
				Phases:    []benchv1.PhaseSpec{{Name: "load", Type: benchv1.PhaseLoad}},
				Loaders:   1,
			},
		}
		env := &benchv1.EnvironmentStatus{Nodes: []benchv1.RoleNodeEnvironment{
			node("n1", "6.8", benchv1.RoleShard),
			node("n2", "6.9", benchv1.RoleShard),
			node("n3", "6.8", benchv1.RoleConfigServer, benchv1.RoleMongos),
		}}
		return run, env
	}
	fp := func(run *benchv1.BenchmarkRun, env *benchv1.EnvironmentStatus) string {
		t.Helper()
		f, err := fingerprint(run, env)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	want := fp(base())
	for _, tc := range []struct {
		name   string
		mutate func(*benchv1.BenchmarkRun, *benchv1.EnvironmentStatus)
		same   bool
	}{
		{"other node names and zones", func(_ *benchv1.BenchmarkRun, e *benchv1.EnvironmentStatus) {
			for i := range e.Nodes {
				e.Nodes[i].Name, e.Nodes[i].Zone = "x"+e.Nodes[i].Name, "elsewhere"
			}
		}, true},
		// The shards' nodes swapped: the same facts by role.
		{"listed in another order", func(_ *benchv1.BenchmarkRun, e *benchv1.EnvironmentStatus) {
			e.Nodes[0], e.Nodes[1] = e.Nodes[1], e.Nodes[0]
		}, true},
		{"a shard's node with another kernel", func(_ *benchv1.BenchmarkRun, e *benchv1.EnvironmentStatus) {
			e.Nodes[1].KernelVersion = "6.8"
		}, false},
		{"mongos beside a shard instead of the config server", func(_ *benchv1.BenchmarkRun, e *benchv1.EnvironmentStatus) {
			e.Nodes[0].Roles = []benchv1.ProcessRole{benchv1.RoleMongos, benchv1.RoleShard}
			e.Nodes[2].Roles = []benchv1.ProcessRole{benchv1.RoleConfigServer}
		}, false},
		{"a node fewer", func(_ *benchv1.BenchmarkRun, e *benchv1.EnvironmentStatus) {
			e.Nodes[0].Roles = append(e.Nodes[0].Roles, e.Nodes[2].Roles...)
			e.Nodes = e.Nodes[:2]
		}, false},
		{"spread over zones", func(r *benchv1.BenchmarkRun, _ *benchv1.EnvironmentStatus) {
			r.Spec.Placement.SpreadTopologyKey = "topology.kubernetes.io/zone"
		}, false},
		{"over hosts, said", func(r *benchv1.BenchmarkRun, _ *benchv1.EnvironmentStatus) {
			r.Spec.Placement.SpreadTopologyKey = topology.HostnameLabel
		}, true},
		// The same topology on one node of the same kind is another
		// benchmark: the shards share its CPUs.
		{"SameNode", func(r *benchv1.BenchmarkRun, e *benchv1.EnvironmentStatus) {
			r.Spec.Placement.Layout = benchv1.LayoutSameNode
			n := e.Nodes[0].NodeEnvironment
			e.Node, e.Nodes = &n, nil
		}, false},
	} {
		r, e := base()
		tc.mutate(r, e)
		if got := fp(r, e); (got == want) != tc.same {
			t.Errorf("%s: fingerprint %s, base %s; same = %v, want %v", tc.name, got, want, got == want, tc.same)
		}
	}
	// A SameNode run's fingerprint does not change for saying its layout.
	r, e := base()
	r.Spec.Placement.Layout, e.Nodes = "", nil
	unset := fp(r, e)
	r.Spec.Placement.Layout = benchv1.LayoutSameNode
	if got := fp(r, e); got != unset {
		t.Errorf("layout SameNode, said: %s, unset %s", got, unset)
	}
}
