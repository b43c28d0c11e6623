package controllers_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/testutil/stubmongo"
	"github.com/mongobench/mongobench/internal/testutil/syncbuf"
	"github.com/mongobench/mongobench/internal/topology"
)

// TestStepDownThroughTheController runs a StepDown end to end through the
// real controller and real loaders (loader.Main with the Job's own command
// line, the test playing the kubelet) against the stub replica set, which
// refuses writes for 1.5 s after a replSetStepDown, and this API server:
// the Job carries the disruption to both loaders, loader 0 creates the
// ledger and sends exactly one replSetStepDown at its instant, both
// loaders measure the unavailability, and the status holds it, merged.
func TestStepDownThroughTheController(t *testing.T) { //nolint:gocyclo // one scenario, step by step
	k := newCluster(t)
	limits := testLimits
	limits.StartLead, limits.StartBarrier = time.Second, time.Minute
	startManager(t, &counters{}, limits)
	const down = 1500 * time.Millisecond
	srv := stubmongo.Start(t, stubmongo.ReplicaSet(topology.ReplicaSetName, down))

	run := disruptedRun("stepdown", 2*time.Second)
	run.Spec.Phases[1].MaxExecutionTime = &metav1.Duration{Duration: 6 * time.Second}
	run.Spec.Phases[1].Threads = 4
	run.Spec.Phases[1].Target = ptr.To[int64](2000) // a fixed rate: the machine is shared
	run.Spec.Phases[1].Workload = &benchv1.WorkloadParameters{OperationCount: ptr.To[int64](0)}
	run.Spec.Telemetry.Enabled = ptr.To(false)
	run.Spec.Cleanup = benchv1.CleanupRetain // the test reads the ledger afterwards
	run = k.create(run)
	for i := range 3 {
		k.bringUp(topology.MemberName(run, i))
	}
	k.finishBootstrap(run)
	k.finishPhase(run, run.Spec.Phases[0])

	jobName := topology.PhaseJobName(run, run.Spec.Phases[1].Name)
	// The stub is the set's only member; the Job's URL names the three
	// pods, which do not exist here.
	args := k.loaderArgs(jobName, "mongodb://"+srv.Addr()+"/ycsb?replicaSet="+topology.ReplicaSetName+"&w=1&retryWrites=false")
	disruptions := 0
	for _, a := range args {
		if strings.HasPrefix(a, "--"+contract.FlagDisruption) {
			disruptions++
		}
	}
	if disruptions != 1 {
		t.Fatalf("the Job passes %d --%s, want 1: %q", disruptions, contract.FlagDisruption, args)
	}
	codes := make([]int, 2)
	logs := make([]*syncbuf.Buffer, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		logs[i] = &syncbuf.Buffer{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = k.runLoader(jobName, i, args, logs[i])
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != 0 {
			t.Fatalf("loader %d: exit %d\n%s", i, c, logs[i].String())
		}
	}
	if n := srv.StepDowns(); n != 1 {
		t.Fatalf("the stub saw %d replSetStepDown, want exactly 1\n%s", n, logs[0].String())
	}
	k.completeJob(jobName)
	run = k.waitLifecycle("stepdown", benchv1.RunSucceeded)

	res := run.Status.Results[1]
	if len(res.Disruptions) != 1 {
		t.Fatalf("status disruptions %+v", res.Disruptions)
	}
	d := res.Disruptions[0]
	o := d.Outcome
	if o.State != benchv1.DisruptionDone || o.Sent == nil || o.Error != "" || o.Primary != srv.Addr() {
		t.Errorf("outcome %+v, want Done, sent to %s", o, srv.Addr())
	}
	// Sent at the instant: the measured window's start (the barrier's)
	// plus at, late by the ledger's creation at most.
	if o.Sent != nil && (o.Sent.Time.Before(d.Instant.Time) || o.Sent.Sub(d.Instant.Time) > time.Second) {
		t.Errorf("sent at %v, the instant is %v", o.Sent.Time, d.Instant.Time)
	}
	// Every loader saw writes refused for the stub's 1.5 s, plus at most
	// the driver's wait for its next check of the server (500 ms,
	// minHeartbeatFrequencyMS) and slack for a shared machine.
	w := d.WriteUnavailable
	t.Logf("writes unavailable %+v, reads %+v, new primary %+v, errors %+v, outcome %+v", w, d.ReadUnavailable, d.NewPrimary, d.Errors, o)
	if w == nil || w.Loaders != 2 || w.Missing != 0 || w.MedianMicros < down.Microseconds() || w.MaxMicros > (down+900*time.Millisecond).Microseconds() {
		t.Errorf("write unavailability %+v, want 2 loaders within [1.5 s, 2.4 s]", w)
	}
	if d.NewPrimary == nil || d.NewPrimary.Loaders != 2 {
		t.Errorf("new primary %+v, want both loaders' drivers to have seen it", d.NewPrimary)
	}
	// Whether an operation is refused depends on whether it reaches the
	// stub before the driver's held hello tells it the member stepped
	// down (then it waits in server selection instead): the errors are
	// internal/loader's deterministic test. Any that occur here are the
	// stub's refusals, by their code names.
	for _, e := range d.Errors {
		if e.Label != "NotWritablePrimary" && e.Label != "NotPrimaryNoSecondaryOk" {
			t.Errorf("errors %+v: %s is not a refusal of the stepped-down member", d.Errors, e.Label)
		}
	}
	if d.Before == nil || d.After == nil || d.Before.Throughput <= 0 || d.After.Throughput <= 0 {
		t.Errorf("before %+v, after %+v", d.Before, d.After)
	}

	// The ledger says what was done, once.
	ledger := &corev1.ConfigMap{}
	if err := k.c.Get(k.ctx(), types.NamespacedName{Namespace: k.ns, Name: contract.DisruptionLedgerName(jobName, 0)}, ledger); err != nil {
		t.Fatal(err)
	}
	if ledger.Data[contract.DisruptionActionKey] != string(benchv1.DisruptionStepDown) || ledger.Data[contract.DisruptionReturnedKey] == "" ||
		ledger.Data[contract.DisruptionErrorKey] != "" || ledger.Data[contract.DisruptionActorKey] != jobName+"-0-abcde" {
		t.Errorf("ledger %v", ledger.Data)
	}
	if len(ledger.OwnerReferences) != 1 || ledger.OwnerReferences[0].UID != run.UID {
		t.Errorf("ledger owners %+v, want the run", ledger.OwnerReferences)
	}
}
