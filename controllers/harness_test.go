package controllers_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/controllers"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/testutil/kube"
	"github.com/mongobench/mongobench/internal/testutil/syncbuf"
	"github.com/mongobench/mongobench/internal/topology"
	"github.com/mongobench/mongobench/internal/version"
)

var (
	env *kube.Env
	// kubelet serves pods/log for every node of the fake cluster.
	kubelet *kube.Kubelet
	// logs keeps what the managers log (JSON lines), for tests of the
	// controller's own logging.
	logs = &syncbuf.Buffer{}
)

func TestMain(m *testing.M) {
	ctrl.SetLogger(zap.New(zap.WriteTo(logs), zap.Level(zapcore.Level(-1)))) // debug: conflicts log at V(1)
	kubelet = kube.StartKubelet()
	defer kubelet.Close()
	kube.Main(m, &env)
}

// Nodes of the fake cluster. The hostname label differs from the node name
// on purpose: pods must be pinned by the label, as on some clouds. Both are
// Ready, big enough for every test's topology, and their kubelet is the
// fake one (pods/log works).
var nodes = map[string]string{"node-a": "host-a", "node-b": "host-b"}

// testKubeVersion is what the test managers record as the API server's
// version.
const testKubeVersion = "v1.36.3-envtest"

// nodeSize is the allocatable of the fake cluster's nodes.
var nodeSize = kube.Resources("32", "128Gi")

const loaderImage = "example.com/mongobench-loader:test"

// testLimits keep failure tests fast; the values are asserted in messages.
var testLimits = controllers.Limits{
	Unschedulable:     time.Minute,
	ImagePull:         time.Minute,
	CrashLoopRestarts: 3,
	ResultGrace:       2 * time.Second,
	PhaseGrace:        time.Minute,
}

// counters measure the manager's API writes (reconciles come from
// controller-runtime's own metric).
type counters struct {
	writes atomic.Int64
	// sweepWrites counts the sweep controller's writes.
	sweepWrites atomic.Int64
	// podDeletes counts the pod deletions the API server accepted;
	// failPodDeletes makes every pod deletion fail as an unavailable API
	// server would (a transient error), while it is set.
	podDeletes     atomic.Int64
	failPodDeletes atomic.Bool
	// deletedUIDs are the UIDs of the pods whose deletion the API server
	// accepted (the deletions' UID preconditions): a repeated deletion of
	// a pod already terminating changes nothing, a second UID would.
	deletedUIDs sync.Map
}

// deletedPodUIDs lists deletedUIDs.
func (c *counters) deletedPodUIDs() []types.UID {
	var out []types.UID
	c.deletedUIDs.Range(func(k, _ any) bool {
		out = append(out, k.(types.UID))
		return true
	})
	return out
}

// countingClient counts every write the controller makes.
type countingClient struct {
	client.Client
	n *atomic.Int64
	// pods, when set, counts (and may fail) the deletions of pods.
	pods *counters
}

func (c countingClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	c.n.Add(1)
	return c.Client.Create(ctx, obj, opts...)
}

func (c countingClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	c.n.Add(1)
	if _, pod := obj.(*corev1.Pod); pod && c.pods != nil {
		if c.pods.failPodDeletes.Load() {
			return apierrors.NewServiceUnavailable("injected: the test fails pod deletions")
		}
		err := c.Client.Delete(ctx, obj, opts...)
		if err == nil {
			c.pods.podDeletes.Add(1)
			uid := obj.GetUID()
			for _, o := range opts {
				if p, ok := o.(client.Preconditions); ok && p.UID != nil {
					uid = *p.UID
				}
			}
			c.pods.deletedUIDs.Store(uid, true)
		}
		return err
	}
	return c.Client.Delete(ctx, obj, opts...)
}

func (c countingClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	c.n.Add(1)
	return c.Client.Update(ctx, obj, opts...)
}

func (c countingClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	c.n.Add(1)
	return c.Client.Patch(ctx, obj, patch, opts...)
}

func (c countingClient) Status() client.SubResourceWriter {
	return countingStatus{c.Client.Status(), c.n}
}

type countingStatus struct {
	client.SubResourceWriter
	n *atomic.Int64
}

func (c countingStatus) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	c.n.Add(1)
	return c.SubResourceWriter.Patch(ctx, obj, patch, opts...)
}

