package mongoadmin

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/results"
)

// shardedUpTo puts the fake in the state of a bootstrap that got as far as
// sharding the ranged collection (every set initiated, every shard added,
// the balancer off), with the collection's chunks given as the shards of
// the ranges cut at points.
func shardedUpTo(t *testing.T, f *fakeCluster, topo Topology, chunkShards []string, points ...string) {
	t.Helper()
	for _, rs := range append([]ReplicaSet{topo.ConfigServer}, topo.Shards...) {
		f.servers[rs.Host].initiated = true
		f.servers[rs.Host].configHost = rs.Host
	}
	m := f.servers[mongosHost]
	for _, rs := range topo.Shards {
		m.shards = append(m.shards, shardInfo{ID: rs.Name, Host: shardConnString(rs)})
	}
	m.balancer = "off"
	m.sharded["ycsb.usertable"] = fakeSharded{key: marshal(t, bson.D{{Key: "_id", Value: int32(1)}}),
		uuid: bson.Binary{Subtype: 4, Data: []byte("0123456789abcdef")}}
	m.setChunks("ycsb.usertable", chunkShards, points...)
}

// wantBalanced checks the fake's chunks: range i of the split points on
// shard i, nothing else.
func wantBalanced(t *testing.T, f *fakeCluster, topo Topology) {
	t.Helper()
	m := f.servers[mongosHost]
	var got []string
	for _, c := range m.rangedChunks(m.sharded["ycsb.usertable"].uuid.Data) {
		got = append(got, keyRange{c.min, c.max}.String()+" on "+c.shard)
	}
	var want []string
	for i, rg := range plannedRanges(topo.SplitPoints) {
		want = append(want, rg.String()+" on "+topo.Shards[i].Name)
	}
	sameLines(t, "chunks", got, want)
}

// TestBootstrapRangedPartlyDone: a Job restarted after part of the
// pre-split sends only what is missing, and a further run sends nothing.
func TestBootstrapRangedPartlyDone(t *testing.T) {
	for _, tc := range []struct {
		name   string
		setup  func(t *testing.T, f *fakeCluster, topo Topology)
		wantMu []string
	}{
		{
			name:  "sharded, not split",
			setup: func(t *testing.T, f *fakeCluster, topo Topology) { shardedUpTo(t, f, topo, []string{"shard0"}) },
			wantMu: []string{splitAt("user3"), splitAt("user6"),
				moveRangeTo("shard1", `"user3"`, `"user6"`), moveRangeTo("shard2", `"user6"`, maxKeyJSON)},
		},
		{
			name: "split at the first point only",
			setup: func(t *testing.T, f *fakeCluster, topo Topology) {
				shardedUpTo(t, f, topo, []string{"shard0", "shard0"}, "user3")
			},
			wantMu: []string{splitAt("user6"), moveRangeTo("shard1", `"user3"`, `"user6"`), moveRangeTo("shard2", `"user6"`, maxKeyJSON)},
		},
		{
			name: "split, first range moved",
			setup: func(t *testing.T, f *fakeCluster, topo Topology) {
				shardedUpTo(t, f, topo, []string{"shard0", "shard1", "shard0"}, "user3", "user6")
			},
			wantMu: []string{moveRangeTo("shard2", `"user6"`, maxKeyJSON)},
		},
		{
			name: "the database's primary shard is the last one",
			setup: func(_ *testing.T, f *fakeCluster, _ Topology) {
				f.servers[mongosHost].primaryShard = "shard2"
			},
			wantMu: []string{
				mongosHost + ` admin {"enableSharding":"ycsb"}`,
				mongosHost + ` admin {"shardCollection":"ycsb.usertable","key":{"_id":1}}`,
				splitAt("user3"), splitAt("user6"),
				moveRangeTo("shard0", minKeyJSON, `"user3"`), moveRangeTo("shard1", `"user3"`, `"user6"`),
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, topo := newShardedFake(t, 3, ShardKeyRanged)
			tc.setup(t, f, topo)
			first, err := Bootstrap(context.Background(), topo, f.options())
			if err != nil {
				t.Fatalf("Bootstrap: %v", err)
			}
			var got []string
			for _, m := range f.mutating() {
				if !strings.Contains(m, "replSetInitiate") && !strings.Contains(m, "addShard") && !strings.Contains(m, "balancerStop") {
					got = append(got, m)
				}
			}
			sameLines(t, "sharding commands", got, tc.wantMu)
			wantBalanced(t, f, topo)

			f.calls = nil
			second, err := Bootstrap(context.Background(), topo, f.options())
			if err != nil {
				t.Fatalf("second Bootstrap: %v", err)
			}
			if m := f.mutating(); len(m) != 0 {
				t.Errorf("second Bootstrap sent mutating commands:\n%s", strings.Join(m, "\n"))
			}
			if !reflect.DeepEqual(first, second) {
				t.Errorf("second report %+v differs from the first %+v", second, first)
			}
		})
	}
}

