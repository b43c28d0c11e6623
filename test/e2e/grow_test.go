//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// growRun is a small Grow run: 50,000 documents, a checkpoint every
// 10,000, each query class for 3 s.
func growRun(name string, mode benchv1.TopologyMode, shards int32, insert benchv1.GrowInsertMode) *benchv1.BenchmarkRun {
	run := &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: benchv1.BenchmarkRunSpec{
			Topology: benchv1.TopologySpec{Mode: mode, Image: "mongo:8.0.16", WiredTigerCacheSizeGB: "0.25"},
			Phases: []benchv1.PhaseSpec{{Name: "grow", Type: benchv1.PhaseGrow, Grow: &benchv1.GrowSpec{
				TargetRecords: 50_000, CheckpointEvery: ptr.To[int64](10_000), InsertMode: insert,
				QueryDuration: &metav1.Duration{Duration: 3 * time.Second}}}},
			Loaders: 1,
			Timeout: &metav1.Duration{Duration: runTimeout},
		},
	}
	if insert == benchv1.GrowBatch {
		run.Spec.Phases[0].Grow.BatchSize = ptr.To[int32](500)
	}
	if mode == benchv1.TopologySharded {
		run.Spec.Topology.Shards = ptr.To(shards)
	}
	return run
}

// checkGrowth: every checkpoint is there, at its record count, with every
// query class measured and returning what the data holds, and the
// collection's count (and, sharded, its split) equal to the records.
func (s *suite) checkGrowth(run *benchv1.BenchmarkRun, shards int) *benchv1.GrowthStatus { //nolint:gocyclo // every checkpoint, query and shard checked
	s.t.Helper()
	if run.Status.Phase != benchv1.RunSucceeded {
		s.t.Fatalf("run failed: %s", failure(run))
	}
	if len(run.Status.Results) != 1 || run.Status.Results[0].Growth == nil {
		s.t.Fatalf("results %+v", run.Status.Results)
	}
	g := run.Status.Results[0].Growth
	if len(g.Checkpoints) != 5 || g.PlannedCheckpoints != 5 {
		s.t.Fatalf("%d checkpoints of %d planned", len(g.Checkpoints), g.PlannedCheckpoints)
	}
	for i, c := range g.Checkpoints {
		records := int64(i+1) * 10_000
		if c.Records != records || c.InsertsPerSec <= 0 || c.InsertErrors != 0 {
			s.t.Errorf("checkpoint %d: records %d (want %d), %.0f inserts/s, %d insert errors", i+1, c.Records, records, c.InsertsPerSec, c.InsertErrors)
		}
		if len(c.Queries) != 4 {
			s.t.Errorf("checkpoint %d: queries %+v", i+1, c.Queries)
			continue
		}
		// N = 5,000 values of number: at the checkpoint each matches
		// records/5,000 documents on average (Q1, Q2 paired), Q3 skips
		// 100 of at most ~20, Q4 returns its 100.
		avg := float64(records) / 5_000
		for _, q := range c.Queries {
			if q.OpsPerSec <= 0 || q.Errors != 0 {
				s.t.Errorf("checkpoint %d %s: %.1f ops/s, %d errors", i+1, q.Name, q.OpsPerSec, q.Errors)
			}
			switch q.Name {
			case benchv1.GrowQ1, benchv1.GrowQ2:
				if q.DocumentsPerQuery < avg*0.7 || q.DocumentsPerQuery > avg*1.3 {
					s.t.Errorf("checkpoint %d %s: %.2f documents per query, want about %.1f", i+1, q.Name, q.DocumentsPerQuery, avg)
				}
			case benchv1.GrowQ3:
				if q.DocumentsPerQuery != 0 {
					s.t.Errorf("checkpoint %d Q3: %.2f documents per query, want 0 (skip 100)", i+1, q.DocumentsPerQuery)
				}
			case benchv1.GrowQ4:
				if q.DocumentsPerQuery != 100 {
					s.t.Errorf("checkpoint %d Q4: %.2f documents per query, want 100", i+1, q.DocumentsPerQuery)
				}
			}
		}
		sz := c.Sizes
		if sz == nil || sz.Count == nil || *sz.Count != records || len(sz.IndexSizes) != 4 || len(sz.Shards) != shards {
			s.t.Errorf("checkpoint %d sizes: %+v", i+1, sz)
			continue
		}
		var sum int64
		for _, sh := range sz.Shards {
			if sh.Count == nil || *sh.Count == 0 {
				s.t.Errorf("checkpoint %d: shard %s holds nothing (hashed _id)", i+1, sh.Shard)
				continue
			}
			sum += *sh.Count
		}
		if shards > 0 && sum != records {
			s.t.Errorf("checkpoint %d: the shards hold %d documents, want %d", i+1, sum, records)
		}
	}
	return g
}

