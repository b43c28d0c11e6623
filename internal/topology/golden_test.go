package topology

import (
	"bytes"
	"flag"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	goldenfile "github.com/mongobench/mongobench/internal/testutil/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenRuns are runs whose every database pod and Job is kept in
// testdata/golden: together they use every role (standalone, replica-set
// member, config server, shard, mongos) and every kind of Job
// (bootstrap, validator, load, run, grow), with telemetry on and off.
func goldenRuns() map[string]*benchv1.BenchmarkRun {
	sa := standalone()
	sa.Spec.Collection = &benchv1.CollectionSpec{Validator: runtime.RawExtension{Raw: []byte(`{"$jsonSchema":{"required":["field0"]}}`)},
		ValidationLevel: "strict", ValidationAction: "warn"}
	sa.Spec.Workload = benchv1.WorkloadSpec{Preset: "a", RecordCount: ptr.To[int64](1000)}
	sa.Spec.Phases = []benchv1.PhaseSpec{{Name: "load", Type: benchv1.PhaseLoad, Threads: 4}, {Name: "a", Type: benchv1.PhaseRun, Threads: 8}}
	sa.Spec.Loaders = 2

	rs := replicaSet(nil)
	rs.Spec.Telemetry.Enabled = ptr.To(false)
	rs.Spec.Workload = benchv1.WorkloadSpec{Preset: "b"}
	rs.Spec.Phases = []benchv1.PhaseSpec{{Name: "load", Type: benchv1.PhaseLoad}, {Name: "b", Type: benchv1.PhaseRun, Threads: 16,
		Disruptions: []benchv1.Disruption{{At: metav1.Duration{Duration: 30 * time.Second}, Action: benchv1.DisruptionStepDown},
			{At: metav1.Duration{Duration: 90 * time.Second}, Action: benchv1.DisruptionStepDown, StepDownSecs: ptr.To[int32](30)}}}}

	ms := issueExample()
	ms.Spec.Topology.Shards = ptr.To[int32](2)
	ms.Spec.Topology.ShardMembers = ptr.To[int32](2)
	ms.Spec.Topology.ConfigServerMembers = ptr.To[int32](3)
	ms.Spec.Topology.MongosResources = &ms.Spec.Topology.Resources
	ms.Spec.Topology.Storage.Size = ptr.To(resource.MustParse("20Gi"))

	grow := standalone()
	grow.Name = "grow"
	grow.Spec.Phases = []benchv1.PhaseSpec{{Name: "grow", Type: benchv1.PhaseGrow,
		Grow: &benchv1.GrowSpec{TargetRecords: 100000, InsertThreads: 2, QueryThreads: 1, QueryDuration: &metav1.Duration{Duration: time.Minute}}}}
	return map[string]*benchv1.BenchmarkRun{"standalone": sa, "replicaset": rs, "sharded": ms, "grow": grow}
}

// buildAll is every database pod and every Job of a run, in creation order.
func buildAll(run *benchv1.BenchmarkRun) []any {
	var out []any
	for _, p := range Processes(run) {
		out = append(out, Pod(run, p, NodePlacement{Candidates: []string{"node-a"}}, cfg))
	}
	out = append(out, BootstrapJob(run, cfg))
	if run.Spec.Collection != nil {
		out = append(out, ValidatorJob(run, cfg))
	}
	for i := range run.Spec.Phases {
		out = append(out, PhaseJob(run, &run.Spec.Phases[i], time.Hour, cfg))
	}
	return out
}

func marshalAll(t *testing.T, objs []any) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, o := range objs {
		b, err := yaml.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		buf.WriteString("---\n")
		buf.Write(b)
	}
	return buf.Bytes()
}

// golden compares got with testdata/golden/name, or rewrites it with
// -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", "golden", name), got, *update, "go test ./internal/topology -run TestGolden -update")
}

// TestGoldenPodsAndJobs: the database pods and Jobs of runs of every
// shape, byte for byte. A change to a builder shows here as a diff to
// review; a feature that is off (security.auth) must leave it empty.
func TestGoldenPodsAndJobs(t *testing.T) {
	for name, run := range goldenRuns() {
		t.Run(name, func(t *testing.T) {
			golden(t, name+".yaml", marshalAll(t, buildAll(run)))
		})
	}
}
