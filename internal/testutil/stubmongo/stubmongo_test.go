package stubmongo_test

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/mongobench/mongobench/internal/testutil/stubmongo"
)

func TestMain(m *testing.M) {
	stubmongo.RunChildIfRequested() // for StartChild (BenchmarkBareDriver, TestChild)
	os.Exit(m.Run())
}

func connect(tb testing.TB, uri string) (context.Context, *mongo.Client) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	tb.Cleanup(cancel)
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(5 * time.Second))
	if err != nil {
		tb.Fatalf("connect %s: %v", uri, err)
	}
	tb.Cleanup(func() {
		if err := client.Disconnect(context.Background()); err != nil {
			tb.Errorf("disconnect: %v", err)
		}
	})
	return ctx, client
}

func ycsbDoc(key string) bson.D {
	doc := bson.D{{Key: "_id", Value: key}}
	for i := range 10 {
		doc = append(doc, bson.E{Key: "field" + string(rune('0'+i)), Value: bson.Binary{Data: make([]byte, 100)}})
	}
	return doc
}

// TestDriver runs the YCSB binding's calls with driver v2 against the stub
// and checks the replies are what the driver and a binding expect.
func TestDriver(t *testing.T) {
	srv := stubmongo.Start(t)
	ctx, client := connect(t, srv.URI())
	coll := client.Database("ycsb").Collection("usertable")

	if err := client.Ping(ctx, nil); err != nil {
		t.Fatalf("ping: %v", err)
	}
	var info struct {
		Version string `bson:"version"`
	}
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&info); err != nil || info.Version != "6.0.0" {
		t.Errorf("buildInfo: %+v, %v; want version 6.0.0", info, err)
	}
	var hello bson.Raw
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		t.Fatalf("hello: %v", err)
	}
	if w, _ := hello.Lookup("maxWireVersion").AsInt64OK(); w != 17 || !hello.Lookup("isWritablePrimary").Boolean() {
		t.Errorf("hello = %s; want maxWireVersion 17, isWritablePrimary true", hello)
	}

	before := srv.Counts()

	res, err := coll.InsertOne(ctx, ycsbDoc("user1"))
	if err != nil || res.InsertedID != "user1" {
		t.Fatalf("insertOne: %+v, %v", res, err)
	}

	docs := []any{ycsbDoc("user2"), ycsbDoc("user3"), ycsbDoc("user4")}
	many, err := coll.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	if err != nil || len(many.InsertedIDs) != 3 {
		t.Fatalf("insertMany: %+v, %v", many, err)
	}

	// Point read: one canned document, decoded into a bson.Raw.
	var one bson.Raw
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: "user1"}}).Decode(&one); err != nil {
		t.Fatalf("findOne: %v", err)
	}
	if !bytes.Equal(one, stubmongo.CannedDocument(0)) {
		t.Errorf("findOne returned %d bytes, not canned document 0", len(one))
	}
	if elems, _ := one.Elements(); len(elems) != 11 {
		t.Errorf("canned document has %d fields, want 11 (_id + field0..9)", len(elems))
	}

	// Scan: limit documents; the cursor id 0 means no getMore.
	for _, limit := range []int64{1, 7, stubmongo.MaxFindBatch, 1000} {
		cur, err := coll.Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: "user1"}}}},
			options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(limit))
		if err != nil {
			t.Fatalf("find limit %d: %v", limit, err)
		}
		var got []bson.Raw
		if err := cur.All(ctx, &got); err != nil {
			t.Fatalf("find limit %d: all: %v", limit, err)
		}
		if want := min(limit, stubmongo.MaxFindBatch); int64(len(got)) != want {
			t.Errorf("find limit %d: %d documents, want %d", limit, len(got), want)
		}
		for i, d := range got {
			if !bytes.Equal(d, stubmongo.CannedDocument(i)) {
				t.Errorf("find limit %d: document %d is not canned document %d", limit, i, i)
				break
			}
		}
	}

	upd, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: "user1"}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "field3", Value: bson.Binary{Data: make([]byte, 100)}}}}})
	if err != nil || upd.MatchedCount != 1 || upd.ModifiedCount != 1 {
		t.Errorf("updateOne: %+v, %v; want matched 1, modified 1", upd, err)
	}

	del, err := coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: "user1"}})
	if err != nil || del.DeletedCount != 1 {
		t.Errorf("deleteOne: %+v, %v; want deleted 1", del, err)
	}

	// A bulk write: one update command of 3 statements, one delete of 2.
	filter := bson.D{{Key: "_id", Value: "user2"}}
	set := bson.D{{Key: "$set", Value: bson.D{{Key: "field0", Value: "x"}}}}
	bw, err := coll.BulkWrite(ctx, []mongo.WriteModel{
		mongo.NewUpdateOneModel().SetFilter(filter).SetUpdate(set),
		mongo.NewUpdateOneModel().SetFilter(filter).SetUpdate(set),
		mongo.NewUpdateOneModel().SetFilter(filter).SetUpdate(set),
		mongo.NewDeleteOneModel().SetFilter(filter),
		mongo.NewDeleteOneModel().SetFilter(filter),
	})
	if err != nil || bw.MatchedCount != 3 || bw.ModifiedCount != 3 || bw.DeletedCount != 2 {
		t.Errorf("bulkWrite: %+v, %v; want matched 3, modified 3, deleted 2", bw, err)
	}

	got := srv.Counts().Sub(before)
	want := stubmongo.Counts{Insert: 2, InsertedDocs: 4, Find: 5, Update: 2, Delete: 2}
	got.Handshake, got.Other = 0, 0 // monitoring and session ends may come and go
	if got != want {
		t.Errorf("counts = %+v, want %+v", got, want)
	}
}

