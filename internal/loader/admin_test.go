package loader

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/mongoadmin"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/topology"
	"github.com/mongobench/mongobench/internal/ycsb"
)

func rangedRun(edit func(*benchv1.BenchmarkRun)) *benchv1.BenchmarkRun {
	run := &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Name: "rg", Namespace: "bench", UID: "uid-1"},
		Spec: benchv1.BenchmarkRunSpec{
			Topology: benchv1.TopologySpec{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](3), ShardKey: benchv1.ShardKeyRanged,
				Image: "mongo:8.0.4", WiredTigerCacheSizeGB: "0.25"},
			Workload: benchv1.WorkloadSpec{Preset: "a"},
			Phases: []benchv1.PhaseSpec{
				{Name: "load", Type: benchv1.PhaseLoad, Threads: 8, BatchSize: ptr.To[int32](100)},
				{Name: "S3", Type: benchv1.PhaseRun, Threads: 8, Workload: &benchv1.WorkloadParameters{InsertProportion: ptr.To(0.25)}},
				{Name: "S4", Type: benchv1.PhaseRun, Threads: 8, Workload: &benchv1.WorkloadParameters{InsertProportion: ptr.To(0.1)}},
			},
			Loaders: 2,
		},
	}
	if edit != nil {
		edit(run)
	}
	return run
}

// TestBootstrapJobKeysAreTheLoadPhases is the contract between the Jobs:
// the bootstrap Job's command line, parsed by `loader bootstrap`, gives the
// same key set as the Load phase Job's command line parsed by `loader
// load`, which is the union of what each of its loaders inserts.
func TestBootstrapJobKeysAreTheLoadPhases(t *testing.T) {
	cfg := topology.Config{LoaderImage: "loader:test", ClusterDomain: "cluster.local", BootstrapTimeout: 8 * time.Minute}
	env := Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }}
	for _, tc := range []struct {
		name string
		edit func(*benchv1.BenchmarkRun)
	}{
		{"the preset's recordcount", nil},
		{"recordCount, ordered, zeroPadding 12, 3 loaders", func(r *benchv1.BenchmarkRun) {
			r.Spec.Workload.RecordCount = ptr.To[int64](1_000_003)
			r.Spec.Workload.InsertOrder = "ordered"
			r.Spec.Workload.ZeroPadding = ptr.To[int32](12)
			r.Spec.Loaders = 3
		}},
		{"no preset, one loader, other properties", func(r *benchv1.BenchmarkRun) {
			r.Spec.Workload = benchv1.WorkloadSpec{RecordCount: ptr.To[int64](5000), InsertOrder: "hashed",
				FieldCount: ptr.To[int32](8), FieldLength: ptr.To[int32](250),
				WorkloadParameters: benchv1.WorkloadParameters{Properties: map[string]benchv1.PropertyValue{"maxscanlength": "10"}}}
			r.Spec.Loaders = 1
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := rangedRun(tc.edit)
			bargs := topology.BootstrapJob(run, cfg).Spec.Template.Spec.Containers[0].Args
			if bargs[0] != "bootstrap" {
				t.Fatalf("bootstrap Job runs %q", bargs[0])
			}
			b, err := parseBootstrapArgs(bargs[1:], env)
			if err != nil {
				t.Fatalf("loader bootstrap refuses its Job's arguments %v: %v", bargs, err)
			}
			if b.loadProps == nil {
				t.Fatalf("no Load phase properties in %v", bargs)
			}
			got, err := ycsb.LoadKeys(b.loadProps)
			if err != nil {
				t.Fatal(err)
			}

			load := &run.Spec.Phases[0]
			largs := topology.PhaseJob(run, load, time.Hour, cfg).Spec.Template.Spec.Containers[0].Args
			if largs[0] != "load" {
				t.Fatalf("Load phase Job runs %q", largs[0])
			}
			_, p, err := parsePhaseArgs(phaseLoad, largs[1:], env)
			if err != nil {
				t.Fatalf("loader load refuses its Job's arguments: %v", err)
			}
			want, err := ycsb.LoadKeys(p)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("bootstrap key set %+v, Load phase key set %+v", got, want)
			}

			// Loader by loader, as each pod of the Load phase Job runs.
			next := want.Start
			for i := range max(int(run.Spec.Loaders), 1) {
				pi := p.Clone()
				pi.Set("loader.index", strconv.Itoa(i))
				w, err := ycsb.NewWorkload(pi)
				if err != nil {
					t.Fatal(err)
				}
				start, count := w.LoadRange()
				if start != next {
					t.Errorf("loader %d inserts from %d, want %d", i, start, next)
				}
				next = start + count
			}
			if next != want.Start+want.Count {
				t.Errorf("the loaders insert up to %d, the key set up to %d", next, want.Start+want.Count)
			}
		})
	}

	// A hashed key gets no Load phase properties, and needs none.
	run := rangedRun(func(r *benchv1.BenchmarkRun) { r.Spec.Topology.ShardKey = benchv1.ShardKeyHashed })
	bargs := topology.BootstrapJob(run, cfg).Spec.Template.Spec.Containers[0].Args
	if b, err := parseBootstrapArgs(bargs[1:], env); err != nil || b.loadProps != nil {
		t.Errorf("hashed: %v, load properties %v", err, b)
	}
}

