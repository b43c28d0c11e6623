package contract

// Live metrics: what the loaders serve on /metrics while they run, and what
// reads it (the chart's PodMonitor and dashboard, `kubectl mongobench top`).
// Names follow Prometheus' conventions: base units (seconds, bytes), ratios
// from 0 to 1, counters ending in _total. Every label set is bounded: no
// keys, no host:port pairs, no error texts.

// The loader's metrics endpoint.
const (
	// MetricsPortName is the name of the loader container's port that
	// serves /metrics (the PodMonitor and `top` select it by name).
	MetricsPortName = "metrics"
	// MetricsPort is that port's number in loader pods.
	MetricsPort = 9400
	// MetricsPath is the path of the Prometheus exposition.
	MetricsPath = "/metrics"
	// FlagMetricsAddr is the loader flag (without its dashes) of the
	// address /metrics is served on, e.g. ":9400"; empty serves nothing.
	FlagMetricsAddr = "metrics-addr"
	// FlagMetricsRun and FlagMetricsPhase are the loader flags of the
	// run's name and the phase's (lower-case) name in the metrics'
	// labels; the namespace label is the pod's (POD_NAMESPACE).
	FlagMetricsRun   = "metrics-run"
	FlagMetricsPhase = "metrics-phase"
)

// Label names of the live metrics.
const (
	// MetricLabelNamespace, MetricLabelRun, MetricLabelPhase and
	// MetricLabelLoader identify a loader: the run's namespace and name,
	// the phase (its lower-case name, as the phase label of its Job) and
	// the loader's index ("0", "1", ...). Every loader metric carries
	// them.
	MetricLabelNamespace = "namespace"
	MetricLabelRun       = "run"
	MetricLabelPhase     = "phase"
	MetricLabelLoader    = "loader"
	// MetricLabelOperation is a YCSB operation as YCSB and the run's
	// status name it: READ, UPDATE, INSERT, SCAN, READ-MODIFY-WRITE,
	// DELETE.
	MetricLabelOperation = "operation"
	// MetricLabelResult is ResultOK or ResultError: whether the operation
	// succeeded (YCSB's OK and BATCHED_OK) or not (the "<OP>-FAILED"
	// measurements).
	MetricLabelResult = "result"
	// MetricLabelProcess names a sampled MongoDB process: its pod's name,
	// or for an External run the host name without its port.
	MetricLabelProcess = "process"
	// MetricLabelType is an opcounters type (insert, query, update,
	// delete, getmore, command).
	MetricLabelType = "type"
	// MetricLabelDirection is "in" or "out" (network bytes).
	MetricLabelDirection = "direction"
	// MetricLabelKind is "read" or "write" (execution tickets) or
	// "readers" / "writers" (the global lock's queue).
	MetricLabelKind = "kind"

	// ResultOK and ResultError are the values of MetricLabelResult.
	ResultOK    = "ok"
	ResultError = "error"
)

