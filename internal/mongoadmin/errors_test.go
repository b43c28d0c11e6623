package mongoadmin

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// count returns how many recorded calls to host start with prefix (the
// command rendered as JSON, e.g. `{"addShard"`).
func (f *fakeCluster) count(host, prefix string) int {
	n := 0
	for _, c := range f.calls {
		if c.host == host && strings.HasPrefix(keyJSON(c.cmd), prefix) {
			n++
		}
	}
	return n
}

func repeat(inj injection, n int) []injection {
	out := make([]injection, n)
	for i := range out {
		out[i] = inj
	}
	return out
}

func TestBootstrapErrorHandling(t *testing.T) {
	notWritable := injection{err: serverError(10107, "NotWritablePrimary", "not primary")}
	for _, tc := range []struct {
		name  string
		setup func(f *fakeCluster, topo *Topology)
		// wantErr lists substrings of the error; none: Bootstrap succeeds.
		wantErr []string
		check   func(t *testing.T, f *fakeCluster, err error)
	}{
		{
			name: "94 NotYetInitialized: initiate every set",
			check: func(t *testing.T, f *fakeCluster, _ error) {
				for _, h := range []string{cfgHost, shardHost(0), shardHost(1), shardHost(2)} {
					if n := f.count(h, `{"replSetInitiate"`); n != 1 {
						t.Errorf("%s: %d replSetInitiate, want 1", h, n)
					}
				}
			},
		},
		{
			name: "23 AlreadyInitialized on initiate: continue",
			setup: func(f *fakeCluster, _ *Topology) {
				f.failNext(shardHost(1), "replSetInitiate", injection{apply: true, err: serverError(23, "AlreadyInitialized", "already initialized")})
			},
			check: func(t *testing.T, f *fakeCluster, _ error) {
				if n := f.count(shardHost(1), `{"replSetInitiate"`); n != 1 {
					t.Errorf("%d replSetInitiate on shard1, want 1 (23 is done, not retried)", n)
				}
			},
		},
		{
			name: "93 on initiate: fail with the server's message and a hint",
			setup: func(f *fakeCluster, _ *Topology) {
				f.failNext(shardHost(1), "replSetInitiate", injection{err: serverError(93, "InvalidReplicaSetConfig",
					"No host described in new configuration with {version: 1, term: 0} for replica set shard1 maps to this node")})
			},
			wantErr: []string{"initiate replica set shard1", "replSetInitiate on " + shardHost(1), "server error 93 (InvalidReplicaSetConfig)",
				"No host described in new configuration", "does not resolve to this member"},
			check: failedAtOnce,
		},
		{
			name:    "93 for a --replSet that differs",
			setup:   func(f *fakeCluster, _ *Topology) { f.servers[shardHost(2)].replSet = "other" },
			wantErr: []string{"initiate replica set shard2", "server error 93", "differs from command line set name", `--replSet is not "shard2"`},
			check:   failedAtOnce,
		},
		{
			name:    "93 for configsvr on a mongod not started with --configsvr",
			setup:   func(f *fakeCluster, _ *Topology) { f.servers[cfgHost].configsvr = false },
			wantErr: []string{"initiate replica set cfg", "server error 93", "--configsvr", "configsvr: true must be sent exactly"},
			check:   failedAtOnce,
		},
		{
			name: "74 NodeNotFound on initiate: fail",
			setup: func(f *fakeCluster, _ *Topology) {
				f.failNext(cfgHost, "replSetInitiate", injection{err: serverError(74, "NodeNotFound", "replSetInitiate quorum check failed")})
			},
			wantErr: []string{"initiate replica set cfg", "server error 74 (NodeNotFound)", "quorum check failed", "unreachable"},
			check:   failedAtOnce,
		},
		{
			name: "2 BadValue on initiate (older servers): fail",
			setup: func(f *fakeCluster, _ *Topology) {
				f.failNext(shardHost(0), "replSetInitiate", injection{err: serverError(2, "BadValue", "bad config")})
			},
			wantErr: []string{"initiate replica set shard0", "server error 2 (BadValue): bad config"},
			check:   failedAtOnce,
		},
		{
			name: "76 NoReplicationEnabled: fail naming --replSet",
			setup: func(f *fakeCluster, _ *Topology) {
				f.failNext(shardHost(0), "replSetGetStatus", injection{err: serverError(76, "NoReplicationEnabled", "not running with --replSet")})
			},
			wantErr: []string{"initiate replica set shard0", "replSetGetStatus on " + shardHost(0), "server error 76", "started without --replSet"},
			check:   failedAtOnce,
		},
		{
			name: "initiated under another set name: fail",
			setup: func(f *fakeCluster, _ *Topology) {
				s := f.servers[shardHost(0)]
				s.replSet, s.initiated, s.configHost = "shardX", true, s.host
			},
			wantErr: []string{"initiate replica set shard0", `is a member of replica set "shardX", want "shard0"`},
			check:   failedAtOnce,
		},
		{
			name: "initiated with another host name: fail before addShard",
			setup: func(f *fakeCluster, _ *Topology) {
				s := f.servers[shardHost(0)]
				s.initiated, s.configHost = true, "10.1.2.3:27018"
			},
			wantErr: []string{"wait for replica set shard0 primary", "lists hosts [10.1.2.3:27018]", "initiated with another host name"},
			check:   failedAtOnce,
		},
		{
			name: "member REMOVED from its own config: fail",
			setup: func(f *fakeCluster, _ *Topology) {
				s := f.servers[shardHost(2)]
				s.initiated, s.configHost, s.removed = true, "old-name:27018", true
			},
			wantErr: []string{"initiate replica set shard2", "is REMOVED from replica set shard2", "initiated earlier with another host name"},
			check:   failedAtOnce,
		},
		{
			name: "tracked unsharded by 8.0 (unsplittable): shard it",
			setup: func(f *fakeCluster, _ *Topology) {
				f.servers[mongosHost].sharded["ycsb.usertable"] = fakeSharded{
					key: marshal(t, bson.D{{Key: "_id", Value: int32(1)}}), unsplittable: true,
					uuid: bson.Binary{Subtype: 4, Data: []byte("0123456789abcdef")},
				}
			},
			check: func(t *testing.T, f *fakeCluster, _ error) {
				if n := f.count(mongosHost, `{"shardCollection"`); n != 1 {
					t.Errorf("%d shardCollection, want 1", n)
				}
			},
		},
		{
			name: "member not primary at once: poll hello",
			setup: func(f *fakeCluster, _ *Topology) {
				f.servers[shardHost(2)].notPrimaryHellos = 3
			},
			check: func(t *testing.T, f *fakeCluster, _ error) {
				if n := f.count(shardHost(2), `{"hello"`); n != 4 {
					t.Errorf("%d hello on shard2, want 4", n)
				}
				wantSlept(t, f, 250*time.Millisecond, 250*time.Millisecond, 250*time.Millisecond)
			},
		},
		{
			name: "network errors and 11602/189/91 on the way: retried",
			setup: func(f *fakeCluster, _ *Topology) {
				f.failNext(cfgHost, "replSetGetStatus", injection{err: networkError("dial tcp 10.0.0.1:27019: connect: connection refused")})
				f.failNext(shardHost(0), "hello", injection{err: serverError(11602, "InterruptedDueToReplStateChange", "")},
					injection{err: serverError(189, "PrimarySteppedDown", "")})
				f.failNext(mongosHost, "hello", injection{err: serverError(91, "ShutdownInProgress", "")},
					injection{err: networkError("connection reset by peer")})
			},
			check: func(t *testing.T, f *fakeCluster, _ error) {
				if n := f.count(mongosHost, `{"hello"`); n != 3 {
					t.Errorf("%d hello on mongos, want 3", n)
				}
				// Backoff doubles per step: 250 ms, then 250 ms and 500 ms twice.
				wantSlept(t, f, 250*time.Millisecond, 250*time.Millisecond, 500*time.Millisecond, 250*time.Millisecond, 500*time.Millisecond)
			},
		},
		{
			name: "133 FailedToSatisfyReadPreference from listShards: wait for mongos",
			setup: func(f *fakeCluster, _ *Topology) {
				f.failNext(mongosHost, "listShards", repeat(injection{err: serverError(133, "FailedToSatisfyReadPreference",
					"Could not find host matching read preference { mode: \"primary\" } for set cfg")}, 3)...)
			},
			check: func(t *testing.T, f *fakeCluster, _ error) {
				if n := f.count(mongosHost, `{"listShards"`); n != 5 {
					t.Errorf("%d listShards, want 5 (4 while waiting, 1 for the report)", n)
				}
			},
		},
		{
			name: "shard already listed: no addShard for it",
			setup: func(f *fakeCluster, _ *Topology) {
				f.servers[mongosHost].shards = []shardInfo{{ID: "shard1", Host: "shard1/" + shardHost(1)}}
			},
			check: func(t *testing.T, f *fakeCluster, _ error) {
				sameLines(t, "addShard commands", addShards(f), []string{
					`{"addShard":"shard0/` + shardHost(0) + `","name":"shard0"}`,
					`{"addShard":"shard2/` + shardHost(2) + `","name":"shard2"}`,
				})
			},
		},
		{
			name: "20 IllegalOperation on addShard: fail",
			setup: func(f *fakeCluster, _ *Topology) {
				f.servers[mongosHost].shards = []shardInfo{{ID: "shard1", Host: "shard1/elsewhere:27018"}}
			},
			wantErr: []string{"add shard shard1", "addShard on " + mongosHost, "server error 20 (IllegalOperation)",
				"already exists", "a different shard named shard1"},
			check: failedAtOnce,
		},
		{
			name: "10107 NotWritablePrimary and 96 on addShard: retried",
			setup: func(f *fakeCluster, _ *Topology) {
				f.failNext(mongosHost, "addShard", notWritable, notWritable,
					injection{err: serverError(96, "OperationFailed", "host did not return a set name; is the replica set still initializing?")})
			},
			check: func(t *testing.T, f *fakeCluster, _ error) {
				if n := f.count(mongosHost, `{"addShard":"shard0/`); n != 4 {
					t.Errorf("%d addShard for shard0, want 4", n)
				}
				wantSlept(t, f, 250*time.Millisecond, 500*time.Millisecond, 250*time.Millisecond)
			},
		},
		{
			// Any other 96 is a real problem that waiting does not solve
			// (here one of _validateHostAsShard's, src/mongo/db/s/config/
			// sharding_catalog_manager_shard_operations.cpp in mongodb/mongo).
			name: "96 OperationFailed other than \"no set name\" on addShard: fail at once with the server's message",
			setup: func(f *fakeCluster, _ *Topology) {
				f.failNext(mongosHost, "addShard", injection{match: `"shard1/`, err: serverError(96, "OperationFailed",
					"Cannot add shard1/"+shardHost(1)+" as a shard since the cluster-wide write concern is set on the shard and not set on the cluster. "+
						"Set the CWWC on the cluster to the same CWWC as the shard and try again. The CWWC on the shard is ({ w: \"majority\" }).")})
			},
			wantErr: []string{"add shard shard1", "addShard on " + mongosHost, "server error 96 (OperationFailed)",
				"since the cluster-wide write concern is set on the shard and not set on the cluster"},
			check: failedAtOnce,
		},
		{
			name: "96 for a set name that differs: fail at once",
			setup: func(f *fakeCluster, _ *Topology) {
				f.failNext(mongosHost, "addShard", injection{match: `"shard2/`, err: serverError(96, "OperationFailed",
					"the provided connection string (shard2/"+shardHost(2)+") does not match the actual set name other")})
			},
			wantErr: []string{"add shard shard2", "server error 96 (OperationFailed)", "does not match the actual set name other"},
			check:   failedAtOnce,
		},
		{
			name: "enableSharding refused: fail at once with the server's message",
			setup: func(f *fakeCluster, _ *Topology) {
				f.failNext(mongosHost, "enableSharding", injection{err: serverError(13297, "DatabaseDifferCase",
					"can't have 2 databases that just differ on case  have: YCSB want to add: ycsb")})
			},
			wantErr: []string{"shard collection ycsb.usertable", "enableSharding on " + mongosHost, "server error 13297 (DatabaseDifferCase)"},
			check: func(t *testing.T, f *fakeCluster, err error) {
				failedAtOnce(t, f, err)
				if n := f.count(mongosHost, `{"shardCollection"`); n != 0 {
					t.Errorf("%d shardCollection after enableSharding failed", n)
				}
			},
		},
		{
			name: "addShard reply lost: the retry's re-add is ok",
			setup: func(f *fakeCluster, _ *Topology) {
				f.failNext(mongosHost, "addShard", injection{apply: true, err: networkError("connection reset by peer")})
			},
			check: func(t *testing.T, f *fakeCluster, _ error) {
				if n := len(f.servers[mongosHost].shards); n != 3 {
					t.Errorf("%d shards, want 3", n)
				}
			},
		},
		{
			name: "balancer still on after balancerStop: check again",
			setup: func(f *fakeCluster, _ *Topology) {
				f.failNext(mongosHost, "balancerStatus",
					injection{reply: bson.D{{Key: "mode", Value: "full"}}},
					injection{reply: bson.D{{Key: "mode", Value: "full"}}})
			},
			check: func(t *testing.T, f *fakeCluster, _ error) {
				if n := f.count(mongosHost, `{"balancerStatus"`); n != 3 {
					t.Errorf("%d balancerStatus, want 3 (before, after the stop, after the wait)", n)
				}
				wantSlept(t, f, 250*time.Millisecond)
			},
		},
		{
			name: "not a mongos: fail",
			setup: func(f *fakeCluster, _ *Topology) {
				f.servers[mongosHost].role = roleStandalone
			},
			wantErr: []string{"wait for mongos " + mongosHost, `is not a mongos (hello.msg "", want "isdbgrid")`},
			check:   failedAtOnce,
		},
		{
			name: "already sharded with another key: fail naming both, send nothing",
			setup: func(f *fakeCluster, _ *Topology) {
				f.servers[mongosHost].sharded["ycsb.usertable"] = fakeSharded{key: marshal(t, bson.D{{Key: "_id", Value: int32(1)}})}
			},
			wantErr: []string{"shard collection ycsb.usertable", `already sharded with key {"_id":1}, want {"_id":"hashed"}`},
			check: func(t *testing.T, f *fakeCluster, err error) {
				failedAtOnce(t, f, err)
				if n := f.count(mongosHost, `{"shardCollection"`); n != 0 {
					t.Errorf("%d shardCollection sent", n)
				}
			},
		},
		{
			name: "23 on shardCollection with another key: fail naming both",
			setup: func(f *fakeCluster, _ *Topology) {
				// Sharded by someone else between the check and the command.
				f.servers[mongosHost].sharded["ycsb.usertable"] = fakeSharded{key: marshal(t, bson.D{{Key: "_id", Value: int32(1)}})}
				f.failNext(mongosHost, "find", injection{reply: bson.D{{Key: "cursor", Value: bson.D{
					{Key: "id", Value: int64(0)}, {Key: "ns", Value: "config.collections"}, {Key: "firstBatch", Value: bson.A{}}}}}})
			},
			wantErr: []string{"shard collection ycsb.usertable", "shardCollection on " + mongosHost,
				"server error 23 (AlreadyInitialized)", `already sharded with key {"_id":1}, want {"_id":"hashed"}`},
			check: failedAtOnce,
		},
		{
			name: "shardCollection reply lost: the retry sees it done",
			setup: func(f *fakeCluster, _ *Topology) {
				f.failNext(mongosHost, "shardCollection", injection{apply: true, err: networkError("i/o timeout")})
			},
			check: func(t *testing.T, f *fakeCluster, _ error) {
				if n := f.count(mongosHost, `{"shardCollection"`); n != 1 {
					t.Errorf("%d shardCollection, want 1", n)
				}
			},
		},
		{
			name: "deadline: a shard that never becomes primary",
			setup: func(f *fakeCluster, _ *Topology) {
				f.servers[shardHost(1)].notPrimaryHellos = -1
			},
			wantErr: []string{"wait for replica set shard1 primary", "not done within the timeout of 1m0s",
				"is not a writable primary yet"},
			check: func(t *testing.T, f *fakeCluster, err error) {
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("error does not wrap context.DeadlineExceeded")
				}
				if n := f.count(mongosHost, `{`); n != 0 {
					t.Errorf("%d commands to mongos", n)
				}
			},
		},
		{
			name: "deadline: a mongos that never reaches its config server",
			setup: func(f *fakeCluster, _ *Topology) {
				f.failNext(mongosHost, "listShards", repeat(injection{err: serverError(133, "FailedToSatisfyReadPreference", "no primary")}, 1000)...)
			},
			wantErr: []string{"wait for mongos " + mongosHost, "not done within", "server error 133"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, topo := newShardedFake(t, 3, ShardKeyHashed)
			if tc.setup != nil {
				tc.setup(f, &topo)
			}
			start := f.clock.now
			_, err := Bootstrap(context.Background(), topo, f.options())
			if len(tc.wantErr) == 0 && err != nil {
				t.Fatalf("Bootstrap: %v", err)
			}
			if len(tc.wantErr) > 0 {
				if err == nil {
					t.Fatalf("Bootstrap succeeded, want an error with %q", tc.wantErr)
				}
				t.Logf("error: %v", err)
				for _, s := range tc.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q\ndoes not contain %q", err, s)
					}
				}
			}
			if elapsed := f.clock.now.Sub(start); elapsed > time.Minute {
				t.Errorf("waited %v past the 1m timeout", elapsed)
			}
			if f.closes != len(f.dials) {
				t.Errorf("dialed %d, closed %d", len(f.dials), f.closes)
			}
			if tc.check != nil {
				tc.check(t, f, err)
			}
		})
	}
}