func TestBootstrapRangedUsage(t *testing.T) {
	sharded := []string{"bootstrap", "--mode", "sharded", "--config-server", "cfg=c:1", "--shard", "s0=s:1", "--shard", "s1=t:1",
		"--shard", "s2=u:1", "--mongos", "m:1"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"ranged without the Load phase", []string{"--shard-key", "ranged"}, "needs the Load phase's properties"},
		{"properties for a hashed key", []string{"-p", "recordcount=10"}, "-P and -p (the Load phase's properties) are for --shard-key ranged"},
		{"fewer records than shards", []string{"--shard-key", "ranged", "-p", "recordcount=2"}, "inserts 2 records, fewer than one per shard"},
		{"unknown workload", []string{"--shard-key", "ranged", "-P", "workloadz"}, "not a built-in workload"},
		{"bad property", []string{"--shard-key", "ranged", "-p", "recordcount=many"}, `recordcount: "many" is not an integer`},
		{"unlimited load", []string{"--shard-key", "ranged", "-p", "insertorder=ordered"}, "its keys are not known in advance"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr, _ := runMain(t, nil, nil, append(append([]string(nil), sharded...), tc.args...)...)
			if code != ExitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant %q", code, stderr, tc.want)
			}
		})
	}
	b, err := parseBootstrapArgs(append(sharded[1:], "--shard-key", "ranged", "-P", "a", "-p", "recordcount=999"),
		Env{Stderr: io.Discard})
	if err != nil || b.topo.SplitPoints != nil || b.loadProps == nil {
		t.Errorf("ranged: %+v, %v; want load properties and no split points yet", b, err)
	}
}

// TestSplitPointsLogged: the loader computes the split points from the Load
// phase's properties and logs them, and each shard's range with its share
// of the loaded records.
func TestSplitPointsLogged(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	p, err := ycsb.LoadProperties([]string{"a"}, []string{"recordcount=10000", "insertorder=ordered", "loader.count=2"})
	if err != nil {
		t.Fatal(err)
	}
	keys, plan, err := splitPoints(context.Background(), p, 3, time.Minute, log)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan) != 2 || plan[0].Rank != 3334 || plan[1].Rank != 6667 {
		t.Fatalf("plan %+v", plan)
	}
	report := &results.Bootstrap{Shards: []results.ShardChunks{
		{Name: "shard0", Chunks: 1, Range: &results.KeyRange{Min: results.MinKeyBound, Max: plan[0].Key}},
		{Name: "shard1", Chunks: 1, Range: &results.KeyRange{Min: plan[0].Key, Max: plan[1].Key}},
		{Name: "shard2", Chunks: 1, Range: &results.KeyRange{Min: plan[1].Key, Max: results.MaxKeyBound}},
	}}
	logShardRanges(log, report, keys, plan)
	out := buf.String()
	for _, want := range []string{
		`msg="computing split points" keys="10000 keys from key number 0 (insertorder ordered, zeropadding 1)" ranges=3`,
		`msg="split points" points="[` + plan[0].Key + " " + plan[1].Key + `]"`,
		`shard=shard0 min=$minKey max=` + plan[0].Key + ` chunks=1 loadRecords=3334`,
		`shard=shard1 min=` + plan[0].Key + ` max=` + plan[1].Key + ` chunks=1 loadRecords=3333`,
		`shard=shard2 min=` + plan[1].Key + ` max=$maxKey chunks=1 loadRecords=3333`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}

// TestBootstrapJobReplicaSet: `loader bootstrap` reads the ReplicaSet
// topology's Job as the controller writes it: every member, member 0 first.
func TestBootstrapJobReplicaSet(t *testing.T) {
	cfg := topology.Config{LoaderImage: "loader:test", ClusterDomain: "cluster.local", BootstrapTimeout: 8 * time.Minute}
	env := Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }}
	run := rangedRun(func(r *benchv1.BenchmarkRun) {
		r.Spec.Topology = benchv1.TopologySpec{Mode: benchv1.TopologyReplicaSet, Members: ptr.To[int32](3), Image: "mongo:8.0.4"}
	})
	bargs := topology.BootstrapJob(run, cfg).Spec.Template.Spec.Containers[0].Args
	b, err := parseBootstrapArgs(bargs[1:], env)
	if err != nil {
		t.Fatalf("loader bootstrap refuses its Job's arguments %v: %v", bargs, err)
	}
	var want []string
	for _, p := range topology.Processes(run) {
		want = append(want, topology.Address(run, p, cfg.ClusterDomain))
	}
	if b.topo.Mode != mongoadmin.ModeReplicaSet || b.topo.ReplicaSet.Name != topology.ReplicaSetName ||
		strings.Join(b.topo.ReplicaSet.Members(), " ") != strings.Join(want, " ") {
		t.Errorf("parsed %+v, want set %s of %v", b.topo, topology.ReplicaSetName, want)
	}
	if err := b.topo.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}
