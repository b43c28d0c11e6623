package wireserver_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/mongobench/mongobench/internal/testutil/wireserver"
)

// These tests pin down what mongo-java-server 1.47.0 (in-memory backend)
// supports when driven by go.mongodb.org/mongo-driver/v2 v2.9.3, so tests
// elsewhere know what they can rely on. "Does not work" cases are asserted
// too: if a future version starts supporting them, the test says so.

// opTimeout bounds every test's operations; the server answers in well under
// a millisecond, so this only matters when something hangs.
const opTimeout = 30 * time.Second

func connect(t *testing.T) (context.Context, *mongo.Client) {
	t.Helper()
	srv := wireserver.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	t.Cleanup(cancel)
	client, err := mongo.Connect(options.Client().ApplyURI(srv.URI()).SetServerSelectionTimeout(10 * time.Second))
	if err != nil {
		t.Fatalf("connect %s: %v", srv.URI(), err)
	}
	t.Cleanup(func() {
		if err := client.Disconnect(context.Background()); err != nil {
			t.Errorf("disconnect: %v", err)
		}
	})
	return ctx, client
}

// testDB returns a database of the test's own on the shared server.
func testDB(t *testing.T, client *mongo.Client) *mongo.Database {
	name := strings.NewReplacer("/", "_", " ", "_", ".", "_").Replace(t.Name())
	return client.Database(name)
}

func TestPingAndBuildInfo(t *testing.T) {
	ctx, client := connect(t)
	if err := client.Ping(ctx, nil); err != nil {
		t.Fatalf("ping: %v", err)
	}
	var info struct {
		Version      string  `bson:"version"`
		VersionArray []int32 `bson:"versionArray"`
	}
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&info); err != nil {
		t.Fatalf("buildInfo: %v", err)
	}
	t.Logf("buildInfo: version=%s versionArray=%v", info.Version, info.VersionArray)
	if info.Version != "6.0.0" || len(info.VersionArray) < 2 || info.VersionArray[0] != 6 || info.VersionArray[1] != 0 {
		t.Errorf("buildInfo: version %q %v, want 6.0.0 (WireServer's Mongo60)", info.Version, info.VersionArray)
	}
}

func TestHandshakeCommands(t *testing.T) {
	ctx, client := connect(t)
	admin := client.Database("admin")

	var legacy bson.M
	if err := admin.RunCommand(ctx, bson.D{{Key: "isMaster", Value: 1}}).Decode(&legacy); err != nil {
		t.Fatalf("isMaster: %v", err)
	}
	t.Logf("isMaster: %v", legacy)
	if legacy["ismaster"] != true {
		t.Errorf("isMaster: ismaster = %v, want true", legacy["ismaster"])
	}
	if got := legacy["maxWireVersion"]; got != int32(17) {
		t.Errorf("isMaster: maxWireVersion = %v (%T), want int32 17", got, got)
	}
	// No helloOk in the reply, so the driver keeps using the legacy isMaster
	// for its handshake and monitoring; no logicalSessionTimeoutMinutes, so
	// the driver considers sessions unsupported and sends no lsid.
	for _, absent := range []string{"helloOk", "isWritablePrimary", "logicalSessionTimeoutMinutes", "setName", "topologyVersion"} {
		if v, ok := legacy[absent]; ok {
			t.Errorf("isMaster now reports %s = %v: update this test and the package doc", absent, v)
		}
	}

	// The modern command name is not implemented (driver v2 only sends it
	// after a helloOk, or with a server API version, which a test must then
	// not set).
	err := admin.RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Err()
	assertCommandNotFound(t, "hello", err)
}

func assertCommandNotFound(t *testing.T, name string, err error) {
	t.Helper()
	var ce mongo.CommandError
	if !errors.As(err, &ce) {
		t.Errorf("%s: err = %v (%T), want a mongo.CommandError (unsupported command)", name, err, err)
		return
	}
	if ce.Code != 59 || ce.Name != "CommandNotFound" {
		t.Errorf("%s: error code %d %q (%s), want 59 CommandNotFound", name, ce.Code, ce.Name, ce.Message)
	}
}

