package mongodb

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/ycsb"
)

// sortByIDAny is sortByID boxed once, for the scan options.
var sortByIDAny any = sortByID

// DB is one worker thread's view of the Client: YCSB's MongoDbClient
// instance per thread. It owns the thread's buffers (filter, document,
// update, the pending batch) and option values, so a successful operation
// allocates nothing here beyond what the driver does. Not safe for
// concurrent use: the engine gives every thread its own.
type DB struct {
	c     *Client
	colls collectionCache
	projs projectionCache
	guard guard

	filter []byte
	doc    []byte
	update []byte
	// The buffers as the driver's arguments (rawArg).
	filterArg, docArg, updateArg rawArg

	// Option builders whose single setter reads the fields below, so
	// options are not rebuilt per call.
	findOne    options.FindOneOptionsBuilder
	find       options.FindOptionsBuilder
	projection any
	limit      int64

	// Insert batching (batchsize > 1).
	batchColl *mongo.Collection
	batchBuf  []byte
	batchEnds []int
	batchDocs []bson.Raw
	lost      int

	// lastErr is the error of the last call that failed (FailureLabel);
	// set on failures only.
	lastErr error
}

var _ ycsb.DB = (*DB)(nil)

// NewDB returns a DB for one thread. The engine gets DBs from Factory; this
// is for callers driving the binding directly.
func (c *Client) NewDB() *DB {
	d := &DB{c: c, colls: collectionCache{db: c.db}}
	d.findOne.Opts = []func(*options.FindOneOptions) error{func(o *options.FindOneOptions) error {
		o.Projection = d.projection
		return nil
	}}
	d.find.Opts = []func(*options.FindOptions) error{func(o *options.FindOptions) error {
		o.Sort = sortByIDAny
		o.Limit = &d.limit
		o.Projection = d.projection
		return nil
	}}
	if c.attempts {
		d.guard.attempts = new(atomic.Int64)
	}
	c.wd.add(&d.guard)
	if c.cfg.BatchSize > 1 {
		d.batchEnds = make([]int, 0, c.cfg.BatchSize)
		d.batchDocs = make([]bson.Raw, 0, c.cfg.BatchSize)
	}
	return d
}

// Read is find({_id: key}) with the projection of fields (none when fields
// is nil: all fields), first document: OK if found, NOT_FOUND if not. The
// document is only decoded when result asks for its fields (data
// integrity); otherwise the reply's bytes are all that is needed.
func (d *DB) Read(ctx context.Context, table string, key []byte, fields []string, result *[]ycsb.Field) ycsb.Status {
	coll := d.colls.get(table)
	d.filter = appendIDFilter(d.filter[:0], key)
	ctx, token := d.guard.begin(d.c.wd, ctx)
	var sr *mongo.SingleResult
	if d.projection = d.projs.get(fields); d.projection != nil {
		sr = coll.FindOne(ctx, d.filterArg.of(d.filter), &d.findOne)
	} else {
		sr = coll.FindOne(ctx, d.filterArg.of(d.filter))
	}
	raw, err := sr.Raw()
	d.guard.end(token)
	if err != nil {
		if errors.Is(err, mongo.ErrNoDocuments) {
			return ycsb.StatusNotFound
		}
		d.fail(ycsb.OpRead, key, err)
		return ycsb.StatusError
	}
	if result != nil {
		if err := appendBinaryFields(result, raw, fields); err != nil {
			d.fail(ycsb.OpRead, key, fmt.Errorf("decode reply: %w", err))
			return ycsb.StatusError
		}
	}
	return ycsb.StatusOK
}

// Scan is find({_id: {$gte: startKey}}).sort({_id: 1}).limit(count) with
// the projection of fields; every document of the cursor is fetched (the
// server does the whole scan, as for YCSB) but none is decoded. No document
// is NOT_FOUND (YCSB 0.17.0 returns ERROR there; the YCSB DB contract and
// the other operations say NOT_FOUND).
func (d *DB) Scan(ctx context.Context, table string, startKey []byte, count int, fields []string) ycsb.Status {
	n, err := d.scan(ctx, table, startKey, count, fields, nil)
	switch {
	case err != nil:
		d.fail(ycsb.OpScan, startKey, err)
		return ycsb.StatusError
	case n == 0:
		return ycsb.StatusNotFound
	}
	return ycsb.StatusOK
}

