package controllers_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/controllers"
)

// longMessage is a multi-line termination message of about size bytes, as
// FallbackToLogsOnError makes of a dying mongod's log tail; lines are
// numbered so tests can tell which were kept, and carry multi-byte
// characters so byte cuts must respect UTF-8.
func longMessage(prefix string, size int) string {
	var b strings.Builder
	for i := 1; b.Len() < size; i++ {
		fmt.Fprintf(&b, `%s line %03d: {"t":{"$date":"2026-11-24T10:00:00.000+00:00"},"s":"E","c":"WT","id":22435,"ctx":"conn12","msg":"WiredTiger error message","attr":{"error":12,"message":"µs ─ memory allocation of 16777216 bytes failed"}}`+"\n", prefix, i)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// numberedLog is a container log of n numbered lines of width bytes.
func numberedLog(n, width int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		line := fmt.Sprintf("log line %04d ", i)
		b.WriteString(line + strings.Repeat("x", max(width-len(line)-1, 0)) + "\n")
	}
	return b.String()
}

// runEvents returns the events of a run.
func (k *cluster) runEvents(run string) []corev1.Event {
	k.t.Helper()
	var evs corev1.EventList
	if err := k.c.List(k.ctx(), &evs, client.InNamespace(k.ns)); err != nil {
		k.t.Fatal(err)
	}
	var out []corev1.Event
	for _, e := range evs.Items {
		if e.InvolvedObject.Name == run {
			out = append(out, e)
		}
	}
	return out
}

// waitEvent waits for the run's event with this reason.
func (k *cluster) waitEvent(run, reason string) corev1.Event {
	k.t.Helper()
	var found corev1.Event
	k.eventually(run+" event "+reason, 30*time.Second, func() (bool, error) {
		for _, e := range k.runEvents(run) {
			if e.Reason == reason {
				found = e
				return true, nil
			}
		}
		return false, nil
	})
	return found
}

// diagnostics waits for the run's diagnostics ConfigMap to be named in
// status and returns it.
func (k *cluster) diagnostics(run string) *corev1.ConfigMap {
	k.t.Helper()
	r := k.waitRun(run, "diagnostics stored", func(r *benchv1.BenchmarkRun) bool { return r.Status.Diagnostics != "" })
	if r.Status.Diagnostics != run+"-diagnostics" {
		k.t.Fatalf("status.diagnostics %q", r.Status.Diagnostics)
	}
	cm := &corev1.ConfigMap{}
	if err := k.c.Get(k.ctx(), types.NamespacedName{Namespace: k.ns, Name: r.Status.Diagnostics}, cm); err != nil {
		k.t.Fatal(err)
	}
	return cm
}

// TestLongTerminationMessage: a shard's mongod dies mid-run with a 4 KiB
// multi-line termination message. The failure event must be accepted by
// the API server (≤ 1,024 bytes), the condition must read well (cause
// first, then the message's last lines), and the whole message and the
// container's log must survive the Delete cleanup in the diagnostics.
func TestLongTerminationMessage(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	run := k.create(newRun("long", benchv1.TopologyStandalone, 0, 1))
	k.upToPhase(run, 1)
	msg := longMessage("mongod", 4096)
	if len(msg) < 4096 || strings.Count(msg, "\n") < 15 {
		t.Fatalf("test message is %d bytes, %d lines", len(msg), strings.Count(msg, "\n")+1)
	}
	kubelet.SetLog(k.ns, "long-mongod", "standalone", true, numberedLog(150, 80))
	k.setPodStatus("long-mongod", func(p *corev1.Pod) {
		cs := &p.Status.ContainerStatuses[0]
		cs.RestartCount = 1
		cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: 137, Reason: "OOMKilled", Message: msg, FinishedAt: metav1.Now()}}
	})
	r := k.waitFailed("long", "TopologyLost", "topology lost: pod long-mongod restarted (exit code 137 (OOMKilled)); last lines:\n…mongod line")

	// The condition: cause first, at most ~10 lines and 2 KiB of the message, ending with its end.
	c := cond(r, benchv1.ConditionFailed)
	lines := strings.Split(c.Message, "\n")
	if len(lines) > 11 || len(c.Message) > 2048+200 || !strings.HasSuffix(c.Message, msg[strings.LastIndex(msg, "\n")+1:]) {
		t.Errorf("condition message has %d lines, %d bytes; want ≤ 11 lines and the message's last line last:\n%s", len(lines), len(c.Message), c.Message)
	}
	if !utf8.ValidString(c.Message) {
		t.Error("condition message is not valid UTF-8")
	}

	// The event: accepted by the API server, cut on a UTF-8 boundary.
	ev := k.waitEvent("long", "TopologyLost")
	if ev.Type != corev1.EventTypeWarning || len(ev.Message) > controllers.MaxEventMessage || !strings.HasSuffix(ev.Message, "…") ||
		!utf8.ValidString(ev.Message) || !strings.HasPrefix(ev.Message, "topology lost: pod long-mongod restarted") {
		t.Errorf("event (%d bytes): %q", len(ev.Message), ev.Message)
	}

	// The diagnostics survive the cleanup and hold the whole story.
	cm := k.diagnostics("long")
	k.dbPodDeleted("long-mongod")
	if !k.exists(&corev1.ConfigMap{}, cm.Name) {
		t.Fatal("the diagnostics ConfigMap was deleted by the cleanup")
	}
	if got := cm.Data[controllers.DiagnosticsKeyFailure]; !strings.Contains(got, "reason: TopologyLost") {
		t.Errorf("failure.txt:\n%s", got)
	}
	containers := cm.Data[controllers.DiagnosticsKeyContainers]
	for _, line := range strings.Split(msg, "\n") {
		if !strings.Contains(containers, "  "+line+"\n") {
			t.Fatalf("containers.txt lacks termination message line %q:\n%s", line, containers)
		}
	}
	for _, want := range []string{"== pod long-mongod, container standalone (standalone)", "restarts: 1", "exit code 137 (OOMKilled)", "previous instance"} {
		if !strings.Contains(containers, want) {
			t.Errorf("containers.txt lacks %q:\n%s", want, containers)
		}
	}
	log := cm.Data["long-mongod.standalone.log"]
	if got := strings.Count(log, "\n"); got != controllers.DiagnosticsLogLines || !strings.HasPrefix(log, "log line 0051 ") || !strings.Contains(log, "log line 0150 ") {
		t.Errorf("log tail has %d lines, want lines 51-150:\n%.200s", got, log)
	}
	if refs := cm.OwnerReferences; len(refs) != 1 || refs[0].UID != r.UID {
		t.Errorf("diagnostics owner %+v", refs)
	}

	// The controller's own log: each event and the phase change, with run, phase and reason.
	key := `"run":"` + k.ns + `/long"`
	if got := logs.Lines(`"msg":"event"`, key, `"reason":"TopologyLost"`, `"phase":"Failed"`); len(got) == 0 {
		t.Error("no log line for the TopologyLost event")
	}
	if got := logs.Lines(`"msg":"run phase changed"`, key, `"phase":"Failed"`, `"reason":"TopologyLost"`); len(got) == 0 {
		t.Error("no log line for the phase change to Failed")
	}
}

