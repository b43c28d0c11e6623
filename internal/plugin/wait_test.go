package plugin

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// A run's life as the controller writes it, with the line wait prints for
// each step.
type step struct {
	status benchv1.BenchmarkRunStatus
	line   string // "" if the step must print nothing
}

func lifecycle() []step {
	done := succeededStatus()
	load := done.Results[0]
	notReady := func(reason, msg string) []metav1.Condition {
		return []metav1.Condition{cond(benchv1.ConditionTopologyReady, metav1.ConditionFalse, reason, msg)}
	}
	ready := []metav1.Condition{cond(benchv1.ConditionTopologyReady, metav1.ConditionTrue, "Ready", "1 MongoDB processes ready")}
	running := benchv1.BenchmarkRunStatus{Phase: benchv1.RunRunning, CurrentPhase: "run", Conditions: ready, Results: []benchv1.PhaseResult{load}}
	restarted := *running.DeepCopy()
	restarted.Topology = &benchv1.TopologyStatus{EntryPoint: "demo-mongod:27017", Processes: []benchv1.ProcessStatus{
		{Role: benchv1.RoleStandalone, Pod: "demo-mongod-0", Address: "demo-mongod-0:27017", Ready: true, Restarts: 1}}}
	return []step{
		{benchv1.BenchmarkRunStatus{Phase: benchv1.RunPending}, "phase=Pending current=-"},
		{benchv1.BenchmarkRunStatus{Phase: benchv1.RunProvisioning, Conditions: notReady("WaitingForPods", "0/1 MongoDB pods ready")},
			`phase=Provisioning current=- topology=WaitingForPods message="0/1 MongoDB pods ready"`},
		{benchv1.BenchmarkRunStatus{Phase: benchv1.RunProvisioning, Conditions: notReady("Bootstrapping", "1/1 MongoDB pods ready; bootstrap Job running")},
			`phase=Provisioning current=- topology=Bootstrapping message="1/1 MongoDB pods ready; bootstrap Job running"`},
		{benchv1.BenchmarkRunStatus{Phase: benchv1.RunLoading, CurrentPhase: "load", Conditions: ready}, "phase=Loading current=load"},
		{running, "phase=Running current=run finished=load type=Load ops/s=98.91 runtime=10.11s operations=1000 p99=1089us"},
		{restarted, ""},
		{done, "phase=Succeeded current=run finished=run type=Run ops/s=751.50 runtime=2s operations=1503 p99=1084us"},
	}
}

// play writes each step's status once wait has printed the previous
// step's line, so every transition is seen on its own.
func play(t *testing.T, inv *invocation, run *benchv1.BenchmarkRun, steps []step) []string {
	t.Helper()
	c := newClient(t)
	want := []string{"run/" + run.Name + " phase=- current=-"}
	inv.awaitOutput(t, want[0])
	for i, s := range steps {
		setStatus(t, c, run, s.status)
		if s.line == "" {
			continue
		}
		want = append(want, "run/"+run.Name+" "+s.line)
		if i < len(steps)-1 {
			inv.awaitOutput(t, want[len(want)-1])
		}
	}
	return want
}

func TestWaitSucceeded(t *testing.T) {
	c := newClient(t)
	ns := createNamespace(t, c, "wait-")
	run := createRun(t, c, ns, "demo")
	inv := start(t, adminKubeconfig(t), []string{"wait", "run/demo", "-n", ns, "--timeout=2m"})
	want := play(t, inv, run, lifecycle())
	if code := inv.exit(t, 30*time.Second); code != ExitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, inv.stderr)
	}
	if got := unstamped(t, inv.stdout.String()); !reflect.DeepEqual(got, want) {
		t.Errorf("progress lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if inv.stderr.String() != "" {
		t.Errorf("stderr: %q", inv.stderr)
	}
}

// TestWaitRegressed: a run that succeeded but that spec.compare judged
// Regressed exits 3, the condition's message on stderr.
func TestWaitRegressed(t *testing.T) {
	c := newClient(t)
	ns := createNamespace(t, c, "wait-")
	run := createRun(t, c, ns, "gated")
	inv := start(t, adminKubeconfig(t), []string{"wait", "run/gated", "-n", ns, "--timeout=2m"})
	steps := lifecycle()
	last := &steps[len(steps)-1].status
	last.Conditions = append(last.Conditions, cond(benchv1.ConditionRegressed, metav1.ConditionTrue, "Regression",
		"S3 throughput -12.4% vs 30-run history (p=2e-05)"))
	play(t, inv, run, steps)
	if code := inv.exit(t, 30*time.Second); code != ExitRegressed {
		t.Fatalf("exit %d, want 3\nstderr:\n%s", code, inv.stderr)
	}
	if got, want := inv.stderr.String(), "run/gated succeeded but regressed: S3 throughput -12.4% vs 30-run history (p=2e-05)\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
}