// What every loader exports. All carry MetricLabelNamespace, Run, Phase and
// Loader.
const (
	// MetricLoaderOperations counts operations issued, warm-up included,
	// by operation and result (counter).
	MetricLoaderOperations = "mongobench_loader_operations_total"
	// MetricLoaderLatency is each operation's latency (service time), by
	// operation and result: a native histogram with classic buckets as a
	// fallback (histogram, seconds).
	MetricLoaderLatency = "mongobench_loader_operation_latency_seconds"
	// MetricLoaderIntendedLatency is the latency from the moment the
	// throttle meant the operation to start (measurement.interval intended
	// or both), by operation and result; absent otherwise (histogram,
	// seconds).
	MetricLoaderIntendedLatency = "mongobench_loader_operation_intended_latency_seconds"
	// MetricLoaderTarget is the loader's target rate (YCSB's target
	// divided among loaders); 0 when it is not throttled (gauge).
	MetricLoaderTarget = "mongobench_loader_target_operations_per_second"
	// MetricLoaderThreads is the number of client threads (gauge).
	MetricLoaderThreads = "mongobench_loader_threads"
	// MetricLoaderMeasuring is 0 during the warm-up, 1 once operations are
	// measured (gauge).
	MetricLoaderMeasuring = "mongobench_loader_measuring"
	// MetricLoaderFinished is 1 once the loader's operations are done; it
	// then serves its final values until its pod exits (gauge).
	MetricLoaderFinished = "mongobench_loader_finished"
	// MetricLoaderPlannedOperations is the operations this loader is to
	// issue after its warm-up (its share of operationcount or
	// insertcount); 0 when the phase is bounded by time only (gauge).
	MetricLoaderPlannedOperations = "mongobench_loader_planned_operations"
	// MetricLoaderMaxExecution is maxexecutiontime in seconds, 0 when
	// unbounded (gauge).
	MetricLoaderMaxExecution = "mongobench_loader_max_execution_seconds"
	// MetricLoaderStartTime is when the measured part of the phase started
	// (after the start barrier and warm-up), in seconds since the Unix
	// epoch; absent before (gauge).
	MetricLoaderStartTime = "mongobench_loader_start_time_seconds"
	// MetricLoaderObservedAt is when the loader's counters and
	// histograms last moved: the engine hands them its measurements once
	// a second, so a rate over two scrapes is exact over the difference of
	// this, not of the scrapes' own times (Unix time, gauge; absent
	// before the first).
	MetricLoaderObservedAt = "mongobench_loader_last_observation_timestamp_seconds"
	// MetricLoaderLostInserts counts inserts the loader gave up on
	// (counter).
	MetricLoaderLostInserts = "mongobench_loader_lost_inserts_total"
)

// What loader 0 exports of the server telemetry it samples, with
// MetricLabelProcess beside the loader's labels; each is the latest sample.
const (
	// MetricServerOperations is serverStatus.opcounters by MetricLabelType
	// (counter).
	MetricServerOperations = "mongobench_server_operations_total"
	// MetricServerConnections is connections.current (gauge).
	MetricServerConnections = "mongobench_server_connections"
	// MetricServerConnectionsAvailable is connections.available (gauge).
	MetricServerConnectionsAvailable = "mongobench_server_connections_available"
	// MetricServerCacheUsed and MetricServerCacheDirty are the WiredTiger
	// cache's bytes in use and dirty bytes over its configured maximum
	// (gauges, 0 to 1).
	MetricServerCacheUsed  = "mongobench_server_cache_used_ratio"
	MetricServerCacheDirty = "mongobench_server_cache_dirty_ratio"
	// MetricServerTicketsOut and MetricServerTicketsAvailable are the
	// execution tickets in use and free by MetricLabelKind read/write
	// (gauges).
	MetricServerTicketsOut       = "mongobench_server_tickets_out"
	MetricServerTicketsAvailable = "mongobench_server_tickets_available"
	// MetricServerQueued is globalLock.currentQueue by MetricLabelKind
	// readers/writers (gauge).
	MetricServerQueued = "mongobench_server_queued_operations"
	// MetricServerNetwork is network.bytesIn/bytesOut by
	// MetricLabelDirection (counter).
	MetricServerNetwork = "mongobench_server_network_bytes_total"
	// MetricServerResident is mem.resident (gauge, bytes).
	MetricServerResident = "mongobench_server_resident_memory_bytes"
)