// TestGrowSharded grows a collection on three hashed micro-shards in
// batches, through mongos, with all four query classes at each checkpoint.
func TestGrowSharded(t *testing.T) {
	s := setup(t)
	s.create(growRun("grow-sharded", benchv1.TopologySharded, 3, benchv1.GrowBatch))
	g := s.checkGrowth(s.waitEnd("grow-sharded"), 3)
	if g.Restarts != 0 || g.InsertMode != benchv1.GrowBatch {
		t.Errorf("restarts %d, insert mode %s", g.Restarts, g.InsertMode)
	}
	if code, out := s.plugin("report", "run/grow-sharded", "-n", s.ns); code != 0 || !strings.Contains(out, "Growth") {
		t.Errorf("report: exit %d\n%s", code, out)
	}
}

// TestGrowSurvivesEviction evicts the loader pod of an acknowledged Grow
// phase once it took its first checkpoint: the Job starts a replacement,
// which resumes from the documents it finds, and the run succeeds with
// every checkpoint, one restart recorded.
func TestGrowSurvivesEviction(t *testing.T) {
	kubectl := os.Getenv("E2E_KUBECTL")
	if kubectl == "" {
		t.Fatal("E2E_KUBECTL must be set (run through make test-e2e)")
	}
	s := setup(t)
	run := growRun("grow-evict", benchv1.TopologyStandalone, 0, benchv1.GrowAcknowledged)
	run.Spec.Phases[0].Grow.TargetRecords = 50_000
	s.create(run)

	var loader corev1.Pod
	s.wait("the loader's first checkpoint", runTimeout, func() bool {
		r := s.get("grow-evict")
		if r.Status.Phase == benchv1.RunFailed || r.Status.Phase == benchv1.RunSucceeded {
			t.Fatalf("the run ended before the eviction: %s %s", r.Status.Phase, failure(r))
		}
		pods := s.pods(client.MatchingLabels{benchv1.LabelRun: "grow-evict", benchv1.LabelComponent: benchv1.ComponentLoader})
		if len(pods) != 1 || pods[0].Status.Phase != corev1.PodRunning {
			return false
		}
		loader = pods[0]
		return strings.Contains(s.logs(kubectl, loader.Name), "[CHECKPOINT], 1/")
	})
	eviction := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: loader.Name, Namespace: s.ns}}
	if err := s.c.SubResource("eviction").Create(context.Background(), &loader, eviction); err != nil {
		t.Fatalf("evict %s: %v", loader.Name, err)
	}
	g := s.checkGrowth(s.waitEnd("grow-evict"), 0)
	if g.Restarts != 1 {
		t.Errorf("restarts %d, want 1 (the evicted loader's replacement)", g.Restarts)
	}
	resumed := 0
	for _, c := range g.Checkpoints {
		if c.Resumed {
			resumed++
		}
	}
	// The segment the eviction cut is marked, unless it fell between a
	// checkpoint's row and the next segment.
	if resumed > 1 {
		t.Errorf("%d segments marked resumed, want at most 1", resumed)
	}
}

// logs is a pod's log so far.
func (s *suite) logs(kubectl, pod string) string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, kubectl, "-n", s.ns, "logs", pod)
	cmd.Stdout = &out
	_ = cmd.Run() // a pod that is not running yet has no log
	return out.String()
}
