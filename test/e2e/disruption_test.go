//go:build e2e

package e2e

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/topology"
)

// disrupt makes run's Run phase (phases[1]) one that runs at a fixed 400
// ops/s for window after a 5 s warm-up, with disruption d 15 s into it.
func disrupt(run *benchv1.BenchmarkRun, window time.Duration, d benchv1.Disruption) {
	a := &run.Spec.Phases[1]
	a.Workload = &benchv1.WorkloadParameters{OperationCount: ptr.To[int64](0)}
	a.MaxExecutionTime = &metav1.Duration{Duration: window}
	a.Target = ptr.To[int64](400)
	a.Warmup = &benchv1.WarmupSpec{Duration: &metav1.Duration{Duration: 5 * time.Second}}
	d.At = metav1.Duration{Duration: 15 * time.Second}
	a.Disruptions = []benchv1.Disruption{d}
}

// waitDisrupted creates run, waits until it succeeded and returns it with
// its Run phase's result and that phase's one disruption.
func (s *suite) waitDisrupted(run *benchv1.BenchmarkRun) (*benchv1.BenchmarkRun, *benchv1.PhaseResult, *benchv1.DisruptionResult) {
	s.t.Helper()
	s.create(run)
	done := s.waitEnd(run.Name)
	if done.Status.Phase != benchv1.RunSucceeded {
		s.t.Fatalf("run failed: %s", failure(done))
	}
	res := &done.Status.Results[1]
	if len(res.Disruptions) != 1 || res.Disruptions[0].Action != run.Spec.Phases[1].Disruptions[0].Action {
		s.t.Fatalf("phase %s: disruptions %+v, want the one %s", res.Name, res.Disruptions, run.Spec.Phases[1].Disruptions[0].Action)
	}
	return done, res, &res.Disruptions[0]
}