// TestUnacknowledgedWrite: a w:0 insert (OP_MSG moreToCome) gets no reply,
// and the connection goes on serving.
func TestUnacknowledgedWrite(t *testing.T) {
	srv := stubmongo.Start(t)
	// One connection: the ping below follows the inserts on the same
	// connection, which the server handles in order, so once the ping is
	// answered the inserts have been counted.
	client, err := mongo.Connect(options.Client().ApplyURI(srv.URI()).SetMaxPoolSize(1))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer func() { _ = client.Disconnect(context.Background()) }()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	coll := client.Database("ycsb").Collection("usertable", options.Collection().SetWriteConcern(writeconcern.Unacknowledged()))
	for i := range 3 {
		res, err := coll.InsertOne(ctx, ycsbDoc("user"+string(rune('0'+i))))
		if err != nil || res.Acknowledged {
			t.Fatalf("insert w:0: %+v, %v", res, err)
		}
	}
	if err := client.Ping(ctx, nil); err != nil {
		t.Fatalf("ping after w:0 inserts: %v", err)
	}
	if n := srv.Counts().Insert; n != 3 {
		t.Errorf("inserts counted = %d, want 3", n)
	}
}

// insertOnChild inserts n documents one after the other and returns what
// the child counted meanwhile, and its stats after. The test's cleanups
// disconnect, then stop the child.
func insertOnChild(t *testing.T, child *stubmongo.Child, n int) (delta, after stubmongo.Stats) {
	t.Helper()
	ctx, client := connect(t, child.URI())
	coll := client.Database("ycsb").Collection("usertable")
	before, err := stubmongo.QueryStats(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, err := coll.InsertOne(ctx, ycsbDoc("user"+strconv.Itoa(i))); err != nil {
			t.Fatalf("insert: %v", err)
		}
	}
	if after, err = stubmongo.QueryStats(ctx, client); err != nil {
		t.Fatal(err)
	}
	return after.Sub(before), after
}

// TestChild runs the server in a child process and reads its stats.
func TestChild(t *testing.T) {
	child := stubmongo.StartChild(t)
	d, after := insertOnChild(t, child, 10)
	if d.Insert != 10 || d.InsertedDocs != 10 {
		t.Errorf("child counted %+v, want 10 inserts", d.Counts)
	}
	if after.CPU <= 0 {
		t.Errorf("child CPU time = %v, want > 0", after.CPU)
	}
	if child.Pid() == os.Getpid() {
		t.Errorf("child pid %d is this process", child.Pid())
	}
	if err := child.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

// TestBusyChild: a Busy server answers like any other, stops when told,
// and its threads do not block between requests. Against a server that
// sleeps when idle, sequential requests each find it asleep (about one
// sleep per request, or more); a busy one polls instead, and what is left
// is the runtime's own timer thread (sysmon) sleeping.
func TestBusyChild(t *testing.T) {
	const n = 1000
	sleeps := func(busy string) int64 {
		t.Setenv(stubmongo.BusyEnv, busy)
		d, _ := insertOnChild(t, stubmongo.StartChild(t), n)
		if d.Insert != n || d.InsertedDocs != n {
			t.Errorf("busy=%s: child counted %+v, want %d inserts", busy, d.Counts, n)
		}
		return d.Sleeps
	}
	sleeping, busy := sleeps("0"), sleeps("1")
	t.Logf("server sleeps in %d sequential requests: %d sleeping, %d busy", n, sleeping, busy)
	if sleeping < n/2 {
		t.Fatalf("the sleeping server blocked only %d times in %d requests: the test cannot tell busy from sleeping here", sleeping, n)
	}
	// Under a loaded CPU the runtime's own threads sleep more (several
	// hundred here with two CPU hogs beside it), hence the wide margin.
	if busy*2 > sleeping {
		t.Errorf("the busy server's threads blocked %d times, the sleeping one's %d", busy, sleeping)
	}
}