func (c countingStatus) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	c.n.Add(1)
	return c.SubResourceWriter.Update(ctx, obj, opts...)
}

// manager is a running controller manager that a test can stop and
// restart (a manager restart at any point must resume cleanly).
type manager struct {
	t      *testing.T
	cancel context.CancelFunc
	done   chan error
	count  *counters
	limits controllers.Limits
	opts   managerOptions
}

// managerOptions choose the controllers a test manager runs.
type managerOptions struct {
	// sweepsOnly runs the sweep controller alone: the test plays the run
	// controller, setting the child runs' status itself.
	sweepsOnly bool
	// seed draws the seeds of shuffled sweeps (nil: random).
	seed func() int64
	// clock is both reconcilers' Clock (nil: the real one).
	clock clock.PassiveClock
}

func startManager(t *testing.T, count *counters, limits controllers.Limits) *manager {
	t.Helper()
	return startManagerWith(t, count, limits, managerOptions{})
}

func startManagerWith(t *testing.T, count *counters, limits controllers.Limits, opts managerOptions) *manager {
	t.Helper()
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme:  kube.Scheme(),
		Metrics: metricsserver.Options{BindAddress: "0"},
		Cache:   controllers.CacheOptions(""),
		// Several managers of one test binary run one after the other.
		Controller: ctrlConfig(),
		// A manager stopping after 50 runs flushes their last events; on a
		// loaded 2-core machine that outlasted the default 30 s once.
		GracefulShutdownTimeout: ptr.To(2 * time.Minute),
	})
	if err != nil {
		t.Fatal(err)
	}
	clk := opts.clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	rec := &controllers.BenchmarkRunReconciler{
		Client:    countingClient{mgr.GetClient(), &count.writes, count},
		APIReader: mgr.GetAPIReader(),
		Logs:      controllers.PodLogs{Pods: corev1client.NewForConfigOrDie(env.Config)},
		Scheme:    mgr.GetScheme(),
		Recorder:  mgr.GetEventRecorder("mongobench"),
		Clock:     clk,
		Topology: topology.Config{LoaderImage: loaderImage, ClusterDomain: "cluster.local", BootstrapTimeout: 8 * time.Minute,
			LoaderImagePullPolicy: corev1.PullIfNotPresent},
		Limits:                  limits,
		MaxConcurrentReconciles: 4,
		Environment: controllers.Environment{KubernetesVersion: testKubeVersion, ManagerVersion: "v0.0.0-test",
			DriverVersion: version.DriverVersion()},
	}
	if !opts.sweepsOnly {
		if err := rec.SetupWithManager(mgr); err != nil {
			t.Fatal(err)
		}
	}
	sweeps := &controllers.BenchmarkSweepReconciler{
		Client:                  countingClient{mgr.GetClient(), &count.sweepWrites, nil},
		APIReader:               mgr.GetAPIReader(),
		Scheme:                  mgr.GetScheme(),
		Recorder:                mgr.GetEventRecorder("mongobench"),
		Clock:                   clk,
		Seed:                    opts.seed,
		MaxConcurrentReconciles: 4,
	}
	if err := sweeps.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &manager{t: t, cancel: cancel, done: make(chan error, 1), count: count, limits: limits, opts: opts}
	go func() { m.done <- mgr.Start(ctx) }()
	t.Cleanup(m.stop)
	return m
}

// stop shuts the manager down and waits for it (idempotent).
func (m *manager) stop() {
	if m.cancel == nil {
		return
	}
	m.cancel()
	m.cancel = nil
	// A manager that takes long to stop says what it waits on: the
	// goroutines, once, in the test's log.
	slow := time.AfterFunc(30*time.Second, func() {
		buf := make([]byte, 16<<20)
		m.t.Logf("the manager is still stopping after 30s; goroutines:\n%s", buf[:runtime.Stack(buf, true)])
	})
	defer slow.Stop()
	select {
	case err := <-m.done:
		if err != nil {
			m.t.Errorf("manager: %v", err)
		}
	case <-time.After(3 * time.Minute):
		m.t.Error("manager did not stop within 3 minutes")
	}
}

// restart stops the manager and starts a new one, as a crash would.
func (m *manager) restart() *manager {
	m.stop()
	return startManagerWith(m.t, m.count, m.limits, m.opts)
}

// kubelet and friends: the test acts as scheduler, kubelet and Job
// controller, none of which envtest runs.
type cluster struct {
	t  *testing.T
	c  client.Client
	ns string
}

