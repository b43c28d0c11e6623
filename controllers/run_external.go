package controllers

import (
	"context"
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/topology"
)

// An External run (topology.mode External) provisions nothing: its steps
// are the run's clock, the Jobs' identity, the check of the user's
// Secrets, the bootstrap (detection, the safety refusal, the owner mark),
// the environment and the phases. No pod, Service, volume, NetworkPolicy,
// placement or node pre-flight: there is no database pod to place.
func (r *BenchmarkRunReconciler) externalSteps() []step {
	return []step{
		r.start, r.checkTimeout,
		r.ensureIdentity, r.checkSecrets,
		r.bootstrap,
		r.recordEnvironment,
		r.runPhases, r.succeed,
	}
}

// secretRecheck is how often a run waiting for a missing Secret looks
// again (Secrets are not watched: the manager caches none of the user's).
const secretRecheck = 5 * time.Second

// checkSecrets makes sure every Secret key the run's Jobs read exists
// before any Job is created: a Job whose secretKeyRef is missing would
// only wait in CreateContainerConfigError. A missing Secret or key is
// waited for up to Limits.SecretWait after the run started (a Secret
// applied with the run, or just after it, is found), then fails the run
// with SecretNotFound, naming the Secret and the key, never a value. The
// Secrets are read through the APIReader: the manager's cache would
// otherwise hold every Secret of the cluster.
func (r *BenchmarkRunReconciler) checkSecrets(ctx context.Context, s *runState) (bool, error) {
	run := s.run
	if s.topologyWasReady() || s.jobs[topology.BootstrapJobName(run)] != nil {
		return true, nil
	}
	var missing []string
	for _, ref := range topology.SecretKeys(run) {
		sec := &corev1.Secret{}
		err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: ref.Name}, sec)
		switch {
		case apierrors.IsNotFound(err):
			missing = append(missing, fmt.Sprintf("Secret %s (key %s) does not exist", ref.Name, ref.Key))
		case err != nil:
			return false, fmt.Errorf("get Secret %s: %w", ref.Name, err)
		default:
			if _, ok := sec.Data[ref.Key]; !ok {
				missing = append(missing, fmt.Sprintf("Secret %s has no key %s", ref.Name, ref.Key))
			}
		}
	}
	if len(missing) == 0 {
		return true, nil
	}
	msg := strings.Join(missing, "; ")
	waited := time.Duration(0)
	if st := run.Status.StartTime; st != nil {
		waited = s.now.Sub(st.Time)
	}
	if left := r.Limits.SecretWait - waited; left > 0 {
		s.setCondition(benchv1.ConditionTopologyReady, metav1.ConditionFalse, benchv1.ReasonSecretNotFound,
			fmt.Sprintf("%s; waiting up to %s for it", msg, r.Limits.SecretWait.Round(time.Second)))
		s.wakeAfter(min(left, secretRecheck))
		return false, nil
	}
	s.fail(benchv1.ReasonSecretNotFound, "%s", msg)
	return false, nil
}

// targetNotEmpty reports the bootstrap pod that refused the run's
// database because it already holds collections: the loader's exit code
// contract.ExitTargetNotEmpty, with its termination message.
func targetNotEmpty(pods []*corev1.Pod) (string, bool) {
	for _, p := range pods {
		for _, cs := range p.Status.ContainerStatuses {
			if t := cs.State.Terminated; t != nil && t.ExitCode == contract.ExitTargetNotEmpty {
				return lastTermination(p), true
			}
		}
	}
	return "", false
}

// externalFingerprintTopology is the part of an External run's topology
// that decides what its numbers mean: whether the collection is sharded
// and on which key. Not the Secrets' names, nor the database's: they name
// where the cluster is, not what it is; the cluster itself is fingerprinted
// by what the bootstrap detected (server version, build). The fields that
// only size a deployment mongobench makes (image, cache, oplog, storage,
// resources, filled in by the API server's defaults) are ignored.
func externalFingerprintTopology(run *benchv1.BenchmarkRun) benchv1.TopologySpec {
	t := benchv1.TopologySpec{Mode: benchv1.TopologyExternal, ShardKey: run.Spec.Topology.ShardKey}
	sc := topology.ShardCollection(run)
	t.External = &benchv1.ExternalSpec{ShardCollection: &sc}
	return t
}

// externalNode is status.environment.node's name for an External run.
const externalNode = "external"

// fingerprintTopology is the topology the fingerprint hashes.
func fingerprintTopology(run *benchv1.BenchmarkRun) benchv1.TopologySpec {
	if topology.External(run) {
		return externalFingerprintTopology(run)
	}
	return run.Spec.Topology
}

// dropDatabase runs an External run's cleanup on the user's cluster: the
// `loader dropdatabase` Job, which drops the run's database only when it
// holds this run's owner mark (the bootstrap wrote it into a database it
// found empty), so a database that existed before the run survives. It
// reports true once the Job has finished; the other objects of the run
// are deleted after it, since the Job runs as the run's ServiceAccount. A
// failed drop is told in a warning event (the run's outcome stands, and
// the database is the user's to drop); it is never retried.
func (r *BenchmarkRunReconciler) dropDatabase(ctx context.Context, s *runState) (bool, error) {
	run := s.run
	name := topology.DropDatabaseJobName(run)
	job := s.jobs[name]
	if job == nil {
		if err := r.create(ctx, topology.DropDatabaseJob(run, r.Topology)); err != nil {
			return false, err
		}
		s.eventf(benchv1.EventCleanedUp, "started Job %s to drop database %s if this run created it (cleanup: %s)",
			name, topology.ExternalDatabase(run), run.Spec.Cleanup)
		return false, nil
	}
	if jobCondition(job, batchv1.JobFailed) != nil {
		// Told once: on the pass that deletes the run's other Jobs.
		if len(s.jobs) > 1 {
			s.warnf(benchv1.EventCleanedUp, "Job %s could not drop database %s: %s", name, topology.ExternalDatabase(run), jobFailure(job, s.jobPods(job)))
		}
		return true, nil
	}
	return jobCondition(job, batchv1.JobComplete) != nil, nil
}

// recordExternalMembers writes what the bootstrap found of an External
// cluster into status.topology.processes: each replica-set member it
// reported (a replica set's, or each shard's and the config server's as
// far as the loader discovers them), by host:port, with its state. The
// run has no pod of its own, so Pod (the list's key) is the host:port
// too, and Ready means the member was PRIMARY or SECONDARY. A standalone or a cluster whose members were
// not reported leaves the list empty: status.topology.serverVersion and
// status.environment.mongodb still say what was reached. This is where a
// richer detection result (the detected mode, mongos hosts) is to be
// recorded once results.Bootstrap carries it.
func recordExternalMembers(t *benchv1.TopologyStatus, members []results.MemberState) {
	t.Processes = nil
	for _, m := range members {
		t.Processes = append(t.Processes, benchv1.ProcessStatus{Role: benchv1.RoleMember, Pod: m.Host, Address: m.Host, ReplicaSet: m.ReplicaSet,
			State: m.State, Ready: m.State == "PRIMARY" || m.State == "SECONDARY"})
	}
}
