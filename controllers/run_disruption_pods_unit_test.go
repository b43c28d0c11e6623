package controllers

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/telemetry"
)

func threeMembers() *benchv1.BenchmarkRun {
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns"}}
	run.Spec.Topology = benchv1.TopologySpec{Mode: benchv1.TopologyReplicaSet, Members: ptr.To[int32](3)}
	return run
}

// TestDeletionTarget: a pod deletion's member is its index, or the member
// at the address loader 0's driver named (the DNS name the set was
// initiated with, any case; the port must match); anything else is a
// reason to delete nothing.
func TestDeletionTarget(t *testing.T) {
	run := threeMembers()
	s := &runState{run: run}
	for _, tc := range []struct {
		name   string
		action benchv1.DisruptionAction
		member *intstr.IntOrString
		target string
		pod    string
		why    string
	}{
		{"the primary by address", benchv1.DisruptionKillPrimary, nil, "r-rs0-1.r-db.ns.svc.cluster.local:27017", "r-rs0-1", ""},
		{"the address in capitals", benchv1.DisruptionKillPrimary, nil, "R-RS0-2.r-db.ns.svc.cluster.local:27017", "r-rs0-2", ""},
		{"a secondary by address", benchv1.DisruptionRestartMember, ptr.To(intstr.FromString("secondary")), "r-rs0-0.r-db.ns.svc.cluster.local:27017", "r-rs0-0", ""},
		{"an index", benchv1.DisruptionRestartMember, ptr.To(intstr.FromInt32(2)), "", "r-rs0-2", ""},
		{"another port", benchv1.DisruptionKillPrimary, nil, "r-rs0-1.r-db.ns.svc.cluster.local:27018", "", "which is no member of this run's replica set (r-rs0-0, r-rs0-1, r-rs0-2)"},
		{"a stranger", benchv1.DisruptionKillPrimary, nil, "10.0.0.7:27017", "", `loader 0 named "10.0.0.7:27017", which is no member`},
		{"no address", benchv1.DisruptionKillPrimary, nil, "", "", "loader 0's driver knew no primary at the instant"},
		{"no secondary", benchv1.DisruptionRestartMember, ptr.To(intstr.FromString("secondary")), "", "", "knew no secondary"},
		{"an index beyond", benchv1.DisruptionRestartMember, ptr.To(intstr.FromInt32(3)), "", "", "member 3: the replica set has members 0 to 2"},
		{"KillMongos on a replica set", benchv1.DisruptionKillMongos, nil, "", "", "the topology has no mongos"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cm := &corev1.ConfigMap{Data: map[string]string{}}
			if tc.target != "" {
				cm.Data[contract.DisruptionTargetKey] = tc.target
			}
			pd := podDeletion{spec: &benchv1.Disruption{Action: tc.action, Member: tc.member}, ledger: cm}
			p, why := deletionTarget(s, pd)
			if p.Name != tc.pod || (tc.why == "") != (why == "") || !strings.Contains(why, tc.why) {
				t.Errorf("pod %q, why %q; want %q, %q", p.Name, why, tc.pod, tc.why)
			}
		})
	}
}

// TestShardDeletionTarget: in a Sharded topology the member is one of the
// target's replica set: a shard's (port 27018) or the config server's
// (27019); an address of another set's member deletes nothing.
func TestShardDeletionTarget(t *testing.T) {
	run, _ := targetRun("r", benchv1.TopologySharded)
	s := &runState{run: run}
	shard1, cfgsvr := ptr.To(intstr.FromInt32(1)), ptr.To(intstr.FromString(benchv1.TargetConfigServer))
	for _, tc := range []struct {
		name   string
		d      benchv1.Disruption
		target string
		pod    string
		why    string
	}{
		{"shard 1's primary", benchv1.Disruption{Action: benchv1.DisruptionKillPrimary, Target: shard1},
			"r-shard1-2.r-db.ns.svc.cluster.local:27018", "r-shard1-2", ""},
		{"shard 1's member 0", benchv1.Disruption{Action: benchv1.DisruptionKillPrimary, Target: shard1},
			"r-shard1.r-db.ns.svc.cluster.local:27018", "r-shard1", ""},
		{"shard 0's member for shard 1", benchv1.Disruption{Action: benchv1.DisruptionKillPrimary, Target: shard1},
			"r-shard0-1.r-db.ns.svc.cluster.local:27018", "", "no member of this run's replica set shard1 (r-shard1, r-shard1-1, r-shard1-2)"},
		{"no primary", benchv1.Disruption{Action: benchv1.DisruptionKillPrimary, Target: shard1},
			"", "", "knew no primary of replica set shard1 at the instant"},
		{"the config server's member 2", benchv1.Disruption{Action: benchv1.DisruptionRestartMember, Target: cfgsvr,
			Member: ptr.To(intstr.FromInt32(2))}, "", "r-cfg-2", ""},
		{"the config server's secondary", benchv1.Disruption{Action: benchv1.DisruptionRestartMember, Target: cfgsvr,
			Member: ptr.To(intstr.FromString("secondary"))}, "r-cfg-1.r-db.ns.svc.cluster.local:27019", "r-cfg-1", ""},
		{"an index beyond", benchv1.Disruption{Action: benchv1.DisruptionRestartMember, Target: cfgsvr,
			Member: ptr.To(intstr.FromInt32(3))}, "", "", "member 3: the replica set cfg has members 0 to 2"},
		{"the mongos", benchv1.Disruption{Action: benchv1.DisruptionKillMongos}, "", "r-mongos", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cm := &corev1.ConfigMap{Data: map[string]string{}}
			if tc.target != "" {
				cm.Data[contract.DisruptionTargetKey] = tc.target
			}
			p, why := deletionTarget(s, podDeletion{spec: &tc.d, ledger: cm})
			if p.Name != tc.pod || (tc.why == "") != (why == "") || !strings.Contains(why, tc.why) {
				t.Errorf("pod %q, why %q; want %q, %q", p.Name, why, tc.pod, tc.why)
			}
		})
	}
}

