package controllers

import (
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/mongobench/mongobench/internal/topology"
)

// Table tests of what a pod's or a Job's state means (run_problems.go), one
// row per branch, on plain objects: the envtest suites reach most branches
// only through a whole run, and some (a crash loop, a container config
// error, an invalid image, a Job past its deadline) not at all. The table
// tests of run_lifecycle.go, run_provision.go and run_phases.go share now
// and ago.

// now is the reconcile time of every row; objects are dated before it.
var now = time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)

func ago(d time.Duration) metav1.Time { return metav1.NewTime(now.Add(-d)) }

// podAt is a pod created created ago, with status st.
func podAt(name string, created time.Duration, st corev1.PodStatus) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: ago(created)}, Status: st}
}

// scheduled is a PodScheduled condition that changed to status since ago.
func scheduled(status corev1.ConditionStatus, reason, message string, since time.Duration) []corev1.PodCondition {
	return []corev1.PodCondition{{Type: corev1.PodScheduled, Status: status, Reason: reason, Message: message, LastTransitionTime: ago(since)}}
}

// waitingIn is container mongod (image mongo:9.9) waiting for reason.
func waitingIn(reason, message string) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: "mongod", Image: "mongo:9.9",
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}}}
}

func exited(code int32, reason, message string) *corev1.ContainerStateTerminated {
	return &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason, Message: message}
}

