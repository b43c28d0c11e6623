package mongoadmin

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// fakeCluster stands in for every server of a topology: it answers the
// commands this package sends the way MongoDB 7.0 does (as far as
// shared/reference/mongodb-topology.md and the server docs tell), records
// them in order, and lets a test script errors. It models state, so a second
// Bootstrap sees what the first one did.
type fakeCluster struct {
	t       *testing.T
	clock   *fakeClock
	servers map[string]*fakeServer // by host:port
	calls   []call
	inject  map[string][]injection // by "host command"
	// batch is the cursor batch size, small so cursorAll's getMore runs.
	batch      int
	cursors    map[int64]fakeCursor
	nextCursor int64
	dials      []string // URIs, in order
	closes     int
	// electWinner is the member a multi-member set elects (replicaset_test.go).
	electWinner int
}

// call is one recorded command.
type call struct {
	host, db string
	cmd      bson.D
}

func (c call) String() string {
	return c.host + " " + c.db + " " + keyJSON(c.cmd)
}

// injection replaces the fake's answer to one command.
type injection struct {
	err   error
	reply bson.D // answered instead, when err is nil
	// apply makes the command take effect before err is returned: a reply
	// lost on the way, or another actor having done the same meanwhile.
	apply bool
	// match limits the injection to commands whose JSON contains it;
	// skip lets that many matching commands through first.
	match string
	skip  int
}

type fakeCursor struct {
	ns   string
	docs []bson.Raw
}

const (
	roleStandalone = "standalone"
	roleMember     = "member"
	roleMongos     = "mongos"
)

type fakeServer struct {
	host    string
	role    string
	version string

	// replica set member
	replSet    string
	configsvr  bool
	initiated  bool
	configHost string // the member host in the initiated config
	// notPrimaryHellos is how many hellos after initiate answer "not
	// primary yet"; -1: never primary.
	notPrimaryHellos int
	// removed: initiated, but its config does not list it (REMOVED).
	removed bool
	// noHello makes hello answer 59 CommandNotFound, as old servers and
	// mongo-java-server do.
	noHello bool
	// set is the multi-member replica set the member belongs to, once
	// initiated (replicaset_test.go); nil for one-member sets.
	set *fakeSet
	// unreachable makes the member fail the quorum check of a
	// multi-member initiate sent to another member that many times
	// (a pod still starting); -1: always.
	unreachable int

	// mongos
	shards   []shardInfo
	balancer string
	sharded  map[string]fakeSharded
	chunks   []*fakeChunk
	// primaryShard gets a new collection's first chunk (default: the
	// first shard added).
	primaryShard string
	// databases enabled for sharding (enableSharding), or created by
	// shardCollection from 6.0 on.
	databases map[string]bool

	// users of the admin database, by name, with their roles (role@db):
	// a mongos keeps none, it stores them on the config server (users.go).
	users map[string][]string

	// standalone and mongos
	colls map[string]*fakeColl // by db.coll
	// dropValidator makes create and collMod accept a validator and keep
	// none, as mongo-java-server does.
	dropValidator bool
	// hello, when set, is the server's answer to hello: an external
	// cluster's entry point (external_test.go).
	hello bson.D
}

// before60 tells whether the server is older than MongoDB 6.0 (its
// version's major number is below 6).
func (s *fakeServer) before60() bool {
	major, _, _ := strings.Cut(s.version, ".")
	n, err := strconv.Atoi(major)
	return err == nil && n < 6
}

// setVersion makes every server of the fake run version v.
func (f *fakeCluster) setVersion(v string) {
	for _, s := range f.servers {
		s.version = v
	}
}

type fakeSharded struct {
	key  bson.Raw
	uuid bson.Binary
	// unsplittable: tracked by 8.0 without being sharded.
	unsplittable bool
}

// fakeChunk is one entry of config.chunks. Bounds are those of a
// collection sharded on {_id: 1} (hashed chunks leave them zero: nothing
// reads them).
type fakeChunk struct {
	uuid     bson.Binary
	shard    string
	min, max bound
}

// fakeBoundLess orders bounds as BSON does for MinKey, strings, MaxKey.
func fakeBoundLess(a, b bound) bool {
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return a.key < b.key
}

// fakeBoundOf reads a shard key document {_id: MinKey|MaxKey|string}.
func fakeBoundOf(v bson.RawValue) (bound, bool) {
	d, ok := v.DocumentOK()
	if !ok {
		return bound{}, false
	}
	id := d.Lookup("_id")
	switch id.Type {
	case bson.TypeMinKey:
		return bound{kind: boundMinKey}, true
	case bson.TypeMaxKey:
		return bound{kind: boundMaxKey}, true
	case bson.TypeString:
		return bound{kind: boundString, key: id.StringValue()}, true
	}
	return bound{}, false
}

func fakeBoundDoc(b bound) bson.D {
	switch b.kind {
	case boundMinKey:
		return bson.D{{Key: "_id", Value: bson.MinKey{}}}
	case boundMaxKey:
		return bson.D{{Key: "_id", Value: bson.MaxKey{}}}
	}
	return bson.D{{Key: "_id", Value: b.key}}
}

// rangedChunks returns the chunks of a collection's uuid in key order.
func (s *fakeServer) rangedChunks(uuid []byte) []*fakeChunk {
	var out []*fakeChunk
	for _, c := range s.chunks {
		if string(c.uuid.Data) == string(uuid) {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b *fakeChunk) int {
		switch {
		case fakeBoundLess(a.min, b.min):
			return -1
		case fakeBoundLess(b.min, a.min):
			return 1
		}
		return 0
	})
	return out
}

