package plugin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// results reads the run from the API server and prints exactly the golden
// output of the same status, in every format, whatever the reference's
// spelling.
func TestResultsFromAPIServer(t *testing.T) {
	c := newClient(t)
	// The golden files name namespace "bench" and run "demo"; the report
	// tests' golden files use namespace "bench" too.
	ns := "bench"
	ensureNamespace(t, c, ns)
	run := createRun(t, c, ns, "demo")
	setStatus(t, c, run, succeededStatus())
	for _, tc := range []struct {
		args   []string
		golden string
	}{
		{[]string{"results", "run/demo"}, "results.table"},
		{[]string{"results", "demo", "-o", "table"}, "results.table"},
		{[]string{"results", "br/demo", "-o", "csv"}, "results.csv"},
		{[]string{"results", "benchmarkruns/demo", "-o", "json"}, "results.json"},
		{[]string{"results", "benchmarkrun/demo", "--output=ycsb"}, "results.ycsb"},
	} {
		code, stdout, stderr := runPlugin(t, adminKubeconfig(t), append(tc.args, "-n", ns)...)
		if code != ExitOK || stderr != "" {
			t.Errorf("%v: exit %d, stderr %q", tc.args, code, stderr)
		}
		want, err := os.ReadFile(filepath.Join("testdata", tc.golden))
		if err != nil {
			t.Fatal(err)
		}
		if stdout != string(want) {
			t.Errorf("%v:\n%s\nwant (%s):\n%s", tc.args, stdout, tc.golden, want)
		}
	}

	// --phase with -o ycsb is exactly one YCSB report: the loader's.
	code, stdout, stderr := runPlugin(t, adminKubeconfig(t), "results", "run/demo", "-n", ns, "-o", "ycsb", "--phase", "load")
	if want := loaderText(t, loadRun(), []float64{95, 99}); code != ExitOK || stdout != want {
		t.Errorf("--phase load: exit %d, stderr %q\n%s\nwant:\n%s", code, stderr, stdout, want)
	}
}

// A run still going shows what finished, and says so on stderr.
func TestResultsOfUnfinishedRun(t *testing.T) {
	c := newClient(t)
	ns := createNamespace(t, c, "partial-")
	run := createRun(t, c, ns, "half")
	st := succeededStatus()
	setStatus(t, c, run, benchv1.BenchmarkRunStatus{Phase: benchv1.RunRunning, CurrentPhase: "run", Results: st.Results[:1]})

	code, stdout, stderr := runPlugin(t, adminKubeconfig(t), "results", "run/half", "-n", ns)
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if want := "run/half has not finished (phase Running, current phase run): showing its finished phases (load)\n"; stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
	results, _, _ := strings.Cut(stdout, "\n\n") // the loaders' table follows
	lines := strings.Split(strings.TrimSpace(results), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[1], "load ") || strings.Contains(stdout, "\nrun ") {
		t.Errorf("table of the load phase only:\n%s", stdout)
	}

	code, _, stderr = runPlugin(t, adminKubeconfig(t), "results", "run/half", "-n", ns, "--phase", "run")
	if code != ExitNoVerdict || !strings.Contains(stderr, "error: phase run of run/half has no results yet (phase Running, current phase run)") {
		t.Errorf("--phase run: exit %d, stderr %q", code, stderr)
	}
}

// A failed run shows the phases that finished before it failed, with the
// failure and those phases on stderr; with no results to show it exits 1.
func TestResultsOfFailedRun(t *testing.T) {
	c := newClient(t)
	ns := createNamespace(t, c, "failed-")
	const why = "PhaseFailed: phase run: loader Job half-run failed: BackoffLimitExceeded"
	failedStatus := func(results []benchv1.PhaseResult) benchv1.BenchmarkRunStatus {
		return benchv1.BenchmarkRunStatus{Phase: benchv1.RunFailed, CurrentPhase: "run", Results: results, Conditions: []metav1.Condition{
			cond(benchv1.ConditionComplete, metav1.ConditionFalse, "PhaseFailed", "the run failed"),
			cond(benchv1.ConditionFailed, metav1.ConditionTrue, "PhaseFailed", "phase run: loader Job half-run failed: BackoffLimitExceeded"),
		}}
	}
	half := createRun(t, c, ns, "half")
	setStatus(t, c, half, failedStatus(succeededStatus().Results[:1]))
	none := createRun(t, c, ns, "none")
	setStatus(t, c, none, failedStatus(nil))

	code, stdout, stderr := runPlugin(t, adminKubeconfig(t), "results", "run/half", "-n", ns)
	if want := "run/half failed: " + why + "\nphases with results: load (of load, run)\n"; code != ExitOK || stderr != want {
		t.Errorf("exit %d, stderr %q; want 0, %q", code, stderr, want)
	}
	if !strings.Contains(stdout, "\nload ") || strings.Contains(stdout, "\nrun ") {
		t.Errorf("table of the load phase only:\n%s", stdout)
	}

	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"results", "run/none"}, "run/none failed: " + why + "\nphases with results: none (of load, run)\n"},
		{[]string{"results", "run/half", "--phase", "run", "-o", "csv"}, "run/half failed: " + why +
			"\nphases with results: load (of load, run)\nerror: phase run of run/half has no results: the run failed before it finished\n"},
	} {
		code, stdout, stderr := runPlugin(t, adminKubeconfig(t), append(tc.args, "-n", ns)...)
		if code != ExitFailed || stdout != "" || stderr != tc.stderr {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 1, nothing, %q", tc.args, code, stdout, stderr, tc.stderr)
		}
	}
}
