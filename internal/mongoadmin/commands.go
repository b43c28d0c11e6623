package mongoadmin

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/contract"
)

// Every command this package sends is built here, so the whole protocol can
// be read in one place; the tests compare these documents with what the fake
// server records.

const (
	adminDB  = "admin"
	configDB = "config"
	idField  = "_id"
	// nameField names a shard in addShard and a collection in
	// listCollections' filter.
	nameField = "name"
	// cursorField asks aggregate for a cursor (with the default batch size).
	cursorField = "cursor"
	// balancerOff is balancerStatus.mode once the balancer is stopped.
	balancerOff = "off"
	hashedKey   = "hashed"
)

// Names of the commands that change something (the tests look for them).
const (
	cmdReplSetInitiate = "replSetInitiate"
	cmdAddShard        = "addShard"
	cmdBalancerStop    = "balancerStop"
	cmdEnableSharding  = "enableSharding"
	cmdShardCollection = "shardCollection"
	cmdSplit           = "split"
	cmdMoveRange       = "moveRange"
	cmdMoveChunk       = "moveChunk"
	cmdCreate          = "create"
	cmdCollMod         = "collMod"
	cmdCreateUser      = "createUser"
	cmdInsert          = "insert"
	cmdDropDatabase    = "dropDatabase"
	// cmdUsersInfo changes nothing; users.go sends it before createUser.
	cmdUsersInfo = "usersInfo"
)

// simpleCommand is {name: 1}: hello, isMaster, buildInfo, listShards,
// replSetGetStatus, balancerStatus, balancerStop.
func simpleCommand(name string) bson.D {
	return bson.D{{Key: name, Value: int32(1)}}
}

// initiateCommand is replSetInitiate with every member of rs, member _id i
// at rs.Members()[i] (mongodb/mongo src/mongo/db/repl/member_config.h:
// each member is {_id, host}; the other fields keep their defaults: one
// vote, priority 1, data-bearing). configsvr must be
// true exactly for the config server: a mongod started with --configsvr
// refuses a config without it, and a shard one with it.
func initiateCommand(rs ReplicaSet, configsvr bool) bson.D {
	config := bson.D{{Key: idField, Value: rs.Name}, {Key: "version", Value: int32(1)}}
	if configsvr {
		config = append(config, bson.E{Key: "configsvr", Value: true})
	}
	hosts := rs.Members()
	members := make(bson.A, 0, len(hosts))
	for i, h := range hosts {
		members = append(members, bson.D{{Key: idField, Value: int32(i)}, {Key: "host", Value: h}})
	}
	config = append(config, bson.E{Key: "members", Value: members})
	return bson.D{{Key: cmdReplSetInitiate, Value: config}}
}

// addShardCommand adds rs under its own name; the host string must match the
// set's hello.hosts.
func addShardCommand(rs ReplicaSet) bson.D {
	return bson.D{{Key: cmdAddShard, Value: shardConnString(rs)}, {Key: nameField, Value: rs.Name}}
}

// enableShardingCommand enables sharding on database db (needed before
// 6.0; see runner.enableSharding).
func enableShardingCommand(db string) bson.D {
	return bson.D{{Key: cmdEnableSharding, Value: db}}
}

// shardCollectionCommand shards ns with key. numInitialChunks is not sent:
// 7.0 makes 2 chunks per shard for a hashed key by default, 7.2+ ignores it.
func shardCollectionCommand(ns string, key bson.D) bson.D {
	return bson.D{{Key: cmdShardCollection, Value: ns}, {Key: "key", Value: key}}
}

// findCollectionEntryCommand reads ns's entry in config.collections.
func findCollectionEntryCommand(ns string) bson.D {
	return bson.D{{Key: "find", Value: "collections"}, {Key: "filter", Value: bson.D{{Key: idField, Value: ns}}}}
}

// chunksCollection is config.chunks, and the count field of its groups.
const chunksCollection = "chunks"

// chunkCountCommand counts a collection's chunks per shard in config.chunks,
// where (since 5.0) a chunk names its collection by uuid.
func chunkCountCommand(uuid bson.RawValue) bson.D {
	return bson.D{
		{Key: "aggregate", Value: chunksCollection},
		{Key: "pipeline", Value: bson.A{
			bson.D{{Key: "$match", Value: bson.D{{Key: "uuid", Value: uuid}}}},
			bson.D{{Key: "$group", Value: bson.D{
				{Key: idField, Value: "$shard"},
				{Key: chunksCollection, Value: bson.D{{Key: "$sum", Value: int32(1)}}},
			}}},
		}},
		{Key: cursorField, Value: bson.D{}},
	}
}

