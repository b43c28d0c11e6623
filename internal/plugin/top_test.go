package plugin

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/sweep"
)

// top against the real API server: the loaders are fake /metrics
// endpoints (a client_golang registry with the contract's metrics, served
// by promhttp) behind the API server's real pod proxy, their pods created
// and given a status here as a kubelet would. A script advances a fake
// clock and changes what the loaders serve between frames, so the frames
// are stable golden files.

// proxyableIP is an IPv4 address of this machine that the pod proxy
// accepts: pod.ResourceLocation (k8s.io/kubernetes
// pkg/registry/core/pod/strategy.go) refuses pod IPs that are not global
// unicast ("address not allowed"), so a fake loader on 127.0.0.1 is out
// of its reach.
func proxyableIP(t *testing.T) net.IP {
	t.Helper()
	ifaces, err := net.Interfaces()
	if err != nil {
		t.Fatalf("list network interfaces: %v", err)
	}
	for _, iface := range ifaces {
		if iface.Flags&net.FlagUp == 0 || iface.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, err := iface.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && n.IP.IsGlobalUnicast() {
				return n.IP.To4()
			}
		}
	}
	t.Fatal("this machine has no non-loopback IPv4 address: the API server's pod proxy refuses loopback and link-local " +
		"pod IPs, so top's tests cannot put a fake loader behind it (give the machine a network interface, e.g. eth0)")
	return nil
}

// fakeLoader is one loader pod's /metrics.
type fakeLoader struct {
	srv       *http.Server
	port      int
	ops       *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	measuring prometheus.Gauge
	finished  prometheus.Gauge
	start     prometheus.Gauge
	// Loader 0's server telemetry.
	connections *prometheus.GaugeVec
	dirty       *prometheus.GaugeVec
	serverOps   *prometheus.CounterVec
}

// latencyBuckets are the fake's classic buckets (seconds).
var latencyBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1}

// startFakeLoader serves loader index's metrics for run's phase on ip.
func startFakeLoader(t *testing.T, ip net.IP, run *benchv1.BenchmarkRun, phase string, index int, threads, planned float64) *fakeLoader {
	t.Helper()
	reg := prometheus.NewRegistry()
	id := prometheus.Labels{contract.MetricLabelNamespace: run.Namespace, contract.MetricLabelRun: run.Name,
		contract.MetricLabelPhase: phase, contract.MetricLabelLoader: strconv.Itoa(index)}
	gauge := func(name string, v float64) prometheus.Gauge {
		g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: name, ConstLabels: id})
		g.Set(v)
		reg.MustRegister(g)
		return g
	}
	f := &fakeLoader{
		ops: prometheus.NewCounterVec(prometheus.CounterOpts{Name: contract.MetricLoaderOperations, Help: "operations", ConstLabels: id},
			[]string{contract.MetricLabelOperation, contract.MetricLabelResult}),
		// A native histogram with classic buckets as its fallback, as
		// the loader's: the text format carries the classic ones.
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: contract.MetricLoaderLatency, Help: "latency",
			ConstLabels: id, Buckets: latencyBuckets, NativeHistogramBucketFactor: 1.1},
			[]string{contract.MetricLabelOperation, contract.MetricLabelResult}),
	}
	reg.MustRegister(f.ops, f.latency)
	gauge(contract.MetricLoaderThreads, threads)
	gauge(contract.MetricLoaderPlannedOperations, planned)
	gauge(contract.MetricLoaderMaxExecution, 600)
	f.measuring = gauge(contract.MetricLoaderMeasuring, 0)
	f.finished = gauge(contract.MetricLoaderFinished, 0)
	f.start = prometheus.NewGauge(prometheus.GaugeOpts{Name: contract.MetricLoaderStartTime, Help: "start", ConstLabels: id})
	reg.MustRegister(f.start)
	if index == 0 {
		f.connections = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: contract.MetricServerConnections, Help: "c", ConstLabels: id},
			[]string{contract.MetricLabelProcess})
		f.dirty = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: contract.MetricServerCacheDirty, Help: "d", ConstLabels: id},
			[]string{contract.MetricLabelProcess})
		f.serverOps = prometheus.NewCounterVec(prometheus.CounterOpts{Name: contract.MetricServerOperations, Help: "o", ConstLabels: id},
			[]string{contract.MetricLabelProcess, contract.MetricLabelType})
		reg.MustRegister(f.connections, f.dirty, f.serverOps)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
	if err != nil {
		t.Fatalf("listen on %s: %v", ip, err)
	}
	mux := http.NewServeMux()
	mux.Handle(contract.MetricsPath, promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	f.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	f.port = ln.Addr().(*net.TCPAddr).Port
	go func() { _ = f.srv.Serve(ln) }()
	t.Cleanup(func() { _ = f.srv.Close() })
	return f
}

