package validity

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// memberSet is a three-member ReplicaSet run that passes every check.
func memberSet() *benchv1.BenchmarkRun {
	run := &benchv1.BenchmarkRun{}
	run.Spec.Topology = benchv1.TopologySpec{Mode: benchv1.TopologyReplicaSet, Members: ptr.To[int32](3), WiredTigerCacheSizeGB: "0.5"}
	run.Status.Topology = &benchv1.TopologyStatus{}
	var servers []benchv1.ServerSummary
	for _, pod := range []string{"r-rs0-0", "r-rs0-1", "r-rs0-2"} {
		run.Status.Topology.Processes = append(run.Status.Topology.Processes, benchv1.ProcessStatus{Role: benchv1.RoleMember, Pod: pod, ReplicaSet: "rs0"})
		servers = append(servers, benchv1.ServerSummary{Role: benchv1.RoleMember, Pod: pod, Samples: 60,
			MinConnectionsAvailable: ptr.To[int64](800), CacheMaxBytes: ptr.To[int64](512 << 20)})
	}
	run.Status.Results = []benchv1.PhaseResult{{Name: "run", OperationStats: []benchv1.OperationResult{{Name: "READ", Count: 1000}}, Server: servers}}
	return run
}

// TestMemberSetElection: an election during the measured window, which
// every member sees, makes the run invalid once, naming the set and the
// members that saw it; the members' caches are checked like a shard's.
func TestMemberSetElection(t *testing.T) {
	run := memberSet()
	if p := Check(run); len(p) != 0 {
		t.Fatalf("healthy set: %+v", p)
	}
	srv := run.Status.Results[0].Server
	srv[0].PrimaryChanges, srv[1].PrimaryChanges, srv[2].PrimaryChanges = 1, 2, 1
	p := Check(run)
	if len(p) != 1 || p[0].Reason != benchv1.ReasonPrimaryChanged {
		t.Fatalf("problems %+v, want one PrimaryChanged for the set", p)
	}
	want := "phase run: replica set rs0 changed primary during the measured window (up to 2 time(s), seen by 3 of its 3 members: r-rs0-0, r-rs0-1, r-rs0-2)"
	if p[0].Message != want {
		t.Errorf("message %q\nwant %q", p[0].Message, want)
	}

	// One member alone saw it (the others' samples fell between): still
	// an election of the set.
	run = memberSet()
	run.Status.Results[0].Server[2].PrimaryChanges = 1
	if p := Check(run); len(p) != 1 || !strings.Contains(p[0].Message, "seen by 1 of its 3 members: r-rs0-2") {
		t.Errorf("problems %+v", p)
	}

	// A member's cache of another size is the member's problem.
	run = memberSet()
	run.Status.Results[0].Server[1].CacheMaxBytes = ptr.To[int64](1 << 30)
	if p := Check(run); len(p) != 1 || p[0].Reason != benchv1.ReasonCacheSizeMismatch || !strings.Contains(p[0].Message, "member r-rs0-1") {
		t.Errorf("problems %+v, want the member's CacheSizeMismatch", p)
	}

	// A run recorded before status named the sets: one problem per process.
	run = memberSet()
	run.Status.Topology = nil
	run.Status.Results[0].Server[0].PrimaryChanges, run.Status.Results[0].Server[1].PrimaryChanges = 1, 1
	if p := Check(run); len(p) != 2 || !strings.Contains(p[0].Message, "member r-rs0-0 saw its replica set's primary change 1 time(s)") {
		t.Errorf("problems %+v", p)
	}
}

