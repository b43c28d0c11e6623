package validity

import (
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// healthy is a sharded run's status that passes every check: 2 shards and
// a config server with the caches the run configured (0.5 GB: 512 MiB;
// the config server's 0.25 GB: 256 MiB), no restart or election, spare
// connections, loaders well below their CPU.
func healthy() *benchv1.BenchmarkRun {
	run := &benchv1.BenchmarkRun{}
	run.Spec.Topology = benchv1.TopologySpec{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](2), WiredTigerCacheSizeGB: "0.5"}
	srv := func(role benchv1.ProcessRole, pod string, cache int64) benchv1.ServerSummary {
		s := benchv1.ServerSummary{Role: role, Pod: pod, Samples: 60, MinConnectionsAvailable: ptr.To[int64](800)}
		if cache > 0 {
			s.CacheMaxBytes = ptr.To(cache)
		}
		return s
	}
	run.Status.Results = []benchv1.PhaseResult{{
		Name: "S2",
		OperationStats: []benchv1.OperationResult{
			{Name: "READ", Count: 50_000, Errors: 20},
			{Name: "UPDATE", Count: 50_000, Errors: 30},
			{Name: "CLEANUP", Count: 32, Errors: 32}, // not a call of the workload
		},
		Server: []benchv1.ServerSummary{
			srv(benchv1.RoleConfigServer, "r-cfg", 256<<20), srv(benchv1.RoleShard, "r-shard0", 512<<20),
			srv(benchv1.RoleShard, "r-shard1", 512<<20), srv(benchv1.RoleMongos, "r-mongos", 0),
		},
		LoaderStats: []benchv1.LoaderResult{
			{Index: 0, Pod: "r-s2-0-x", CPUPercent: ptr.To(41.5), ThrottledPercent: ptr.To(0.0), CPULimit: "2 (cgroup)"},
			{Index: 1, Pod: "r-s2-1-x", CPUPercent: ptr.To(38.0), CPULimit: "8 (cpus)"},
		},
	}}
	return run
}

func TestHealthyRunIsValid(t *testing.T) {
	run := healthy()
	if p := Check(run); len(p) != 0 {
		t.Fatalf("problems %+v", p)
	}
	if u := Unchecked(run); len(u) != 0 {
		t.Fatalf("unchecked %v", u)
	}
	if s := Summary(nil, nil, nil); !strings.Contains(s, "no check failed") {
		t.Fatal(s)
	}
}

func TestEachCheck(t *testing.T) {
	for _, c := range []struct {
		name   string
		mangle func(*benchv1.BenchmarkRun)
		want   []benchv1.Reason
		text   string
	}{
		{"errors above 0.1%", func(r *benchv1.BenchmarkRun) { r.Status.Results[0].OperationStats[1].Errors = 81 },
			[]benchv1.Reason{benchv1.ReasonTooManyErrors}, "phase S2: 0.101% of the database calls failed (101 of 100000)"},
		{"buffered inserts the flush lost", func(r *benchv1.BenchmarkRun) { r.Status.Results[0].LostInserts = 200 },
			[]benchv1.Reason{benchv1.ReasonTooManyErrors}, "0.25% of the database calls failed (250 of 100000)"},
		{"a lower threshold", func(r *benchv1.BenchmarkRun) { r.Spec.Validity.MaxErrorPercent = ptr.To(0.01) },
			[]benchv1.Reason{benchv1.ReasonTooManyErrors}, "above validity.maxErrorPercent 0.01%"},
		{"a restart", func(r *benchv1.BenchmarkRun) { r.Status.Results[0].Server[1].Restarts = 1 },
			[]benchv1.Reason{benchv1.ReasonProcessRestarted}, "shard r-shard0 restarted 1 time(s)"},
		{"an election", func(r *benchv1.BenchmarkRun) { r.Status.Results[0].Server[2].PrimaryChanges = 2 },
			[]benchv1.Reason{benchv1.ReasonPrimaryChanged}, "shard r-shard1 saw its replica set's primary change 2 time(s)"},
		{"a cache of the default size", func(r *benchv1.BenchmarkRun) { r.Status.Results[0].Server[1].CacheMaxBytes = ptr.To[int64](7 << 30) },
			[]benchv1.Reason{benchv1.ReasonCacheSizeMismatch}, "shard r-shard0's WiredTiger cache is 7168 MiB, the run configured 512 MiB"},
		{"the config server's cache", func(r *benchv1.BenchmarkRun) { r.Status.Results[0].Server[0].CacheMaxBytes = ptr.To[int64](512 << 20) },
			[]benchv1.Reason{benchv1.ReasonCacheSizeMismatch}, "configsvr r-cfg's WiredTiger cache is 512 MiB, the run configured 256 MiB"},
		{"a cache that changed", func(r *benchv1.BenchmarkRun) { r.Status.Results[0].Server[2].CacheMaxBytesChanged = true },
			[]benchv1.Reason{benchv1.ReasonCacheSizeMismatch}, "changed size during the phase"},
		{"out of connections", func(r *benchv1.BenchmarkRun) {
			r.Status.Results[0].Server[3].MinConnectionsAvailable = ptr.To[int64](0)
		},
			[]benchv1.Reason{benchv1.ReasonConnectionLimit}, "mongos r-mongos ran out of connections"},
		{"a busy loader", func(r *benchv1.BenchmarkRun) { r.Status.Results[0].LoaderStats[1].CPUPercent = ptr.To(93.2) },
			[]benchv1.Reason{benchv1.ReasonLoaderSaturated}, "loader 1 (r-s2-1-x) used 93.2% of the CPU it may use (8 (cpus))"},
		{"a throttled loader", func(r *benchv1.BenchmarkRun) { r.Status.Results[0].LoaderStats[0].ThrottledPercent = ptr.To(12.0) },
			[]benchv1.Reason{benchv1.ReasonLoaderSaturated}, "loader 0 (r-s2-0-x) was CPU-throttled in 12% of its quota's periods"},
		{"everything, in order", func(r *benchv1.BenchmarkRun) {
			res := &r.Status.Results[0]
			res.LoaderStats[0].ThrottledPercent = ptr.To(12.0)
			res.Server[3].MinConnectionsAvailable = ptr.To[int64](0)
			res.Server[1].Restarts = 1
			res.OperationStats[0].Errors = 5000
		}, []benchv1.Reason{benchv1.ReasonTooManyErrors, benchv1.ReasonProcessRestarted, benchv1.ReasonConnectionLimit, benchv1.ReasonLoaderSaturated}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := healthy()
			c.mangle(run)
			probs := Check(run)
			var got []benchv1.Reason
			for _, p := range probs {
				got = append(got, p.Reason)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("reasons %v, want %v: %+v", got, c.want, probs)
			}
			if sum := Summary(probs, nil, nil); !strings.Contains(sum, c.text) {
				t.Errorf("summary %q lacks %q", sum, c.text)
			}
		})
	}
}