// findChunksCommand lists a collection's chunks in config.chunks, in key
// order: their bounds and shards.
func findChunksCommand(uuid bson.RawValue) bson.D {
	return bson.D{
		{Key: "find", Value: chunksCollection},
		{Key: "filter", Value: bson.D{{Key: "uuid", Value: uuid}}},
		{Key: "sort", Value: bson.D{{Key: "min", Value: int32(1)}}},
		{Key: "projection", Value: bson.D{{Key: idField, Value: int32(0)}, {Key: "min", Value: int32(1)},
			{Key: "max", Value: int32(1)}, {Key: "shard", Value: int32(1)}}},
	}
}

// splitCommand splits the chunk of ns that holds point so that a chunk
// starts at point.
func splitCommand(ns string, point bound) bson.D {
	return bson.D{{Key: cmdSplit, Value: ns}, {Key: "middle", Value: point.keyDoc()}}
}

// moveRangeCommand (6.0+) moves the chunk [r.min, r.max) to toShard. Both
// bounds are given, so the server moves exactly that chunk and never
// computes a bound of its own (which it does from data sizes when max is
// left out).
func moveRangeCommand(ns string, r keyRange, toShard string) bson.D {
	return bson.D{{Key: cmdMoveRange, Value: ns}, {Key: "toShard", Value: toShard},
		{Key: "min", Value: r.min.keyDoc()}, {Key: "max", Value: r.max.keyDoc()}}
}

// moveChunkCommand is moveRangeCommand for servers before 6.0: bounds names
// the chunk exactly (find would name it by a key inside it).
func moveChunkCommand(ns string, r keyRange, toShard string) bson.D {
	return bson.D{{Key: cmdMoveChunk, Value: ns}, {Key: "bounds", Value: bson.A{r.min.keyDoc(), r.max.keyDoc()}},
		{Key: "to", Value: toShard}}
}

// listCollectionCommand lists one collection with its options.
func listCollectionCommand(coll string) bson.D {
	return bson.D{{Key: "listCollections", Value: int32(1)}, {Key: "filter", Value: bson.D{{Key: nameField, Value: coll}}}}
}

// createCommand creates coll, with validation when v is not nil.
func createCommand(coll string, v *validation) bson.D {
	return withValidation(bson.D{{Key: cmdCreate, Value: coll}}, v)
}

// collModCommand sets coll's validation.
func collModCommand(coll string, v validation) bson.D {
	return withValidation(bson.D{{Key: cmdCollMod, Value: coll}}, &v)
}

func withValidation(cmd bson.D, v *validation) bson.D {
	if v == nil {
		return cmd
	}
	return append(cmd,
		bson.E{Key: "validator", Value: v.validator},
		bson.E{Key: "validationLevel", Value: v.level},
		bson.E{Key: "validationAction", Value: v.action},
	)
}

// listCollectionNamesCommand lists every collection and view of a database
// by name and type only, which takes no collection locks (MongoDB manual,
// listCollections: nameOnly).
func listCollectionNamesCommand() bson.D {
	return bson.D{{Key: "listCollections", Value: int32(1)}, {Key: "nameOnly", Value: true}}
}

// ownerMarkFind reads the owner mark of a run's database.
func ownerMarkFind() bson.D {
	return bson.D{{Key: "find", Value: contract.OwnerCollection}, {Key: "filter", Value: bson.D{{Key: idField, Value: ownerMarkID}}}}
}

// ownerMarkInsert writes the owner mark, {_id: "owner", run, uid}
// (contract.OwnerCollection). No writeConcern is sent: the server's
// default applies, { w: "majority" } on a replica set since 5.0 unless
// arbiters leave too few data-bearing voters, then { w: 1 } (MongoDB
// manual, "Default MongoDB Read Concerns/Write Concerns",
// https://mongodb.com/docs/manual/reference/mongodb-defaults/; a cluster
// wide default set with setDefaultRWConcern wins), so the mark normally
// survives a failover. A second insert of the same _id fails with 11000
// DuplicateKey, which makes two bootstraps racing for one database agree.
func ownerMarkInsert(o Owner) bson.D {
	return bson.D{{Key: cmdInsert, Value: contract.OwnerCollection}, {Key: "documents", Value: bson.A{
		bson.D{{Key: idField, Value: ownerMarkID}, {Key: "run", Value: o.Run}, {Key: "uid", Value: o.UID}},
	}}}
}

// dropDatabaseCommand drops the database it is sent to, and nothing else
// (MongoDB manual, dropDatabase: "drops the current database").
func dropDatabaseCommand() bson.D {
	return bson.D{{Key: cmdDropDatabase, Value: int32(1)}}
}
