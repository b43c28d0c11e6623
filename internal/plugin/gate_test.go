package plugin

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/testutil/kube"
)

// TestCIGateScript runs hack/ci-gate.sh against the API server with the
// real kubectl and kubectl-mongobench: it creates the run or sweep of a
// manifest (generateName), waits, writes the reports and exits 3 when it
// succeeded but regressed, 4 when it succeeded but is not valid — the
// test plays the controller.
func TestCIGateScript(t *testing.T) {
	root := kube.RepoRoot()
	assets, err := kube.AssetsDir()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "kubectl-mongobench"), "./cmd/kubectl-mongobench")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the plugin: %v\n%s", err, out)
	}
	if err := os.Symlink(filepath.Join(assets, "kubectl"), filepath.Join(bin, "kubectl")); err != nil {
		t.Fatal(err)
	}
	c := newClient(t)
	ns := createNamespace(t, c, "gate-")
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "KUBECONFIG="+adminKubeconfig(t))

	t.Run("run", func(t *testing.T) {
		reports, out, err := gate(t, root, env, ns, `apiVersion: bench.mongobench.io/v1alpha1
kind: BenchmarkRun
metadata: {generateName: nightly-}
spec:
  topology: {mode: Standalone}
  workload: {preset: a}
  compare:
    baseline: {history: {}}
    metrics: [{phase: run, metric: throughput}]
`, func() string {
			// The controller's part: the run succeeds and regressed.
			var list benchv1.BenchmarkRunList
			if err := c.List(testContext(t), &list, client.InNamespace(ns)); err != nil || len(list.Items) != 1 {
				return ""
			}
			run := &list.Items[0]
			st := succeededStatus()
			st.Conditions = append(st.Conditions, cond(benchv1.ConditionRegressed, metav1.ConditionTrue, "Regression",
				"run throughput -14.2% vs 12-run history (p=3.1e-06)"))
			st.Comparison = []benchv1.MetricComparison{{Metric: "run throughput", Baseline: 876, Current: 751.5, ChangePercent: -14.2,
				Verdict: benchv1.VerdictRegressed, Basis: "12-run history"}}
			setStatus(t, c, run, st)
			return run.Name
		})
		checkGate(t, reports, out, err, "run", 3, "succeeded but regressed: run throughput -14.2% vs 12-run history", "succeeded but regressed")
	})
	t.Run("invalid run", func(t *testing.T) {
		reports, out, err := gate(t, root, env, ns, `apiVersion: bench.mongobench.io/v1alpha1
kind: BenchmarkRun
metadata: {generateName: nightly-}
spec:
  topology: {mode: Standalone}
  workload: {preset: a}
  compare:
    baseline: {history: {}}
    metrics: [{phase: run, metric: throughput}]
`, func() string {
			// The controller's part: the run succeeds, a loader saturated,
			// so its verdict is Invalid and Regressed Unknown.
			var list benchv1.BenchmarkRunList
			if err := c.List(testContext(t), &list, client.InNamespace(ns)); err != nil {
				return ""
			}
			for i := range list.Items {
				run := &list.Items[i]
				if run.Status.Phase != "" {
					continue // the first subtest's
				}
				st := succeededStatus()
				meta.SetStatusCondition(&st.Conditions,
					cond(benchv1.ConditionValid, metav1.ConditionFalse, "LoaderSaturated", "phase run: loader 0 used 97.5% of its CPU"))
				meta.SetStatusCondition(&st.Conditions,
					cond(benchv1.ConditionRegressed, metav1.ConditionUnknown, "RunInvalid", "not compared: the run is not valid (see its Valid condition)"))
				st.Comparison = []benchv1.MetricComparison{{Metric: "run throughput", Current: 751.5, Verdict: benchv1.VerdictInvalid,
					Basis: "not compared: the run is not valid (see its Valid condition)"}}
				setStatus(t, c, run, st)
				return run.Name
			}
			return ""
		})
		checkGate(t, reports, out, err, "run", 4, "succeeded but is not valid: LoaderSaturated: phase run: loader 0 used 97.5% of its CPU",
			"succeeded but is not valid")
	})
	t.Run("sweep", func(t *testing.T) {
		reports, out, err := gate(t, root, env, ns, `apiVersion: bench.mongobench.io/v1alpha1
kind: BenchmarkSweep
metadata: {generateName: nightly-}
spec:
  template:
    topology: {mode: Standalone}
    workload: {preset: a}
  axes: [{name: threads, threads: [1, 2]}]
  compare:
    baseline: {history: {}}
    metrics: [{phase: run, metric: throughput}]
`, func() string {
			var list benchv1.BenchmarkSweepList
			if err := c.List(testContext(t), &list, client.InNamespace(ns)); err != nil || len(list.Items) != 1 {
				return ""
			}
			sw := &list.Items[0]
			st := sweepStatus(benchv1.SweepSucceeded, benchv1.RunSucceeded, benchv1.RunSucceeded)
			st.Conditions = []metav1.Condition{sweepCond(benchv1.ConditionRegressed, metav1.ConditionTrue, benchv1.ReasonRegression,
				"1 of 2 cells regressed: cell 2: run throughput -14.2% vs 12-run history (p=3.1e-06)")}
			setSweepStatus(t, c, sw, st)
			return sw.Name
		})
		checkGate(t, reports, out, err, "sweep", 3, "succeeded but regressed: 1 of 2 cells regressed: cell 2: run throughput -14.2% vs 12-run history",
			"succeeded but regressed")
	})
}

// gate runs ci-gate.sh on a manifest while play, the controller's part,
// is polled until it returns the created object's name.
func gate(t *testing.T, root string, env []string, ns, manifest string, play func() string) (string, string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "nightly.yaml")
	if err := os.WriteFile(path, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	reports := t.TempDir()
	cmd := exec.Command(filepath.Join(root, "hack", "ci-gate.sh"), path, "-n", ns, "--timeout", "2m", "--report-dir", reports)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(time.Minute)
	for name := ""; name == ""; {
		if name = play(); name == "" {
			if time.Now().After(deadline) {
				t.Fatalf("nothing created:\n%s", out.String())
			}
			time.Sleep(50 * time.Millisecond) // poll, bounded by the deadline
		} else if !strings.HasPrefix(name, "nightly-") {
			t.Fatalf("created %s", name)
		}
	}
	select {
	case err := <-done:
		return reports, out.String(), err
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("ci-gate.sh did not end:\n%s", out.String())
	}
	return "", "", nil
}

// checkGate checks ci-gate.sh's exit code, its output (wait's message,
// then the script's verdict line) and the reports.
func checkGate(t *testing.T, reports, out string, err error, kind string, code int, message, verdict string) {
	t.Helper()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != code {
		t.Fatalf("exit %v, want %d:\n%s", err, code, out)
	}
	_, rest, ok := strings.Cut(out, "ci-gate: created "+kind+"/")
	name, _, _ := strings.Cut(rest, "\n")
	if !ok || !strings.HasPrefix(name, "nightly-") {
		t.Fatalf("output lacks the created %s:\n%s", kind, out)
	}
	for _, want := range []string{message, "ci-gate: " + kind + "/" + name + " " + verdict} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []string{name + ".html", name + ".md"} {
		if fi, err := os.Stat(filepath.Join(reports, f)); err != nil || fi.Size() == 0 {
			t.Errorf("report %s: %v", f, err)
		}
	}
}
