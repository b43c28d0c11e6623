package mongoadmin

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/results"
)

// fakeSet is a multi-member replica set of the fake after its initiate,
// modelled on what replSetGetStatus shows of a fresh set (mongodb/mongo
// src/mongo/db/repl/member_state.h; the docs' replSetGetStatus output):
// the other members in STARTUP2 (initial sync) until they become
// SECONDARY, the initiated member SECONDARY until it wins an election and
// becomes PRIMARY. Each replSetGetStatus moves time on by one poll.
type fakeSet struct {
	name  string
	hosts []string
	polls int
	// syncPolls: polls before the other members are SECONDARY.
	syncPolls int
	// electPolls: polls before a primary is elected; primary is its index.
	electPolls int
	primary    int
}

func (fs *fakeSet) state(i int) (int32, string) {
	switch {
	case fs.polls >= fs.electPolls && i == fs.primary:
		return 1, "PRIMARY"
	case i != 0 && fs.polls < fs.syncPolls:
		return 5, "STARTUP2"
	}
	return 2, "SECONDARY"
}

func (fs *fakeSet) index(host string) int {
	for i, h := range fs.hosts {
		if h == host {
			return i
		}
	}
	return -1
}

// handleSetMember answers a member of a multi-member set, or a
// multi-member replSetInitiate; ok is false for everything else, which
// the one-member model answers.
func (f *fakeCluster) handleSetMember(s *fakeServer, db string, cmd bson.D) (reply bson.D, err error, ok bool) {
	if cmd[0].Key == cmdReplSetInitiate && !s.initiated {
		var cfg struct {
			ID        string `bson:"_id"`
			Configsvr bool   `bson:"configsvr"`
			Members   []struct {
				ID   int    `bson:"_id"`
				Host string `bson:"host"`
			} `bson:"members"`
		}
		if err := bson.Unmarshal(marshal(f.t, cmd[0:1]).Lookup(cmdReplSetInitiate).Document(), &cfg); err != nil {
			return nil, serverError(93, "InvalidReplicaSetConfig", err.Error()), true
		}
		if len(cfg.Members) < 2 || cfg.ID != s.replSet || cfg.Configsvr != s.configsvr {
			return nil, nil, false // the one-member model's, and its 93s
		}
		set := &fakeSet{name: cfg.ID, syncPolls: 2, electPolls: 3, primary: f.electWinner}
		var mine bool
		var failed []string
		for i, m := range cfg.Members {
			if m.ID != i {
				return nil, serverError(93, "InvalidReplicaSetConfig", "member _id values must be distinct"), true
			}
			set.hosts = append(set.hosts, m.Host)
			if m.Host == s.host {
				mine = true
				continue
			}
			// The quorum check: a heartbeat to every other member
			// (src/mongo/db/repl/check_quorum_for_config_change.cpp).
			o, exists := f.servers[m.Host]
			switch {
			case !exists:
				failed = append(failed, m.Host+" failed with Could not find address for "+m.Host+": SocketException: Host not found")
			case o.unreachable != 0:
				if o.unreachable > 0 {
					o.unreachable--
				}
				failed = append(failed, m.Host+" failed with Error connecting to "+m.Host+" :: caused by :: Connection refused")
			case o.replSet != cfg.ID:
				failed = append(failed, m.Host+" failed with Our set name did not match that of the node sending the heartbeat")
			}
		}
		if !mine {
			return nil, serverError(93, "InvalidReplicaSetConfig", fmt.Sprintf(
				"No host described in new configuration with {version: 1, term: 0} for replica set %s maps to this node", cfg.ID)), true
		}
		if len(failed) > 0 {
			return nil, serverError(74, "NodeNotFound", "replSetInitiate quorum check failed because not all proposed set members responded affirmatively: "+
				strings.Join(failed, ", ")), true
		}
		for _, h := range set.hosts {
			m := f.servers[h]
			m.initiated, m.configHost, m.set = true, h, set
		}
		return nil, nil, true
	}
	set := s.set
	if set == nil {
		return nil, nil, false
	}
	me := set.index(s.host)
	switch cmd[0].Key {
	case "replSetGetStatus":
		set.polls++
		myState, _ := set.state(me)
		members := bson.A{}
		for i, h := range set.hosts {
			st, str := set.state(i)
			members = append(members, bson.D{{Key: "_id", Value: int32(i)}, {Key: "name", Value: h}, {Key: "health", Value: 1.0},
				{Key: "state", Value: st}, {Key: "stateStr", Value: str}})
		}
		return bson.D{{Key: "set", Value: set.name}, {Key: "myState", Value: myState}, {Key: "members", Value: members}}, nil, true
	case cmdReplSetInitiate:
		return nil, serverError(23, "AlreadyInitialized", "already initialized"), true
	case "hello":
		st, _ := set.state(me)
		hosts := bson.A{}
		for _, h := range set.hosts {
			hosts = append(hosts, h)
		}
		return bson.D{{Key: "isWritablePrimary", Value: st == 1}, {Key: "secondary", Value: st == 2},
			{Key: "setName", Value: set.name}, {Key: "hosts", Value: hosts}}, nil, true
	case cmdCreate:
		if st, _ := set.state(me); st != 1 {
			return nil, serverError(10107, "NotWritablePrimary", "not primary"), true
		}
	}
	r, err, ok := f.handleCollections(s, db, cmd)
	return r, err, ok
}