func newCluster(t *testing.T) *cluster {
	t.Helper()
	c, err := client.New(env.Config, client.Options{Scheme: kube.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	for name, host := range nodes {
		ensureNode(t, c, name, map[string]string{topology.HostnameLabel: host}, nodeSize)
	}
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-"}}
	if err := c.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	// A failed test shows what the manager said about its namespace: a
	// timeout alone does not tell a stuck reconcile from a missed event.
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		lines := logs.Lines(`"namespace":"` + ns.Name + `"`)
		if len(lines) > 80 {
			lines = lines[len(lines)-80:]
		}
		t.Logf("the manager's last %d log lines for namespace %s:\n%s", len(lines), ns.Name, strings.Join(lines, "\n"))
	})
	return &cluster{t: t, c: c, ns: ns.Name}
}

// ensureNode creates a Ready node with the given labels and allocatable
// resources whose kubelet is the fake one (idempotent).
func ensureNode(t *testing.T, c client.Client, name string, labels map[string]string, allocatable corev1.ResourceList) {
	t.Helper()
	ctx := context.Background()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	if err := c.Create(ctx, n); err != nil {
		if !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, n); err != nil {
			t.Fatal(err)
		}
	}
	n.Status = kubelet.NodeStatus(allocatable)
	if err := c.Status().Update(ctx, n); err != nil {
		t.Fatalf("node %s status: %v", name, err)
	}
	// The API server taints a new node not-ready; the node lifecycle
	// controller, which envtest lacks, lifts it once the node is Ready.
	// An existing node gains the labels asked for.
	update := len(n.Spec.Taints) > 0
	n.Spec.Taints = nil
	if n.Labels == nil {
		n.Labels = map[string]string{}
	}
	for k, v := range labels {
		if n.Labels[k] != v {
			n.Labels[k], update = v, true
		}
	}
	if update {
		if err := c.Update(ctx, n); err != nil {
			t.Fatalf("node %s: %v", name, err)
		}
	}
}

func (k *cluster) ctx() context.Context { return context.Background() }

// eventually polls cond until it holds or the deadline passes.
func (k *cluster) eventually(what string, timeout time.Duration, cond func() (bool, error)) {
	k.t.Helper()
	deadline := time.Now().Add(timeout)
	var last error
	for {
		ok, err := cond()
		if ok && err == nil {
			return
		}
		last = err
		if time.Now().After(deadline) {
			k.t.Fatalf("timed out after %s waiting for %s (last error: %v)", timeout, what, last)
		}
		time.Sleep(20 * time.Millisecond) // poll interval, bounded by the deadline
	}
}

func (k *cluster) run(name string) *benchv1.BenchmarkRun {
	k.t.Helper()
	run := &benchv1.BenchmarkRun{}
	if err := k.c.Get(k.ctx(), types.NamespacedName{Namespace: k.ns, Name: name}, run); err != nil {
		k.t.Fatal(err)
	}
	return run
}

// waitRun waits until the run satisfies cond.
func (k *cluster) waitRun(name, what string, cond func(*benchv1.BenchmarkRun) bool) *benchv1.BenchmarkRun {
	k.t.Helper()
	var run *benchv1.BenchmarkRun
	k.eventually(name+": "+what, 60*time.Second, func() (bool, error) {
		run = &benchv1.BenchmarkRun{}
		if err := k.c.Get(k.ctx(), types.NamespacedName{Namespace: k.ns, Name: name}, run); err != nil {
			return false, err
		}
		return cond(run), nil
	})
	return run
}

func (k *cluster) waitLifecycle(name string, phase benchv1.RunLifecycle) *benchv1.BenchmarkRun {
	k.t.Helper()
	return k.waitRun(name, "phase "+string(phase), func(r *benchv1.BenchmarkRun) bool {
		if r.Status.Phase == benchv1.RunFailed && phase != benchv1.RunFailed {
			k.t.Fatalf("run failed: %s", failedMessage(r))
		}
		return r.Status.Phase == phase
	})
}

func failedMessage(r *benchv1.BenchmarkRun) string {
	for _, c := range r.Status.Conditions {
		if c.Type == benchv1.ConditionFailed {
			return c.Reason + ": " + c.Message
		}
	}
	return ""
}

