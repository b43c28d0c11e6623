package controllers_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/topology"
)

// disruptedRun is a three-member ReplicaSet run of two loaders whose Run
// phase steps the primary down at `at`.
func disruptedRun(name string, at time.Duration) *benchv1.BenchmarkRun {
	run := newRun(name, benchv1.TopologyReplicaSet, 0, 2)
	run.Spec.Topology.Members = ptr.To[int32](3)
	run.Spec.Phases = run.Spec.Phases[:2]
	run.Spec.Phases[1].Disruptions = []benchv1.Disruption{{At: metav1.Duration{Duration: at}, Action: benchv1.DisruptionStepDown}}
	return run
}

// TestDisruptionsReachStatus: the loaders' measurements of a StepDown,
// written into their result ConfigMaps as the loaders do, become
// status.results[].disruptions (maximum and median over the loaders, the
// actor's outcome, errors by label, retries, before and after), its
// series stays in the histograms ConfigMap, and the election telemetry saw
// within its stretch is planned: it does not count, and Valid says so. The
// same election seen before a later StepDown was sent is not planned.
func TestDisruptionsReachStatus(t *testing.T) { //nolint:gocyclo // one scenario, field by field
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	stop := k.autopilotWith(autopilotOptions{holdPhases: true})
	defer stop()
	// telemetryPayload: member rs-rs0-1 sees a new electionId in its
	// sample at +4 s; loader 0's window starts at +0 s (loaderResult).
	early := k.create(disruptedRun("dis-early", 2*time.Second))
	late := k.create(disruptedRun("dis-late", 4500*time.Millisecond))
	for _, run := range []*benchv1.BenchmarkRun{early, late} {
		k.waitLifecycle(run.Name, benchv1.RunLoading)
		for _, ph := range run.Spec.Phases {
			job := k.job(topology.PhaseJobName(run, ph.Name))
			args := strings.Join(job.Spec.Template.Spec.Containers[0].Args, " ")
			if has := strings.Contains(args, "--"+contract.FlagDisruption); has != (len(ph.Disruptions) > 0) {
				t.Errorf("%s phase %s: --disruption passed %v: %s", run.Name, ph.Name, has, args)
			}
			k.finishPhaseWith(run, ph, encodeTelemetry(t, telemetryPayload(run)))
		}
	}

	r := k.waitLifecycle("dis-early", benchv1.RunSucceeded)
	res := r.Status.Results[1]
	if len(res.Disruptions) != 1 || len(r.Status.Results[0].Disruptions) != 0 {
		t.Fatalf("disruptions %+v, load phase %+v", res.Disruptions, r.Status.Results[0].Disruptions)
	}
	d := res.Disruptions[0]
	instant := time.Date(2026, 11, 1, 10, 0, 2, 0, time.UTC) // loader 0's window start + at
	if d.Index != 0 || d.Action != benchv1.DisruptionStepDown || d.At.Duration != 2*time.Second || !d.Instant.Time.Equal(instant) {
		t.Errorf("disruption %d %s at %v, instant %v", d.Index, d.Action, d.At.Duration, d.Instant)
	}
	o := d.Outcome
	if o.State != benchv1.DisruptionDone || o.Sent == nil || !o.Sent.Time.Equal(instant) || o.DurationMicros == nil || *o.DurationMicros != 800_000 ||
		o.Primary != "rs-rs0-0.rs-db:27017" || o.Error != "" {
		t.Errorf("outcome %+v", o)
	}
	// Loader 0 recovered writes after 1 s, loader 1 after 1.25 s.
	for name, tc := range map[string]struct {
		got  *benchv1.LoaderTimes
		want benchv1.LoaderTimes
	}{
		"writes":      {d.WriteUnavailable, benchv1.LoaderTimes{MaxMicros: 1_250_000, MedianMicros: 1_125_000, Loaders: 2}},
		"reads":       {d.ReadUnavailable, benchv1.LoaderTimes{MaxMicros: 500_000, MedianMicros: 450_000, Loaders: 2}},
		"new primary": {d.NewPrimary, benchv1.LoaderTimes{MaxMicros: 900_000, MedianMicros: 900_000, Loaders: 2}},
	} {
		if tc.got == nil || *tc.got != tc.want {
			t.Errorf("%s: %+v, want %+v", name, tc.got, tc.want)
		}
	}
	if d.NewPrimaryTelemetryMicros == nil || *d.NewPrimaryTelemetryMicros != 2_000_000 {
		t.Errorf("new primary from telemetry after %v µs, want 2 s (the sample at +4 s)", d.NewPrimaryTelemetryMicros)
	}
	wantErrs := []benchv1.DisruptionErrorCount{{Label: "NotWritablePrimary", Count: 15}, {Label: "NetworkError", Count: 1}}
	if !reflect.DeepEqual(d.Errors, wantErrs) || d.Retried != 4 || d.RetriedOK != 2 {
		t.Errorf("errors %+v, retried %d/%d", d.Errors, d.Retried, d.RetriedOK)
	}
	// The phase's 1 s series has one point ([0 s, 1 s)): before the
	// instant it is whole, after [3.5 s, 5 s) none is.
	if d.Before == nil || d.Before.Millis != 1000 || d.Before.Throughput != res.TimeSeries.Throughput[0] || d.After != nil {
		t.Errorf("before %+v, after %+v (series %+v)", d.Before, d.After, res.TimeSeries)
	}
	var planned int32
	for _, srv := range res.Server {
		planned += srv.PlannedPrimaryChanges
		if srv.PlannedPrimaryChanges != srv.PrimaryChanges {
			t.Errorf("%s: %d primary changes, %d planned", srv.Pod, srv.PrimaryChanges, srv.PlannedPrimaryChanges)
		}
	}
	if planned != 1 {
		t.Errorf("%d planned primary changes, want rs-rs0-1's one", planned)
	}
	// The harness' loaders fail a few calls and its telemetry has a
	// cache that changes size, so the run is invalid whatever happens;
	// what matters is what Valid says of the elections: the load phase,
	// without disruptions, saw the same election and it counts there.
	if c := cond(r, benchv1.ConditionValid); c == nil ||
		!strings.Contains(c.Message, "phase S2: 1 planned change(s) of replica set rs0's primary, caused by the phase's 1 disruption(s), not counted") ||
		strings.Contains(c.Message, "phase S2: replica set rs0 changed primary") || !strings.Contains(c.Message, "phase load: replica set rs0 changed primary") {
		t.Errorf("Valid %+v", c)
	}
	// The 100 ms series is kept with the merged histograms, both loaders'.
	cm := &corev1.ConfigMap{}
	if err := k.c.Get(k.ctx(), types.NamespacedName{Namespace: k.ns, Name: res.Histograms}, cm); err != nil {
		t.Fatal(err)
	}
	m, err := results.DecodeMerged(cm.BinaryData[contract.ConfigMapKey])
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Disruptions) != 1 || len(m.Disruptions[0].Loaders) != 2 || m.Disruptions[0].Series.IntervalMillis != 100 ||
		len(m.Disruptions[0].Series.Points) != 20 || m.Disruptions[0].Series.Points[10].Count() != 20 || m.Disruptions[0].Series.Points[10].Ops[0].Failed != 4 {
		t.Errorf("kept disruptions %+v", m.Disruptions)
	}
	k.assertHistograms(r)

	// The late StepDown was sent after the election: not planned.
	r = k.waitLifecycle("dis-late", benchv1.RunSucceeded)
	if c := cond(r, benchv1.ConditionValid); c == nil || c.Status != metav1.ConditionFalse ||
		!strings.Contains(c.Message, "phase S2: replica set rs0 changed primary during the measured window") || strings.Contains(c.Message, "planned") {
		t.Errorf("Valid %+v, want phase S2's election counted, none planned", c)
	}
	if d := r.Status.Results[1].Disruptions[0]; d.NewPrimaryTelemetryMicros != nil {
		t.Errorf("late: new primary from telemetry %d µs, want none", *d.NewPrimaryTelemetryMicros)
	}
}