// TestAdminCommands records which of the commands an operator or a loader
// might send are implemented.
func TestAdminCommands(t *testing.T) {
	ctx, client := connect(t)
	db := testDB(t, client)
	if _, err := db.Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: "a"}}); err != nil {
		t.Fatalf("insert: %v", err)
	}

	for _, cmd := range []bson.D{
		{{Key: "serverStatus", Value: 1}},
		{{Key: "dbStats", Value: 1}},
		{{Key: "collStats", Value: "c"}},
	} {
		if err := db.RunCommand(ctx, cmd).Err(); err != nil {
			t.Errorf("%s: %v", cmd[0].Key, err)
		}
	}
	// Answered ok on admin (the driver sends it at Disconnect when it has
	// used sessions), although sessions are not supported.
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "endSessions", Value: bson.A{}}}).Err(); err != nil {
		t.Errorf("endSessions: %v", err)
	}

	for _, name := range []string{"hello", "collMod", "listDatabases", "listShards", "getParameter", "getCmdLineOpts", "hostInfo", "connectionStatus"} {
		err := db.RunCommand(ctx, bson.D{{Key: name, Value: 1}}).Err()
		assertCommandNotFound(t, name, err)
	}

	// Replica-set commands are known but refused, as by a standalone mongod.
	var ce mongo.CommandError
	err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "replSetGetStatus", Value: 1}}).Err()
	if !errors.As(err, &ce) || ce.Name != "NoReplicationEnabled" {
		t.Errorf("replSetGetStatus: err = %v, want NoReplicationEnabled", err)
	}
}

// TestSessionsUnsupported: mongo-java-server's isMaster has no
// logicalSessionTimeoutMinutes, so driver v2 treats the deployment as not
// supporting sessions: implicit sessions are silently not used, explicit ones
// (and so transactions) fail on the client side before anything is sent.
func TestSessionsUnsupported(t *testing.T) {
	ctx, client := connect(t)
	coll := testDB(t, client).Collection("c")
	sess, err := client.StartSession()
	if err != nil {
		t.Fatalf("start session: %v", err)
	}
	defer sess.EndSession(ctx)
	err = mongo.WithSession(ctx, sess, func(ctx context.Context) error {
		_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "in-session"}})
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "does not support sessions") {
		t.Errorf("insert in an explicit session: err = %v, want \"current topology does not support sessions\"", err)
	}
}

// TestWriteAndReadConcerns: concerns are accepted (and, with a single
// in-memory node, trivially satisfied).
func TestWriteAndReadConcerns(t *testing.T) {
	ctx, client := connect(t)
	db := testDB(t, client)
	for i, wc := range []*writeconcern.WriteConcern{writeconcern.W1(), writeconcern.Majority(), writeconcern.Journaled()} {
		coll := db.Collection("c", options.Collection().SetWriteConcern(wc))
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Errorf("insert with write concern %+v: %v", wc, err)
		}
	}
	coll := db.Collection("c", options.Collection().SetReadConcern(readconcern.Majority()))
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 0}}).Err(); err != nil {
		t.Errorf("find with read concern majority: %v", err)
	}

	// w:0 does NOT work: the driver sends OP_MSG with the moreToCome flag,
	// which mongo-java-server rejects ("flags=2 not yet supported", logged on
	// its stderr) by dropping the connection; the write is lost and the
	// driver, expecting no reply, reports success. Its own server so the log
	// line is this test's.
	srv := wireserver.Start(t)
	one, err := mongo.Connect(options.Client().ApplyURI(srv.URI()))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer func() { _ = one.Disconnect(context.Background()) }()
	unack := one.Database("w0").Collection("c", options.Collection().SetWriteConcern(writeconcern.Unacknowledged()))
	res, err := unack.InsertOne(ctx, bson.D{{Key: "_id", Value: "w0"}})
	if err != nil || res.Acknowledged {
		t.Fatalf("insert w:0: %+v, %v; want unacknowledged, no error", res, err)
	}
	const rejected = "flags=2 not yet supported"
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(srv.Output(), rejected); {
		if time.Now().After(deadline) {
			t.Fatalf("the server did not log %q after a w:0 insert (supported now? then assert the write); its output:\n%s", rejected, srv.Output())
		}
		time.Sleep(10 * time.Millisecond) // poll the JVM's log pipe
	}
	if n, err := one.Database("w0").Collection("c").CountDocuments(ctx, bson.D{}); err != nil || n != 0 {
		t.Errorf("count after a rejected w:0 insert = %d, %v; want 0", n, err)
	}
}

// ycsbDoc is a document shaped like the YCSB MongoDB binding's.
func ycsbDoc(key string, fields int) bson.D {
	doc := bson.D{{Key: "_id", Value: key}}
	for i := range fields {
		v := make([]byte, 100)
		for j := range v {
			v[j] = byte(i + j)
		}
		doc = append(doc, bson.E{Key: "field" + string(rune('0'+i)), Value: bson.Binary{Data: v}})
	}
	return doc
}