// setChunks replaces a sharded collection's chunks: bounds[i] to
// bounds[i+1] on shards[i].
func (s *fakeServer) setChunks(ns string, shards []string, points ...string) {
	uuid := s.sharded[ns].uuid
	s.chunks = slices.DeleteFunc(s.chunks, func(c *fakeChunk) bool { return string(c.uuid.Data) == string(uuid.Data) })
	lo := bound{kind: boundMinKey}
	for i, sh := range shards {
		hi := bound{kind: boundMaxKey}
		if i < len(points) {
			hi = bound{kind: boundString, key: points[i]}
		}
		s.chunks = append(s.chunks, &fakeChunk{uuid: uuid, shard: sh, min: lo, max: hi})
		lo = hi
	}
}

type fakeColl struct {
	validator     bson.Raw
	level, action string
	// docs are the documents inserted (the owner mark), by _id.
	docs map[string]bson.Raw
}

func newFake(t *testing.T) *fakeCluster {
	return &fakeCluster{
		t:       t,
		clock:   &fakeClock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)},
		servers: map[string]*fakeServer{},
		inject:  map[string][]injection{},
		batch:   2,
		cursors: map[int64]fakeCursor{},
	}
}

func (f *fakeCluster) add(s *fakeServer) *fakeServer {
	if s.version == "" {
		s.version = "7.0.14"
	}
	if s.role == roleMongos {
		s.balancer = "full"
		s.sharded = map[string]fakeSharded{}
		s.databases = map[string]bool{}
	}
	s.colls = map[string]*fakeColl{}
	s.users = map[string][]string{}
	f.servers[s.host] = s
	return s
}

// Host names of the fake sharded topology, shaped like the operator's
// per-pod DNS names.
const (
	cfgHost    = "run-cfg-0.run-cfg:27019"
	mongosHost = "run-mongos-0.run-mongos:27017"
)

func shardHost(i int) string { return fmt.Sprintf("run-shard%d-0.run-shard%d:27018", i, i) }

// newShardedFake returns a fake of a freshly started sharded topology
// (nothing initiated) with n shards, and that topology.
func newShardedFake(t *testing.T, n int, key ShardKey) (*fakeCluster, Topology) {
	f := newFake(t)
	topo := Topology{
		Mode:         ModeSharded,
		ConfigServer: ReplicaSet{Name: "cfg", Host: cfgHost},
		Mongos:       mongosHost,
		ShardKey:     key,
	}
	f.add(&fakeServer{host: cfgHost, role: roleMember, replSet: "cfg", configsvr: true})
	for i := range n {
		rs := ReplicaSet{Name: fmt.Sprintf("shard%d", i), Host: shardHost(i)}
		topo.Shards = append(topo.Shards, rs)
		f.add(&fakeServer{host: rs.Host, role: roleMember, replSet: rs.Name})
	}
	f.add(&fakeServer{host: mongosHost, role: roleMongos})
	if key == ShardKeyRanged {
		topo.SplitPoints = rangedPoints(n)
	}
	return f, topo
}

// rangedPoints are split points for n shards (n <= 9): user3 and user6 for
// three.
func rangedPoints(n int) []string {
	var out []string
	for i := 1; i < n; i++ {
		out = append(out, fmt.Sprintf("user%d", i*9/n))
	}
	return out
}

// options are Options wired to the fake, with its clock.
func (f *fakeCluster) options() Options {
	return Options{
		Dial:        f.dial,
		clock:       f.clock,
		Timeout:     time.Minute,
		CallTimeout: 5 * time.Second,
	}
}

// failNext scripts the answers to the next commands named cmd sent to host.
func (f *fakeCluster) failNext(host, cmd string, inj ...injection) {
	f.inject[host+" "+cmd] = append(f.inject[host+" "+cmd], inj...)
}

func (f *fakeCluster) dial(uri string) (Commander, error) {
	f.dials = append(f.dials, uri)
	return &fakeConn{f: f, host: redactURI(uri)}, nil
}

// callStrings renders the recorded calls, one per line.
func (f *fakeCluster) callStrings() []string {
	out := make([]string, len(f.calls))
	for i, c := range f.calls {
		out[i] = c.String()
	}
	return out
}

// mutating lists recorded commands that change a server's state.
func (f *fakeCluster) mutating() []string {
	var out []string
	for _, c := range f.calls {
		switch c.cmd[0].Key {
		case cmdReplSetInitiate, cmdAddShard, cmdBalancerStop, cmdEnableSharding, cmdShardCollection, cmdSplit, cmdMoveRange, cmdMoveChunk, cmdCreate, cmdCollMod,
			cmdCreateUser, cmdInsert, cmdDropDatabase:
			out = append(out, c.String())
		}
	}
	return out
}

type fakeConn struct {
	f    *fakeCluster
	host string
}

func (c *fakeConn) Close(context.Context) error {
	c.f.closes++
	return nil
}

// RunCommand is the driver's Database.RunCommand, which adds maxTimeMS
// to the command whenever ctx has a deadline (go.mongodb.org/mongo-driver/v2
// x/mongo/driver/operation.go calculateMaxTimeMS; mongo/database.go sets no
// OmitMaxTimeMS): here always, since every call has one.
func (c *fakeConn) RunCommand(ctx context.Context, db string, cmd bson.D) (bson.Raw, error) {
	c.f.t.Helper()
	return c.exec(ctx, db, cmd, true)
}