func rsHost(i int) string { return fmt.Sprintf("run-rs0-%d.run-db:27017", i) }

// newReplicaSetFake is a freshly started n-member set, and its topology.
func newReplicaSetFake(t *testing.T, n int) (*fakeCluster, Topology) {
	f := newFake(t)
	rs := ReplicaSet{Name: "rs0", Host: rsHost(0)}
	for i := range n {
		f.add(&fakeServer{host: rsHost(i), role: roleMember, replSet: "rs0", version: "8.0.4"})
		if i > 0 {
			rs.Others = append(rs.Others, rsHost(i))
		}
	}
	return f, Topology{Mode: ModeReplicaSet, ReplicaSet: rs}
}

// TestBootstrapReplicaSetCommands is the command sequence of a fresh
// three-member set: one replSetInitiate with every member, polls of
// replSetGetStatus until one PRIMARY and two SECONDARY, then the
// collection on the primary.
func TestBootstrapReplicaSetCommands(t *testing.T) {
	f, topo := newReplicaSetFake(t, 3)
	rep, err := Bootstrap(context.Background(), topo, f.options())
	if err != nil {
		t.Fatalf("Bootstrap: %v", err)
	}
	h0 := rsHost(0)
	sameLines(t, "mutating commands", f.mutating(), []string{
		h0 + ` admin {"replSetInitiate":{"_id":"rs0","version":1,"members":[{"_id":0,"host":"` + h0 + `"},{"_id":1,"host":"` + rsHost(1) + `"},{"_id":2,"host":"` + rsHost(2) + `"}]}}`,
		h0 + ` ycsb {"create":"usertable"}`,
	})
	var seq []string
	for _, c := range f.calls {
		seq = append(seq, c.host+" "+c.cmd[0].Key)
	}
	sameLines(t, "commands", seq[:8], []string{
		h0 + " replSetGetStatus", // 94 NotYetInitialized
		h0 + " replSetInitiate",
		h0 + " replSetGetStatus", // STARTUP2, no primary
		h0 + " replSetGetStatus", // SECONDARY, no primary
		h0 + " replSetGetStatus", // PRIMARY + 2 SECONDARY
		h0 + " buildInfo",
		h0 + " listCollections",
		h0 + " create",
	})
	want := []results.MemberState{{ReplicaSet: "rs0", Host: h0, State: "PRIMARY"},
		{ReplicaSet: "rs0", Host: rsHost(1), State: "SECONDARY"}, {ReplicaSet: "rs0", Host: rsHost(2), State: "SECONDARY"}}
	if !reflect.DeepEqual(rep.Members, want) || rep.ServerVersion != "8.0.4" || rep.Sharded {
		t.Errorf("report members %+v version %q sharded %v, want %+v", rep.Members, rep.ServerVersion, rep.Sharded, want)
	}
	if rep.Server == nil || len(rep.Server.Processes) != 3 {
		t.Errorf("server environment %+v: want every member's", rep.Server)
	}

	// Again, as after a manager restart: nothing is sent that changes
	// anything.
	f.calls = nil
	if _, err := Bootstrap(context.Background(), topo, f.options()); err != nil {
		t.Fatalf("second Bootstrap: %v", err)
	}
	if m := f.mutating(); len(m) != 0 {
		t.Errorf("second Bootstrap sent %v", m)
	}
}

