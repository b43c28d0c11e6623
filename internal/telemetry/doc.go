// Package telemetry watches the MongoDB processes of a benchmark while it
// runs, as mongostat or FTDC would: serverStatus of every process at a fixed
// interval, and the storage statistics of the benchmark collection.
//
//   - Extract reads a Sample from one serverStatus reply: opcounters,
//     connections, network bytes, the WiredTiger cache, execution tickets,
//     the global lock queue and resident memory. Field paths are mapped by
//     server version (tickets: wiredTiger.concurrentTransactions through
//     7.0, queues.execution from 8.0 on, each falling back to the other),
//     and a field that is missing or not a number is recorded as absent,
//     never as 0 and never as an error.
//   - Diff turns two consecutive samples into counter deltas; a process
//     restart (uptime going down) or a counter that goes down never yields
//     a negative or inflated rate (see Diff for the rules).
//   - SeriesBuilder keeps a process's samples as a Series of at most
//     results.MaxSeriesPoints points, doubling the interval as the client
//     series does: counter totals stay exact, rates are time-weighted,
//     gauges keep their mean, minimum and maximum.
//   - Summarize condenses a Series into the few numbers of a phase's status.
//   - CollStats reads count, size, storageSize and index sizes of a
//     collection, with the split by shard through mongos.
//
// The package imports the MongoDB driver and internal/results, and nothing
// of Kubernetes.
package telemetry
