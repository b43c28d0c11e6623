package controllers

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/topology"
)

// BenchmarkRunReconciler provisions a run's MongoDB topology, runs its phases
// as loader Jobs and merges their results into status. It talks only to the
// Kubernetes API: every MongoDB command runs in a Job in the run's namespace.
type BenchmarkRunReconciler struct {
	client.Client
	// APIReader reads objects the manager does not cache (Nodes).
	APIReader client.Reader
	// Logs reads container logs for a failed run's diagnostics (the
	// pods/log subresource); nil keeps the diagnostics without logs.
	Logs     LogReader
	Scheme   *runtime.Scheme
	Recorder events.EventRecorder
	Clock    clock.PassiveClock

	Topology topology.Config
	Limits   Limits
	// Environment is recorded into every run's status.environment.
	Environment Environment
	// MaxConcurrentReconciles bounds how many runs are reconciled at once.
	MaxConcurrentReconciles int
}

// +kubebuilder:rbac:groups=bench.mongobench.io,resources=benchmarkruns,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=bench.mongobench.io,resources=benchmarkruns/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=bench.mongobench.io,resources=benchmarkruns/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=pods;services;persistentvolumeclaims;serviceaccounts,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups="",resources=pods/log,verbs=get
// +kubebuilder:rbac:groups="",resources=pods/ephemeralcontainers,verbs=update
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=roles;rolebindings,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups=networking.k8s.io,resources=networkpolicies,verbs=get;list;watch;create;delete

// step is one stage of a reconcile. It returns false when the run must wait
// (for a child to change, or for s.requeue) before later steps make sense.
type step func(ctx context.Context, s *runState) (proceed bool, err error)

// Reconcile observes a run's children, derives status from them, creates
// what is missing, and patches status once at the end.
func (r *BenchmarkRunReconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, retErr error) {
	run := &benchv1.BenchmarkRun{}
	if err := r.Get(ctx, req.NamespacedName, run); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !run.DeletionTimestamp.IsZero() {
		// Owner references garbage-collect every child.
		return ctrl.Result{}, nil
	}
	s, err := r.observe(ctx, run)
	if err != nil {
		return ctrl.Result{}, err
	}
	// One status patch, at the end; events only after it is stored.
	defer func() { res, retErr = s.patchStatus(ctx, r.Client, r.Recorder, res, retErr) }()

	if terminal(s.before) {
		// Destructive cleanup only ever follows a terminal state that is
		// already stored: acting on one that a conflicting status patch
		// then fails to store would delete a live run's pods. The evidence
		// is kept first, whatever the cleanup policy.
		if err := r.storeDiagnostics(ctx, s); err != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{}, r.cleanup(ctx, s)
	}
	steps := []step{
		r.start, r.checkTimeout, // the run's clock
		r.ensureIdentity, r.preflight, r.ensureClaims, r.placePods, r.checkPods, // MongoDB pods on one node
		r.bootstrap,                    // replica sets, shards, collection
		r.disruptPods, r.disruptPauses, // pods a disruption deletes or freezes
		r.watchTopology,        // a topology that must not change otherwise
		r.recordEnvironment,    // what the numbers come from
		r.runPhases, r.succeed, // spec.phases and the merged results
	}
	if topology.External(run) {
		steps = r.externalSteps()
	}
	for _, st := range steps {
		proceed, err := st(ctx, s)
		if err != nil {
			return ctrl.Result{}, err
		}
		if !proceed || terminal(run) {
			break
		}
	}
	if terminal(run) {
		// The status update that stores it triggers the cleanup reconcile.
		return ctrl.Result{}, nil
	}
	return ctrl.Result{RequeueAfter: s.requeue}, nil
}

// lifecycleReason is the reason of the condition that best explains the
// run's status.phase, for logs.
func lifecycleReason(run *benchv1.BenchmarkRun) string {
	for _, t := range []string{benchv1.ConditionFailed, benchv1.ConditionComplete, benchv1.ConditionTopologyReady} {
		if c := meta.FindStatusCondition(run.Status.Conditions, t); c != nil && (c.Status == metav1.ConditionTrue || t == benchv1.ConditionTopologyReady) {
			return c.Reason
		}
	}
	return ""
}

