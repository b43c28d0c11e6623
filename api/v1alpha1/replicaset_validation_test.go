package v1alpha1_test

import (
	"context"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/topology"
)

// TestReplicaSetManifests: topology.members (1–7, ReplicaSet only), the
// write-concern bound tied to it (default 3), and readConcern snapshot
// refused on a standalone, at kubectl apply.
func TestReplicaSetManifests(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	bad := []struct{ name, spec, want string }{
		{"members on a standalone", `  topology: {mode: Standalone, members: 3}
`, "members can only be set when mode is ReplicaSet"},
		{"members on sharded", `  topology: {mode: Sharded, shards: 2, members: 3}
`, "members can only be set when mode is ReplicaSet"},
		{"no members", `  topology: {mode: ReplicaSet, members: 0}
`, "should be greater than or equal to 1"},
		{"eight members", `  topology: {mode: ReplicaSet, members: 8}
`, "should be less than or equal to 7"},
		{"w above members", `  topology: {mode: ReplicaSet, members: 2}
  driver: {writeConcern: "3"}
`, "driver.writeConcern 3 asks for more members than the replica set (topology.members) has: use at most topology.members, or majority"},
		{"w above the default members", `  topology: {mode: ReplicaSet}
  driver: {writeConcern: "4"}
`, "driver.writeConcern 4 asks for more members than the replica set"},
		{"snapshot on a standalone", `  topology: {mode: Standalone}
  driver: {readConcern: snapshot}
`, "driver.readConcern snapshot needs a replica set"},
		{"unknown read concern", `  topology: {mode: ReplicaSet}
  driver: {readConcern: linearizable}
`, `Unsupported value: "linearizable"`},
		{"shards on a replica set", `  topology: {mode: ReplicaSet, shards: 2}
`, "shards can only be set when mode is Sharded"},
	}
	for i, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := create(t, c, ns, run("rs-bad-"+itoa(i), tc.spec))
			if err == nil {
				t.Fatalf("accepted; want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q\ndoes not contain %q", err, tc.want)
			}
		})
	}
	good := []string{
		`  topology: {mode: ReplicaSet}
  driver: {writeConcern: "3", readConcern: snapshot, readPreference: secondaryPreferred}
`,
		`  topology: {mode: ReplicaSet, members: 7}
  driver: {writeConcern: "7", readConcern: majority, readPreference: nearest}
`,
		`  topology: {mode: ReplicaSet, members: 1}
  driver: {writeConcern: majority, readConcern: local}
`,
		`  topology: {mode: Sharded, shards: 2}
  driver: {readConcern: snapshot}
`,
		`  topology: {mode: Standalone}
  driver: {readConcern: majority}
`,
	}
	for i, spec := range good {
		if _, err := create(t, c, ns, run("rs-ok-"+itoa(i), spec)); err != nil {
			t.Errorf("rejected %s: %v", spec, err)
		}
	}
}

// TestReplicaSetDefaultMembersIsTheRules: the write-concern rule's default
// members is topology.DefaultMembers: w equal to it is accepted on a set
// without members, one more is not.
func TestReplicaSetDefaultMembersIsTheRules(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	ctx := context.Background()
	for _, tc := range []struct {
		w  int32
		ok bool
	}{{topology.DefaultMembers, true}, {topology.DefaultMembers + 1, false}} {
		name := "rs-default-" + itoa(int(tc.w))
		_, err := create(t, c, ns, run(name, "  topology: {mode: ReplicaSet}\n  driver: {writeConcern: \""+itoa(int(tc.w))+"\"}\n"))
		if (err == nil) != tc.ok {
			t.Errorf("w %d on a set of default members: %v, want accepted %v", tc.w, err, tc.ok)
		}
		if err == nil {
			var got benchv1.BenchmarkRun
			if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &got); err != nil {
				t.Fatal(err)
			}
			if got.Spec.Topology.Members != nil {
				t.Errorf("members defaulted to %d in the schema: the default is the builders' (topology.Members)", *got.Spec.Topology.Members)
			}
		}
	}
}