// failedAtOnce checks that a permanent error was not retried and that
// nothing after the failed step was sent.
func failedAtOnce(t *testing.T, f *fakeCluster, _ error) {
	t.Helper()
	if len(f.clock.slept) != 0 {
		t.Errorf("slept %v before failing: a permanent error was retried", f.clock.slept)
	}
	last := f.calls[len(f.calls)-1]
	for _, c := range f.calls {
		if c.cmd[0].Key == "buildInfo" {
			t.Errorf("went on to %s after the failure (last command %s)", c, last)
		}
	}
}

func wantSlept(t *testing.T, f *fakeCluster, want ...time.Duration) {
	t.Helper()
	if fmt.Sprint(f.clock.slept) != fmt.Sprint(want) {
		t.Errorf("slept %v, want %v", f.clock.slept, want)
	}
}

func addShards(f *fakeCluster) []string {
	var out []string
	for _, c := range f.calls {
		if c.cmd[0].Key == "addShard" {
			out = append(out, keyJSON(c.cmd))
		}
	}
	return out
}

func TestBootstrapInvalidTopologySendsNothing(t *testing.T) {
	for _, tc := range []struct {
		name    string
		edit    func(*Topology)
		wantErr string
	}{
		{"no mode", func(t *Topology) { t.Mode = "" }, `topology mode ""`},
		{"no shards", func(t *Topology) { t.Shards = nil }, "at least one shard"},
		{"host without port", func(t *Topology) { t.Shards[1].Host = "run-shard1-0" }, `replica set shard1 host "run-shard1-0": want host:port`},
		{"duplicate name", func(t *Topology) { t.Shards[1].Name = "shard0" }, `"shard0" is used twice`},
		{"name with a slash", func(t *Topology) { t.Shards[0].Name = "a/b" }, `replica set name "a/b"`},
		{"bad namespace", func(t *Topology) { t.Namespace = "usertable" }, `namespace "usertable": want db.collection`},
		{"bad shard key", func(t *Topology) { t.ShardKey = "hashed" }, `shard key "hashed"`},
		{"localhost mixed", func(t *Topology) { t.Mongos = "localhost:27017" }, "mix localhost and other names"},
		{"no mongos", func(t *Topology) { t.Mongos = "" }, `mongos host ""`},
		{"split points for a hashed key", func(t *Topology) { t.SplitPoints = []string{"user5"} }, "split points are for a Ranged shard key, not Hashed"},
		{"ranged without split points", func(t *Topology) { t.ShardKey = ShardKeyRanged },
			"a Ranged shard key over 2 shards needs 1 split points, got 0"},
		{"ranged with too many split points", func(t *Topology) { t.ShardKey, t.SplitPoints = ShardKeyRanged, []string{"user3", "user6"} },
			"needs 1 split points, got 2"},
		{"split points out of order", func(t *Topology) {
			t.ShardKey, t.Shards = ShardKeyRanged, append(t.Shards, ReplicaSet{Name: "shard2", Host: shardHost(2)})
			t.SplitPoints = []string{"user6", "user3"}
		}, `split points "user6" and "user3" are not in increasing order`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, topo := newShardedFake(t, 2, ShardKeyHashed)
			tc.edit(&topo)
			_, err := Bootstrap(context.Background(), topo, f.options())
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("err = %v, want one containing %q", err, tc.wantErr)
			}
			if len(f.dials) != 0 {
				t.Errorf("dialed %v for an invalid topology", f.dials)
			}
		})
	}
}

