package controllers_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/topology"
)

// killRun is a three-member ReplicaSet run of two loaders whose Run phase
// kills the primary at 2 s; it keeps its pods and ConfigMaps afterwards
// (the test reads them).
func killRun(name string) *benchv1.BenchmarkRun {
	run := disruptedRun(name, 2*time.Second)
	run.Spec.Phases[1].Disruptions[0].Action = benchv1.DisruptionKillPrimary
	run.Spec.Cleanup = benchv1.CleanupRetain
	return run
}

// podLedger creates the ledger loader 0 creates at a pod deletion's
// instant: the request, with the member to delete as its driver knew it.
func (k *cluster) podLedger(run *benchv1.BenchmarkRun, jobName string, i int, action benchv1.DisruptionAction, target string) *corev1.ConfigMap {
	k.t.Helper()
	return k.podLedgerAt(run, jobName, i, action, target, "2026-11-01T10:00:02Z")
}

// podLedgerAt is podLedger with the request sent at sent (RFC 3339).
func (k *cluster) podLedgerAt(run *benchv1.BenchmarkRun, jobName string, i int, action benchv1.DisruptionAction, target, sent string) *corev1.ConfigMap {
	k.t.Helper()
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: contract.DisruptionLedgerName(jobName, i), Namespace: k.ns,
			Labels: map[string]string{benchv1.LabelManagedBy: benchv1.ManagedBy, benchv1.LabelRun: run.Name, benchv1.LabelName: benchv1.AppName},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: benchv1.GroupVersion.String(), Kind: "BenchmarkRun", Name: run.Name, UID: run.UID,
				Controller: ptr.To(true)}}},
		Data: map[string]string{contract.DisruptionActionKey: string(action), contract.DisruptionSentKey: sent,
			contract.DisruptionActorKey: jobName + "-0-abcde", contract.DisruptionPrimaryKey: target, contract.DisruptionTargetKey: target},
	}
	if err := k.c.Create(k.ctx(), cm); err != nil {
		k.t.Fatal(err)
	}
	return cm
}

// waitLedger waits until the ledger satisfies cond and returns its data.
func (k *cluster) waitLedger(name, what string, cond func(map[string]string) bool) map[string]string {
	k.t.Helper()
	var data map[string]string
	k.eventually("ledger "+name+": "+what, 60*time.Second, func() (bool, error) {
		cm := &corev1.ConfigMap{}
		if err := k.c.Get(k.ctx(), types.NamespacedName{Namespace: k.ns, Name: name}, cm); err != nil {
			return false, err
		}
		data = cm.Data
		return cond(data), nil
	})
	return data
}