// count of recorded calls whose rendering equals line.
func (f *fakeCluster) countLine(line string) int {
	n := 0
	for _, c := range f.callStrings() {
		if c == line {
			n++
		}
	}
	return n
}

func TestBootstrapRangedErrorHandling(t *testing.T) {
	lost := injection{apply: true, err: networkError("connection reset by peer")}
	conflict := injection{err: serverError(117, "ConflictingOperationInProgress", "Unable to start new balancer operation because another is in progress")}
	for _, tc := range []struct {
		name    string
		setup   func(t *testing.T, f *fakeCluster, topo Topology)
		wantErr []string
		check   func(t *testing.T, f *fakeCluster, err error)
	}{
		{
			name:  "split reply lost: the chunks show it done",
			setup: func(_ *testing.T, f *fakeCluster, _ Topology) { f.failNext(mongosHost, "split", lost) },
			check: func(t *testing.T, f *fakeCluster, _ error) {
				if n := f.countLine(splitAt("user3")); n != 1 {
					t.Errorf("%d splits at user3, want 1", n)
				}
				wantSlept(t, f)
			},
		},
		{
			name: "split at a boundary that exists meanwhile (errmsg without code): done",
			setup: func(_ *testing.T, f *fakeCluster, _ Topology) {
				f.failNext(mongosHost, "split", injection{apply: true,
					err: serverError(0, "", `new split key { _id: "user3" } is a boundary key of existing chunk [MinKey, "user3")`)})
			},
			check: func(t *testing.T, f *fakeCluster, _ error) {
				if n := f.countLine(splitAt("user3")); n != 1 {
					t.Errorf("%d splits at user3, want 1", n)
				}
			},
		},
		{
			name: "split refused: fail with the server's message, move nothing",
			setup: func(_ *testing.T, f *fakeCluster, _ Topology) {
				f.failNext(mongosHost, "split", injection{err: serverError(13, "Unauthorized", "not authorized on admin to execute command")})
			},
			wantErr: []string{`split ycsb.usertable at "user3"`, "split on " + mongosHost, "server error 13 (Unauthorized)"},
			check: func(t *testing.T, f *fakeCluster, err error) {
				failedAtOnce(t, f, err)
				if n := f.count(mongosHost, `{"moveRange"`); n != 0 {
					t.Errorf("%d moveRange after a failed split", n)
				}
			},
		},
		{
			name:  "moveRange reply lost: the chunks show it done",
			setup: func(_ *testing.T, f *fakeCluster, _ Topology) { f.failNext(mongosHost, "moveRange", lost) },
			check: func(t *testing.T, f *fakeCluster, _ error) {
				if n := f.countLine(moveRangeTo("shard1", `"user3"`, `"user6"`)); n != 1 {
					t.Errorf("%d moves of the first range, want 1", n)
				}
			},
		},
		{
			name: "117 ConflictingOperationInProgress on moveRange: retried with backoff",
			setup: func(_ *testing.T, f *fakeCluster, _ Topology) {
				f.failNext(mongosHost, "moveRange", conflict, conflict)
			},
			check: func(t *testing.T, f *fakeCluster, _ error) {
				if n := f.countLine(moveRangeTo("shard1", `"user3"`, `"user6"`)); n != 3 {
					t.Errorf("%d moves of the first range, want 3", n)
				}
				wantSlept(t, f, 250*time.Millisecond, 500*time.Millisecond)
			},
		},
		{
			name:  "no moveRange (before 6.0): moveChunk with the chunk's bounds",
			setup: func(_ *testing.T, f *fakeCluster, _ Topology) { f.setVersion("5.0.28") },
			check: func(t *testing.T, f *fakeCluster, _ error) {
				var moves []string
				for _, c := range f.callStrings() {
					if strings.Contains(c, `{"moveRange"`) || strings.Contains(c, `{"moveChunk"`) {
						moves = append(moves, c)
					}
				}
				sameLines(t, "moves", moves, []string{
					moveRangeTo("shard1", `"user3"`, `"user6"`), // 59: the one moveRange
					moveChunkTo("shard1", `"user3"`, `"user6"`),
					moveChunkTo("shard2", `"user6"`, maxKeyJSON),
				})
				wantSlept(t, f)
			},
		},
		{
			name: "moveChunk of a range already moved (72, reply lost and chunks unreadable): done",
			setup: func(_ *testing.T, f *fakeCluster, _ Topology) {
				f.setVersion("5.0.28")
				f.failNext(mongosHost, "moveChunk", lost)
				// The read after the lost reply fails too (the 3rd chunk read:
				// after the initial one and the one after the splits), so the
				// move is sent again and the server answers 72.
				f.failNext(mongosHost, "find", injection{match: `"find":"chunks"`, skip: 2, err: networkError("connection refused")})
			},
			check: func(t *testing.T, f *fakeCluster, _ error) {
				if n := f.countLine(moveChunkTo("shard1", `"user3"`, `"user6"`)); n != 2 {
					t.Errorf("%d moveChunk of the first range, want 2 (the second answered 72)", n)
				}
			},
		},
		{
			name: "chunk boundaries that are not the split points: fail before changing anything",
			setup: func(t *testing.T, f *fakeCluster, topo Topology) {
				shardedUpTo(t, f, topo, []string{"shard0", "shard1"}, "user5")
			},
			wantErr: []string{`ycsb.usertable already has chunks starting at "user5", which are not this run's split points`},
			check: func(t *testing.T, f *fakeCluster, err error) {
				failedAtOnce(t, f, err)
				if m := f.mutating(); len(m) != 0 {
					t.Errorf("mutating commands sent: %v", m)
				}
			},
		},
		{
			name: "a move answered ok that did not happen: the check after the moves fails",
			setup: func(_ *testing.T, f *fakeCluster, _ Topology) {
				f.failNext(mongosHost, "moveRange", injection{reply: bson.D{}})
			},
			wantErr: []string{`after the pre-split ycsb.usertable has chunks [MinKey, "user3") on shard0, ["user3", "user6") on shard0, ["user6", MaxKey) on shard2`,
				`want [MinKey, "user3") on shard0, ["user3", "user6") on shard1, ["user6", MaxKey) on shard2`},
			check: failedAtOnce,
		},
		{
			name: "moveRange refused: fail naming the range and the shard",
			setup: func(_ *testing.T, f *fakeCluster, _ Topology) {
				f.failNext(mongosHost, "moveRange", injection{err: serverError(70, "ShardNotFound", "Could not find destination shard")})
			},
			wantErr: []string{`move ycsb.usertable ["user3", "user6") to shard1`, "moveRange on " + mongosHost, "server error 70 (ShardNotFound)"},
			check:   failedAtOnce,
		},
		{
			name: "deadline: a migration that keeps conflicting",
			setup: func(_ *testing.T, f *fakeCluster, _ Topology) {
				f.failNext(mongosHost, "moveRange", repeat(conflict, 1000)...)
			},
			wantErr: []string{`move ycsb.usertable ["user3", "user6") to shard1`, "not done within the timeout of 1m0s", "server error 117"},
			check: func(t *testing.T, _ *fakeCluster, err error) {
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("error does not wrap context.DeadlineExceeded")
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, topo := newShardedFake(t, 3, ShardKeyRanged)
			if tc.setup != nil {
				tc.setup(t, f, topo)
			}
			report, err := Bootstrap(context.Background(), topo, f.options())
			if len(tc.wantErr) == 0 {
				if err != nil {
					t.Fatalf("Bootstrap: %v", err)
				}
				wantBalanced(t, f, topo)
				for i, sh := range report.Shards {
					if sh.Chunks != 1 || sh.Range == nil || *sh.Range != *plannedRanges(topo.SplitPoints)[i].result() {
						t.Errorf("shard %+v: want one chunk, range %v", sh, plannedRanges(topo.SplitPoints)[i])
					}
				}
			} else {
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
			if f.closes != len(f.dials) {
				t.Errorf("dialed %d, closed %d", len(f.dials), f.closes)
			}
			if tc.check != nil {
				tc.check(t, f, err)
			}
		})
	}
}

// TestPlannedRanges: n-1 points make n ranges from MinKey to MaxKey.
func TestPlannedRanges(t *testing.T) {
	var got []string
	for _, rg := range plannedRanges([]string{"user3", "user6"}) {
		got = append(got, rg.String()+" "+rg.result().Min+" "+rg.result().Max)
	}
	sameLines(t, "ranges", got, []string{
		`[MinKey, "user3") ` + results.MinKeyBound + ` user3`,
		`["user3", "user6") user3 user6`,
		`["user6", MaxKey) user6 ` + results.MaxKeyBound,
	})
}
