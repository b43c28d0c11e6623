package v1alpha1_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/sweep"
	"github.com/mongobench/mongobench/internal/testutil/kube"
)

// sweepManifest builds a BenchmarkSweep manifest from a spec body (YAML indented by
// two spaces) under a standalone template.
func sweepManifest(name, body string) string {
	return `apiVersion: bench.mongobench.io/v1alpha1
kind: BenchmarkSweep
metadata: {name: ` + name + `}
spec:
  template:
    topology: {mode: Standalone}
    workload: {preset: a}
` + body
}

func TestSweepDefaults(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	if _, err := create(t, c, ns, sweepManifest("defaults", `  axes:
  - {name: threads, threads: [1, 2]}
`)); err != nil {
		t.Fatal(err)
	}
	var sw benchv1.BenchmarkSweep
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "defaults"}, &sw); err != nil {
		t.Fatal(err)
	}
	s := sw.Spec
	checks := []struct {
		what      string
		got, want any
	}{
		{"repetitions", s.Repetitions, int32(1)},
		{"order", s.Order, benchv1.SweepSequential},
		{"parallelism", s.Parallelism, int32(1)},
		{"failurePolicy", s.FailurePolicy, benchv1.SweepContinue},
		// The template is defaulted exactly as a run's spec.
		{"template phases", len(s.Template.Phases), 2},
		{"template image", s.Template.Topology.Image, "mongo:8.0.16"},
		{"template exclusive", s.Template.Placement.Exclusive != nil && *s.Template.Placement.Exclusive, true},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s: got %v, want %v", ch.what, ch.got, ch.want)
		}
	}
}