// TestKillPrimaryThroughTheController: a KillPrimary runs end to end
// through the controller, exactly once. Loader 0's ledger names the
// primary by its address; the controller records the member's pod and
// UID in the ledger before it deletes anything. A manager that stops
// right then (its deletions failing until it does) leaves the pod alone;
// its successor deletes that UID, once, records when, and recreates the
// pod (same name, same node), which the run does not take for a lost
// topology. A restart after that deletes nothing more. The phase's
// outcome comes from the ledger (the deleted pod, the request's time,
// how long until the API server accepted the deletion), and the killed
// member's restart and the election are planned, not problems.
func TestKillPrimaryThroughTheController(t *testing.T) { //nolint:gocyclo // one scenario, step by step
	k := newCluster(t)
	count := &counters{}
	count.failPodDeletes.Store(true)
	m := startManager(t, count, testLimits)
	stop := k.autopilotWith(autopilotOptions{holdPhases: true, removeDeleted: true})
	defer stop()
	run := k.create(killRun("kill"))
	k.waitLifecycle(run.Name, benchv1.RunLoading)
	k.finishPhase(run, run.Spec.Phases[0])
	jobName := topology.PhaseJobName(run, "S2")
	job := k.job(jobName)
	if args := strings.Join(job.Spec.Template.Spec.Containers[0].Args, " "); !strings.Contains(args, "--"+contract.FlagDisruption+" 0,KillPrimary,2s") {
		t.Errorf("the Job does not pass the KillPrimary: %s", args)
	}
	victim := topology.MemberName(run, 0)
	old := k.pod(victim)
	addr := victim + "." + topology.HeadlessServiceName(run) + "." + k.ns + ".svc.cluster.local:27017"
	led := k.podLedger(run, jobName, 0, benchv1.DisruptionKillPrimary, addr)

	// Step 1: the pod and its UID, recorded before any deletion.
	data := k.waitLedger(led.Name, "the pod to delete recorded", func(d map[string]string) bool { return d[contract.DisruptionPodUIDKey] != "" })
	if data[contract.DisruptionPodKey] != victim || data[contract.DisruptionPodUIDKey] != string(old.UID) || data[contract.DisruptionNodeKey] != old.Spec.NodeName {
		t.Fatalf("ledger %v, want pod %s, UID %s, node %s", data, victim, old.UID, old.Spec.NodeName)
	}
	// The manager stops between recording and deleting.
	m.stop()
	if p := k.pod(victim); p.UID != old.UID || p.DeletionTimestamp != nil || count.podDeletes.Load() != 0 {
		t.Fatalf("pod %s deleted (UID %s, deleting %v, %d deletions) by a manager whose deletions failed", victim, p.UID, p.DeletionTimestamp,
			count.podDeletes.Load())
	}
	count.failPodDeletes.Store(false)
	m = startManager(t, count, testLimits)

	// Step 2: the successor deletes that UID and records when.
	data = k.waitLedger(led.Name, "the deletion recorded", func(d map[string]string) bool { return d[contract.DisruptionReturnedKey] != "" })
	if data[contract.DisruptionErrorKey] != "" {
		t.Fatalf("ledger %v: error", data)
	}
	var back *corev1.Pod
	k.eventually("pod "+victim+" recreated and ready", 60*time.Second, func() (bool, error) {
		back = &corev1.Pod{}
		err := k.c.Get(k.ctx(), types.NamespacedName{Namespace: k.ns, Name: victim}, back)
		return err == nil && back.UID != old.UID && podIsReady(back), nil
	})
	if back.Spec.NodeSelector[topology.HostnameLabel] != nodes[old.Spec.NodeName] || back.Spec.NodeName != old.Spec.NodeName {
		t.Errorf("recreated on node %s (selector %v), the pod ran on %s", back.Spec.NodeName, back.Spec.NodeSelector, old.Spec.NodeName)
	}
	if !equalVolumes(old.Spec.Volumes, back.Spec.Volumes) || back.Spec.Containers[0].Image != old.Spec.Containers[0].Image {
		t.Errorf("recreated with volumes %+v, image %s; was %+v, %s", back.Spec.Volumes, back.Spec.Containers[0].Image, old.Spec.Volumes,
			old.Spec.Containers[0].Image)
	}
	// A restart now repeats nothing: one deletion in all, the replacement
	// stays.
	m.restart()
	k.waitRun(run.Name, "reconciled after the restart", func(r *benchv1.BenchmarkRun) bool { return r.Status.ObservedGeneration == r.Generation })
	if r := k.run(run.Name); r.Status.Phase != benchv1.RunRunning {
		t.Fatalf("run %s: %s", r.Status.Phase, failedMessage(r))
	}

	// The killed member restarted (uptime down) at +5 s, after the
	// request: planned, like the election rs-rs0-1 saw at +4 s.
	rep := telemetryPayload(run)
	rep.Processes[0].Series.Restarts = 1
	rep.Processes[0].Series.RestartTimes = []time.Time{telemetryStart.Add(5 * time.Second)}
	k.finishPhaseWith(run, run.Spec.Phases[1], encodeTelemetry(t, rep))
	r := k.waitLifecycle(run.Name, benchv1.RunSucceeded)
	if uids := count.deletedPodUIDs(); len(uids) != 1 || uids[0] != old.UID {
		t.Errorf("pods deleted: %v, want exactly the primary's %s", uids, old.UID)
	}
	if p := k.pod(victim); p.UID != back.UID {
		t.Errorf("the replacement %s was replaced (UID %s)", back.UID, p.UID)
	}
	d := r.Status.Results[1].Disruptions[0]
	o := d.Outcome
	sent := time.Date(2026, 11, 1, 10, 0, 2, 0, time.UTC)
	if d.Action != benchv1.DisruptionKillPrimary || o.State != benchv1.DisruptionDone || o.Pod != victim || o.Primary != addr || o.Error != "" ||
		o.Sent == nil || !o.Sent.Time.Equal(sent) || o.DurationMicros == nil || *o.DurationMicros <= 0 {
		t.Errorf("outcome %+v, want Done, pod %s deleted, sent at %v", o, victim, sent)
	}
	var restarted *benchv1.ServerSummary
	for i := range r.Status.Results[1].Server {
		if srv := &r.Status.Results[1].Server[i]; srv.Pod == victim {
			restarted = srv
		}
	}
	if restarted == nil || restarted.Restarts != 1 || restarted.PlannedRestarts != 1 {
		t.Errorf("server %+v, want 1 restart, planned", restarted)
	}
	if c := cond(r, benchv1.ConditionValid); c == nil || !strings.Contains(c.Message, "phase S2: 1 planned restart(s) of "+victim) ||
		!strings.Contains(c.Message, "phase S2: 1 planned change(s) of replica set rs0's primary") || strings.Contains(c.Message, "restarted") {
		t.Errorf("Valid %+v, want the restart and the election planned", c)
	}
	if c := cond(r, benchv1.ConditionFailed); c == nil || c.Status != metav1.ConditionFalse {
		t.Errorf("Failed %+v", c)
	}
}