// RunCursor is the driver's RunCommandCursor read to its end: the first
// command gets maxTimeMS as any RunCommand, the getMores that follow do not
// (x/mongo/driver/batch_cursor.go, getMore: "OmitMaxTimeMS: true"), and
// they are sent as {getMore: <id>, collection: <the cursor's collection>}
// to the database of the cursor's namespace.
func (c *fakeConn) RunCursor(ctx context.Context, db string, cmd bson.D) ([]bson.Raw, error) {
	c.f.t.Helper()
	reply, err := c.exec(ctx, db, cmd, true)
	var docs []bson.Raw
	for batch := "firstBatch"; ; batch = "nextBatch" {
		if err != nil {
			return nil, err
		}
		var page struct {
			Cursor struct {
				ID         int64      `bson:"id"`
				NS         string     `bson:"ns"`
				FirstBatch []bson.Raw `bson:"firstBatch"`
				NextBatch  []bson.Raw `bson:"nextBatch"`
			} `bson:"cursor"`
		}
		if err := bson.Unmarshal(reply, &page); err != nil {
			return nil, fmt.Errorf("fake: decode cursor: %w", err)
		}
		if batch == "firstBatch" {
			docs = append(docs, page.Cursor.FirstBatch...)
		} else {
			docs = append(docs, page.Cursor.NextBatch...)
		}
		if page.Cursor.ID == 0 {
			return docs, nil
		}
		cdb, coll, _ := strings.Cut(page.Cursor.NS, ".")
		reply, err = c.exec(ctx, cdb, bson.D{{Key: "getMore", Value: page.Cursor.ID}, {Key: "collection", Value: coll}}, false)
	}
}

// exec runs one command as the server would, maxTimeMS telling whether the
// driver added one.
func (c *fakeConn) exec(ctx context.Context, db string, cmd bson.D, maxTimeMS bool) (bson.Raw, error) {
	f := c.f
	f.t.Helper()
	// Every command must carry its own, bounded timeout.
	if dl, ok := ctx.Deadline(); !ok {
		f.t.Errorf("%s %s: context without a deadline", c.host, cmd[0].Key)
	} else if time.Until(dl) > time.Minute {
		f.t.Errorf("%s %s: deadline %v away, want the call timeout", c.host, cmd[0].Key, time.Until(dl))
	}
	f.calls = append(f.calls, call{host: c.host, db: db, cmd: cmd})
	s, ok := f.servers[c.host]
	if !ok {
		return nil, networkError("dial tcp: lookup " + c.host + ": no such host")
	}
	if cmd[0].Key == "getMore" && maxTimeMS {
		// Every cursor here is a plain one (not tailable, not awaitData),
		// and a real server refuses maxTimeMS on its getMore: mongod in
		// src/mongo/db/commands/getmore_cmd.cpp, mongos (same code, other
		// message) in src/mongo/s/query/cluster_find.cpp (mongodb/mongo).
		if s.role == roleMongos {
			return nil, serverError(2, "BadValue", "maxTimeMS can only be used with getMore for tailable, awaitData cursors")
		}
		return nil, serverError(2, "BadValue", "cannot set maxTimeMS on getMore command for a non-awaitData cursor")
	}
	key := c.host + " " + cmd[0].Key
	if q := f.inject[key]; len(q) > 0 && (q[0].match == "" || strings.Contains(keyJSON(cmd), q[0].match)) && q[0].skip > 0 {
		q[0].skip--
	} else if len(q) > 0 && (q[0].match == "" || strings.Contains(keyJSON(cmd), q[0].match)) {
		inj := q[0]
		f.inject[key] = q[1:]
		if inj.apply {
			if _, err := f.handle(s, db, cmd); err != nil {
				f.t.Fatalf("fake: applying %s: %v", cmd[0].Key, err)
			}
		}
		if inj.err != nil {
			return nil, inj.err
		}
		return marshal(f.t, append(inj.reply, bson.E{Key: "ok", Value: 1.0})), nil
	}
	reply, err := f.handle(s, db, cmd)
	if err != nil {
		return nil, err
	}
	return marshal(f.t, append(reply, bson.E{Key: "ok", Value: 1.0})), nil
}

func marshal(t *testing.T, d any) bson.Raw {
	t.Helper()
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatalf("marshal %v: %v", d, err)
	}
	return b
}

// serverError is a reply with ok: 0 as driver v2 returns it.
func serverError(code int32, name, msg string) error {
	return mongo.CommandError{Code: code, Name: name, Message: msg}
}

// networkError is a failed connection as driver v2 returns it.
func networkError(msg string) error {
	return mongo.CommandError{Labels: []string{"NetworkError"}, Message: msg}
}

