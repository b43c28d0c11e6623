package controllers

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/telemetry"
)

// targetRun is a run of that name and mode (3 members; Sharded: 2
// shards of 3 members, a config server of 3) and a phase with d.
func targetRun(name string, mode benchv1.TopologyMode, d ...benchv1.Disruption) (*benchv1.BenchmarkRun, *benchv1.PhaseSpec) {
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}
	run.Spec.Topology.Mode = mode
	if mode == benchv1.TopologySharded {
		run.Spec.Topology.Shards, run.Spec.Topology.ShardMembers, run.Spec.Topology.ConfigServerMembers = ptrTo[int32](2), ptrTo[int32](3), ptrTo[int32](3)
	}
	run.Spec.Phases = []benchv1.PhaseSpec{{Name: "run", Type: benchv1.PhaseRun, Disruptions: d}}
	return run, &run.Spec.Phases[0]
}

// TestExplainShardElections: in a Sharded topology, a StepDown of shard 1
// explains the changes of primary its members saw, not those of shard 0's
// or the config server's members, which stay unplanned.
func TestExplainShardElections(t *testing.T) {
	instant := time.Date(2026, 11, 27, 10, 0, 30, 0, time.UTC)
	sent := metav1.NewMicroTime(instant)
	change := []time.Time{instant.Add(2 * time.Second)}
	run, ph := targetRun("r", benchv1.TopologySharded,
		benchv1.Disruption{Action: benchv1.DisruptionStepDown, Target: ptrTo(intstr.FromInt32(1))})
	rep := &telemetry.Payload{}
	res := &benchv1.PhaseResult{Disruptions: []benchv1.DisruptionResult{{Action: benchv1.DisruptionStepDown, Target: "shard1",
		Instant: sent, Outcome: benchv1.DisruptionOutcome{State: benchv1.DisruptionDone, Sent: &sent}}}}
	for _, p := range []struct {
		pod  string
		role benchv1.ProcessRole
	}{{"r-shard1-1", benchv1.RoleShard}, {"r-shard0-1", benchv1.RoleShard}, {"r-cfg-1", benchv1.RoleConfigServer}} {
		rep.Processes = append(rep.Processes, telemetry.ProcessPayload{Role: string(p.role), Pod: p.pod,
			Series: telemetry.Series{PrimaryChanges: 1, PrimaryChangeTimes: change}})
		res.Server = append(res.Server, benchv1.ServerSummary{Role: p.role, Pod: p.pod, PrimaryChanges: 1})
	}
	explainElections(rep, res, time.Second, run, ph)
	for i, want := range []int32{1, 0, 0} {
		if got := res.Server[i].PlannedPrimaryChanges; got != want {
			t.Errorf("%s: %d planned, want %d", res.Server[i].Pod, got, want)
		}
	}
	if np := res.Disruptions[0].NewPrimaryTelemetryMicros; np == nil || *np != 2_000_000 {
		t.Errorf("new primary from telemetry after %v µs, want 2 s (shard 1's member)", np)
	}
}

// TestExplainExternalElections: a StepDown of an External replica set
// explains the changes of primary its discovered members saw (named by
// their hosts).
func TestExplainExternalElections(t *testing.T) {
	instant := time.Date(2026, 11, 27, 10, 0, 30, 0, time.UTC)
	sent := metav1.NewMicroTime(instant)
	run, ph := targetRun("x", benchv1.TopologyExternal, benchv1.Disruption{Action: benchv1.DisruptionStepDown})
	run.Spec.Topology.External = &benchv1.ExternalSpec{AllowDisruptingExternal: true}
	change := []time.Time{instant.Add(3 * time.Second)}
	rep := &telemetry.Payload{Processes: []telemetry.ProcessPayload{
		{Role: "member", Pod: "db-1.example.net:27017", Series: telemetry.Series{PrimaryChanges: 1, PrimaryChangeTimes: change}}}}
	res := &benchv1.PhaseResult{
		Server: []benchv1.ServerSummary{{Role: benchv1.RoleMember, Pod: "db-1.example.net:27017", PrimaryChanges: 1}},
		Disruptions: []benchv1.DisruptionResult{{Action: benchv1.DisruptionStepDown, Instant: sent,
			Outcome: benchv1.DisruptionOutcome{State: benchv1.DisruptionDone, Sent: &sent}}}}
	explainElections(rep, res, time.Second, run, ph)
	if got := res.Server[0].PlannedPrimaryChanges; got != 1 {
		t.Errorf("%d planned, want 1", got)
	}
}

