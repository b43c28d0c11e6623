package contract_test

import (
	"slices"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/topology"
)

// TestGrowJobRunsWhatTheSpecSays: a Grow phase's Job parses in the
// loader without a warning, writes the result ConfigMap the controller
// reads, and the loader's growth workload is the phase's spec, field by
// field; the Job replaces a disrupted pod instead of failing.
func TestGrowJobRunsWhatTheSpecSays(t *testing.T) { //nolint:gocyclo // every field of the spec, checked one by one
	for _, tc := range []struct {
		name string
		topo benchv1.TopologySpec
	}{
		{"grow-standalone", benchv1.TopologySpec{Mode: benchv1.TopologyStandalone}},
		{"grow-sharded", benchv1.TopologySpec{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](3), ShardKey: benchv1.ShardKeyHashed}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := &benchv1.BenchmarkRun{
				ObjectMeta: metav1.ObjectMeta{Name: tc.name, Namespace: "bench", UID: "0b6c1f3e-9d2a-4c1b-8e7f-5a4d3c2b1a09"},
				Spec: benchv1.BenchmarkRunSpec{
					Topology: tc.topo, Loaders: 1,
					Workload: benchv1.WorkloadSpec{WorkloadParameters: benchv1.WorkloadParameters{
						Properties: map[string]benchv1.PropertyValue{"growth.datestart": "2020-02-03T04:05:06Z"}}},
					Phases: []benchv1.PhaseSpec{{Name: "grow", Type: benchv1.PhaseGrow, Threads: 1, Grow: &benchv1.GrowSpec{
						TargetRecords: 2_000_000, CheckpointEvery: ptr.To[int64](200_000), InsertMode: benchv1.GrowBatch,
						BatchSize: ptr.To[int32](500), InsertThreads: 2, QueryThreads: 6, QueryDuration: &metav1.Duration{Duration: 15 * time.Second},
						Queries: []benchv1.GrowQuery{benchv1.GrowQ3, benchv1.GrowQ1},
						QueryParameters: &benchv1.GrowQueryParameters{Q1Limit: ptr.To[int32](5), Q2Limit: ptr.To[int32](6),
							Q2Projection: []string{"date", "number"}, Q3Skip: ptr.To[int32](7), Q3Limit: ptr.To[int32](8), Q4Limit: ptr.To[int32](9)},
						MatchesPerValue: ptr.To[int64](20), PayloadBytes: ptr.To[int32](100), Seed: ptr.To[int64](42),
					}}},
				},
			}
			checkResultContract(t, run, topology.BootstrapJob(run, jobsConfig))
			job := topology.PhaseJob(run, &run.Spec.Phases[0], time.Hour, jobsConfig)
			checkMetricsContract(t, run, job)
			checkResultContract(t, run, job)
			g := parseJob(t, job, 0).Grow()
			if g == nil {
				t.Fatal("not a grow command")
			}
			w := g.Workload
			if w.TargetRecords != 2_000_000 || w.CheckpointEvery != 200_000 || w.InsertMode != results.InsertBatch || w.BatchSize != 500 ||
				w.InsertThreads != 2 || w.QueryThreads != 6 || w.QueryDuration != 15*time.Second ||
				!slices.Equal(w.Queries, []string{results.OpQ3, results.OpQ1}) ||
				w.Q1Limit != 5 || w.Q2Limit != 6 || !slices.Equal(w.Q2Projection, []string{"date", "number"}) || w.Q3Skip != 7 || w.Q3Limit != 8 || w.Q4Limit != 9 ||
				w.Documents.MatchesPerValue != 20 || w.Documents.PayloadSize != 100 || w.Documents.Seed != 42 ||
				!w.Documents.DateStart.Equal(time.Date(2020, 2, 3, 4, 5, 6, 0, time.UTC)) {
				t.Errorf("the loader's workload %+v", w)
			}
			if g.Database != topology.Database || g.Collection != topology.Collection {
				t.Errorf("grows %s.%s, the topology prepares %s.%s", g.Database, g.Collection, topology.Database, topology.Collection)
			}
			p := job.Spec.PodFailurePolicy
			if p == nil || len(p.Rules) != 1 || p.Rules[0].Action != batchv1.PodFailurePolicyActionIgnore ||
				p.Rules[0].OnPodConditions[0].Type != corev1.DisruptionTarget || *job.Spec.BackoffLimit != 0 ||
				job.Spec.PodReplacementPolicy == nil || *job.Spec.PodReplacementPolicy != batchv1.Failed {
				t.Errorf("pod failure policy %+v, backoffLimit %d", p, *job.Spec.BackoffLimit)
			}
		})
	}
	// The defaults of a minimal Grow phase are the loader's own.
	run := contractRun("grow-min", benchv1.TopologySpec{Mode: benchv1.TopologyStandalone})
	run.Spec.Loaders, run.Spec.Collection = 1, nil
	run.Spec.Phases = []benchv1.PhaseSpec{{Name: "grow", Type: benchv1.PhaseGrow, Grow: &benchv1.GrowSpec{TargetRecords: 1000}}}
	w := parseJob(t, topology.PhaseJob(run, &run.Spec.Phases[0], time.Hour, jobsConfig), 0).Grow().Workload
	if w.InsertMode != results.InsertAcknowledged || w.InsertThreads != 1 || w.QueryThreads != 4 || w.QueryDuration != 30*time.Second ||
		len(w.Queries) != 4 || w.CheckpointEvery != 100 {
		t.Errorf("defaults: %+v", w)
	}
	ycsb := contractRun("ycsb", benchv1.TopologySpec{Mode: benchv1.TopologyStandalone})
	if j := topology.PhaseJob(ycsb, &ycsb.Spec.Phases[1], time.Hour, jobsConfig); j.Spec.PodFailurePolicy != nil || topology.Resumable(j) {
		t.Error("a YCSB phase's Job replaces disrupted pods: its rerun would skew the numbers")
	}
}