// TestPodDeletionOfAStranger: a ledger that names an address no member
// has (a driver's view the controller cannot map) fails the disruption,
// with the reason in its outcome, and deletes nothing; the run goes on
// and succeeds.
func TestPodDeletionOfAStranger(t *testing.T) {
	k := newCluster(t)
	count := &counters{}
	startManager(t, count, testLimits)
	stop := k.autopilotWith(autopilotOptions{holdPhases: true, removeDeleted: true})
	defer stop()
	run := k.create(killRun("stranger"))
	k.waitLifecycle(run.Name, benchv1.RunLoading)
	k.finishPhase(run, run.Spec.Phases[0])
	jobName := topology.PhaseJobName(run, "S2")
	k.job(jobName)
	led := k.podLedger(run, jobName, 0, benchv1.DisruptionKillPrimary, "10.1.2.3:27017")
	data := k.waitLedger(led.Name, "the refusal recorded", func(d map[string]string) bool { return d[contract.DisruptionReturnedKey] != "" })
	if !strings.Contains(data[contract.DisruptionErrorKey], `loader 0 named "10.1.2.3:27017", which is no member of this run's replica set`) ||
		data[contract.DisruptionPodUIDKey] != "" {
		t.Errorf("ledger %v", data)
	}
	k.finishPhase(run, run.Spec.Phases[1])
	r := k.waitLifecycle(run.Name, benchv1.RunSucceeded)
	o := r.Status.Results[1].Disruptions[0].Outcome
	if o.State != benchv1.DisruptionFailed || !strings.Contains(o.Error, "which is no member of this run's replica set (stranger-rs0-0, stranger-rs0-1, stranger-rs0-2): nothing deleted") ||
		o.Pod != "" {
		t.Errorf("outcome %+v, want Failed, nothing deleted", o)
	}
	if n := count.podDeletes.Load(); n != 0 {
		t.Errorf("%d pods deleted, want none", n)
	}
	// Nothing was deleted: the election the harness' telemetry shows is
	// not the disruption's.
	for _, srv := range r.Status.Results[1].Server {
		if srv.PlannedPrimaryChanges != 0 || srv.PlannedRestarts != 0 {
			t.Errorf("%s: %d planned primary changes, %d planned restarts", srv.Pod, srv.PlannedPrimaryChanges, srv.PlannedRestarts)
		}
	}
}

func equalVolumes(a, b []corev1.Volume) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || (a[i].EmptyDir == nil) != (b[i].EmptyDir == nil) ||
			(a[i].PersistentVolumeClaim == nil) != (b[i].PersistentVolumeClaim == nil) ||
			(a[i].PersistentVolumeClaim != nil && a[i].PersistentVolumeClaim.ClaimName != b[i].PersistentVolumeClaim.ClaimName) {
			return false
		}
	}
	return true
}

