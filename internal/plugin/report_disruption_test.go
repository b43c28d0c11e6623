package plugin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
)

// disruptedMerged is a merged result of a run's phase that has its first
// disruption's 100 ms series: what the HTML report draws at 100 ms.
func disruptedMerged(t *testing.T, res *benchv1.PhaseResult) []byte {
	t.Helper()
	d := &res.Disruptions[0]
	sent := d.Outcome.Sent.Time
	m := &results.Result{Version: results.FormatVersion, Kind: results.KindRun, Loader: results.Identity{Index: 0, Count: 2, Threads: 16},
		Start: res.StartTime.Time, End: res.CompletionTime.Time, RuntimeMillis: res.RuntimeMillis, StopReason: results.StopCompleted,
		Disruptions: []results.Disruption{{Index: 0, Action: string(d.Action), AtMillis: d.At.Milliseconds(), Instant: d.Instant.Time,
			Outcome: &results.DisruptionOutcome{State: results.DisruptionDone, Sent: sent, Returned: ptr(sent.Add(time.Second))},
			Loaders: []results.DisruptionLoader{{Index: 0}, {Index: 1}}, SeriesStartMillis: -1000,
			Series: results.Series{IntervalMillis: results.DisruptionIntervalMillis}}}}
	for i := range 40 {
		h := results.NewSeriesHistogram()
		h.Record(int64(1000 + i))
		m.Disruptions[0].Series.Points = append(m.Disruptions[0].Series.Points,
			results.Point{Millis: 100, Ops: []results.PointOp{{Name: results.OpUpdate, Count: 3, Failed: 1, Latency: h}}})
	}
	b, err := results.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The report of a sweep with disruptions: md and csv are the report
// package's goldens; html reads the merged results of one repetition per
// cell, no other, and does without one that is gone, with a warning.
func TestReportDisruptions(t *testing.T) {
	c := newClient(t)
	ns := "bench"
	ensureNamespace(t, c, ns)
	sw, runs := loadSweepFixture(t, "failover")
	// Every run's phase a names its ConfigMap; only failover-0-r1's
	// exists. failover-1-r1 is the other cell's first repetition: its
	// ConfigMap is gone. The other runs' are never read.
	for i := range runs {
		runs[i].Status.Results[1].Histograms = runs[i].Name + "-a-histograms"
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "failover-0-r1-a-histograms"},
		BinaryData: map[string][]byte{contract.ConfigMapKey: disruptedMerged(t, &runs[0].Status.Results[1])}}
	if err := c.Create(testContext(t), cm); err != nil {
		t.Fatal(err)
	}
	putSweep(t, c, sw, runs)
	kc := adminKubeconfig(t)

	for _, tc := range []struct {
		args   []string
		golden string
	}{
		{[]string{"report", "sweep/failover"}, "failover.md"},
		{[]string{"report", "sweep/failover", "-o", "csv"}, "failover.csv"},
		{[]string{"report", "run/failover-0-r1"}, "failover-run.md"},
	} {
		code, stdout, stderr := runPlugin(t, kc, append(tc.args, "-n", ns)...)
		if code != ExitOK || stderr != "" {
			t.Errorf("%v: exit %d, stderr %q", tc.args, code, stderr)
		}
		if want := reportGolden(t, tc.golden); stdout != want {
			t.Errorf("%v:\n%s\nwant (%s):\n%s", tc.args, stdout, tc.golden, want)
		}
	}

	dir := t.TempDir()
	code, _, stderr := runPlugin(t, kc, "report", "sweep/failover", "-n", ns, "-o", "html", "--out", dir)
	if code != ExitOK {
		t.Fatalf("html: exit %d, stderr %q", code, stderr)
	}
	if want := "warning: run/failover-1-r1 phase a: histogram ConfigMap failover-1-r1-a-histograms is gone; the report draws its " +
		"disruptions from status, without their 100 ms series\n"; stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
	b, err := os.ReadFile(filepath.Join(dir, "failover.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	// Throughput over time of both phases, p99 over time of phase a, and
	// its disruption at 100 ms (of the cell whose series was read).
	if n := strings.Count(page, "<svg"); n != 5 || !strings.Contains(page, "Throughput around disruption 0 (StepDown at 30s): a (Run)") {
		t.Errorf("%d charts, want 5 with the disruption at 100 ms", n)
	}
}