// TestWaitInvalid: a run that succeeded but whose Valid condition is False
// exits 4, its last line saying why and the condition on stderr; a
// Regressed condition that is True would win (exit 3).
func TestWaitInvalid(t *testing.T) {
	c := newClient(t)
	ns := createNamespace(t, c, "wait-")
	const msg = "phase run: loader 0 used 97.5% of its CPU (2 (cgroup)), above maxLoaderCPUPercent 90"
	for _, tc := range []struct {
		name      string
		regressed bool
		code      ExitCode
		stderr    string
	}{
		{"noisy", false, ExitInvalid, "run/noisy succeeded but is not valid: LoaderSaturated: " + msg + "\n"},
		{"both", true, ExitRegressed, "run/both succeeded but regressed: run throughput -12.4% vs 30-run history (p=2e-05)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := createRun(t, c, ns, tc.name)
			inv := start(t, adminKubeconfig(t), []string{"wait", "run/" + tc.name, "-n", ns, "--timeout=2m"})
			steps := lifecycle()
			last := &steps[len(steps)-1]
			meta.SetStatusCondition(&last.status.Conditions, cond(benchv1.ConditionValid, metav1.ConditionFalse, "LoaderSaturated", msg))
			if tc.regressed {
				last.status.Conditions = append(last.status.Conditions, cond(benchv1.ConditionRegressed, metav1.ConditionTrue, "Regression",
					"run throughput -12.4% vs 30-run history (p=2e-05)"))
			}
			last.line = "phase=Succeeded current=run invalid=LoaderSaturated finished=run type=Run ops/s=751.50 runtime=2s operations=1503 p99=1084us"
			want := play(t, inv, run, steps)
			if code := inv.exit(t, 30*time.Second); code != tc.code {
				t.Fatalf("exit %d, want %d\nstderr:\n%s", code, tc.code, inv.stderr)
			}
			if got := unstamped(t, inv.stdout.String()); !reflect.DeepEqual(got, want) {
				t.Errorf("progress lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if got := inv.stderr.String(); got != tc.stderr {
				t.Errorf("stderr %q, want %q", got, tc.stderr)
			}
		})
	}
}