// TestRestartMemberByIndex: a RestartMember of member 1 needs no address
// from loader 0: the controller maps the index to the pod, deletes it
// with the pod's own grace period (an orderly shutdown), and the run
// waits while it terminates, without taking it for a lost topology; once
// the kubelet removed it, the pod is created again and the run succeeds.
func TestRestartMemberByIndex(t *testing.T) {
	k := newCluster(t)
	count := &counters{}
	startManager(t, count, testLimits)
	stop := k.autopilotWith(autopilotOptions{holdPhases: true})
	defer stop()
	run := killRun("restart")
	run.Spec.Phases[1].Disruptions[0] = benchv1.Disruption{At: metav1.Duration{Duration: 2 * time.Second}, Action: benchv1.DisruptionRestartMember,
		Member: ptr.To(intstr.FromInt32(1))}
	run = k.create(run)
	k.waitLifecycle(run.Name, benchv1.RunLoading)
	k.finishPhase(run, run.Spec.Phases[0])
	jobName := topology.PhaseJobName(run, "S2")
	if args := strings.Join(k.job(jobName).Spec.Template.Spec.Containers[0].Args, " "); !strings.Contains(args, "0,RestartMember,2s,member=1") {
		t.Errorf("the Job does not pass the RestartMember: %s", args)
	}
	member := topology.MemberName(run, 1)
	old := k.pod(member)
	led := k.podLedger(run, jobName, 0, benchv1.DisruptionRestartMember, "")
	k.waitLedger(led.Name, "the deletion recorded", func(d map[string]string) bool {
		return d[contract.DisruptionReturnedKey] != "" && d[contract.DisruptionPodKey] == member
	})
	p := k.pod(member)
	if p.UID != old.UID || p.DeletionTimestamp == nil || p.DeletionGracePeriodSeconds == nil || old.Spec.TerminationGracePeriodSeconds == nil ||
		*p.DeletionGracePeriodSeconds != *old.Spec.TerminationGracePeriodSeconds {
		t.Fatalf("pod %s: deleting %v with %v s, want its own grace period %v s", member, p.DeletionTimestamp, p.DeletionGracePeriodSeconds,
			old.Spec.TerminationGracePeriodSeconds)
	}
	// Terminating: the run waits (the watch sees the pod, deleting).
	k.waitRun(run.Name, "reconciled with the pod terminating", func(r *benchv1.BenchmarkRun) bool { return r.Status.ObservedGeneration == r.Generation })
	if r := k.run(run.Name); r.Status.Phase != benchv1.RunRunning {
		t.Fatalf("run %s while the member shuts down: %s", r.Status.Phase, failedMessage(r))
	}
	// The kubelet removes it; the controller creates it again.
	if err := k.c.Delete(k.ctx(), p, client.GracePeriodSeconds(0)); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	k.eventually("pod "+member+" recreated and ready", 60*time.Second, func() (bool, error) {
		back := &corev1.Pod{}
		err := k.c.Get(k.ctx(), types.NamespacedName{Namespace: k.ns, Name: member}, back)
		return err == nil && back.UID != old.UID && podIsReady(back), nil
	})
	k.finishPhase(run, run.Spec.Phases[1])
	r := k.waitLifecycle(run.Name, benchv1.RunSucceeded)
	if o := r.Status.Results[1].Disruptions[0].Outcome; o.State != benchv1.DisruptionDone || o.Pod != member {
		t.Errorf("outcome %+v, want Done, pod %s", o, member)
	}
	if uids := count.deletedPodUIDs(); len(uids) != 1 || uids[0] != old.UID {
		t.Errorf("pods deleted: %v, want exactly %s's %s", uids, member, old.UID)
	}
}

// TestLostReplacementFailsTheRun: the pod a KillPrimary's replacement is
// (its UID recorded in the ledger) going missing in its turn is no
// disruption's doing: the run fails as for any lost member, and the
// controller does not quietly create the pod a third time.
func TestLostReplacementFailsTheRun(t *testing.T) {
	k := newCluster(t)
	count := &counters{}
	startManager(t, count, testLimits)
	stop := k.autopilotWith(autopilotOptions{holdPhases: true, removeDeleted: true})
	defer stop()
	run := k.create(killRun("lost"))
	k.waitLifecycle(run.Name, benchv1.RunLoading)
	k.finishPhase(run, run.Spec.Phases[0])
	jobName := topology.PhaseJobName(run, "S2")
	k.job(jobName)
	victim := topology.MemberName(run, 0)
	old := k.pod(victim)
	addr := victim + "." + topology.HeadlessServiceName(run) + "." + k.ns + ".svc.cluster.local:27017"
	led := k.podLedger(run, jobName, 0, benchv1.DisruptionKillPrimary, addr)

	data := k.waitLedger(led.Name, "the replacement recorded", func(d map[string]string) bool {
		return d[contract.DisruptionReplacementUIDKey] != ""
	})
	var back *corev1.Pod
	k.eventually("pod "+victim+" recreated and ready", 60*time.Second, func() (bool, error) {
		back = &corev1.Pod{}
		err := k.c.Get(k.ctx(), types.NamespacedName{Namespace: k.ns, Name: victim}, back)
		return err == nil && back.UID != old.UID && podIsReady(back), nil
	})
	if data[contract.DisruptionReplacementUIDKey] != string(back.UID) {
		t.Fatalf("ledger records replacement %s, the pod is %s", data[contract.DisruptionReplacementUIDKey], back.UID)
	}
	if r := k.run(run.Name); r.Status.Phase != benchv1.RunRunning {
		t.Fatalf("run %s: %s", r.Status.Phase, failedMessage(r))
	}

	// Something else deletes the replacement.
	if err := k.c.Delete(k.ctx(), back, client.GracePeriodSeconds(0)); err != nil {
		t.Fatal(err)
	}
	r := k.waitLifecycle(run.Name, benchv1.RunFailed)
	if msg := failedMessage(r); !strings.Contains(msg, "topology lost: pod "+victim) {
		t.Errorf("failed: %s, want the lost member named", msg)
	}
	p := &corev1.Pod{}
	if err := k.c.Get(k.ctx(), types.NamespacedName{Namespace: k.ns, Name: victim}, p); err == nil && p.UID != back.UID {
		t.Errorf("pod %s created a third time (UID %s)", victim, p.UID)
	}
	if uids := count.deletedPodUIDs(); len(uids) != 1 || uids[0] != old.UID {
		t.Errorf("pods deleted by the controller: %v, want exactly the primary's %s", uids, old.UID)
	}
}