// ledger is the ConfigMap loader 0 creates before it sends disruption i
// of a phase's Job, owned and labelled like its result.
func (k *cluster) ledger(run *benchv1.BenchmarkRun, jobName string, i int, owner types.UID) *corev1.ConfigMap {
	k.t.Helper()
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: contract.DisruptionLedgerName(jobName, i), Namespace: k.ns,
			Labels: map[string]string{benchv1.LabelManagedBy: benchv1.ManagedBy, benchv1.LabelRun: run.Name, benchv1.LabelName: benchv1.AppName}},
		Data: map[string]string{contract.DisruptionActionKey: "StepDown", contract.DisruptionSentKey: "2026-11-01T10:00:02Z",
			contract.DisruptionActorKey: jobName + "-0-abcde"},
	}
	if owner != "" {
		cm.OwnerReferences = []metav1.OwnerReference{{APIVersion: benchv1.GroupVersion.String(), Kind: "BenchmarkRun", Name: run.Name, UID: owner,
			Controller: ptr.To(true)}}
	}
	if err := k.c.Create(k.ctx(), cm); err != nil {
		k.t.Fatal(err)
	}
	return cm
}

// TestDisruptionLedgersAcrossRestarts: a StepDown runs once. A manager
// restarted mid-phase, once loader 0 has written its ledger, and again
// once it recorded the outcome, recreates nothing (the phase's Job, whose
// pods would act again, keeps its UID), leaves the ledger alone, and
// merges the phase; cleanup deletes the ledger with the run's other
// ConfigMaps.
func TestDisruptionLedgersAcrossRestarts(t *testing.T) {
	k := newCluster(t)
	m := startManager(t, &counters{}, testLimits)
	stop := k.autopilotWith(autopilotOptions{holdPhases: true})
	defer stop()
	run := k.create(disruptedRun("dis-restart", 2*time.Second))
	k.waitLifecycle(run.Name, benchv1.RunLoading)
	k.finishPhase(run, run.Spec.Phases[0])
	name := topology.PhaseJobName(run, "S2")
	job := k.job(name)
	led := k.ledger(run, name, 0, run.UID)

	same := func(step string) {
		t.Helper()
		var jobs batchv1.JobList
		if err := k.c.List(k.ctx(), &jobs, client.InNamespace(k.ns)); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, j := range jobs.Items {
			if j.Labels[benchv1.LabelComponent] == benchv1.ComponentLoader && j.Labels[benchv1.LabelPhase] == benchv1.PhaseLabelValue("S2") {
				n++
			}
		}
		got := k.job(name)
		cm := &corev1.ConfigMap{}
		if err := k.c.Get(k.ctx(), types.NamespacedName{Namespace: k.ns, Name: led.Name}, cm); err != nil {
			t.Fatalf("%s: ledger: %v", step, err)
		}
		if got.UID != job.UID || n != 1 || cm.UID != led.UID || cm.ResourceVersion != led.ResourceVersion {
			t.Errorf("%s: Job %s (was %s, %d of them), ledger %s/%s (was %s/%s)", step, got.UID, job.UID, n, cm.UID, cm.ResourceVersion,
				led.UID, led.ResourceVersion)
		}
	}
	m = m.restart()
	k.waitRun(run.Name, "reconciled after the restart", func(r *benchv1.BenchmarkRun) bool { return r.Status.ObservedGeneration == r.Generation })
	same("restart after the ledger")
	// Loader 0 records the outcome (the update its Role allows).
	led.Data[contract.DisruptionReturnedKey] = "2026-11-01T10:00:02.8Z"
	if err := k.c.Update(k.ctx(), led); err != nil {
		t.Fatal(err)
	}
	m.restart()
	k.waitRun(run.Name, "reconciled after the second restart", func(r *benchv1.BenchmarkRun) bool { return r.Status.ObservedGeneration == r.Generation })
	same("restart after the outcome")

	k.finishPhase(run, run.Spec.Phases[1])
	r := k.waitLifecycle(run.Name, benchv1.RunSucceeded)
	if len(r.Status.Results[1].Disruptions) != 1 {
		t.Errorf("disruptions %+v", r.Status.Results[1].Disruptions)
	}
	k.eventually("cleanup", 30*time.Second, func() (bool, error) {
		return k.gone(&corev1.ConfigMap{}, led.Name) && k.gone(&corev1.ConfigMap{}, contract.ResultConfigMapName(name, 1)), nil
	})
}

