package controllers_test

import (
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/topology"
)

// upToPhase brings a standalone run to the start of phase index i (its Job
// exists), finishing the phases before it.
func (k *cluster) upToPhase(run *benchv1.BenchmarkRun, i int) {
	k.t.Helper()
	procs := topology.Processes(run)
	k.bringUp(procs[0].Name)
	for _, p := range procs[1:] {
		if p.Role != benchv1.RoleMongos {
			k.bringUp(p.Name)
		}
	}
	k.finishBootstrap(k.run(run.Name))
	for _, p := range procs[1:] {
		if p.Role == benchv1.RoleMongos {
			k.bringUp(p.Name)
		}
	}
	for _, ph := range run.Spec.Phases[:i] {
		k.finishPhase(run, ph)
	}
	k.job(topology.PhaseJobName(run, run.Spec.Phases[i].Name))
}

// waitFailed waits for the run to fail and checks the reason and message.
func (k *cluster) waitFailed(name, reason string, msg ...string) *benchv1.BenchmarkRun {
	k.t.Helper()
	r := k.waitRun(name, "Failed ("+reason+")", func(r *benchv1.BenchmarkRun) bool { return r.Status.Phase == benchv1.RunFailed })
	c := cond(r, benchv1.ConditionFailed)
	if c == nil || c.Status != metav1.ConditionTrue || c.Reason != reason {
		k.t.Fatalf("Failed condition %+v, want reason %s", c, reason)
	}
	for _, m := range msg {
		if !strings.Contains(c.Message, m) {
			k.t.Errorf("failure message %q lacks %q", c.Message, m)
		}
	}
	if r.Status.CompletionTime == nil {
		k.t.Error("failed run has no completion time")
	}
	if cc := cond(r, benchv1.ConditionComplete); cc == nil || cc.Status != metav1.ConditionFalse {
		k.t.Errorf("Complete %+v", cc)
	}
	return r
}

// dbPodKept / dbPodDeleted check the cleanup policy's effect.
func (k *cluster) dbPodKept(name string) {
	k.t.Helper()
	// Absence cannot be polled for: watch the pod for a while (a wrong
	// cleanup happens within milliseconds of the Failed status).
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if p := (&corev1.Pod{}); !k.exists(p, name) || p.DeletionTimestamp != nil {
			k.t.Fatalf("pod %s was deleted; the cleanup policy keeps it", name)
		}
		time.Sleep(50 * time.Millisecond) // observation interval
	}
}

func (k *cluster) dbPodDeleted(name string) {
	k.t.Helper()
	k.eventually("pod "+name+" deleted", 30*time.Second, func() (bool, error) { return k.gone(&corev1.Pod{}, name), nil })
}

func TestUnschedulablePinnedPodFails(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	run := newRun("unsched", benchv1.TopologySharded, 2, 1)
	run.Spec.Topology.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("6"), corev1.ResourceMemory: resource.MustParse("8Gi")}
	k.create(run)
	k.bringUp("unsched-cfg")
	k.pod("unsched-shard1")
	// Still within the limit: the run waits.
	k.setPodStatus("unsched-shard1", func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodPending
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
			Message: "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node affinity/selector.", LastTransitionTime: metav1.Now()}}
	})
	k.waitRun("unsched", "still provisioning", func(r *benchv1.BenchmarkRun) bool { return r.Status.Phase == benchv1.RunProvisioning })
	// Past the limit (the scheduler said so a while ago): the run fails and says why.
	k.setPodStatus("unsched-shard1", func(p *corev1.Pod) {
		p.Status.Conditions[0].LastTransitionTime = metav1.NewTime(time.Now().Add(-2 * testLimits.Unschedulable))
	})
	k.waitFailed("unsched", "TopologyFailed", "pod unsched-shard1 cannot be scheduled on node host-a", "it requests cpu=6, memory=8Gi", "Insufficient cpu")
	k.dbPodDeleted("unsched-cfg") // default cleanup: Delete
}

func TestBootstrapFailureFails(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	k.create(newRun("bootfail", benchv1.TopologyStandalone, 0, 1))
	k.bringUp("bootfail-mongod")
	job := k.job("bootfail-bootstrap")
	pod := k.jobPod(job, 0)
	k.setPodStatus(pod.Name, func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodFailed
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "bootstrap", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: 1, Reason: "Error", Message: "wait for writable primary on bootfail-mongod: context deadline exceeded"}}}}
	})
	k.failJob(job.Name, batchv1.JobReasonBackoffLimitExceeded)
	k.waitFailed("bootfail", "BootstrapFailed", "bootstrap failed", "exit code 1 (Error): wait for writable primary on bootfail-mongod")
}