func (k *cluster) pod(name string) *corev1.Pod {
	k.t.Helper()
	p := &corev1.Pod{}
	k.eventually("pod "+name, 30*time.Second, func() (bool, error) {
		err := k.c.Get(k.ctx(), types.NamespacedName{Namespace: k.ns, Name: name}, p)
		return err == nil, client.IgnoreNotFound(err)
	})
	return p
}

func (k *cluster) job(name string) *batchv1.Job {
	k.t.Helper()
	j := &batchv1.Job{}
	k.eventually("job "+name, 30*time.Second, func() (bool, error) {
		err := k.c.Get(k.ctx(), types.NamespacedName{Namespace: k.ns, Name: name}, j)
		return err == nil, client.IgnoreNotFound(err)
	})
	return j
}

func (k *cluster) exists(obj client.Object, name string) bool {
	k.t.Helper()
	err := k.c.Get(k.ctx(), types.NamespacedName{Namespace: k.ns, Name: name}, obj)
	if err != nil && !apierrors.IsNotFound(err) {
		k.t.Fatal(err)
	}
	return err == nil
}

// gone reports whether an object was deleted. Without a kubelet, a bound
// pod stays with a deletion timestamp: that counts as deleted.
func (k *cluster) gone(obj client.Object, name string) bool {
	k.t.Helper()
	return !k.exists(obj, name) || obj.GetDeletionTimestamp() != nil
}

// schedule binds a pod to a node, as the scheduler does (honouring a
// kubernetes.io/hostname selector).
func (k *cluster) schedule(pod *corev1.Pod, node string) {
	k.t.Helper()
	if want := pod.Spec.NodeSelector[topology.HostnameLabel]; want != "" && nodes[node] != want {
		k.t.Fatalf("pod %s selects host %s, cannot go to node %s", pod.Name, want, node)
	}
	b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace}, Target: corev1.ObjectReference{Kind: "Node", Name: node}}
	if err := k.c.SubResource("binding").Create(k.ctx(), pod, b); err != nil {
		k.t.Fatalf("bind %s: %v", pod.Name, err)
	}
}

// nodeFor is where the scheduler would put a pod.
func nodeFor(pod *corev1.Pod) string {
	want := pod.Spec.NodeSelector[topology.HostnameLabel]
	names := make([]string, 0, len(nodes))
	for n := range nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if want == "" || nodes[n] == want {
			return n
		}
	}
	return ""
}

// setPodStatus updates a pod's status with retries on conflicts.
func (k *cluster) setPodStatus(name string, mutate func(*corev1.Pod)) {
	k.t.Helper()
	k.eventually("status of pod "+name, 30*time.Second, func() (bool, error) {
		p := &corev1.Pod{}
		if err := k.c.Get(k.ctx(), types.NamespacedName{Namespace: k.ns, Name: name}, p); err != nil {
			return false, err
		}
		mutate(p)
		err := k.c.Status().Update(k.ctx(), p)
		if apierrors.IsConflict(err) {
			return false, nil
		}
		return err == nil, err
	})
}

// markRunning makes a pod scheduled, running and (if ready) Ready.
func (k *cluster) markRunning(name string, ready bool, restarts int32) {
	k.t.Helper()
	k.setPodStatus(name, func(p *corev1.Pod) {
		now := metav1.Now()
		status := corev1.ConditionFalse
		if ready {
			status = corev1.ConditionTrue
		}
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodReady, Status: status, LastTransitionTime: now},
		}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{
			Name: p.Spec.Containers[0].Name, Image: p.Spec.Containers[0].Image, Ready: ready, RestartCount: restarts,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
		}}
		if restarts > 0 {
			p.Status.ContainerStatuses[0].LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled"}}
		}
	})
}

// bringUp schedules and readies a DB pod.
func (k *cluster) bringUp(name string) {
	k.t.Helper()
	p := k.pod(name)
	if p.Spec.NodeName == "" {
		k.schedule(p, nodeFor(p))
	}
	k.markRunning(name, true, 0)
}

// completeJob marks a Job Complete, as the Job controller would.
func (k *cluster) completeJob(name string) {
	k.t.Helper()
	k.updateJobStatus(name, func(j *batchv1.Job) {
		now := metav1.Now()
		n := *j.Spec.Completions
		j.Status.StartTime = ptr.To(metav1.NewTime(now.Add(-time.Second)))
		j.Status.CompletionTime = &now
		j.Status.Succeeded = n
		j.Status.Ready = ptr.To[int32](0)
		j.Status.Terminating = ptr.To[int32](0)
		j.Status.CompletedIndexes = indexRange(n)
		j.Status.Conditions = []batchv1.JobCondition{
			{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastTransitionTime: now, LastProbeTime: now, Reason: "CompletionsReached"},
			{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: now, LastProbeTime: now, Reason: "CompletionsReached"},
		}
	})
}