// scan runs a scan and returns the number of documents; visit, when not
// nil, sees each one (tests).
func (d *DB) scan(ctx context.Context, table string, startKey []byte, count int, fields []string, visit func(bson.Raw)) (int, error) {
	coll := d.colls.get(table)
	d.filter = appendScanFilter(d.filter[:0], startKey)
	d.projection = d.projs.get(fields)
	d.limit = int64(count)
	ctx, token := d.guard.begin(d.c.wd, ctx)
	defer d.guard.end(token)
	cur, err := coll.Find(ctx, d.filterArg.of(d.filter), &d.find)
	if err != nil {
		return 0, fmt.Errorf("find: %w", err)
	}
	n := 0
	for cur.Next(ctx) {
		if visit != nil {
			visit(cur.Current)
		}
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

// Update is updateOne({_id: key}, {$set: values}): NOT_FOUND when no
// document matched (and the write was acknowledged).
func (d *DB) Update(ctx context.Context, table string, key []byte, values []ycsb.Field) ycsb.Status {
	coll := d.colls.get(table)
	d.filter = appendIDFilter(d.filter[:0], key)
	d.update = appendSetUpdate(d.update[:0], values)
	ctx, token := d.guard.begin(d.c.wd, ctx)
	res, err := coll.UpdateOne(ctx, d.filterArg.of(d.filter), d.updateArg.of(d.update))
	d.guard.end(token)
	if err != nil {
		d.fail(ycsb.OpUpdate, key, err)
		return ycsb.StatusError
	}
	if res.Acknowledged && res.MatchedCount == 0 {
		d.c.errs.recordf(ycsb.OpUpdate, key, "nothing updated (NOT_FOUND)")
		return ycsb.StatusNotFound
	}
	return ycsb.StatusOK
}

// Delete is deleteOne({_id: key}): NOT_FOUND when nothing was deleted (and
// the write was acknowledged).
func (d *DB) Delete(ctx context.Context, table string, key []byte) ycsb.Status {
	coll := d.colls.get(table)
	d.filter = appendIDFilter(d.filter[:0], key)
	ctx, token := d.guard.begin(d.c.wd, ctx)
	res, err := coll.DeleteOne(ctx, d.filterArg.of(d.filter))
	d.guard.end(token)
	if err != nil {
		d.fail(ycsb.OpDelete, key, err)
		return ycsb.StatusError
	}
	if res.Acknowledged && res.DeletedCount == 0 {
		d.c.errs.recordf(ycsb.OpDelete, key, "nothing deleted (NOT_FOUND)")
		return ycsb.StatusNotFound
	}
	return ycsb.StatusOK
}

// Insert writes {_id: key, field: BinData...}: insertOne, or replaceOne
// with upsert when mongodb.upsert is set. With batchsize > 1 the document
// is buffered (BATCHED_OK, like YCSB) until batchsize are pending, then
// they are written with one unordered insertMany (or bulkWrite of upserts);
// the insert that completes the batch reports the fate of its own
// document. Any error, a duplicate key included, is ERROR.
func (d *DB) Insert(ctx context.Context, table string, key []byte, values []ycsb.Field) ycsb.Status {
	coll := d.colls.get(table)
	if d.c.cfg.BatchSize > 1 {
		return d.bufferInsert(ctx, coll, key, values)
	}
	d.doc = appendDocument(d.doc[:0], key, values)
	ctx, token := d.guard.begin(d.c.wd, ctx)
	var err error
	if d.c.cfg.Upsert {
		d.filter = appendIDFilter(d.filter[:0], key)
		_, err = coll.ReplaceOne(ctx, d.filterArg.of(d.filter), d.docArg.of(d.doc), d.c.replace)
	} else {
		_, err = coll.InsertOne(ctx, d.docArg.of(d.doc))
	}
	d.guard.end(token)
	if err != nil {
		d.fail(ycsb.OpInsert, key, err)
		return ycsb.StatusError
	}
	return ycsb.StatusOK
}

// bufferInsert adds a document to the thread's batch and flushes a full
// batch. Documents of earlier inserts that the flush fails to write were
// reported BATCHED_OK: they are counted as lost and reported by Cleanup.
func (d *DB) bufferInsert(ctx context.Context, coll *mongo.Collection, key []byte, values []ycsb.Field) ycsb.Status {
	if d.batchColl != nil && d.batchColl != coll {
		// A batch holds one collection's documents: write the other
		// table's pending ones first (never happens with one table).
		ctx, token := d.guard.begin(d.c.wd, ctx)
		failed, _ := d.flush(ctx)
		d.guard.end(token)
		d.lost += failed
	}
	d.batchColl = coll
	d.batchBuf = appendDocument(d.batchBuf, key, values)
	d.batchEnds = append(d.batchEnds, len(d.batchBuf))
	if len(d.batchEnds) < d.c.cfg.BatchSize {
		return ycsb.StatusBatchedOK
	}
	ctx, token := d.guard.begin(d.c.wd, ctx)
	failed, lastFailed := d.flush(ctx)
	d.guard.end(token)
	if lastFailed {
		d.lost += failed - 1
		return ycsb.StatusError
	}
	d.lost += failed
	return ycsb.StatusOK
}

// flush writes the pending batch and empties it, whatever the outcome. It
// returns how many of its documents were not written and whether the last
// one (the current insert's) is among them.
func (d *DB) flush(ctx context.Context) (failed int, lastFailed bool) {
	n := len(d.batchEnds)
	if n == 0 {
		return 0, false
	}
	coll := d.batchColl
	d.batchDocs = d.batchDocs[:0]
	start := 0
	for _, end := range d.batchEnds {
		d.batchDocs = append(d.batchDocs, bson.Raw(d.batchBuf[start:end]))
		start = end
	}
	defer func() {
		d.batchBuf, d.batchEnds, d.batchDocs = d.batchBuf[:0], d.batchEnds[:0], d.batchDocs[:0]
		d.batchColl = nil
	}()

	var err error
	if d.c.cfg.Upsert {
		models := make([]mongo.WriteModel, n)
		for i, doc := range d.batchDocs {
			models[i] = mongo.NewReplaceOneModel().SetFilter(bson.Raw(appendIDFilter(nil, documentID(doc)))).
				SetReplacement(doc).SetUpsert(true)
		}
		_, err = coll.BulkWrite(ctx, models, d.c.bulkUpserts)
	} else {
		_, err = coll.InsertMany(ctx, d.batchDocs, d.c.insertMany)
	}
	if err == nil {
		return 0, false
	}
	var bwe mongo.BulkWriteException
	if errors.As(err, &bwe) && bwe.WriteConcernError == nil && len(bwe.WriteErrors) > 0 {
		// Unordered: only the listed documents failed.
		for _, we := range bwe.WriteErrors {
			if we.Index < 0 || we.Index >= n {
				continue
			}
			failed++
			lastFailed = lastFailed || we.Index == n-1
			d.fail(ycsb.OpInsert, documentID(d.batchDocs[we.Index]), fmt.Errorf("batch of %d: %w", n, &we.WriteError))
		}
		return failed, lastFailed
	}
	// A network error, a timeout or an unconfirmed write concern: none of
	// the documents is known to be written.
	d.fail(ycsb.OpInsert, documentID(d.batchDocs[n-1]), fmt.Errorf("batch of %d: %w", n, err))
	return n, true
}

// Cleanup flushes the trailing partial batch, which YCSB's binding never
// writes, and returns the number of buffered inserts (reported BATCHED_OK)
// that were not written: those of the final flush plus those lost in
// earlier flushes. The error is the final flush's.
func (d *DB) Cleanup(ctx context.Context) (int, error) {
	defer d.c.wd.remove(&d.guard)
	defer d.guard.release()
	n := len(d.batchEnds)
	// The engine's cleanup context is the flush's, bounded like any call.
	ctx, cancel := context.WithTimeout(ctx, d.c.cfg.OperationTimeout)
	defer cancel()
	failed, _ := d.flush(ctx)
	d.lost += failed
	if failed > 0 {
		return d.lost, fmt.Errorf("final flush: %d of %d buffered inserts not written", failed, n)
	}
	return d.lost, nil
}
