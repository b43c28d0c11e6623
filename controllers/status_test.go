package controllers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// Unit tests of the status kit, for both kinds. The kit's use by the
// reconcilers, with a fake clock, is tested against a real API server in
// status_envtest_test.go.

var (
	kitT0 = time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC)
	kitT1 = kitT0.Add(90 * time.Minute)
)

// TestSetCondition: a condition of either kind carries the reconcile's
// time, the object's generation and a message cut to maxConditionMessage
// bytes; its transition time moves only when its status does.
func TestSetCondition(t *testing.T) {
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Generation: 3}}
	checkSetCondition(t, run, &run.Status.Conditions)
	sw := &benchv1.BenchmarkSweep{ObjectMeta: metav1.ObjectMeta{Generation: 3}}
	checkSetCondition(t, sw, &sw.Status.Conditions)
}

func checkSetCondition[T statusObject](t *testing.T, obj T, conds *[]metav1.Condition) {
	t.Helper()
	long := strings.Repeat("é", maxConditionMessage) // two bytes a rune: twice the limit
	k := newStatusKit(obj, kitT0)
	k.setCondition(benchv1.ConditionComplete, metav1.ConditionFalse, benchv1.ReasonRunning, long)
	c := meta.FindStatusCondition(*conds, benchv1.ConditionComplete)
	if c == nil {
		t.Fatalf("%T: no condition", obj)
	}
	if !c.LastTransitionTime.Time.Equal(kitT0) || c.ObservedGeneration != 3 {
		t.Errorf("%T: lastTransitionTime %v, observedGeneration %d; want %v, 3", obj, c.LastTransitionTime, c.ObservedGeneration, kitT0)
	}
	if len(c.Message) > maxConditionMessage || !strings.HasSuffix(c.Message, ellipsis) || !utf8.ValidString(c.Message) {
		t.Errorf("%T: a %d-byte message became %d bytes, valid UTF-8 %t, ending %q", obj, len(long), len(c.Message),
			utf8.ValidString(c.Message), c.Message[len(c.Message)-6:])
	}

	k = newStatusKit(obj, kitT1)
	k.setCondition(benchv1.ConditionComplete, metav1.ConditionFalse, benchv1.ReasonRunning, "same status")
	if c := meta.FindStatusCondition(*conds, benchv1.ConditionComplete); !c.LastTransitionTime.Time.Equal(kitT0) || c.Message != "same status" {
		t.Errorf("%T: same status: lastTransitionTime %v, message %q; want %v, the new message", obj, c.LastTransitionTime, c.Message, kitT0)
	}
	k.setCondition(benchv1.ConditionComplete, metav1.ConditionTrue, benchv1.ReasonSucceeded, "done")
	if c := meta.FindStatusCondition(*conds, benchv1.ConditionComplete); !c.LastTransitionTime.Time.Equal(kitT1) {
		t.Errorf("%T: new status: lastTransitionTime %v, want %v", obj, c.LastTransitionTime, kitT1)
	}
}

