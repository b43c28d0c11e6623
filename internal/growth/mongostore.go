package growth

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/telemetry"
)

// Indexes are the workload's secondary indexes, by name (MongoDB's default
// names), created before the first insert.
var Indexes = []struct {
	Name string
	Keys bson.D
}{
	{"number_1", bson.D{{Key: FieldNumber, Value: 1}}},
	{"number1_1", bson.D{{Key: FieldNumber1, Value: 1}}},
	{"date_-1", bson.D{{Key: FieldDate, Value: -1}}},
}

// MongoOptions configure a MongoStore.
type MongoOptions struct {
	// Client is connected to the benchmark's entry point: the mongod, or
	// mongos for a sharded cluster (indexes, inserts and queries all go
	// through it).
	Client     *mongo.Client
	Database   string
	Collection string
	// InsertMode decides Insert's write concern: w:0, or w:1 with j:true
	// (acknowledged and batch), whatever the connection string says.
	InsertMode string
	// OperationTimeout bounds every call.
	OperationTimeout time.Duration
	// Queries are the query classes Find runs.
	Queries []QuerySpec
}

// MongoStore is the Store of a real server, through the Go driver.
type MongoStore struct {
	client   *mongo.Client
	db, name string
	timeout  time.Duration
	// inserts has the insert mode's write concern (and the queries run
	// on it); safe (w:1, j:true, primary) is for the resume's reads and
	// repairs, and the state collection.
	inserts *mongo.Collection
	safe    *mongo.Collection
	state   *mongo.Collection
	batch   bool
	// database runs the insert commands of batch mode; cmds holds their
	// buffers (*[]byte), one per call in flight.
	database *mongo.Database
	cmds     sync.Pool

	repairMany *options.InsertManyOptionsBuilder
	finds      map[string]*options.FindOptionsBuilder
}

var _ Store = (*MongoStore)(nil)

// journaled is w:1 with j:true: the study's "safe" inserts.
func journaled() *writeconcern.WriteConcern {
	j := true
	return &writeconcern.WriteConcern{W: 1, Journal: &j}
}

// NewMongoStore returns the store of the collection o names.
func NewMongoStore(o MongoOptions) (*MongoStore, error) {
	if o.OperationTimeout <= 0 {
		return nil, errors.New("mongo store: the operation timeout must be positive")
	}
	wc := journaled()
	if o.InsertMode == results.InsertUnacknowledged {
		wc = writeconcern.Unacknowledged()
	}
	db := o.Client.Database(o.Database)
	// The resume reads and the state: from the primary, whatever the
	// connection string's read preference (which the queries follow).
	safe := options.Collection().SetWriteConcern(journaled()).SetReadPreference(readpref.Primary())
	s := &MongoStore{
		client: o.Client, db: o.Database, name: o.Collection, timeout: o.OperationTimeout,
		inserts:    db.Collection(o.Collection, options.Collection().SetWriteConcern(wc)),
		safe:       db.Collection(o.Collection, safe),
		state:      db.Collection(o.Collection+StateCollectionSuffix, safe),
		batch:      o.InsertMode == results.InsertBatch,
		database:   db,
		cmds:       sync.Pool{New: func() any { return new([]byte) }},
		repairMany: options.InsertMany().SetOrdered(false),
		finds:      map[string]*options.FindOptionsBuilder{},
	}
	for _, q := range o.Queries {
		fo := options.Find().SetLimit(q.Limit)
		if q.Skip > 0 {
			fo.SetSkip(q.Skip)
		}
		if q.SortDateDesc {
			fo.SetSort(mustRaw(bson.D{{Key: FieldDate, Value: -1}}))
		}
		if len(q.Projection) > 0 {
			p := bson.D{{Key: FieldID, Value: 0}}
			for _, f := range q.Projection {
				if f != FieldID {
					p = append(p, bson.E{Key: f, Value: 1})
				}
			}
			fo.SetProjection(mustRaw(p))
		}
		s.finds[q.Name] = fo
	}
	return s, nil
}

// mustRaw marshals a document built in code.
func mustRaw(d bson.D) bson.Raw {
	b, err := bson.Marshal(d)
	if err != nil {
		panic(err)
	}
	return b
}

// call bounds one call.
func (s *MongoStore) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.timeout)
}