// TestStepDown: a three-member set under workload A at a fixed rate, with
// retryable writes, is stepped down in the middle of its Run phase. Loader
// 0 sends one replSetStepDown to the primary at the instant (its ledger
// says so); the set elects another member, after the command was sent;
// both loaders measure a write and read unavailability shorter than the
// stepdown period and see the new primary; the election, and the writes
// refused meanwhile, are counted as planned, so the run is Valid; and the plugin's
// results table shows the disruption.
func TestStepDown(t *testing.T) { //nolint:gocyclo // one scenario, step by step
	kubectl := os.Getenv("E2E_KUBECTL")
	if kubectl == "" {
		t.Fatal("E2E_KUBECTL must be set (run through make test-e2e)")
	}
	s := setup(t)
	run := smallRun("stepdown", benchv1.TopologyReplicaSet, 0)
	run.Spec.Topology.Members = ptr.To[int32](3)
	run.Spec.Driver = benchv1.DriverSpec{WriteConcern: "majority", ReadPreference: "primary", RetryWrites: true}
	run.Spec.Cleanup = benchv1.CleanupRetain // the ledger and the members are read afterwards
	// stepDownSecs 30 keeps the old primary out of the next election;
	// a catch-up period of 5 s is plenty for secondaries of a set written
	// with w: majority.
	disrupt(run, 60*time.Second, benchv1.Disruption{Action: benchv1.DisruptionStepDown,
		StepDownSecs: ptr.To[int32](30), SecondaryCatchUpPeriodSecs: ptr.To[int32](5)})
	a := &run.Spec.Phases[1]
	done, res, d := s.waitDisrupted(run)
	o := d.Outcome
	if o.State != benchv1.DisruptionDone || o.Sent == nil || o.DurationMicros == nil || o.Error != "" {
		t.Fatalf("outcome %+v, want Done", o)
	}
	// The stepdown returns once the primary stepped down: within its
	// catch-up period, plus the command's own round trip.
	if *o.DurationMicros > (5*time.Second + 5*time.Second).Microseconds() {
		t.Errorf("replSetStepDown took %d µs, more than its 5 s catch-up period allows", *o.DurationMicros)
	}
	if !strings.HasPrefix(o.Primary, done.Name+"-"+topology.ReplicaSetName+"-") {
		t.Errorf("the stepdown went to %q, not to a member of the set", o.Primary)
	}
	if o.Sent.Time.Before(d.Instant.Time) || o.Sent.Sub(d.Instant.Time) > 2*time.Second {
		t.Errorf("sent at %v, the instant is %v", o.Sent.Time, d.Instant.Time)
	}
	// Both loaders wrote and read again, well within the stepdown period:
	// a real election of a set of three on one node takes seconds.
	for name, lt := range map[string]*benchv1.LoaderTimes{"writes": d.WriteUnavailable, "reads": d.ReadUnavailable, "new primary": d.NewPrimary} {
		if lt == nil || lt.Loaders != 2 || lt.Missing != 0 || lt.MaxMicros <= 0 || lt.MaxMicros > (20*time.Second).Microseconds() {
			t.Errorf("%s: %+v, want both loaders, within 20 s", name, lt)
		}
	}
	if d.NewPrimaryTelemetryMicros == nil {
		t.Error("the server telemetry saw no new primary")
	}
	if d.Before == nil || d.After == nil || d.After.Throughput < 0.9*float64(*a.Target) {
		t.Errorf("before %+v, after %+v: after recovery the phase should run at its target of %d ops/s again", d.Before, d.After, *a.Target)
	}

	// The set really elected another member, after the command was sent.
	primary := ""
	var elected time.Time
	for i := range 3 {
		pod := topology.MemberName(done, i)
		out := s.mongosh(kubectl, pod, string(benchv1.RoleMember), topology.PortMongod,
			`const m = db.adminCommand({replSetGetStatus: 1}).members.find(m => m.state === 1); m ? m.name + " " + m.electionDate.toISOString() : "none"`)
		name, date, ok := strings.Cut(out, " ")
		if !ok {
			t.Fatalf("%s: no primary: %s", pod, out)
		}
		if primary == "" {
			primary = name
			var err error
			if elected, err = time.Parse(time.RFC3339Nano, date); err != nil {
				t.Fatalf("%s: election date %q: %v", pod, date, err)
			}
		} else if name != primary {
			t.Errorf("%s sees %s as primary, another member sees %s", pod, name, primary)
		}
	}
	if primary == o.Primary || elected.Before(o.Sent.Add(-time.Second)) {
		t.Errorf("primary %s elected %v; the stepdown went to %s at %v", primary, elected, o.Primary, o.Sent.Time)
	}

	// Exactly once: one ledger, with the outcome.
	ledgers := &corev1.ConfigMapList{}
	if err := s.c.List(context.Background(), ledgers, client.InNamespace(s.ns)); err != nil {
		t.Fatal(err)
	}
	jobName := topology.PhaseJobName(done, "a")
	var found int
	for _, cm := range ledgers.Items {
		if strings.HasPrefix(cm.Name, jobName+"-disruption-") {
			found++
			if cm.Name != contract.DisruptionLedgerName(jobName, 0) || cm.Data[contract.DisruptionReturnedKey] == "" ||
				cm.Data[contract.DisruptionErrorKey] != "" {
				t.Errorf("ledger %s: %v", cm.Name, cm.Data)
			}
		}
	}
	if found != 1 {
		t.Errorf("%d ledgers, want 1", found)
	}

	// The election was planned: it does not count against the run.
	planned := int32(0)
	for _, sv := range res.Server {
		planned += sv.PlannedPrimaryChanges
		if sv.PrimaryChanges != sv.PlannedPrimaryChanges {
			t.Errorf("%s: %d primary changes, %d of them planned", sv.Pod, sv.PrimaryChanges, sv.PlannedPrimaryChanges)
		}
	}
	if planned == 0 {
		t.Error("no member's telemetry saw the planned election")
	}
	// Nor do the writes the failover refused: against real servers, with
	// nothing else wrong, the run is Valid.
	if c := meta.FindStatusCondition(done.Status.Conditions, benchv1.ConditionValid); c == nil || c.Status != metav1.ConditionTrue ||
		!strings.Contains(c.Message, "planned change(s) of replica set rs0's primary") {
		t.Errorf("Valid %+v: want True, the election planned", c)
	}

	if code, out := s.plugin("results", "stepdown"); code != 0 || !strings.Contains(out, "StepDown") || !strings.Contains(out, "Done") {
		t.Errorf("kubectl mongobench results: exit %d\n%s", code, out)
	}
}