// failJob marks a Job Failed with the given reason.
func (k *cluster) failJob(name, reason string) {
	k.t.Helper()
	k.updateJobStatus(name, func(j *batchv1.Job) {
		now := metav1.Now()
		j.Status.StartTime = ptr.To(metav1.NewTime(now.Add(-time.Second)))
		j.Status.Failed = 1
		j.Status.Ready = ptr.To[int32](0)
		j.Status.Terminating = ptr.To[int32](0)
		j.Status.FailedIndexes = nil
		j.Status.Conditions = []batchv1.JobCondition{
			{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, LastTransitionTime: now, LastProbeTime: now, Reason: reason},
			{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, LastTransitionTime: now, LastProbeTime: now, Reason: reason, Message: "Job has reached the specified backoff limit"},
		}
	})
}

func indexRange(n int32) string {
	if n == 1 {
		return "0"
	}
	return fmt.Sprintf("0-%d", n-1)
}

func (k *cluster) updateJobStatus(name string, mutate func(*batchv1.Job)) {
	k.t.Helper()
	k.eventually("status of job "+name, 30*time.Second, func() (bool, error) {
		j := &batchv1.Job{}
		if err := k.c.Get(k.ctx(), types.NamespacedName{Namespace: k.ns, Name: name}, j); err != nil {
			return false, err
		}
		mutate(j)
		err := k.c.Status().Update(k.ctx(), j)
		if apierrors.IsConflict(err) {
			return false, nil
		}
		return err == nil, err
	})
}

// jobPod creates a pod of a Job, as the Job controller would, so failure
// messages can be read from it.
func (k *cluster) jobPod(job *batchv1.Job, index int) *corev1.Pod {
	k.t.Helper()
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("%s-%d-abcde", job.Name, index), Namespace: k.ns, Labels: job.Spec.Template.Labels,
			Annotations:     map[string]string{batchv1.JobCompletionIndexAnnotation: fmt.Sprint(index)},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))},
		},
		Spec: job.Spec.Template.Spec,
	}
	if err := k.c.Create(k.ctx(), p); err != nil {
		k.t.Fatal(err)
	}
	return p
}

// writeResultCM creates a Job's result ConfigMap as the loader would.
func (k *cluster) writeResultCM(run *benchv1.BenchmarkRun, jobName string, index int, binary map[string][]byte, data map[string]string) {
	k.t.Helper()
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name: contract.ResultConfigMapName(jobName, index), Namespace: k.ns,
			Labels: map[string]string{benchv1.LabelManagedBy: benchv1.ManagedBy, benchv1.LabelRun: run.Name},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: benchv1.GroupVersion.String(), Kind: "BenchmarkRun", Name: run.Name, UID: run.UID,
				Controller: ptr.To(true)}},
		},
		BinaryData: binary, Data: data,
	}
	if err := k.c.Create(k.ctx(), cm); err != nil && !apierrors.IsAlreadyExists(err) {
		k.t.Fatal(err)
	}
}

// bootstrapResult is what a bootstrap Job reports for a run.
// startupWarningAnnotation makes the fake bootstrap report a startup
// warning of the run's first MongoDB process.
const startupWarningAnnotation = "test.mongobench.io/startup-warning"