// EnsureIndexes creates the indexes; existing ones (same keys and names)
// are left alone, as createIndexes does.
func (s *MongoStore) EnsureIndexes(ctx context.Context) error {
	models := make([]mongo.IndexModel, len(Indexes))
	for i, ix := range Indexes {
		models[i] = mongo.IndexModel{Keys: ix.Keys, Options: options.Index().SetName(ix.Name)}
	}
	// Building indexes over existing documents (a resumed phase) takes
	// as long as it takes; only an empty collection's is quick.
	ctx, cancel := context.WithTimeout(ctx, max(s.timeout, 10*time.Minute))
	defer cancel()
	if _, err := s.safe.Indexes().CreateMany(ctx, models); err != nil {
		return fmt.Errorf("create indexes on %s.%s: %w", s.db, s.name, err)
	}
	return nil
}

// Insert writes one document with insertOne, or, in batch mode, any
// number with unordered insert commands (insertMany's with ordered:
// false).
func (s *MongoStore) Insert(ctx context.Context, docs []bson.Raw) error {
	ctx, cancel := s.call(ctx)
	defer cancel()
	if s.batch {
		return s.insertMany(ctx, docs)
	}
	if len(docs) != 1 {
		return fmt.Errorf("insert: %d documents outside batch mode", len(docs))
	}
	if _, err := s.inserts.InsertOne(ctx, docs[0]); err != nil {
		return fmt.Errorf("insertOne: %w", err)
	}
	return nil
}

// Limits of one insert command: MongoDB's maxWriteBatchSize, and a size
// below maxBsonObjectSize (16 MiB) for the command document.
const (
	maxCommandDocuments = 100_000
	maxCommandBytes     = 16<<20 - 64<<10
)

// insertMany is insertMany(docs) with ordered: false and w:1, j:true, as
// the insert command the driver would send, but built here from the raw
// documents:
// the driver's InsertMany marshals every document again and decodes each
// one's _id by reflection, several times this loader's cost of making the
// document (BenchmarkMongoStoreInsert). A batch larger than one command
// takes several, one after the other, as the driver would split it.
//
// Unordered, as the YCSB load's insertMany: through mongos an ordered
// batch on a sharded collection is cut into a new sub-batch each time the
// target shard changes, and the sub-batches are sent one after the other
// (targetWriteOps and isNewBatchRequiredOrdered in
// src/mongo/s/write_ops/batch_write_op.cpp, mongodb/mongo), so a batch of
// 1,000 documents with a hashed _id would become hundreds of small writes
// in sequence; an unordered one is grouped by shard whatever the order of
// its documents. A failed document then does not stop the others; the call
// fails all the same.
func (s *MongoStore) insertMany(ctx context.Context, docs []bson.Raw) error {
	buf := s.cmds.Get().(*[]byte)
	defer s.cmds.Put(buf)
	for len(docs) > 0 {
		var n int
		*buf, n = s.appendInsertCommand((*buf)[:0], docs)
		if err := s.database.RunCommand(ctx, bson.Raw(*buf)).Err(); err != nil {
			return fmt.Errorf("insert of %d documents: %w", n, err)
		}
		docs = docs[n:]
	}
	return nil
}

// appendInsertCommand appends {insert, documents: [...], ordered: false,
// writeConcern: {w: 1, j: true}} with as many of docs as one command
// holds (at least one), and returns how many.
func (s *MongoStore) appendInsertCommand(dst []byte, docs []bson.Raw) ([]byte, int) {
	idx, dst := bsoncore.ReserveLength(dst)
	dst = bsoncore.AppendStringElement(dst, "insert", s.name)
	arr, dst := bsoncore.ReserveLength(append(append(dst, byte(bsoncore.TypeArray)), "documents\x00"...))
	n := 0
	for n < len(docs) && n < maxCommandDocuments && (n == 0 || len(dst)+len(docs[n])+16 < maxCommandBytes) {
		dst = append(dst, byte(bsoncore.TypeEmbeddedDocument))
		dst = strconv.AppendInt(dst, int64(n), 10)
		dst = append(dst, 0)
		dst = append(dst, docs[n]...)
		n++
	}
	dst = append(dst, 0)
	dst = bsoncore.UpdateLength(dst, arr, int32(len(dst))-arr)
	dst = bsoncore.AppendBooleanElement(dst, "ordered", false)
	dst = append(dst, writeConcernElement...)
	dst = append(dst, 0)
	return bsoncore.UpdateLength(dst, idx, int32(len(dst))-idx), n
}

