package controllers_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
)

// growRun is a Grow run on three hashed micro-shards: 30,000 records,
// a checkpoint every 10,000, Q1 and Q3 at each.
func growRun(name string) *benchv1.BenchmarkRun {
	return &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: benchv1.BenchmarkRunSpec{
			Topology: benchv1.TopologySpec{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](3), ShardKey: benchv1.ShardKeyHashed},
			Loaders:  1,
			Phases: []benchv1.PhaseSpec{{Name: "grow", Type: benchv1.PhaseGrow, Grow: &benchv1.GrowSpec{
				TargetRecords: 30_000, CheckpointEvery: ptr.To[int64](10_000), InsertMode: benchv1.GrowBatch, BatchSize: ptr.To[int32](100),
				Queries: []benchv1.GrowQuery{benchv1.GrowQ1, benchv1.GrowQ3}}}},
		},
	}
}

// growResult is what `loader grow` reports for growRun after one restart:
// three checkpoints, each with its insert segment, Q1 and Q3, and the
// sizes split over three shards; the phase's INSERT, Q1 and Q3 histograms.
func growResult(t *testing.T) []byte {
	t.Helper()
	start := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	r := &results.Result{Version: results.FormatVersion, Kind: results.KindGrow, Loader: results.Identity{Index: 0, Count: 1, Threads: 4},
		Start: start, End: start.Add(90 * time.Second), RuntimeMillis: 90_000, StopReason: results.StopCompleted,
		Growth: &results.GrowthResult{TargetRecords: 30_000, CheckpointEvery: 10_000, PlannedCheckpoints: 3, InsertMode: results.InsertBatch,
			BatchSize: 100, InsertThreads: 1, QueryThreads: 4, QueryMillis: 10_000, Queries: []string{results.OpQ1, results.OpQ3},
			Values: 3_000, Restarts: 1}}
	ops := map[string]*results.OpResult{}
	for _, name := range []string{results.OpInsert, results.OpQ1, results.OpQ3} {
		ops[name] = &results.OpResult{Name: name, Statuses: map[string]int64{}, Latency: results.NewHistogram()}
	}
	record := func(name string, n int, micros int64) results.LatencySummary {
		h := results.NewHistogram()
		for range n {
			h.Record(micros)
			ops[name].Latency.Record(micros)
		}
		ops[name].Statuses["OK"] += int64(n)
		r.Operations += int64(n)
		return results.Summarize(h, int64(n), 0, 10*time.Second)
	}
	for i := 1; i <= 3; i++ {
		n := int64(i * 1000)
		shards := []results.ShardSizes{}
		for s := range 3 {
			shards = append(shards, results.ShardSizes{Shard: fmt.Sprintf("shard%d", s), CollectionSizes: results.CollectionSizes{
				Count: ptr.To(int64(i) * 10_000 / 3), Size: ptr.To(int64(i) * 3_400_000), StorageSize: ptr.To(int64(i) * 1_700_000),
				TotalIndexSize: ptr.To(int64(i) * 500_000)}})
		}
		cp := results.GrowthCheckpoint{Index: i, Records: n * 10, Start: start.Add(time.Duration(i) * 30 * time.Second),
			End: start.Add(time.Duration(i)*30*time.Second + 20*time.Second),
			Insert: results.GrowthInsert{FromRecords: (n - 1000) * 10, Records: 10_000, Millis: 10_000, RecordsPerSec: 1000 / float64(i),
				Latency: record(results.OpInsert, 100, 100*int64(i)), Resumed: i == 2},
			Sizes: &results.CollectionStats{Time: start, Namespace: "ycsb.usertable", Source: "$collStats",
				CollectionSizes: results.CollectionSizes{Count: ptr.To(n * 10), Size: ptr.To(int64(i) * 10_200_000),
					StorageSize: ptr.To(int64(i) * 5_100_000), TotalIndexSize: ptr.To(int64(i) * 1_500_000),
					IndexSizes: map[string]int64{"_id_": int64(i) * 400_000, "number_1": int64(i) * 300_000, "number1_1": int64(i) * 300_000, "date_-1": int64(i) * 500_000}},
				Shards: shards},
			Queries: []results.GrowthQuery{
				{Name: results.OpQ1, Millis: 10_000, Documents: int64(i) * 2000, Latency: record(results.OpQ1, 600, 200)},
				{Name: results.OpQ3, Millis: 10_000, Documents: 0, Latency: record(results.OpQ3, 300/i, 900*int64(i))},
			}}
		r.Growth.Checkpoints = append(r.Growth.Checkpoints, cp)
	}
	for _, name := range []string{results.OpInsert, results.OpQ1, results.OpQ3} {
		r.Ops = append(r.Ops, *ops[name])
	}
	b, err := results.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGrowPhase runs a Grow phase end to end: the Job runs `loader grow`
// and replaces a disrupted loader pod (the run goes on; the replacement
// resumes), and the checkpoints land in status.results[].growth. A loader
// pod that fails on its own fails the run at once.
func TestGrowPhase(t *testing.T) { //nolint:gocyclo // one scenario, checked field by field
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)

	run := k.create(growRun("growth"))
	k.upToPhase(run, 0)
	job := k.job("growth-grow")
	if args := job.Spec.Template.Spec.Containers[0].Args; args[0] != contract.CommandGrow || job.Spec.PodFailurePolicy == nil {
		t.Fatalf("Job args %v, pod failure policy %+v", args, job.Spec.PodFailurePolicy)
	}
	k.waitRun("growth", "Running phase grow", func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Phase == benchv1.RunRunning && r.Status.CurrentPhase == "grow"
	})

	// The node is drained: the loader is evicted (SIGTERM, exit 143), the
	// Job controller marks it a disruption and starts a replacement.
	evicted := k.jobPod(job, 0)
	k.setPodStatus(evicted.Name, func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodFailed
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
			Reason: "EvictionByEvictionAPI", Message: "Eviction API: evicting", LastTransitionTime: metav1.Now()}}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "loader", State: corev1.ContainerState{
			Terminated: &corev1.ContainerStateTerminated{ExitCode: 143, Reason: "Error"}}}}
	})
	k.writeResultCM(run, job.Name, 0, map[string][]byte{contract.ConfigMapKey: growResult(t)}, nil)
	k.completeJob(job.Name)

	r := k.waitRun("growth", "Succeeded", func(r *benchv1.BenchmarkRun) bool {
		if r.Status.Phase == benchv1.RunFailed {
			t.Fatalf("failed: %s", failedMessage(r))
		}
		return r.Status.Phase == benchv1.RunSucceeded
	})
	if len(r.Status.Results) != 1 || r.Status.Results[0].Type != benchv1.PhaseGrow || r.Status.Results[0].Growth == nil {
		t.Fatalf("results %+v", r.Status.Results)
	}
	res := r.Status.Results[0]
	g := res.Growth
	if g.TargetRecords != 30_000 || g.CheckpointEvery != 10_000 || g.PlannedCheckpoints != 3 || g.InsertMode != benchv1.GrowBatch ||
		g.Restarts != 1 || len(g.Checkpoints) != 3 {
		t.Fatalf("growth %+v", g)
	}
	for i, c := range g.Checkpoints {
		n := int64(i + 1)
		if c.Records != n*10_000 || c.InsertsPerSec != round2(1000/float64(n)) || c.InsertP99Micros != 100*n || c.Resumed != (i == 1) {
			t.Errorf("checkpoint %d: %+v", i+1, c)
		}
		if len(c.Queries) != 2 || c.Queries[0].Name != benchv1.GrowQ1 || c.Queries[0].OpsPerSec != 60 || c.Queries[0].DocumentsPerQuery != round2(float64(n)*2000/600) ||
			c.Queries[1].Name != benchv1.GrowQ3 || math.Abs(float64(c.Queries[1].P50Micros)/float64(900*n)-1) > 0.001 || c.Queries[1].DocumentsPerQuery != 0 {
			t.Errorf("checkpoint %d queries: %+v", i+1, c.Queries)
		}
		if s := c.Sizes; s == nil || *s.Count != n*10_000 || s.IndexSizes["date_-1"] != n*500_000 || len(s.Shards) != 3 || *s.Shards[2].Count != n*10_000/3 || s.Shards[2].Size != nil {
			t.Errorf("checkpoint %d sizes: %+v", i+1, c.Sizes)
		}
	}
	var ops []string
	for _, o := range res.OperationStats {
		ops = append(ops, o.Name)
	}
	if strings.Join(ops, ",") != "INSERT,Q1,Q3" || res.Operations != 300+1800+550 || r.Status.Summary == nil || r.Status.Summary.Phase != "grow" {
		t.Errorf("operations %v (%d), summary %+v", ops, res.Operations, r.Status.Summary)
	}
	// The phase's throughput and p99 are its inserts': 30,000 documents in
	// 30 s of inserting, and the insert calls' p99 (100, 200, 300 µs).
	if res.Throughput != 1000 || res.P99Micros != 300 || r.Status.Summary.Throughput != 1000 {
		t.Errorf("throughput %.2f, p99 %d, summary %+v", res.Throughput, res.P99Micros, r.Status.Summary)
	}
	k.assertPrinterColumns("growth", "Succeeded")

	// A loader that fails by itself (no disruption) fails the phase at
	// once, before the Job controller gives up; the message is its own,
	// not the evicted pod's it replaced.
	crash := k.create(growRun("growcrash"))
	k.upToPhase(crash, 0)
	crashJob := k.job("growcrash-grow")
	evicted = k.jobPod(crashJob, 0)
	k.setPodStatus(evicted.Name, func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodFailed
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
			Reason: "EvictionByEvictionAPI", LastTransitionTime: metav1.Now()}}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "loader", State: corev1.ContainerState{
			Terminated: &corev1.ContainerStateTerminated{ExitCode: 143, Reason: "Error", Message: "grow phase: stopped (SIGTERM)"}}}}
	})
	pod := evicted.DeepCopy()
	pod.ObjectMeta = metav1.ObjectMeta{Name: crashJob.Name + "-0-fghij", Namespace: evicted.Namespace, Labels: evicted.Labels,
		Annotations: evicted.Annotations, OwnerReferences: evicted.OwnerReferences}
	pod.Status = corev1.PodStatus{}
	if err := k.c.Create(k.ctx(), pod); err != nil {
		t.Fatal(err)
	}
	k.setPodStatus(pod.Name, func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodFailed
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "loader", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: 1, Reason: "Error", Message: "grow: the collection holds documents that are not the phase's"}}}}
	})
	r = k.waitFailed("growcrash", "PhaseFailed", "phase grow failed", "not the phase's", pod.Name)
	if c := cond(r, benchv1.ConditionFailed); strings.Contains(c.Message, "SIGTERM") {
		t.Errorf("the failure quotes the evicted pod: %s", c.Message)
	}
}