// TestKillMongos: a KillMongos of a Sharded run goes through the same
// ledger: loader 0 names nothing (there is one mongos), the controller
// deletes the mongos' pod with the kubelet's shortest stop, once, and
// creates it again; the run does not take it for a lost topology.
func TestKillMongos(t *testing.T) {
	k := newCluster(t)
	count := &counters{}
	startManager(t, count, testLimits)
	stop := k.autopilotWith(autopilotOptions{holdPhases: true, removeDeleted: true})
	defer stop()
	run := newRun("mongos", benchv1.TopologySharded, 2, 2)
	run.Spec.Phases = run.Spec.Phases[:2]
	run.Spec.Phases[1].Disruptions = []benchv1.Disruption{{At: metav1.Duration{Duration: 2 * time.Second}, Action: benchv1.DisruptionKillMongos}}
	run.Spec.Cleanup = benchv1.CleanupRetain
	run = k.create(run)
	k.waitLifecycle(run.Name, benchv1.RunLoading)
	k.finishPhase(run, run.Spec.Phases[0])
	jobName := topology.PhaseJobName(run, "S2")
	if args := strings.Join(k.job(jobName).Spec.Template.Spec.Containers[0].Args, " "); !strings.Contains(args, "0,KillMongos,2s") {
		t.Errorf("the Job does not pass the KillMongos: %s", args)
	}
	mongos := run.Name + "-mongos"
	old := k.pod(mongos)
	led := k.podLedger(run, jobName, 0, benchv1.DisruptionKillMongos, "")
	data := k.waitLedger(led.Name, "the deletion recorded", func(d map[string]string) bool { return d[contract.DisruptionReturnedKey] != "" })
	if data[contract.DisruptionPodKey] != mongos || data[contract.DisruptionPodUIDKey] != string(old.UID) || data[contract.DisruptionErrorKey] != "" {
		t.Fatalf("ledger %v, want the mongos %s (%s) deleted", data, mongos, old.UID)
	}
	k.eventually("pod "+mongos+" recreated and ready", 60*time.Second, func() (bool, error) {
		back := &corev1.Pod{}
		err := k.c.Get(k.ctx(), types.NamespacedName{Namespace: k.ns, Name: mongos}, back)
		return err == nil && back.UID != old.UID && podIsReady(back), nil
	})
	k.finishPhase(run, run.Spec.Phases[1])
	r := k.waitLifecycle(run.Name, benchv1.RunSucceeded)
	if o := r.Status.Results[1].Disruptions[0].Outcome; o.State != benchv1.DisruptionDone || o.Pod != mongos {
		t.Errorf("outcome %+v, want Done, pod %s", o, mongos)
	}
	if uids := count.deletedPodUIDs(); len(uids) != 1 || uids[0] != old.UID {
		t.Errorf("pods deleted: %v, want exactly the mongos' %s", uids, old.UID)
	}
}