func bootstrapResult(run *benchv1.BenchmarkRun) *results.Bootstrap {
	rep := &results.Bootstrap{ServerVersion: "8.0.4", Namespace: topology.Namespace,
		Server: &results.ServerEnvironment{Version: "8.0.4", GitVersion: "git-8.0.4", Allocator: "tcmalloc-google", FeatureCompatibilityVersion: "8.0",
			StorageEngine: "wiredTiger"}}
	for _, p := range topology.Processes(run) {
		pe := results.ProcessEnvironment{Host: topology.Address(run, p, "cluster.local"), Options: `{"net": {"port": 27017}}`}
		// A run annotated so has one startup warning on its first process.
		if w := run.Annotations[startupWarningAnnotation]; w != "" && len(rep.Server.Processes) == 0 {
			pe.StartupWarnings = []string{w}
		}
		rep.Server.Processes = append(rep.Server.Processes, pe)
	}
	if run.Spec.Topology.Mode == benchv1.TopologySharded {
		rep.Sharded, rep.ShardKey, rep.BalancerMode = true, `{"_id":"hashed"}`, "off"
		for i := 0; i < int(*run.Spec.Topology.Shards); i++ {
			rep.Shards = append(rep.Shards, results.ShardChunks{Name: topology.ShardName(i), Host: "h", Chunks: 1 + i%2})
		}
	}
	// A replica set's members as the bootstrap leaves them: one PRIMARY
	// (member 0 here; any may win), the others SECONDARY; a sharded
	// cluster's only when a set has several.
	multi := topology.ShardMembers(run) > 1 || topology.ConfigServerMembers(run) > 1
	if run.Spec.Topology.Mode == benchv1.TopologyReplicaSet || (run.Spec.Topology.Mode == benchv1.TopologySharded && multi) {
		for _, p := range topology.Processes(run) {
			if p.ReplSet == "" {
				continue
			}
			state := "SECONDARY"
			if p.Member == 0 {
				state = "PRIMARY"
			}
			rep.Members = append(rep.Members, results.MemberState{ReplicaSet: p.ReplSet, Host: topology.Address(run, p, "cluster.local"), State: state})
		}
	}
	// An External cluster's members, as the loader detects them.
	if run.Spec.Topology.Mode == benchv1.TopologyExternal {
		rep.Members = []results.MemberState{{ReplicaSet: "rs0", Host: "db-0.example.net:27017", State: "PRIMARY"},
			{ReplicaSet: "rs0", Host: "db-1.example.net:27017", State: "SECONDARY"}}
	}
	return rep
}

func (k *cluster) finishBootstrap(run *benchv1.BenchmarkRun) {
	k.t.Helper()
	name := topology.BootstrapJobName(run)
	k.job(name)
	b, err := results.EncodeBootstrap(bootstrapResult(run))
	if err != nil {
		k.t.Fatal(err)
	}
	k.writeResultCM(run, name, 0, nil, map[string]string{contract.BootstrapConfigMapKey: string(b)})
	k.completeJob(name)
}

// samples are the known latencies of one loader of one phase: the same
// seed always gives the same values, so the merged numbers can be
// recomputed independently.
type samples struct {
	ops    []string
	values map[string][]int64
	errors map[string]int64
}

func phaseSamples(run *benchv1.BenchmarkRun, phase string, loader int) samples {
	h := fnv.New64a()
	_, _ = h.Write([]byte(run.Name + "/" + phase))
	rng := rand.New(rand.NewPCG(h.Sum64(), uint64(loader)))
	s := samples{values: map[string][]int64{}, errors: map[string]int64{}}
	ops := []string{results.OpRead, results.OpUpdate}
	if strings.EqualFold(phase, "load") {
		ops = []string{results.OpInsert}
	}
	s.ops = ops
	for _, op := range ops {
		n := 200 + rng.IntN(300)
		for i := 0; i < n; i++ {
			s.values[op] = append(s.values[op], int64(100+rng.ExpFloat64()*400+float64(loader)*50))
		}
		s.errors[op] = int64(loader)
	}
	return s
}

// loaderResult encodes one loader's samples with the real result encoder.
func loaderResult(t *testing.T, run *benchv1.BenchmarkRun, ph benchv1.PhaseSpec, loader, loaders int) []byte {
	t.Helper()
	s := phaseSamples(run, ph.Name, loader)
	kind := results.KindRun
	if ph.Type == benchv1.PhaseLoad {
		kind = results.KindLoad
	}
	start := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(loader) * 100 * time.Millisecond)
	r := &results.Result{Version: results.FormatVersion, Kind: kind, Loader: results.Identity{Index: loader, Count: loaders, Threads: int(ph.Threads)},
		Start: start, End: start.Add(5 * time.Second), RuntimeMillis: 5000, StopReason: results.StopCompleted}
	sb := results.NewSeriesBuilder(time.Second)
	var point results.Point
	point.Millis = 1000
	for _, op := range s.ops {
		o := results.OpResult{Name: op, Statuses: map[string]int64{"OK": int64(len(s.values[op]))}, Latency: results.NewHistogram()}
		pl := results.NewSeriesHistogram()
		for _, v := range s.values[op] {
			o.Latency.Record(v)
			pl.Record(v)
		}
		if e := s.errors[op]; e > 0 {
			o.Statuses["ERROR"] = e
			o.Failed = results.NewHistogram()
			o.Failed.RecordN(9999, e)
		}
		r.Operations += o.Total()
		r.PlannedOperations += o.Total()
		r.Ops = append(r.Ops, o)
		point.Ops = append(point.Ops, results.PointOp{Name: op, Count: o.Total(), Latency: pl})
	}
	sb.Add(point)
	r.Series = sb.Series()
	r.Disruptions = harnessDisruptions(run, ph, r.Start, loader)
	b, err := results.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// expected recomputes a phase's merged statistics from the raw samples.
