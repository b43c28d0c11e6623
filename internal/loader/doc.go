// Package loader is the `loader` command (cmd/loader) that the operator's
// Jobs run: YCSB workloads against MongoDB through the internal/ycsb engine
// and the MongoDB binding (internal/loader/mongodb, YCSB's MongoDbClient),
// the in-cluster administration of the benchmark's topology
// (internal/mongoadmin), and their results.
//
// # Layout
//
//   - properties.go: the registry of the properties the command and the
//     binding read (KnownProperties: the engine's, the command's and
//     mongodb.KnownProperties), the unknown-property warnings and the
//     property table of -h.
//   - gc.go: the binary's GC pacing (GOGC=400 of the heap that holds
//     pointers, unless GOGC is set).
//   - cli.go, phase.go, grow.go, admin.go, credentials.go, resultsink.go, freeze.go: the command. Parse reads
//     and checks a command line without doing any work (the Job contract
//     test in internal/contract runs the Jobs' arguments through it); Main
//     parses, then runs.
//   - mongodb: the binding (connection, operations, mongodb.url and its
//     properties).
//   - k8sresult: the result ConfigMap writer (net/http, no client-go).
//
// # Properties
//
// `loader load|run -h` lists every property the loader reads or accepts,
// with its default and meaning, from one registry: KnownProperties, the
// engine's (ycsb.KnownProperties), this package's (properties.go) and the
// binding's (mongodb.KnownProperties). Tests tie the registry to the code
// (every key the code looks up is registered, every registered key is
// looked up or marked ignored) and to its users (the embedded workloads and
// every key the operator's Jobs pass are known). The binding's properties
// (mongodb.url, mongodb.writeConcern, ...) are described in
// internal/loader/mongodb.
//
// # The command
//
//	loader load|run [mongodb] [-P file|name ...] [-p name=value ...] [-threads N] [-target N] [-s] [-l label]
//	                [--result FILE|-] [--result-configmap NAME --result-owner APIVERSION,KIND,NAME,UID --result-labels k=v,...]
//	                [--telemetry-process ROLE,POD,HOST:PORT ... [--telemetry-interval 1s]
//	                 [--telemetry-collection HOST:PORT,DB,COLL [--telemetry-collection-every 10s]] [--telemetry-result FILE]]
//	loader grow [mongodb] [-P file ...] [-p name=value ...] [--result FILE|-] [--result-configmap NAME ...] [--telemetry-process ...]
//	loader bootstrap --mode sharded --config-server NAME=HOST:PORT --shard NAME=HOST:PORT [--shard ...] --mongos HOST:PORT
//	                 [--shard-key hashed | --shard-key ranged [-P file|name ...] [-p name=value ...]]
//	                 [--namespace db.coll] [--timeout 5m] [--result-configmap ...]
//	loader bootstrap --mode standalone --standalone HOST:PORT [--namespace db.coll] [--timeout 5m] [--result-configmap ...]
//	loader bootstrap ... --keyfile PATH   (with the users of the environment, below)
//	loader collmod --uri URI --validator JSON [--validation-level L] [--validation-action A] [--namespace db.coll] [--timeout 2m]
//	loader dropdatabase --namespace db.coll --owner NAMESPACE/NAME/UID
//	loader freeze [--process mongod] --for 15s
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
// Server telemetry (internal/telemetry): with --telemetry-process, loader
// 0 (and no other) samples serverStatus of each process given, every
// --telemetry-interval, from just before the workload starts to just after
// it ends (outside the measured runtime), each process through a client of
// its own connected to it alone (directConnection=true, 3 s timeouts);
// with --telemetry-collection also the collection's storage statistics at
// the end, and every --telemetry-collection-every during the phase. The
// report, gzip(JSON(telemetry.Payload)) of at most
// contract.MaxTelemetryBytes (telemetry.EncodePayload drops the collection's
// growth, then halves the series, to fit), goes beside the result in
// binaryData[telemetry.json.gz] (contract.TelemetryKey) of the result
// ConfigMap, and to --telemetry-result FILE (the --result FILE|- modes'
// companion: stdout carries only the result). Telemetry never fails a
// phase: failed samples are counted in the report and logged as warnings,
// and a report that cannot be encoded is left out with a warning.
//
// grow runs a Grow phase (internal/growth: the data-growth study's
// workload) with the same connection (mongodb.url and the binding's
// options; table names the collection, default usertable), result
// destinations and telemetry as load and run; its properties are the
// growth.* ones (internal/contract names them, growth.KnownProperties
// documents each default; `loader grow -h` lists them). A Grow phase has
// one loader (loader.count 1). stdout gets a line per checkpoint as it is
// taken ("[CHECKPOINT], i/n, records=... insert.rec/s=... Q1.ops/s=...",
// with earlier=true for the rows of a loader that ran before), then the
// phase's totals, all in YCSB's "[NAME], metric, value" form; the result is a KindGrow results.Result. The
// phase keeps its state in <table>_growth, so a loader that replaces a
// stopped one (the Job's next pod, with the same arguments) resumes it
// where it stopped and reports every checkpoint. Stopped by SIGTERM, a
// grow loader writes its partial result to --result but not to the result
// ConfigMap, which it leaves to the loader that resumes the phase (the
// ConfigMap is immutable and the Job may only create it); a failed phase
// (an insert or the state could not be written: exit 1) writes it.
//
// freeze (freeze.go) is the process side of the Pause disruption, run by
// the controller in an ephemeral container of a mongod's pod (shared
// process namespace, the mongod's uid): it finds the one process whose
// /proc/PID/comm is --process (its first 15 bytes, all comm keeps), sends
// it SIGSTOP, waits until every thread of it is seen stopped (state T),
// keeps it so for --for (at most 10m), then sends SIGCONT and waits until
// none is. Once SIGSTOP was sent, SIGCONT is sent on every way out: the
// hold ended, SIGTERM (cut short, exit 128+n), a failure. Its report
// (contract.FreezeReport: pid, when SIGSTOP was sent and the stop seen,
// when SIGCONT was sent and the process seen running, the error) goes to
// stdout and, on success and failure alike, is the termination message,
// where the controller reads it.
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
// # Credentials
//
// Against a topology with access control (security.auth), credentials
// come from the environment (credentials.go; the names are
// internal/contract's), never from a flag or a connection string, and are
// applied to the driver's options (SetAuth): MONGOBENCH_USERNAME and
// MONGOBENCH_PASSWORD, the admin user (root), for load, run, grow and
// collmod; MONGOBENCH_MONITOR_USERNAME and MONGOBENCH_MONITOR_PASSWORD,
// the telemetry user (clusterMonitor), for telemetry; both pairs, for
// bootstrap --keyfile, are the users it creates (mongoadmin.Users) once
// it has authenticated as the cluster (__system, the keyfile's key,
// SCRAM-SHA-256). Half a pair is a usage error, and so are --keyfile and
// the pairs without each other. The binding checks access once it has
// connected (mongodb.Client.checkAccess): no credentials against a server
// that requires them is one clear failure, not an error per operation.
// No password or key is printed, logged, or written to a result.
//
// # Exit codes and failures
//
// 0 done, 1 failure, 2 usage, 128+n stopped by signal n: exit.go lists
// what each covers.
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
// binding's buffers are one record (or one batch) per thread. Unless GOGC
// is set, the binary paces its GC at 400% of the heap that holds pointers,
// so that the histograms do not make the heap between collections larger
// than the garbage needs (see gc.go).
package loader
