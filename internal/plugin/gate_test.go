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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/testutil/kube"
)

// TestCIGateScript runs hack/ci-gate.sh against the API server with the
// real kubectl and kubectl-mongobench: it creates the run of a manifest
// (generateName), waits, writes the reports and exits 3 when the run
// succeeded but regressed — the test plays the controller.
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
	manifest := filepath.Join(t.TempDir(), "nightly.yaml")
	if err := os.WriteFile(manifest, []byte(`apiVersion: bench.mongobench.io/v1alpha1
kind: BenchmarkRun
metadata: {generateName: nightly-}
spec:
  topology: {mode: Standalone}
  workload: {preset: a}
  compare:
    baseline: {history: {}}
    metrics: [{phase: run, metric: throughput}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	reports := t.TempDir()
	cmd := exec.Command(filepath.Join(root, "hack", "ci-gate.sh"), manifest, "-n", ns, "--timeout", "2m", "--report-dir", reports)
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "KUBECONFIG="+adminKubeconfig(t))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	// The controller's part: the run succeeds and regressed.
	var run *benchv1.BenchmarkRun
	deadline := time.Now().Add(time.Minute)
	for run == nil {
		var list benchv1.BenchmarkRunList
		if err := c.List(testContext(t), &list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		if len(list.Items) == 1 {
			run = &list.Items[0]
		} else if time.Now().After(deadline) {
			t.Fatalf("no run created:\n%s", out.String())
		} else {
			time.Sleep(50 * time.Millisecond) // poll, bounded by the deadline
		}
	}
	if !strings.HasPrefix(run.Name, "nightly-") {
		t.Fatalf("run %s", run.Name)
	}
	st := succeededStatus()
	st.Conditions = append(st.Conditions, cond(benchv1.ConditionRegressed, metav1.ConditionTrue, "Regression",
		"run throughput -14.2% vs 12-run history (p=3.1e-06)"))
	st.Comparison = []benchv1.MetricComparison{{Metric: "run throughput", Baseline: 876, Current: 751.5, ChangePercent: -14.2,
		Verdict: benchv1.VerdictRegressed, Basis: "12-run history"}}
	setStatus(t, c, run, st)

	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("ci-gate.sh did not end:\n%s", out.String())
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("exit %v, want 3:\n%s", err, out.String())
	}
	for _, want := range []string{"ci-gate: created run/" + run.Name, "succeeded but regressed: run throughput -14.2% vs 12-run history",
		"ci-gate: run/" + run.Name + " succeeded but regressed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	for _, f := range []string{run.Name + ".html", run.Name + ".md"} {
		if fi, err := os.Stat(filepath.Join(reports, f)); err != nil || fi.Size() == 0 {
			t.Errorf("report %s: %v", f, err)
		}
	}
}
