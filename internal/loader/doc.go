// Package loader runs YCSB workloads against MongoDB and writes their
// results: the MongoDB binding of the internal/ycsb engine (YCSB's
// MongoDbClient), and the `loader` command (cmd/loader) that the
// operator's Jobs run.
//
// # Layout
//
//   - config.go: the binding's properties (mongodb.url and YCSB's legacy
//     options, batchsize, mongodb.upsert, mongodb.operationtimeout).
//   - properties.go: the registry of the properties the command and the
//     binding read (KnownProperties), the unknown-property warnings and the
//     property table of -h.
//   - client.go, db.go: Client, one per process (one *mongo.Client, one
//     connection pool, shared by all threads, like YCSB's static
//     MongoClient), and DB, one per thread (its buffers, implementing
//     ycsb.DB).
//   - rawbson.go: documents, filters and updates built as raw BSON into
//     per-thread buffers; no reflection, no maps, no allocation.
//   - guard.go: operation timeouts without a timer per operation.
//   - errlog.go: the first failed operations, printed (bounded).
//   - gc.go: the binary's GC target (GOGC=400 unless GOGC is set).
//   - cli.go, phase.go, admin.go, resultsink.go: the command. Parse reads
//     and checks a command line without doing any work (the Job contract
//     test in internal/contract runs the Jobs' arguments through it); Main
//     parses, then runs.
//   - k8sresult: the result ConfigMap writer (net/http, no client-go).
//
// # The binding
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
// Properties: `loader load|run -h` lists every property the loader reads or
// accepts, with its default and meaning, from one registry:
// KnownProperties, the engine's (ycsb.KnownProperties) and this package's
// (properties.go). Tests tie the registry to the code (every key the code
// looks up is registered, every registered key is looked up or marked
// ignored) and to its users (the embedded workloads and every key the
// operator's Jobs pass are known). mongodb.writeConcern maps to w=0
// (errors_ignored, unacknowledged), w=1 (acknowledged), journal=true
// (journaled), w=2 (replica_acknowledged) or w=majority; like
// mongodb.readPreference and mongodb.maxconnections (maxPoolSize) it is
// added to the URL only when the URL does not set that option.
//
// mongodb.url is checked before anything connects, by the driver's own
// connection-string parser plus a check that every host has a name (the
// driver dials ":27017" as this machine): a URL it rejects is a usage error
// naming mongodb.url, with the password hidden.
//
// An unknown writeConcern or readPreference is an error (YCSB warns and
// ignores it). Every driver call is bounded by mongodb.operationtimeout: a
// watchdog cancels a call running longer, within an eighth of the timeout
// (at most a second) after it elapses; see guard.go for why this is not a
// context.WithTimeout per call. Calls carry no deadline, so the driver
// sends no maxTimeMS, as YCSB's binding does not.
//
// # The command
//
//	loader load|run [mongodb] [-P file|name ...] [-p name=value ...] [-threads N] [-target N] [-s] [-l label]
//	                [--result FILE|-] [--result-configmap NAME --result-owner APIVERSION,KIND,NAME,UID --result-labels k=v,...]
//	loader bootstrap --mode sharded --config-server NAME=HOST:PORT --shard NAME=HOST:PORT [--shard ...] --mongos HOST:PORT
//	                 [--shard-key hashed | --shard-key ranged [-P file|name ...] [-p name=value ...]]
//	                 [--namespace db.coll] [--timeout 5m] [--result-configmap ...]
//	loader bootstrap --mode standalone --standalone HOST:PORT [--namespace db.coll] [--timeout 5m] [--result-configmap ...]
//	loader collmod --uri URI --validator JSON [--validation-level L] [--validation-action A] [--namespace db.coll] [--timeout 2m]
//	loader version
//
// Warnings (stderr, "loader: warning: ...") never stop a command: a
// property the loader does not know (YCSB ignores it silently, so a typo
// like readproprotion would change nothing without a word) gets the closest
// known name as a suggestion; a property YCSB has but this loader ignores
// (measurement.trackjvm, hdrhistogram.fileoutput, db, ...; see the -h
// table) says so; a run with operationcount 0 (unlimited) and no
// maxexecutiontime says it runs until it is stopped.
//
// Every command also takes --termination-log PATH (default
// /dev/termination-log). Flags take one or two dashes.
//
// load and run mean what bin/ycsb load|run mongodb means: -P workload files
// (a path, or a built-in name: workloada..workloadf, workloadS1..workloadS5,
// or just a, S1, ...) layered in order, -p properties on top, then -threads
// (threadcount), -target (target), -s (status) and -l (label). stdout gets
// YCSB's final text report; stderr the log, and the status line every
// status.interval seconds with -s. --result FILE writes the encoded result
// (results.Encode: gzip JSON); --result - writes it to stdout, and the text
// report then goes to stderr so stdout stays machine-readable. YCSB's
// exportfile property sends the text report to a file instead (exporter
// may only name the text exporter).
//
// Parallel loaders: with -p loader.count=n, this loader is loader.index
// (from -p, else JOB_COMPLETION_INDEX, set by Kubernetes in Indexed Jobs,
// else 0). recordcount/insertcount, operationcount and target are totals
// over all loaders: the engine splits the counts (internal/ycsb), and
// loader i runs at target/n, plus one for i < target%n (a loader whose
// share would be 0 is an error: 0 means unthrottled).
//
// --result-configmap NAME creates ConfigMap NAME-<loader index> (bootstrap:
// NAME-0) in POD_NAMESPACE (else the service account's namespace),
// immutable, with the given labels plus bench.mongobench.io/loader-index
// (contract.LabelLoaderIndex), and with the --result-owner as controlling
// owner reference. load and run put the encoded result in
// binaryData[result.json.gz] (contract.ConfigMapKey); bootstrap puts
// results.EncodeBootstrap's JSON in data[bootstrap.json]
// (contract.BootstrapConfigMapKey), and prints it on stdout. The ConfigMap
// already existing is a failure (the Job ran twice). Everything about the
// destinations (names, labels, owner, the in-cluster credentials) is
// checked before the benchmark starts. These names, keys and flags, and how
// the owner and labels are encoded, are internal/contract's: the
// controller's Jobs (internal/topology) pass them, the controller reads the
// ConfigMaps back by them.
//
// bootstrap calls mongoadmin.Bootstrap; collmod calls
// mongoadmin.ParseValidator and mongoadmin.ApplyValidator (its exit code is
// the outcome). Both log with slog (text) to stderr. With --shard-key
// ranged over several shards, bootstrap takes the Load phase's -P and -p
// (the controller passes those of ycsb.LoadKeyProperties, from the Load
// phase Job's own command line), derives the keys that phase will insert
// (ycsb.LoadKeys) and the n-1 keys at their quantiles in MongoDB's order
// (ycsb.KeySet.SplitPoints), within --timeout, before it sends anything:
// the collection is split there and range i moved to shard i, so each
// shard owns its share of the loaded records to within one. The split
// points and each shard's range are in the report and in the log, with
// each range's number of loaded records.
//
// # Exit codes and failures
//
//	0        done (the phase completed, or ran for maxexecutiontime), results written
//	1        failure: cannot connect (the message names the hosts, the wait and what set it:
//	         mongodb.operationtimeout or serverSelectionTimeoutMS), a result not written, a load that left records out
//	         (a thread stopped after a failed insert, or buffered inserts lost; YCSB exits 0),
//	         bootstrap or collMod failed
//	2        usage: bad flags, properties (a malformed mongodb.url too), topology, found before any work
//	128+n    stopped by signal n (143 SIGTERM, 130 SIGINT), after reporting the partial result
//
// Failed operations of a run phase are measurements (in the report and the
// result), not failures of the command. A fatal error is printed to stderr
// and written to the termination log, at most 4 KiB (the middle of a longer
// message is cut out), where Kubernetes finds the container's termination
// message.
//
// The first SIGTERM or SIGINT stops the run between operations: operations
// in flight and the final flush get StopGrace (5 s), then the report and
// the partial result (StopReason Cancelled) are written (the ConfigMap
// write has 20 s of its own), within Kubernetes' default 30 s termination
// grace period. A second signal kills the process.
//
// The process writes no files but the termination log and a --result file
// (or exportfile): it runs on a read-only root filesystem. Its memory does
// not grow with the number of operations: the latency histograms are per
// thread and operation kind (about 190 KB each: 1 µs to 1 h at 3 digits,
// the result format's), the time series is capped at 120 points, and the
// binding's buffers are one record (or one batch) per thread. The binary
// runs the GC at GOGC=400 unless GOGC is set (see gc.go).
package loader