// TestStaleLedgers: a ledger left under the name a phase's new Job will
// use (an earlier Job of the same name, a deleted predecessor run) would
// stop its loader 0 from acting: the controller deletes it before it
// creates the Job. A ConfigMap of someone else's under that name fails
// the phase instead of being taken for a ledger.
func TestStaleLedgers(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	stop := k.autopilotWith(autopilotOptions{holdPhases: true})
	defer stop()

	run := k.create(disruptedRun("dis-stale", 2*time.Second))
	k.waitLifecycle(run.Name, benchv1.RunLoading)
	name := topology.PhaseJobName(run, "S2")
	own := k.ledger(run, name, 0, run.UID)
	k.finishPhase(run, run.Spec.Phases[0])
	k.job(name)
	cm := &corev1.ConfigMap{}
	if err := k.c.Get(k.ctx(), types.NamespacedName{Namespace: k.ns, Name: own.Name}, cm); err == nil && cm.UID == own.UID && cm.DeletionTimestamp == nil {
		t.Errorf("the stale ledger %s outlived the creation of Job %s", own.Name, name)
	}

	foreign := k.create(disruptedRun("dis-foreign", 2*time.Second))
	k.waitLifecycle(foreign.Name, benchv1.RunLoading)
	fname := topology.PhaseJobName(foreign, "S2")
	k.ledger(foreign, fname, 0, "")
	k.finishPhase(foreign, foreign.Spec.Phases[0])
	r := k.waitLifecycle(foreign.Name, benchv1.RunFailed)
	if msg := failedMessage(r); !strings.Contains(msg, "ConfigMap "+contract.DisruptionLedgerName(fname, 0)+" exists and is not this run's") {
		t.Errorf("failed: %s", msg)
	}
	if k.exists(&batchv1.Job{}, fname) {
		t.Errorf("Job %s created beside a foreign ledger", fname)
	}
}