func (f *fakeCluster) handle(s *fakeServer, db string, cmd bson.D) (bson.D, error) {
	name := cmd[0].Key
	switch name {
	case "buildInfo":
		return bson.D{{Key: "version", Value: s.version}, {Key: "gitVersion", Value: "git-" + s.version},
			{Key: "allocator", Value: "tcmalloc-google"}, {Key: "openssl", Value: bson.D{{Key: "running", Value: "OpenSSL 3.0.13"}}}}, nil
	case "getCmdLineOpts":
		return bson.D{{Key: "argv", Value: bson.A{"mongod"}}, {Key: "parsed", Value: bson.D{{Key: "net", Value: bson.D{{Key: "port", Value: 27017}}}}}}, nil
	case "getLog":
		return bson.D{{Key: "totalLinesWritten", Value: 1}, {Key: "log", Value: bson.A{`{"msg":"startup warning of ` + s.host + `"}`}}}, nil
	case "serverStatus":
		return bson.D{{Key: "version", Value: s.version}, {Key: "storageEngine", Value: bson.D{{Key: "name", Value: "wiredTiger"}}}}, nil
	case "getParameter":
		if s.role == roleMongos {
			return nil, serverError(59, "CommandNotFound", "featureCompatibilityVersion is not available on mongos")
		}
		return bson.D{{Key: "featureCompatibilityVersion", Value: bson.D{{Key: "version", Value: "8.0"}}}}, nil
	case "getMore":
		return f.getMore(cmd)
	case "hello":
		if s.hello != nil {
			return s.hello, nil
		}
	case cmdUsersInfo, cmdCreateUser:
		return f.handleUsers(s, db, cmd)
	}
	switch s.role {
	case roleMember:
		return f.handleMember(s, db, cmd)
	case roleMongos:
		if r, err, ok := f.handleMongos(s, db, cmd); ok {
			return r, err
		}
	}
	if s.role != roleMember {
		if r, err, ok := f.handleCollections(s, db, cmd); ok {
			return r, err
		}
	}
	if name == "hello" && !s.noHello {
		return bson.D{{Key: "isWritablePrimary", Value: true}}, nil
	}
	if name == "isMaster" {
		return bson.D{{Key: "ismaster", Value: true}}, nil
	}
	return nil, serverError(59, "CommandNotFound", "no such command: '"+name+"'")
}

func (f *fakeCluster) handleMember(s *fakeServer, db string, cmd bson.D) (bson.D, error) {
	if r, err, ok := f.handleSetMember(s, db, cmd); ok {
		return r, err
	}
	switch cmd[0].Key {
	case "replSetGetStatus":
		if !s.initiated {
			return nil, serverError(94, "NotYetInitialized", "no replset config has been received")
		}
		state, stateStr := int32(1), "PRIMARY"
		if s.removed {
			state, stateStr = 10, "REMOVED"
		}
		// A REMOVED member lists the config's members, not itself.
		members := bson.A{bson.D{{Key: "_id", Value: int32(0)}, {Key: "name", Value: s.configHost}, {Key: "health", Value: 1.0},
			{Key: "state", Value: state}, {Key: "stateStr", Value: stateStr}}}
		return bson.D{{Key: "set", Value: s.replSet}, {Key: "myState", Value: state}, {Key: "members", Value: members}}, nil
	case "replSetInitiate":
		if s.initiated {
			return nil, serverError(23, "AlreadyInitialized", "already initialized")
		}
		var cfg struct {
			ID        string `bson:"_id"`
			Version   int    `bson:"version"`
			Configsvr bool   `bson:"configsvr"`
			Members   []struct {
				ID   int    `bson:"_id"`
				Host string `bson:"host"`
			} `bson:"members"`
		}
		if err := bson.Unmarshal(marshal(f.t, cmd[0:1]).Lookup("replSetInitiate").Document(), &cfg); err != nil {
			return nil, serverError(93, "InvalidReplicaSetConfig", err.Error())
		}
		switch {
		case cfg.ID != s.replSet:
			return nil, serverError(93, "InvalidReplicaSetConfig", fmt.Sprintf(
				"Rejecting initiate with a set name that differs from command line set name, initiate set name: %s, command line set name: %s", cfg.ID, s.replSet))
		case cfg.Configsvr != s.configsvr:
			return nil, serverError(93, "InvalidReplicaSetConfig", "Nodes being used for config servers must be started with the --configsvr flag")
		case len(cfg.Members) != 1 || cfg.Members[0].Host != s.host:
			return nil, serverError(93, "InvalidReplicaSetConfig", fmt.Sprintf(
				"No host described in new configuration with {version: 1, term: 0} for replica set %s maps to this node", s.replSet))
		}
		s.initiated = true
		s.configHost = cfg.Members[0].Host
		return nil, nil
	case "hello":
		if !s.initiated {
			return bson.D{{Key: "isWritablePrimary", Value: false}, {Key: "isreplicaset", Value: true}}, nil
		}
		hosts := bson.A{s.configHost}
		if s.removed {
			return bson.D{{Key: "isWritablePrimary", Value: false}, {Key: "setName", Value: s.replSet}}, nil
		}
		if s.notPrimaryHellos != 0 {
			if s.notPrimaryHellos > 0 {
				s.notPrimaryHellos--
			}
			return bson.D{{Key: "isWritablePrimary", Value: false}, {Key: "secondary", Value: true},
				{Key: "setName", Value: s.replSet}, {Key: "hosts", Value: hosts}}, nil
		}
		return bson.D{{Key: "isWritablePrimary", Value: true}, {Key: "setName", Value: s.replSet}, {Key: "hosts", Value: hosts}}, nil
	}
	// An initiated member holds collections too (the primary of a
	// one-member ReplicaSet topology).
	if s.initiated && !s.removed {
		if r, err, ok := f.handleCollections(s, db, cmd); ok {
			return r, err
		}
	}
	return nil, serverError(59, "CommandNotFound", "no such command: '"+cmd[0].Key+"'")
}