// TestKillPrimaryOfAShard: a KillPrimary of shard 1 of a Sharded topology
// (shards of 3 members). The Job passes the shard's replica set and its
// members' addresses to the loaders; loader 0's ledger names the member
// of shard 1 that its watcher knew as primary, and the controller deletes
// exactly that pod (not shard 0's member of the same index), recreates
// it, and the run succeeds with the outcome and the target in status.
func TestKillPrimaryOfAShard(t *testing.T) {
	k := newCluster(t)
	count := &counters{}
	startManager(t, count, testLimits)
	stop := k.autopilotWith(autopilotOptions{holdPhases: true, removeDeleted: true})
	defer stop()
	run := newRun("shardkill", benchv1.TopologySharded, 2, 2)
	run.Spec.Topology.ShardMembers = ptr.To[int32](3)
	run.Spec.Phases = run.Spec.Phases[:2]
	run.Spec.Phases[1].Disruptions = []benchv1.Disruption{{At: metav1.Duration{Duration: 2 * time.Second},
		Action: benchv1.DisruptionKillPrimary, Target: ptr.To(intstr.FromInt32(1))}}
	run.Spec.Cleanup = benchv1.CleanupRetain
	run = k.create(run)
	k.waitLifecycle(run.Name, benchv1.RunLoading)
	k.finishPhase(run, run.Spec.Phases[0])
	jobName := topology.PhaseJobName(run, "S2")
	dom := "." + topology.HeadlessServiceName(run) + "." + k.ns + ".svc.cluster.local:27018"
	hosts := run.Name + "-shard1" + dom + "|" + run.Name + "-shard1-1" + dom + "|" + run.Name + "-shard1-2" + dom
	if args := strings.Join(k.job(jobName).Spec.Template.Spec.Containers[0].Args, " "); !strings.Contains(args, "0,KillPrimary,2s,target=shard1,hosts="+hosts) {
		t.Errorf("the Job does not pass the shard's KillPrimary with its members: %s", args)
	}
	victim := run.Name + "-shard1-2"
	old, bystander := k.pod(victim), k.pod(run.Name+"-shard0-2")
	led := k.podLedger(run, jobName, 0, benchv1.DisruptionKillPrimary, victim+dom)
	data := k.waitLedger(led.Name, "the deletion recorded", func(d map[string]string) bool { return d[contract.DisruptionReturnedKey] != "" })
	if data[contract.DisruptionPodKey] != victim || data[contract.DisruptionPodUIDKey] != string(old.UID) || data[contract.DisruptionErrorKey] != "" {
		t.Fatalf("ledger %v, want shard 1's member %s (%s) deleted", data, victim, old.UID)
	}
	k.eventually("pod "+victim+" recreated and ready", 60*time.Second, func() (bool, error) {
		back := &corev1.Pod{}
		err := k.c.Get(k.ctx(), types.NamespacedName{Namespace: k.ns, Name: victim}, back)
		return err == nil && back.UID != old.UID && podIsReady(back), nil
	})
	k.finishPhase(run, run.Spec.Phases[1])
	r := k.waitLifecycle(run.Name, benchv1.RunSucceeded)
	d := r.Status.Results[1].Disruptions[0]
	if d.Outcome.State != benchv1.DisruptionDone || d.Outcome.Pod != victim || d.Target != "shard1" {
		t.Errorf("disruption %+v, want Done, pod %s, target shard1", d, victim)
	}
	if uids := count.deletedPodUIDs(); len(uids) != 1 || uids[0] != old.UID {
		t.Errorf("pods deleted: %v, want exactly %s's %s", uids, victim, old.UID)
	}
	if p := k.pod(bystander.Name); p.UID != bystander.UID {
		t.Errorf("shard 0's member %s was replaced", bystander.Name)
	}
}

// pauseRun creates a three-member set whose Run phase pauses the primary
// for 3 s at 2 s, takes it to that phase, plays loader 0's request (the
// ledger, sent now by the test's clock: the controller adds the freezing
// container only within 30 s of it), and returns the run, the
// ledger, the frozen member's pod name and the container's name.
func (k *cluster) pauseRun(name string, sent ...time.Time) (*benchv1.BenchmarkRun, *corev1.ConfigMap, string, string) {
	k.t.Helper()
	run := disruptedRun(name, 2*time.Second)
	run.Spec.Phases[1].Disruptions[0] = benchv1.Disruption{At: metav1.Duration{Duration: 2 * time.Second}, Action: benchv1.DisruptionPause,
		Member: ptr.To(intstr.FromString(benchv1.MemberPrimary)), Duration: &metav1.Duration{Duration: 3 * time.Second}}
	run.Spec.Cleanup = benchv1.CleanupRetain
	run = k.create(run)
	k.waitLifecycle(run.Name, benchv1.RunLoading)
	victim := topology.MemberName(run, 1)
	if p := k.pod(victim); p.Spec.ShareProcessNamespace == nil || !*p.Spec.ShareProcessNamespace {
		k.t.Fatalf("pod %s does not share its process namespace", victim)
	}
	k.finishPhase(run, run.Spec.Phases[0])
	jobName := topology.PhaseJobName(run, "S2")
	if args := strings.Join(k.job(jobName).Spec.Template.Spec.Containers[0].Args, " "); !strings.Contains(args, "0,Pause,2s,member=primary,duration=3s") {
		k.t.Errorf("the Job does not pass the Pause: %s", args)
	}
	addr := victim + "." + topology.HeadlessServiceName(run) + "." + k.ns + ".svc.cluster.local:27017"
	at := time.Now()
	if len(sent) > 0 {
		at = sent[0]
	}
	led := k.podLedgerAt(run, jobName, 0, benchv1.DisruptionPause, addr, at.UTC().Format(time.RFC3339Nano))
	return run, led, victim, topology.PauseContainerName(led.Name)
}