func TestLoaderFailureFails(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	run := k.create(newRun("loadfail", benchv1.TopologyStandalone, 0, 2))
	k.upToPhase(run, 1)
	job := k.job("loadfail-s2")
	for i := 0; i < 2; i++ {
		pod := k.jobPod(job, i)
		failed := i == 1
		k.setPodStatus(pod.Name, func(p *corev1.Pod) {
			if !failed {
				p.Status.Phase = corev1.PodSucceeded
				return
			}
			p.Status.Phase = corev1.PodFailed
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "loader", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: 2, Reason: "Error", Message: "run: 1523 operations failed: server selection error: context deadline exceeded"}}}}
		})
	}
	k.failJob(job.Name, batchv1.JobReasonBackoffLimitExceeded)
	r := k.waitFailed("loadfail", "PhaseFailed", "phase S2 failed", "(index 1): exit code 2 (Error): run: 1523 operations failed")
	if len(r.Status.Results) != 1 || r.Status.Results[0].Name != "load" {
		t.Errorf("the finished load phase's result must be kept: %+v", r.Status.Results)
	}
	k.dbPodDeleted("loadfail-mongod")
}

func TestMissingResultFails(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	run := newRun("noresult", benchv1.TopologyStandalone, 0, 2)
	run.Spec.Cleanup = benchv1.CleanupRetainOnFailure
	k.create(run)
	k.upToPhase(run, 1)
	// Loader 0 reported, loader 1 did not.
	k.writeResultCM(k.run("noresult"), "noresult-s2", 0, map[string][]byte{contract.ConfigMapKey: loaderResult(t, run, run.Spec.Phases[1], 0, 2)}, nil)
	k.completeJob("noresult-s2")
	k.waitFailed("noresult", "PhaseFailed", "phase S2 completed but reported no result", "noresult-s2-result-1 missing after 2s")
	k.dbPodKept("noresult-mongod")
}

func TestCorruptResultFails(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	run := newRun("corrupt", benchv1.TopologyStandalone, 0, 1)
	run.Spec.Cleanup = benchv1.CleanupRetain
	k.create(run)
	k.upToPhase(run, 1)
	good := loaderResult(t, run, run.Spec.Phases[1], 0, 1)
	k.writeResultCM(k.run("corrupt"), "corrupt-s2", 0, map[string][]byte{contract.ConfigMapKey: good[:len(good)/2]}, nil)
	k.completeJob("corrupt-s2")
	k.waitFailed("corrupt", "ResultInvalid", "phase S2: result of loader 0 (ConfigMap corrupt-s2-result-0) is unusable", "truncated")
	k.dbPodKept("corrupt-mongod")
	if !k.exists(&batchv1.Job{}, "corrupt-s2") {
		t.Error("Retain must keep the Jobs")
	}
}

func TestWrongKindResultFails(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	run := k.create(newRun("wrongkind", benchv1.TopologyStandalone, 0, 1))
	k.upToPhase(run, 1)
	// A load result where a run result belongs.
	k.writeResultCM(k.run("wrongkind"), "wrongkind-s2", 0, map[string][]byte{contract.ConfigMapKey: loaderResult(t, run, run.Spec.Phases[0], 0, 1)}, nil)
	k.completeJob("wrongkind-s2")
	k.waitFailed("wrongkind", "ResultInvalid", "holds the load result of loader 0 of 1, want the run result")
}

func TestDBPodRestartMidRunFails(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	run := k.create(newRun("restart", benchv1.TopologyStandalone, 0, 1))
	k.upToPhase(run, 1)
	k.markRunning("restart-mongod", true, 1)
	k.waitFailed("restart", "TopologyLost", "topology lost: pod restart-mongod restarted (exit code 137 (OOMKilled))")
	k.dbPodDeleted("restart-mongod")
}

func TestDBPodDeletedMidRunFails(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	run := k.create(newRun("vanish", benchv1.TopologyStandalone, 0, 1))
	k.upToPhase(run, 0)
	if err := k.c.Delete(k.ctx(), k.pod("vanish-mongod")); err != nil {
		t.Fatal(err)
	}
	k.waitFailed("vanish", "TopologyLost", "topology lost: pod vanish-mongod")
}