// TestDiagnosticsAreBounded: 24 loaders fail, each with a 4 KiB message
// and 100 log lines of 2 KiB. The condition stays short, and the
// diagnostics keep every container's state and log tail within 512 KiB.
func TestDiagnosticsAreBounded(t *testing.T) {
	const loaders = 24
	k := newCluster(t)
	m := startManager(t, &counters{}, testLimits)
	run := newRun("many", benchv1.TopologyStandalone, 0, loaders)
	run.Spec.Cleanup = benchv1.CleanupRetain
	k.create(run)
	k.upToPhase(run, 1)
	job := k.job("many-s2")
	// All loaders fail before the manager sees the first: the diagnostics
	// must cover every one.
	m.stop()
	for i := 0; i < loaders; i++ {
		pod := k.jobPod(job, i)
		k.schedule(pod, "node-b")
		kubelet.SetLog(k.ns, pod.Name, "loader", false, numberedLog(150, 2048))
		msg := longMessage(fmt.Sprintf("loader %d", i), 4096)
		k.setPodStatus(pod.Name, func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodFailed
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "loader", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: 1, Reason: "Error", Message: msg}}}}
		})
	}
	m.restart()
	r := k.waitFailed("many", "PhaseFailed", "phase S2 failed: 24 pods failed, first pod many-s2-0-abcde (index 0): exit code 1 (Error); last lines:",
		"also many-s2-1-abcde (index 1, exit code 1 (Error))")
	if c := cond(r, benchv1.ConditionFailed); len(c.Message) > 4*1024+64 {
		t.Errorf("condition message is %d bytes", len(c.Message))
	}
	cm := k.diagnostics("many")
	total := 0
	for key, v := range cm.Data {
		total += len(key) + len(v)
	}
	if total > controllers.MaxDiagnosticsBytes {
		t.Errorf("diagnostics hold %d bytes, more than %d", total, controllers.MaxDiagnosticsBytes)
	}
	for i := 0; i < loaders; i++ {
		pod := fmt.Sprintf("many-s2-%d-abcde", i)
		log, ok := cm.Data[pod+".loader.log"]
		if !ok || !strings.HasSuffix(log, strings.Repeat("x", 100)+"\n") || !strings.Contains(log, "log line 0150 ") {
			t.Errorf("%s: log tail missing or not its end (%d bytes): %.120q", pod, len(log), log)
		}
		if !strings.HasPrefix(log, "(… ") {
			t.Errorf("%s: a cut log must say so: %.120q", pod, log)
		}
		if !strings.Contains(cm.Data[controllers.DiagnosticsKeyContainers], "== pod "+pod+", container loader (loader), index "+fmt.Sprint(i)) {
			t.Errorf("containers.txt lacks %s", pod)
		}
	}
	t.Logf("diagnostics of %d failed loaders: %d bytes", loaders, total)
	// Idempotent: a later reconcile reads no log again.
	before, reconciles := kubelet.Requests(), reconcileTotal(t)
	k.labelRun("many", "touched", "yes") // a change that triggers a reconcile
	k.eventually("a reconcile after the label", 30*time.Second, func() (bool, error) { return reconcileTotal(t) > reconciles, nil })
	if after := kubelet.Requests(); after != before {
		t.Errorf("diagnostics read %d more logs after they were stored", after-before)
	}
}

// labelRun sets a label on a run (labels stay editable after the start).
func (k *cluster) labelRun(name, key, value string) {
	k.t.Helper()
	r := k.run(name)
	patch := client.MergeFrom(r.DeepCopy())
	if r.Labels == nil {
		r.Labels = map[string]string{}
	}
	r.Labels[key] = value
	if err := k.c.Patch(k.ctx(), r, patch); err != nil {
		k.t.Fatal(err)
	}
}
