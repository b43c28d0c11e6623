package controllers

// This file is the status kit both reconcilers use, after fluxcd/pkg's
// runtime/conditions and runtime/patch: a reconcile's conditions (one
// truncation rule, the reconciler's injected Clock, observedGeneration),
// its events and their log lines, and the one status patch at its end.

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// statusObject is a kind the kit serves.
type statusObject interface {
	*benchv1.BenchmarkRun | *benchv1.BenchmarkSweep
	client.Object
}

// statusKit is what one reconcile of a run or a sweep keeps besides the
// status fields its steps edit: the object as read (to patch against),
// the reconcile's time, and the events to record once the status that
// explains them is stored. The reconcile's state embeds it.
type statusKit[T statusObject] struct {
	obj    T
	before T
	// now is the reconcile's time, read once from the reconciler's Clock:
	// every condition and timestamp the reconcile writes carries it.
	now    time.Time
	events []event
}

// event is an event to record once the status is stored.
type event struct {
	warning bool
	reason  benchv1.Reason
	message string
}

// newStatusKit starts a reconcile's kit on obj as read, at now (the
// reconciler's Clock.Now()).
func newStatusKit[T statusObject](obj T, now time.Time) statusKit[T] {
	return statusKit[T]{obj: obj, before: obj.DeepCopyObject().(T), now: now} //nolint:forcetypeassert // DeepCopyObject keeps the type
}

// statusFields points at the parts of a status the kit keeps. The two
// kinds' statuses have them under the same names, not in a shared type.
type statusFields struct {
	kind               string // the object's key in logs
	status             any    // the whole status, to tell whether it changed
	conditions         *[]metav1.Condition
	observedGeneration *int64
	lifecycle          string // status.phase
	// lifecycleLog is what a log line of a change of status.phase adds.
	lifecycleLog []any
}

// statusOf points into obj's status. The switch covers every type
// statusObject admits; a third kind adds its case here.
func statusOf[T statusObject](obj T) statusFields {
	switch o := any(obj).(type) {
	case *benchv1.BenchmarkRun:
		return statusFields{kind: "run", status: &o.Status, conditions: &o.Status.Conditions, observedGeneration: &o.Status.ObservedGeneration,
			lifecycle: string(o.Status.Phase), lifecycleLog: []any{"reason", lifecycleReason(o)}}
	case *benchv1.BenchmarkSweep:
		return statusFields{kind: "sweep", status: &o.Status, conditions: &o.Status.Conditions, observedGeneration: &o.Status.ObservedGeneration,
			lifecycle: string(o.Status.Phase)}
	}
	panic(fmt.Sprintf("statusOf(%T): not a kind of the status kit", obj)) // statusObject admits no other type
}

// setCondition sets a condition of the object. Its transition time moves,
// to the reconcile's time, only when its status does; its message is cut
// to maxConditionMessage bytes.
func (k *statusKit[T]) setCondition(typ string, status metav1.ConditionStatus, reason benchv1.Reason, message string) {
	meta.SetStatusCondition(statusOf(k.obj).conditions, metav1.Condition{
		Type: typ, Status: status, Reason: string(reason), Message: conditionMessage(message),
		ObservedGeneration: k.obj.GetGeneration(), LastTransitionTime: metav1.NewTime(k.now),
	})
}

// eventf records a Normal event once the status is stored.
func (k *statusKit[T]) eventf(reason benchv1.Reason, format string, args ...any) {
	k.events = append(k.events, event{reason: reason, message: fmt.Sprintf(format, args...)})
}

// warnf records a Warning event once the status is stored.
func (k *statusKit[T]) warnf(reason benchv1.Reason, format string, args ...any) {
	k.events = append(k.events, event{warning: true, reason: reason, message: fmt.Sprintf(format, args...)})
}

// conflictRequeue is how soon a reconcile whose status patch conflicted
// runs again, should no watch event come first.
const conflictRequeue = time.Second

// patchStatus ends a reconcile; Reconcile defers it with its own result:
//
//	defer func() { res, retErr = s.patchStatus(ctx, r.Client, r.Recorder, res, retErr) }()
//
// A reconcile that succeeded has observed the object's generation. The
// status is patched once, and only when it changed, with an optimistic
// lock: a conflict (often our own previous patch, not yet in the cache)
// is no error, since the watch event of that change brings a fresh copy
// and the steps are idempotent; it requeues quietly. An object deleted
// meanwhile needs nothing more: its children go with it. Only a stored
// status is followed by the log of a change of status.phase and by the
// events, which it explains.
func (k *statusKit[T]) patchStatus(ctx context.Context, c client.StatusClient, rec events.EventRecorder,
	res ctrl.Result, retErr error,
) (ctrl.Result, error) {
	st := statusOf(k.obj)
	key := client.ObjectKeyFromObject(k.obj).String()
	log := logf.FromContext(ctx).WithValues(st.kind, key)
	was := statusOf(k.before)
	if retErr == nil {
		*st.observedGeneration = k.obj.GetGeneration()
	}
	if !equality.Semantic.DeepEqual(was.status, st.status) {
		patch := client.MergeFromWithOptions(k.before, client.MergeFromWithOptimisticLock{})
		if err := c.Status().Patch(ctx, k.obj, patch); err != nil {
			switch {
			case apierrors.IsNotFound(err):
				return res, retErr
			case apierrors.IsConflict(err) && retErr == nil:
				log.V(1).Info("status patch conflicted; reconciling again", "phase", was.lifecycle)
				return ctrl.Result{RequeueAfter: conflictRequeue}, nil
			}
			// Never a result together with an error: controller-runtime
			// ignores the result then, and says so in a warning.
			return ctrl.Result{}, errors.Join(retErr, fmt.Errorf("patch status of %s: %w", key, err))
		}
	}
	if st.lifecycle != was.lifecycle {
		log.Info(st.kind+" phase changed", append([]any{"phase", st.lifecycle, "from", was.lifecycle}, st.lifecycleLog...)...)
	}
	for _, e := range k.events {
		k.record(ctx, rec, e)
	}
	return res, retErr
}

// record emits an event for the object and logs it: events are what
// `kubectl describe` shows, the log is what an operator's log pipeline
// keeps. The message is cut to the API's limit for events.
func (k *statusKit[T]) record(ctx context.Context, rec events.EventRecorder, e event) {
	typ := corev1.EventTypeNormal
	if e.warning {
		typ = corev1.EventTypeWarning
	}
	msg := eventMessage(e.message)
	rec.Eventf(k.obj, nil, typ, string(e.reason), "Reconcile", "%s", msg)
	st := statusOf(k.obj)
	logf.FromContext(ctx).Info("event", st.kind, client.ObjectKeyFromObject(k.obj).String(), "phase", st.lifecycle,
		"reason", e.reason, "type", typ, "message", msg)
}