// startMeasuring marks the loader measuring since at, as the loader does
// after its warm-up.
func (f *fakeLoader) startMeasuring(at time.Time) {
	f.measuring.Set(1)
	f.start.Set(float64(at.Unix()))
}

// issue records n successful calls of op at latencies spread over
// lat (seconds; each value gets n/len(lat) calls) and errs failed ones.
func (f *fakeLoader) issue(op string, n, errs int, lat ...float64) {
	f.ops.WithLabelValues(op, contract.ResultOK).Add(float64(n))
	if errs > 0 {
		f.ops.WithLabelValues(op, contract.ResultError).Add(float64(errs))
		for range errs {
			f.latency.WithLabelValues(op, contract.ResultError).Observe(1)
		}
	}
	h := f.latency.WithLabelValues(op, contract.ResultOK)
	for i := range n {
		h.Observe(lat[i*len(lat)/n])
	}
}

// server sets loader 0's sample of a MongoDB process.
func (f *fakeLoader) server(process string, conns, dirty float64, ops map[string]float64) {
	f.connections.WithLabelValues(process).Set(conns)
	f.dirty.WithLabelValues(process).Set(dirty)
	for typ, n := range ops {
		f.serverOps.WithLabelValues(process, typ).Add(n)
	}
}

// createLoaderPod creates a loader pod of run's phase whose metrics port
// is the fake's, and gives it the status a kubelet would: Running, with
// ip as its pod IP.
func createLoaderPod(t *testing.T, c client.Client, run *benchv1.BenchmarkRun, name, phase string, ip net.IP, port int) {
	t.Helper()
	ctx := testContext(t)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: run.Namespace, Name: name, Labels: map[string]string{
			benchv1.LabelRun: run.Name, benchv1.LabelRunUID: string(run.UID), benchv1.LabelComponent: benchv1.ComponentLoader,
			benchv1.LabelPhase: phase,
		}},
		Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, NodeName: "node-1", Containers: []corev1.Container{{
			Name: "loader", Image: "mongobench-loader:test",
			Ports: []corev1.ContainerPort{{Name: contract.MetricsPortName, ContainerPort: int32(port), Protocol: corev1.ProtocolTCP}},
		}}},
	}
	if err := c.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	started := metav1.NewTime(fixtureStart)
	pod.Status = corev1.PodStatus{
		Phase:     corev1.PodRunning,
		HostIP:    ip.String(),
		PodIP:     ip.String(),
		PodIPs:    []corev1.PodIP{{IP: ip.String()}},
		StartTime: &started,
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue,
			LastTransitionTime: started}},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "loader", Ready: true, Started: ptr(true),
			Image: "mongobench-loader:test", ImageID: "docker.io/library/mongobench-loader@sha256:" + strings.Repeat("0", 64),
			ContainerID: "containerd://" + strings.Repeat("1", 64),
			State:       corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}}}},
	}
	if err := c.Status().Update(ctx, pod); err != nil {
		t.Fatalf("pod status: %v", err)
	}
}

// topScript plays the world between top's frames: each pause advances
// the fake clock by the interval and runs the next step.
type topScript struct {
	mu    sync.Mutex
	now   time.Time
	every time.Duration
	steps []func() error
	next  int
}

func (s *topScript) clock() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.now
}

func (s *topScript) pause(ctx context.Context, _ time.Duration) error {
	s.mu.Lock()
	s.now = s.now.Add(s.every)
	i := s.next
	s.next++
	s.mu.Unlock()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if i >= len(s.steps) {
		return errors.New("the script has no more steps and top has not exited")
	}
	return s.steps[i]()
}

func (s *topScript) options(o *options) {
	o.now = s.clock
	o.pause = s.pause
}

// updateStatus writes a run's status from a script step (no t.Fatal off
// the test's goroutine).
func updateStatus(c client.Client, run *benchv1.BenchmarkRun, st benchv1.BenchmarkRunStatus) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cur := &benchv1.BenchmarkRun{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(run), cur); err != nil {
		return err
	}
	cur.Status = st
	if err := c.Status().Update(ctx, cur); err != nil {
		return fmt.Errorf("update the status of %s: %w", run.Name, err)
	}
	return nil
}