// TestKillPrimary: a three-member set under workload A at a fixed rate,
// with retryable writes, loses its primary's pod in the middle of its Run
// phase. Loader 0 names the primary in the ledger at the instant; the
// controller deletes that pod once (the ledger records the pod, its UID
// and when) and creates it again, on the same node; the member rejoins
// the set; the others elect a primary; both loaders recover; the killed
// member's restart and the election are planned, so the run is Valid;
// and the plugin's results table shows the disruption.
func TestKillPrimary(t *testing.T) { //nolint:gocyclo // one scenario, step by step
	kubectl := os.Getenv("E2E_KUBECTL")
	if kubectl == "" {
		t.Fatal("E2E_KUBECTL must be set (run through make test-e2e)")
	}
	s := setup(t)
	run := smallRun("killprimary", benchv1.TopologyReplicaSet, 0)
	run.Spec.Topology.Members = ptr.To[int32](3)
	run.Spec.Driver = benchv1.DriverSpec{WriteConcern: "majority", ReadPreference: "primary", RetryWrites: true}
	run.Spec.Cleanup = benchv1.CleanupRetain // the ledger and the members are read afterwards
	// An election follows electionTimeoutMillis (10 s) without the
	// primary's heartbeats at worst; the member's pod comes back and
	// resyncs meanwhile: 90 s leaves a stretch after recovery to measure.
	disrupt(run, 90*time.Second, benchv1.Disruption{Action: benchv1.DisruptionKillPrimary})
	a := &run.Spec.Phases[1]
	done, res, d := s.waitDisrupted(run)
	o := d.Outcome
	if d.Action != benchv1.DisruptionKillPrimary || o.State != benchv1.DisruptionDone || o.Sent == nil || o.DurationMicros == nil || o.Error != "" {
		t.Fatalf("outcome %+v, want Done", o)
	}
	prefix := done.Name + "-" + topology.ReplicaSetName + "-"
	if !strings.HasPrefix(o.Pod, prefix) || !strings.HasPrefix(o.Primary, o.Pod+".") {
		t.Errorf("deleted pod %q, primary %q: want the primary's pod", o.Pod, o.Primary)
	}
	// The controller reacts to the ledger's event: seconds at most.
	if o.Sent.Time.Before(d.Instant.Time) || o.Sent.Sub(d.Instant.Time) > 2*time.Second || *o.DurationMicros > (10*time.Second).Microseconds() {
		t.Errorf("requested at %v (instant %v), deleted %d µs later", o.Sent.Time, d.Instant.Time, *o.DurationMicros)
	}
	for name, lt := range map[string]*benchv1.LoaderTimes{"writes": d.WriteUnavailable, "reads": d.ReadUnavailable, "new primary": d.NewPrimary} {
		if lt == nil || lt.Loaders != 2 || lt.Missing != 0 || lt.MaxMicros <= 0 || lt.MaxMicros > (30*time.Second).Microseconds() {
			t.Errorf("%s: %+v, want both loaders, within 30 s", name, lt)
		}
	}
	if d.After == nil || d.After.Throughput < 0.9*float64(*a.Target) {
		t.Errorf("after %+v: after recovery the phase should run at its target of %d ops/s again", d.After, *a.Target)
	}

	// The pod came back after the deletion, under its name, on the node
	// its predecessor ran on, and its member is in the set again.
	pod := &corev1.Pod{}
	if err := s.c.Get(context.Background(), client.ObjectKey{Namespace: s.ns, Name: o.Pod}, pod); err != nil {
		t.Fatalf("the killed member's pod: %v", err)
	}
	ledger := &corev1.ConfigMap{}
	jobName := topology.PhaseJobName(done, "a")
	if err := s.c.Get(context.Background(), client.ObjectKey{Namespace: s.ns, Name: contract.DisruptionLedgerName(jobName, 0)}, ledger); err != nil {
		t.Fatal(err)
	}
	if ledger.Data[contract.DisruptionPodKey] != o.Pod || ledger.Data[contract.DisruptionPodUIDKey] == "" ||
		ledger.Data[contract.DisruptionPodUIDKey] == string(pod.UID) || ledger.Data[contract.DisruptionReturnedKey] == "" ||
		ledger.Data[contract.DisruptionErrorKey] != "" || ledger.Data[contract.DisruptionNodeKey] != pod.Spec.NodeName {
		t.Errorf("ledger %v; the pod now %s on %s", ledger.Data, pod.UID, pod.Spec.NodeName)
	}
	if pod.CreationTimestamp.Time.Before(o.Sent.Add(-time.Second)) {
		t.Errorf("pod %s created %v, before the deletion at %v", o.Pod, pod.CreationTimestamp.Time, o.Sent.Time)
	}
	state := s.mongosh(kubectl, o.Pod, string(benchv1.RoleMember), topology.PortMongod, `db.adminCommand({replSetGetStatus: 1}).myState`)
	if state != "1" && state != "2" {
		t.Errorf("the recreated member's state is %s, want PRIMARY (1) or SECONDARY (2)", state)
	}

	// The restart and the election were planned: the run is Valid.
	var restarts, planned int32
	for _, sv := range res.Server {
		if sv.Pod == o.Pod {
			restarts, planned = sv.Restarts, sv.PlannedRestarts
		}
		if sv.PrimaryChanges != sv.PlannedPrimaryChanges {
			t.Errorf("%s: %d primary changes, %d of them planned", sv.Pod, sv.PrimaryChanges, sv.PlannedPrimaryChanges)
		}
	}
	if restarts != planned || restarts > 1 {
		t.Errorf("%s: %d restarts, %d planned", o.Pod, restarts, planned)
	}
	if c := meta.FindStatusCondition(done.Status.Conditions, benchv1.ConditionValid); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("Valid %+v: want True, the restart and the election planned", c)
	}
	if code, out := s.plugin("results", "killprimary"); code != 0 || !strings.Contains(out, "KillPrimary") || !strings.Contains(out, "Done") {
		t.Errorf("kubectl mongobench results: exit %d\n%s", code, out)
	}
}

