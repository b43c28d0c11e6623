package controllers

// This file carries out the pod deletions of a phase's disruptions
// (KillPrimary, RestartMember, KillMongos) and brings the deleted members
// (or the mongos) back. The
// manager talks only to the Kubernetes API and does not know which member
// is primary; loader 0's driver does. So at the instant loader 0 creates
// the disruption's ledger with the member to delete as its driver knows
// it, and the controller, woken by the ledger (the run's ConfigMaps are
// watched), deletes that member's pod exactly once and recreates it
// (contract.DisruptionTargetKey and the steps documented there).

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/topology"
)

// killGracePeriodSeconds is KillPrimary's grace period. The kubelet gives
// every container at least 2 s between SIGTERM and SIGKILL whatever the
// grace period (k8s.io/kubernetes v1.36.3, pkg/kubelet/kuberuntime/
// kuberuntime_container.go killContainer: minimumGracePeriodInSeconds),
// so 0 would not kill any sooner than 1. But 0 removes the pod object at
// once, while its mongod still runs (pkg/registry/core/pod/strategy.go
// CheckGracefulDelete: 0 is an immediate deletion), and the replacement
// could then start on the same volume beside it; with 1 the object stays
// until the kubelet reports the containers stopped.
const killGracePeriodSeconds = 1

// ledgerConflictRetry is when a reconcile that found its ledger stale
// looks again at the latest, should no event come first.
const ledgerConflictRetry = 200 * time.Millisecond

// podDeletion is one pod deletion of the run's phases whose ledger exists.
type podDeletion struct {
	phase  *benchv1.PhaseSpec
	index  int
	spec   *benchv1.Disruption
	ledger *corev1.ConfigMap
}

// podDeletions are the run's pod deletions that loader 0 requested.
func podDeletions(s *runState) []podDeletion {
	return requested(s, benchv1.DisruptionAction.DeletesPod)
}

// requested are the run's disruptions of the actions kept that loader 0
// requested: those whose ledger the cache holds (owned by the run, as
// observe keeps them).
func requested(s *runState, keep func(benchv1.DisruptionAction) bool) []podDeletion {
	var out []podDeletion
	for i := range s.run.Spec.Phases {
		ph := &s.run.Spec.Phases[i]
		if ph.Type == benchv1.PhaseGrow {
			continue
		}
		job := topology.PhaseJobName(s.run, ph.Name)
		for j := range ph.Disruptions {
			d := &ph.Disruptions[j]
			if !keep(d.Action) {
				continue
			}
			if cm := s.configMaps[contract.DisruptionLedgerName(job, j)]; cm != nil {
				out = append(out, podDeletion{phase: ph, index: j, spec: d, ledger: cm})
			}
		}
	}
	return out
}

