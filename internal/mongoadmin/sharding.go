package mongoadmin

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// codeIllegalOperation is addShard's answer to a real conflict.
const codeIllegalOperation = 20

// addShardNoSetName begins addShard's 96 OperationFailed for a replica set
// member whose hello has no setName yet (not initiated, or initiating):
// "host did not return a set name; is the replica set still initializing?
// <hello reply>" (_validateHostAsShard in src/mongo/db/s/config/
// sharding_catalog_manager_shard_operations.cpp, 7.0/8.0, and
// validateHostAsShard in src/mongo/db/s/topology_change_helpers.cpp later,
// mongodb/mongo). It is the only 96 addShard retries: the others (a set
// name that differs, a config server, a write concern the shard and the
// cluster disagree on, a host outside the set) do not pass by waiting.
const addShardNoSetName = "host did not return a set name"

// shardInfo is one entry of listShards.
type shardInfo struct {
	ID   string `bson:"_id"`
	Host string `bson:"host"` // "shard0/host:port"
}

// shardConnString is the host string addShard takes and listShards reports:
// "<replica_set>/<host:port>,<host:port>,...", a seed list of the set's
// members, all of which must belong to it (MongoDB manual, sh.addShard:
// "Any additional replica set member hostnames must be comma separated").
// Every member is listed so that addShard can reach the set whichever
// member answers first.
func shardConnString(rs ReplicaSet) string { return rs.Name + "/" + strings.Join(rs.Members(), ",") }

// sameShardHost compares a listShards host, "name/h1,h2,...", with want
// without regard to case or the order of the hosts: config.shards records
// the hosts the shard's hello listed when it was added.
func sameShardHost(listed, want string) bool {
	ls, lh, _ := strings.Cut(listed, "/")
	ws, wh, _ := strings.Cut(want, "/")
	if ls != ws {
		return false
	}
	a, b := strings.Split(strings.ToLower(lh), ","), strings.Split(strings.ToLower(wh), ",")
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func (r *runner) listShards(ctx context.Context, mongos string) ([]shardInfo, error) {
	reply, err := r.runAdmin(ctx, mongos, simpleCommand("listShards"))
	if err != nil {
		return nil, err
	}
	var ls struct {
		Shards []shardInfo `bson:"shards"`
	}
	if err := bson.Unmarshal(reply, &ls); err != nil {
		return nil, fmt.Errorf("listShards on %s: decode: %w", mongos, err)
	}
	return ls.Shards, nil
}

// waitMongos waits until mongos answers and can read the shard list, which
// it can only once it reaches the config server's primary (until then it
// answers 133 FailedToSatisfyReadPreference, retried).
func (r *runner) waitMongos(ctx context.Context, mongos string) ([]shardInfo, error) {
	var shards []shardInfo
	err := r.retry(ctx, "wait for mongos "+mongos, func(ctx context.Context) error {
		h, err := r.hello(ctx, r.endpoint(mongos))
		if err != nil {
			return err
		}
		if h.Msg != "isdbgrid" {
			return fmt.Errorf("%s is not a mongos (hello.msg %q, want \"isdbgrid\")", mongos, h.Msg)
		}
		shards, err = r.listShards(ctx, mongos)
		return err
	})
	if err != nil {
		return nil, err
	}
	r.log.Info("mongos ready", "mongos", mongos, "shards", len(shards))
	return shards, nil
}

// addShard adds rs unless listShards already lists it with the same host
// string. Anything else listed under its name is left for addShard to judge:
// re-adding the same shard is ok, a conflict is 20 IllegalOperation.
func (r *runner) addShard(ctx context.Context, mongos string, rs ReplicaSet, listed []shardInfo) error {
	want := shardConnString(rs)
	for _, s := range listed {
		if s.ID == rs.Name && sameShardHost(s.Host, want) {
			r.log.Info("shard already added", "shard", rs.Name, "host", want)
			return nil
		}
	}
	err := r.retry(ctx, "add shard "+rs.Name, func(ctx context.Context) error {
		_, err := r.runAdmin(ctx, mongos, addShardCommand(rs))
		switch {
		case err == nil:
			return nil
		case hasCode(err, codeOperationFailed) && strings.Contains(err.Error(), addShardNoSetName):
			// The shard is still starting; any other 96 is final.
			return notYet("%v", err)
		case hasCode(err, codeIllegalOperation):
			return withHint(err, fmt.Sprintf("the cluster already has a different shard named %s or on %s", rs.Name, rs.Host))
		}
		return err
	})
	if err != nil {
		return err
	}
	r.log.Info("shard added", "shard", rs.Name, "host", want)
	return nil
}

// balancerMode reads balancerStatus.mode ("full" or "off").
func (r *runner) balancerMode(ctx context.Context, mongos string) (string, error) {
	reply, err := r.runAdmin(ctx, mongos, simpleCommand("balancerStatus"))
	if err != nil {
		return "", err
	}
	mode, ok := reply.Lookup("mode").StringValueOK()
	if !ok {
		return "", fmt.Errorf("balancerStatus on %s: no mode in %s", mongos, reply)
	}
	return mode, nil
}

// stopBalancer turns the balancer off, so chunks stay where shardCollection
// put them and no migration disturbs a measurement.
func (r *runner) stopBalancer(ctx context.Context, mongos string) (string, error) {
	var mode string
	err := r.retry(ctx, "stop balancer", func(ctx context.Context) error {
		m, err := r.balancerMode(ctx, mongos)
		if err != nil {
			return err
		}
		if m == balancerOff {
			mode = m
			r.log.Info("balancer already off")
			return nil
		}
		if _, err := r.runAdmin(ctx, mongos, simpleCommand(cmdBalancerStop)); err != nil {
			return err
		}
		if m, err = r.balancerMode(ctx, mongos); err != nil {
			return err
		}
		if m != balancerOff {
			return notYet("balancer mode is %q after balancerStop", m)
		}
		mode = m
		r.log.Info("balancer stopped")
		return nil
	})
	return mode, err
}

// collectionInfo is a collection's entry in config.collections.
type collectionInfo struct {
	Key  bson.Raw      `bson:"key"`
	UUID bson.RawValue `bson:"uuid"`
	// Unsplittable marks a collection that 8.0 tracks without sharding it
	// (after moveCollection); shardCollection still applies to it.
	Unsplittable bool `bson:"unsplittable"`
	// Dropped is set by servers before 5.0 instead of removing the entry.
	Dropped bool `bson:"dropped"`
}

// shardedCollection returns ns's entry in config.collections, or nil when ns
// is not sharded.
func (r *runner) shardedCollection(ctx context.Context, mongos, ns string) (*collectionInfo, error) {
	docs, err := r.cursorAll(ctx, r.endpoint(mongos), configDB, findCollectionEntryCommand(ns))
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		var c collectionInfo
		if err := bson.Unmarshal(d, &c); err != nil {
			return nil, fmt.Errorf("config.collections entry of %s: decode: %w", ns, err)
		}
		if id, _ := d.Lookup(idField).StringValueOK(); id != ns || c.Unsplittable || c.Dropped {
			continue
		}
		return &c, nil
	}
	return nil, nil
}

