package plugin

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/compare"
	"github.com/mongobench/mongobench/internal/testutil/sweepfixture"
)

// putRuns stores runs, labels and statuses included. The fixture's spec
// must be what the API server stores (its defaults filled in): the
// spec-hash label is the hash of that spec, as the controller labels it.
func putRuns(t *testing.T, c client.Client, runs []benchv1.BenchmarkRun) {
	t.Helper()
	ctx := testContext(t)
	for i := range runs {
		r := runs[i]
		run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: r.Namespace, Name: r.Name, Labels: r.Labels}, Spec: r.Spec}
		if err := c.Create(ctx, run); err != nil {
			t.Fatal(err)
		}
		if hash, err := compare.SpecHash(&run.Spec); err != nil || hash != r.Labels[benchv1.LabelSpecHash] {
			stored, _ := json.Marshal(run.Spec)
			t.Fatalf("%s: the API server stores a spec of hash %s, the fixture's label says %s: make the fixture's spec what the server stores:\n%s",
				r.Name, hash, r.Labels[benchv1.LabelSpecHash], stored)
		}
		run.Status = r.Status
		if err := c.Status().Update(ctx, run); err != nil {
			t.Fatalf("status of %s: %v", r.Name, err)
		}
	}
}

// A gated run's report carries its gate's history: the plugin lists the
// runs the controller would (the history selector's), and the report is
// the report package's golden file of the same runs.
func TestReportHistory(t *testing.T) {
	c := newClient(t)
	ns := "ci"
	ensureNamespace(t, c, ns)
	runs := sweepfixture.LoadRuns(t, filepath.Join(reportTestdata, "nightly.json"))
	putRuns(t, c, runs)
	gated := nightlyGated(t, runs)
	// A night of the same benchmark on another environment (another
	// fingerprint), and a run without a gate: not in the history.
	var stray *benchv1.BenchmarkRun
	for i := range runs {
		if runs[i].Status.Phase == benchv1.RunSucceeded && runs[i].Name != gated {
			stray = runs[i].DeepCopy()
		}
	}
	stray.Name = "nightly-elsewhere"
	stray.Labels[benchv1.LabelFingerprint] = "0000000000000000"
	putRuns(t, c, []benchv1.BenchmarkRun{*stray})
	plain := createRun(t, c, ns, "plain")
	kc := adminKubeconfig(t)

	t.Run("markdown and csv are the report package's", func(t *testing.T) {
		for _, tc := range []struct {
			args   []string
			golden string
		}{
			{[]string{"report", "run/" + gated}, "nightly.md"},
			{[]string{"report", "run/" + gated, "-o", "csv", "--history", "12"}, "nightly-history12.csv"},
		} {
			code, stdout, stderr := runPlugin(t, kc, append(tc.args, "-n", ns)...)
			if code != ExitOK || stderr != "" {
				t.Errorf("%v: exit %d, stderr %q", tc.args, code, stderr)
			}
			if want := reportGolden(t, tc.golden); stdout != want {
				t.Errorf("%v:\n%s\nwant (%s):\n%s", tc.args, stdout, tc.golden, want)
			}
		}
	})

	t.Run("json has the series, html the charts", func(t *testing.T) {
		code, stdout, stderr := runPlugin(t, kc, "report", "run/"+gated, "-n", ns, "-o", "json", "--history", "5")
		if code != ExitOK {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		var rep struct {
			History struct {
				Window, Shown int
				Metrics       []struct {
					Metric string
					Points []struct{ Run string }
				}
			}
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		h := rep.History
		if h.Window != 30 || h.Shown != 5 || len(h.Metrics) != 3 || len(h.Metrics[0].Points) != 6 || h.Metrics[0].Points[5].Run != gated {
			t.Errorf("history %+v", h)
		}
		code, stdout, _ = runPlugin(t, kc, "report", "run/"+gated, "-n", ns, "-o", "html")
		if n := strings.Count(stdout, "<svg"); code != ExitOK || n != 5 || !strings.Contains(stdout, "<figcaption>History of a throughput -13.") {
			t.Errorf("exit %d, %d charts (want 3 history charts and 2 time series)", code, n)
		}
	})

	t.Run("usage errors", func(t *testing.T) {
		for _, tc := range []struct {
			args   []string
			stderr string
		}{
			{[]string{"report", "run/" + gated, "--history", "-1"}, "--history: a number of runs (at least 1), for a run's report"},
			{[]string{"report", "sweep/any", "--history", "5"}, "--history: a number of runs (at least 1), for a run's report"},
			{[]string{"report", "run/" + plain.Name, "--history", "5"}, "--history: run/plain is not compared with a history (spec.compare.baseline.history)"},
		} {
			code, stdout, stderr := runPlugin(t, kc, append(tc.args, "-n", ns)...)
			if code != ExitNoVerdict || !strings.Contains(stderr, tc.stderr) || stdout != "" {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, stdout, stderr, tc.stderr)
			}
		}
		// Without --history, a run without a gate has a report as before.
		if code, stdout, _ := runPlugin(t, kc, "report", "run/plain", "-n", ns); code != ExitOK || strings.Contains(stdout, "## History") {
			t.Errorf("plain run: exit %d\n%s", code, stdout)
		}
	})
}

// nightlyGated names the fixture's gated run: the one with a Regressed
// condition that is True.
func nightlyGated(t *testing.T, runs []benchv1.BenchmarkRun) string {
	t.Helper()
	for _, r := range runs {
		for _, c := range r.Status.Conditions {
			if c.Type == benchv1.ConditionRegressed && c.Status == metav1.ConditionTrue {
				return r.Name
			}
		}
	}
	t.Fatal("the nightly fixture has no regressed run")
	return ""
}