// TestExplainElections: a member's change of primary within a StepDown's
// stretch — from when it was sent to 30 s after its instant, plus one
// sampling interval — is planned, whatever the outcome but NotReached or
// a failure before sending; the first one after the instant is the new
// primary's time from telemetry.
func TestExplainElections(t *testing.T) {
	instant := time.Date(2026, 11, 27, 10, 0, 30, 0, time.UTC)
	sent := metav1.NewMicroTime(instant)
	at := func(d time.Duration) time.Time { return instant.Add(d) }
	for _, tc := range []struct {
		name      string
		outcome   benchv1.DisruptionOutcome
		changes   []time.Time // of member rs-rs0-1; rs-rs0-0 saw one at +1.5 s
		role      benchv1.ProcessRole
		planned   int32 // of rs-rs0-1
		newPrimMs int64 // -1: none
	}{
		{"done: both in the stretch", benchv1.DisruptionOutcome{State: benchv1.DisruptionDone, Sent: &sent},
			[]time.Time{at(2 * time.Second), at(3 * time.Second)}, benchv1.RoleMember, 2, 1500},
		{"one before the instant, one after the stretch", benchv1.DisruptionOutcome{State: benchv1.DisruptionDone, Sent: &sent},
			[]time.Time{at(-time.Second), at(31 * time.Second), at(32 * time.Second)}, benchv1.RoleMember, 1, 1500},
		{"unknown counts", benchv1.DisruptionOutcome{State: benchv1.DisruptionUnknown, Sent: &sent},
			[]time.Time{at(time.Second)}, benchv1.RoleMember, 1, 1000},
		{"failed after sending counts", benchv1.DisruptionOutcome{State: benchv1.DisruptionFailed, Sent: &sent},
			[]time.Time{at(time.Second)}, benchv1.RoleMember, 1, 1000},
		{"failed before sending does not", benchv1.DisruptionOutcome{State: benchv1.DisruptionFailed},
			[]time.Time{at(time.Second)}, benchv1.RoleMember, 0, -1},
		{"not reached does not", benchv1.DisruptionOutcome{State: benchv1.DisruptionNotReached},
			[]time.Time{at(time.Second)}, benchv1.RoleMember, 0, -1},
		{"not a member of the set it hit", benchv1.DisruptionOutcome{State: benchv1.DisruptionDone, Sent: &sent},
			[]time.Time{at(time.Second)}, benchv1.RoleShard, 0, 1500},
	} {
		pod := "rs-rs0-1"
		if tc.role != benchv1.RoleMember {
			pod = "rs-shard0" // no pod of the ReplicaSet topology
		}
		t.Run(tc.name, func(t *testing.T) {
			rep := &telemetry.Payload{Processes: []telemetry.ProcessPayload{
				{Role: "member", Pod: "rs-rs0-0", Series: telemetry.Series{PrimaryChanges: 1, PrimaryChangeTimes: []time.Time{at(1500 * time.Millisecond)}}},
				{Role: string(tc.role), Pod: pod, Series: telemetry.Series{PrimaryChanges: len(tc.changes), PrimaryChangeTimes: tc.changes}},
			}}
			res := &benchv1.PhaseResult{
				Server: []benchv1.ServerSummary{{Role: benchv1.RoleMember, Pod: "rs-rs0-0", PrimaryChanges: 1},
					{Role: tc.role, Pod: pod, PrimaryChanges: int32(len(tc.changes))}},
				Disruptions: []benchv1.DisruptionResult{{Action: benchv1.DisruptionStepDown, Instant: metav1.NewMicroTime(instant), Outcome: tc.outcome}},
			}
			run, ph := targetRun("rs", benchv1.TopologyReplicaSet, benchv1.Disruption{Action: benchv1.DisruptionStepDown})
			explainElections(rep, res, time.Second, run, ph)
			if got := res.Server[1].PlannedPrimaryChanges; got != tc.planned {
				t.Errorf("rs-rs0-1: %d planned, want %d", got, tc.planned)
			}
			np := res.Disruptions[0].NewPrimaryTelemetryMicros
			switch {
			case tc.newPrimMs < 0 && np != nil:
				t.Errorf("new primary after %d µs, want none", *np)
			case tc.newPrimMs >= 0 && (np == nil || *np != tc.newPrimMs*1000):
				t.Errorf("new primary after %v µs, want %d ms", np, tc.newPrimMs)
			}
		})
	}
}

