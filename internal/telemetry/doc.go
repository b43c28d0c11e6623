// Package telemetry watches the MongoDB processes of a benchmark while it
// runs, as mongostat or FTDC would: serverStatus of every process at a fixed
// interval, and the storage statistics of the benchmark collection.
//
// The pieces, each usable alone:
//
//   - Extract reads a Sample from one serverStatus reply: opcounters,
//     connections (current, available), network bytes, the WiredTiger
//     cache, execution tickets, the global lock queue, resident memory and
//     a replica set member's view of its primary (repl, the hello reply:
//     isWritablePrimary, primary, electionId). Field paths are mapped by
//     server version (tickets: wiredTiger.concurrentTransactions through
//     7.0, queues.execution from 8.0 on, each falling back to the other;
//     the pages evicted by application threads from WiredTiger's "pages
//     evicted by application threads" through 8.0, else its "page evict
//     attempts" minus "page evict failures" of 8.1 on, the source being
//     recorded), and a field that is missing or not a number is recorded
//     as absent, never as 0 and never as an error.
//   - Diff turns two consecutive samples into counter deltas; a process
//     restart (uptime going down) or a counter that goes down never yields
//     a negative or inflated rate (see Diff for the rules).
//   - SeriesBuilder keeps a process's samples as a Series of at most
//     results.MaxSeriesPoints points, doubling the interval as the client
//     series does: counter totals stay exact, rates are time-weighted,
//     gauges keep their mean, minimum and maximum; it counts restarts and
//     the changes of primary a member saw (an election, a step-down).
//   - Summarize condenses a Series into the few numbers of a phase's status.
//   - CollStats reads count, size, storageSize and index sizes of a
//     collection, with the split by shard through mongos.
//   - Start / Run sample a list of processes until the phase ends. The
//     Sampler never takes the benchmark down: failures are counted and
//     sampling goes on.
//   - EncodePayload / DecodePayload carry a Payload as gzip(JSON) within a
//     byte limit (the loader's result ConfigMap, contract.TelemetryKey):
//     the collection's growth is dropped first, then every series halved.
//
// Cost, on the loader's CPU (bench_test.go): one sample of a process is one
// serverStatus round trip (sections metrics and locks excluded), about
// 60-100 µs of client CPU in the driver, plus its extraction and
// bookkeeping, about 37 µs for a 55 KB reply. Ten processes sampled once a
// second cost about 1.3 ms of CPU a second: 0.13% of one core.
//
// The package imports the MongoDB driver and internal/results, and nothing
// of Kubernetes: the loader runs it and carries its Payload to the manager.
package telemetry