// What the manager exports (its own /metrics, from its cache at scrape
// time, for the runs and sweeps that exist). Run metrics carry
// MetricLabelNamespace and MetricLabelRun; phase ones MetricLabelPhase too.
const (
	// MetricRuns counts BenchmarkRuns by lifecycle phase (status.phase:
	// Pending, ..., Failed) in its label "phase" (gauge).
	MetricRuns = "mongobench_benchmarkruns"
	// MetricRunComparisonChange is a gated run's change of a compared
	// metric against its baseline, in percent, by "metric" and "verdict";
	// it and MetricRunRegressed carry MetricLabelNamespace and
	// MetricLabelRun (gauge).
	MetricRunComparisonChange = "mongobench_benchmarkrun_comparison_change_percent"
	// MetricRunRegressed is 1 when a run's Regressed condition is True, 0
	// when False (gauge).
	MetricRunRegressed = "mongobench_benchmarkrun_regressed"
	// MetricRunPhasePlanned is the current Load or Run phase's planned
	// operations over all its loaders (the records to load, or
	// operationcount plus a counted warm-up, as the loaders count
	// theirs in MetricLoaderPlannedOperations), 0
	// when bounded by time only; absent for a Grow phase (gauge). The
	// operations done are the loaders' own counter:
	// sum by (namespace, run, phase) (MetricLoaderOperations).
	MetricRunPhasePlanned = "mongobench_benchmarkrun_phase_planned_operations"
	// MetricRunPhaseElapsed is how long the current phase's loaders have
	// run, warm-up included: since the start barrier's instant when the
	// loaders start together, else since the phase's Job started; 0
	// before (gauge, seconds).
	MetricRunPhaseElapsed = "mongobench_benchmarkrun_phase_elapsed_seconds"
	// MetricRunPhaseMaxExecution is the current phase's maxexecutiontime,
	// 0 when unbounded (gauge, seconds).
	MetricRunPhaseMaxExecution = "mongobench_benchmarkrun_phase_max_execution_seconds"
	// MetricRunPhaseThroughput is a finished phase's throughput by
	// MetricLabelOperation, and over all operations with operation
	// "OVERALL" (gauge).
	MetricRunPhaseThroughput = "mongobench_benchmarkrun_phase_throughput_operations_per_second"
	// MetricRunPhaseP99 is a finished phase's 99th percentile latency by
	// MetricLabelOperation, and of all its database calls with operation
	// "OVERALL" (gauge, seconds).
	MetricRunPhaseP99 = "mongobench_benchmarkrun_phase_p99_latency_seconds"
	// OperationOverall is the MetricLabelOperation value of a
	// phase's figures over all its operations (YCSB's [OVERALL]).
	OperationOverall = "OVERALL"
	// MetricSweepCells and MetricSweepCellsDone are a sweep's cells (the
	// combinations of its axes' values, status.cellsTotal) and those whose
	// runs, every repetition, have ended (status.cellsDone); they carry
	// MetricLabelNamespace and MetricLabelSweep (gauges).
	MetricSweepCells     = "mongobench_benchmarksweep_cells"
	MetricSweepCellsDone = "mongobench_benchmarksweep_cells_done"
	// MetricLabelSweep names a sweep.
	MetricLabelSweep = "sweep"
)

// What a Grow phase's loader exports of its latest checkpoint, beside the
// loader's labels (it has no YCSB operations: MetricLoaderOperations and
// the latency histograms are absent).
const (
	// MetricGrowCheckpoints is the checkpoints taken so far (gauge), and
	// MetricGrowPlannedCheckpoints how many the phase takes (gauge).
	MetricGrowCheckpoints        = "mongobench_grow_checkpoints"
	MetricGrowPlannedCheckpoints = "mongobench_grow_planned_checkpoints"
	// MetricGrowRecords is the records in the collection at the latest
	// checkpoint (gauge).
	MetricGrowRecords = "mongobench_grow_records"
	// MetricGrowInsertRate is the insert rate of the latest checkpoint's
	// span (gauge, records per second).
	MetricGrowInsertRate = "mongobench_grow_insert_records_per_second"
	// MetricGrowInsertP99 is that span's insert p99 (gauge, seconds).
	MetricGrowInsertP99 = "mongobench_grow_insert_p99_latency_seconds"
	// MetricGrowQueryP99 is each query's p99 at the latest checkpoint by
	// MetricLabelQuery (gauge, seconds).
	MetricGrowQueryP99 = "mongobench_grow_query_p99_latency_seconds"
	// MetricGrowCollectionBytes is the collection's size at the latest
	// checkpoint by MetricLabelKind: data (size), storage (storageSize),
	// index (totalIndexSize) (gauge, bytes).
	MetricGrowCollectionBytes = "mongobench_grow_collection_bytes"
	// MetricLabelQuery names a Grow phase's query (spec.growth.queries[]).
	MetricLabelQuery = "query"
)