// TestKillMongos: a sharded cluster of two shards loses its one mongos in
// the middle of a Run phase. The controller deletes the mongos' pod once
// and creates it again; both loaders lose their entry point and recover
// once the new mongos answers; the run succeeds, and the mongos' restart
// does not make it invalid.
func TestKillMongos(t *testing.T) {
	s := setup(t)
	run := smallRun("killmongos", benchv1.TopologySharded, 2)
	run.Spec.Driver = benchv1.DriverSpec{RetryWrites: true}
	disrupt(run, 90*time.Second, benchv1.Disruption{Action: benchv1.DisruptionKillMongos})
	done, res, d := s.waitDisrupted(run)
	if o := d.Outcome; d.Action != benchv1.DisruptionKillMongos || o.State != benchv1.DisruptionDone || o.Pod != "killmongos-mongos" || o.Error != "" {
		t.Fatalf("outcome %+v, want the mongos' pod deleted", o)
	}
	// A mongos starts in seconds: both loaders wrote and read again well
	// within the phase.
	for name, lt := range map[string]*benchv1.LoaderTimes{"writes": d.WriteUnavailable, "reads": d.ReadUnavailable} {
		if lt == nil || lt.Loaders != 2 || lt.Missing != 0 || lt.MaxMicros <= 0 || lt.MaxMicros > (60*time.Second).Microseconds() {
			t.Errorf("%s: %+v, want both loaders, within 60 s", name, lt)
		}
	}
	for _, sv := range res.Server {
		if sv.Role == benchv1.RoleMongos && sv.Restarts != sv.PlannedRestarts {
			t.Errorf("mongos %s: %d restarts, %d planned", sv.Pod, sv.Restarts, sv.PlannedRestarts)
		}
	}
	if c := meta.FindStatusCondition(done.Status.Conditions, benchv1.ConditionValid); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("Valid %+v: the mongos' restart and the failed calls it caused are planned", c)
	}
}