// handleMongos answers the sharding commands; ok is false for others.
func (f *fakeCluster) handleMongos(s *fakeServer, db string, cmd bson.D) (reply bson.D, err error, ok bool) {
	arg := cmd[0].Value
	switch cmd[0].Key {
	case "hello":
		return bson.D{{Key: "isWritablePrimary", Value: true}, {Key: "msg", Value: "isdbgrid"}}, nil, true
	case "listShards":
		shards := bson.A{}
		for _, sh := range s.shards {
			shards = append(shards, bson.D{{Key: "_id", Value: sh.ID}, {Key: "host", Value: sh.Host}, {Key: "state", Value: int32(1)}})
		}
		return bson.D{{Key: "shards", Value: shards}}, nil, true
	case "addShard":
		reply, err := f.addShard(s, arg.(string), lookupString(cmd, "name"))
		return reply, err, true
	case "balancerStatus":
		return bson.D{{Key: "mode", Value: s.balancer}, {Key: "inBalancerRound", Value: false}}, nil, true
	case "balancerStop":
		s.balancer = "off"
		return nil, nil, true
	case "enableSharding":
		// Idempotent: a database already enabled (or, from 6.0, already
		// created) answers ok (jstests/sharding/enable_sharding.js of 5.0,
		// jstests/core_sharding/ddl/enable_sharding.js of 8.0: "enableSharding
		// is idempotent", mongodb/mongo).
		if db != "admin" {
			return nil, serverError(13, "Unauthorized", "enableSharding may only be run against the admin database."), true
		}
		s.databases[arg.(string)] = true
		return nil, nil, true
	case "shardCollection":
		reply, err := f.shardCollection(s, arg.(string), cmd)
		return reply, err, true
	case "split":
		reply, err := f.split(s, arg.(string), cmd)
		return reply, err, true
	case "moveRange":
		reply, err := f.moveRange(s, arg.(string), cmd)
		return reply, err, true
	case "moveChunk":
		reply, err := f.moveChunk(s, arg.(string), cmd)
		return reply, err, true
	case "find":
		if db == "config" && arg == "chunks" {
			return f.findChunks(s, cmd), nil, true
		}
		if db != "config" || arg != "collections" {
			return nil, nil, false
		}
		id := marshal(f.t, cmd).Lookup("filter", "_id").StringValue()
		var docs []bson.Raw
		if sh, ok := s.sharded[id]; ok {
			doc := bson.D{{Key: "_id", Value: id}, {Key: "uuid", Value: sh.uuid}, {Key: "key", Value: sh.key}, {Key: "unique", Value: false}}
			if sh.unsplittable {
				doc = append(doc, bson.E{Key: "unsplittable", Value: true})
			}
			docs = append(docs, marshal(f.t, doc))
		}
		return f.cursorReply("config.collections", docs), nil, true
	case "aggregate":
		if db != "config" || arg != "chunks" {
			return nil, nil, false
		}
		_, want := marshal(f.t, cmd).Lookup("pipeline", "0", "$match", "uuid").Binary()
		counts := map[string]int32{}
		var order []string
		for _, c := range s.chunks {
			if string(c.uuid.Data) != string(want) {
				continue
			}
			if _, ok := counts[c.shard]; !ok {
				order = append(order, c.shard)
			}
			counts[c.shard]++
		}
		var docs []bson.Raw
		for _, sh := range order {
			docs = append(docs, marshal(f.t, bson.D{{Key: "_id", Value: sh}, {Key: "chunks", Value: counts[sh]}}))
		}
		return f.cursorReply("config.chunks", docs), nil, true
	}
	return nil, nil, false
}

func lookupString(cmd bson.D, key string) string {
	for _, e := range cmd {
		if e.Key == key {
			s, _ := e.Value.(string)
			return s
		}
	}
	return ""
}

func (f *fakeCluster) addShard(s *fakeServer, connString, name string) (bson.D, error) {
	// As _validateHostAsShard does (src/mongo/db/s/config/
	// sharding_catalog_manager_shard_operations.cpp, mongodb/mongo 7.0/8.0)
	// after running hello on the host.
	// A seed list: hello goes to its first reachable member; the shard is
	// recorded with the hosts its hello lists (the set's config order).
	set, seeds, _ := strings.Cut(connString, "/")
	host, _, _ := strings.Cut(seeds, ",")
	m, ok := f.servers[host]
	switch {
	case !ok:
		return nil, serverError(6, "HostUnreachable", "Error running 'hello' against "+connString+" :: caused by :: Connection refused")
	case !m.initiated:
		return nil, serverError(96, "OperationFailed",
			"host did not return a set name; is the replica set still initializing? { isWritablePrimary: false, isreplicaset: true, ok: 1.0 }")
	case m.replSet != set:
		return nil, serverError(96, "OperationFailed",
			"the provided connection string ("+connString+") does not match the actual set name "+m.replSet)
	}
	if m.set != nil {
		connString = set + "/" + strings.Join(m.set.hosts, ",")
	}
	for _, sh := range s.shards {
		if sh.ID == name && sh.Host == connString {
			return bson.D{{Key: "shardAdded", Value: name}}, nil
		}
		if sh.ID == name || strings.HasSuffix(sh.Host, "/"+host) {
			return nil, serverError(20, "IllegalOperation", fmt.Sprintf(
				"A shard named %s or on %s already exists: %s %s", name, host, sh.ID, sh.Host))
		}
	}
	s.shards = append(s.shards, shardInfo{ID: name, Host: connString})
	return bson.D{{Key: "shardAdded", Value: name}}, nil
}