func TestPodProblemBranches(t *testing.T) {
	lim := Limits{Unschedulable: 2 * time.Minute, ImagePull: 3 * time.Minute, CrashLoopRestarts: 3}
	crashing := func(restarts int32, last *corev1.ContainerStateTerminated) corev1.PodStatus {
		cs := waitingIn("CrashLoopBackOff", "back-off 40s restarting failed container")
		cs.RestartCount = restarts
		cs.LastTerminationState.Terminated = last
		return corev1.PodStatus{Phase: corev1.PodRunning, Conditions: scheduled(corev1.ConditionTrue, "", "", 10*time.Minute),
			ContainerStatuses: []corev1.ContainerStatus{cs}}
	}
	// waitingFor is a pod created created ago, never scheduled-True, whose
	// container waits for reason.
	waitingFor := func(reason, message string, created time.Duration) *corev1.Pod {
		return podAt("db-0", created, corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{waitingIn(reason, message)}})
	}
	unschedulable := func(since time.Duration) *corev1.Pod {
		return podAt("db-0", since, corev1.PodStatus{Phase: corev1.PodPending,
			Conditions: scheduled(corev1.ConditionFalse, corev1.PodReasonUnschedulable, "0/3 nodes are available: 3 Insufficient cpu.", since)})
	}
	requesting := unschedulable(3 * time.Minute)
	requesting.Spec.Containers = []corev1.Container{{Name: "mongod", Resources: corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi")}}}}
	pinned := unschedulable(3 * time.Minute)
	pinned.Spec.NodeSelector = map[string]string{topology.HostnameLabel: "n1"}
	pulledSinceScheduling := waitingFor("ImagePullBackOff", "Back-off pulling image", 10*time.Minute)
	pulledSinceScheduling.Status.Conditions = scheduled(corev1.ConditionTrue, "", "", time.Minute)
	initPull := podAt("db-0", 4*time.Minute, corev1.PodStatus{Phase: corev1.PodPending,
		InitContainerStatuses: []corev1.ContainerStatus{waitingIn("ImagePullBackOff", "Back-off pulling image")}})
	// Unschedulable for 10s (110s left) but created 150s ago with an
	// image pull pending (30s left): the shorter wait wins.
	twoWaits := unschedulable(10 * time.Second)
	twoWaits.CreationTimestamp = ago(150 * time.Second)
	twoWaits.Status.ContainerStatuses = []corev1.ContainerStatus{waitingIn("ErrImagePull", "pull access denied")}

	for _, tc := range []struct {
		name      string
		pod       *corev1.Pod
		wantFatal string // "" means none
		wantWait  time.Duration
	}{
		{"running: nothing to report", podAt("db-0", 10*time.Minute, corev1.PodStatus{Phase: corev1.PodRunning,
			Conditions:        scheduled(corev1.ConditionTrue, "", "", 10*time.Minute),
			ContainerStatuses: []corev1.ContainerStatus{{Name: "mongod", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}),
			"", 0},
		{"failed: quotes the container's exit", podAt("db-0", time.Minute, corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Error",
			ContainerStatuses: []corev1.ContainerStatus{{Name: "mongod", State: corev1.ContainerState{Terminated: exited(1, "Error", "boom")}}}}),
			"pod db-0 failed: exit code 1 (Error): boom", 0},
		{"failed without an exit: the pod's reason and message", podAt("db-0", time.Minute, corev1.PodStatus{Phase: corev1.PodFailed,
			Reason: "Evicted", Message: "The node was low on resource: memory."}),
			"pod db-0 failed: Evicted: The node was low on resource: memory.", 0},
		{"unschedulable within its limit: wait for the rest", unschedulable(30 * time.Second), "", 90 * time.Second},
		{"unschedulable past its limit: any node, with the requests", requesting,
			"pod db-0 cannot be scheduled on any node (it requests cpu=1, memory=1Gi): 0/3 nodes are available: 3 Insufficient cpu.", 0},
		{"unschedulable past its limit: the pinned node", pinned, "pod db-0 cannot be scheduled on node n1 (it requests no resources)", 0},
		{"not scheduled for another reason: not a problem", podAt("db-0", 10*time.Minute, corev1.PodStatus{Phase: corev1.PodPending,
			Conditions: scheduled(corev1.ConditionFalse, "SchedulingGated", "", 10*time.Minute)}), "", 0},
		{"InvalidImageName: fatal at once", waitingFor("InvalidImageName", `Failed to apply default image tag "mongo:::9"`, time.Second),
			`pod db-0 cannot start container mongod with image mongo:9.9: InvalidImageName: Failed to apply default image tag "mongo:::9"`, 0},
		{"ErrImageNeverPull: fatal at once", waitingFor("ErrImageNeverPull", "image not present with pull policy of Never", time.Second),
			"pod db-0 cannot start container mongod with image mongo:9.9: ErrImageNeverPull: image not present", 0},
		{"ErrImagePull within its limit: wait for the rest", waitingFor("ErrImagePull", "pull access denied", time.Minute), "", 2 * time.Minute},
		{"ImagePullBackOff past its limit", waitingFor("ImagePullBackOff", "Back-off pulling image", 4*time.Minute),
			"pod db-0 cannot pull image mongo:9.9: ImagePullBackOff: Back-off pulling image", 0},
		{"image pull timed from scheduling, not creation", pulledSinceScheduling, "", 2 * time.Minute},
		{"init container's image pull past its limit", initPull, "pod db-0 cannot pull image mongo:9.9: ImagePullBackOff", 0},
		{"CreateContainerConfigError within its limit: wait for the rest",
			waitingFor("CreateContainerConfigError", `secret "creds" not found`, time.Minute), "", 2 * time.Minute},
		{"CreateContainerConfigError past its limit", waitingFor("CreateContainerConfigError", `secret "creds" not found`, 4*time.Minute),
			`pod db-0 cannot create container mongod: CreateContainerConfigError: secret "creds" not found`, 0},
		{"CreateContainerError past its limit", waitingFor("CreateContainerError", "context deadline exceeded", 4*time.Minute),
			"pod db-0 cannot create container mongod: CreateContainerError: context deadline exceeded", 0},
		{"CrashLoopBackOff below the restart limit: not yet", podAt("db-0", 10*time.Minute, crashing(2, exited(14, "Error", "Fatal assertion"))), "", 0},
		{"CrashLoopBackOff at the restart limit: the last exit", podAt("db-0", 10*time.Minute, crashing(3, exited(14, "Error", "Fatal assertion"))),
			"pod db-0 is crash-looping (3 restarts): exit code 14 (Error): Fatal assertion", 0},
		{"CrashLoopBackOff without a recorded exit", podAt("db-0", 10*time.Minute, crashing(5, nil)),
			"pod db-0 is crash-looping (5 restarts): no exit recorded", 0},
		{"waiting for another reason: not a problem", waitingFor("ContainerCreating", "", time.Hour), "", 0},
		{"two waits: the shorter one", twoWaits, "", 30 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := podProblem(tc.pod, now, lim)
			if tc.wantFatal == "" && got.fatal != "" || !strings.Contains(got.fatal, tc.wantFatal) {
				t.Errorf("fatal %q, want %q", got.fatal, tc.wantFatal)
			}
			if got.wait != tc.wantWait {
				t.Errorf("wait %v, want %v", got.wait, tc.wantWait)
			}
		})
	}
}

func TestJobFailureBranches(t *testing.T) {
	job := func(deadline *int64, conds ...batchv1.JobCondition) *batchv1.Job {
		return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "r-run"}, Spec: batchv1.JobSpec{ActiveDeadlineSeconds: deadline},
			Status: batchv1.JobStatus{Conditions: conds}}
	}
	failed := func(status corev1.ConditionStatus, reason, message string) batchv1.JobCondition {
		return batchv1.JobCondition{Type: batchv1.JobFailed, Status: status, Reason: reason, Message: message}
	}
	// loader is the pod of completion index i, in phase, whose container
	// exited as exit (nil: no exit recorded). Odd indexes carry the index
	// as a label, even ones as an annotation, as Kubernetes versions do.
	loader := func(i int, phase corev1.PodPhase, exit *corev1.ContainerStateTerminated) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("r-run-%d", i)}, Status: corev1.PodStatus{Phase: phase}}
		if i%2 == 0 {
			p.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: fmt.Sprint(i)}
		} else {
			p.Labels = map[string]string{batchv1.JobCompletionIndexAnnotation: fmt.Sprint(i)}
		}
		if exit != nil {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "loader", State: corev1.ContainerState{Terminated: exit}}}
		}
		return p
	}
	many := make([]*corev1.Pod, 64)
	for i := range many {
		many[i] = loader(i, corev1.PodFailed, exited(1, "Error", strings.Repeat("x", 3000)))
	}

	for _, tc := range []struct {
		name    string
		job     *batchv1.Job
		pods    []*corev1.Pod
		want    string
		maxSize int // 0: no bound checked
	}{
		{"DeadlineExceeded: the Job's deadline, whatever its pods say",
			job(ptr.To[int64](3600), failed(corev1.ConditionTrue, batchv1.JobReasonDeadlineExceeded, "Job was active longer than specified deadline")),
			[]*corev1.Pod{loader(0, corev1.PodFailed, exited(143, "Error", "terminated"))},
			"Job r-run ran longer than its deadline of 1h0m0s", 0},
		{"DeadlineExceeded without activeDeadlineSeconds",
			job(nil, failed(corev1.ConditionTrue, batchv1.JobReasonDeadlineExceeded, "")), nil,
			"Job r-run ran longer than its deadline of 0s", 0},
		{"one failed pod quoted, succeeded pods skipped",
			job(nil, failed(corev1.ConditionTrue, batchv1.JobReasonBackoffLimitExceeded, "")),
			[]*corev1.Pod{loader(0, corev1.PodSucceeded, exited(0, "Completed", "")), loader(1, corev1.PodFailed, exited(1, "Error", "bad URL"))},
			"pod r-run-1 (index 1): exit code 1 (Error): bad URL", 0},
		{"several failed pods: the first by index quoted, the others named",
			job(nil), []*corev1.Pod{
				loader(2, corev1.PodFailed, exited(137, "OOMKilled", "")),
				loader(0, corev1.PodFailed, exited(1, "Error", "boom")),
				loader(1, corev1.PodFailed, exited(2, "", "usage")),
				loader(3, corev1.PodFailed, nil),
			},
			"4 pods failed, first pod r-run-0 (index 0): exit code 1 (Error): boom; also " +
				"r-run-1 (index 1, exit code 2), r-run-2 (index 2, exit code 137 (OOMKilled)), r-run-3 (index 3, no exit recorded)", 0},
		{"indexes sort as numbers: loader 10 comes after loader 2",
			job(nil), []*corev1.Pod{
				loader(10, corev1.PodFailed, exited(1, "Error", "ten")),
				loader(2, corev1.PodFailed, exited(1, "Error", "two")),
			},
			"2 pods failed, first pod r-run-2 (index 2): exit code 1 (Error): two; also r-run-10 (index 10, exit code 1 (Error))", 0},
		{"many failed pods: cut to the detail budget", job(nil), many, "64 pods failed, first pod r-run-0 (index 0): exit code 1 (Error): " + ellipsis + "x", 2 * maxDetailBytes},
		{"no failed pod: the Job's Failed condition",
			job(nil, failed(corev1.ConditionTrue, batchv1.JobReasonBackoffLimitExceeded, "Job has reached the specified backoff limit")),
			[]*corev1.Pod{loader(0, corev1.PodRunning, nil)},
			"Job r-run failed: BackoffLimitExceeded: Job has reached the specified backoff limit", 0},
		{"no failed pod, no condition", job(nil), nil, "Job r-run failed", 0},
		{"a Failed condition that is not True does not count",
			job(ptr.To[int64](60), failed(corev1.ConditionFalse, batchv1.JobReasonDeadlineExceeded, "")), nil, "Job r-run failed", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := jobFailure(tc.job, tc.pods)
			if tc.maxSize == 0 && got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			if tc.maxSize > 0 && (!strings.HasPrefix(got, tc.want) || len(got) > tc.maxSize || !strings.HasSuffix(got, ellipsis)) {
				t.Errorf("%d bytes, want a cut message of at most %d starting %q: %q", len(got), tc.maxSize, tc.want, got)
			}
		})
	}
}