// TestStepDownOfAShard: two micro-shards of three members each, with
// access control on, under workload A at a fixed rate; shard 1 is stepped
// down in the middle of the Run phase. Loader 0 sends replSetStepDown to
// shard 1's primary directly, as the shard-local user the bootstrap
// created (clusterManager), once; both loaders, which reach the data
// through mongos and watch shard 1's replica set themselves, see its new
// primary and measure the Partial unavailability; the election is planned
// for shard 1's members only, so the run is Valid.
func TestStepDownOfAShard(t *testing.T) { //nolint:gocyclo // one scenario, step by step
	s := setup(t)
	run := smallRun("shardstepdown", benchv1.TopologySharded, 2)
	run.Spec.Topology.ShardMembers = ptr.To[int32](3)
	run.Spec.Security = &benchv1.SecuritySpec{Auth: true}
	run.Spec.Driver = benchv1.DriverSpec{WriteConcern: "majority", RetryWrites: true}
	run.Spec.Cleanup = benchv1.CleanupRetain
	disrupt(run, 60*time.Second, benchv1.Disruption{Action: benchv1.DisruptionStepDown, Target: ptr.To(intstr.FromInt32(1)),
		StepDownSecs: ptr.To[int32](30), SecondaryCatchUpPeriodSecs: ptr.To[int32](5)})
	done, res, d := s.waitDisrupted(run)
	o := d.Outcome
	if o.State != benchv1.DisruptionDone || o.Sent == nil || o.Error != "" || d.Target != "shard1" {
		t.Fatalf("disruption %+v, want Done on shard1", d)
	}
	if !strings.HasPrefix(o.Primary, done.Name+"-shard1") {
		t.Errorf("the stepdown went to %q, not to a member of shard 1", o.Primary)
	}
	for name, lt := range map[string]*benchv1.LoaderTimes{"writes": d.WriteUnavailable, "reads": d.ReadUnavailable, "new primary": d.NewPrimary} {
		if lt == nil || lt.Loaders != 2 || lt.Missing != 0 || lt.MaxMicros <= 0 || lt.MaxMicros > (20*time.Second).Microseconds() {
			t.Errorf("%s: %+v, want both loaders, within 20 s", name, lt)
		}
	}
	// Planned for shard 1's members, and nobody else saw an election.
	var planned int32
	for _, sv := range res.Server {
		if sv.PrimaryChanges != sv.PlannedPrimaryChanges {
			t.Errorf("%s: %d primary changes, %d of them planned", sv.Pod, sv.PrimaryChanges, sv.PlannedPrimaryChanges)
		}
		if sv.PlannedPrimaryChanges > 0 && !strings.HasPrefix(sv.Pod, done.Name+"-shard1") {
			t.Errorf("%s: %d planned primary changes, but only shard 1 was stepped down", sv.Pod, sv.PlannedPrimaryChanges)
		}
		planned += sv.PlannedPrimaryChanges
	}
	if planned == 0 {
		t.Error("no member of shard 1 saw the planned election")
	}
	if c := meta.FindStatusCondition(done.Status.Conditions, benchv1.ConditionValid); c == nil || c.Status != metav1.ConditionTrue ||
		!strings.Contains(c.Message, "replica set shard1's primary") {
		t.Errorf("Valid %+v: want True, shard 1's election planned", c)
	}
}