// TestPodDeletionLedgerOutcome: a pod deletion's outcome is its ledger's:
// Done once the controller recorded the deletion (from loader 0's request
// to then, with the pod), Failed with its reason, Unknown before either.
func TestPodDeletionLedgerOutcome(t *testing.T) {
	base := map[string]string{contract.DisruptionActionKey: "KillPrimary", contract.DisruptionSentKey: "2026-11-27T10:00:30Z",
		contract.DisruptionPrimaryKey: "r-rs0-1.r-db.ns.svc.cluster.local:27017"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	done := ledgerOutcome("l", with(contract.DisruptionPodKey, "r-rs0-1", contract.DisruptionPodUIDKey, "u1",
		contract.DisruptionReturnedKey, "2026-11-27T10:00:30.25Z", contract.DisruptionErrorKey, ""))
	if done.State != results.DisruptionDone || done.Pod != "r-rs0-1" || done.Returned == nil || done.Returned.Sub(done.Sent) != 250*time.Millisecond ||
		done.Primary != base[contract.DisruptionPrimaryKey] {
		t.Errorf("done: %+v", done)
	}
	failed := ledgerOutcome("l", with(contract.DisruptionReturnedKey, "2026-11-27T10:00:30.1Z", contract.DisruptionErrorKey, "loader 0 named x"))
	if failed.State != results.DisruptionFailed || failed.Error != "loader 0 named x" || failed.Pod != "" {
		t.Errorf("failed: %+v", failed)
	}
	pending := ledgerOutcome("l", with(contract.DisruptionPodKey, "r-rs0-1", contract.DisruptionPodUIDKey, "u1"))
	if pending.State != results.DisruptionUnknown || pending.Returned != nil || !strings.Contains(pending.Error, "the controller recorded no outcome in ledger l") {
		t.Errorf("pending: %+v", pending)
	}
	// The controller's clock behind loader 0's: Done, no negative time.
	skew := ledgerOutcome("l", with(contract.DisruptionReturnedKey, "2026-11-27T10:00:29Z", contract.DisruptionErrorKey, ""))
	if skew.State != results.DisruptionDone || skew.Returned == nil || skew.Returned.Before(skew.Sent) {
		t.Errorf("skew: %+v", skew)
	}
}

// TestExplainRestarts: a KillPrimary or RestartMember that deleted a pod
// explains one restart of that member seen after it was sent, however
// long after; not one before, not a second, not another member's, and
// nothing when it Failed.
func TestExplainRestarts(t *testing.T) {
	instant := time.Date(2026, 11, 27, 10, 0, 30, 0, time.UTC)
	sent := metav1.NewMicroTime(instant)
	at := func(d time.Duration) time.Time { return instant.Add(d) }
	for _, tc := range []struct {
		name     string
		state    benchv1.DisruptionState
		pod      string
		restarts []time.Time // of r-rs0-1
		planned  int32
	}{
		{"one, 50 s later", benchv1.DisruptionDone, "r-rs0-1", []time.Time{at(50 * time.Second)}, 1},
		{"one before, one after", benchv1.DisruptionDone, "r-rs0-1", []time.Time{at(-time.Second), at(5 * time.Second)}, 1},
		{"two after", benchv1.DisruptionDone, "r-rs0-1", []time.Time{at(5 * time.Second), at(6 * time.Second)}, 1},
		{"another member deleted", benchv1.DisruptionDone, "r-rs0-2", []time.Time{at(5 * time.Second)}, 0},
		{"failed", benchv1.DisruptionFailed, "", []time.Time{at(5 * time.Second)}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := &telemetry.Payload{Processes: []telemetry.ProcessPayload{
				{Role: "member", Pod: "r-rs0-1", Series: telemetry.Series{Restarts: len(tc.restarts), RestartTimes: tc.restarts}},
			}}
			res := &benchv1.PhaseResult{
				Server: []benchv1.ServerSummary{{Role: benchv1.RoleMember, Pod: "r-rs0-1", Restarts: int32(len(tc.restarts))}},
				Disruptions: []benchv1.DisruptionResult{{Action: benchv1.DisruptionKillPrimary, Instant: sent,
					Outcome: benchv1.DisruptionOutcome{State: tc.state, Sent: &sent, Pod: tc.pod}}},
			}
			run, ph := targetRun("r", benchv1.TopologyReplicaSet, benchv1.Disruption{Action: benchv1.DisruptionKillPrimary})
			explainElections(rep, res, time.Second, run, ph)
			if got := res.Server[0].PlannedRestarts; got != tc.planned {
				t.Errorf("planned restarts %d, want %d", got, tc.planned)
			}
		})
	}
}