// runningStatus is a run whose load phase finished and whose run phase
// runs.
func runningStatus() benchv1.BenchmarkRunStatus {
	st := succeededStatus()
	return benchv1.BenchmarkRunStatus{Phase: benchv1.RunRunning, CurrentPhase: "run", Results: st.Results[:1],
		Conditions: st.Conditions[:1]}
}

// failedStatus is that run failed in its run phase.
func failedStatus() benchv1.BenchmarkRunStatus {
	st := runningStatus()
	st.Phase = benchv1.RunFailed
	st.Conditions = append(st.Conditions, cond(benchv1.ConditionFailed, metav1.ConditionTrue, string(benchv1.ReasonPhaseFailed),
		"phase run: loader 1 exited with code 3"))
	return st
}

// twoLoaders starts the run phase's two loaders, measuring since 30 s
// before the clock's start, with their pods.
func twoLoaders(t *testing.T, c client.Client, run *benchv1.BenchmarkRun, ip net.IP) (l0, l1 *fakeLoader) {
	t.Helper()
	l0 = startFakeLoader(t, ip, run, "run", 0, 8, 50000)
	l1 = startFakeLoader(t, ip, run, "run", 1, 8, 50000)
	for _, l := range []*fakeLoader{l0, l1} {
		l.startMeasuring(fixtureStart.Add(-30 * time.Second))
	}
	createLoaderPod(t, c, run, run.Name+"-run-0-q9w4z", "run", ip, l0.port)
	createLoaderPod(t, c, run, run.Name+"-run-1-m3c8d", "run", ip, l1.port)
	return l0, l1
}

// traffic is one interval of work: loader 0 at full speed, loader 1
// at the share given (a lagging loader below 0.8), and loader 0's
// sample of the server.
func traffic(l0, l1 *fakeLoader, share float64) {
	// 99% of the reads within 250-500 µs, 1% at 4 ms; updates slower.
	reads := make([]float64, 100)
	for i := range reads {
		reads[i] = 0.0003
	}
	reads[99] = 0.004
	for _, l := range []struct {
		f     *fakeLoader
		share float64
	}{{l0, 1}, {l1, share}} {
		l.f.issue("READ", int(2000*l.share), 2, reads...)
		l.f.issue("UPDATE", int(1000*l.share), 0, 0.0008, 0.0009, 0.0012, 0.002)
	}
	l0.server("demo-mongod-0", 18, 0.031, map[string]float64{"query": 2800, "update": 1400, "command": 24})
}

func TestTopRunEndsWithItsVerdict(t *testing.T) {
	ip := proxyableIP(t)
	c := newClient(t)
	for _, tc := range []struct {
		name, golden string
		end          benchv1.BenchmarkRunStatus
		want         ExitCode
		stderr       string
	}{
		{name: "succeeded", golden: "top-run.txt", end: succeededStatus(), want: ExitOK},
		{name: "failed", golden: "top-run-failed.txt", end: failedStatus(), want: ExitFailed,
			stderr: "run/demo failed: PhaseFailed: phase run: loader 1 exited with code 3\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := createNamespace(t, c, "top-"+tc.name)
			run := createRun(t, c, ns, "demo")
			setStatus(t, c, run, runningStatus())
			l0, l1 := twoLoaders(t, c, run, ip)
			l0.server("demo-mongod-0", 17, 0.02, map[string]float64{"query": 100000, "update": 50000, "insert": 1000, "command": 900})
			script := &topScript{now: fixtureStart, every: 2 * time.Second, steps: []func() error{
				func() error { traffic(l0, l1, 0.95); return nil },
				func() error { traffic(l0, l1, 0.5); return nil },
				func() error { return updateStatus(c, run, tc.end) },
			}}
			inv := start(t, adminKubeconfig(t), []string{"top", "run/demo", "-n", ns}, script.options)
			if code := inv.exit(t, time.Minute); code != tc.want {
				t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.want, inv.stdout, inv.stderr)
			}
			golden(t, tc.golden, []byte(inv.stdout.String()))
			if got := inv.stderr.String(); got != tc.stderr {
				t.Errorf("stderr %q, want %q", got, tc.stderr)
			}
		})
	}
}