// endContainer plays the kubelet: the pod's ephemeral container ended
// with exit code and termination message msg.
func (k *cluster) endContainer(pod, container string, code int32, msg string) {
	k.t.Helper()
	k.eventually("the end of "+container+" reported", 30*time.Second, func() (bool, error) {
		p := k.pod(pod)
		p.Status.EphemeralContainerStatuses = []corev1.ContainerStatus{{Name: container, Image: "loader",
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: "Completed", Message: msg}}}}
		err := k.c.Status().Update(k.ctx(), p)
		if apierrors.IsConflict(err) { // the autopilot's own status update came first
			return false, nil
		}
		return err == nil, err
	})
}

// TestPauseThroughTheController: a Pause of the primary runs end to end
// through the controller, once. The run's database pods share their
// process namespace; loader 0's ledger names the primary; the controller
// records the member's pod and the freezing container's name, then adds
// that ephemeral container (`loader freeze` for the Pause's duration) to
// the pod, once, across a manager restart. The test, as the kubelet,
// ends the container with its report; the controller copies when mongod
// was stopped and continued into the ledger, and the phase's outcome
// shows the pod and how long it was frozen.
func TestPauseThroughTheController(t *testing.T) {
	k := newCluster(t)
	count := &counters{}
	m := startManager(t, count, testLimits)
	stop := k.autopilotWith(autopilotOptions{holdPhases: true, removeDeleted: true})
	defer stop()
	run, led, victim, container := k.pauseRun("pause")
	data := k.waitLedger(led.Name, "the pod and container recorded", func(d map[string]string) bool { return d[contract.DisruptionContainerKey] != "" })
	if data[contract.DisruptionPodKey] != victim || data[contract.DisruptionContainerKey] != container {
		t.Fatalf("ledger %v, want pod %s, container %s", data, victim, container)
	}
	var pod *corev1.Pod
	k.eventually("the freezing container added to "+victim, 30*time.Second, func() (bool, error) {
		pod = k.pod(victim)
		return len(pod.Spec.EphemeralContainers) == 1, nil
	})
	ec := pod.Spec.EphemeralContainers[0]
	if ec.Name != container || strings.Join(ec.Args, " ") != "freeze --process mongod --for 3s" || *ec.SecurityContext.RunAsUser != topology.MongoUID {
		t.Errorf("ephemeral container %+v", ec)
	}
	// A restarted manager adds nothing more while it runs.
	m.restart()
	k.waitRun(run.Name, "reconciled after the restart", func(r *benchv1.BenchmarkRun) bool { return r.Status.ObservedGeneration == r.Generation })
	if n := len(k.pod(victim).Spec.EphemeralContainers); n != 1 {
		t.Fatalf("%d ephemeral containers after a restart, want 1", n)
	}

	// The kubelet: the container ran and reported.
	stopped := time.Now().UTC().Truncate(time.Millisecond)
	rep := contract.FreezeReport{PID: 17, Process: "mongod", StopSent: stopped.Add(-time.Millisecond), Stopped: stopped,
		ContinueSent: stopped.Add(3 * time.Second), Continued: stopped.Add(3*time.Second + time.Millisecond)}
	k.endContainer(victim, container, 0, contract.EncodeFreezeReport(rep))
	data = k.waitLedger(led.Name, "the freeze recorded", func(d map[string]string) bool { return d[contract.DisruptionReturnedKey] != "" })
	if data[contract.DisruptionFrozenKey] != stopped.Format(time.RFC3339Nano) || data[contract.DisruptionErrorKey] != "" ||
		data[contract.DisruptionThawedKey] != rep.Continued.Format(time.RFC3339Nano) {
		t.Fatalf("ledger %v, want frozen %v, thawed %v", data, stopped, rep.Continued)
	}
	k.finishPhase(run, run.Spec.Phases[1])
	r := k.waitLifecycle(run.Name, benchv1.RunSucceeded)
	o := r.Status.Results[1].Disruptions[0].Outcome
	if o.State != benchv1.DisruptionDone || o.Pod != victim || o.Frozen == nil || o.FrozenMicros == nil || *o.FrozenMicros != 3_001_000 {
		t.Errorf("outcome %+v, want Done, pod %s, frozen 3.001 s", o, victim)
	}
	if count.podDeletes.Load() != 0 {
		t.Errorf("%d pods deleted by a Pause", count.podDeletes.Load())
	}
}

