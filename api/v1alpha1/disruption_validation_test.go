package v1alpha1_test

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestDisruptionManifests: spec.phases[].disruptions is checked at kubectl
// apply — a StepDown, KillPrimary or RestartMember on a ReplicaSet of at
// least two members, in a Load or Run phase, before maxExecutionTime,
// without a warm-up by operations, at most 10 per phase, with a stepdown
// period longer than the catch-up (StepDown's fields on StepDown only),
// and RestartMember's member (and only its) naming a member that exists.
func TestDisruptionManifests(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	rs := "  topology: {mode: ReplicaSet, members: 3}\n  workload: {preset: a, recordCount: 1000}\n"
	phases := func(run string) string {
		return "  phases:\n  - {name: load, type: Load}\n  - " + run + "\n"
	}
	stepDown := "{at: 30s, action: StepDown}"
	many := make([]string, 11)
	for i := range many {
		many[i] = fmt.Sprintf("{at: %ds, action: StepDown}", 10+i)
	}
	cases := []struct{ name, spec, want string }{
		// Accepted.
		{"a StepDown with its defaults", rs + phases("{name: run, type: Run, maxExecutionTime: 2m, disruptions: ["+stepDown+"]}"), ""},
		{"a StepDown at 0s in a Load phase", rs + "  phases:\n  - {name: load, type: Load, disruptions: [{at: 0s, action: StepDown}]}\n", ""},
		{"two members, a timed warm-up, ten StepDowns", "  topology: {mode: ReplicaSet, members: 2}\n  workload: {preset: a}\n" +
			phases("{name: run, type: Run, warmup: {duration: 10s}, disruptions: ["+strings.Join(many[:10], ", ")+"]}"), ""},
		{"the default members (3)", "  topology: {mode: ReplicaSet}\n  workload: {preset: a}\n" + phases("{name: run, type: Run, disruptions: ["+stepDown+"]}"), ""},
		{"explicit periods", rs + phases("{name: run, type: Run, disruptions: [{at: 1m, action: StepDown, stepDownSecs: 11, secondaryCatchUpPeriodSecs: 10}]}"), ""},
		{"catch-up 0 (force-like)", rs + phases("{name: run, type: Run, disruptions: [{at: 1m, action: StepDown, stepDownSecs: 1, secondaryCatchUpPeriodSecs: 0}]}"), ""},
		{"a KillPrimary", rs + phases("{name: run, type: Run, disruptions: [{at: 30s, action: KillPrimary}]}"), ""},
		{"RestartMember by index, primary, secondary", rs + phases("{name: run, type: Run, disruptions: [{at: 10s, action: RestartMember, member: 2}, "+
			"{at: 20s, action: RestartMember, member: primary}, {at: 30s, action: RestartMember, member: secondary}]}"), ""},
		{"RestartMember of the default members' last", "  topology: {mode: ReplicaSet}\n  workload: {preset: a}\n" +
			phases("{name: run, type: Run, disruptions: [{at: 1m, action: RestartMember, member: 2}]}"), ""},
		{"a KillMongos on Sharded", "  topology: {mode: Sharded, shards: 2}\n  workload: {preset: a}\n" +
			phases("{name: run, type: Run, disruptions: [{at: 30s, action: KillMongos}, {at: 90s, action: KillMongos}]}"), ""},
		{"a StepDown, KillPrimary and RestartMember of a shard of 3", "  topology: {mode: Sharded, shards: 2, shardMembers: 3, configServerMembers: 3}\n  workload: {preset: a}\n" +
			phases("{name: run, type: Run, disruptions: [{at: 10s, action: StepDown, target: 1}, {at: 20s, action: KillPrimary, target: 0}, "+
				"{at: 30s, action: RestartMember, target: 1, member: 2}, {at: 40s, action: RestartMember, target: 0, member: secondary}]}"), ""},
		{"a StepDown and RestartMember of the config server of 3", "  topology: {mode: Sharded, shards: 2, shardMembers: 3, configServerMembers: 3}\n  workload: {preset: a}\n" +
			phases("{name: run, type: Run, disruptions: [{at: 10s, action: StepDown, target: configServer}, {at: 20s, action: RestartMember, target: configServer, member: 2}]}"), ""},
		{"a KillPrimary and RestartMember of a one-member shard", "  topology: {mode: Sharded, shards: 2}\n  workload: {preset: a}\n" +
			phases("{name: run, type: Run, disruptions: [{at: 10s, action: KillPrimary, target: 1}, {at: 20s, action: RestartMember, target: 0, member: 0}, "+
				"{at: 30s, action: RestartMember, target: configServer, member: primary}]}"), ""},
		{"a StepDown of an External cluster, allowed", ext("      allowDisruptingExternal: true\n") + "  workload: {preset: a}\n" +
			phases("{name: run, type: Run, disruptions: ["+stepDown+"]}"), ""},
		{"a Pause of the primary, a secondary and member 2", rs + phases("{name: run, type: Run, disruptions: [{at: 10s, action: Pause, member: primary, duration: 15s}, "+
			"{at: 40s, action: Pause, member: secondary, duration: 1s}, {at: 50s, action: Pause, member: 2, duration: 20s}]}"), ""},
		{"a Pause of a shard's primary", "  topology: {mode: Sharded, shards: 2, shardMembers: 3, configServerMembers: 3}\n  workload: {preset: a}\n" + phases("{name: run, type: Run, disruptions: [{at: 10s, action: Pause, target: 1, member: primary, duration: 20s}]}"), ""},
		{"an empty list on a Standalone", "  topology: {mode: Standalone}\n  workload: {preset: a}\n" + phases("{name: run, type: Run, disruptions: []}"), ""},
		// Rejected.
		{"on a Standalone", "  topology: {mode: Standalone}\n  workload: {preset: a}\n" + phases("{name: run, type: Run, disruptions: ["+stepDown+"]}"),
			"disruptions need a replica set: a Standalone has no primary to step down"},
		{"on Sharded without a target", "  topology: {mode: Sharded, shards: 2, shardMembers: 3, configServerMembers: 3}\n  workload: {preset: a}\n" + phases("{name: run, type: Run, disruptions: ["+stepDown+"]}"),
			"on a Sharded topology, StepDown, KillPrimary, RestartMember and Pause need a target"},
		{"a StepDown without a target beside a KillMongos on Sharded", "  topology: {mode: Sharded, shards: 2, shardMembers: 3, configServerMembers: 3}\n  workload: {preset: a}\n" +
			phases("{name: run, type: Run, disruptions: [{at: 30s, action: KillMongos}, "+stepDown+"]}"), "need a target"},
		{"a target shard at topology.shards", "  topology: {mode: Sharded, shards: 2, shardMembers: 3, configServerMembers: 3}\n  workload: {preset: a}\n" + phases("{name: run, type: Run, disruptions: [{at: 30s, action: KillPrimary, target: 2}]}"),
			"a disruption's target shard must be below topology.shards"},
		{"a negative target", "  topology: {mode: Sharded, shards: 2, shardMembers: 3, configServerMembers: 3}\n  workload: {preset: a}\n" + phases("{name: run, type: Run, disruptions: [{at: 30s, action: KillPrimary, target: -1}]}"),
			"target is a shard's index (0 to topology.shards - 1) or configServer"},
		{"an unknown target", "  topology: {mode: Sharded, shards: 2, shardMembers: 3, configServerMembers: 3}\n  workload: {preset: a}\n" + phases("{name: run, type: Run, disruptions: [{at: 30s, action: KillPrimary, target: mongos}]}"),
			"target is a shard's index (0 to topology.shards - 1) or configServer"},
		{"a target on KillMongos", "  topology: {mode: Sharded, shards: 2, shardMembers: 3, configServerMembers: 3}\n  workload: {preset: a}\n" + phases("{name: run, type: Run, disruptions: [{at: 30s, action: KillMongos, target: 0}]}"),
			"KillMongos takes no target"},
		{"a target on a ReplicaSet", rs + phases("{name: run, type: Run, disruptions: [{at: 30s, action: KillPrimary, target: 0}]}"),
			"target picks a shard or the config server of a Sharded topology"},
		{"a StepDown of a one-member shard", "  topology: {mode: Sharded, shards: 2}\n  workload: {preset: a}\n" + phases("{name: run, type: Run, disruptions: [{at: 30s, action: StepDown, target: 0}]}"),
			"a StepDown, or a RestartMember of a secondary, needs its target replica set to have at least 2 members"},
		{"a StepDown of the default config server", "  topology: {mode: Sharded, shards: 2, shardMembers: 3}\n  workload: {preset: a}\n" +
			phases("{name: run, type: Run, disruptions: [{at: 30s, action: StepDown, target: configServer}]}"),
			"needs its target replica set to have at least 2 members"},
		{"a RestartMember of a one-member shard's secondary", "  topology: {mode: Sharded, shards: 2}\n  workload: {preset: a}\n" +
			phases("{name: run, type: Run, disruptions: [{at: 30s, action: RestartMember, target: 1, member: secondary}]}"), "at least 2 members"},
		{"a shard member index at shardMembers", "  topology: {mode: Sharded, shards: 2, shardMembers: 3, configServerMembers: 3}\n  workload: {preset: a}\n" +
			phases("{name: run, type: Run, disruptions: [{at: 30s, action: RestartMember, target: 1, member: 3}]}"), "a RestartMember's member index must be below the members of its replica set"},
		{"a one-member shard's member 1", "  topology: {mode: Sharded, shards: 2}\n  workload: {preset: a}\n" +
			phases("{name: run, type: Run, disruptions: [{at: 30s, action: RestartMember, target: 1, member: 1}]}"), "member index must be below"},
		{"on External", ext("") + "  workload: {preset: a}\n" + phases("{name: run, type: Run, disruptions: ["+stepDown+"]}"),
			"set topology.external.allowDisruptingExternal: true to allow them"},
		{"on External, not allowed", ext("      allowDisruptingExternal: false\n") + "  workload: {preset: a}\n" + phases("{name: run, type: Run, disruptions: ["+stepDown+"]}"),
			"set topology.external.allowDisruptingExternal: true to allow them"},
		{"a KillPrimary on External, allowed", ext("      allowDisruptingExternal: true\n") + "  workload: {preset: a}\n" +
			phases("{name: run, type: Run, disruptions: [{at: 30s, action: KillPrimary}]}"), "an External cluster takes StepDown only"},
		{"a target on External", ext("      allowDisruptingExternal: true\n") + "  workload: {preset: a}\n" +
			phases("{name: run, type: Run, disruptions: [{at: 30s, action: StepDown, target: 0}]}"), "target picks a shard or the config server of a Sharded topology"},
		{"a KillMongos on a ReplicaSet", rs + phases("{name: run, type: Run, disruptions: [{at: 1m, action: KillMongos}]}"),
			"KillMongos needs a Sharded topology: only it has a mongos"},
		{"a KillMongos on a Standalone", "  topology: {mode: Standalone}\n  workload: {preset: a}\n" +
			phases("{name: run, type: Run, disruptions: [{at: 1m, action: KillMongos}]}"), "KillMongos needs a Sharded topology"},
		{"a member on KillMongos", "  topology: {mode: Sharded, shards: 2}\n  workload: {preset: a}\n" +
			phases("{name: run, type: Run, disruptions: [{at: 1m, action: KillMongos, member: 0}]}"), "member is RestartMember's and Pause's, and they need it"},
		{"one member", "  topology: {mode: ReplicaSet, members: 1}\n  workload: {preset: a}\n" + phases("{name: run, type: Run, disruptions: ["+stepDown+"]}"),
			"disruptions need a replica set of at least 2 members (topology.members): with one there is no secondary to elect"},
		{"a Grow phase", "  topology: {mode: ReplicaSet}\n  phases:\n  - {name: grow, type: Grow, grow: {targetRecords: 10}, disruptions: [" + stepDown + "]}\n",
			"disruptions are for Load and Run phases"},
		{"at maxExecutionTime", rs + phases("{name: run, type: Run, maxExecutionTime: 30s, disruptions: [{at: 10s, action: StepDown}, "+stepDown+"]}"),
			"a disruption at or after maxExecutionTime (30s) never happens: the phase stops then; every disruptions[].at must be shorter"},
		{"after maxExecutionTime", rs + phases("{name: run, type: Run, maxExecutionTime: 1m, disruptions: [{at: 90s, action: StepDown}]}"),
			"a disruption at or after maxExecutionTime (1m) never happens"},
		{"a warm-up by operations", rs + phases("{name: run, type: Run, warmup: {operations: 100}, disruptions: ["+stepDown+"]}"),
			"disruptions need the measured window to start at one instant in every loader: use warmup.duration"},
		{"eleven", rs + phases("{name: run, type: Run, disruptions: ["+strings.Join(many, ", ")+"]}"), "must have at most 10 items"},
		{"stepDownSecs equal to the catch-up", rs + phases("{name: run, type: Run, disruptions: [{at: 1m, action: StepDown, stepDownSecs: 10}]}"),
			"stepDownSecs must be greater than secondaryCatchUpPeriodSecs (defaults 60 and 10)"},
		{"a catch-up beyond the default stepdown", rs + phases("{name: run, type: Run, disruptions: [{at: 1m, action: StepDown, secondaryCatchUpPeriodSecs: 60}]}"),
			"stepDownSecs must be greater than secondaryCatchUpPeriodSecs"},
		{"stepDownSecs 0", rs + phases("{name: run, type: Run, disruptions: [{at: 1m, action: StepDown, stepDownSecs: 0, secondaryCatchUpPeriodSecs: 0}]}"),
			"stepDownSecs: Invalid value: 0"},
		{"an unknown action", rs + phases("{name: run, type: Run, disruptions: [{at: 1m, action: Freeze}]}"), `Unsupported value: "Freeze"`},
		{"a Pause without duration", rs + phases("{name: run, type: Run, disruptions: [{at: 1m, action: Pause, member: primary}]}"),
			"duration is Pause's, and Pause needs it"},
		{"a Pause without member", rs + phases("{name: run, type: Run, disruptions: [{at: 1m, action: Pause, duration: 5s}]}"),
			"member is RestartMember's and Pause's, and they need it"},
		{"a duration on StepDown", rs + phases("{name: run, type: Run, disruptions: [{at: 1m, action: StepDown, duration: 5s}]}"),
			"duration is Pause's"},
		{"a Pause under a second", rs + phases("{name: run, type: Run, disruptions: [{at: 1m, action: Pause, member: primary, duration: 500ms}]}"),
			"duration must be between 1s and 20s"},
		{"a Pause beyond 20s", rs + phases("{name: run, type: Run, disruptions: [{at: 1m, action: Pause, member: primary, duration: 21s}]}"),
			"duration must be between 1s and 20s"},
		{"a Pause on Sharded without a target", "  topology: {mode: Sharded, shards: 2, shardMembers: 3, configServerMembers: 3}\n  workload: {preset: a}\n" + phases("{name: run, type: Run, disruptions: [{at: 1m, action: Pause, member: primary, duration: 5s}]}"),
			"StepDown, KillPrimary, RestartMember and Pause need a target"},
		{"a Pause of an External cluster", ext("      allowDisruptingExternal: true\n") + "  workload: {preset: a}\n" +
			phases("{name: run, type: Run, disruptions: [{at: 30s, action: Pause, member: primary, duration: 5s}]}"), "an External cluster takes StepDown only"},
		{"a KillPrimary on one member", "  topology: {mode: ReplicaSet, members: 1}\n  workload: {preset: a}\n" +
			phases("{name: run, type: Run, disruptions: [{at: 1m, action: KillPrimary}]}"), "disruptions need a replica set of at least 2 members"},
		{"a KillPrimary on Sharded without a target", "  topology: {mode: Sharded, shards: 2}\n  workload: {preset: a}\n" +
			phases("{name: run, type: Run, disruptions: [{at: 1m, action: KillPrimary}]}"), "need a target"},
		{"RestartMember without member", rs + phases("{name: run, type: Run, disruptions: [{at: 1m, action: RestartMember}]}"),
			"member is RestartMember's and Pause's, and they need it"},
		{"a member on KillPrimary", rs + phases("{name: run, type: Run, disruptions: [{at: 1m, action: KillPrimary, member: 1}]}"),
			"member is RestartMember's and Pause's, and they need it"},
		{"a member on StepDown", rs + phases("{name: run, type: Run, disruptions: [{at: 1m, action: StepDown, member: primary}]}"),
			"member is RestartMember's and Pause's, and they need it"},
		{"a member index at topology.members", rs + phases("{name: run, type: Run, disruptions: [{at: 1m, action: RestartMember, member: 3}]}"),
			"a RestartMember's member index must be below the members of its replica set: topology.members (default 3)"},
		{"a member index beyond the default members", "  topology: {mode: ReplicaSet}\n  workload: {preset: a}\n" +
			phases("{name: run, type: Run, disruptions: [{at: 1m, action: RestartMember, member: 5}]}"), "must be below the members of its replica set: topology.members (default 3)"},
		{"a negative member index", rs + phases("{name: run, type: Run, disruptions: [{at: 1m, action: RestartMember, member: -1}]}"),
			"member is a member's index (0 to topology.members - 1), primary or secondary"},
		{"an unknown member", rs + phases("{name: run, type: Run, disruptions: [{at: 1m, action: RestartMember, member: arbiter}]}"),
			"member is a member's index (0 to topology.members - 1), primary or secondary"},
		{"a member index as a string", rs + phases("{name: run, type: Run, disruptions: [{at: 1m, action: RestartMember, member: \"1\"}]}"),
			"member is a member's index (0 to topology.members - 1), primary or secondary"},
		{"stepDownSecs on KillPrimary", rs + phases("{name: run, type: Run, disruptions: [{at: 1m, action: KillPrimary, stepDownSecs: 30}]}"),
			"stepDownSecs and secondaryCatchUpPeriodSecs are replSetStepDown's: only for action StepDown"},
		{"secondaryCatchUpPeriodSecs on RestartMember", rs + phases("{name: run, type: Run, disruptions: [{at: 1m, action: RestartMember, member: 0, secondaryCatchUpPeriodSecs: 5}]}"),
			"only for action StepDown"},
		{"no action", rs + phases("{name: run, type: Run, disruptions: [{at: 1m}]}"), "action: Required value"},
		{"a negative at", rs + phases("{name: run, type: Run, disruptions: [{at: -1s, action: StepDown}]}"), "at must be between 0s and 24h"},
		{"an at beyond a day", rs + phases("{name: run, type: Run, disruptions: [{at: 25h, action: StepDown}]}"), "at must be between 0s and 24h"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u, err := create(t, c, ns, run(fmt.Sprintf("disrupt-%d", i), tc.spec))
			expectAdmission(t, err, tc.want)
			if i == 0 {
				// Defaults are applied by the controller, not stored.
				ds, _, _ := unstructured.NestedSlice(u.Object, "spec", "phases")
				d := ds[1].(map[string]any)["disruptions"].([]any)[0].(map[string]any)
				if _, ok := d["stepDownSecs"]; ok {
					t.Errorf("stepDownSecs stored as %v; the default is the controller's", d["stepDownSecs"])
				}
			}
		})
	}
}