// TestCRUD runs the YCSB MongoDB binding's operations in sequence on one
// collection; each step relies on the data the previous ones left.
func TestCRUD(t *testing.T) {
	ctx, client := connect(t)
	coll := testDB(t, client).Collection("usertable")
	for _, step := range []struct {
		name string
		run  func(*testing.T, context.Context, *mongo.Collection)
	}{
		{"insert", crudInsert}, {"read", crudRead}, {"scan", crudScan}, {"update", crudUpdate},
		{"replace", crudReplace}, {"delete", crudDelete}, {"count", crudCount},
	} {
		if !t.Run(step.name, func(t *testing.T) { step.run(t, ctx, coll) }) {
			t.FailNow() // later steps depend on this one
		}
	}
}

func crudInsert(t *testing.T, ctx context.Context, coll *mongo.Collection) {
	// insertOne
	res, err := coll.InsertOne(ctx, ycsbDoc("user1", 10))
	if err != nil {
		t.Fatalf("insertOne: %v", err)
	}
	if res.InsertedID != "user1" {
		t.Errorf("insertOne: InsertedID = %v, want user1", res.InsertedID)
	}

	// insertMany, unordered, with one duplicate _id in the middle: a
	// BulkWriteException naming that one, the others inserted.
	docs := []any{ycsbDoc("user2", 10), ycsbDoc("user1", 10), ycsbDoc("user3", 10), ycsbDoc("user4", 10)}
	_, err = coll.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) {
		t.Fatalf("insertMany with a duplicate: err = %v (%T), want a mongo.BulkWriteException", err, err)
	}
	if len(bwe.WriteErrors) != 1 || bwe.WriteErrors[0].Index != 1 || bwe.WriteErrors[0].Code != 11000 {
		t.Errorf("insertMany: write errors = %+v, want one duplicate key error (11000) at index 1", bwe.WriteErrors)
	}
	if !mongo.IsDuplicateKeyError(err) {
		t.Errorf("insertMany: mongo.IsDuplicateKeyError(%v) = false", err)
	}
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 4 {
		t.Errorf("countDocuments after insertMany = %d, %v; want 4 (user1..user4)", n, err)
	}
}

func crudRead(t *testing.T, ctx context.Context, coll *mongo.Collection) {
	// find by _id, all fields
	var full bson.Raw
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: "user3"}}).Decode(&full); err != nil {
		t.Fatalf("find user3: %v", err)
	}
	if elems, _ := full.Elements(); len(elems) != 11 {
		t.Errorf("find user3: %d fields, want 11 (_id + field0..9)", len(elems))
	}
	if _, b, ok := full.Lookup("field9").BinaryOK(); !ok || len(b) != 100 {
		t.Errorf("find user3: field9 = %v, want 100 bytes of binary", full.Lookup("field9"))
	}

	// find by _id with a projection (YCSB's read of selected fields)
	var proj bson.Raw
	err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: "user3"}},
		options.FindOne().SetProjection(bson.D{{Key: "field1", Value: 1}, {Key: "field7", Value: 1}})).Decode(&proj)
	if err != nil {
		t.Fatalf("find user3 with projection: %v", err)
	}
	if keys := rawKeys(proj); strings.Join(keys, ",") != "_id,field1,field7" {
		t.Errorf("find with projection: keys %v, want [_id field1 field7]", keys)
	}

	// find a missing _id: ErrNoDocuments (YCSB's NOT_FOUND)
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: "nobody"}}).Err(); !errors.Is(err, mongo.ErrNoDocuments) {
		t.Errorf("find missing: err = %v, want mongo.ErrNoDocuments", err)
	}
}

func crudScan(t *testing.T, ctx context.Context, coll *mongo.Collection) {
	// scan: find({_id:{$gte:k}}).sort({_id:1}).limit(n)
	cur, err := coll.Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: "user2"}}}},
		options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(2))
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	var scanned []bson.Raw
	if err := cur.All(ctx, &scanned); err != nil {
		t.Fatalf("scan: all: %v", err)
	}
	var ids []string
	for _, d := range scanned {
		ids = append(ids, d.Lookup("_id").StringValue())
	}
	if strings.Join(ids, ",") != "user2,user3" {
		t.Errorf("scan from user2 limit 2: got %v, want [user2 user3]", ids)
	}
}

