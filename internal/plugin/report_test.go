package plugin

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/sweep"
	"github.com/mongobench/mongobench/internal/testutil/sweepfixture"
)

// The report package's fixtures are recorded sweeps; here they are put
// into a real API server (the test plays the controller) and the plugin's
// report of them must be exactly the report package's golden files.
const reportTestdata = "../report/testdata"

// loadSweepFixture reads a fixture List (the sweep and its runs).
func loadSweepFixture(t *testing.T, name string) (*benchv1.BenchmarkSweep, []benchv1.BenchmarkRun) {
	t.Helper()
	return sweepfixture.Load(t, filepath.Join(reportTestdata, name+".json"))
}

// ensureNamespace creates a namespace unless it exists (the golden files
// name namespace "bench", which other tests use too).
func ensureNamespace(t *testing.T, c client.Client, name string) {
	t.Helper()
	err := c.Create(testContext(t), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// putSweep stores the fixture's sweep and runs, statuses included, the
// runs owned by the sweep as the controller makes them.
func putSweep(t *testing.T, c client.Client, sw *benchv1.BenchmarkSweep, runs []benchv1.BenchmarkRun) *benchv1.BenchmarkSweep {
	t.Helper()
	ctx := testContext(t)
	status := sw.Status
	obj := &benchv1.BenchmarkSweep{ObjectMeta: metav1.ObjectMeta{Namespace: sw.Namespace, Name: sw.Name}, Spec: sw.Spec}
	if err := c.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	obj.Status = status
	if err := c.Status().Update(ctx, obj); err != nil {
		t.Fatalf("sweep status: %v", err)
	}
	for i := range runs {
		r := runs[i]
		run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: r.Namespace, Name: r.Name, Labels: r.Labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: benchv1.GroupVersion.String(), Kind: "BenchmarkSweep",
				Name: obj.Name, UID: obj.UID, Controller: ptr(true), BlockOwnerDeletion: ptr(true)}}}, Spec: r.Spec}
		if err := c.Create(ctx, run); err != nil {
			t.Fatal(err)
		}
		run.Status = r.Status
		if err := c.Status().Update(ctx, run); err != nil {
			t.Fatalf("status of %s: %v", r.Name, err)
		}
	}
	return obj
}