// TestPauseWithoutAThawFailsTheRun: a freezing container that ended
// (killed) without reporting that it continued mongod leaves the member
// possibly stopped: the run fails, naming the pod, rather than measure a
// frozen member in its next phases.
func TestPauseWithoutAThawFailsTheRun(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	stop := k.autopilotWith(autopilotOptions{holdPhases: true, removeDeleted: true})
	defer stop()
	run, led, victim, container := k.pauseRun("pause-lost")
	k.eventually("the freezing container added to "+victim, 30*time.Second, func() (bool, error) {
		return len(k.pod(victim).Spec.EphemeralContainers) == 1, nil
	})
	now := time.Now().UTC()
	k.endContainer(victim, container, 137, contract.EncodeFreezeReport(contract.FreezeReport{PID: 17, Process: "mongod", StopSent: now, Stopped: now}))
	r := k.waitLifecycle(run.Name, benchv1.RunFailed)
	if msg := failedMessage(r); !strings.Contains(msg, "mongod may still be stopped") || !strings.Contains(msg, "delete pod "+victim) {
		t.Errorf("failed with %q, want the stopped member named", msg)
	}
	if data := k.waitLedger(led.Name, "the outcome recorded", func(d map[string]string) bool { return d[contract.DisruptionReturnedKey] != "" }); !strings.Contains(data[contract.DisruptionErrorKey], "exit code 137") {
		t.Errorf("ledger %v", data)
	}
}

// TestPauseThatFrozeNothing: a freezing container that sent no signal
// (here: no process of the name in the pod) froze nothing: the
// disruption Failed with its reason, and the run goes on.
func TestPauseThatFrozeNothing(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	stop := k.autopilotWith(autopilotOptions{holdPhases: true, removeDeleted: true})
	defer stop()
	run, led, victim, container := k.pauseRun("pause-none")
	k.eventually("the freezing container added to "+victim, 30*time.Second, func() (bool, error) {
		return len(k.pod(victim).Spec.EphemeralContainers) == 1, nil
	})
	k.endContainer(victim, container, 1, contract.EncodeFreezeReport(contract.FreezeReport{Process: "mongod", Error: `no process named "mongod"`}))
	data := k.waitLedger(led.Name, "the outcome recorded", func(d map[string]string) bool { return d[contract.DisruptionReturnedKey] != "" })
	if !strings.Contains(data[contract.DisruptionErrorKey], `froze nothing in pod `+victim) || data[contract.DisruptionFrozenKey] != "" {
		t.Errorf("ledger %v", data)
	}
	k.finishPhase(run, run.Spec.Phases[1])
	r := k.waitLifecycle(run.Name, benchv1.RunSucceeded)
	if o := r.Status.Results[1].Disruptions[0].Outcome; o.State != benchv1.DisruptionFailed || !strings.Contains(o.Error, "froze nothing") || o.Frozen != nil {
		t.Errorf("outcome %+v, want Failed, nothing frozen", o)
	}
}

// TestLatePauseFreezesNothing: a request the controller sees more than
// 30 s after loader 0 made it (a manager that was down) would freeze the
// member after everything measured around the instant: nothing is added,
// the disruption Failed, the run goes on.
func TestLatePauseFreezesNothing(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	stop := k.autopilotWith(autopilotOptions{holdPhases: true, removeDeleted: true})
	defer stop()
	run, led, victim, _ := k.pauseRun("pause-late", time.Now().Add(-time.Minute))
	data := k.waitLedger(led.Name, "the refusal recorded", func(d map[string]string) bool { return d[contract.DisruptionReturnedKey] != "" })
	if !strings.Contains(data[contract.DisruptionErrorKey], "could not be added to pod "+victim+" within 30s") {
		t.Errorf("ledger %v", data)
	}
	if n := len(k.pod(victim).Spec.EphemeralContainers); n != 0 {
		t.Errorf("%d ephemeral containers added", n)
	}
	k.finishPhase(run, run.Spec.Phases[1])
	k.waitLifecycle(run.Name, benchv1.RunSucceeded)
}