// disruptPods carries out the pod deletions loader 0 requested, recreates
// the pods they deleted, and records which pods are theirs, so that
// watchTopology does not take a deleted or recreated member for a lost
// one. It runs once the topology is ready; the ledgers are the only
// state, so a restarted manager resumes where its predecessor stopped.
func (r *BenchmarkRunReconciler) disruptPods(ctx context.Context, s *runState) (bool, error) {
	if topology.External(s.run) || !s.topologyWasReady() {
		return true, nil
	}
	for _, pd := range podDeletions(s) {
		err := r.deletePod(ctx, s, pd)
		if apierrors.IsConflict(err) {
			// A stale ledger (patchLedger): its update event is on the
			// way; look again then, quietly.
			s.wakeAfter(ledgerConflictRetry)
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
	for _, pd := range podDeletions(s) {
		data := pd.ledger.Data
		name := data[contract.DisruptionPodKey]
		if name == "" || data[contract.DisruptionErrorKey] != "" {
			continue
		}
		proc, ok := processByPod(s.run, name)
		if !ok {
			continue // not a pod of this topology: nothing was deleted
		}
		s.deletedPods[name] = types.UID(data[contract.DisruptionPodUIDKey])
		pod := s.pods[name]
		replacement := types.UID(data[contract.DisruptionReplacementUIDKey])
		switch {
		case data[contract.DisruptionReturnedKey] == "":
			// About to be deleted (deletePod patched the UID).
		case pod == nil && replacement != "":
			// The replacement was created: either the cache has not seen
			// it yet, or it went missing in its turn, which no disruption
			// explains (watchTopology then fails the run as for any lost
			// member). The API server says which.
			lost, err := r.replacementLost(ctx, s, name, replacement)
			if err != nil {
				return false, err
			}
			if lost {
				delete(s.deletedPods, name)
				continue
			}
			s.recovering[name] = true
		case pod == nil:
			err := r.recreatePod(ctx, s, pd, proc)
			if apierrors.IsConflict(err) {
				// A stale ledger, as above; the pod exists now, and the
				// next look records it.
				s.wakeAfter(ledgerConflictRetry)
				return false, nil
			}
			if err != nil {
				return false, err
			}
			s.recovering[name] = true
		case pod.UID == s.deletedPods[name] || !podReady(pod):
			// Still stopping, or the replacement is not ready yet: its
			// events wake the run.
			s.recovering[name] = true
			if pod.UID != s.deletedPods[name] && r.failOnPodProblems(s, []topology.Process{proc}, nil) {
				return false, nil
			}
		}
	}
	return true, nil
}

// deletePod takes one pod deletion a step further, as its ledger says:
// choose the pod and record it (with its UID) before deleting anything,
// then delete that UID and record when, or why not. A ledger that
// returned is done.
func (r *BenchmarkRunReconciler) deletePod(ctx context.Context, s *runState, pd podDeletion) error {
	data := pd.ledger.Data
	if data[contract.DisruptionReturnedKey] != "" {
		return nil
	}
	name, uid := data[contract.DisruptionPodKey], types.UID(data[contract.DisruptionPodUIDKey])
	if uid == "" {
		proc, why := deletionTarget(s, pd)
		if why != "" {
			return r.refuseDeletion(ctx, s, pd, why)
		}
		pod := s.pods[proc.Name]
		if pod == nil || pod.DeletionTimestamp != nil {
			return r.refuseDeletion(ctx, s, pd, fmt.Sprintf("pod %s is not running (an earlier disruption's member not back yet?): nothing deleted", proc.Name))
		}
		name, uid = pod.Name, pod.UID
		patch := map[string]string{contract.DisruptionPodKey: name, contract.DisruptionPodUIDKey: string(uid), contract.DisruptionNodeKey: pod.Spec.NodeName}
		if err := r.patchLedger(ctx, pd.ledger, patch); err != nil {
			return err
		}
	}
	opts := []client.DeleteOption{client.Preconditions{UID: &uid}}
	how := "with its grace period (SIGTERM: an orderly shutdown)"
	if pd.spec.Action == benchv1.DisruptionKillPrimary || pd.spec.Action == benchv1.DisruptionKillMongos {
		opts = append(opts, client.GracePeriodSeconds(killGracePeriodSeconds))
		how = "at once (the kubelet's shortest stop: SIGTERM, SIGKILL 2 s later)"
	}
	var err error
	deleted := false
	if p := s.pods[name]; p == nil || p.UID != uid || p.DeletionTimestamp == nil {
		// Unless the cache already shows this pod terminating (deleted by
		// a reconcile whose record of it this one does not see yet). A
		// cache that lags still lets the delete through: on the same UID
		// it changes nothing.
		pod := &corev1.Pod{}
		pod.Name, pod.Namespace = name, s.run.Namespace
		err = r.Delete(ctx, pod, opts...)
		deleted = err == nil
	}
	switch {
	case deleted, apierrors.IsNotFound(err), apierrors.IsConflict(err):
		// NotFound or a failed UID precondition (409 Conflict): this pod
		// was deleted before, by this manager's predecessor, which did
		// not live to record it; the pod under that name now, if any,
		// is its replacement and stays.
	case apierrors.IsForbidden(err), apierrors.IsInvalid(err), apierrors.IsBadRequest(err):
		return r.refuseDeletion(ctx, s, pd, fmt.Sprintf("delete pod %s: %v", name, err))
	default:
		return fmt.Errorf("disruption %d of phase %s: delete pod %s: %w", pd.index, pd.phase.Name, name, err)
	}
	patch := map[string]string{contract.DisruptionReturnedKey: s.now.UTC().Format(time.RFC3339Nano), contract.DisruptionErrorKey: ""}
	if err := r.patchLedger(ctx, pd.ledger, patch); err != nil {
		return err
	}
	if deleted {
		s.eventf(benchv1.EventDisruptionPodDeleted, "phase %s, disruption %d (%s): deleted pod %s %s", pd.phase.Name, pd.index, pd.spec.Action, name, how)
	}
	return nil
}

// refuseDeletion records in the ledger why a pod deletion did not happen:
// the disruption Failed, the phase goes on.
func (r *BenchmarkRunReconciler) refuseDeletion(ctx context.Context, s *runState, pd podDeletion, why string) error {
	patch := map[string]string{contract.DisruptionReturnedKey: s.now.UTC().Format(time.RFC3339Nano),
		contract.DisruptionErrorKey: truncateBytes(why, maxDisruptionError)}
	if err := r.patchLedger(ctx, pd.ledger, patch); err != nil {
		return err
	}
	s.warnf(benchv1.EventDisruptionFailed, "phase %s, disruption %d (%s): %s", pd.phase.Name, pd.index, pd.spec.Action, why)
	return nil
}

// patchLedger merges data into a ledger (a JSON merge patch of its data,
// as loader 0 writes it) and into the copy this reconcile goes on with.
// The patch carries the resourceVersion read: a reconcile that saw a
// stale ledger (the cache behind this manager's own last patch) fails
// with a conflict and looks again, instead of recording over it.
func (r *BenchmarkRunReconciler) patchLedger(ctx context.Context, cm *corev1.ConfigMap, data map[string]string) error {
	base := cm.DeepCopy()
	next := cm.DeepCopy()
	if next.Data == nil {
		next.Data = map[string]string{}
	}
	for k, v := range data {
		next.Data[k] = v
	}
	if err := r.Patch(ctx, next, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("patch the disruption ledger %s: %w", cm.Name, err)
	}
	*cm = *next
	return nil
}

// deletionTarget is the member a pod deletion names: by index, or the
// member at the address loader 0 wrote (the primary, or a secondary), of
// the replica set the disruption hits (the ReplicaSet topology's, or a
// shard's or the config server's: topology.DisruptionTargetProcesses);
// the mongos for KillMongos. why says, for a person, why there is none.
func deletionTarget(s *runState, pd podDeletion) (topology.Process, string) {
	procs := topology.DisruptionTargetProcesses(s.run, pd.spec)
	set, of := "replica set", ""
	if rs := topology.DisruptionReplSet(pd.spec); rs != "" {
		set, of = "replica set "+rs, " of replica set "+rs
	}
	if pd.spec.Action == benchv1.DisruptionKillMongos {
		if len(procs) > 0 {
			return procs[0], ""
		}
		return topology.Process{}, "the topology has no mongos: nothing deleted"
	}
	if len(procs) == 0 {
		return topology.Process{}, fmt.Sprintf("the run has no %s: nothing deleted", set)
	}
	if m := pd.spec.Member; m != nil && m.String() != benchv1.MemberPrimary && m.String() != benchv1.MemberSecondary {
		i, err := strconv.Atoi(m.String())
		if err != nil || i < 0 || i >= len(procs) {
			return topology.Process{}, fmt.Sprintf("member %s: the %s has members 0 to %d", m.String(), set, len(procs)-1)
		}
		return procs[i], ""
	}
	target := pd.ledger.Data[contract.DisruptionTargetKey]
	if target == "" {
		what := "primary"
		if m := pd.spec.Member; m != nil && m.String() == benchv1.MemberSecondary {
			what = "secondary"
		}
		return topology.Process{}, fmt.Sprintf("loader 0's driver knew no %s%s at the instant: nothing deleted", what, of)
	}
	if p, ok := memberAt(procs, target); ok {
		return p, ""
	}
	names := make([]string, 0, len(procs))
	for _, p := range procs {
		names = append(names, p.Name)
	}
	return topology.Process{}, fmt.Sprintf("loader 0 named %.253q, which is no member of this run's %s (%s): nothing deleted",
		target, set, strings.Join(names, ", "))
}

// memberAt is the member of procs whose address is addr (host:port). The
// members are named by their pod's DNS name (topology.Host), which the
// driver reports as the set's hello lists them; the pod name is the
// host's first label, and the port must match.
func memberAt(procs []topology.Process, addr string) (topology.Process, bool) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return topology.Process{}, false
	}
	first, _, _ := strings.Cut(strings.ToLower(host), ".")
	for _, p := range procs {
		if first == p.Name && port == strconv.Itoa(int(p.Port)) {
			return p, true
		}
	}
	return topology.Process{}, false
}

