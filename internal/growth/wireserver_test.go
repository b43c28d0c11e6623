package growth

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/testutil/stubmongo"
	"github.com/mongobench/mongobench/internal/testutil/wireserver"
)

// The engine and MongoStore against mongo-java-server
// (internal/testutil/wireserver), a real, independent implementation of
// the wire protocol: inserts, indexes, the four query classes, collStats,
// the state collection and the resume.

const wireCollection = "usertable"

func wireStore(t *testing.T, db *mongo.Database, cfg Config) *MongoStore {
	t.Helper()
	s, err := NewMongoStore(MongoOptions{Client: db.Client(), Database: db.Name(), Collection: wireCollection,
		InsertMode: cfg.InsertMode, OperationTimeout: 30 * time.Second, Queries: cfg.QuerySpecs()})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkingStore checks queries as they run: for the first few of each
// class at each checkpoint, the number of documents returned against an
// independent count (countDocuments through the driver) and the
// generator's own count, and for Q3 the dates returned against the
// generator's.
type checkingStore struct {
	*MongoStore
	t    *testing.T
	coll *mongo.Collection
	gen  *Generator
	cfg  Config

	mu      sync.Mutex
	records int64
	checked map[string]int
	// docsReturned is the total of every query's documents, by class.
	docsReturned map[string]int64
	// beforeInsert, when set, runs before each insert.
	beforeInsert func(first int64, n int) error
	// failSaves fails every state write (a killed loader's never arrive).
	failSaves atomic.Bool
}

const checksPerClass = 8

func (s *checkingStore) Insert(ctx context.Context, docs []bson.Raw) error {
	if s.beforeInsert != nil {
		if err := s.beforeInsert(docs[0].Lookup(FieldID).Int64(), len(docs)); err != nil {
			return err
		}
	}
	err := s.MongoStore.Insert(ctx, docs)
	if err == nil {
		s.mu.Lock()
		s.records = max(s.records, docs[len(docs)-1].Lookup(FieldID).Int64()+1)
		s.mu.Unlock()
	}
	return err
}

func (s *checkingStore) SaveState(ctx context.Context, id, data string) error {
	if s.failSaves.Load() {
		return errors.New("killed")
	}
	return s.MongoStore.SaveState(ctx, id, data)
}

func (s *checkingStore) Find(ctx context.Context, q *QuerySpec, filter bson.Raw) (int, error) {
	n, err := s.MongoStore.Find(ctx, q, filter)
	if err != nil {
		return n, err
	}
	s.mu.Lock()
	s.docsReturned[q.Name] += int64(n)
	key := q.Name + "@" + strconv.FormatInt(s.records, 10)
	check := s.checked[key] < checksPerClass
	s.checked[key]++
	records := s.records
	s.mu.Unlock()
	if check {
		s.check(ctx, q, filter, n, records)
	}
	return n, nil
}

func (s *checkingStore) check(ctx context.Context, q *QuerySpec, filter bson.Raw, n int, records int64) {
	t := s.t
	count, err := s.coll.CountDocuments(ctx, filter)
	if err != nil {
		t.Errorf("count %s: %v", filter, err)
		return
	}
	v, hasV := filter.Lookup(FieldNumber).Int64OK()
	w, hasW := filter.Lookup(FieldNumber1).Int64OK()
	var dates []int64
	for i := range records {
		if (!hasV || s.gen.Number(i) == v) && (!hasW || s.gen.Number1(i) == w) {
			dates = append(dates, s.gen.DateMillis(i))
		}
	}
	if count != int64(len(dates)) {
		t.Errorf("%s %s at %d records: the server counts %d documents, the generator %d", q.Name, filter, records, count, len(dates))
	}
	want := min(count, q.Limit)
	if q.Name == results.OpQ3 {
		want = max(0, min(count-q.Skip, q.Limit))
	}
	if int64(n) != want {
		t.Errorf("%s %s at %d records returned %d documents, want %d (of %d matching)", q.Name, filter, records, n, want, count)
	}
	if q.Name == results.OpQ2 && len(dates) == 0 {
		t.Errorf("Q2 %s matches nothing", filter)
	}
	if q.Name != results.OpQ3 && q.Name != results.OpQ2 {
		return
	}
	// The documents themselves: Q3's dates in order, Q2's projection.
	fo := options.Find().SetLimit(q.Limit).SetSkip(q.Skip)
	if q.SortDateDesc {
		fo.SetSort(bson.D{{Key: FieldDate, Value: -1}})
	}
	if len(q.Projection) > 0 {
		p := bson.D{{Key: FieldID, Value: 0}}
		for _, f := range q.Projection {
			p = append(p, bson.E{Key: f, Value: 1})
		}
		fo.SetProjection(p)
	}
	cur, err := s.coll.Find(ctx, filter, fo)
	if err != nil {
		t.Errorf("find %s: %v", filter, err)
		return
	}
	var docs []bson.Raw
	if err := cur.All(ctx, &docs); err != nil {
		t.Errorf("find %s: %v", filter, err)
		return
	}
	if q.Name == results.OpQ2 {
		for _, d := range docs {
			elems, _ := d.Elements()
			var keys []string
			for _, e := range elems {
				keys = append(keys, e.Key())
			}
			sort.Strings(keys)
			if want := slices.Sorted(slices.Values(q.Projection)); !slices.Equal(keys, want) {
				t.Errorf("Q2 returned fields %v, want %v", keys, want)
			}
		}
		return
	}
	sort.Slice(dates, func(a, b int) bool { return dates[a] > dates[b] })
	var got []int64
	for _, d := range docs {
		got = append(got, d.Lookup(FieldDate).DateTime())
	}
	lo := min(int(q.Skip), len(dates))
	if wantDates := dates[lo:min(lo+int(q.Limit), len(dates))]; !slices.Equal(got, wantDates) {
		t.Errorf("Q3 %s returned dates %v, want %v", filter, got, wantDates)
	}
}

func newCheckingStore(t *testing.T, db *mongo.Database, cfg Config) *checkingStore {
	t.Helper()
	g, err := NewGenerator(cfg.Documents, cfg.TargetRecords)
	if err != nil {
		t.Fatal(err)
	}
	return &checkingStore{MongoStore: wireStore(t, db, cfg), t: t, coll: db.Collection(wireCollection), gen: g, cfg: cfg,
		checked: map[string]int{}, docsReturned: map[string]int64{}}
}

// TestGrowOnTheWireServer: a 50k-record phase with 5 checkpoints and all
// four query classes; the data, the indexes, the sizes and every query's
// documents are checked against the server's own counts and the generator.
func TestGrowOnTheWireServer(t *testing.T) {
	srv := wireserver.Shared(t)
	_, db := wireserver.TestDatabase(t, srv)
	cfg := testConfig(t, 50_000, 10_000, contract.PropGrowthInsertMode, "batch", contract.PropGrowthBatchSize, "1000",
		contract.PropGrowthMatchesPerValue, "150", contract.PropGrowthQueryDuration, "100ms", contract.PropGrowthPayloadSize, "200")
	s := newCheckingStore(t, db, cfg)
	var lines int
	res, err := Run(context.Background(), cfg, s, Options{StopGrace: time.Second, OnCheckpoint: func(*results.GrowthCheckpoint, bool) { lines++ }})
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, res, cfg, 5, results.StopCompleted, 0)
	ctx := context.Background()
	coll := db.Collection(wireCollection)
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 50_000 {
		t.Errorf("the collection holds %d documents (%v), want 50000", n, err)
	}
	if maxID, found, err := s.MaxID(ctx); err != nil || !found || maxID != 49_999 {
		t.Errorf("highest _id %d, %t, %v", maxID, found, err)
	}
	specs, err := coll.Indexes().ListSpecifications(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sp := range specs {
		names = append(names, sp.Name)
	}
	slices.Sort(names)
	if want := []string{"_id_", "date_-1", "number1_1", "number_1"}; !slices.Equal(names, want) {
		t.Errorf("indexes %v, want %v", names, want)
	}
	for _, c := range res.Growth.Checkpoints {
		if c.Sizes == nil || c.Sizes.Count == nil || *c.Sizes.Count != c.Records || c.Sizes.Size == nil || *c.Sizes.Size < c.Records*279 {
			t.Errorf("checkpoint %d: sizes %+v (%s)", c.Index, c.Sizes, c.SizesError)
		}
		if c.Insert.Latency.Count != 10 {
			t.Errorf("checkpoint %d: %d insert calls, want 10 batches", c.Index, c.Insert.Latency.Count)
		}
		for _, q := range c.Queries {
			if q.Latency.Errors != 0 {
				t.Errorf("checkpoint %d: %s had %d errors", c.Index, q.Name, q.Latency.Errors)
			}
		}
	}
	// Documents returned, per class, as the rows say and as the store saw.
	for _, name := range results.GrowthQueryOps {
		var rows int64
		for _, c := range res.Growth.Checkpoints {
			rows += c.Query(name).Documents
		}
		if rows != s.docsReturned[name] || rows == 0 && name != results.OpQ3 {
			t.Errorf("%s returned %d documents by the rows, %d by the store", name, rows, s.docsReturned[name])
		}
	}
	// Q3 skips 100 of ~150 matches at the target: it returns documents at
	// the last checkpoint only.
	if last := res.Growth.Checkpoints[4].Query(results.OpQ3); last.Documents == 0 {
		t.Error("Q3 returned nothing at the target")
	}
	if first := res.Growth.Checkpoints[0].Query(results.OpQ3); first.Documents != 0 {
		t.Errorf("Q3 returned %d documents at 10k records (30 matches per value, skip 100)", first.Documents)
	}
	for name, n := range s.checked {
		if n == 0 {
			t.Errorf("%s not checked", name)
		}
	}
	if lines != 5 {
		t.Errorf("%d checkpoint lines", lines)
	}
}

// TestGrowResumesOnTheWireServer: a loader stopped mid-segment (SIGTERM),
// then another killed outright after leaving holes; the third finishes the
// phase with every record once, every checkpoint, and every measurement
// the stopped one took.
func TestGrowResumesOnTheWireServer(t *testing.T) {
	srv := wireserver.Shared(t)
	_, db := wireserver.TestDatabase(t, srv)
	cfg := testConfig(t, 20_000, 5_000, contract.PropGrowthInsertMode, "batch", contract.PropGrowthBatchSize, "100",
		contract.PropGrowthInsertThreads, "2", contract.PropGrowthQueries, "q1,q3", contract.PropGrowthQueryDuration, "20ms")
	ctx := context.Background()
	coll := db.Collection(wireCollection)

	// 1: stopped (ctx) after 7,000 records.
	s := newCheckingStore(t, db, cfg)
	stopCtx, stop := context.WithCancel(ctx)
	s.beforeInsert = stopAfter(stop, 7_000)
	res, err := Run(stopCtx, cfg, s, Options{StopGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != results.StopCancelled || len(res.Growth.Checkpoints) != 1 {
		t.Fatalf("the stopped loader: %s with %d rows", res.StopReason, len(res.Growth.Checkpoints))
	}
	firstCalls := res.Op(results.OpInsert).Total()

	// 2: killed after 12,000 records: its saves fail, and two batches in
	// flight are lost.
	s = newCheckingStore(t, db, cfg)
	killCtx, kill := context.WithCancel(ctx)
	s.beforeInsert = func(first int64, _ int) error {
		if first >= 12_000 {
			s.failSaves.Store(true)
			kill()
			return errors.New("killed")
		}
		return nil
	}
	if _, err := Run(killCtx, cfg, s, Options{StopGrace: time.Second}); !errors.Is(err, ErrInsertFailed) {
		t.Fatalf("the killed loader: %v", err)
	}
	if _, err := coll.DeleteMany(ctx, bson.D{{Key: FieldID, Value: bson.D{{Key: "$gte", Value: 10_500}, {Key: "$lt", Value: 10_700}}}}); err != nil {
		t.Fatal(err)
	}
	present, _ := coll.CountDocuments(ctx, bson.D{{Key: FieldID, Value: bson.D{{Key: "$gte", Value: 10_000}}}})
	maxID, _, _ := s.MaxID(ctx)
	holes := maxID + 1 - 10_000 - present

	// 3: finishes.
	s = newCheckingStore(t, db, cfg)
	res, err = Run(ctx, cfg, s, Options{StopGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, res, cfg, 4, results.StopCompleted, 0)
	if n, _ := coll.CountDocuments(ctx, bson.D{}); n != 20_000 {
		t.Errorf("%d documents, want 20000", n)
	}
	if last, _, _ := s.MaxID(ctx); last != 19_999 {
		t.Errorf("highest _id %d", last)
	}
	g := res.Growth
	if g.Restarts != 2 || g.RepairedRecords != holes || holes < 200 {
		t.Errorf("restarts %d, repaired %d; want 2 and %d", g.Restarts, g.RepairedRecords, holes)
	}
	// Segment 2 (5k to 10k): the stopped loader's calls and the next one's,
	// all of them; segment 3 lost what the killed loader did.
	c2, c3 := g.Checkpoints[1].Insert, g.Checkpoints[2].Insert
	if !c2.Resumed || c2.Records != 5_000 || c2.Latency.Count != 50 {
		t.Errorf("segment 2: %+v", c2)
	}
	if !c3.Resumed || c3.Records != 15_000-(maxID+1) {
		t.Errorf("segment 3: %+v, want %d records measured", c3, 15_000-(maxID+1))
	}
	if firstCalls < 70 || res.Op(results.OpInsert).Total() != 50+50+(15_000-(maxID+1))/100+50 {
		t.Errorf("%d insert calls in all (the first loader made %d)", res.Op(results.OpInsert).Total(), firstCalls)
	}
	var state []string
	if err := s.LoadState(ctx, func(id, _ string) error { state = append(state, id); return nil }); err != nil {
		t.Fatal(err)
	}
	if want := []string{rowID(1), rowID(2), rowID(3), rowID(4), stateMetaID}; !slices.Equal(state, want) {
		t.Errorf("state documents %v, want %v", state, want)
	}
}

// TestGrowUnacknowledgedOnTheStub: w:0 inserts (which mongo-java-server
// does not take) reach a server: the stub counts them. The stub stores
// nothing and answers reads with nothing, as a new phase expects.
func TestGrowUnacknowledgedOnTheStub(t *testing.T) {
	srv := stubmongo.Start(t)
	client, err := mongo.Connect(options.Client().ApplyURI(srv.URI()))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Disconnect(context.Background()) }()
	cfg := testConfig(t, 3000, 1000, contract.PropGrowthInsertMode, "unacknowledged", contract.PropGrowthInsertThreads, "2")
	s, err := NewMongoStore(MongoOptions{Client: client, Database: "ycsb", Collection: wireCollection, InsertMode: cfg.InsertMode,
		OperationTimeout: 10 * time.Second, Queries: cfg.QuerySpecs()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), cfg, s, Options{StopGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Growth.Checkpoints) != 3 || res.Op(results.OpInsert).Total() != 3000 {
		t.Fatalf("result: %d rows, %d inserts", len(res.Growth.Checkpoints), res.Op(results.OpInsert).Total())
	}
	// w:0 requests are not answered: wait for the server to have read them.
	deadline := time.Now().Add(10 * time.Second)
	for srv.Counts().InsertedDocs < 3000 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if c := srv.Counts(); c.InsertedDocs != 3000 || c.Insert != 3000 {
		t.Errorf("the stub saw %d inserts of %d documents, want 3000", c.Insert, c.InsertedDocs)
	}
	if c := res.Growth.Checkpoints[0]; c.Sizes != nil || c.SizesError == "" {
		t.Errorf("sizes from a server without statistics: %+v, %q", c.Sizes, c.SizesError)
	}
}

// TestBatchInsertIsUnordered: batch mode sends insert commands with
// ordered: false, as the YCSB load does. Through mongos an ordered batch
// on a sharded collection is cut into a new sub-batch each time the
// target shard changes, and the sub-batches run one after the other
// (targetWriteOps and isNewBatchRequiredOrdered in
// src/mongo/s/write_ops/batch_write_op.cpp, mongodb/mongo): with a hashed
// _id, a batch of 1,000 documents would become hundreds of small writes in
// sequence. mongo-java-server is no mongos, so the command sent is
// inspected (a CommandMonitor).
func TestBatchInsertIsUnordered(t *testing.T) {
	srv := wireserver.Shared(t)
	name, _ := wireserver.TestDatabase(t, srv)
	var mu sync.Mutex
	var inserts []bson.Raw
	mon := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if e.CommandName == "insert" {
			mu.Lock()
			inserts = append(inserts, slices.Clone(e.Command))
			mu.Unlock()
		}
	}}
	client, err := mongo.Connect(options.Client().ApplyURI(srv.URI()).SetMonitor(mon))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	store, err := NewMongoStore(MongoOptions{Client: client, Database: name, Collection: wireCollection,
		InsertMode: results.InsertBatch, OperationTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	docs := []bson.Raw{mustRaw(bson.D{{Key: FieldID, Value: int64(0)}}), mustRaw(bson.D{{Key: FieldID, Value: int64(1)}}),
		mustRaw(bson.D{{Key: FieldID, Value: int64(2)}})}
	if err := store.Insert(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(inserts) != 1 {
		t.Fatalf("%d insert commands, want 1", len(inserts))
	}
	cmd := inserts[0]
	if ordered, ok := cmd.Lookup("ordered").BooleanOK(); !ok || ordered {
		t.Errorf("insert command with ordered %v (present: %t), want false: %s", ordered, ok, cmd)
	}
	if n, _ := cmd.Lookup("documents").Array().Values(); len(n) != 3 {
		t.Errorf("%d documents in the command, want 3: %s", len(n), cmd)
	}
	w, _ := cmd.Lookup("writeConcern", "w").AsInt64OK()
	if j, _ := cmd.Lookup("writeConcern", "j").BooleanOK(); w != 1 || !j {
		t.Errorf("write concern w %d, j %t; want w:1, j:true: %s", w, j, cmd)
	}
	if n, err := client.Database(name).Collection(wireCollection).CountDocuments(context.Background(), bson.D{}); err != nil || n != 3 {
		t.Errorf("%d documents stored (%v), want 3", n, err)
	}
}