// TestLostReadyPatchThenPodDeleted: the status patch that recorded the
// topology as ready was lost (a conflict) after the phase Job had been
// created, and then the mongod was deleted. The run must fail as a lost
// topology, not wait for the pod forever nor re-create it: the phase
// Job proves the topology had been ready.
func TestLostReadyPatchThenPodDeleted(t *testing.T) {
	k := newCluster(t)
	m := startManager(t, &counters{}, testLimits)
	run := k.create(newRun("lostpatch", benchv1.TopologyStandalone, 0, 1))
	k.upToPhase(run, 0)
	k.waitLifecycle("lostpatch", benchv1.RunLoading)
	m.stop()
	r := k.run("lostpatch")
	r.Status.Phase = benchv1.RunProvisioning
	meta.SetStatusCondition(&r.Status.Conditions, metav1.Condition{Type: benchv1.ConditionTopologyReady, Status: metav1.ConditionFalse,
		Reason: string(benchv1.ReasonBootstrapping), Message: "bootstrap Job running"})
	if err := k.c.Status().Update(k.ctx(), r); err != nil {
		t.Fatal(err)
	}
	if err := k.c.Delete(k.ctx(), k.pod("lostpatch-mongod")); err != nil {
		t.Fatal(err)
	}
	m.restart()
	k.waitFailed("lostpatch", "TopologyLost", "topology lost: pod lostpatch-mongod")
}

// TestLostPlacementPatchIsRecordedAgain: the status patch that recorded
// the run's node, its topology as ready and its environment was lost (a
// conflict) after the phase Job had been created. The next reconcile
// creates nothing (the phase Job proves the topology had been ready) but
// must record the node again from the pod: without it the run said its
// topology was ready "on node " and recorded its environment, and checked
// the disk, of no node (seen once in TestPreflightCountsTheDisk under
// load).
func TestLostPlacementPatchIsRecordedAgain(t *testing.T) {
	k := newCluster(t)
	m := startManager(t, &counters{}, testLimits)
	run := k.create(newRun("lostnode", benchv1.TopologyStandalone, 0, 1))
	k.upToPhase(run, 0)
	ready := k.waitLifecycle("lostnode", benchv1.RunLoading)
	node := k.pod("lostnode-mongod").Spec.NodeName
	if node == "" || ready.Status.NodeName != node {
		t.Fatalf("before the lost patch: status.nodeName %q, pod on %q", ready.Status.NodeName, node)
	}
	m.stop()
	// The status as the last patch before the lost one stored it: the
	// anchor still waiting for its node.
	r := k.run("lostnode")
	r.Status.Phase = benchv1.RunPending
	r.Status.NodeName = ""
	r.Status.Nodes = nil
	r.Status.Environment = nil
	meta.SetStatusCondition(&r.Status.Conditions, metav1.Condition{Type: benchv1.ConditionTopologyReady, Status: metav1.ConditionFalse,
		Reason: string(benchv1.ReasonWaitingForNode), Message: "waiting for pod lostnode-mongod to be scheduled"})
	meta.RemoveStatusCondition(&r.Status.Conditions, benchv1.ConditionWarnings)
	if err := k.c.Status().Update(k.ctx(), r); err != nil {
		t.Fatal(err)
	}
	m.restart()
	got := k.waitRun("lostnode", "its environment recorded again", func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Environment != nil && r.Status.Environment.Fingerprint != ""
	})
	if got.Status.NodeName != node {
		t.Errorf("status.nodeName %q, want %q", got.Status.NodeName, node)
	}
	if len(got.Status.Nodes) == 0 || got.Status.Nodes[0].Node != node {
		t.Errorf("status.nodes %+v, want the mongod on %s", got.Status.Nodes, node)
	}
	if c := cond(got, benchv1.ConditionTopologyReady); c == nil || c.Status != metav1.ConditionTrue || !strings.Contains(c.Message, "ready on node "+node+",") {
		t.Errorf("TopologyReady %+v, want it true on node %s", c, node)
	}
	if n := got.Status.Environment.Node; n == nil || n.Name != node {
		t.Errorf("status.environment.node %+v, want %s", n, node)
	}
	if got.Status.Phase != benchv1.RunLoading {
		t.Errorf("phase %s, want Loading again", got.Status.Phase)
	}
}

func TestTimeoutFails(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	run := newRun("slow", benchv1.TopologyStandalone, 0, 1)
	run.Spec.Timeout = &metav1.Duration{Duration: 3 * time.Second}
	k.create(run)
	// Nobody schedules the pod: the timer, not an event, must end the run.
	k.waitFailed("slow", "Timeout", "the run exceeded its timeout of 3s while Pending")
}