// start records the start of a run.
func (r *BenchmarkRunReconciler) start(_ context.Context, s *runState) (bool, error) {
	st := &s.run.Status
	if st.StartTime == nil {
		now := metav1.NewTime(s.now)
		st.StartTime = &now
		s.setCondition(benchv1.ConditionTopologyReady, metav1.ConditionFalse, benchv1.ReasonProvisioning, "creating the MongoDB pods")
		if topology.External(s.run) {
			s.setCondition(benchv1.ConditionTopologyReady, metav1.ConditionFalse, benchv1.ReasonProvisioning, "checking the external cluster's Secrets")
		}
		s.setCondition(benchv1.ConditionComplete, metav1.ConditionFalse, benchv1.ReasonRunning, "the run has not finished")
		s.setCondition(benchv1.ConditionFailed, metav1.ConditionFalse, benchv1.ReasonRunning, "the run has not failed")
	}
	// Pending until the first database pod has a node (provision).
	s.setLifecycle(benchv1.RunPending)
	return true, nil
}

// checkTimeout fails a run that outlived spec.timeout.
func (r *BenchmarkRunReconciler) checkTimeout(_ context.Context, s *runState) (bool, error) {
	if s.run.Spec.Timeout == nil || s.run.Status.StartTime == nil {
		return true, nil
	}
	deadline := s.run.Status.StartTime.Add(s.run.Spec.Timeout.Duration)
	if left := deadline.Sub(s.now); left > 0 {
		s.wakeAfter(left)
		return true, nil
	}
	where := string(s.run.Status.Phase)
	if s.run.Status.CurrentPhase != "" {
		where += " (phase " + s.run.Status.CurrentPhase + ")"
	}
	s.fail(benchv1.ReasonTimeout, "the run exceeded its timeout of %s while %s", s.run.Spec.Timeout.Duration, where)
	return false, nil
}

// succeed completes a run whose phases all have results.
func (r *BenchmarkRunReconciler) succeed(ctx context.Context, s *runState) (bool, error) {
	if len(s.run.Status.Results) < len(s.run.Spec.Phases) {
		return false, nil
	}
	s.setLifecycle(benchv1.RunSucceeded)
	s.run.Status.CurrentPhase = ""
	now := metav1.NewTime(s.now)
	s.run.Status.CompletionTime = &now
	s.setCondition(benchv1.ConditionComplete, metav1.ConditionTrue, benchv1.ReasonSucceeded, fmt.Sprintf("all %d phases finished", len(s.run.Spec.Phases)))
	s.setCondition(benchv1.ConditionFailed, metav1.ConditionFalse, benchv1.ReasonSucceeded, "the run succeeded")
	if !judgeValidity(s) && s.run.Spec.Compare != nil {
		invalidComparison(s)
		return true, nil
	}
	return true, r.compareResults(ctx, s)
}

// create creates a child and treats AlreadyExists as success: names are
// deterministic, so a retry or a restarted manager never duplicates work.
func (r *BenchmarkRunReconciler) create(ctx context.Context, obj client.Object) error {
	if err := r.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create %T %s: %w", obj, obj.GetName(), err)
	}
	return nil
}

// SetupWithManager registers the controller. No GenerationChangedPredicate:
// the run's status and its Jobs' and pods' status changes drive progress.
func (r *BenchmarkRunReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	if r.Limits == (Limits{}) {
		r.Limits = DefaultLimits
	}
	// Pods of loader Jobs and result ConfigMaps are not owned by the run
	// directly (the Job and the loader create them): map them by label.
	byRunLabel := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, obj client.Object) []reconcile.Request {
		run := obj.GetLabels()[benchv1.LabelRun]
		if run == "" {
			return nil
		}
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: run}}}
	})
	managed := builder.WithPredicates(predicate.NewPredicateFuncs(func(obj client.Object) bool {
		return obj.GetLabels()[benchv1.LabelManagedBy] == benchv1.ManagedBy
	}))
	if err := ctrl.NewControllerManagedBy(mgr).
		For(&benchv1.BenchmarkRun{}).
		Owns(&batchv1.Job{}).
		Owns(&corev1.Service{}).
		Owns(&corev1.PersistentVolumeClaim{}).
		// A deleted NetworkPolicy is re-created at once, not at the next
		// unrelated event: the fence must not stay open.
		Owns(&networkingv1.NetworkPolicy{}).
		Watches(&corev1.Pod{}, byRunLabel, managed).
		Watches(&corev1.ConfigMap{}, byRunLabel, managed).
		WithOptions(controllerOptions(r.MaxConcurrentReconciles)).
		Named("benchmarkrun").
		Complete(r); err != nil {
		return fmt.Errorf("set up benchmarkrun controller: %w", err)
	}
	return nil
}
