// Package growth is the data-growth workload (a Grow phase): it grows a
// collection of ~1 KB documents to a target record count and, at every
// checkpoint on the way, pauses to take the collection's sizes and to run
// each query class for a while, so that insert rate, query throughput and
// latency, and data and index sizes can be charted against the record
// count. It is a workload of its own beside internal/ycsb (whose engine
// it does not use) and shares the result format, internal/results: a
// KindGrow result whose Ops are the phase's overall INSERT and Q1..Q4
// measurements and whose Growth holds one row per checkpoint. The loader
// runs it as `loader grow` (internal/loader). No Kubernetes imports.
//
// # Layout
//
//   - config.go: Config and the growth.* properties (names in
//     internal/contract, defaults and meanings in KnownProperties).
//   - generator.go: the documents, each a function of (seed, i).
//   - checkpoints.go: the checkpoint schedule.
//   - store.go, mongostore.go: what the engine needs from the database
//     (Store), and MongoStore, the driver's.
//   - engine.go: Run, the phase: inserts, checkpoints, queries, result.
//   - resume.go: the phase's state and how a loader resumes a phase.
//   - text.go: the text output (WriteCheckpoint, WriteTextSummary).
//
// # Documents
//
//	{_id: i, number: int64, number1: int64, date: date, payload: string}
//
// _id is the record number i (int64, from 0). number is uniform in [0, N),
// N = ceil(targetrecords / matchesPerValue), so an equality on a value
// matches matchesPerValue (10) documents on average at the target. number1
// is uniform in [0, N) too; by default it is paired with number (a fixed
// permutation of it), so that Q2's two equalities match Q1's ~10 documents,
// as the study's Q2 did; growth.number1=independent draws it on its own.
// date is datestart + i·datestep plus a jitter uniform in [0, datejitter):
// increasing on the whole, not strictly. payload is payloadsize printable
// ASCII characters; 945 make a 1,024-byte document. See Generator.
//
// # The phase
//
// Indexes {number: 1}, {number1: 1} and {date: -1} are created before the
// first insert (idempotently, through the given connection: mongos for a
// sharded cluster). Then records are inserted in order, with
// insertthreads threads each taking the next record (or batch): in
// unacknowledged mode with insertOne and w:0; in acknowledged mode with
// insertOne and w:1, j:true (the study's "safe" inserts); in batch mode
// with unordered insertMany of batchsize documents, w:1, j:true (sent as
// insert commands built from the raw documents, up to 16 MiB each; see
// MongoStore.Insert). The insert mode sets the write concern, whatever the
// connection string's.
//
// Checkpoint j (from 1) is at min(j·checkpointevery, targetrecords)
// records; a phase has at most results.MaxGrowthCheckpoints (200). At
// each one the inserts pause (every call returned), the collection's
// statistics are read ($collStats with storageStats: count, size,
// storageSize, totalIndexSize and each index's size, per shard through
// mongos; the collStats command from a server without the stage; a row
// without sizes, and the reason, when neither answers), then each query
// class in growth.queries runs for queryduration with querythreads
// threads, one class after the other:
//
//	Q1  find({number: v}).limit(10)
//	Q2  find({number: v, number1: w}, {_id: 0, number: 1, number1: 1}).limit(10)
//	Q3  find({number: v}).sort({date: -1}).skip(100).limit(10)
//	Q4  find({}).limit(100)
//
// v is uniform in [0, N) (from a stream per seed, checkpoint, class and
// thread: reproducible); w is v's pair (paired number1), or v and w are a
// random inserted record's (independent). Every query's documents are
// fetched (counted, not decoded). With the defaults, Q3 skips more
// documents than a value matches (100 > 10): it returns nothing and
// measures the work of finding, sorting and skipping them, as the study's
// did; raise matchespervalue to see it return documents.
//
// Each checkpoint's row (results.GrowthCheckpoint) holds the segment's
// insert rate (documents per second of the segment's wall time) and call
// latencies (p50, p95, p99, ...: per document, or per batch), each query
// class's throughput, latencies, documents returned and errors, and the
// sizes. A failed insert stops the phase (a data set with holes is not the
// one to measure; the phase can be resumed); failed queries are counted.
// With w:0, an insert's call returns when the request is written, so the
// rate is what the server took off the socket, and at a checkpoint the
// server may still be applying the last ones: the sizes' count shows it.
//
// # Resume and memory
//
// A loader that replaces a stopped one carries on where it stopped, from
// the record count it finds in the collection, and loses nothing that was
// measured: see resume.go. The engine keeps nothing per record: its
// memory is its threads' buffers and histograms, the overall histograms
// and at most 200 rows of numbers, whatever the record count
// (TestNoPerRecordState; test/loader's TestGrowMemoryIsFlat measures the
// loader's RSS over 20M records).
package growth