// writeConcernElement is writeConcern: {w: 1, j: true}.
var writeConcernElement = bsoncore.AppendDocumentElement(nil, "writeConcern",
	bsoncore.NewDocumentBuilder().AppendInt32("w", 1).AppendBoolean("j", true).Build())

// Find runs the query and counts the documents of its cursor.
func (s *MongoStore) Find(ctx context.Context, q *QuerySpec, filter bson.Raw) (int, error) {
	ctx, cancel := s.call(ctx)
	defer cancel()
	cur, err := s.inserts.Find(ctx, filter, s.finds[q.Name])
	if err != nil {
		return 0, fmt.Errorf("find: %w", err)
	}
	n := 0
	for cur.Next(ctx) {
		n++
	}
	err = cur.Err()
	if cerr := cur.Close(ctx); err == nil {
		err = cerr
	}
	if err != nil {
		return n, fmt.Errorf("cursor: %w", err)
	}
	return n, nil
}

// CollStats reads the sizes as the telemetry does: $collStats with
// storageStats (per shard through mongos), or the collStats command.
func (s *MongoStore) CollStats(ctx context.Context) (results.CollectionStats, error) {
	ctx, cancel := s.call(ctx)
	defer cancel()
	st, err := telemetry.CollStats(ctx, s.client, s.db, s.name)
	if err != nil {
		return st, fmt.Errorf("sizes: %w", err)
	}
	return st, nil
}

// MaxID reads the highest _id through the _id index: a $sort on _id with
// $limit 1 at the start of a pipeline is an index scan of one key (per
// shard through mongos), whatever the collection's size.
func (s *MongoStore) MaxID(ctx context.Context) (int64, bool, error) {
	ctx, cancel := s.call(ctx)
	defer cancel()
	cur, err := s.safe.Aggregate(ctx, mongo.Pipeline{
		{{Key: "$sort", Value: bson.D{{Key: FieldID, Value: -1}}}},
		{{Key: "$limit", Value: 1}},
		{{Key: "$project", Value: bson.D{{Key: FieldID, Value: 1}}}},
	})
	if err != nil {
		return 0, false, fmt.Errorf("highest _id of %s.%s: %w", s.db, s.name, err)
	}
	defer func() { _ = cur.Close(context.WithoutCancel(ctx)) }()
	if !cur.Next(ctx) {
		if err := cur.Err(); err != nil {
			return 0, false, fmt.Errorf("highest _id of %s.%s: %w", s.db, s.name, err)
		}
		return 0, false, nil
	}
	id, err := wholeID(cur.Current.Lookup(FieldID))
	if err != nil {
		return 0, false, fmt.Errorf("%s.%s holds a document that is not a growth document: %w", s.db, s.name, err)
	}
	return id, true, nil
}

// wholeID reads an _id that must be a whole number.
func wholeID(v bson.RawValue) (int64, error) {
	switch v.Type {
	case bson.TypeInt64:
		return v.Int64(), nil
	case bson.TypeInt32:
		return int64(v.Int32()), nil
	case bson.TypeDouble:
		if f := v.Double(); f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int64(f), nil
		}
	}
	return 0, fmt.Errorf("_id %s is not a whole number", v)
}

func idRange(from, to int64) bson.D {
	return bson.D{{Key: FieldID, Value: bson.D{{Key: "$gte", Value: from}, {Key: "$lt", Value: to}}}}
}

// CountIDs counts a range of _id (an index-only count).
func (s *MongoStore) CountIDs(ctx context.Context, from, to int64) (int64, error) {
	// A range of up to one checkpoint's records: longer than a call.
	ctx, cancel := context.WithTimeout(ctx, max(s.timeout, 10*time.Minute))
	defer cancel()
	n, err := s.safe.CountDocuments(ctx, idRange(from, to))
	if err != nil {
		return 0, fmt.Errorf("count _id in [%d, %d) of %s.%s: %w", from, to, s.db, s.name, err)
	}
	return n, nil
}