// --once reads the loaders twice, an interval apart, and prints one
// frame with rates; the run goes on, so the exit code is 0.
func TestTopOnce(t *testing.T) {
	ip := proxyableIP(t)
	c := newClient(t)
	ns := createNamespace(t, c, "top-once")
	run := createRun(t, c, ns, "demo")
	setStatus(t, c, run, runningStatus())
	l0, l1 := twoLoaders(t, c, run, ip)
	script := &topScript{now: fixtureStart, every: 5 * time.Second, steps: []func() error{
		func() error { traffic(l0, l1, 1); return nil },
	}}
	inv := start(t, adminKubeconfig(t), []string{"top", "run/demo", "-n", ns, "--once", "--interval", "5s"}, script.options)
	if code := inv.exit(t, time.Minute); code != ExitOK {
		t.Fatalf("exit code %d\nstdout:\n%s\nstderr:\n%s", code, inv.stdout, inv.stderr)
	}
	out := inv.stdout.String()
	golden(t, "top-once.txt", []byte(out))
	if strings.Contains(out, "\x1b") {
		t.Error("--once wrote an escape sequence")
	}
}

// A user who may read runs and list pods but not proxy to them gets the
// run's status and a line saying why there are no live numbers.
func TestTopFallsBackToTheStatusWhenProxyingIsForbidden(t *testing.T) {
	ip := proxyableIP(t)
	c := newClient(t)
	ns := createNamespace(t, c, "top-forbidden")
	run := createRun(t, c, ns, "demo")
	setStatus(t, c, run, runningStatus())
	twoLoaders(t, c, run, ip)
	ctx := testContext(t)
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "viewer"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{benchv1.GroupVersion.Group}, Resources: []string{runsResource, sweepsResource}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list"}},
	}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "viewer"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "viewer"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "top-viewer"}}}
	for _, obj := range []client.Object{role, binding} {
		if err := c.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	script := &topScript{now: fixtureStart, every: 2 * time.Second}
	viewer := kubeconfigFor(t, "top-viewer")
	// RBAC caches settle within moments of the binding's creation; poll
	// until the viewer may read the run.
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, stdout, stderr := runPlugin(t, viewer, "results", "run/demo", "-n", ns)
		if code == ExitOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the viewer still cannot read the run (%d): %s%s", code, stdout, stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	inv := start(t, viewer, []string{"top", "run/demo", "-n", ns, "--once"}, script.options)
	if code := inv.exit(t, time.Minute); code != ExitOK {
		t.Fatalf("exit code %d\nstdout:\n%s\nstderr:\n%s", code, inv.stdout, inv.stderr)
	}
	// The proxied name holds the fake's port, which changes from run to
	// run.
	out := regexp.MustCompile(`(http:demo-run-\d-\w+):\d+`).ReplaceAllString(inv.stdout.String(), "$1:PORT")
	golden(t, "top-forbidden.txt", []byte(out))
}

// Loaders that do not answer (the proxy fails to reach them): the status
// and why, and top goes on until the run ends.
func TestTopFallsBackToTheStatusWhenTheProxyFails(t *testing.T) {
	ip := proxyableIP(t)
	c := newClient(t)
	ns := createNamespace(t, c, "top-unreachable")
	run := createRun(t, c, ns, "demo")
	setStatus(t, c, run, runningStatus())
	l0 := startFakeLoader(t, ip, run, "run", 0, 8, 50000)
	createLoaderPod(t, c, run, "demo-run-0-q9w4z", "run", ip, l0.port)
	if err := l0.srv.Close(); err != nil {
		t.Fatal(err)
	}
	script := &topScript{now: fixtureStart, every: 2 * time.Second, steps: []func() error{
		func() error { return updateStatus(c, run, succeededStatus()) },
	}}
	inv := start(t, adminKubeconfig(t), []string{"top", "run/demo", "-n", ns}, script.options)
	if code := inv.exit(t, time.Minute); code != ExitOK {
		t.Fatalf("exit code %d\nstdout:\n%s\nstderr:\n%s", code, inv.stdout, inv.stderr)
	}
	frames := strings.Split(inv.stdout.String(), "\n\n")
	if len(frames) != 2 {
		t.Fatalf("want 2 frames, got %d:\n%s", len(frames), inv.stdout)
	}
	first := frames[0]
	for _, want := range []string{
		"run/demo  phase=Running current=run  at 2026-05-02T10:00:00Z, every 2s\n",
		"no live numbers: read /metrics of pod demo-run-0-q9w4z through the API server's pod proxy: ",
		"finished=load type=Load ops/s=98.91",
	} {
		if !strings.Contains(first, want) {
			t.Errorf("first frame lacks %q:\n%s", want, first)
		}
	}
	if strings.Contains(frames[1], "no live numbers") || !strings.HasPrefix(frames[1], "run/demo  phase=Succeeded") {
		t.Errorf("the last frame is not the ended run's:\n%s", frames[1])
	}
}