func processByPod(run *benchv1.BenchmarkRun, name string) (topology.Process, bool) {
	procs := topology.Processes(run)
	i := slices.IndexFunc(procs, func(p topology.Process) bool { return p.Name == name })
	if i < 0 {
		return topology.Process{}, false
	}
	return procs[i], true
}

// recreatePod creates a deleted member's pod again: the same builder, name
// and volume as provisioning (topology.Pod), pinned to the node it ran on
// (the ledger's record, else status.nodeName): a replacement elsewhere
// would change what is measured. A member on emptyDir starts empty and
// resyncs from the others (initial sync); one on a PersistentVolume
// finds its data.
func (r *BenchmarkRunReconciler) recreatePod(ctx context.Context, s *runState, pd podDeletion, p topology.Process) error {
	np := topology.NodePlacement{}
	node := pd.ledger.Data[contract.DisruptionNodeKey]
	if node == "" {
		node = s.run.Status.NodeName
	}
	if node != "" {
		h, ok, err := r.hostname(ctx, s, node)
		if err != nil || !ok {
			return err
		}
		np.Hostname = h
	}
	pod := topology.Pod(s.run, p, np, r.Topology)
	if err := r.create(ctx, pod); err != nil {
		return err
	}
	if pod.UID == "" { // AlreadyExists: an earlier reconcile created it
		if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(pod), pod); err != nil {
			return fmt.Errorf("get the recreated pod %s: %w", pod.Name, err)
		}
	}
	// Recorded, so that the replacement going missing later is not taken
	// for the disruption's doing (disruptPods).
	if err := r.patchLedger(ctx, pd.ledger, map[string]string{contract.DisruptionReplacementUIDKey: string(pod.UID)}); err != nil {
		return err
	}
	s.eventf(benchv1.EventDisruptionPodRecreated, "phase %s, disruption %d (%s): created pod %s again; its member rejoins the replica set",
		pd.phase.Name, pd.index, pd.spec.Action, p.Name)
	return nil
}

