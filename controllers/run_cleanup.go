package controllers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/topology"
)

// cleanup applies spec.cleanup once a run has ended. Results live in the
// run's status by then and each phase's merged histograms in a ConfigMap
// of their own, so deleting the loaders' result ConfigMaps loses nothing;
// the diagnostics ConfigMap, stored before, and the phases' telemetry and
// histograms ConfigMaps are always kept. It is idempotent: each reconcile
// deletes whatever is still there.
func (r *BenchmarkRunReconciler) cleanup(ctx context.Context, s *runState) error {
	run := s.run
	switch run.Spec.Cleanup {
	case benchv1.CleanupRetain:
		return nil
	case benchv1.CleanupRetainOnFailure:
		if run.Status.Phase == benchv1.RunFailed {
			return nil
		}
	}
	if topology.External(run) {
		if done, err := r.dropDatabase(ctx, s); err != nil || !done {
			return err
		}
	}
	var objs []client.Object
	for _, p := range s.pods {
		if p.Labels[benchv1.LabelDatabase] == "true" {
			objs = append(objs, p)
		}
	}
	for _, j := range s.jobs {
		// The drop's Job stays, evidence of what cleanup did to the
		// user's cluster (and, gone, it would be run again); it goes with
		// the run.
		if j.Name != topology.DropDatabaseJobName(run) {
			objs = append(objs, j)
		}
	}
	for _, c := range s.configMaps {
		if !kept(run, c) {
			objs = append(objs, c)
		}
	}
	for _, v := range s.services {
		objs = append(objs, v)
	}
	for _, c := range s.claims {
		objs = append(objs, c)
	}
	for _, o := range s.roleBindings {
		objs = append(objs, o)
	}
	for _, o := range s.roles {
		objs = append(objs, o)
	}
	for _, o := range s.serviceAccounts {
		objs = append(objs, o)
	}
	// The fence goes with the database pods it guards (a retained run
	// keeps both).
	for _, o := range s.networkPolicies {
		objs = append(objs, o)
	}
	// So do the keyfile and the passwords (security.auth): a retained
	// run keeps them with its pods, which need them to be of any use.
	for _, o := range s.secrets {
		objs = append(objs, o)
	}
	if len(objs) == 0 {
		return nil
	}
	// Background propagation: a Job's pods go with it.
	bg := client.PropagationPolicy(metav1.DeletePropagationBackground)
	deleted := 0
	for _, o := range objs {
		if o.GetDeletionTimestamp() != nil {
			continue
		}
		if err := r.Delete(ctx, o, bg); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("clean up %T %s: %w", o, o.GetName(), err)
		}
		deleted++
	}
	if deleted > 0 {
		s.eventf(benchv1.EventCleanedUp, "deleted %d objects of the run (cleanup: %s); results stay in status, evidence in %s",
			deleted, run.Spec.Cleanup, topology.DiagnosticsConfigMapName(run))
	}
	return nil
}

// kept reports whether a ConfigMap of the run outlives its cleanup: the
// diagnostics, and each phase's telemetry and histograms (by name and
// component, so that a loader's result ConfigMap whose name happens to
// match is not kept).
func kept(run *benchv1.BenchmarkRun, cm *corev1.ConfigMap) bool {
	if cm.Name == topology.DiagnosticsConfigMapName(run) {
		return true
	}
	var name func(*benchv1.BenchmarkRun, string) string
	switch cm.Labels[benchv1.LabelComponent] {
	case benchv1.ComponentTelemetry:
		name = topology.TelemetryConfigMapName
	case benchv1.ComponentHistograms:
		name = topology.HistogramsConfigMapName
	default:
		return false
	}
	for _, ph := range run.Spec.Phases {
		if cm.Name == name(run, ph.Name) {
			return true
		}
	}
	return false
}
