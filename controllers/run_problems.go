package controllers

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/mongobench/mongobench/internal/topology"
)

// Limits bound how long the controller tolerates a pod that cannot make
// progress before it fails the run with the reason, instead of waiting
// silently until the run's timeout.
type Limits struct {
	// Unschedulable: how long a pod may stay Pending with Unschedulable.
	Unschedulable time.Duration
	// ImagePull: how long a container may wait in ErrImagePull/ImagePullBackOff
	// or CreateContainerConfigError.
	ImagePull time.Duration
	// CrashLoopRestarts: restarts after which a crash-looping DB container
	// fails the run.
	CrashLoopRestarts int32
	// ResultGrace: how long after a Job completed its result ConfigMaps may
	// take to appear in the cache before they count as missing.
	ResultGrace time.Duration
	// PhaseGrace is added to a phase's maxExecutionTime for its Job's
	// deadline (connections, flush, writing the result).
	PhaseGrace time.Duration
	// StartLead is how far ahead of the moment every loader of a phase was
	// ready the controller sets their common start: time for each to read
	// it (they ask every 250 ms) before it passes.
	StartLead time.Duration
	// StartBarrier is how long loaders may wait at a phase's start
	// barrier for the others before the phase fails.
	StartBarrier time.Duration
	// SecretWait is how long an External run waits for a Secret (or a
	// key) it names to exist before it fails with SecretNotFound; 0
	// fails at once.
	SecretWait time.Duration
}

// DefaultLimits are the manager's defaults (flags override them).
var DefaultLimits = Limits{
	Unschedulable:     2 * time.Minute,
	ImagePull:         3 * time.Minute,
	CrashLoopRestarts: 3,
	ResultGrace:       30 * time.Second,
	PhaseGrace:        5 * time.Minute,
	StartLead:         2 * time.Second,
	StartBarrier:      10 * time.Minute,
	SecretWait:        time.Minute,
}

// problem is the verdict on a pod: fatal names why the run must fail; wait
// is when to look again if the pod may still recover.
type problem struct {
	fatal string
	wait  time.Duration
}

// podProblem looks for a pod that will not make progress on its own: a
// failed pod, one that cannot be scheduled, an image that cannot be pulled,
// a container that keeps crashing.
func podProblem(pod *corev1.Pod, now time.Time, lim Limits) problem {
	if pod.Status.Phase == corev1.PodFailed {
		msg := strings.TrimSpace(pod.Status.Reason + ": " + pod.Status.Message)
		if t := lastTermination(pod); t != "" {
			msg = t
		}
		return problem{fatal: fmt.Sprintf("pod %s failed: %s", pod.Name, strings.Trim(msg, ": "))}
	}
	var p problem
	wait := func(since time.Time, limit time.Duration) bool {
		left := limit - now.Sub(since)
		if left <= 0 {
			return false
		}
		if p.wait == 0 || left < p.wait {
			p.wait = left
		}
		return true
	}
	scheduledAt := pod.CreationTimestamp.Time
	for _, c := range pod.Status.Conditions {
		if c.Type != corev1.PodScheduled {
			continue
		}
		if c.Status == corev1.ConditionTrue {
			scheduledAt = c.LastTransitionTime.Time
		} else if c.Reason == corev1.PodReasonUnschedulable && !wait(c.LastTransitionTime.Time, lim.Unschedulable) {
			where := "any node"
			if n := pod.Spec.NodeSelector[topology.HostnameLabel]; n != "" {
				where = "node " + n
			}
			return problem{fatal: fmt.Sprintf("pod %s cannot be scheduled on %s (it requests %s): %s",
				pod.Name, where, formatRequests(pod), c.Message)}
		}
	}
	for _, cs := range allStatuses(pod) {
		w := cs.State.Waiting
		if w == nil {
			continue
		}
		switch w.Reason {
		case "InvalidImageName", "ErrImageNeverPull":
			return problem{fatal: fmt.Sprintf("pod %s cannot start container %s with image %s: %s: %s", pod.Name, cs.Name, cs.Image, w.Reason, w.Message)}
		case "ErrImagePull", "ImagePullBackOff":
			if !wait(scheduledAt, lim.ImagePull) {
				return problem{fatal: fmt.Sprintf("pod %s cannot pull image %s: %s: %s", pod.Name, cs.Image, w.Reason, w.Message)}
			}
		case "CreateContainerConfigError", "CreateContainerError":
			if !wait(scheduledAt, lim.ImagePull) {
				return problem{fatal: fmt.Sprintf("pod %s cannot create container %s: %s: %s", pod.Name, cs.Name, w.Reason, w.Message)}
			}
		case "CrashLoopBackOff":
			if cs.RestartCount >= lim.CrashLoopRestarts {
				return problem{fatal: fmt.Sprintf("pod %s is crash-looping (%d restarts): %s", pod.Name, cs.RestartCount, termination(cs.LastTerminationState.Terminated))}
			}
		}
	}
	return p
}