// TestPause: a three-member set under workload A at a fixed rate, with
// retryable writes; its primary's mongod is frozen for 15 s, longer than
// the election timeout (10 s), in the middle of the Run phase. The
// controller adds the freezing container to that member's pod once (the
// pods share their process namespace); the container reports the freeze;
// the other members elect a primary meanwhile and the frozen one steps
// down when it wakes; both loaders recover, well before the thaw; the
// election is planned and the run Valid.
func TestPause(t *testing.T) { //nolint:gocyclo // one scenario, step by step
	s := setup(t)
	run := smallRun("pause", benchv1.TopologyReplicaSet, 0)
	run.Spec.Topology.Members = ptr.To[int32](3)
	run.Spec.Driver = benchv1.DriverSpec{WriteConcern: "majority", ReadPreference: "primary", RetryWrites: true}
	run.Spec.Cleanup = benchv1.CleanupRetain // the pod is read afterwards
	disrupt(run, 90*time.Second, benchv1.Disruption{Action: benchv1.DisruptionPause, Member: ptr.To(intstr.FromString(benchv1.MemberPrimary)),
		Duration: &metav1.Duration{Duration: 15 * time.Second}})
	done, res, d := s.waitDisrupted(run)
	o := d.Outcome
	if o.State != benchv1.DisruptionDone || o.Pod == "" || o.Frozen == nil || o.FrozenMicros == nil || o.Error != "" {
		t.Fatalf("outcome %+v, want Done with the freeze reported", o)
	}
	if *o.FrozenMicros < (15*time.Second).Microseconds() || *o.FrozenMicros > (16*time.Second).Microseconds() {
		t.Errorf("frozen for %d µs, want 15 s", *o.FrozenMicros)
	}
	pod := &corev1.Pod{}
	if err := s.c.Get(context.Background(), client.ObjectKey{Namespace: s.ns, Name: o.Pod}, pod); err != nil {
		t.Fatal(err)
	}
	if pod.Spec.ShareProcessNamespace == nil || !*pod.Spec.ShareProcessNamespace || len(pod.Spec.EphemeralContainers) != 1 {
		t.Fatalf("pod %s: shareProcessNamespace %v, %d ephemeral containers; want shared, one", o.Pod, pod.Spec.ShareProcessNamespace,
			len(pod.Spec.EphemeralContainers))
	}
	for _, st := range pod.Status.EphemeralContainerStatuses {
		if st.State.Terminated == nil || st.State.Terminated.ExitCode != 0 {
			t.Errorf("freezing container %s: %+v", st.Name, st.State)
		}
	}
	// An election replaced the frozen primary: the loaders wrote again
	// before the thaw, and saw a new primary.
	for name, lt := range map[string]*benchv1.LoaderTimes{"writes": d.WriteUnavailable, "new primary": d.NewPrimary} {
		if lt == nil || lt.Loaders != 2 || lt.Missing != 0 || lt.MaxMicros <= 0 || lt.MaxMicros > (30*time.Second).Microseconds() {
			t.Errorf("%s: %+v, want both loaders, within 30 s", name, lt)
		}
	}
	planned := int32(0)
	for _, sv := range res.Server {
		planned += sv.PlannedPrimaryChanges
		if sv.PrimaryChanges != sv.PlannedPrimaryChanges || sv.Restarts != 0 {
			t.Errorf("%s: %d primary changes (%d planned), %d restarts", sv.Pod, sv.PrimaryChanges, sv.PlannedPrimaryChanges, sv.Restarts)
		}
	}
	if planned == 0 {
		t.Error("no member's telemetry saw the planned election")
	}
	if c := meta.FindStatusCondition(done.Status.Conditions, benchv1.ConditionValid); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("Valid %+v: want True, the election planned", c)
	}
}