// TestDisruptionErrorsAreBounded: the most frequent labels first, at most
// maxDisruptionErrorLabels, the rest (and an Other of the loader's own)
// folded into Other; labels cut to their bound.
func TestDisruptionErrorsAreBounded(t *testing.T) {
	errs := map[string]int64{"Other": 1, strings.Repeat("x", 100): 7}
	for i := range 20 {
		errs[fmt.Sprintf("Code%02d", i)] = int64(100 - i)
	}
	got := disruptionErrors(errs)
	if len(got) != maxDisruptionErrorLabels {
		t.Fatalf("%d labels: %+v", len(got), got)
	}
	if got[0] != (benchv1.DisruptionErrorCount{Label: "Code00", Count: 100}) || got[len(got)-1].Label != "Other" {
		t.Errorf("first %+v, last %+v: want Code00 first, Other last", got[0], got[len(got)-1])
	}
	var total, want int64
	seen := map[string]bool{}
	for _, e := range got {
		total += e.Count
		if len(e.Label) > maxDisruptionLabel || seen[e.Label] {
			t.Errorf("label %q too long or repeated", e.Label)
		}
		seen[e.Label] = true
	}
	for _, n := range errs {
		want += n
	}
	if total != want || !seen["Other"] {
		t.Errorf("%d errors listed, want %d, with Other: %+v", total, want, got)
	}
	if disruptionErrors(nil) != nil {
		t.Error("no errors: want nil")
	}
}