func expected(run *benchv1.BenchmarkRun, phase string, loaders int) (ops int64, perOp map[string]results.Stats, errs map[string]int64, p99 int64) {
	perOp, errs = map[string]results.Stats{}, map[string]int64{}
	all := results.NewHistogram()
	hist := map[string]*results.Histogram{}
	for i := 0; i < loaders; i++ {
		s := phaseSamples(run, phase, i)
		for _, op := range s.ops {
			if hist[op] == nil {
				hist[op] = results.NewHistogram()
			}
			for _, v := range s.values[op] {
				hist[op].Record(v)
				all.Record(v)
			}
			ops += int64(len(s.values[op])) + s.errors[op]
			errs[op] += s.errors[op]
		}
	}
	for op, h := range hist {
		perOp[op] = h.Stats()
	}
	return ops, perOp, errs, all.Percentile(99)
}

// finishPhase completes a phase's Job with every loader's result.
func (k *cluster) finishPhase(run *benchv1.BenchmarkRun, ph benchv1.PhaseSpec) {
	k.t.Helper()
	k.finishPhaseWith(run, ph, nil)
}

// finishPhaseWith completes a phase's Job with every loader's result and,
// when telemetry is not nil, loader 0's telemetry payload beside it
// (contract.TelemetryKey), as a loader sampling the servers writes it.
func (k *cluster) finishPhaseWith(run *benchv1.BenchmarkRun, ph benchv1.PhaseSpec, telemetry []byte) {
	k.t.Helper()
	name := topology.PhaseJobName(run, ph.Name)
	k.job(name)
	n := int(run.Spec.Loaders)
	for i := 0; i < n; i++ {
		data := map[string][]byte{contract.ConfigMapKey: loaderResult(k.t, run, ph, i, n)}
		if i == 0 && telemetry != nil {
			data[contract.TelemetryKey] = telemetry
		}
		k.writeResultCM(run, name, i, data, nil)
	}
	k.completeJob(name)
}

// autopilot plays scheduler, kubelet and Job controller for every run in
// the namespace until stopped: DB pods come up, Jobs complete with known
// results. Used by the restart and scale tests.
func (k *cluster) autopilot() (stop func()) {
	return k.autopilotWith(autopilotOptions{})
}

// autopilotOptions change the autopilot's roles.
type autopilotOptions struct {
	// realScheduler: a kube-scheduler binds pods; the autopilot only plays
	// the kubelet (including removing deleted pods) and the Job controller.
	realScheduler bool
	// holdPhases: leave loader Jobs to the test (finishPhase).
	holdPhases bool
	// removeDeleted: play the kubelet that stops a deleted pod, after
	// which the pod goes away (without it, a pod deleted with a grace
	// period stays, terminating, in envtest).
	removeDeleted bool
}

func (k *cluster) autopilotWith(opts autopilotOptions) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	done := map[string]bool{}
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			if err := k.autopilotStep(ctx, done, opts); err != nil && ctx.Err() == nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) && !apierrors.IsAlreadyExists(err) {
				k.t.Errorf("autopilot: %v", err)
				return
			}
			time.Sleep(20 * time.Millisecond) // poll interval
		}
	}()
	return func() { cancel(); wg.Wait() }
}