func reportGolden(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(reportTestdata, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReport(t *testing.T) {
	c := newClient(t)
	ns := "bench"
	ensureNamespace(t, c, ns)
	sw, runs := loadSweepFixture(t, "microsharding")
	// One phase keeps its histograms, another names a ConfigMap that is
	// gone (the report warns and goes on).
	merged := mergedResult(t)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "microsharding-0-r1-s2-histograms"},
		BinaryData: map[string][]byte{contract.ConfigMapKey: merged}}
	if err := c.Create(testContext(t), cm); err != nil {
		t.Fatal(err)
	}
	runs[0].Status.Results[1].Histograms = cm.Name
	runs[0].Status.Results[2].Histograms = "microsharding-0-r1-s3-histograms"
	putSweep(t, c, sw, runs)
	// A run labelled with the sweep's name but not owned by it is not
	// one of its children.
	stray := createRun(t, c, ns, "microsharding-stray")
	stray.Labels = map[string]string{benchv1.LabelSweep: "microsharding"}
	if err := c.Update(testContext(t), stray); err != nil {
		t.Fatal(err)
	}
	kc := adminKubeconfig(t)

	t.Run("markdown and csv are the report package's", func(t *testing.T) {
		for _, tc := range []struct {
			args   []string
			golden string
		}{
			{[]string{"report", "sweep/microsharding"}, "microsharding.md"},
			{[]string{"report", "bsw/microsharding", "-o", "md", "--axis", "topology"}, "microsharding.md"},
			{[]string{"report", "benchmarksweeps.bench.mongobench.io/microsharding", "-o", "csv"}, "microsharding.csv"},
			{[]string{"report", "run/microsharding-1-r1"}, "run.md"},
			{[]string{"report", "microsharding-1-r1", "-o", "csv"}, "run.csv"},
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

	t.Run("json has every child and the kept histograms", func(t *testing.T) {
		code, stdout, stderr := runPlugin(t, kc, "report", "sweep/microsharding", "-n", ns, "-o", "json")
		if code != ExitOK {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		if want := "warning: run/microsharding-0-r1 phase S3: histogram ConfigMap microsharding-0-r1-s3-histograms is gone; the report has no histograms for the phase\n"; stderr != want {
			t.Errorf("stderr %q, want %q", stderr, want)
		}
		var rep struct {
			Format string `json:"format"`
			Sweep  struct {
				Status benchv1.BenchmarkSweepStatus `json:"status"`
			} `json:"sweep"`
			Runs []struct {
				Metadata   metav1.ObjectMeta `json:"metadata"`
				Histograms map[string][]byte `json:"histograms"`
			} `json:"runs"`
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Format != "mongobench.report/v1" || rep.Sweep.Status.Best != sw.Status.Best || len(rep.Runs) != len(runs) {
			t.Fatalf("format %q, best %q, %d runs (want %d: the stray run is not a child)", rep.Format, rep.Sweep.Status.Best, len(rep.Runs), len(runs))
		}
		for _, r := range rep.Runs {
			want := map[string][]byte(nil)
			if r.Metadata.Name == "microsharding-0-r1" {
				want = map[string][]byte{"S2": merged}
			}
			if len(r.Histograms) != len(want) || string(r.Histograms["S2"]) != string(want["S2"]) {
				t.Errorf("%s: histograms %v, want %v", r.Metadata.Name, keys(r.Histograms), keys(want))
			}
		}
		if _, err := results.DecodeMerged(rep.Runs[0].Histograms["S2"]); err != nil {
			t.Errorf("the histograms do not decode after the trip: %v", err)
		}
	})

	t.Run("html to a directory", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "reports")
		code, stdout, stderr := runPlugin(t, kc, "report", "sweep/microsharding", "-n", ns, "-o", "html", "--out", dir)
		path := filepath.Join(dir, "microsharding.html")
		if code != ExitOK || stderr != "" || stdout != path+"\n" {
			t.Fatalf("exit %d, stdout %q (want the path %s), stderr %q", code, stdout, path, stderr)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "<svg"); n != 26 || !strings.HasPrefix(string(b), "<!DOCTYPE html>") {
			t.Errorf("%s: %d charts, want 26 (against topology, per phase: throughput, p99, mean latency, connections, and S4's intended p99; "+
				"and 5 over time)", path, n)
		}
		_, stdout, _ = runPlugin(t, kc, "report", "sweep/microsharding", "-n", ns, "-o", "html")
		if stdout != string(b) {
			t.Error("the file differs from the report on stdout")
		}
	})

	t.Run("usage errors", func(t *testing.T) {
		for _, tc := range []struct {
			args   []string
			stderr string
		}{
			{[]string{"report", "sweep/microsharding", "-o", "pdf"}, `unknown output format "pdf"`},
			{[]string{"report", "sweep/microsharding", "--axis", "shards"}, `--axis: sweep microsharding has no axis "shards" (its axes: topology)`},
			{[]string{"report", "run/microsharding-1-r1", "--axis", "topology"}, `--axis: run microsharding-1-r1 has no axes`},
			{[]string{"report", "sweep/missing"}, `error: sweep/missing not found in namespace "bench"`},
			{[]string{"report", "pod/x"}, `unknown resource type "pod" (want run/NAME or sweep/NAME)`},
			{[]string{"report"}, "expected one argument, run/NAME or sweep/NAME; got 0"},
		} {
			code, stdout, stderr := runPlugin(t, kc, append(tc.args, "-n", ns)...)
			if code != ExitNoVerdict || !strings.Contains(stderr, tc.stderr) || stdout != "" {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, stdout, stderr, tc.stderr)
			}
		}
	})
}

// A sweep still running is reported as far as it got.
func TestReportOfRunningSweep(t *testing.T) {
	c := newClient(t)
	ns := createNamespace(t, c, "report-")
	sw := createSweep(t, c, ns, "going")
	setSweepStatus(t, c, sw, sweepStatus(benchv1.SweepRunning, benchv1.RunSucceeded, benchv1.RunRunning))
	code, stdout, stderr := runPlugin(t, adminKubeconfig(t), "report", "sweep/going", "-n", ns)
	if code != ExitOK || !strings.HasPrefix(stdout, "# Sweep going\n") {
		t.Fatalf("exit %d, stderr %q\n%s", code, stderr, stdout)
	}
	if want := "sweep/going has not finished (phase=Running cells=1/2 failed=0 active=1): the report shows the runs ended so far\n"; stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
}

// mergedResult is a phase's merged result as the controller keeps it.
func mergedResult(t *testing.T) []byte {
	t.Helper()
	r := runRun().ToResult("loader-0")
	b, err := results.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := results.DecodeMerged(b); err != nil {
		t.Fatal(err)
	}
	return b
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// sweepSpec is a small valid sweep: threads 1 and 2 of the sample run.
func sweepSpec() benchv1.BenchmarkSweepSpec {
	return benchv1.BenchmarkSweepSpec{Template: sampleSpec(), Axes: []benchv1.SweepAxis{{Name: "threads", Threads: []int32{1, 2}}}}
}

func createSweep(t *testing.T, c client.Client, ns, name string) *benchv1.BenchmarkSweep {
	t.Helper()
	sw := &benchv1.BenchmarkSweep{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: sweepSpec()}
	if err := c.Create(testContext(t), sw); err != nil {
		t.Fatal(err)
	}
	return sw
}

// setSweepStatus writes the sweep's status as the controller would.
func setSweepStatus(t *testing.T, c client.Client, sw *benchv1.BenchmarkSweep, st benchv1.BenchmarkSweepStatus) {
	t.Helper()
	ctx := testContext(t)
	cur := &benchv1.BenchmarkSweep{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(sw), cur); err != nil {
		t.Fatal(err)
	}
	cur.Status = st
	if err := c.Status().Update(ctx, cur); err != nil {
		t.Fatalf("update sweep status: %v", err)
	}
}

// sweepStatus is a two-cell sweep (threads 1 and 2, one repetition) in
// phase p whose runs are in the given phases ("": not created yet).
func sweepStatus(p benchv1.SweepLifecycle, runs ...benchv1.RunLifecycle) benchv1.BenchmarkSweepStatus {
	st := benchv1.BenchmarkSweepStatus{Phase: p, CellsTotal: 2}
	for i, th := range []string{"1", "2"} {
		rs := benchv1.SweepRunStatus{Name: sweep.RunName("s", i, 1), Repetition: 1, Phase: runs[i]}
		cs := benchv1.SweepCellStatus{Index: int32(i), Name: th, Phase: benchv1.SweepPending,
			Values: []benchv1.SweepCellValue{{Axis: "threads", Value: th, Number: ptr(float64(i + 1))}},
			Runs:   []benchv1.SweepRunStatus{rs}}
		switch runs[i] {
		case benchv1.RunFailed:
			cs.Phase, cs.Runs[0].Reason = benchv1.SweepFailed, string(benchv1.ReasonPhaseFailed)
			st.CellsDone++
			st.CellsFailed++
		case benchv1.RunSucceeded:
			cs.Phase = benchv1.SweepSucceeded
			st.CellsDone++
		case "":
		default:
			cs.Phase = benchv1.SweepRunning
			st.RunsActive++
		}
		st.Cells = append(st.Cells, cs)
	}
	return st
}

func sweepCond(typ string, status metav1.ConditionStatus, reason benchv1.Reason, message string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: string(reason), Message: message, LastTransitionTime: metav1.NewTime(fixtureStart)}
}

func TestWaitSweep(t *testing.T) {
	c := newClient(t)
	ns := createNamespace(t, c, "wait-sweep-")
	ok, failed, running := benchv1.RunSucceeded, benchv1.RunFailed, benchv1.RunRunning
	partial := sweepStatus(benchv1.SweepPartiallySucceeded, ok, failed)
	partial.Conditions = []metav1.Condition{
		sweepCond(benchv1.ConditionComplete, metav1.ConditionTrue, benchv1.ReasonSomeRunsFailed, "1 of 2 runs failed (s-1-r1: PhaseFailed)"),
		sweepCond(benchv1.ConditionFailed, metav1.ConditionFalse, benchv1.ReasonSomeRunsFailed, "the sweep did not fail"),
	}
	stopped := sweepStatus(benchv1.SweepFailed, ok, failed)
	stopped.Conditions = []metav1.Condition{
		sweepCond(benchv1.ConditionComplete, metav1.ConditionFalse, benchv1.ReasonRunFailed, "the sweep did not complete"),
		sweepCond(benchv1.ConditionFailed, metav1.ConditionTrue, benchv1.ReasonRunFailed, "run s-1-r1 failed (PhaseFailed); failurePolicy Stop: 0 of 2 runs were not started"),
	}
	regressed := sweepStatus(benchv1.SweepSucceeded, ok, ok)
	regressed.Conditions = []metav1.Condition{
		sweepCond(benchv1.ConditionComplete, metav1.ConditionTrue, benchv1.ReasonSucceeded, "all 2 runs of 2 cells succeeded"),
		sweepCond(benchv1.ConditionRegressed, metav1.ConditionTrue, benchv1.ReasonRegression,
			"1 of 2 cells regressed: cell 2: S2 throughput -20.0% vs 6-run history (p=1e-07)"),
	}
	// invalid: cell 2's only run succeeded but is not valid, so the cell
	// has no results (exit 4); regressedInvalid: cell 1 regressed as
	// well (exit 3 wins, both said); partialInvalid: the failure wins.
	invalidRun := func(st benchv1.BenchmarkSweepStatus) benchv1.BenchmarkSweepStatus {
		st = *st.DeepCopy()
		st.Cells[1].Runs[0].Valid, st.Cells[1].Runs[0].InvalidReason = ptr(false), string(benchv1.ReasonPrimaryChanged)
		st.Cells[1].InvalidRuns, st.RunsInvalid, st.CellsInvalid = 1, 1, 1
		st.Cells[0].Runs[0].Valid = ptr(true)
		return st
	}
	invalid := invalidRun(sweepStatus(benchv1.SweepSucceeded, ok, ok))
	regressedInvalid := invalidRun(regressed)
	regressedInvalid.Conditions[1].Message = "1 of 1 cells regressed: cell 1: S2 throughput -20.0% vs 6-run history (p=1e-07); " +
		"not compared: cell 2 (no valid run: s-1-r1 (PrimaryChanged))"
	// someInvalid: two repetitions per cell, one of cell 2's invalid; each
	// cell keeps a valid run: exit 0, the invalid run named.
	someInvalid := sweepStatus(benchv1.SweepSucceeded, ok, ok)
	for i := range someInvalid.Cells {
		second := someInvalid.Cells[i].Runs[0]
		second.Name, second.Repetition = sweep.RunName("s", i, 2), 2
		someInvalid.Cells[i].Runs = append(someInvalid.Cells[i].Runs, second)
	}
	someInvalid.Cells[1].Runs[1].Valid, someInvalid.Cells[1].Runs[1].InvalidReason = ptr(false), string(benchv1.ReasonLoaderSaturated)
	someInvalid.Cells[1].InvalidRuns, someInvalid.RunsInvalid = 1, 1
	for _, tc := range []struct {
		name   string
		end    benchv1.BenchmarkSweepStatus
		code   ExitCode
		last   string
		stderr string
	}{
		{"ok", sweepStatus(benchv1.SweepSucceeded, ok, ok), ExitOK,
			"phase=Succeeded cells=2/2 failed=0 active=0 run=s-1-r1 cell=2 run-phase=Succeeded", ""},
		{"regressed", regressed, ExitRegressed,
			"phase=Succeeded cells=2/2 failed=0 active=0 run=s-1-r1 cell=2 run-phase=Succeeded",
			"sweep/regressed succeeded but regressed: 1 of 2 cells regressed: cell 2: S2 throughput -20.0% vs 6-run history (p=1e-07)\n"},
		{"partial", partial, ExitFailed,
			"phase=PartiallySucceeded cells=2/2 failed=1 active=0 run=s-1-r1 cell=2 run-phase=Failed run-reason=PhaseFailed",
			"sweep/partial partially succeeded: 1 of 2 cells have failed runs; 1 of 2 runs failed: s-1-r1 (PhaseFailed)\n"},
		{"invalid", invalid, ExitInvalid,
			"phase=Succeeded cells=2/2 failed=0 active=0 invalid=1 run=s-1-r1 cell=2 run-phase=Succeeded run-invalid=PrimaryChanged",
			"sweep/invalid: 1 of 2 cells have no valid run, hence no results: 2 (s-1-r1: PrimaryChanged)\n"},
		{"regressed-invalid", regressedInvalid, ExitRegressed,
			"phase=Succeeded cells=2/2 failed=0 active=0 invalid=1 run=s-1-r1 cell=2 run-phase=Succeeded run-invalid=PrimaryChanged",
			"sweep/regressed-invalid succeeded but regressed: 1 of 1 cells regressed: cell 1: S2 throughput -20.0% vs 6-run history (p=1e-07); " +
				"not compared: cell 2 (no valid run: s-1-r1 (PrimaryChanged))\n" +
				"sweep/regressed-invalid: 1 of 2 cells have no valid run, hence no results: 2 (s-1-r1: PrimaryChanged)\n"},
		{"some-invalid", someInvalid, ExitOK,
			"phase=Succeeded cells=2/2 failed=0 active=0 invalid=1 run=s-0-r2 cell=1 run-phase=Succeeded\n" +
				"phase=Succeeded cells=2/2 failed=0 active=0 invalid=1 run=s-1-r1 cell=2 run-phase=Succeeded\n" +
				"phase=Succeeded cells=2/2 failed=0 active=0 invalid=1 run=s-1-r2 cell=2 run-phase=Succeeded run-invalid=LoaderSaturated",
			"sweep/some-invalid: 1 runs are not valid and were left out of their cells' results: cell 2 s-1-r2: LoaderSaturated\n"},
		{"stopped", stopped, ExitFailed,
			"phase=Failed cells=2/2 failed=1 active=0 reason=RunFailed run=s-1-r1 cell=2 run-phase=Failed run-reason=PhaseFailed",
			"sweep/stopped failed: RunFailed: run s-1-r1 failed (PhaseFailed); failurePolicy Stop: 0 of 2 runs were not started\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sw := createSweep(t, c, ns, tc.name)
			inv := start(t, adminKubeconfig(t), []string{"wait", "sweep/" + tc.name, "-n", ns, "--timeout=2m"})
			prefix := "sweep/" + tc.name + " "
			want := prefixed(prefix, append([]string{
				"phase=- cells=0/0 failed=0 active=0",
				"phase=Running cells=0/2 failed=0 active=1",
				"phase=Running cells=1/2 failed=0 active=1 run=s-0-r1 cell=1 run-phase=Succeeded",
			}, strings.Split(tc.last, "\n")...))
			inv.awaitOutput(t, want[0])
			setSweepStatus(t, c, sw, sweepStatus(benchv1.SweepRunning, running, ""))
			inv.awaitOutput(t, want[1])
			setSweepStatus(t, c, sw, sweepStatus(benchv1.SweepRunning, ok, running))
			inv.awaitOutput(t, want[2])
			setSweepStatus(t, c, sw, tc.end)
			if code := inv.exit(t, 30*time.Second); code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, inv.stdout, inv.stderr)
			}
			if got := unstamped(t, inv.stdout.String()); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("progress lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if got := inv.stderr.String(); got != tc.stderr {
				t.Errorf("stderr %q, want %q", got, tc.stderr)
			}
		})
	}

	t.Run("timeout and check once", func(t *testing.T) {
		sw := createSweep(t, c, ns, "slow")
		setSweepStatus(t, c, sw, sweepStatus(benchv1.SweepRunning, ok, running))
		began := time.Now()
		code, _, stderr := runPlugin(t, adminKubeconfig(t), "wait", "sweep/slow", "-n", ns, "--timeout=2s")
		if took := time.Since(began); code != ExitNoVerdict || took < 2*time.Second || took > 20*time.Second {
			t.Errorf("exit %d after %s, want 2 after 2s", code, took)
		}
		if want := "error: timed out after 2s waiting for sweep/slow (phase=Running cells=1/2 failed=0 active=1)\n"; stderr != want {
			t.Errorf("stderr %q, want %q", stderr, want)
		}
		code, _, stderr = runPlugin(t, adminKubeconfig(t), "wait", "sweeps/slow", "-n", ns, "--timeout=0")
		if want := "error: sweep/slow has not finished (phase=Running cells=1/2 failed=0 active=1)\n"; code != ExitNoVerdict || stderr != want {
			t.Errorf("--timeout=0: exit %d, stderr %q; want 2, %q", code, stderr, want)
		}
		code, _, stderr = runPlugin(t, adminKubeconfig(t), "wait", "sweep/missing", "-n", ns)
		if code != ExitNoVerdict || !strings.Contains(stderr, `error: sweep/missing not found in namespace "`+ns+`"`) {
			t.Errorf("missing sweep: exit %d, stderr %q", code, stderr)
		}
	})
}

