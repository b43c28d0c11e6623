package controllers

import (
	"context"
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/topology"
)

// bootstrap runs the bootstrap Job once the data-bearing processes are
// ready (mongos becomes ready only after its config server is initiated),
// records its report, and declares the topology ready when every process is.
func (r *BenchmarkRunReconciler) bootstrap(ctx context.Context, s *runState) (bool, error) {
	run := s.run
	if conditionTrue(run, benchv1.ConditionTopologyReady) {
		return true, nil
	}
	procs := topology.Processes(run)
	all, dataReady, msg := readiness(s, procs)
	// A benchmark Job exists only once the topology was ready; the status
	// patch that recorded it may have been lost to a conflict. Then the
	// topology is judged as a ready one (watchTopology), never waited for
	// again: a pod lost in between is a lost topology, not a slow one.
	started := s.benchmarkStarted()
	if s.topologyStatus().ServerVersion == "" {
		if !dataReady && !started {
			s.setCondition(benchv1.ConditionTopologyReady, metav1.ConditionFalse, benchv1.ReasonWaitingForPods, msg)
			return false, nil
		}
		job := s.jobs[topology.BootstrapJobName(run)]
		if job == nil {
			if err := r.create(ctx, topology.BootstrapJob(run, r.Topology)); err != nil {
				return false, err
			}
			s.setCondition(benchv1.ConditionTopologyReady, metav1.ConditionFalse, benchv1.ReasonBootstrapping, msg+"; bootstrap Job started")
			s.eventf(benchv1.ReasonBootstrapping, "started Job %s to initiate replica sets, add shards and shard the collection", topology.BootstrapJobName(run))
			return false, nil
		}
		if msg, refused := targetNotEmpty(s.jobPods(job)); refused {
			s.fail(benchv1.ReasonTargetNotEmpty, "database %s already holds collections, and external.allowExistingData is false; nothing was written: %s",
				topology.ExternalDatabase(run), msg)
			return false, nil
		}
		if !r.jobDone(s, job, benchv1.ReasonBootstrapFailed, "bootstrap", true) {
			s.setCondition(benchv1.ConditionTopologyReady, metav1.ConditionFalse, benchv1.ReasonBootstrapping, msg+"; bootstrap Job running")
			return false, nil
		}
		cm := s.configMaps[contract.ResultConfigMapName(job.Name, 0)]
		raw := cm.Data[contract.BootstrapConfigMapKey]
		rep, err := results.DecodeBootstrap([]byte(raw))
		if err != nil {
			s.fail(benchv1.ReasonBootstrapFailed, "bootstrap Job %s reported an unusable result in ConfigMap %s: %v", job.Name, cm.Name, err)
			return false, nil
		}
		t := run.Status.Topology
		t.ServerVersion = rep.ServerVersion
		if rep.Server != nil {
			if run.Status.Environment == nil {
				run.Status.Environment = &benchv1.EnvironmentStatus{}
			}
			run.Status.Environment.MongoDB = mongoDBEnvironment(rep.Server)
		}
		recordMemberStates(t, rep.Members)
		if topology.External(run) {
			recordExternalMembers(t, rep.Members)
		}
		t.Chunks = nil
		for _, sh := range rep.Shards {
			t.Chunks = append(t.Chunks, benchv1.ShardChunks{Shard: sh.Name, Chunks: int32(sh.Chunks)})
		}
		s.eventf(benchv1.EventBootstrapped, "%s", bootstrappedMessage(rep))
	}
	if !all && !started {
		s.setCondition(benchv1.ConditionTopologyReady, metav1.ConditionFalse, benchv1.ReasonWaitingForPods, msg)
		return false, nil
	}
	if topology.External(run) {
		s.setCondition(benchv1.ConditionTopologyReady, metav1.ConditionTrue, benchv1.ReasonReady,
			fmt.Sprintf("external cluster reached, MongoDB %s; the run uses database %s", run.Status.Topology.ServerVersion, topology.ExternalDatabase(run)))
		s.eventf(benchv1.EventTopologyReady, "external cluster reached, MongoDB %s", run.Status.Topology.ServerVersion)
		return true, nil
	}
	s.setCondition(benchv1.ConditionTopologyReady, metav1.ConditionTrue, benchv1.ReasonReady,
		fmt.Sprintf("%d MongoDB processes ready on %s, MongoDB %s", len(procs), placedOn(run), run.Status.Topology.ServerVersion))
	s.eventf(benchv1.EventTopologyReady, "%d MongoDB processes ready on %s", len(procs), placedOn(run))
	return true, nil
}

// recordMemberStates writes the members' states the bootstrap reported
// into status.topology.processes, matching each member's host:port with a
// process's address (both topology.Address: the bootstrap Job was given
// them).
func recordMemberStates(t *benchv1.TopologyStatus, members []results.MemberState) {
	state := map[string]string{}
	for _, m := range members {
		state[strings.ToLower(m.Host)] = m.State
	}
	for i := range t.Processes {
		if s, ok := state[strings.ToLower(t.Processes[i].Address)]; ok {
			t.Processes[i].State = s
		}
	}
}

