package controllers_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/topology"
)

// TestNetworkPolicyOwnedAndCleanedUp: a run's NetworkPolicy exists before
// its first database pod, is controller-owned by the run and selects its
// pods by the run's UID; deleted by hand, it comes back at once; the
// cleanup deletes it with the topology. A run with security.networkPolicy
// false has none, even when its cleanup keeps everything.
func TestNetworkPolicyOwnedAndCleanedUp(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	stop := k.autopilotWith(autopilotOptions{holdPhases: true})
	defer stop()

	run := k.create(newRun("np", benchv1.TopologySharded, 2, 1))
	k.pod("np-cfg") // the anchor: created after the policy
	np := &networkingv1.NetworkPolicy{}
	if !k.exists(np, "np-db") {
		t.Fatal("a database pod exists before its NetworkPolicy")
	}
	if refs := np.OwnerReferences; len(refs) != 1 || refs[0].UID != run.UID || !ptr.Deref(refs[0].Controller, false) {
		t.Errorf("owner references %+v, want the run as controller", refs)
	}
	if got := np.Spec.PodSelector.MatchLabels[benchv1.LabelRunUID]; got != string(run.UID) {
		t.Errorf("the policy selects run UID %q, want %q", got, run.UID)
	}
	if np.Labels[benchv1.LabelManagedBy] != benchv1.ManagedBy {
		t.Errorf("labels %v: the manager's cache would not see it", np.Labels)
	}

	// Deleted during the run, it is re-created by the watch on it.
	k.waitRun("np", "phase load", func(r *benchv1.BenchmarkRun) bool { return r.Status.CurrentPhase == "load" })
	old := np.UID
	if err := k.c.Delete(k.ctx(), np); err != nil {
		t.Fatal(err)
	}
	k.eventually("the NetworkPolicy re-created", 30*time.Second, func() (bool, error) {
		err := k.c.Get(k.ctx(), types.NamespacedName{Namespace: k.ns, Name: "np-db"}, np)
		return err == nil && np.UID != old, nil
	})

	for _, ph := range run.Spec.Phases {
		k.waitRun("np", "phase "+ph.Name, func(r *benchv1.BenchmarkRun) bool { return r.Status.CurrentPhase == ph.Name })
		k.finishPhase(run, ph)
	}
	k.waitLifecycle("np", benchv1.RunSucceeded)
	k.eventually("cleanup", 30*time.Second, func() (bool, error) {
		return k.gone(&corev1.Pod{}, "np-shard0") && k.gone(&networkingv1.NetworkPolicy{}, "np-db"), nil
	})

	open := newRun("open", benchv1.TopologyStandalone, 0, 1)
	open.Spec.Security = &benchv1.SecuritySpec{NetworkPolicy: ptr.To(false)}
	open.Spec.Cleanup = benchv1.CleanupRetain
	k.create(open)
	for _, ph := range open.Spec.Phases {
		k.waitRun("open", "phase "+ph.Name, func(r *benchv1.BenchmarkRun) bool { return r.Status.CurrentPhase == ph.Name })
		k.finishPhase(open, ph)
	}
	r := k.waitLifecycle("open", benchv1.RunSucceeded)
	if k.exists(&networkingv1.NetworkPolicy{}, topology.NetworkPolicyName(open)) {
		t.Error("security.networkPolicy false, yet the run has a NetworkPolicy")
	}
	if !k.exists(&corev1.Pod{}, "open-mongod") {
		t.Error("cleanup Retain deleted the pod: the check above proves nothing")
	}
	if r.Spec.Security == nil || r.Spec.Security.NetworkPolicy == nil || *r.Spec.Security.NetworkPolicy {
		t.Errorf("security %+v, want networkPolicy false as set", r.Spec.Security)
	}
	if s := k.run("np").Spec.Security; s == nil || s.NetworkPolicy == nil || !*s.NetworkPolicy {
		t.Errorf("security defaulted to %+v, want networkPolicy true", s)
	}
}