// TestPatchStatus: the deferred end of a reconcile, for both kinds and for
// each answer of the API server to the status patch.
func TestPatchStatus(t *testing.T) {
	checkPatchStatus(t, &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns", Generation: 2}})
	checkPatchStatus(t, &benchv1.BenchmarkSweep{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", Generation: 2}})
}

func checkPatchStatus[T statusObject](t *testing.T, stored T) {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := benchv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	stepFailed := errors.New("a step failed")
	gr := schema.GroupResource{Group: benchv1.GroupVersion.Group, Resource: "objects"}
	conflict := apierrors.NewConflict(gr, "x", errors.New("modified"))
	requeue := ctrl.Result{RequeueAfter: time.Minute} // what the steps asked for
	for _, tc := range []struct {
		name     string
		observed bool  // the stored status has observed the generation already
		edit     bool  // the steps set a condition
		retErr   error // the steps' error
		patchErr error // the API server's answer to the patch
		wantRes  ctrl.Result
		wantErr  string // the error's start, "" for none
		// wantPatch: a patch is sent; wantStored: the condition is stored,
		// with observedGeneration unless retErr.
		wantPatch, wantStored bool
		wantEvents            int
	}{
		{name: "stored", edit: true, wantRes: requeue, wantPatch: true, wantStored: true, wantEvents: 1},
		{name: "unchanged: no patch, the events still", observed: true, wantRes: requeue, wantEvents: 1},
		{name: "a step failed: stored, without observedGeneration", edit: true, retErr: stepFailed,
			wantErr: "a step failed", wantPatch: true, wantStored: true, wantEvents: 1},
		{name: "conflict: a quiet requeue, no events", edit: true, patchErr: conflict,
			wantRes: ctrl.Result{RequeueAfter: conflictRequeue}, wantPatch: true},
		{name: "conflict after a failed step: both errors, no result", edit: true, retErr: stepFailed, patchErr: conflict,
			wantErr: "a step failed\npatch status of ns/", wantPatch: true},
		{name: "deleted meanwhile: nothing more", edit: true, patchErr: apierrors.NewNotFound(gr, "x"),
			wantRes: requeue, wantPatch: true},
		{name: "another error: returned, no result", edit: true, patchErr: apierrors.NewServiceUnavailable("busy"),
			wantErr: "patch status of ns/", wantPatch: true},
	} {
		t.Run(fmt.Sprintf("%T %s", stored, tc.name), func(t *testing.T) {
			initial := stored.DeepCopyObject().(T) //nolint:forcetypeassert // DeepCopyObject keeps the type
			if tc.observed {
				*statusOf(initial).observedGeneration = initial.GetGeneration()
			}
			patched := false
			c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(initial).WithStatusSubresource(initial).
				WithInterceptorFuncs(interceptor.Funcs{SubResourcePatch: func(ctx context.Context, c client.Client, sub string,
					obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption,
				) error {
					patched = true
					if tc.patchErr != nil {
						return tc.patchErr
					}
					return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
				}}).Build()
			read := func() T {
				obj := stored.DeepCopyObject().(T) //nolint:forcetypeassert // DeepCopyObject keeps the type
				if err := c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
					t.Fatal(err)
				}
				return obj
			}

			obj := read()
			k := newStatusKit(obj, kitT0)
			if tc.edit {
				k.setCondition(benchv1.ConditionComplete, metav1.ConditionFalse, benchv1.ReasonRunning, "not yet")
			}
			k.eventf(benchv1.ReasonRunning, "event %d", 1)
			rec := events.NewFakeRecorder(10)
			in := requeue
			if tc.retErr != nil {
				in = ctrl.Result{} // as the reconcilers return an error
			}
			res, err := k.patchStatus(context.Background(), c, rec, in, tc.retErr)

			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.wantErr)) {
				t.Errorf("error %v, want one starting %q", err, tc.wantErr)
			}
			if res != tc.wantRes {
				t.Errorf("result %+v, want %+v", res, tc.wantRes)
			}
			if patched != tc.wantPatch {
				t.Errorf("patched %t, want %t", patched, tc.wantPatch)
			}
			if len(rec.Events) != tc.wantEvents {
				t.Errorf("%d events recorded, want %d", len(rec.Events), tc.wantEvents)
			}
			got := statusOf(read())
			if stored := len(*got.conditions) > 0; stored != (tc.wantStored && tc.edit) {
				t.Errorf("condition stored %t, want %t", stored, tc.wantStored && tc.edit)
			}
			wantObserved := tc.observed || tc.wantStored && tc.retErr == nil
			if observed := *got.observedGeneration == stored.GetGeneration(); observed != wantObserved {
				t.Errorf("observedGeneration %d of generation %d: observed %t, want %t", *got.observedGeneration, stored.GetGeneration(),
					observed, wantObserved)
			}
		})
	}
}