// bootstrappedMessage sums up a bootstrap result: the server version, and
// for a sharded collection its key, chunks per shard and the split points
// of a ranged pre-split.
func bootstrappedMessage(rep *results.Bootstrap) string {
	msg := "MongoDB " + rep.ServerVersion
	chunks := make([]string, 0, len(rep.Shards))
	for _, sh := range rep.Shards {
		chunks = append(chunks, fmt.Sprintf("%s=%d", sh.Name, sh.Chunks))
	}
	if len(chunks) > 0 {
		msg += fmt.Sprintf("; %s sharded on %s, chunks %s", rep.Namespace, rep.ShardKey, strings.Join(chunks, " "))
	}
	if len(rep.SplitPoints) > 0 {
		msg += ", split at " + strings.Join(rep.SplitPoints, " ")
	}
	if len(rep.Members) > 0 {
		states := make([]string, 0, len(rep.Members))
		for _, m := range rep.Members {
			states = append(states, m.Host+" "+m.State)
		}
		msg += fmt.Sprintf("; replica set %s: %s", rep.Members[0].ReplicaSet, strings.Join(states, ", "))
	}
	return eventMessage(msg)
}

// jobDone reads a Job's state. It fails the run (with reason) if the Job
// failed or its pods cannot run, and reports true once the Job completed
// and, when withResults, every result ConfigMap its pods write is present.
func (r *BenchmarkRunReconciler) jobDone(s *runState, job *batchv1.Job, reason benchv1.Reason, what string, withResults bool) bool {
	if jobCondition(job, batchv1.JobFailed) != nil {
		s.fail(reason, "%s failed: %s", what, jobFailure(job, s.jobPods(job)))
		return false
	}
	if jobCondition(job, batchv1.JobComplete) == nil {
		pods := s.jobPods(job)
		for _, p := range pods {
			// backoffLimit is 0: one failed pod fails the Job. Say so now
			// rather than after the Job controller catches up. A resumable
			// phase's disrupted pod is replaced instead (podFailurePolicy).
			replaced := topology.Resumable(job) && disrupted(p)
			if p.Status.Phase == corev1.PodFailed && !replaced {
				s.fail(reason, "%s failed: %s", what, jobFailure(job, pods))
				return false
			}
		}
		for _, p := range pods {
			if p.Status.Phase == corev1.PodFailed {
				continue // disrupted, replaced
			}
			pr := podProblem(p, s.now, r.Limits)
			if pr.fatal != "" {
				s.fail(reason, "%s cannot run: %s", what, pr.fatal)
				return false
			}
			if pr.wait > 0 {
				s.wakeAfter(pr.wait)
			}
		}
		return false
	}
	if !withResults {
		return true
	}
	completions := int32(1)
	if job.Spec.Completions != nil {
		completions = *job.Spec.Completions
	}
	var missing []string
	for i := 0; i < int(completions); i++ {
		if name := contract.ResultConfigMapName(job.Name, i); s.configMaps[name] == nil {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return true
	}
	// The loader writes its result before it exits, but the cache may not
	// have it yet: give it a bounded grace period, then fail loudly.
	completed := job.CreationTimestamp.Time
	if job.Status.CompletionTime != nil {
		completed = job.Status.CompletionTime.Time
	}
	if left := r.Limits.ResultGrace - s.now.Sub(completed); left > 0 {
		s.wakeAfter(left)
		return false
	}
	s.fail(reason, "%s completed but reported no result: ConfigMap %s missing after %s",
		what, strings.Join(missing, ", "), r.Limits.ResultGrace.Round(time.Second))
	return false
}

// watchTopology fails a run whose topology changed under it after it was
// ready: a restarted or vanished MongoDB process invalidates the numbers,
// unless a disruption deleted it (disruptPods, which brings it back).
func (r *BenchmarkRunReconciler) watchTopology(_ context.Context, s *runState) (bool, error) {
	run := s.run
	procs := topology.Processes(run)
	baseline := recordedRestarts(run.Status.Topology)
	for _, p := range procs {
		pod := s.pods[p.Name]
		if uid, ok := s.deletedPods[p.Name]; ok && (pod == nil || pod.UID == uid || s.recovering[p.Name]) {
			// A disruption deleted it (disruptPods recreates it): the
			// pod it deleted, its absence, or its replacement coming up.
			continue
		}
		switch {
		case pod == nil:
			s.fail(benchv1.ReasonTopologyLost, "topology lost: pod %s disappeared", p.Name)
		case pod.DeletionTimestamp != nil:
			s.fail(benchv1.ReasonTopologyLost, "topology lost: pod %s is being deleted", p.Name)
		case restarts(pod) > baseline[p.Name]:
			// The cause in parentheses, the message's last lines after it.
			cause, detail := "no exit recorded", ""
			if t := lastExitState(pod); t != nil {
				cause, detail = exitCode(t), exitDetail(t)
			}
			s.fail(benchv1.ReasonTopologyLost, "topology lost: pod %s restarted (%s)%s", p.Name, cause, detail)
		}
		if terminal(run) {
			return false, nil
		}
	}
	s.recordProcesses(procs, r.Topology.ClusterDomain)
	return true, nil
}

// disrupted reports whether a pod was stopped from outside (evicted,
// preempted, its node drained): the DisruptionTarget condition.
func disrupted(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}
