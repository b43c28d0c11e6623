// Package ycsb is a Go port of YCSB 0.17.0's CoreWorkload, its generators,
// its client (threads, throttling, status line) and its measurements and
// text report. It knows nothing about Kubernetes or MongoDB: a binding
// implements DB (db.go) and the loader wires the two together:
//
//	p, _ := ycsb.LoadProperties([]string{"workloada"}, []string{"recordcount=5000"})
//	w, _ := ycsb.NewWorkload(p)
//	opts, _ := ycsb.RunOptionsFromProperties(p, ycsb.PhaseRun, os.Stderr)
//	res, _ := ycsb.Run(ctx, w, newDB, opts)
//	pct, _ := ycsb.PercentilesFromProperties(p)
//	_ = ycsb.WriteText(os.Stdout, res, pct)
//	shared := res.ToResult(hostname) // results.Result for the controller
//
// Layout:
//
//   - props.go, resolve.go: Java .properties files, layering, workload lookup
//     (paths or the embedded workloads A-F and S1-S5).
//   - known.go: the registry of the properties the engine reads (name,
//     default, meaning), KnownProperties; known_test.go proves that it and
//     the code agree (Properties.RecordReads).
//   - rand.go, keys.go, values.go: per-worker RNG, key names, field values.
//   - generator.go, acknowledged.go, zipfian.go, discrete.go: generators.
//     Shared state (counters, Zipfian's zeta) lives in the generator; the
//     randomness comes from the worker's *Rand passed to Next, so workers
//     never contend on a lock or on a shared RNG.
//   - workload.go, keyspace.go, threadstate.go, transactions.go: CoreWorkload,
//     including parallel loaders (loader.index / loader.count).
//   - measure.go, collect.go, status.go: per-worker recording without shared
//     locks, a once-per-second collector, YCSB's status line.
//   - client.go: YCSB's Client/ClientThread.
//   - text.go, javafmt.go, mathx.go: YCSB's text exporter (a TextSummary
//     of the numbers printed by WriteTextSummary, so results stored
//     elsewhere print the same text), Java number formatting and
//     Java-exact constants.
//   - memdb: an in-memory DB for tests.
//
// # Deviations from YCSB 0.17.0
//
// Behaviour matches 0.17.0 unless listed here; each item is also commented
// where it is implemented.
//
//   - Parallel loaders (new): with loader.count = n the load splits
//     [insertstart, insertstart+insertcount) into n contiguous shares and
//     operationcount into n shares; run-phase inserts of loader i use keys
//     recordcount+i+j·n so loaders never insert the same key (YCSB #1139).
//     With n = 1 everything is as in YCSB.
//   - READ-MODIFY-WRITE: 0.17.0 records every RMW latency as a success and
//     reports no status; here its status is the read's if that failed, else
//     the update's, and failures go to READ-MODIFY-WRITE-FAILED. VERIFY
//     failures likewise go to VERIFY-FAILED. (Every "<OP>" histogram then
//     holds exactly the successful operations, which results.Result checks.)
//   - CLEANUP gets status OK, or ERROR (CLEANUP-FAILED) if DB.Cleanup
//     returns an error; its Return lines are not printed, as in YCSB. The
//     final flush of buffered inserts is ours (YCSB drops the partial
//     batch); inserts lost in it are reported (FailedBufferedInserts).
//   - Client: DBs are opened before the clock starts; the throttle divides
//     target by the actual (clamped) thread count; a stop (max execution
//     time, cancellation) gives in-flight operations, and the final flush
//     (Cleanup), StopGrace before their context is cancelled instead of
//     waiting forever; cancellation returns partial results (StopReason
//     Cancelled).
//   - AcknowledgedCounter: lock-free slots instead of a racy boolean window;
//     a value more than 2^20 ahead waits instead of throwing.
//   - Properties: booleans must be true/false (Java turns typos into false);
//     numbers may carry surrounding blanks; all counts are 64-bit; a bad
//     hdrhistogram.percentiles is an error, not a warning; unsupported
//     measurementtype / measurement.interval values are errors; hotspot
//     fractions outside [0, 1] are errors (YCSB warns and uses 0);
//     operationcount defaults to 0 for the zipfian key space (YCSB throws).
//   - Numbers: Double.toString is the shortest round-trip form (JDK 19+);
//     JDK 8-18 sometimes printed a longer or last-digit-different form
//     (e.g. 98911.96834817013 for 1e9/10110, where we print ...012).
//     Uniform draws avoid Math.abs(Long.MIN_VALUE) (probability 2^-64).
//   - Output: no JVM lines (TOTAL_GCS_*, TOTAL_GC_TIME*); measurements are
//     printed in a fixed order (YCSB's is hash-map order).
//   - A failed load insert stops its thread, as in 0.17.0 (master keeps
//     going); RunResult.ThreadsStoppedOnInsertFailure counts such threads.
package ycsb
