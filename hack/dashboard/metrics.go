package main

// The names the dashboard queries, as internal/contract/metrics.go defines
// them (see doc.go for why they are spelt here, and how a test ties them to
// the contract).

// Metric families.
const (
	loaderOperations  = "mongobench_loader_operations_total"
	loaderLatency     = "mongobench_loader_operation_latency_seconds"
	loaderTarget      = "mongobench_loader_target_operations_per_second"
	loaderThreads     = "mongobench_loader_threads"
	loaderMeasuring   = "mongobench_loader_measuring"
	loaderFinished    = "mongobench_loader_finished"
	loaderLostInserts = "mongobench_loader_lost_inserts_total"

	serverOperations  = "mongobench_server_operations_total"
	serverConnections = "mongobench_server_connections"
	serverCacheUsed   = "mongobench_server_cache_used_ratio"
	serverCacheDirty  = "mongobench_server_cache_dirty_ratio"
	serverTicketsOut  = "mongobench_server_tickets_out"
	serverQueued      = "mongobench_server_queued_operations"
	serverNetwork     = "mongobench_server_network_bytes_total"
)

// Label names and values.
const (
	labelNamespace = "namespace"
	labelRun       = "run"
	labelPhase     = "phase"
	labelOperation = "operation"
	labelResult    = "result"
	labelProcess   = "process"
	labelType      = "type"
	labelDirection = "direction"
	labelKind      = "kind"

	resultOK    = "ok"
	resultError = "error"
)