func (f *fakeCluster) shardCollection(s *fakeServer, ns string, cmd bson.D) (bson.D, error) {
	key := marshal(f.t, cmd).Lookup("key").Document()
	if sh, ok := s.sharded[ns]; ok && !sh.unsplittable {
		if string(sh.key) == string(key) {
			return bson.D{{Key: "collectionsharded", Value: ns}}, nil
		}
		return nil, serverError(23, "AlreadyInitialized", fmt.Sprintf(
			"sharding already enabled for collection %s with options { key: %s }", ns, keyJSON(sh.key)))
	}
	if len(s.shards) == 0 {
		return nil, serverError(70, "ShardNotFound", "no shards found")
	}
	// Before 6.0 (FCV 6.0) the database must be enabled for sharding
	// first: CreateCollectionCoordinator::_checkCommandArguments in
	// src/mongo/db/s/create_collection_coordinator.cpp (mongodb/mongo 5.0).
	// From 6.0 on shardCollection creates the database.
	db, _, _ := strings.Cut(ns, ".")
	if !s.databases[db] {
		if s.before60() {
			return nil, serverError(20, "IllegalOperation", "sharding not enabled for db "+db)
		}
		s.databases[db] = true
	}
	uuid := bson.Binary{Subtype: 4, Data: []byte("0123456789abcdef")}
	s.sharded[ns] = fakeSharded{key: key, uuid: uuid}
	s.colls[ns] = &fakeColl{}
	// As 7.0 does: a hashed key gets 2 chunks per shard, a ranged one
	// starts as a single chunk on the primary shard.
	if k, _ := key.Lookup("_id").StringValueOK(); k == "hashed" {
		for _, sh := range s.shards {
			s.chunks = append(s.chunks, &fakeChunk{uuid: uuid, shard: sh.ID}, &fakeChunk{uuid: uuid, shard: sh.ID})
		}
	} else {
		primary := s.primaryShard
		if primary == "" {
			primary = s.shards[0].ID
		}
		s.setChunks(ns, []string{primary})
	}
	return bson.D{{Key: "collectionsharded", Value: ns}}, nil
}

// findChunks answers find on config.chunks by uuid, sorted by min.
func (f *fakeCluster) findChunks(s *fakeServer, cmd bson.D) bson.D {
	raw := marshal(f.t, cmd)
	_, uuid := raw.Lookup("filter", "uuid").Binary()
	if m, ok := raw.Lookup("sort", "min").AsInt64OK(); !ok || m != 1 {
		f.t.Errorf("fake: find on config.chunks without sort {min: 1}: %s", raw)
	}
	var docs []bson.Raw
	for _, c := range s.rangedChunks(uuid) {
		docs = append(docs, marshal(f.t, bson.D{{Key: "min", Value: fakeBoundDoc(c.min)}, {Key: "max", Value: fakeBoundDoc(c.max)}, {Key: "shard", Value: c.shard}}))
	}
	return f.cursorReply("config.chunks", docs)
}

// chunkOf returns the chunk of ns holding key b, or an error as mongos
// gives for a collection that is not sharded.
func (s *fakeServer) chunkOf(ns string, b bound) (*fakeChunk, error) {
	sh, ok := s.sharded[ns]
	if !ok {
		return nil, serverError(118, "NamespaceNotSharded", ns+" is not sharded")
	}
	for _, c := range s.rangedChunks(sh.uuid.Data) {
		if !fakeBoundLess(b, c.min) && fakeBoundLess(b, c.max) {
			return c, nil
		}
	}
	return nil, fmt.Errorf("fake: no chunk of %s holds %v", ns, b)
}

// split answers as cluster_split_cmd.cpp does: a split key that is already
// a chunk's bound fails with errmsg only (no code).
func (f *fakeCluster) split(s *fakeServer, ns string, cmd bson.D) (bson.D, error) {
	middle, ok := fakeBoundOf(marshal(f.t, cmd).Lookup("middle"))
	if !ok || middle.kind != boundString {
		return nil, serverError(2, "BadValue", "fake: middle must be {_id: <string>}")
	}
	c, err := s.chunkOf(ns, middle)
	if err != nil {
		return nil, err
	}
	if c.min == middle {
		return nil, serverError(0, "", fmt.Sprintf("new split key { _id: %q } is a boundary key of existing chunk [%v,%v)", middle.key, c.min, c.max))
	}
	s.chunks = append(s.chunks, &fakeChunk{uuid: c.uuid, shard: c.shard, min: middle, max: c.max})
	c.max = middle
	return nil, nil
}

func (s *fakeServer) hasShard(name string) bool {
	return slices.ContainsFunc(s.shards, func(sh shardInfo) bool { return sh.ID == name })
}

// moveRange answers as 6.0+ does for a range that is a whole chunk
// (sub-ranges are not modelled): moving it to the shard that owns it
// already is ok (Balancer::moveRange turns the failed migration into
// success when the chunk is on the destination).
func (f *fakeCluster) moveRange(s *fakeServer, ns string, cmd bson.D) (bson.D, error) {
	if s.before60() { // moveRange is new in 6.0
		return nil, serverError(59, "CommandNotFound", "no such command: 'moveRange'")
	}
	raw := marshal(f.t, cmd)
	to, _ := raw.Lookup("toShard").StringValueOK()
	lo, okMin := fakeBoundOf(raw.Lookup("min"))
	hi, okMax := fakeBoundOf(raw.Lookup("max"))
	if !okMin || !okMax {
		return nil, serverError(2, "BadValue", "fake: moveRange needs min and max")
	}
	if !s.hasShard(to) {
		return nil, serverError(70, "ShardNotFound", "Could not find destination shard :: caused by :: Shard "+to+" not found")
	}
	c, err := s.chunkOf(ns, lo)
	if err != nil {
		return nil, err
	}
	if c.min != lo || c.max != hi {
		return nil, fmt.Errorf("fake: moveRange of [%v,%v) which is not the chunk [%v,%v)", lo, hi, c.min, c.max)
	}
	c.shard = to
	return nil, nil
}