func prefixed(p string, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = p + l
	}
	return out
}

// The growth study's fixture in a real API server (its statuses pass the
// CRD's schema): the plugin's Markdown and CSV are the report package's
// golden files, the HTML has the growth charts, and the JSON keeps a Grow
// phase's full rows (every shard's sizes) as its histograms ConfigMap
// holds them.
func TestReportGrowth(t *testing.T) {
	c := newClient(t)
	ns := "bench"
	ensureNamespace(t, c, ns)
	sw, runs := loadSweepFixture(t, "growth")
	kept := growResult(t)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "growth-3-r1-grow-histograms"},
		BinaryData: map[string][]byte{contract.ConfigMapKey: kept}}
	if err := c.Create(testContext(t), cm); err != nil {
		t.Fatal(err)
	}
	found := false
	for i := range runs {
		if runs[i].Name == "growth-3-r1" {
			runs[i].Status.Results[0].Histograms = cm.Name
			found = true
		}
	}
	if !found {
		t.Fatal("no run growth-3-r1 in the fixture")
	}
	putSweep(t, c, sw, runs)
	kc := adminKubeconfig(t)

	for _, tc := range []struct {
		format, golden string
	}{{"md", "growth.md"}, {"csv", "growth.csv"}} {
		code, stdout, stderr := runPlugin(t, kc, "report", "sweep/growth", "-n", ns, "-o", tc.format)
		if code != ExitOK || stderr != "" {
			t.Errorf("-o %s: exit %d, stderr %q", tc.format, code, stderr)
		}
		if want := reportGolden(t, tc.golden); stdout != want {
			t.Errorf("-o %s differs from %s:\n%s", tc.format, tc.golden, stdout)
		}
	}

	code, stdout, stderr := runPlugin(t, kc, "report", "sweep/growth", "-n", ns, "-o", "html")
	if n := strings.Count(stdout, "<svg"); code != ExitOK || stderr != "" || n != 16 || !strings.Contains(stdout, "Insert rate against records") {
		t.Errorf("-o html: exit %d, stderr %q, %d charts (want 16: 13 of the growth, 3 of its phase against topology)", code, stderr, n)
	}

	code, stdout, stderr = runPlugin(t, kc, "report", "sweep/growth", "-n", ns, "-o", "json")
	if code != ExitOK || stderr != "" {
		t.Fatalf("-o json: exit %d, stderr %q", code, stderr)
	}
	var rep struct {
		Runs []struct {
			Metadata   metav1.ObjectMeta          `json:"metadata"`
			Status     benchv1.BenchmarkRunStatus `json:"status"`
			Histograms map[string][]byte          `json:"histograms"`
		} `json:"runs"`
		Growth []struct {
			CellName    string            `json:"cellName"`
			Checkpoints []json.RawMessage `json:"checkpoints"`
		} `json:"growth"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Growth) != 6 || len(rep.Growth[3].Checkpoints) != 20 || rep.Growth[3].CellName != "3-shards/unacknowledged" {
		t.Errorf("growth of %d cells, want 6 of 20 checkpoints", len(rep.Growth))
	}
	for _, r := range rep.Runs {
		if g := r.Status.Results[0].Growth; g == nil || len(g.Checkpoints) != 20 {
			t.Errorf("%s: its status lost the growth", r.Metadata.Name)
		}
		if r.Metadata.Name != "growth-3-r1" {
			continue
		}
		m, err := results.DecodeMerged(r.Histograms["grow"])
		if err != nil {
			t.Fatalf("the Grow phase's histograms do not decode after the trip: %v", err)
		}
		want, _ := results.DecodeMerged(kept)
		if sh := m.Growth.Checkpoints[1].Sizes.Shards; len(sh) != 2 || *sh[1].StorageSize != *want.Growth.Checkpoints[1].Sizes.Shards[1].StorageSize {
			t.Errorf("every shard's sizes did not survive: %+v", sh)
		}
	}
}

// growResult is a Grow phase's merged result as the controller keeps it:
// two checkpoints of a 2-shard collection with every shard's sizes.
func growResult(t *testing.T) []byte {
	t.Helper()
	start := time.Date(2026, 5, 4, 8, 0, 0, 0, time.UTC)
	r := &results.Result{Version: results.FormatVersion, Kind: results.KindGrow, Loader: results.Identity{Count: 1, Threads: 8},
		Start: start, End: start.Add(time.Hour), RuntimeMillis: 3_600_000, StopReason: results.StopCompleted,
		Growth: &results.GrowthResult{TargetRecords: 2000, CheckpointEvery: 1000, PlannedCheckpoints: 2,
			InsertMode: results.InsertAcknowledged, BatchSize: 1, InsertThreads: 1, QueryThreads: 8, QueryMillis: 1000,
			Queries: []string{results.OpQ3}, Values: 200}}
	op := results.OpResult{Name: results.OpInsert, Statuses: map[string]int64{"OK": 2000}, Latency: hist(), Failed: results.NewHistogram()}
	for range 2000 {
		op.Latency.Record(150)
	}
	r.Ops, r.Operations = []results.OpResult{op}, 2000
	n := func(v int64) *int64 { return &v }
	for i := int64(1); i <= 2; i++ {
		st := &results.CollectionStats{Time: start, Namespace: "ycsb.growth", Source: "$collStats",
			CollectionSizes: results.CollectionSizes{Count: n(1000 * i), Size: n(1024_000 * i)}}
		for s := int64(0); s < 2; s++ {
			st.Shards = append(st.Shards, results.ShardSizes{Shard: "shard" + strconv.FormatInt(s, 10),
				CollectionSizes: results.CollectionSizes{Count: n(500 * i), Size: n(512_000 * i), StorageSize: n(300_000*i + s)}})
		}
		r.Growth.Checkpoints = append(r.Growth.Checkpoints, results.GrowthCheckpoint{Index: int(i), Records: 1000 * i,
			Start: start, End: start, Insert: results.GrowthInsert{FromRecords: 1000 * (i - 1), Records: 1000, Millis: 500, RecordsPerSec: 2000},
			Sizes: st})
	}
	b, err := results.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := results.DecodeMerged(b); err != nil {
		t.Fatal(err)
	}
	return b
}