func TestTimeoutDuringPhaseFails(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	run := newRun("slowphase", benchv1.TopologyStandalone, 0, 1)
	run.Spec.Timeout = &metav1.Duration{Duration: 8 * time.Second}
	k.create(run)
	k.upToPhase(run, 1)
	j := k.job("slowphase-s2")
	if d := *j.Spec.ActiveDeadlineSeconds; d > 8 {
		t.Errorf("the phase's Job deadline %ds outlives the run's timeout", d)
	}
	k.waitFailed("slowphase", "Timeout", "while Running (phase S2)")
}

func TestLoaderImagePullFailureFails(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	run := k.create(newRun("badimage", benchv1.TopologyStandalone, 0, 1))
	k.upToPhase(run, 0)
	pod := k.jobPod(k.job("badimage-load"), 0)
	k.setPodStatus(pod.Name, func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodPending
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(time.Now().Add(-2 * testLimits.ImagePull))}}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "loader", Image: loaderImage, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
			Reason: "ImagePullBackOff", Message: `Back-off pulling image "example.com/mongobench-loader:test": not found`}}}}
	})
	k.waitFailed("badimage", "PhaseFailed", "phase load cannot run", "cannot pull image example.com/mongobench-loader:test: ImagePullBackOff")
}

func TestValidatorRunsAfterLoadBeforeFirstRun(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	run := newRun("valid", benchv1.TopologyStandalone, 0, 1)
	run.Spec.Collection = &benchv1.CollectionSpec{Validator: runtime.RawExtension{Raw: []byte(`{"$jsonSchema":{"bsonType":"object","required":["field0"]}}`)},
		ValidationLevel: "strict", ValidationAction: "warn"}
	k.create(run)
	k.upToPhase(run, 0)
	if k.exists(&batchv1.Job{}, "valid-validator") {
		t.Fatal("validator applied before the load")
	}
	k.finishPhase(run, run.Spec.Phases[0])
	j := k.job("valid-validator")
	if args := strings.Join(j.Spec.Template.Spec.Containers[0].Args, " "); !strings.Contains(args, `--validator {"$jsonSchema":{"bsonType":"object","required":["field0"]}} --validation-level strict --validation-action warn`) {
		t.Errorf("validator args %s", args)
	}
	if k.exists(&batchv1.Job{}, "valid-s2") {
		t.Fatal("first Run phase started before the validator was applied")
	}
	k.completeJob("valid-validator")
	k.job("valid-s2")
	k.waitRun("valid", "ValidatorApplied", func(r *benchv1.BenchmarkRun) bool {
		c := cond(r, benchv1.ConditionValidatorApplied)
		return c != nil && c.Status == metav1.ConditionTrue
	})
	k.finishPhase(run, run.Spec.Phases[1])
	k.finishPhase(run, run.Spec.Phases[2])
	k.waitLifecycle("valid", benchv1.RunSucceeded)
}

func TestValidatorFailureFails(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	run := newRun("badvalid", benchv1.TopologyStandalone, 0, 1)
	run.Spec.Collection = &benchv1.CollectionSpec{Validator: runtime.RawExtension{Raw: []byte(`{"$jsonSchema":{"bsonType":"nonsense"}}`)}}
	k.create(run)
	k.upToPhase(run, 0)
	k.finishPhase(run, run.Spec.Phases[0])
	j := k.job("badvalid-validator")
	pod := k.jobPod(j, 0)
	k.setPodStatus(pod.Name, func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodFailed
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "validator", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: 1, Reason: "Error", Message: `collMod ycsb.usertable: server error 2 (BadValue): unknown type name alias: nonsense`}}}}
	})
	k.failJob(j.Name, batchv1.JobReasonBackoffLimitExceeded)
	k.waitFailed("badvalid", "ValidatorFailed", "applying spec.collection failed", "unknown type name alias: nonsense")
}

func TestPlacementNodeName(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	run := newRun("named", benchv1.TopologyStandalone, 0, 1)
	run.Spec.Placement.NodeName = "node-b"
	k.create(run)
	p := k.pod("named-mongod")
	if p.Spec.NodeSelector[topology.HostnameLabel] != "host-b" || p.Spec.NodeName != "" {
		t.Errorf("nodeName placement: selector %v nodeName %q", p.Spec.NodeSelector, p.Spec.NodeName)
	}
	missing := newRun("nonode", benchv1.TopologyStandalone, 0, 1)
	missing.Spec.Placement.NodeName = "node-z"
	k.create(missing)
	k.waitFailed("nonode", "NodeNotFound", `placement.nodeName "node-z": no such node`)
}