// moveChunk answers as servers before 6.0 do for bounds naming a chunk: a
// chunk already on the destination fails with 72.
func (f *fakeCluster) moveChunk(s *fakeServer, ns string, cmd bson.D) (bson.D, error) {
	raw := marshal(f.t, cmd)
	to, _ := raw.Lookup("to").StringValueOK()
	lo, okMin := fakeBoundOf(raw.Lookup("bounds", "0"))
	hi, okMax := fakeBoundOf(raw.Lookup("bounds", "1"))
	if !okMin || !okMax {
		return nil, serverError(2, "BadValue", "fake: moveChunk needs bounds")
	}
	if !s.hasShard(to) {
		return nil, serverError(70, "ShardNotFound", "no shard "+to)
	}
	c, err := s.chunkOf(ns, lo)
	if err != nil {
		return nil, err
	}
	if c.min != lo || c.max != hi {
		return nil, serverError(2, "BadValue", fmt.Sprintf("no chunk found with the shard key bounds [%v, %v)", lo, hi))
	}
	if c.shard == to {
		return nil, serverError(72, "InvalidOptions", "Destination shard cannot be the same as source")
	}
	c.shard = to
	return nil, nil
}

// handleCollections answers listCollections, create and collMod; ok is
// false for other commands.
func (f *fakeCluster) handleCollections(s *fakeServer, db string, cmd bson.D) (reply bson.D, err error, ok bool) {
	if r, err, ok := f.handleDocuments(s, db, cmd); ok {
		return r, err, true
	}
	raw := marshal(f.t, cmd)
	switch cmd[0].Key {
	case "listCollections":
		name, filtered := raw.Lookup("filter", "name").StringValueOK()
		var docs []bson.Raw
		if !filtered {
			// Every collection of db, by name (nameOnly: true), in name
			// order as the tests want it deterministic.
			var names []string
			for ns := range s.colls {
				if d, c, _ := strings.Cut(ns, "."); d == db {
					names = append(names, c)
				}
			}
			slices.Sort(names)
			for _, n := range names {
				docs = append(docs, marshal(f.t, bson.D{{Key: "name", Value: n}, {Key: "type", Value: "collection"}}))
			}
			return f.cursorReply(db+".$cmd.listCollections", docs), nil, true
		}
		if c, ok := s.colls[db+"."+name]; ok {
			opts := bson.D{}
			if c.validator != nil {
				opts = append(opts, bson.E{Key: "validator", Value: c.validator})
			}
			if c.level != "" {
				opts = append(opts, bson.E{Key: "validationLevel", Value: c.level})
			}
			if c.action != "" {
				opts = append(opts, bson.E{Key: "validationAction", Value: c.action})
			}
			docs = append(docs, marshal(f.t, bson.D{{Key: "name", Value: name}, {Key: "type", Value: "collection"}, {Key: "options", Value: opts}}))
		}
		return f.cursorReply(db+".$cmd.listCollections", docs), nil, true
	case "create", "collMod":
		ns := db + "." + cmd[0].Value.(string)
		c, exists := s.colls[ns]
		switch {
		case cmd[0].Key == "create" && exists:
			return nil, serverError(48, "NamespaceExists", "Collection "+ns+" already exists."), true
		case cmd[0].Key == "collMod" && !exists:
			return nil, serverError(26, "NamespaceNotFound", "ns does not exist: "+ns), true
		case !exists:
			c = &fakeColl{}
			s.colls[ns] = c
		}
		if !s.dropValidator {
			if v, ok := raw.Lookup("validator").DocumentOK(); ok {
				c.validator = v
			}
			if v, ok := raw.Lookup("validationLevel").StringValueOK(); ok {
				c.level = v
			}
			if v, ok := raw.Lookup("validationAction").StringValueOK(); ok {
				c.action = v
			}
		}
		return nil, nil, true
	}
	return nil, nil, false
}

// handleDocuments answers insert, find and dropDatabase on a database of
// the user's (the owner mark of external.go); ok is false for others.
func (f *fakeCluster) handleDocuments(s *fakeServer, db string, cmd bson.D) (reply bson.D, err error, ok bool) {
	raw := marshal(f.t, cmd)
	switch cmd[0].Key {
	case cmdInsert:
		// Creates the collection as MongoDB does; a second _id is 11000
		// DuplicateKey as a write error, which driver v2 returns from
		// RunCommand as a WriteException (mongo/database.go
		// processWriteError).
		ns := db + "." + cmd[0].Value.(string)
		c, ok := s.colls[ns]
		if !ok {
			c = &fakeColl{}
			s.colls[ns] = c
		}
		if c.docs == nil {
			c.docs = map[string]bson.Raw{}
		}
		vals, _ := raw.Lookup("documents").Array().Values()
		for _, v := range vals {
			d := v.Document()
			id := d.Lookup("_id").StringValue()
			if _, dup := c.docs[id]; dup {
				return nil, mongo.WriteException{WriteErrors: []mongo.WriteError{{Code: 11000, Message: "E11000 duplicate key error collection: " + ns}}}, true
			}
			c.docs[id] = d
		}
		return bson.D{{Key: "n", Value: int32(len(vals))}}, nil, true
	case "find":
		ns := db + "." + cmd[0].Value.(string)
		var docs []bson.Raw
		if c, ok := s.colls[ns]; ok {
			id, _ := raw.Lookup("filter", "_id").StringValueOK()
			if d, ok := c.docs[id]; ok {
				docs = append(docs, d)
			}
		}
		return f.cursorReply(ns, docs), nil, true
	case cmdDropDatabase:
		for ns := range s.colls {
			if d, _, _ := strings.Cut(ns, "."); d == db {
				delete(s.colls, ns)
			}
		}
		return bson.D{{Key: "dropped", Value: db}}, nil, true
	}
	return nil, nil, false
}