// TestBootstrapReplicaSetPrimaryElsewhere: whichever member wins the
// election is the primary the collection is created on.
func TestBootstrapReplicaSetPrimaryElsewhere(t *testing.T) {
	f, topo := newReplicaSetFake(t, 3)
	f.failNext(rsHost(0), cmdReplSetInitiate, injection{apply: true, err: networkError("connection reset")}) // reply lost
	// Once initiated, let member 2 win.
	rep, err := Bootstrap(context.Background(), withPrimary(f, topo, 2), f.options())
	if err != nil {
		t.Fatalf("Bootstrap: %v", err)
	}
	if rep.Members[2].State != "PRIMARY" || rep.Members[0].State != "SECONDARY" {
		t.Errorf("members %+v: want member 2 primary", rep.Members)
	}
	var creates []string
	for _, c := range f.calls {
		if c.cmd[0].Key == cmdCreate {
			creates = append(creates, c.host)
		}
	}
	if !reflect.DeepEqual(creates, []string{rsHost(2)}) {
		t.Errorf("create sent to %v, want the primary %s only", creates, rsHost(2))
	}
	if n := strings.Count(strings.Join(f.callStrings(), "\n"), cmdReplSetInitiate); n != 1 {
		t.Errorf("%d replSetInitiate: the lost reply's retry should find the set initiated (replSetGetStatus)", n)
	}
}

// withPrimary makes member i the one elected, once the set is initiated.
func withPrimary(f *fakeCluster, topo Topology, i int) Topology {
	f.electWinner = i
	return topo
}

// TestBootstrapReplicaSetWaitsForMembers: a member still starting fails
// the quorum check (74 NodeNotFound) and the initiate is sent again.
func TestBootstrapReplicaSetWaitsForMembers(t *testing.T) {
	f, topo := newReplicaSetFake(t, 3)
	f.servers[rsHost(2)].unreachable = 2
	if _, err := Bootstrap(context.Background(), topo, f.options()); err != nil {
		t.Fatalf("Bootstrap: %v", err)
	}
	if n := strings.Count(strings.Join(f.callStrings(), "\n"), cmdReplSetInitiate); n != 3 {
		t.Errorf("%d replSetInitiate, want 3 (two refused by the quorum check)", n)
	}
}

// TestBootstrapReplicaSetRefusals: what bootstrap cannot fix fails at once
// with a message that says why; a member that never comes up fails at the
// deadline with the server's last word.
func TestBootstrapReplicaSetRefusals(t *testing.T) {
	t.Run("other members", func(t *testing.T) {
		f, topo := newReplicaSetFake(t, 3)
		two := topo
		two.ReplicaSet.Others = two.ReplicaSet.Others[:1]
		if _, err := Bootstrap(context.Background(), two, f.options()); err != nil {
			t.Fatalf("Bootstrap of 2: %v", err)
		}
		_, err := Bootstrap(context.Background(), topo, f.options())
		if err == nil || !strings.Contains(err.Error(), "was initiated with members [0="+rsHost(0)+" 1="+rsHost(1)+"]") {
			t.Fatalf("err = %v, want the members it was initiated with", err)
		}
	})
	t.Run("unreachable member", func(t *testing.T) {
		f, topo := newReplicaSetFake(t, 2)
		f.servers[rsHost(1)].unreachable = -1
		_, err := Bootstrap(context.Background(), topo, f.options())
		if err == nil || !strings.Contains(err.Error(), "NodeNotFound") || !strings.Contains(err.Error(), "a member of the config is unreachable") {
			t.Fatalf("err = %v, want the quorum check's NodeNotFound and its hint", err)
		}
	})
	t.Run("validate", func(t *testing.T) {
		for _, rs := range []ReplicaSet{
			{Name: "rs0", Host: rsHost(0), Others: []string{rsHost(0)}},
			{Name: "rs0", Host: rsHost(0), Others: []string{"nohost"}},
			{Name: "", Host: rsHost(0)},
			{Name: "rs0", Host: rsHost(0), Others: []string{rsHost(1), rsHost(2), rsHost(3), rsHost(4), rsHost(5), rsHost(6), rsHost(7)}},
		} {
			err := Topology{Mode: ModeReplicaSet, ReplicaSet: rs}.Validate()
			if err == nil {
				t.Errorf("%+v: valid", rs)
			}
		}
		if err := (Topology{Mode: ModeReplicaSet, ReplicaSet: ReplicaSet{Name: "rs0", Host: rsHost(0)}}).Validate(); err != nil {
			t.Errorf("one member: %v", err)
		}
	})
}