// A sweep: its state and its active run, compact.
func TestTopSweep(t *testing.T) {
	ip := proxyableIP(t)
	c := newClient(t)
	ns := createNamespace(t, c, "top-sweep")
	sw := createSweep(t, c, ns, "s")
	setSweepStatus(t, c, sw, sweepStatus(benchv1.SweepRunning, benchv1.RunSucceeded, benchv1.RunRunning))
	var runs []*benchv1.BenchmarkRun
	for i, st := range []benchv1.BenchmarkRunStatus{succeededStatus(), runningStatus()} {
		r := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: sweep.RunName("s", i, 1),
			Labels: map[string]string{benchv1.LabelSweep: sw.Name},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: benchv1.GroupVersion.String(), Kind: "BenchmarkSweep",
				Name: sw.Name, UID: sw.UID, Controller: ptr(true), BlockOwnerDeletion: ptr(true)}}}, Spec: sampleSpec()}
		if err := c.Create(testContext(t), r); err != nil {
			t.Fatal(err)
		}
		setStatus(t, c, r, st)
		runs = append(runs, r)
	}
	l0, l1 := twoLoaders(t, c, runs[1], ip)
	script := &topScript{now: fixtureStart, every: 2 * time.Second, steps: []func() error{
		func() error { traffic(l0, l1, 0.5); return nil },
	}}
	inv := start(t, adminKubeconfig(t), []string{"top", "sweep/s", "-n", ns, "--once"}, script.options)
	if code := inv.exit(t, time.Minute); code != ExitOK {
		t.Fatalf("exit code %d\nstdout:\n%s\nstderr:\n%s", code, inv.stdout, inv.stderr)
	}
	golden(t, "top-sweep.txt", []byte(inv.stdout.String()))
}

// The frame docs/plugin.md shows is one top printed: the third of
// top-run.txt.
func TestDocShowsARealTopFrame(t *testing.T) {
	doc, err := os.ReadFile(pluginDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## top\n")
	if !ok {
		t.Fatalf("%s has no section top", pluginDoc)
	}
	_, block, ok := strings.Cut(section, "```text\n")
	if !ok {
		t.Fatalf("%s: section top shows no frame", pluginDoc)
	}
	shown, _, _ := strings.Cut(block, "```")
	run, err := os.ReadFile(filepath.Join("testdata", "top-run.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var frames []string
	for _, f := range strings.Split(string(run), "\nrun/demo  ") {
		frames = append(frames, strings.TrimPrefix(f, "run/demo  "))
	}
	if len(frames) < 3 || shown != "run/demo  "+frames[2] {
		t.Errorf("%s shows a frame that is not the third of testdata/top-run.txt; copy it from there:\n%s", pluginDoc, shown)
	}
}

// Before its loaders run, a run has no live numbers, and says so; Ctrl-C
// ends top with no verdict and where the run was.
func TestTopWithoutLoadersUntilInterrupted(t *testing.T) {
	c := newClient(t)
	ns := createNamespace(t, c, "top-idle-")
	run := createRun(t, c, ns, "demo")
	setStatus(t, c, run, benchv1.BenchmarkRunStatus{Phase: benchv1.RunProvisioning})
	paused := make(chan struct{}, 1)
	wait := func(o *options) {
		o.pause = func(ctx context.Context, _ time.Duration) error {
			paused <- struct{}{}
			<-ctx.Done()
			return ctx.Err()
		}
	}
	inv := start(t, adminKubeconfig(t), []string{"top", "run/demo", "-n", ns}, wait)
	select {
	case <-paused:
	case <-time.After(30 * time.Second):
		t.Fatalf("no pause after the first frame\nstdout:\n%s\nstderr:\n%s", inv.stdout, inv.stderr)
	}
	inv.interrupt()
	if code := inv.exit(t, time.Minute); code != ExitNoVerdict {
		t.Fatalf("exit code %d, want %d", code, ExitNoVerdict)
	}
	if out := inv.stdout.String(); !strings.HasSuffix(out, "no live numbers: no loader pod is running\n") ||
		!strings.HasPrefix(out, "run/demo  phase=Provisioning current=-  at ") {
		t.Errorf("frame:\n%s", out)
	}
	if want := "error: interrupted while watching run/demo (phase Provisioning, current phase -)\n"; inv.stderr.String() != want {
		t.Errorf("stderr %q, want %q", inv.stderr, want)
	}
}
