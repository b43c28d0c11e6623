package mongoadmin

import (
	"context"
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/results"
)

func TestShardChunks(t *testing.T) {
	topo := []ReplicaSet{{Name: "shard0", Host: "a:1"}, {Name: "shard1", Host: "b:1"}, {Name: "shard2", Host: "c:1"}}
	listed := []shardInfo{
		{ID: "shard1", Host: "shard1/b:1"},
		{ID: "shard0", Host: "shard0/a:1"},
		{ID: "extra", Host: "extra/x:1"},
	}
	chunks := map[string]int{"shard0": 3, "extra": 1, "ghost": 2}
	got := shardChunks(topo, listed, chunks, nil)
	want := []results.ShardChunks{
		{Name: "shard0", Host: "shard0/a:1", Chunks: 3},
		{Name: "shard1", Host: "shard1/b:1", Chunks: 0},
		// Not listed by the cluster (yet): reported under its topology host.
		{Name: "shard2", Host: "shard2/c:1", Chunks: 0},
		{Name: "extra", Host: "extra/x:1", Chunks: 1},
		{Name: "ghost", Host: "", Chunks: 2},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("shardChunks =\n%+v\nwant\n%+v", got, want)
	}

	// After a ranged pre-split every topology shard reports its range.
	ranges := map[string]keyRange{}
	for i, rg := range plannedRanges([]string{"user3", "user6"}) {
		ranges[topo[i].Name] = rg
	}
	got = shardChunks(topo, listed, map[string]int{"shard0": 1, "shard1": 1, "shard2": 1}, ranges)
	wantRanges := []*results.KeyRange{
		{Min: results.MinKeyBound, Max: "user3"}, {Min: "user3", Max: "user6"}, {Min: "user6", Max: results.MaxKeyBound}, nil,
	}
	for i, w := range wantRanges {
		if !reflect.DeepEqual(got[i].Range, w) {
			t.Errorf("shard %s range %+v, want %+v", got[i].Name, got[i].Range, w)
		}
	}
}

// TestChunkCountMatchesUUID: chunks of other collections (another uuid) are
// not counted, and every shard is listed, 0 chunks included.
func TestChunkCountMatchesUUID(t *testing.T) {
	f, topo := newShardedFake(t, 4, ShardKeyHashed)
	mongos := f.servers[mongosHost]
	other := bson.Binary{Subtype: 4, Data: []byte("ffffffffffffffff")}
	mongos.shards = []shardInfo{
		{ID: "shard0", Host: "shard0/" + shardHost(0)}, {ID: "shard1", Host: "shard1/" + shardHost(1)},
		{ID: "shard2", Host: "shard2/" + shardHost(2)}, {ID: "shard3", Host: "shard3/" + shardHost(3)},
	}
	for i := range 4 {
		f.servers[shardHost(i)].initiated = true
		f.servers[shardHost(i)].configHost = shardHost(i)
	}
	uuid := bson.Binary{Subtype: 4, Data: []byte("0123456789abcdef")}
	mongos.sharded["ycsb.usertable"] = fakeSharded{key: marshal(t, bson.D{{Key: "_id", Value: "hashed"}}), uuid: uuid}
	mongos.balancer = "off"
	for _, c := range []struct {
		uuid  bson.Binary
		shard string
	}{
		{uuid, "shard2"}, {uuid, "shard0"}, {uuid, "shard2"}, {uuid, "shard2"}, {uuid, "shard0"},
		{other, "shard1"}, {other, "shard1"}, {other, "shard3"},
	} {
		mongos.chunks = append(mongos.chunks, &fakeChunk{uuid: c.uuid, shard: c.shard})
	}

	report, err := Bootstrap(context.Background(), topo, f.options())
	if err != nil {
		t.Fatalf("Bootstrap: %v", err)
	}
	want := []results.ShardChunks{
		{Name: "shard0", Host: "shard0/" + shardHost(0), Chunks: 2},
		{Name: "shard1", Host: "shard1/" + shardHost(1), Chunks: 0},
		{Name: "shard2", Host: "shard2/" + shardHost(2), Chunks: 3},
		{Name: "shard3", Host: "shard3/" + shardHost(3), Chunks: 0},
	}
	if !reflect.DeepEqual(report.Shards, want) {
		t.Errorf("shards =\n%+v\nwant\n%+v", report.Shards, want)
	}
	if m := f.mutating(); len(m) != 1 || f.count(cfgHost, `{"replSetInitiate"`) != 1 {
		t.Errorf("mutating commands %v, want only the config server's initiate", m)
	}
}

func TestSameKey(t *testing.T) {
	for _, tc := range []struct {
		got  bson.D
		want bson.D
		same bool
	}{
		{bson.D{{Key: "_id", Value: "hashed"}}, ShardKeyHashed.Document(), true},
		{bson.D{{Key: "_id", Value: int32(1)}}, ShardKeyRanged.Document(), true},
		{bson.D{{Key: "_id", Value: int64(1)}}, ShardKeyRanged.Document(), true},
		{bson.D{{Key: "_id", Value: 1.0}}, ShardKeyRanged.Document(), true},
		{bson.D{{Key: "_id", Value: int32(1)}}, ShardKeyHashed.Document(), false},
		{bson.D{{Key: "_id", Value: "hashed"}}, ShardKeyRanged.Document(), false},
		{bson.D{{Key: "_id", Value: int32(-1)}}, ShardKeyRanged.Document(), false},
		{bson.D{{Key: "k", Value: int32(1)}}, ShardKeyRanged.Document(), false},
		{bson.D{{Key: "_id", Value: int32(1)}, {Key: "k", Value: int32(1)}}, ShardKeyRanged.Document(), false},
	} {
		if got := sameKey(marshal(t, tc.got), tc.want); got != tc.same {
			t.Errorf("sameKey(%s, %s) = %v, want %v", keyJSON(tc.got), keyJSON(tc.want), got, tc.same)
		}
	}
}