func TestWaitFailed(t *testing.T) {
	c := newClient(t)
	ns := createNamespace(t, c, "wait-")
	run := createRun(t, c, ns, "broken")
	inv := start(t, adminKubeconfig(t), []string{"wait", "benchmarkrun/broken", "-n", ns})
	steps := lifecycle()[:2]
	failed := benchv1.BenchmarkRunStatus{Phase: benchv1.RunFailed, Conditions: []metav1.Condition{
		cond(benchv1.ConditionTopologyReady, metav1.ConditionFalse, "ImagePullFailed", "the run failed before its topology was ready"),
		cond(benchv1.ConditionComplete, metav1.ConditionFalse, "ImagePullFailed", "the run failed"),
		cond(benchv1.ConditionFailed, metav1.ConditionTrue, "ImagePullFailed", "pod broken-mongod-0 cannot pull image mongo:0.0: ErrImagePull: not found"),
	}}
	want := play(t, inv, run, append(steps, step{failed, "phase=Failed current=- reason=ImagePullFailed"}))
	if code := inv.exit(t, 30*time.Second); code != ExitFailed {
		t.Fatalf("exit %d, want 1\nstderr:\n%s", code, inv.stderr)
	}
	if got := unstamped(t, inv.stdout.String()); !reflect.DeepEqual(got, want) {
		t.Errorf("progress lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got, want := inv.stderr.String(), "run/broken failed: ImagePullFailed: pod broken-mongod-0 cannot pull image mongo:0.0: ErrImagePull: not found\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
}

func TestWaitTimeout(t *testing.T) {
	c := newClient(t)
	ns := createNamespace(t, c, "wait-")
	run := createRun(t, c, ns, "slow")
	setStatus(t, c, run, lifecycle()[4].status) // Running, forever
	began := time.Now()
	code, stdout, stderr := runPlugin(t, adminKubeconfig(t), "wait", "run/slow", "-n", ns, "--timeout=2s")
	took := time.Since(began)
	if code != ExitNoVerdict {
		t.Fatalf("exit %d, want 2\nstderr:\n%s", code, stderr)
	}
	if took < 2*time.Second || took > 20*time.Second {
		t.Errorf("a 2s timeout took %s", took)
	}
	if want := "error: timed out after 2s waiting for run/slow (phase Running, current phase run)\n"; stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
	if !strings.Contains(stdout, "run/slow phase=Running current=run finished=load") {
		t.Errorf("stdout lacks the state seen:\n%s", stdout)
	}
}

// --timeout=0 checks once, like kubectl wait's.
func TestWaitCheckOnce(t *testing.T) {
	c := newClient(t)
	ns := createNamespace(t, c, "wait-")
	for _, tc := range []struct {
		name   string
		status benchv1.BenchmarkRunStatus
		code   ExitCode
		stderr string
	}{
		{"running", lifecycle()[4].status, ExitNoVerdict, "error: run/running has not finished (phase Running, current phase run)\n"},
		{"succeeded", succeededStatus(), ExitOK, ""},
	} {
		run := createRun(t, c, ns, tc.name)
		setStatus(t, c, run, tc.status)
		code, stdout, stderr := runPlugin(t, adminKubeconfig(t), "wait", tc.name, "-n", ns, "--timeout=0")
		if code != tc.code || stderr != tc.stderr {
			t.Errorf("%s: exit %d, stderr %q; want %d, %q", tc.name, code, stderr, tc.code, tc.stderr)
		}
		if len(unstamped(t, stdout)) == 0 {
			t.Errorf("%s: no state printed", tc.name)
		}
	}
}

func TestWaitDeletedOrInterrupted(t *testing.T) {
	c := newClient(t)
	ns := createNamespace(t, c, "wait-")

	run := createRun(t, c, ns, "doomed")
	inv := start(t, adminKubeconfig(t), []string{"wait", "run/doomed", "-n", ns})
	inv.awaitOutput(t, "run/doomed phase=- current=-")
	if err := c.Delete(testContext(t), run); err != nil {
		t.Fatal(err)
	}
	if code := inv.exit(t, 30*time.Second); code != ExitNoVerdict || !strings.Contains(inv.stderr.String(), "error: run/doomed was deleted while waiting") {
		t.Errorf("deleted: exit %d, stderr %q", code, inv.stderr)
	}

	createRun(t, c, ns, "waited")
	inv = start(t, adminKubeconfig(t), []string{"wait", "run/waited", "-n", ns})
	inv.awaitOutput(t, "run/waited phase=- current=-")
	inv.interrupt()
	if code := inv.exit(t, 30*time.Second); code != ExitNoVerdict || !strings.Contains(inv.stderr.String(), "error: interrupted while waiting for run/waited (phase -, current phase -)") {
		t.Errorf("interrupted: exit %d, stderr %q", code, inv.stderr)
	}
}

// flakyWatches breaks every watch after the first update it delivers:
// either closed (a dropped connection) or with 410 Gone (an expired
// resourceVersion, which forces a re-list).
type flakyWatches struct {
	lw      cache.ListerWatcherWithContext
	expire  bool
	watches atomic.Int32
}

func (f *flakyWatches) List(opts metav1.ListOptions) (runtime.Object, error) {
	return f.ListWithContext(context.Background(), opts)
}

func (f *flakyWatches) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return f.WatchWithContext(context.Background(), opts)
}

func (f *flakyWatches) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return f.lw.ListWithContext(ctx, opts)
}

func (f *flakyWatches) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := f.lw.WatchWithContext(ctx, opts)
	if err != nil {
		return nil, err
	}
	f.watches.Add(1)
	b := &breakingWatch{inner: w, out: make(chan watch.Event), stop: make(chan struct{})}
	go b.run(f.expire)
	return b, nil
}

type breakingWatch struct {
	inner watch.Interface
	out   chan watch.Event
	stop  chan struct{}
	once  sync.Once
}

func (b *breakingWatch) Stop()                          { b.once.Do(func() { close(b.stop) }) }
func (b *breakingWatch) ResultChan() <-chan watch.Event { return b.out }

func (b *breakingWatch) send(ev watch.Event) bool {
	select {
	case b.out <- ev:
		return true
	case <-b.stop:
		return false
	}
}

func (b *breakingWatch) run(expire bool) {
	defer close(b.out)
	defer b.inner.Stop()
	for {
		select {
		case <-b.stop:
			return
		case ev, ok := <-b.inner.ResultChan():
			if !ok || !b.send(ev) {
				return
			}
			if ev.Type != watch.Modified {
				continue
			}
			if expire {
				b.send(watch.Event{Type: watch.Error, Object: &metav1.Status{
					Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired,
					Message: "too old resource version",
				}})
			}
			return
		}
	}
}