// podDeletionOutcomes replaces, in a phase's merged result, the outcome of
// each pod deletion with the controller's, from its ledger: the loader
// reported only that it asked. The cache holds the ledger whenever it
// holds the loaders' results: loader 0 created it before its result, and
// one informer delivers a kind's objects in the order they were written.
func podDeletionOutcomes(s *runState, ph *benchv1.PhaseSpec, jobName string, m *results.Result) {
	for i := range m.Disruptions {
		d := &m.Disruptions[i]
		if i >= len(ph.Disruptions) || !ph.Disruptions[i].Action.ByController() {
			continue
		}
		if d.Outcome != nil && d.Outcome.State == results.DisruptionNotReached {
			continue
		}
		name := contract.DisruptionLedgerName(jobName, i)
		cm := s.configMaps[name]
		if cm == nil {
			d.Outcome = &results.DisruptionOutcome{State: results.DisruptionUnknown,
				Error: fmt.Sprintf("loader 0 requested it, but its ledger %s is gone", name)}
			continue
		}
		d.Outcome = ledgerOutcome(name, cm.Data)
	}
}

// ledgerOutcome is a pod deletion's outcome as its ledger says: Done when
// the API server accepted the deletion, Failed with the controller's
// reason, Unknown while the controller has not recorded either. Sent is
// loader 0's request; the primary its driver knew then.
func ledgerOutcome(name string, data map[string]string) *results.DisruptionOutcome {
	sent, _ := time.Parse(time.RFC3339Nano, data[contract.DisruptionSentKey])
	o := &results.DisruptionOutcome{State: results.DisruptionUnknown, Sent: sent, Primary: data[contract.DisruptionPrimaryKey],
		Pod: data[contract.DisruptionPodKey]}
	returned, err := time.Parse(time.RFC3339Nano, data[contract.DisruptionReturnedKey])
	switch {
	case err == nil && !returned.Before(sent):
		o.State, o.Returned = results.DisruptionDone, &returned
		if e := data[contract.DisruptionErrorKey]; e != "" {
			o.State, o.Error = results.DisruptionFailed, e
		}
	case err == nil:
		// The controller's clock behind loader 0's: the order is known,
		// the duration is not.
		o.State, o.Returned = results.DisruptionDone, &sent
		if e := data[contract.DisruptionErrorKey]; e != "" {
			o.State, o.Error = results.DisruptionFailed, e
		}
	default:
		o.Error = fmt.Sprintf("requested at %s; the controller recorded no outcome in ledger %s", data[contract.DisruptionSentKey], name)
	}
	if t, err := time.Parse(time.RFC3339Nano, data[contract.DisruptionFrozenKey]); err == nil && !t.IsZero() {
		o.Frozen = &t
	}
	if t, err := time.Parse(time.RFC3339Nano, data[contract.DisruptionThawedKey]); err == nil && !t.IsZero() {
		o.Thawed = &t
	}
	return o
}

// replacementLost reports whether the pod a disruption's replacement was
// (UID replacement) is gone: no pod of that name, or another one, on the
// API server itself (the cache may not have seen the replacement yet).
func (r *BenchmarkRunReconciler) replacementLost(ctx context.Context, s *runState, name string, replacement types.UID) (bool, error) {
	pod := &corev1.Pod{}
	err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: s.run.Namespace, Name: name}, pod)
	switch {
	case apierrors.IsNotFound(err):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("get pod %s: %w", name, err)
	}
	return pod.UID != replacement, nil
}