func crudUpdate(t *testing.T, ctx context.Context, coll *mongo.Collection) {
	// updateOne $set: matched 1, modified 1; a missing key matches 0 (NOT_FOUND)
	upd, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: "user2"}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "field3", Value: bson.Binary{Data: []byte("new value")}}}}})
	if err != nil {
		t.Fatalf("updateOne: %v", err)
	}
	if upd.MatchedCount != 1 || upd.ModifiedCount != 1 {
		t.Errorf("updateOne: matched %d modified %d, want 1 1", upd.MatchedCount, upd.ModifiedCount)
	}
	var got bson.Raw
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: "user2"}}).Decode(&got); err != nil {
		t.Fatalf("find after update: %v", err)
	}
	if _, b, _ := got.Lookup("field3").BinaryOK(); string(b) != "new value" {
		t.Errorf("after updateOne, field3 = %q", b)
	}
	upd, err = coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: "nobody"}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "field3", Value: "x"}}}})
	if err != nil || upd.MatchedCount != 0 {
		t.Errorf("updateOne missing: %+v, %v; want matched 0", upd, err)
	}
}

func crudReplace(t *testing.T, ctx context.Context, coll *mongo.Collection) {
	// replaceOne with upsert: inserts when missing, replaces when present
	rep, err := coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: "user9"}}, ycsbDoc("user9", 3), options.Replace().SetUpsert(true))
	if err != nil {
		t.Fatalf("replaceOne upsert (insert): %v", err)
	}
	if rep.MatchedCount != 0 || rep.UpsertedCount != 1 || rep.UpsertedID != "user9" {
		t.Errorf("replaceOne upsert (insert): %+v, want matched 0 upserted 1 id user9", rep)
	}
	rep, err = coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: "user9"}}, ycsbDoc("user9", 10), options.Replace().SetUpsert(true))
	if err != nil {
		t.Fatalf("replaceOne upsert (replace): %v", err)
	}
	if rep.MatchedCount != 1 || rep.ModifiedCount != 1 || rep.UpsertedCount != 0 {
		t.Errorf("replaceOne upsert (replace): %+v, want matched 1 modified 1 upserted 0", rep)
	}
}

func crudDelete(t *testing.T, ctx context.Context, coll *mongo.Collection) {
	// deleteOne: 1, then 0 (NOT_FOUND)
	for i, want := range []int64{1, 0} {
		del, err := coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: "user4"}})
		if err != nil || del.DeletedCount != want {
			t.Errorf("deleteOne #%d: %+v, %v; want deleted %d", i+1, del, err, want)
		}
	}
}

func crudCount(t *testing.T, ctx context.Context, coll *mongo.Collection) {
	// counts
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 4 {
		t.Errorf("countDocuments = %d, %v; want 4 (user1..3, user9)", n, err)
	}
	if n, err := coll.CountDocuments(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: "user3"}}}}); err != nil || n != 2 {
		t.Errorf("countDocuments with a filter = %d, %v; want 2", n, err)
	}
	if n, err := coll.EstimatedDocumentCount(ctx); err != nil || n != 4 {
		t.Errorf("estimatedDocumentCount = %d, %v; want 4", n, err)
	}
}

func rawKeys(d bson.Raw) []string {
	elems, _ := d.Elements()
	keys := make([]string, 0, len(elems))
	for _, e := range elems {
		keys = append(keys, e.Key())
	}
	return keys
}

// ycsbValidator is a $jsonSchema of the kind an operator would install on
// the YCSB collection.
var ycsbValidator = bson.D{{Key: "$jsonSchema", Value: bson.D{
	{Key: "bsonType", Value: "object"},
	{Key: "required", Value: bson.A{"_id", "field0"}},
	{Key: "properties", Value: bson.D{
		{Key: "_id", Value: bson.D{{Key: "bsonType", Value: "string"}}},
		{Key: "field0", Value: bson.D{{Key: "bsonType", Value: "binData"}}},
	}},
}}}

