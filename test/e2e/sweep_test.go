//go:build e2e

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// TestSweepStandaloneVersusShards runs a small study on real MongoDB: a
// standalone mongod against 2 micro-shards, 2 repetitions each, one run at
// a time. Every child succeeds with real results, the sweep aggregates
// them with the standalone as baseline, and the plugin waits for it and
// renders its reports.
func TestSweepStandaloneVersusShards(t *testing.T) {
	s := setup(t)
	template := smallRun("template", benchv1.TopologyStandalone, 0)
	sw := &benchv1.BenchmarkSweep{Spec: benchv1.BenchmarkSweepSpec{
		Template: template.Spec,
		Axes: []benchv1.SweepAxis{{Name: "topologies", Topologies: []benchv1.SweepTopology{
			{Mode: benchv1.TopologyStandalone},
			{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](2)},
		}}},
		Repetitions: 2,
		Baseline:    map[string]benchv1.SweepValueName{"topologies": "standalone"},
	}}
	sw.Name, sw.Namespace = "e2e-sweep", s.ns
	if err := s.c.Create(context.Background(), sw); err != nil {
		t.Fatal(err)
	}
	code, out := s.plugin("wait", "sweep/e2e-sweep", "--timeout=60m")
	if code != 0 {
		t.Fatalf("kubectl mongobench wait sweep/e2e-sweep exited %d:\n%s", code, out)
	}
	got := &benchv1.BenchmarkSweep{}
	if err := s.c.Get(context.Background(), client.ObjectKeyFromObject(sw), got); err != nil {
		t.Fatal(err)
	}
	if got.Status.Phase != benchv1.SweepSucceeded || got.Status.CellsDone != 2 || got.Status.CellsFailed != 0 {
		t.Fatalf("sweep status: %+v", got.Status)
	}
	var runs benchv1.BenchmarkRunList
	if err := s.c.List(context.Background(), &runs, client.InNamespace(s.ns), client.MatchingLabels{benchv1.LabelSweep: sw.Name}); err != nil {
		t.Fatal(err)
	}
	if len(runs.Items) != 4 {
		t.Fatalf("%d runs, want 4", len(runs.Items))
	}
	// One run at a time (parallelism 1): no two runs' measured intervals overlap.
	var spans [][2]time.Time
	for i := range runs.Items {
		r := &runs.Items[i]
		s.checkResults(r)
		spans = append(spans, [2]time.Time{r.Status.StartTime.Time, r.Status.CompletionTime.Time})
	}
	for i := range spans {
		for j := i + 1; j < len(spans); j++ {
			if spans[i][0].Before(spans[j][1]) && spans[j][0].Before(spans[i][1]) {
				t.Errorf("runs %s and %s overlapped", runs.Items[i].Name, runs.Items[j].Name)
			}
		}
	}
	for _, cell := range got.Status.Cells {
		if len(cell.Results) != 2 {
			t.Fatalf("cell %s: %d phase results", cell.Name, len(cell.Results))
		}
		a := cell.Results[1]
		if a.Name != "a" || a.Repetitions != 2 || a.MedianThroughput <= 0 || a.ThroughputCoVPercent == nil || a.ThroughputChangePercent == nil {
			t.Errorf("cell %s phase a: %+v", cell.Name, a)
		}
	}
	if got.Status.Cells[0].Results[1].ThroughputChangePercent != nil && *got.Status.Cells[0].Results[1].ThroughputChangePercent != 0 {
		t.Errorf("the baseline's change is %v, want 0", *got.Status.Cells[0].Results[1].ThroughputChangePercent)
	}
	code, md := s.plugin("report", "sweep/e2e-sweep")
	if code != 0 || !strings.Contains(md, "standalone") || !strings.Contains(md, "2-shards") {
		t.Errorf("report exited %d:\n%s", code, md)
	}
	dir := t.TempDir()
	if code, out := s.plugin("report", "sweep/e2e-sweep", "-o", "html", "--out", dir); code != 0 {
		t.Errorf("report -o html exited %d:\n%s", code, out)
	}
	t.Logf("report:\n%s", md)
}