// TestBootstrapReplicaSetOneMember: members: 1 is a set like the shards,
// initiated alone and PRIMARY.
func TestBootstrapReplicaSetOneMember(t *testing.T) {
	f, topo := newReplicaSetFake(t, 1)
	rep, err := Bootstrap(context.Background(), topo, f.options())
	if err != nil {
		t.Fatalf("Bootstrap: %v", err)
	}
	if want := []results.MemberState{{ReplicaSet: "rs0", Host: rsHost(0), State: "PRIMARY"}}; !reflect.DeepEqual(rep.Members, want) {
		t.Errorf("members %+v, want %+v", rep.Members, want)
	}
}

// TestBootstrapShardedMembers: a config server of three members and two
// shards of three: each set initiated once with all its members (the
// config server with configsvr: true), waited for until one PRIMARY and
// the others SECONDARY, and each shard added by its seed list; again,
// nothing is sent that changes anything.
func TestBootstrapShardedMembers(t *testing.T) {
	f := newFake(t)
	host := func(set string, m int) string { return fmt.Sprintf("run-%s-%d.run-db:27018", set, m) }
	topo := Topology{Mode: ModeSharded, Mongos: mongosHost,
		ConfigServer: ReplicaSet{Name: "cfg", Host: host("cfg", 0), Others: []string{host("cfg", 1), host("cfg", 2)}}}
	for m := range 3 {
		f.add(&fakeServer{host: host("cfg", m), role: roleMember, replSet: "cfg", configsvr: true})
	}
	for i := range 2 {
		name := fmt.Sprintf("shard%d", i)
		topo.Shards = append(topo.Shards, ReplicaSet{Name: name, Host: host(name, 0), Others: []string{host(name, 1), host(name, 2)}})
		for m := range 3 {
			f.add(&fakeServer{host: host(name, m), role: roleMember, replSet: name})
		}
	}
	f.add(&fakeServer{host: mongosHost, role: roleMongos})
	rep, err := Bootstrap(context.Background(), topo, f.options())
	if err != nil {
		t.Fatalf("Bootstrap: %v", err)
	}
	var initiates, adds []string
	for _, c := range f.mutating() {
		switch {
		case strings.Contains(c, cmdReplSetInitiate):
			initiates = append(initiates, c)
		case strings.Contains(c, cmdAddShard):
			adds = append(adds, c)
		}
	}
	if len(initiates) != 3 || !strings.Contains(initiates[0], `"configsvr":true,"members":[{"_id":0,"host":"`+host("cfg", 0)+`"},{"_id":1,`) {
		t.Errorf("initiates %v: want one per set, the config server's with configsvr and its 3 members", initiates)
	}
	want0 := `{"addShard":"shard0/` + host("shard0", 0) + "," + host("shard0", 1) + "," + host("shard0", 2) + `","name":"shard0"}`
	if len(adds) != 2 || !strings.HasSuffix(adds[0], want0) {
		t.Errorf("addShard %v: want shard0 added as %s", adds, want0)
	}
	if len(rep.Members) != 9 || rep.Members[0].State != "PRIMARY" || rep.Members[1].State != "SECONDARY" || rep.Members[3].ReplicaSet != "shard0" {
		t.Errorf("members %+v: want the 9 members' states, set by set", rep.Members)
	}
	if len(rep.Shards) != 2 || rep.Shards[0].Host != "shard0/"+host("shard0", 0)+","+host("shard0", 1)+","+host("shard0", 2) {
		t.Errorf("shards %+v", rep.Shards)
	}
	f.calls = nil
	if _, err := Bootstrap(context.Background(), topo, f.options()); err != nil {
		t.Fatalf("second Bootstrap: %v", err)
	}
	if m := f.mutating(); len(m) != 0 {
		t.Errorf("second Bootstrap sent %v", m)
	}
}