func allStatuses(pod *corev1.Pod) []corev1.ContainerStatus {
	return append(slices.Clone(pod.Status.InitContainerStatuses), pod.Status.ContainerStatuses...)
}

// lastTermination describes the most recent container exit of a pod.
func lastTermination(pod *corev1.Pod) string {
	if t := lastExitState(pod); t != nil {
		return termination(t)
	}
	return ""
}

// lastExit is lastTermination without the message.
func lastExit(pod *corev1.Pod) string {
	if t := lastExitState(pod); t != nil {
		return exitCode(t)
	}
	return "no exit recorded"
}

func lastExitState(pod *corev1.Pod) *corev1.ContainerStateTerminated {
	for _, cs := range pod.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil && t.ExitCode != 0 {
			return t
		}
		if t := cs.LastTerminationState.Terminated; t != nil {
			return t
		}
	}
	return nil
}

// termination formats a container exit: "exit code 1 (Error): <message>".
// The message is the termination log (the loader writes its fatal error
// there) or, with FallbackToLogsOnError, the log's last lines: a condition
// quotes at most its last lines (tailDetail), the diagnostics hold it all.
func termination(t *corev1.ContainerStateTerminated) string {
	if t == nil {
		return "no exit recorded"
	}
	return exitCode(t) + exitDetail(t)
}

// exitDetail quotes a container exit's message after its cause: ": <the
// message>" when it is one line, "; last lines:\n…" when it is a log tail.
func exitDetail(t *corev1.ContainerStateTerminated) string {
	m := strings.TrimSpace(t.Message)
	if m == "" {
		return ""
	}
	d := tailDetail(m)
	if strings.Contains(d, "\n") {
		return "; last lines:\n" + d
	}
	return ": " + d
}

// exitCode is the cause of a container exit without its message:
// "exit code 137 (OOMKilled)".
func exitCode(t *corev1.ContainerStateTerminated) string {
	s := "exit code " + strconv.Itoa(int(t.ExitCode))
	if t.Reason != "" {
		s += " (" + t.Reason + ")"
	}
	return s
}

// formatRequests lists a pod's total resource requests: "cpu=2, memory=4Gi".
func formatRequests(pod *corev1.Pod) string {
	total := corev1.ResourceList{}
	for _, c := range pod.Spec.Containers {
		for name, q := range c.Resources.Requests {
			sum := total[name]
			sum.Add(q)
			total[name] = sum
		}
	}
	return formatResources(total)
}

// jobCondition reports whether a Job has the condition set to True.
func jobCondition(job *batchv1.Job, t batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range job.Status.Conditions {
		c := &job.Status.Conditions[i]
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return c
		}
	}
	return nil
}

// jobFailure explains a failed Job from its condition and its pods' exits.
func jobFailure(job *batchv1.Job, pods []*corev1.Pod) string {
	c := jobCondition(job, batchv1.JobFailed)
	if c != nil && c.Reason == batchv1.JobReasonDeadlineExceeded {
		d := int64(0)
		if job.Spec.ActiveDeadlineSeconds != nil {
			d = *job.Spec.ActiveDeadlineSeconds
		}
		return fmt.Sprintf("Job %s ran longer than its deadline of %s", job.Name, time.Duration(d)*time.Second)
	}
	// The first failed pod is quoted (its message's last lines); the others
	// are named with their exit only, so the condition stays readable with
	// 64 failed loaders. Their full messages are in the diagnostics.
	var first string
	var others []string
	// By completion index as a number: loader 10 comes after loader 2.
	sort.SliceStable(pods, func(i, j int) bool { return indexOrder(pods[i]) < indexOrder(pods[j]) })
	for _, p := range pods {
		if p.Status.Phase != corev1.PodFailed || (topology.Resumable(job) && disrupted(p)) {
			continue // a resumable phase's disrupted pod was replaced: not the cause
		}
		if first == "" {
			first = fmt.Sprintf("pod %s (index %s): %s", p.Name, completionIndex(p), lastTermination(p))
			continue
		}
		others = append(others, fmt.Sprintf("%s (index %s, %s)", p.Name, completionIndex(p), lastExit(p)))
	}
	if first != "" {
		if len(others) > 0 {
			first = truncateBytes(fmt.Sprintf("%d pods failed, first %s; also %s", len(others)+1, first, strings.Join(others, ", ")), 2*maxDetailBytes)
		}
		return first
	}
	if c != nil {
		return fmt.Sprintf("Job %s failed: %s: %s", job.Name, c.Reason, c.Message)
	}
	return fmt.Sprintf("Job %s failed", job.Name)
}

// indexOrder is a pod's completion index as a number, for sorting; pods
// without one (or with a malformed one) come last.
func indexOrder(p *corev1.Pod) int {
	i, err := strconv.Atoi(completionIndex(p))
	if err != nil || i < 0 {
		return math.MaxInt
	}
	return i
}

func completionIndex(p *corev1.Pod) string {
	if i, ok := p.Annotations[batchv1.JobCompletionIndexAnnotation]; ok {
		return i
	}
	return p.Labels[batchv1.JobCompletionIndexAnnotation]
}