// wait keeps following the run when its watch breaks or expires, and
// prints every change exactly once.
func TestWaitSurvivesBrokenWatches(t *testing.T) {
	for _, expire := range []bool{false, true} {
		name := map[bool]string{false: "closed", true: "expired"}[expire]
		t.Run(name, func(t *testing.T) {
			c := newClient(t)
			ns := createNamespace(t, c, "flaky-")
			run := createRun(t, c, ns, "flaky")
			var flaky *flakyWatches
			inv := start(t, adminKubeconfig(t), []string{"wait", "run/flaky", "-n", ns, "--timeout=2m"}, func(o *options) {
				o.wrapWatch = func(lw cache.ListerWatcher) cache.ListerWatcher {
					flaky = &flakyWatches{lw: cache.ToListerWatcherWithContext(lw), expire: expire}
					return flaky
				}
			})
			want := play(t, inv, run, lifecycle()[3:])
			if code := inv.exit(t, time.Minute); code != ExitOK {
				t.Fatalf("exit %d, want 0\nstderr:\n%s", code, inv.stderr)
			}
			if got := unstamped(t, inv.stdout.String()); !reflect.DeepEqual(got, want) {
				t.Errorf("progress lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if n := flaky.watches.Load(); n < 3 {
				t.Errorf("%d watches: the test did not break them", n)
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	c := newClient(t)
	ns := createNamespace(t, c, "usage-")
	run := createRun(t, c, ns, "demo")
	setStatus(t, c, run, succeededStatus())
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"wait"}, "error: expected one argument, run/NAME or sweep/NAME; got 0"},
		{[]string{"results"}, "error: expected one argument, run/NAME; got 0"},
		{[]string{"wait", "run/a", "run/b"}, "got 2"},
		{[]string{"results", "sweep/demo"}, `this command takes run/NAME, not a sweep`},
		{[]string{"wait", "pod/demo"}, `unknown resource type "pod" (want run/NAME or sweep/NAME)`},
		{[]string{"wait", "run/Not_A_Name"}, "invalid name"},
		{[]string{"wait", "run/demo", "--timeout=soon"}, `invalid argument "soon" for "--timeout"`},
		{[]string{"wait", "run/missing"}, `error: run/missing not found in namespace "` + ns + `"`},
		{[]string{"results", "run/missing"}, `error: run/missing not found in namespace "` + ns + `"`},
		{[]string{"results", "run/demo", "-o", "yaml"}, `unknown output format "yaml"`},
		{[]string{"results", "run/demo", "--phase", "nope"}, `run/demo has no phase "nope" (its phases: load, run)`},
		{[]string{"results", "run/demo", "-o", "ycsb", "--percentiles", "99.99"}, "status keeps the 50th, 95th, 99th and 99.9th percentiles only"},
		{[]string{"top", "run/demo", "--interval=0s"}, "--interval must be positive, not 0s"},
		{[]string{"top", "run/missing"}, `error: run/missing not found in namespace "` + ns + `"`},
		{[]string{"top", "sweep/missing"}, `error: sweep/missing not found in namespace "` + ns + `"`},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
	} {
		code, stdout, stderr := runPlugin(t, adminKubeconfig(t), append(tc.args, "-n", ns)...)
		if code != ExitNoVerdict || !strings.Contains(stderr, tc.stderr) || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, stdout, stderr, tc.stderr)
		}
		if !strings.Contains(stderr, "--help' for usage.") {
			t.Errorf("%v: no help hint in %q", tc.args, stderr)
		}
	}
}

// A user who may not read runs gets no verdict, and the API's reason.
func TestForbidden(t *testing.T) {
	c := newClient(t)
	ns := createNamespace(t, c, "forbidden-")
	createRun(t, c, ns, "secret")
	code, _, stderr := runPlugin(t, kubeconfigFor(t, "nobody"), "wait", "run/secret", "-n", ns)
	if code != ExitNoVerdict || !strings.Contains(stderr, "forbidden") || strings.Contains(stderr, "for usage") {
		t.Errorf("exit %d, stderr %q; want 2 and the API's forbidden error without a usage hint", code, stderr)
	}
}

// TestWaitPrintsWarnings: a run whose Warnings condition is True (here,
// BestEffort database pods) ends with it on stderr, whatever its verdict:
// the exit code stays the verdict's.
func TestWaitPrintsWarnings(t *testing.T) {
	c := newClient(t)
	ns := createNamespace(t, c, "wait-")
	const msg = "database pods that are not Guaranteed QoS may be CPU-throttled, which skews the numbers " +
		"(set equal requests and limits, whole CPUs): warned-mongod-0 (BestEffort)"
	run := createRun(t, c, ns, "warned")
	inv := start(t, adminKubeconfig(t), []string{"wait", "run/warned", "-n", ns, "--timeout=2m"})
	steps := lifecycle()
	last := &steps[len(steps)-1].status
	last.Conditions = append(last.Conditions, cond(benchv1.ConditionWarnings, metav1.ConditionTrue, string(benchv1.ReasonEnvironmentWarnings), msg))
	play(t, inv, run, steps)
	if code := inv.exit(t, 30*time.Second); code != ExitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, inv.stderr)
	}
	if got, want := inv.stderr.String(), "run/warned has warnings: EnvironmentWarnings: "+msg+"\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
}