func TestBootstrapCanceledContext(t *testing.T) {
	f, topo := newShardedFake(t, 1, ShardKeyHashed)
	f.servers[cfgHost].notPrimaryHellos = -1
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Bootstrap(ctx, topo, f.options())
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if len(f.clock.slept) != 0 {
		t.Errorf("slept %v on a canceled context", f.clock.slept)
	}
}

func TestIsTransient(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{serverError(10107, "NotWritablePrimary", ""), true},
		{serverError(189, "PrimarySteppedDown", ""), true},
		{serverError(11602, "InterruptedDueToReplStateChange", ""), true},
		{serverError(91, "ShutdownInProgress", ""), true},
		{serverError(6, "HostUnreachable", ""), true},
		{serverError(7, "HostNotFound", ""), true},
		{serverError(89, "NetworkTimeout", ""), true},
		{serverError(133, "FailedToSatisfyReadPreference", ""), true},
		{serverError(13436, "NotPrimaryOrSecondary", ""), true},
		{networkError("connection refused"), true},
		{&commandError{target: "h:1", command: "hello", err: networkError("eof")}, true},
		{fmt.Errorf("call: %w", context.DeadlineExceeded), true},
		{&net.OpError{Op: "dial", Err: errors.New("refused")}, true},
		{notYet("later"), true},
		{passingError{err: serverError(117, "ConflictingOperationInProgress", "")}, true},
		// 117 and 46 pass only where a step says so (a migration).
		{serverError(117, "ConflictingOperationInProgress", ""), false},
		{serverError(46, "LockBusy", ""), false},
		// 96 is generic: only addShard retries it.
		{serverError(96, "OperationFailed", ""), false},
		{serverError(20, "IllegalOperation", ""), false},
		{serverError(23, "AlreadyInitialized", ""), false},
		{serverError(93, "InvalidReplicaSetConfig", ""), false},
		{serverError(13, "Unauthorized", ""), false},
		{errors.New("decode"), false},
	} {
		if got := isTransient(tc.err); got != tc.want {
			t.Errorf("isTransient(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