// TestReplicaSetSweepTopologies: a topologies axis takes ReplicaSet
// values with members, members only there, and tells two sets apart by
// members (unset being 3).
func TestReplicaSetSweepTopologies(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	for i, tc := range []struct{ body, want string }{
		{`  axes: [{name: topologies, topologies: [{mode: Sharded, shards: 2, members: 1}]}]
`, "members can only be set when mode is ReplicaSet"},
		{`  axes: [{name: topologies, topologies: [{mode: ReplicaSet, members: 3}, {mode: ReplicaSet}]}]
`, "topologies must be unique within an axis"},
		{`  axes: [{name: topologies, topologies: [{mode: ReplicaSet, members: 8}]}]
`, "should be less than or equal to 7"},
	} {
		_, err := create(t, c, ns, sweepManifest("rs-sweep-bad-"+itoa(i), tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.body, err, tc.want)
		}
	}
	ok := `  axes: [{name: topologies, topologies: [{mode: ReplicaSet, members: 1}, {mode: ReplicaSet}, {mode: Sharded, shards: 2}]}]
  baseline: {topologies: rs-1}
`
	if _, err := create(t, c, ns, sweepManifest("rs-sweep-ok", ok)); err != nil {
		t.Errorf("rejected: %v", err)
	}
}

// TestShardMembersManifests: shardMembers (1–7) and configServerMembers
// (1 or 3), Sharded only; w bound to shardMembers, 1 when unset
// (topology.DefaultShardMembers).
func TestShardMembersManifests(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	for i, tc := range []struct{ spec, want string }{
		{"  topology: {mode: Standalone, shardMembers: 3}\n", "shardMembers and configServerMembers can only be set when mode is Sharded"},
		{"  topology: {mode: ReplicaSet, configServerMembers: 3}\n", "shardMembers and configServerMembers can only be set when mode is Sharded"},
		{"  topology: {mode: Sharded, shards: 2, configServerMembers: 2}\n", `Unsupported value: 2`},
		{"  topology: {mode: Sharded, shards: 2, shardMembers: 8}\n", "should be less than or equal to 7"},
		{"  topology: {mode: Sharded, shards: 2, shardMembers: 3}\n  driver: {writeConcern: \"4\"}\n",
			"driver.writeConcern 4 asks for more members than each shard (topology.shardMembers) has: use at most topology.shardMembers, or majority"},
		{"  topology: {mode: Sharded, shards: 2, shardMembers: 1}\n  driver: {writeConcern: \"2\"}\n",
			"driver.writeConcern 2 asks for more members than each shard (a one-member replica set) has: use 0, 1 or majority"},
	} {
		_, err := create(t, c, ns, run("sm-bad-"+itoa(i), tc.spec))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v\nwant %q", tc.spec, err, tc.want)
		}
	}
	for i, spec := range []string{
		"  topology: {mode: Sharded, shards: 2, shardMembers: 3, configServerMembers: 3}\n  driver: {writeConcern: \"3\"}\n",
		"  topology: {mode: Sharded, shards: 2, shardMembers: 7}\n  driver: {writeConcern: majority}\n",
		"  topology: {mode: Sharded, shards: 2}\n  driver: {writeConcern: \"" + itoa(int(topology.DefaultShardMembers)) + "\"}\n",
	} {
		if _, err := create(t, c, ns, run("sm-ok-"+itoa(i), spec)); err != nil {
			t.Errorf("rejected %s: %v", spec, err)
		}
	}
	if _, err := create(t, c, ns, run("sm-default-over", "  topology: {mode: Sharded, shards: 2}\n  driver: {writeConcern: \""+
		itoa(int(topology.DefaultShardMembers)+1)+"\"}\n")); err == nil {
		t.Error("w above the default shardMembers accepted")
	}
}