// TestCheckDisruptions: a merged result must hold exactly the phase's
// disruptions.
func TestCheckDisruptions(t *testing.T) {
	ph := &benchv1.PhaseSpec{Name: "run", Type: benchv1.PhaseRun, Disruptions: []benchv1.Disruption{
		{At: metav1.Duration{Duration: 30 * time.Second}, Action: benchv1.DisruptionStepDown},
		{At: metav1.Duration{Duration: 90 * time.Second}, Action: benchv1.DisruptionStepDown}}}
	ok := func() *results.Result {
		return &results.Result{Disruptions: []results.Disruption{{Index: 0, Action: "StepDown", AtMillis: 30_000}, {Index: 1, Action: "StepDown", AtMillis: 90_000}}}
	}
	if err := checkDisruptions(ph, ok()); err != nil {
		t.Errorf("the phase's own: %v", err)
	}
	for name, edit := range map[string]func(*results.Result){
		"one missing": func(r *results.Result) { r.Disruptions = r.Disruptions[:1] },
		"none":        func(r *results.Result) { r.Disruptions = nil },
		"another at":  func(r *results.Result) { r.Disruptions[1].AtMillis = 91_000 },
		"swapped":     func(r *results.Result) { r.Disruptions[0].Index, r.Disruptions[1].Index = 1, 0 },
	} {
		r := ok()
		edit(r)
		if err := checkDisruptions(ph, r); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestDisruptionOutcome: times become a sent instant and a duration; a
// missing outcome is Unknown, never Done.
func TestDisruptionOutcome(t *testing.T) {
	sent := time.Date(2026, 11, 27, 10, 0, 30, 123456000, time.UTC)
	ret := sent.Add(1234567 * time.Microsecond)
	got := disruptionOutcome(&results.DisruptionOutcome{State: results.DisruptionDone, Sent: sent, Returned: &ret, Primary: "a:27017"})
	want := benchv1.DisruptionOutcome{State: benchv1.DisruptionDone, Sent: &metav1.MicroTime{Time: sent}, DurationMicros: ptrTo[int64](1234567), Primary: "a:27017"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("outcome %+v, want %+v", got, want)
	}
	if got := disruptionOutcome(&results.DisruptionOutcome{State: results.DisruptionNotReached}); got.Sent != nil || got.DurationMicros != nil {
		t.Errorf("not reached: %+v", got)
	}
	if got := disruptionOutcome(nil); got.State != benchv1.DisruptionUnknown || got.Error == "" {
		t.Errorf("no outcome: %+v", got)
	}
	long := disruptionOutcome(&results.DisruptionOutcome{State: results.DisruptionFailed, Sent: sent, Returned: &ret, Error: strings.Repeat("e", 5000)})
	if len(long.Error) > maxDisruptionError {
		t.Errorf("error of %d bytes", len(long.Error))
	}
}

// TestPausesEnd: a phase's Job deadline leaves room for its loaders to
// wait for a Pause's report: the latest Pause's instant, duration and the
// report's wait; nothing without Pauses.
func TestPausesEnd(t *testing.T) {
	_, ph := targetRun("r", benchv1.TopologyReplicaSet,
		benchv1.Disruption{Action: benchv1.DisruptionStepDown, At: metav1.Duration{Duration: time.Minute}})
	if got := pausesEnd(ph); got != 0 {
		t.Errorf("without Pauses: %v", got)
	}
	ph.Disruptions = append(ph.Disruptions,
		benchv1.Disruption{Action: benchv1.DisruptionPause, At: metav1.Duration{Duration: 30 * time.Second}, Duration: &metav1.Duration{Duration: time.Minute}},
		benchv1.Disruption{Action: benchv1.DisruptionPause, At: metav1.Duration{Duration: 50 * time.Second}, Duration: &metav1.Duration{Duration: 15 * time.Second}})
	if got, want := pausesEnd(ph), 90*time.Second+contract.PauseReportWait; got != want {
		t.Errorf("pausesEnd %v, want %v", got, want)
	}
}

// TestPauseStretch: a Pause explains the elections that follow it, up to
// 30 s after its thaw, once it froze something; a Pause that Failed
// before it froze anything explains none.
func TestPauseStretch(t *testing.T) {
	instant := time.Date(2026, 11, 27, 10, 0, 30, 0, time.UTC)
	sent := metav1.NewMicroTime(instant)
	frozen := metav1.NewMicroTime(instant.Add(time.Second))
	dur := (16 * time.Second).Microseconds()
	done := benchv1.DisruptionResult{Action: benchv1.DisruptionPause, Instant: sent,
		Outcome: benchv1.DisruptionOutcome{State: benchv1.DisruptionDone, Sent: &sent, DurationMicros: &dur, Frozen: &frozen}}
	if _, to, ok := stretch(&done); !ok || !to.Equal(instant.Add(46*time.Second)) {
		t.Errorf("done: to %v, %v; want 30 s after the thaw (16 s after the request)", to, ok)
	}
	refused := benchv1.DisruptionResult{Action: benchv1.DisruptionPause, Instant: sent,
		Outcome: benchv1.DisruptionOutcome{State: benchv1.DisruptionFailed, Sent: &sent, DurationMicros: &dur}}
	if _, _, ok := stretch(&refused); ok {
		t.Error("a Pause that froze nothing explains elections")
	}
}