// shardCollection shards ns with key before any data is written (otherwise
// every chunk starts on the primary shard), unless it already is with the
// same key.
func (r *runner) shardCollection(ctx context.Context, mongos, ns string, key bson.D) (*collectionInfo, error) {
	var info *collectionInfo
	err := r.retry(ctx, "shard collection "+ns, func(ctx context.Context) error {
		cur, err := r.shardedCollection(ctx, mongos, ns)
		if err != nil {
			return err
		}
		if cur != nil {
			if !sameKey(cur.Key, key) {
				return fmt.Errorf("%s is already sharded with key %s, want %s: drop the collection or use a new run",
					ns, keyJSON(cur.Key), keyJSON(key))
			}
			r.log.Info("collection already sharded", "namespace", ns, "key", keyJSON(cur.Key))
			info = cur
			return nil
		}
		if err := r.enableSharding(ctx, mongos, ns); err != nil {
			return err
		}
		_, err = r.runAdmin(ctx, mongos, shardCollectionCommand(ns, key))
		if hasCode(err, codeAlreadyInitialized) {
			existing := "unknown"
			if c, rerr := r.shardedCollection(ctx, mongos, ns); rerr == nil && c != nil {
				existing = keyJSON(c.Key)
			}
			return withHint(err, fmt.Sprintf("%s is already sharded with key %s, want %s", ns, existing, keyJSON(key)))
		}
		if err != nil {
			return err
		}
		r.log.Info("collection sharded", "namespace", ns, "key", keyJSON(key))
		if info, err = r.shardedCollection(ctx, mongos, ns); err != nil {
			return err
		}
		if info == nil {
			return notYet("config.collections does not list %s yet", ns)
		}
		return nil
	})
	return info, err
}

// enableSharding enables sharding on ns's database. Before 6.0 (more
// exactly, before featureCompatibilityVersion 6.0) shardCollection
// refuses a database that is not: 20 IllegalOperation "sharding not
// enabled for db <db>" (CreateCollectionCoordinator::
// _checkCommandArguments, src/mongo/db/s/create_collection_coordinator.cpp,
// mongodb/mongo 5.0). From 6.0 on it only creates the database and picks
// its primary shard, as shardCollection would. It is idempotent: sent
// again for a database already enabled it answers ok
// (jstests/sharding/enable_sharding.js of 5.0, "Attempting to shard
// already sharded database returns success";
// jstests/core_sharding/ddl/enable_sharding.js of 8.0, "enableSharding is
// idempotent").
func (r *runner) enableSharding(ctx context.Context, mongos, ns string) error {
	db, _, err := splitNamespace(ns)
	if err != nil {
		return err
	}
	if _, err := r.runAdmin(ctx, mongos, enableShardingCommand(db)); err != nil {
		return err
	}
	r.log.Info("database enabled for sharding", "database", db)
	return nil
}

// sameKey compares key patterns by field names and values; numbers by
// value, since a server may store {_id: 1} as an int32, int64 or double.
func sameKey(got bson.Raw, want bson.D) bool {
	wantRaw, err := bson.Marshal(want)
	if err != nil {
		return false
	}
	a, errA := got.Elements()
	b, errB := bson.Raw(wantRaw).Elements()
	if errA != nil || errB != nil || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key() != b[i].Key() {
			return false
		}
		va, vb := a[i].Value(), b[i].Value()
		if sa, ok := va.StringValueOK(); ok {
			if sb, ok := vb.StringValueOK(); !ok || !strings.EqualFold(sa, sb) {
				return false
			}
			continue
		}
		fa, okA := va.AsFloat64OK()
		fb, okB := vb.AsFloat64OK()
		if !okA || !okB || fa != fb {
			return false
		}
	}
	return true
}

// keyJSON renders a key document as relaxed Extended JSON, e.g.
// {"_id":"hashed"}, for messages and the report.
func keyJSON(key any) string {
	b, err := bson.MarshalExtJSON(key, false, false)
	if err != nil {
		return fmt.Sprintf("%v", key)
	}
	return string(b)
}