func TestCreateCollectionAndValidation(t *testing.T) {
	ctx, client := connect(t)
	db := testDB(t, client)

	if err := db.CreateCollection(ctx, "plain"); err != nil {
		t.Fatalf("create collection: %v", err)
	}
	names, err := db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		t.Fatalf("listCollections: %v", err)
	}
	if strings.Join(names, ",") != "plain" {
		t.Errorf("listCollections = %v, want [plain]", names)
	}
	// Creating it again is an error, as with MongoDB (NamespaceExists, 48).
	var ce mongo.CommandError
	if err := db.CreateCollection(ctx, "plain"); !errors.As(err, &ce) || ce.Code != 48 {
		t.Errorf("create existing collection: err = %v, want NamespaceExists (48)", err)
	}

	// collMod is not implemented: "no such command".
	err = db.RunCommand(ctx, bson.D{
		{Key: "collMod", Value: "plain"},
		{Key: "validator", Value: ycsbValidator},
		{Key: "validationLevel", Value: "moderate"},
		{Key: "validationAction", Value: "error"},
	}).Err()
	t.Logf("collMod: %v", err)
	assertCommandNotFound(t, "collMod", err)

	// create with a validator is accepted, but the validator is dropped: not
	// reported by listCollections, and not enforced.
	err = db.CreateCollection(ctx, "validated", options.CreateCollection().
		SetValidator(ycsbValidator).SetValidationLevel("strict").SetValidationAction("error"))
	if err != nil {
		t.Fatalf("create with a validator: %v", err)
	}
	// listCollections ignores its filter, so look the collection up by hand.
	specs, err := db.ListCollectionSpecifications(ctx, bson.D{{Key: "name", Value: "validated"}})
	if err != nil {
		t.Fatalf("listCollections: %v", err)
	}
	if len(specs) != 2 {
		t.Errorf("listCollections with a name filter returned %d collections; it used to ignore the filter (2)", len(specs))
	}
	for _, spec := range specs {
		if spec.Name != "validated" {
			continue
		}
		if len(spec.Options) > 5 { // 5 bytes: the empty document
			t.Errorf("listCollections now reports options %s for a validated collection: update this test", spec.Options)
		}
	}
	if _, err := db.Collection("validated").InsertOne(ctx, bson.D{{Key: "_id", Value: 42}}); err != nil {
		t.Errorf("insert violating the validator: %v; mongo-java-server used not to enforce validators", err)
	}
}

// TestBulkAndCursors: batches larger than the server's maxWriteBatchSize
// (1000) are split by the driver, mixed bulk writes work, and cursors with
// getMore return everything.
func TestBulkAndCursors(t *testing.T) {
	ctx, client := connect(t)
	coll := testDB(t, client).Collection("c")

	docs := make([]any, 2500)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}}
	}
	res, err := coll.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	if err != nil || len(res.InsertedIDs) != len(docs) {
		t.Fatalf("insertMany of %d: %v", len(docs), err)
	}

	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetBatchSize(100))
	if err != nil {
		t.Fatalf("find: %v", err)
	}
	var all []bson.Raw
	if err := cur.All(ctx, &all); err != nil || len(all) != len(docs) {
		t.Errorf("find all with getMore: %d documents, %v; want %d", len(all), err, len(docs))
	}

	bw, err := coll.BulkWrite(ctx, []mongo.WriteModel{
		mongo.NewInsertOneModel().SetDocument(bson.D{{Key: "_id", Value: "z"}}),
		mongo.NewUpdateOneModel().SetFilter(bson.D{{Key: "_id", Value: "z"}}).
			SetUpdate(bson.D{{Key: "$set", Value: bson.D{{Key: "f", Value: 1}}}}),
		mongo.NewDeleteOneModel().SetFilter(bson.D{{Key: "_id", Value: 7}}),
	}, options.BulkWrite().SetOrdered(false))
	if err != nil || bw.InsertedCount != 1 || bw.ModifiedCount != 1 || bw.DeletedCount != 1 {
		t.Errorf("bulkWrite: %+v, %v; want 1 inserted, 1 modified, 1 deleted", bw, err)
	}

	name, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "f", Value: 1}}})
	if err != nil || name != "f_1" {
		t.Errorf("createIndex: %q, %v", name, err)
	}
	if err := coll.Drop(ctx); err != nil {
		t.Errorf("drop collection: %v", err)
	}
	if err := coll.Database().Drop(ctx); err != nil {
		t.Errorf("drop database: %v", err)
	}
}

// TestStartStop covers a server of the test's own: it serves, and Close
// stops the JVM (idempotently).
func TestStartStop(t *testing.T) {
	srv := wireserver.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	client, err := mongo.Connect(options.Client().ApplyURI(srv.URI()).SetServerSelectionTimeout(5 * time.Second))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer func() { _ = client.Disconnect(context.Background()) }()
	if err := client.Ping(ctx, nil); err != nil {
		t.Fatalf("ping %s: %v", srv.Addr(), err)
	}
	if err := srv.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if err := srv.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	// The port is closed now: a fresh connection is refused at once.
	conn, err := net.DialTimeout("tcp", srv.Addr(), 5*time.Second)
	if err == nil {
		_ = conn.Close()
		t.Errorf("dial %s after Close succeeded; the JVM still listens", srv.Addr())
	}
}