// TestPlannedElections: the changes of primary the phase's StepDowns
// explain (plannedPrimaryChanges, matched by time in the controller) do
// not make the run invalid, and the message says how many there were;
// any other still does, whether it came with planned ones or not.
func TestPlannedElections(t *testing.T) {
	withChanges := func(changes, planned [3]int32) *benchv1.BenchmarkRun {
		run := memberSet()
		res := &run.Status.Results[0]
		res.Disruptions = []benchv1.DisruptionResult{{Index: 0, Action: benchv1.DisruptionStepDown}, {Index: 1, Action: benchv1.DisruptionStepDown}}
		for i := range res.Server {
			res.Server[i].PrimaryChanges, res.Server[i].PlannedPrimaryChanges = changes[i], planned[i]
		}
		return run
	}
	for _, tc := range []struct {
		name             string
		changes, planned [3]int32
		problem          string // "" when valid
		note             string // the Planned note ("" for none)
	}{
		{"every change planned", [3]int32{2, 4, 2}, [3]int32{2, 4, 2}, "",
			"phase run: 4 planned change(s) of replica set rs0's primary, caused by the phase's 2 disruption(s), not counted"},
		{"one more on a member", [3]int32{2, 5, 2}, [3]int32{2, 4, 2},
			"replica set rs0 changed primary during the measured window (up to 1 time(s), seen by 1 of its 3 members: r-rs0-1)", "4 planned change(s)"},
		{"none planned", [3]int32{1, 1, 0}, [3]int32{}, "up to 1 time(s), seen by 2 of its 3 members: r-rs0-0, r-rs0-1", ""},
		{"planned above what was seen", [3]int32{1, 0, 0}, [3]int32{3, 0, 0}, "", "3 planned change(s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := withChanges(tc.changes, tc.planned)
			p := Check(run)
			switch {
			case tc.problem == "" && len(p) != 0:
				t.Errorf("problems %+v, want none", p)
			case tc.problem != "" && (len(p) != 1 || p[0].Reason != benchv1.ReasonPrimaryChanged || !strings.Contains(p[0].Message, tc.problem)):
				t.Errorf("problems %+v, want one PrimaryChanged with %q", p, tc.problem)
			}
			msg := Summary(p, Planned(run), Unchecked(run))
			if tc.note == "" && strings.Contains(msg, "planned") || !strings.Contains(msg, tc.note) {
				t.Errorf("message %q, want %q", msg, tc.note)
			}
		})
	}
	// A one-member view (a run recorded before status named the sets)
	// says which were its disruptions'.
	run := withChanges([3]int32{3, 0, 0}, [3]int32{2, 0, 0})
	run.Status.Topology = nil
	if p := Check(run); len(p) != 1 || !strings.Contains(p[0].Message, "member r-rs0-0 saw its replica set's primary change 1 time(s) besides the 2 its disruptions caused") {
		t.Errorf("problems %+v", p)
	}
}

// TestPlannedRestarts: the restarts of a member whose pod a KillPrimary
// or RestartMember deleted (plannedRestarts, matched in the controller)
// do not make the run invalid, and the message says so; one more restart
// of it, or a restart of another member, still does. A pod deletion that
// Failed deleted nothing: the failover errors in its window count.
func TestPlannedRestarts(t *testing.T) {
	run := memberSet()
	res := &run.Status.Results[0]
	res.Disruptions = []benchv1.DisruptionResult{{Index: 0, Action: benchv1.DisruptionKillPrimary}}
	res.Server[0].Restarts, res.Server[0].PlannedRestarts = 1, 1
	res.Server[0].PrimaryChanges, res.Server[0].PlannedPrimaryChanges = 1, 1
	if p := Check(run); len(p) != 0 {
		t.Errorf("problems %+v, want none", p)
	}
	if msg := Summary(Check(run), Planned(run), Unchecked(run)); !strings.Contains(msg, "phase run: 1 planned restart(s) of r-rs0-0, whose pod the phase's disruptions deleted, not counted") {
		t.Errorf("message %q", msg)
	}
	res.Server[0].Restarts = 2
	res.Server[2].Restarts = 1
	p := Check(run)
	if len(p) != 2 || p[0].Reason != benchv1.ReasonProcessRestarted ||
		p[0].Message != "phase run: member r-rs0-0 restarted 1 time(s) besides the 1 its pod's deletion by a disruption caused" ||
		p[1].Message != "phase run: member r-rs0-2 restarted 1 time(s)" {
		t.Errorf("problems %+v", p)
	}

	// Errors of a failover in the window of a KillPrimary that deleted
	// nothing are the run's.
	run = memberSet()
	res = &run.Status.Results[0]
	sent := metav1.NowMicro()
	res.OperationStats[0].Errors = 10
	res.Disruptions = []benchv1.DisruptionResult{{Index: 0, Action: benchv1.DisruptionKillPrimary,
		Outcome: benchv1.DisruptionOutcome{State: benchv1.DisruptionFailed, Sent: &sent, Error: "loader 0's driver knew no primary"},
		Errors:  []benchv1.DisruptionErrorCount{{Label: "NotWritablePrimary", Count: 10}}}}
	if p := Check(run); len(p) != 1 || p[0].Reason != benchv1.ReasonTooManyErrors {
		t.Errorf("problems %+v, want the errors counted", p)
	}
	res.Disruptions[0].Outcome.State = benchv1.DisruptionDone
	if p := Check(run); len(p) != 0 {
		t.Errorf("problems %+v, want the errors of a Done KillPrimary not counted", p)
	}
}
