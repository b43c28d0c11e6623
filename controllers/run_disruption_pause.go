package controllers

// This file carries out the Pauses of a phase's disruptions: at loader 0's
// request (its ledger, as for a pod deletion: the manager does not know
// which member is primary), the controller adds an ephemeral container of
// the loader image to the member's pod, which freezes its mongod
// (`loader freeze`: SIGSTOP, then SIGCONT after the Pause's duration) and
// reports when in its termination message; the controller copies that
// into the ledger, where the loaders read when the freeze began. The
// manager still talks only to the Kubernetes API: the pods'
// ephemeralcontainers subresource.

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/topology"
)

// pauseStartTimeout bounds how long a Pause's container may take to run
// to its end beyond the Pause's duration (the kubelet pulling the loader
// image, starting the container): past it the run fails, since the
// container might still start and freeze the member later, in another
// phase.
const pauseStartTimeout = 2 * time.Minute

// pauses are the run's Pauses that loader 0 requested (their ledger is in
// the cache), in the podDeletion form the target's mapping takes.
func pauses(s *runState) []podDeletion {
	return requested(s, func(a benchv1.DisruptionAction) bool { return a == benchv1.DisruptionPause })
}

// disruptPauses takes every requested Pause a step further (pause), and
// holds the next phase while a member is frozen (s.recovering). The
// ledgers are the only state: a restarted manager resumes where its
// predecessor stopped, and the container's fixed name
// (topology.PauseContainerName) makes adding it idempotent.
func (r *BenchmarkRunReconciler) disruptPauses(ctx context.Context, s *runState) (bool, error) {
	if topology.External(s.run) || !s.topologyWasReady() {
		return true, nil
	}
	for _, pd := range pauses(s) {
		err := r.pause(ctx, s, pd)
		if apierrors.IsConflict(err) {
			s.wakeAfter(ledgerConflictRetry)
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if terminal(s.run) {
			return false, nil
		}
	}
	return true, nil
}

// pause: choose the member and record its pod (before anything else, as a
// pod deletion does), add the freezing container once, then, once it
// ended, record what it reported. A ledger that returned is done.
func (r *BenchmarkRunReconciler) pause(ctx context.Context, s *runState, pd podDeletion) error {
	data := pd.ledger.Data
	if data[contract.DisruptionReturnedKey] != "" {
		return nil
	}
	name, container := data[contract.DisruptionPodKey], data[contract.DisruptionContainerKey]
	if container == "" {
		proc, why := deletionTarget(s, pd)
		if why != "" {
			return r.refuseDeletion(ctx, s, pd, why)
		}
		pod := s.pods[proc.Name]
		switch {
		case pod == nil || pod.DeletionTimestamp != nil || !podReady(pod):
			return r.refuseDeletion(ctx, s, pd, fmt.Sprintf("pod %s is not running and ready (an earlier disruption's member not back yet?): nothing frozen", proc.Name))
		case pod.Spec.ShareProcessNamespace == nil || !*pod.Spec.ShareProcessNamespace:
			return r.refuseDeletion(ctx, s, pd, fmt.Sprintf("pod %s does not share its process namespace, without which its mongod cannot be stopped "+
				"(it was created before the run had a Pause?): nothing frozen", proc.Name))
		}
		name, container = pod.Name, topology.PauseContainerName(pd.ledger.Name)
		patch := map[string]string{contract.DisruptionPodKey: name, contract.DisruptionPodUIDKey: string(pod.UID),
			contract.DisruptionNodeKey: pod.Spec.NodeName, contract.DisruptionContainerKey: container}
		if err := r.patchLedger(ctx, pd.ledger, patch); err != nil {
			return err
		}
		data = pd.ledger.Data // patchLedger replaced the ledger's copy
	}
	pod := s.pods[name]
	if pod == nil || string(pod.UID) != data[contract.DisruptionPodUIDKey] {
		// The member's pod went away with the freezing container in it
		// (or before it was added): watchTopology answers for the pod;
		// the Pause ends here, without a report.
		return r.refuseDeletion(ctx, s, pd, fmt.Sprintf("pod %s is gone or was replaced before the freeze reported: nothing more is known", name))
	}
	i := slices.IndexFunc(pod.Spec.EphemeralContainers, func(c corev1.EphemeralContainer) bool { return c.Name == container })
	if i < 0 {
		// Not added yet. Too late, it would freeze the member after the
		// 30 s measured around the instant, maybe in another phase
		// (after a manager outage): then nothing is frozen.
		if sent, err := time.Parse(time.RFC3339Nano, data[contract.DisruptionSentKey]); err == nil &&
			s.now.After(sent.Add(results.DisruptionAfterMillis*time.Millisecond)) {
			return r.refuseDeletion(ctx, s, pd, fmt.Sprintf("the freezing container could not be added to pod %s within %v of the request: "+
				"nothing frozen", name, results.DisruptionAfterMillis*time.Millisecond))
		}
		return r.addPauseContainer(ctx, s, pd, pod, container)
	}
	s.recovering[name] = true // frozen, or about to be: the next phase waits
	var st *corev1.ContainerStatus
	for j := range pod.Status.EphemeralContainerStatuses {
		if pod.Status.EphemeralContainerStatuses[j].Name == container {
			st = &pod.Status.EphemeralContainerStatuses[j]
		}
	}
	if st == nil || st.State.Terminated == nil {
		// Counted from when the container was added (the ledger's
		// record), else from the request.
		from, err := time.Parse(time.RFC3339Nano, data[contract.DisruptionAddedKey])
		if err != nil {
			from, _ = time.Parse(time.RFC3339Nano, data[contract.DisruptionSentKey])
		}
		deadline := from.Add(pd.spec.Duration.Duration + pauseStartTimeout)
		if !from.IsZero() && s.now.After(deadline) {
			s.fail(benchv1.ReasonPhaseFailed, "phase %s, disruption %d (Pause): the container %s that freezes pod %s's mongod has not ended %v after "+
				"it was added (%s); it may still freeze the member later, so the run stops here", pd.phase.Name, pd.index, container, name,
				pd.spec.Duration.Duration+pauseStartTimeout, containerWaiting(st))
			return nil
		}
		s.wakeAfter(deadline.Sub(s.now)) // its status changes wake the run sooner
		return nil
	}
	term := st.State.Terminated
	rep, err := contract.DecodeFreezeReport(term.Message)
	switch { //nolint:gocritic // three outcomes of one report
	case err == nil && rep.StopSent.IsZero():
		// It sent nothing (no such process, several, not allowed to
		// signal it, stopped before it began): nothing was frozen.
		return r.refuseDeletion(ctx, s, pd, fmt.Sprintf("the container %s froze nothing in pod %s (exit code %d): %s", container, name,
			term.ExitCode, cmp.Or(rep.Error, "no reason given")))
	case err != nil || rep.Continued.IsZero():
		why := fmt.Sprintf("the container %s that froze pod %s's mongod ended (exit code %d) without reporting that it continued it (%s): "+
			"mongod may still be stopped", container, name, term.ExitCode, reportProblem(err, term.Message))
		if err := r.refuseDeletion(ctx, s, pd, why); err != nil {
			return err
		}
		s.fail(benchv1.ReasonPhaseFailed, "phase %s, disruption %d (Pause): %s; delete pod %s to restart it", pd.phase.Name, pd.index, why, name)
		return nil
	}
	patch := map[string]string{
		contract.DisruptionThawedKey:   rep.Continued.UTC().Format(time.RFC3339Nano),
		contract.DisruptionReturnedKey: rep.Continued.UTC().Format(time.RFC3339Nano),
		contract.DisruptionErrorKey:    truncateBytes(rep.Error, maxDisruptionError),
	}
	if !rep.Stopped.IsZero() { // unknown when the stop was never seen (a thread stuck in the kernel)
		patch[contract.DisruptionFrozenKey] = rep.Stopped.UTC().Format(time.RFC3339Nano)
	}
	if err := r.patchLedger(ctx, pd.ledger, patch); err != nil {
		return err
	}
	delete(s.recovering, name)
	s.eventf(benchv1.EventDisruptionThawed, "phase %s, disruption %d (Pause): pod %s's mongod was frozen for %v",
		pd.phase.Name, pd.index, name, rep.Continued.Sub(rep.Stopped).Round(time.Millisecond))
	return nil
}

// addPauseContainer adds the freezing container to the member's pod,
// through the pods' ephemeralcontainers subresource (the only way to add
// a container to a running pod; it can never be removed or restarted).
// The update carries the pod's resourceVersion: a stale cache is a
// conflict, looked at again. A container of that name already there
// (the API server's Invalid: names are unique in a pod) was added by an
// earlier reconcile.
func (r *BenchmarkRunReconciler) addPauseContainer(ctx context.Context, s *runState, pd podDeletion, pod *corev1.Pod, container string) error {
	next := pod.DeepCopy()
	c := topology.PauseContainer(pd.ledger.Name, pd.spec.Duration.Duration, r.Topology)
	next.Spec.EphemeralContainers = append(next.Spec.EphemeralContainers, c)
	err := r.SubResource("ephemeralcontainers").Update(ctx, next)
	switch {
	case err == nil:
	case apierrors.IsConflict(err):
		return fmt.Errorf("add the freezing container to pod %s: %w", pod.Name, err) // looked at again (disruptPauses)
	case apierrors.IsInvalid(err) || apierrors.IsForbidden(err) || apierrors.IsBadRequest(err):
		fresh := &corev1.Pod{}
		if gerr := r.APIReader.Get(ctx, client.ObjectKeyFromObject(pod), fresh); gerr == nil &&
			slices.ContainsFunc(fresh.Spec.EphemeralContainers, func(e corev1.EphemeralContainer) bool { return e.Name == container }) {
			break // added before
		}
		return r.refuseDeletion(ctx, s, pd, fmt.Sprintf("add the freezing container to pod %s: %v", pod.Name, err))
	default:
		return fmt.Errorf("disruption %d of phase %s: add the freezing container to pod %s: %w", pd.index, pd.phase.Name, pod.Name, err)
	}
	s.recovering[pod.Name] = true
	if err := r.patchLedger(ctx, pd.ledger, map[string]string{contract.DisruptionAddedKey: s.now.UTC().Format(time.RFC3339Nano)}); err != nil {
		return err
	}
	s.eventf(benchv1.EventDisruptionFreezing, "phase %s, disruption %d (Pause): freezing pod %s's mongod for %v (ephemeral container %s)",
		pd.phase.Name, pd.index, pod.Name, pd.spec.Duration.Duration, container)
	return nil
}

// containerWaiting says why a container has not run, for a person.
func containerWaiting(st *corev1.ContainerStatus) string {
	switch {
	case st == nil:
		return "the kubelet reports nothing of it yet"
	case st.State.Waiting != nil:
		return fmt.Sprintf("waiting: %s %s", st.State.Waiting.Reason, st.State.Waiting.Message)
	case st.State.Running != nil:
		return "still running"
	}
	return "no state"
}

func reportProblem(err error, msg string) string {
	if err != nil {
		return fmt.Sprintf("its report %.200q: %v", msg, err)
	}
	return "its report has no continue time"
}