// MissingIDs reads the _ids of the range in order (covered by the _id
// index) and reports the gaps.
func (s *MongoStore) MissingIDs(ctx context.Context, from, to int64, fn func(int64) error) error {
	ctx, cancel := context.WithTimeout(ctx, max(s.timeout, 30*time.Minute))
	defer cancel()
	cur, err := s.safe.Find(ctx, idRange(from, to), options.Find().
		SetSort(bson.D{{Key: FieldID, Value: 1}}).SetProjection(bson.D{{Key: FieldID, Value: 1}}).SetBatchSize(10000))
	if err != nil {
		return fmt.Errorf("read _id in [%d, %d): %w", from, to, err)
	}
	defer func() { _ = cur.Close(context.WithoutCancel(ctx)) }()
	next := from
	for cur.Next(ctx) {
		id, err := wholeID(cur.Current.Lookup(FieldID))
		if err != nil {
			return fmt.Errorf("read _id in [%d, %d): %w", from, to, err)
		}
		for ; next < id; next++ {
			if err := fn(next); err != nil {
				return err
			}
		}
		next = id + 1
	}
	if err := cur.Err(); err != nil {
		return fmt.Errorf("read _id in [%d, %d): %w", from, to, err)
	}
	for ; next < to; next++ {
		if err := fn(next); err != nil {
			return err
		}
	}
	return nil
}

// duplicateKey is MongoDB's duplicate key error code.
const duplicateKey = 11000

// Repair inserts documents that may exist already, unordered, ignoring
// duplicate keys.
func (s *MongoStore) Repair(ctx context.Context, docs []bson.Raw) error {
	ctx, cancel := s.call(ctx)
	defer cancel()
	_, err := s.safe.InsertMany(ctx, docs, s.repairMany)
	var bwe mongo.BulkWriteException
	if errors.As(err, &bwe) && bwe.WriteConcernError == nil {
		for _, we := range bwe.WriteErrors {
			if we.Code != duplicateKey {
				return fmt.Errorf("repair: %w", err)
			}
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("repair: %w", err)
	}
	return nil
}

// stateDoc is a document of the state collection.
type stateDoc struct {
	ID   string `bson:"_id"`
	Data string `bson:"data"`
}

// LoadState reads the state collection in _id order. It aggregates rather
// than finds: the same index scan, and a server that stores nothing (the
// null server of the memory test) answers it with nothing.
func (s *MongoStore) LoadState(ctx context.Context, fn func(id, data string) error) error {
	ctx, cancel := s.call(ctx)
	defer cancel()
	cur, err := s.state.Aggregate(ctx, mongo.Pipeline{{{Key: "$sort", Value: bson.D{{Key: FieldID, Value: 1}}}}})
	if err != nil {
		return fmt.Errorf("read %s%s: %w", s.name, StateCollectionSuffix, err)
	}
	defer func() { _ = cur.Close(context.WithoutCancel(ctx)) }()
	for cur.Next(ctx) {
		var d stateDoc
		if err := cur.Decode(&d); err != nil {
			return fmt.Errorf("read %s%s: %w", s.name, StateCollectionSuffix, err)
		}
		if err := fn(d.ID, d.Data); err != nil {
			return err
		}
	}
	if err := cur.Err(); err != nil {
		return fmt.Errorf("read %s%s: %w", s.name, StateCollectionSuffix, err)
	}
	return nil
}

// SaveState replaces (or creates) a state document.
func (s *MongoStore) SaveState(ctx context.Context, id, data string) error {
	ctx, cancel := s.call(ctx)
	defer cancel()
	_, err := s.state.ReplaceOne(ctx, bson.D{{Key: FieldID, Value: id}}, stateDoc{ID: id, Data: data}, options.Replace().SetUpsert(true))
	if err != nil {
		return fmt.Errorf("save %s in %s%s: %w", id, s.name, StateCollectionSuffix, err)
	}
	return nil
}

// DeleteState removes a state document.
func (s *MongoStore) DeleteState(ctx context.Context, id string) error {
	ctx, cancel := s.call(ctx)
	defer cancel()
	if _, err := s.state.DeleteOne(ctx, bson.D{{Key: FieldID, Value: id}}); err != nil {
		return fmt.Errorf("delete %s from %s%s: %w", id, s.name, StateCollectionSuffix, err)
	}
	return nil
}
