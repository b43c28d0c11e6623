package controllers

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// runState is one reconcile's view of a run: the run itself (whose status
// the steps edit, with the status kit: conditions, events, the reconcile's
// time) and every child object observed in the cache.
type runState struct {
	statusKit[*benchv1.BenchmarkRun]
	run *benchv1.BenchmarkRun

	pods       map[string]*corev1.Pod
	jobs       map[string]*batchv1.Job
	configMaps map[string]*corev1.ConfigMap
	services   map[string]*corev1.Service
	claims     map[string]*corev1.PersistentVolumeClaim
	// The run's Jobs' identity: its ServiceAccount, Role and RoleBinding.
	serviceAccounts map[string]*corev1.ServiceAccount
	roles           map[string]*rbacv1.Role
	roleBindings    map[string]*rbacv1.RoleBinding
	// The fence around its database pods (security.networkPolicy).
	networkPolicies map[string]*networkingv1.NetworkPolicy
	// Its keyfile and its users' passwords (security.auth).
	secrets map[string]*corev1.Secret

	// deletedPods are the database pods a disruption's ledger deleted or
	// is about to delete, with the UID it deleted (disruptPods);
	// recovering those not back and ready yet.
	deletedPods map[string]types.UID
	recovering  map[string]bool

	// candidates restricts the anchor pod to these hostnames (preflight).
	candidates []string

	// requeue is the shortest wait a step asked for (0 = none): deadlines
	// that no watch event would announce (timeouts, grace periods).
	requeue time.Duration
}

// wakeAfter asks for a reconcile after d at the latest.
func (s *runState) wakeAfter(d time.Duration) {
	if d <= 0 {
		d = time.Second
	}
	if s.requeue == 0 || d < s.requeue {
		s.requeue = d
	}
}

// setLifecycle moves the run's lifecycle (status.phase) forward, never
// back, with an event.
func (s *runState) setLifecycle(p benchv1.RunLifecycle) {
	next := advance(s.run.Status.Phase, p)
	if next == s.run.Status.Phase {
		return
	}
	s.run.Status.Phase = next
	s.eventf(benchv1.Reason(next), "Run is %s", next)
}

// fail ends the run: phase Failed with a reason a person understands.
func (s *runState) fail(reason benchv1.Reason, format string, args ...any) {
	if terminal(s.run) {
		return
	}
	msg := fmt.Sprintf(format, args...)
	s.run.Status.Phase = advance(s.run.Status.Phase, benchv1.RunFailed)
	s.setCondition(benchv1.ConditionFailed, metav1.ConditionTrue, reason, msg)
	s.setCondition(benchv1.ConditionComplete, metav1.ConditionFalse, reason, "the run failed")
	if c := meta.FindStatusCondition(s.run.Status.Conditions, benchv1.ConditionTopologyReady); c == nil || c.Status != metav1.ConditionTrue {
		s.setCondition(benchv1.ConditionTopologyReady, metav1.ConditionFalse, reason, "the run failed before its topology was ready")
	}
	s.setCondition(benchv1.ConditionValid, metav1.ConditionFalse, benchv1.ReasonRunFailed, "the run failed ("+string(reason)+"): it has no complete numbers")
	now := metav1.NewTime(s.now)
	s.run.Status.CompletionTime = &now
	s.warnf(reason, "%s", msg)
}

func terminal(run *benchv1.BenchmarkRun) bool {
	return run.Status.Phase == benchv1.RunSucceeded || run.Status.Phase == benchv1.RunFailed
}

func conditionTrue(run *benchv1.BenchmarkRun, typ string) bool {
	return meta.IsStatusConditionTrue(run.Status.Conditions, typ)
}

// benchmarkStarted reports whether a benchmark phase's or the validator's
// Job exists: the controller creates them only once the topology is ready.
func (s *runState) benchmarkStarted() bool {
	for _, j := range s.jobs {
		if c := j.Labels[benchv1.LabelComponent]; c == benchv1.ComponentLoader || c == benchv1.ComponentValidator {
			return true
		}
	}
	return false
}

// topologyWasReady: the topology became ready, as status says or, when the
// status patch that said so was lost to a conflict, as the benchmark Jobs
// that exist only after it prove. Provisioning steps never act again then:
// re-creating a lost pod would hide a lost topology.
func (s *runState) topologyWasReady() bool {
	return conditionTrue(s.run, benchv1.ConditionTopologyReady) || s.benchmarkStarted()
}