// TestCacheBytesAsMongodSizesIt: floor(1024 × GB) MiB.
func TestCacheBytesAsMongodSizesIt(t *testing.T) {
	for gb, want := range map[string]int64{"1": 1 << 30, "0.25": 256 << 20, "1.3": 1331 << 20, "10": 10 << 30} {
		if got, ok := cacheBytes(gb); !ok || got != want {
			t.Errorf("%s GB: %d, want %d", gb, got, want)
		}
	}
	run := healthy()
	run.Spec.Topology.WiredTigerCacheSizeGB = ""
	if got := expectedCacheBytes(run)[benchv1.RoleShard]; got != 1<<30 {
		t.Errorf("the default cache: %d", got)
	}
}

// TestWithoutFigures: telemetry off or an old loader: nothing is found,
// and the summary says what was not checked.
func TestWithoutFigures(t *testing.T) {
	run := healthy()
	run.Status.Results[0].Server = nil
	run.Status.Results[0].LoaderStats = nil
	if p := Check(run); len(p) != 0 {
		t.Fatalf("problems %+v", p)
	}
	sum := Summary(nil, nil, Unchecked(run))
	if !strings.Contains(sum, "not checked: restarts, elections, cache size and connection limit (no telemetry in phase S2); loader CPU") {
		t.Fatal(sum)
	}
}

// TestDisruptionErrorsDoNotCount: the calls a disruption made fail (a
// failover's labels, in the 30 s after a disruption that was sent) are
// what it measures, not a fault of the run; other errors in the same
// window, and the errors of a disruption that was never sent, still count.
func TestDisruptionErrorsDoNotCount(t *testing.T) {
	sent := metav1.NewMicroTime(time.Date(2026, 11, 1, 10, 0, 2, 0, time.UTC))
	for _, c := range []struct {
		name    string
		outcome benchv1.DisruptionOutcome
		errors  []benchv1.DisruptionErrorCount
		want    string // "" = valid
	}{
		{"a stepdown's refusals", benchv1.DisruptionOutcome{State: benchv1.DisruptionDone, Sent: &sent},
			[]benchv1.DisruptionErrorCount{{Label: "NotWritablePrimary", Count: 900}, {Label: "NetworkError", Count: 45}, {Label: "Code11602", Count: 5}}, ""},
		{"a duplicate key in the window still counts", benchv1.DisruptionOutcome{State: benchv1.DisruptionDone, Sent: &sent},
			[]benchv1.DisruptionErrorCount{{Label: "NotWritablePrimary", Count: 850}, {Label: "DuplicateKey", Count: 100}},
			"0.12% of the database calls failed (120 of 100000; 850 more failed in disruptions' windows and are not counted)"},
		{"an action never sent explains nothing", benchv1.DisruptionOutcome{State: benchv1.DisruptionFailed, Error: "not sent: cannot create the ledger"},
			[]benchv1.DisruptionErrorCount{{Label: "NotWritablePrimary", Count: 950}}, "0.97% of the database calls failed (970 of 100000)"},
		{"unknown: sent by a loader that was replaced", benchv1.DisruptionOutcome{State: benchv1.DisruptionUnknown, Sent: &sent},
			[]benchv1.DisruptionErrorCount{{Label: "InterruptedDueToReplStateChange", Count: 950}}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := healthy()
			res := &run.Status.Results[0]
			res.OperationStats[1].Errors = 950 // 970 failed calls of 100000 (20 reads, 950 updates)
			res.Disruptions = []benchv1.DisruptionResult{{Index: 0, Action: benchv1.DisruptionStepDown, Outcome: c.outcome, Errors: c.errors}}
			p := Check(run)
			switch {
			case c.want == "" && len(p) != 0:
				t.Fatalf("problems %+v, want none", p)
			case c.want != "" && (len(p) != 1 || p[0].Reason != benchv1.ReasonTooManyErrors || !strings.Contains(p[0].Message, c.want)):
				t.Fatalf("problems %+v, want %q", p, c.want)
			}
		})
	}
}
