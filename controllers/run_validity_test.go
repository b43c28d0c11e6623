package controllers_test

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// TestValidCondition: every finished run says whether it is valid. The
// test's loaders report errors (loader i fails i calls of each operation),
// so three loaders fail 3 of ~1,500 calls per phase, 0.2%: above the
// default validity.maxErrorPercent of 0.1, below a threshold of 1. A run
// gated against a baseline while invalid gets the verdict Invalid, never a
// pass nor a regression; an invalid run is no baseline either; a failed
// run is invalid.
func TestValidCondition(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	stop := k.autopilot()
	defer stop()

	noisy := k.succeed(newRun("noisy", benchv1.TopologyStandalone, 0, 3))
	c := cond(noisy, benchv1.ConditionValid)
	if c == nil || c.Status != metav1.ConditionFalse || c.Reason != string(benchv1.ReasonTooManyErrors) ||
		!strings.HasPrefix(c.Message, "phase load: 0.") || !strings.Contains(c.Message, "above validity.maxErrorPercent 0.1%") ||
		!strings.Contains(c.Message, "not checked: restarts, elections, cache size and connection limit (no telemetry in phase load, S2, S5)") {
		t.Fatalf("noisy: %+v", c)
	}
	k.assertPrinterColumns("noisy", "Succeeded", "False") // VALID

	tolerant := newRun("tolerant", benchv1.TopologyStandalone, 0, 3)
	tolerant.Spec.Validity.MaxErrorPercent = ptr.To(1.0)
	tolerant = k.succeed(tolerant)
	if c := cond(tolerant, benchv1.ConditionValid); c == nil || c.Status != metav1.ConditionTrue || c.Reason != string(benchv1.ReasonValid) ||
		!strings.HasPrefix(c.Message, "no check failed") {
		t.Fatalf("tolerant: %+v", c)
	}

	s2 := []benchv1.CompareMetric{{Phase: "S2", Metric: benchv1.MetricThroughput}}
	gatedNoisy := newRun("gated-noisy", benchv1.TopologyStandalone, 0, 3)
	gatedNoisy.Spec.Compare = &benchv1.CompareSpec{Baseline: benchv1.CompareBaseline{RunRef: "tolerant"}, Metrics: s2}
	r := k.succeed(gatedNoisy)
	if c := cond(r, benchv1.ConditionRegressed); c == nil || c.Status != metav1.ConditionUnknown || c.Reason != string(benchv1.ReasonRunInvalid) ||
		len(r.Status.Comparison) != 1 || r.Status.Comparison[0].Verdict != benchv1.VerdictInvalid || r.Status.Comparison[0].Current <= 0 {
		t.Fatalf("gated while invalid: %+v %+v", c, r.Status.Comparison)
	}

	againstNoisy := newRun("vs-noisy", benchv1.TopologyStandalone, 0, 3)
	againstNoisy.Spec.Validity.MaxErrorPercent = ptr.To(1.0)
	againstNoisy.Spec.Compare = &benchv1.CompareSpec{Baseline: benchv1.CompareBaseline{RunRef: "noisy"}, Metrics: s2}
	r = k.succeed(againstNoisy)
	if c := cond(r, benchv1.ConditionRegressed); c == nil || c.Status != metav1.ConditionUnknown ||
		c.Message != "baseline run noisy is not valid (TooManyErrors)" {
		t.Fatalf("against an invalid baseline: %+v", c)
	}

	// A failed run: the pod of its database never gets scheduled.
	failing := newRun("nodeless", benchv1.TopologyStandalone, 0, 1)
	failing.Spec.Placement.NodeName = "no-such-node"
	k.create(failing)
	f := k.waitLifecycle("nodeless", benchv1.RunFailed)
	if c := cond(f, benchv1.ConditionValid); c == nil || c.Status != metav1.ConditionFalse || c.Reason != string(benchv1.ReasonRunFailed) {
		t.Fatalf("failed run: %+v", c)
	}
}