// cursorReply answers with the first batch and keeps the rest for getMore.
func (f *fakeCluster) cursorReply(ns string, docs []bson.Raw) bson.D {
	first := docs
	var id int64
	if len(docs) > f.batch {
		first = docs[:f.batch]
		f.nextCursor++
		id = f.nextCursor
		f.cursors[id] = fakeCursor{ns: ns, docs: docs[f.batch:]}
	}
	return bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: id}, {Key: "ns", Value: ns}, {Key: "firstBatch", Value: rawArray(first)}}}}
}

func (f *fakeCluster) getMore(cmd bson.D) (bson.D, error) {
	id, _ := cmd[0].Value.(int64)
	cur, ok := f.cursors[id]
	if !ok {
		return nil, serverError(43, "CursorNotFound", fmt.Sprintf("cursor id %d not found", id))
	}
	if _, coll, _ := strings.Cut(cur.ns, "."); lookupString(cmd, "collection") != coll {
		return nil, serverError(13, "Unauthorized", "getMore collection does not match the cursor's")
	}
	next := cur.docs
	delete(f.cursors, id)
	if len(next) > f.batch {
		f.cursors[id] = fakeCursor{ns: cur.ns, docs: next[f.batch:]}
		next = next[:f.batch]
	} else {
		id = 0
	}
	return bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: id}, {Key: "ns", Value: cur.ns}, {Key: "nextBatch", Value: rawArray(next)}}}}, nil
}

func rawArray(docs []bson.Raw) bson.A {
	a := bson.A{}
	for _, d := range docs {
		a = append(a, d)
	}
	return a
}

// fakeClock is time that passes only when the code under test sleeps.
type fakeClock struct {
	now   time.Time
	slept []time.Duration
}

func (c *fakeClock) Now() time.Time { return c.now }

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.slept = append(c.slept, d)
	c.now = c.now.Add(d)
	return nil
}

// handleUsers answers usersInfo and createUser for users of the admin
// database, as MongoDB does: a mongos keeps its users on the config server
// (MongoDB manual, List Users in Self-Managed Deployments), a replica set
// member writes them only as a primary, and createUser of a user that
// exists is 51003 (insertPrivilegeDocument in
// src/mongo/db/commands/user_management_commands.cpp, mongodb/mongo).
func (f *fakeCluster) handleUsers(s *fakeServer, db string, cmd bson.D) (bson.D, error) {
	if db != adminDB {
		return nil, serverError(2, "BadValue", "fake: users live in the admin database here")
	}
	store := s
	if s.role == roleMongos {
		store = nil
		for _, c := range f.servers {
			if c.configsvr {
				store = c
			}
		}
		if store == nil {
			f.t.Fatalf("fake: mongos %s has no config server", s.host)
		}
	}
	writable := s.role != roleMember || (s.initiated && s.notPrimaryHellos == 0 && !s.removed)
	if set := s.set; set != nil {
		// One store for the set: the members replicate the users.
		st, _ := set.state(set.index(s.host))
		writable, store = st == 1, f.servers[set.hosts[0]]
	}
	if cmd[0].Key == cmdCreateUser && !writable {
		return nil, serverError(10107, "NotWritablePrimary", "not primary")
	}
	raw := marshal(f.t, cmd)
	if cmd[0].Key == cmdCreateUser {
		name := cmd[0].Value.(string)
		if pwd, _ := raw.Lookup("pwd").StringValueOK(); pwd == "" {
			return nil, serverError(2, "BadValue", "Must provide a 'pwd' field for all user documents")
		}
		if _, ok := store.users[name]; ok {
			return nil, serverError(codeUserAlreadyExists, "Location51003", `User "`+name+`@admin" already exists`)
		}
		var roles []string
		vals, _ := raw.Lookup("roles").Array().Values()
		for _, v := range vals {
			d := v.Document()
			roles = append(roles, d.Lookup("role").StringValue()+"@"+d.Lookup("db").StringValue())
		}
		store.users[name] = roles
		return nil, nil
	}
	users := bson.A{}
	vals, _ := raw.Lookup(cmdUsersInfo).Array().Values()
	for _, v := range vals {
		d := v.Document()
		name := d.Lookup("user").StringValue()
		roles, ok := store.users[name]
		if !ok || d.Lookup("db").StringValue() != adminDB {
			continue
		}
		ra := bson.A{}
		for _, r := range roles {
			role, rdb, _ := strings.Cut(r, "@")
			ra = append(ra, bson.D{{Key: "role", Value: role}, {Key: "db", Value: rdb}})
		}
		users = append(users, bson.D{{Key: "_id", Value: "admin." + name}, {Key: "user", Value: name}, {Key: "db", Value: adminDB},
			{Key: "roles", Value: ra}, {Key: "mechanisms", Value: bson.A{"SCRAM-SHA-1", "SCRAM-SHA-256"}}})
	}
	return bson.D{{Key: "users", Value: users}}, nil
}