func TestSweepsAreValidated(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	cases := []struct {
		name, manifest string
		want           string // "" = accepted
	}{
		{"generic and shorthand axes", sweepManifest("ok", `  axes:
  - name: topologies
    topologies: [{mode: Standalone}, {mode: Sharded, shards: 2}, {mode: Sharded, shards: 1}, {name: ranged-4, mode: Sharded, shards: 4, shardKey: Ranged}]
  - {name: pool, maxPoolSize: [0, 32]}
  - name: validator
    values:
    - {name: none}
    - {name: jsonSchema, patch: {collection: {validator: {$jsonSchema: {bsonType: object}}}}}
  baseline: {topologies: standalone, pool: unbounded, validator: none}
`), ""},
		{"a regression gate over the cells, pruned", sweepManifest("gated", `  axes: [{name: threads, threads: [1, 2]}]
  compare:
    baseline: {sweepRef: {name: last-week}}
    metrics: [{phase: run, metric: throughput}]
  historyLimit: 10
`), ""},
		{"historyLimit 0", sweepManifest("limit-0", `  axes: [{name: threads, threads: [1]}]
  historyLimit: 0
`), "should be greater than or equal to 1"},
		{"256 runs", sweepManifest("max", `  axes:
  - {name: threads, threads: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]}
  - {name: loaders, loaders: [1, 2, 3, 4, 5, 6, 7, 8]}
  repetitions: 2
`), ""},
		{"257 runs", sweepManifest("too-many", `  axes:
  - {name: threads, threads: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]}
  - {name: loaders, loaders: [1, 2, 3, 4, 5, 6, 7, 8]}
  - {name: w, writeConcern: ["1"]}
  repetitions: 3
`), "at most 256 BenchmarkRuns"},
		{"the template is validated as a run", `apiVersion: bench.mongobench.io/v1alpha1
kind: BenchmarkSweep
metadata: {name: bad-template}
spec:
  template:
    topology: {mode: Standalone, shards: 2}
  axes: [{name: threads, threads: [1]}]
`, "shards can only be set when mode is Sharded"},
		{"name too long", sweepManifest(strings.Repeat("s", 33), `  axes: [{name: threads, threads: [1]}]
`), "at most 32 characters"},
		// Its runs are <sweep>-<cell>-r<k>: the sweep's name must make
		// them DNS-1035 labels, as a run's name must be.
		{"name with a dot", sweepManifest("study.v2", `  axes: [{name: threads, threads: [1]}]
`), "metadata.name of a sweep must be a DNS-1035 label"},
		{"name with a leading digit", sweepManifest("2study", `  axes: [{name: threads, threads: [1]}]
`), "metadata.name of a sweep must be a DNS-1035 label"},
		{"uppercase name", sweepManifest("Study", `  axes: [{name: threads, threads: [1]}]
`), "metadata.name of a sweep must be a DNS-1035 label"},
		{"name ending with a digit", sweepManifest("study2", `  axes: [{name: threads, threads: [1]}]
`), ""},
		{"no axes", sweepManifest("no-axes", `  axes: []
`), "should have at least 1 items"},
		{"two kinds in one axis", sweepManifest("two-kinds", `  axes: [{name: x, threads: [1], loaders: [2]}]
`), "exactly one of values, topologies"},
		{"empty axis", sweepManifest("empty-axis", `  axes: [{name: x}]
`), "exactly one of values, topologies"},
		{"duplicate axis names", sweepManifest("dup-axes", `  axes: [{name: x, threads: [1]}, {name: x, loaders: [2]}]
`), "axis names must be unique"},
		{"duplicate value names", sweepManifest("dup-values", `  axes:
  - name: v
    values: [{name: a}, {name: a, patch: {loaders: 2}}]
`), "value names must be unique within an axis"},
		{"duplicate threads", sweepManifest("dup-threads", `  axes: [{name: t, threads: [1, 1]}]
`), "Duplicate value"},
		{"duplicate topologies", sweepManifest("dup-topo", `  axes:
  - name: t
    topologies: [{mode: Sharded, shards: 2}, {mode: Sharded, shards: 2, shardKey: Ranged}]
`), "topologies must be unique within an axis"},
		{"sharded topology without shards", sweepManifest("topo-noshards", `  axes: [{name: t, topologies: [{mode: Sharded}]}]
`), "shards is required when mode is Sharded"},
		{"patch with an unknown key (the controller says so)", sweepManifest("bad-patch", `  axes:
  - name: v
    values: [{name: a, patch: {threads: 4}}]
`), ""}, // strictly decoded by the controller: InvalidSweep
		{"patch that is not an object", sweepManifest("patch-list", `  axes:
  - name: v
    values: [{name: a, patch: [1, 2]}]
`), "must be of type object"},
		{"bad value name", sweepManifest("bad-value-name", `  axes:
  - name: v
    values: [{name: "two words"}]
`), "should match"},
		{"baseline names no axis", sweepManifest("baseline-axis", `  axes: [{name: threads, threads: [1, 2]}]
  baseline: {shards: standalone}
`), "baseline names an axis the sweep does not have: shards"},
		{"baseline names no value (the controller says so)", sweepManifest("baseline-value", `  axes: [{name: threads, threads: [1, 2]}]
  baseline: {threads: "3"}
`), ""}, // checked by the controller: InvalidSweep
		{"seed without shuffle", sweepManifest("seed", `  axes: [{name: threads, threads: [1, 2]}]
  seed: 7
`), "seed is only used with order: Shuffled"},
		{"repetitions above 10", sweepManifest("reps", `  axes: [{name: threads, threads: [1]}]
  repetitions: 11
`), "should be less than or equal to 10"},
		{"bad write concern", sweepManifest("bad-w", `  axes: [{name: w, writeConcern: ["all"]}]
`), "should match"},
		{"unknown order", sweepManifest("order", `  axes: [{name: threads, threads: [1]}]
  order: Random
`), `Unsupported value: "Random"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := create(t, c, ns, tc.manifest)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("rejected: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("accepted, want an error containing %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

// TestSweepSpecIsFrozenOnceRunning: edits after the first run was created
// would make the runs describe different studies.
func TestSweepSpecIsFrozenOnceRunning(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	if _, err := create(t, c, ns, sweepManifest("frozen", `  axes: [{name: threads, threads: [1, 2]}]
`)); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var sw benchv1.BenchmarkSweep
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "frozen"}, &sw); err != nil {
		t.Fatal(err)
	}
	sw.Spec.Repetitions = 2
	if err := c.Update(ctx, &sw); err != nil {
		t.Fatalf("a Pending sweep's spec should be editable: %v", err)
	}
	sw.Status.Phase = benchv1.SweepRunning
	if err := c.Status().Update(ctx, &sw); err != nil {
		t.Fatal(err)
	}
	sw.Spec.Repetitions = 3
	err := c.Update(ctx, &sw)
	if err == nil || !strings.Contains(err.Error(), "spec cannot be changed once the sweep has started (phase Running)") {
		t.Fatalf("got %v", err)
	}
}

// TestSweepSamplesExpandToValidRuns: every cell of every sample sweep is a
// BenchmarkRun the API server accepts (server-side dry run, as the
// controller checks before creating anything).
func TestSweepSamplesExpandToValidRuns(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	files, err := filepath.Glob(filepath.Join(kube.RepoRoot(), "config", "samples", "bench_v1alpha1_benchmarksweep_*.yaml"))
	if err != nil || len(files) < 4 {
		t.Fatalf("sweep samples: %v %v", files, err)
	}
	ctx := context.Background()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		u, err := create(t, c, ns, string(b))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var sw benchv1.BenchmarkSweep
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: u.GetName()}, &sw); err != nil {
			t.Fatal(err)
		}
		axes, cells, err := sweep.Expand(&sw.Spec)
		if err == nil {
			err = sweep.CheckSize(&sw.Spec, axes, cells)
		}
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(f), err)
		}
		for _, cell := range cells {
			run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: sweep.RunName(sw.Name, cell.Index, 1)}, Spec: cell.Spec}
			if err := c.Create(ctx, run, client.DryRunAll); err != nil {
				t.Errorf("%s: cell %d (%s): %v", filepath.Base(f), cell.Index, cell.Describe(), err)
			}
		}
		t.Logf("%s: %d cells × %d repetitions, all valid", filepath.Base(f), len(cells), sw.Spec.Repetitions)
	}
}

// TestFailoverSample: the failover study (study-failover) is what
// docs/studies.md says: two cells, retryWrites on and off (the names
// quoted, or YAML would read booleans), each a 3-member replica set whose
// Run phase, at a fixed target after a timed warm-up, steps the primary
// down twice inside its measured window, 3 repetitions.
func TestFailoverSample(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	b, err := os.ReadFile(filepath.Join(kube.RepoRoot(), "config", "samples", "bench_v1alpha1_benchmarksweep_study-failover.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := create(t, c, ns, string(b)); err != nil {
		t.Fatal(err)
	}
	var sw benchv1.BenchmarkSweep
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "study-failover"}, &sw); err != nil {
		t.Fatal(err)
	}
	_, cells, err := sweep.Expand(&sw.Spec)
	if err != nil || len(cells) != 2 || sw.Spec.Repetitions != 3 {
		t.Fatalf("%d cells × %d repetitions: %v", len(cells), sw.Spec.Repetitions, err)
	}
	for _, cell := range cells {
		s := cell.Spec
		if want := cell.Name() == "on"; s.Driver.RetryWrites != want || (cell.Name() != "on" && cell.Name() != "off") {
			t.Errorf("cell %q: retryWrites %v", cell.Name(), s.Driver.RetryWrites)
		}
		if s.Topology.Mode != benchv1.TopologyReplicaSet || s.Topology.Members == nil || *s.Topology.Members != 3 {
			t.Errorf("cell %s: topology %+v", cell.Name(), s.Topology)
		}
		ph := s.Phases[len(s.Phases)-1]
		if ph.Type != benchv1.PhaseRun || ph.Target == nil || *ph.Target <= 0 || ph.Warmup == nil || ph.Warmup.Duration == nil ||
			ph.MaxExecutionTime == nil || len(ph.Disruptions) < 1 {
			t.Fatalf("cell %s: phase %+v", cell.Name(), ph)
		}
		// A StepDown in the middle of the measured window, then a
		// KillPrimary, each with its 30 s of series inside it.
		window := ph.MaxExecutionTime.Duration
		if len(ph.Disruptions) != 2 || ph.Disruptions[0].Action != benchv1.DisruptionStepDown || ph.Disruptions[0].At.Duration != window/2 ||
			ph.Disruptions[1].Action != benchv1.DisruptionKillPrimary {
			t.Errorf("cell %s: disruptions %+v in a window of %v: want a StepDown in the middle, then a KillPrimary", cell.Name(), ph.Disruptions, window)
		}
		for _, d := range ph.Disruptions {
			if d.At.Duration+30*time.Second > window {
				t.Errorf("cell %s: disruption %+v in a window of %v", cell.Name(), d, window)
			}
		}
	}
	if got := sw.Spec.Baseline["retryWrites"]; got != "off" {
		t.Errorf("baseline %v", sw.Spec.Baseline)
	}
}

// TestShardFailoverSample: the sharded failover study
// (study-shard-failover) is what docs/studies.md says: one cell per
// fault, each a cluster of two shards and a config server of 3 members
// whose Run phase has one disruption in its window: a StepDown of shard
// 1, a StepDown of the config server, a KillMongos; 3 repetitions.
func TestShardFailoverSample(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	b, err := os.ReadFile(filepath.Join(kube.RepoRoot(), "config", "samples", "bench_v1alpha1_benchmarksweep_study-shard-failover.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := create(t, c, ns, string(b)); err != nil {
		t.Fatal(err)
	}
	var sw benchv1.BenchmarkSweep
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "study-shard-failover"}, &sw); err != nil {
		t.Fatal(err)
	}
	_, cells, err := sweep.Expand(&sw.Spec)
	if err != nil || len(cells) != 3 || sw.Spec.Repetitions != 3 {
		t.Fatalf("%d cells × %d repetitions: %v", len(cells), sw.Spec.Repetitions, err)
	}
	want := map[string]string{"shard-stepdown": "StepDown shard1", "configserver-stepdown": "StepDown configServer", "mongos-kill": "KillMongos"}
	for _, cell := range cells {
		s := cell.Spec
		if s.Topology.Mode != benchv1.TopologySharded || *s.Topology.Shards != 2 || *s.Topology.ShardMembers != 3 || *s.Topology.ConfigServerMembers != 3 {
			t.Errorf("cell %s: topology %+v", cell.Name(), s.Topology)
		}
		ph := s.Phases[len(s.Phases)-1]
		if ph.Type != benchv1.PhaseRun || ph.Target == nil || ph.Warmup == nil || ph.Warmup.Duration == nil || ph.MaxExecutionTime == nil ||
			len(ph.Disruptions) != 1 {
			t.Fatalf("cell %s: phase %+v", cell.Name(), ph)
		}
		d := ph.Disruptions[0]
		got := string(d.Action)
		switch {
		case d.Target == nil:
		case d.Target.Type == intstr.Int:
			got += " shard" + d.Target.String()
		default:
			got += " " + d.Target.String()
		}
		if got != want[cell.Name()] || d.At.Duration+30*time.Second > ph.MaxExecutionTime.Duration {
			t.Errorf("cell %s: disruption %s at %v in a window of %v, want %s with its 30 s inside", cell.Name(), got, d.At.Duration,
				ph.MaxExecutionTime.Duration, want[cell.Name()])
		}
	}
}