func (k *cluster) autopilotStep(ctx context.Context, done map[string]bool, opts autopilotOptions) error {
	var pods corev1.PodList
	if err := k.c.List(ctx, &pods, client.InNamespace(k.ns), client.MatchingLabels{benchv1.LabelDatabase: "true"}); err != nil {
		return err
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.DeletionTimestamp != nil && (opts.realScheduler || opts.removeDeleted) {
			// The kubelet stops a deleted pod and the pod goes away; until
			// then the scheduler still counts it on its node.
			if err := k.c.Delete(ctx, p, client.GracePeriodSeconds(0)); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
			continue
		}
		if p.DeletionTimestamp != nil || podIsReady(p) {
			continue
		}
		if p.Spec.NodeName == "" && opts.realScheduler {
			continue
		}
		if p.Spec.NodeName == "" {
			b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace}, Target: corev1.ObjectReference{Kind: "Node", Name: nodeFor(p)}}
			if err := k.c.SubResource("binding").Create(ctx, p, b); err != nil {
				return err
			}
		}
		if p.Labels[benchv1.LabelRole] == string(benchv1.RoleMongos) && !k.bootstrapped(ctx, p.Labels[benchv1.LabelRun]) {
			continue // mongos becomes ready only once its config server is initiated
		}
		now := metav1.Now()
		if err := k.c.Get(ctx, client.ObjectKeyFromObject(p), p); err != nil {
			return err
		}
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now}, {Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: p.Spec.Containers[0].Name, Image: p.Spec.Containers[0].Image, Ready: true,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}}}
		if err := k.c.Status().Update(ctx, p); err != nil {
			return err
		}
	}
	var jobs batchv1.JobList
	if err := k.c.List(ctx, &jobs, client.InNamespace(k.ns)); err != nil {
		return err
	}
	for i := range jobs.Items {
		j := &jobs.Items[i]
		if done[string(j.UID)] || j.DeletionTimestamp != nil {
			continue
		}
		run := &benchv1.BenchmarkRun{}
		if err := k.c.Get(ctx, client.ObjectKey{Namespace: k.ns, Name: j.Labels[benchv1.LabelRun]}, run); err != nil {
			return err
		}
		switch j.Labels[benchv1.LabelComponent] {
		case benchv1.ComponentBootstrap:
			b, _ := results.EncodeBootstrap(bootstrapResult(run))
			k.writeResultCM(run, j.Name, 0, nil, map[string]string{contract.BootstrapConfigMapKey: string(b)})
		case benchv1.ComponentLoader:
			if opts.holdPhases {
				continue
			}
			for _, ph := range run.Spec.Phases {
				if topology.PhaseJobName(run, ph.Name) == j.Name {
					for l := 0; l < int(run.Spec.Loaders); l++ {
						k.writeResultCM(run, j.Name, l, map[string][]byte{contract.ConfigMapKey: loaderResult(k.t, run, ph, l, int(run.Spec.Loaders))}, nil)
					}
				}
			}
		}
		k.completeJob(j.Name)
		done[string(j.UID)] = true
	}
	return nil
}

func (k *cluster) bootstrapped(ctx context.Context, run string) bool {
	j := &batchv1.Job{}
	err := k.c.Get(ctx, client.ObjectKey{Namespace: k.ns, Name: run + "-bootstrap"}, j)
	if err != nil {
		return false
	}
	for _, c := range j.Status.Conditions {
		if c.Type == batchv1.JobComplete && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func podIsReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// reconcileTotal reads controller-runtime's reconcile counter of the
// benchmarkrun controller (all managers of this test binary together).
func reconcileTotal(t *testing.T) int64 {
	t.Helper()
	return reconcilesOf(t, "benchmarkrun")
}

// reconcilesOf reads controller-runtime's reconcile counter of a controller.
func reconcilesOf(t *testing.T, controller string) int64 {
	t.Helper()
	mfs, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n float64
	for _, mf := range mfs {
		if mf.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "controller" && l.GetValue() == controller {
					n += m.GetCounter().GetValue()
				}
			}
		}
	}
	return int64(n)
}

func ctrlConfig() config.Controller {
	// Managers of one test binary start one after another with the same
	// controller name.
	return config.Controller{SkipNameValidation: ptr.To(true)}
}

func envtestUser() envtest.User {
	return envtest.User{Name: "tester", Groups: []string{"system:masters"}}
}

func readAll(r io.Reader) string {
	if r == nil {
		return ""
	}
	b, _ := io.ReadAll(r)
	return string(b)
}

// namespaced is a reader limited to one namespace.
type namespaced struct {
	client.Client
	ns string
}

func (n namespaced) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return n.Client.List(ctx, list, append(opts, client.InNamespace(n.ns))...)
}
