// Package mongodb is the MongoDB binding of the internal/ycsb engine, over
// the Go driver: YCSB's MongoDbClient. The loader command (internal/loader)
// reads its configuration from the workload's properties
// (ConfigFromProperties), connects (NewClient) and hands the engine one DB
// per thread (Client.Factory).
//
// # Layout
//
//   - config.go: the binding's properties (mongodb.url and YCSB's legacy
//     options, batchsize, mongodb.upsert, mongodb.operationtimeout) and the
//     connection string's handling (legacy options added, checked, password
//     hidden in messages).
//   - properties.go: the binding's entries in the loader's property
//     registry (KnownProperties, the -h section Group).
//   - client.go, db.go: Client, one per process (one *mongo.Client, one
//     connection pool, shared by all threads, like YCSB's static
//     MongoClient), and DB, one per thread (its buffers, implementing
//     ycsb.DB).
//   - rawbson.go: documents, filters and updates built as raw BSON into
//     per-thread buffers; no reflection, no maps, no allocation.
//   - guard.go: operation timeouts without a timer per operation.
//   - errlog.go: the first failed operations, printed (bounded).
//
// # Operations
//
// As YCSB's MongoDbClient (0.17.0): a record is {_id: key, field0:
// BinData(0, value), ...} in collection `table` of the URL's database
// ("ycsb" when the URL names none or admin). Read is find({_id: key})
// (projection only for named fields), first document, NOT_FOUND if none;
// Scan is find({_id: {$gte: start}}).sort({_id: 1}).limit(n), every
// document fetched, NOT_FOUND if none (YCSB returns ERROR); Update is
// updateOne({_id: key}, {$set: {...}}), NOT_FOUND when nothing matched;
// Delete is deleteOne, NOT_FOUND when nothing was deleted; Insert is
// insertOne (replaceOne with upsert when mongodb.upsert=true), a duplicate
// key is ERROR. With batchsize > 1 inserts are buffered per thread
// (BATCHED_OK) and written with insertMany(ordered=false) when the batch is
// full; the insert completing a batch reports its own document's fate.
// Unlike YCSB, which never writes the trailing partial batch, Cleanup
// flushes it; buffered inserts that were not written (in the final flush
// or in an earlier one) are reported by Cleanup and appear as
// FailedBufferedInserts in the report and LostInserts in the result.
// Reads decode the document only for data integrity (dataintegrity=true).
//
// # Properties
//
// mongodb.writeConcern maps to w=0 (errors_ignored, unacknowledged), w=1
// (acknowledged), journal=true (journaled), w=2 (replica_acknowledged) or
// w=majority; like mongodb.readPreference and mongodb.maxconnections
// (maxPoolSize) it is added to the URL only when the URL does not set that
// option. An unknown writeConcern or readPreference is an error (YCSB warns
// and ignores it).
//
// Retryable writes are off unless mongodb.url sets retryWrites=true
// (DefaultRetryWrites): the Go driver turns them on by default, which
// against mongos (never against a standalone) adds a txnNumber to every
// insert and updateOne.
//
// mongodb.url is checked before anything connects, by the driver's own
// connection-string parser plus a check that every host has a name (the
// driver dials ":27017" as this machine): a URL it rejects is an error
// naming mongodb.url (the loader's usage error), with the password hidden.
//
// Every driver call is bounded by mongodb.operationtimeout: a watchdog
// cancels a call running longer, within an eighth of the timeout (at most a
// second) after it elapses; see guard.go for why this is not a
// context.WithTimeout per call. Calls carry no deadline, so the driver
// sends no maxTimeMS, as YCSB's binding does not.
package mongodb
