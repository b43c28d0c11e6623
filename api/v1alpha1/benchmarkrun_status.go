package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RunLifecycle is where a run is in its lifecycle, the value of
// status.phase: Pending → Provisioning → Loading → Running → Succeeded |
// Failed, only forward. It is not one of the benchmark phases of
// spec.phases (PhaseSpec); the one running is status.currentPhase.
// +kubebuilder:validation:Enum=Pending;Provisioning;Loading;Running;Succeeded;Failed
// +kubebuilder:validation:MaxLength=12
type RunLifecycle string

// The states of a run's lifecycle (status.phase).
const (
	// RunPending: accepted; waiting for the scheduler to place the first
	// database pod (with placement.exclusive, for a node free of other
	// benchmarks).
	RunPending RunLifecycle = "Pending"
	// RunProvisioning: database pods are starting and being bootstrapped.
	RunProvisioning RunLifecycle = "Provisioning"
	// RunLoading: the Load phase is running.
	RunLoading RunLifecycle = "Loading"
	// RunRunning: Run phases are executing.
	RunRunning RunLifecycle = "Running"
	// RunSucceeded: every phase finished and its results are in status.
	RunSucceeded RunLifecycle = "Succeeded"
	// RunFailed: the run stopped; the Failed condition says why.
	RunFailed RunLifecycle = "Failed"
)

// BenchmarkRunStatus is the observed state of a run and its results.
type BenchmarkRunStatus struct {
	// Phase is where the run is in its lifecycle, a summary for people;
	// use conditions in tools. The benchmark phase of spec.phases that
	// runs is currentPhase.
	// +optional
	Phase RunLifecycle `json:"phase,omitempty"`

	// Conditions: TopologyReady, Complete, Failed, Warnings, Valid (once
	// the run ended), ValidatorApplied (with spec.collection) and
	// Regressed (with spec.compare).
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ObservedGeneration is the generation last reconciled.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// NodeName is the node every database pod runs on (layout SameNode).
	// +optional
	NodeName string `json:"nodeName,omitempty"`

	// Nodes lists every node the run's database pods use, by role, sorted
	// by role then node: one entry per role and node.
	// +listType=atomic
	// +optional
	Nodes []RoleNode `json:"nodes,omitempty"`

	// StartTime is when the controller started working on the run.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`

	// CompletionTime is when the run succeeded or failed.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`

	// CurrentPhase names the benchmark phase (spec.phases[].name) being executed.
	// +optional
	CurrentPhase string `json:"currentPhase,omitempty"`

	// Topology describes the MongoDB processes of the run.
	// +optional
	Topology *TopologyStatus `json:"topology,omitempty"`

	// Results has one entry per finished phase, in execution order.
	// +listType=map
	// +listMapKey=name
	// +optional
	Results []PhaseResult `json:"results,omitempty"`

	// Summary repeats the headline numbers of the last finished Run phase
	// for `kubectl get`.
	// +optional
	Summary *RunSummary `json:"summary,omitempty"`

	// Diagnostics names the ConfigMap that keeps the run's evidence once it
	// ended, whatever the cleanup policy: for a failed run, the last log
	// lines and termination state of every container that failed or
	// restarted; for a successful run, each phase's YCSB text report. It is
	// owned by the run and deleted with it.
	// +optional
	Diagnostics string `json:"diagnostics,omitempty"`

	// Environment records what the numbers came from, and the fingerprint
	// that tells comparable runs apart.
	// +optional
	Environment *EnvironmentStatus `json:"environment,omitempty"`

	// Comparison holds spec.compare's verdict of each metric, once the
	// run succeeded.
	// +optional
	Comparison []MetricComparison `json:"comparison,omitempty"`
}

// RoleNode is a node that database pods of one role run on.
type RoleNode struct {
	// Role is standalone, configsvr, shard or mongos.
	Role ProcessRole `json:"role"`
	// Node is the node's name.
	Node string `json:"node"`
}

// TopologyStatus lists the run's MongoDB processes.
type TopologyStatus struct {
	// EntryPoint is the host:port the loaders connect to (mongos or the
	// standalone mongod).
	// +optional
	EntryPoint string `json:"entryPoint,omitempty"`

	// ServerVersion reported by the entry point after bootstrap.
	// +optional
	ServerVersion string `json:"serverVersion,omitempty"`

	// Processes of the topology.
	// +listType=map
	// +listMapKey=pod
	// +optional
	Processes []ProcessStatus `json:"processes,omitempty"`

	// Chunks of the benchmark collection per shard (Sharded only).
	// +listType=map
	// +listMapKey=shard
	// +optional
	Chunks []ShardChunks `json:"chunks,omitempty"`
}

// ProcessRole is the job of a MongoDB process in the topology.
type ProcessRole string

// Process roles.
const (
	RoleStandalone   ProcessRole = "standalone"
	RoleConfigServer ProcessRole = "configsvr"
	RoleShard        ProcessRole = "shard"
	RoleMongos       ProcessRole = "mongos"
	// RoleMember is a member of the ReplicaSet topology's replica set.
	RoleMember ProcessRole = "member"
)

// ProcessStatus is one MongoDB process.
type ProcessStatus struct {
	// Role is standalone, configsvr, shard, mongos or member.
	Role ProcessRole `json:"role"`
	// Pod running the process; for an External run, which has no pod of
	// its own, the member's host:port (the list's key).
	Pod string `json:"pod"`
	// Address is the stable host:port of the process.
	Address string `json:"address"`
	// Ready is the pod's readiness.
	Ready bool `json:"ready"`
	// Restarts of the mongo container.
	// +optional
	Restarts int32 `json:"restarts,omitempty"`
	// ReplicaSet is the replica set the process is a member of (config
	// server, shards, and the members of a ReplicaSet topology).
	// +optional
	ReplicaSet string `json:"replicaSet,omitempty"`
	// State is the member's replica-set state (replSetGetStatus's
	// stateStr: PRIMARY, SECONDARY) as the bootstrap left it, for the
	// members of a ReplicaSet topology.
	// +kubebuilder:validation:MaxLength=16
	// +optional
	State string `json:"state,omitempty"`
}

// ShardChunks counts the chunks of the benchmark collection on one shard.
type ShardChunks struct {
	Shard  string `json:"shard"`
	Chunks int32  `json:"chunks"`
}

// PhaseResult holds the merged measurements of one phase over all its
// loaders. Latencies are in microseconds, computed from the exactly merged
// HdrHistograms of every loader (never averaged percentiles).
type PhaseResult struct {
	// Name of the phase (spec.phases[].name).
	Name string `json:"name"`
	// Type of the phase.
	Type PhaseType `json:"type"`
	// Loaders that ran the phase.
	Loaders int32 `json:"loaders"`
	// Threads across all loaders.
	Threads int32 `json:"threads"`
	// StartTime and CompletionTime of the measured interval (first loader
	// start to last loader end).
	StartTime      metav1.Time `json:"startTime"`
	CompletionTime metav1.Time `json:"completionTime"`
	// RuntimeMillis is the phase's wall time in ms (YCSB's RunTime).
	RuntimeMillis int64 `json:"runtimeMillis"`
	// Operations issued, failed ones included (YCSB's opsDone).
	Operations int64 `json:"operations"`
	// Throughput is operations per second of wall time; for a Grow phase,
	// documents inserted per second of insert time (its queries have their
	// own rows in growth).
	Throughput float64 `json:"throughput"`
	// StopReason is Completed, MaxExecutionTime or Cancelled.
	StopReason string `json:"stopReason"`
	// P99Micros is the p99 of all database calls of the phase together;
	// for a Grow phase, of its insert calls.
	P99Micros int64 `json:"p99Micros"`
	// LostInserts counts buffered inserts (batchSize > 1) that the final
	// flush failed to write: the data set lacks them.
	// +optional
	LostInserts int64 `json:"lostInserts,omitempty"`
	// MeasurementInterval is the phase's measurement.interval when it is
	// not op: intended or both.
	// +optional
	MeasurementInterval MeasurementInterval `json:"measurementInterval,omitempty"`
	// IntendedP99Micros is the p99 of all database calls' intended
	// latencies (measurement.interval intended or both): from the moment
	// the target's schedule meant each to start to its end.
	// +optional
	IntendedP99Micros *int64 `json:"intendedP99Micros,omitempty"`
	// StartSkewMillis is how far apart the loaders' measured windows
	// started (the last start minus the first); with a start barrier, a
	// few milliseconds. Absent with one loader.
	// +optional
	StartSkewMillis *int64 `json:"startSkewMillis,omitempty"`
	// Warmup is what the phase's warm-up measured, apart from the numbers
	// above.
	// +optional
	Warmup *WarmupResult `json:"warmup,omitempty"`
	// LoaderStats are each loader's own figures: the connections it
	// opened before its clock started and how long that took, and its
	// CPU use over the measured window against what it may use.
	// +listType=map
	// +listMapKey=index
	// +optional
	LoaderStats []LoaderResult `json:"loaderStats,omitempty"`
	// Operations by type (READ, UPDATE, INSERT, SCAN, READ-MODIFY-WRITE, ...).
	// +listType=map
	// +listMapKey=name
	// +optional
	OperationStats []OperationResult `json:"operationStats,omitempty"`
	// TimeSeries for plots, at most 120 points.
	// +optional
	TimeSeries *TimeSeries `json:"timeSeries,omitempty"`
	// Server summarises what serverStatus showed of each MongoDB process
	// during the phase, sampled in the cluster by loader 0 of the phase.
	// Absent when telemetry was disabled or its report was unusable (a
	// Warning event then says why; the phase's results stand).
	// +listType=map
	// +listMapKey=pod
	// +optional
	Server []ServerSummary `json:"server,omitempty"`
	// MaxReplicationLagMillis is the largest server[].maxReplicationLagMillis
	// of the phase: how far, at most, a SECONDARY of any replica set was
	// behind its primary while the phase was sampled, in ms. Absent
	// without replica sets of several members (or telemetry).
	// +optional
	MaxReplicationLagMillis *int64 `json:"maxReplicationLagMillis,omitempty"`
	// Growth holds a Grow phase's checkpoints: records, insert rate,
	// query throughput and latency per class, and the collection's sizes.
	// +optional
	Growth *GrowthStatus `json:"growth,omitempty"`
	// Collection holds the benchmark collection's storage statistics at
	// the end of the phase. Absent when they could not be taken.
	// +optional
	Collection *CollectionSummary `json:"collection,omitempty"`
	// Telemetry names the ConfigMap holding the phase's full telemetry
	// (every process's series of at most 120 points, and the collection's
	// growth), key telemetry.json.gz, gzip-compressed JSON. It is owned by
	// the run and kept by its cleanup.
	// +optional
	Telemetry string `json:"telemetry,omitempty"`
	// Histograms names the ConfigMap holding the phase's merged result:
	// every operation's latency histograms (successful and failed
	// operations) merged exactly over the loaders, and the series of
	// per-interval histograms, so that the numbers above can be recomputed
	// or merged with other runs'. Key result.json.gz, gzip-compressed JSON
	// in the loaders' result format with HdrHistogram V2 (compressed,
	// base64) histograms; the series has fewer, longer intervals than
	// timeSeries when the whole would exceed 512 KiB. It is owned by the
	// run and kept by its cleanup. Absent when it could not be stored (a
	// HistogramsNotKept Warning event says why).
	// +optional
	Histograms string `json:"histograms,omitempty"`
	// Disruptions are the phase's disruptions (spec.phases[].disruptions)
	// as every loader measured them, by index. Their 100 ms series, from
	// 10 s before each to 30 s after, are in the histograms ConfigMap.
	// +listType=map
	// +listMapKey=index
	// +kubebuilder:validation:MaxItems=10
	// +optional
	Disruptions []DisruptionResult `json:"disruptions,omitempty"`
}

// WarmupResult is a phase's warm-up: what ran before the measured window.
type WarmupResult struct {
	// RuntimeMillis is the warm-up's wall time (first loader start to last
	// measured window start).
	RuntimeMillis int64 `json:"runtimeMillis"`
	// Operations issued in the warm-up, failed ones included.
	Operations int64 `json:"operations"`
	// Throughput is the warm-up's operations per second.
	Throughput float64 `json:"throughput"`
	// P99Micros is the p99 of the warm-up's database calls.
	P99Micros int64 `json:"p99Micros"`
	// OperationStats by operation type, as the phase's.
	// +listType=map
	// +listMapKey=name
	// +optional
	OperationStats []OperationResult `json:"operationStats,omitempty"`
}

// LoaderResult is one loader pod's own figures of a phase.
type LoaderResult struct {
	// Index of the loader (its Job completion index).
	Index int32 `json:"index"`
	// Pod that ran it.
	// +optional
	Pod string `json:"pod,omitempty"`
	// Connections opened to MongoDB before the clock started (one per
	// thread, at most maxPoolSize), and ConnectMillis how long that took.
	// +optional
	Connections int32 `json:"connections,omitempty"`
	// +optional
	ConnectMillis int64 `json:"connectMillis,omitempty"`
	// CPUPercent is the loader's CPU time over its measured window, in %
	// of what it may use (its cgroup's CPU limit, else its node's CPUs).
	// Above 90% the loader, not MongoDB, may have set the pace.
	// +optional
	CPUPercent *float64 `json:"cpuPercent,omitempty"`
	// CPULimit is what the loader may use, in CPUs, and where that comes
	// from: "1.5 (cgroup)" (its CPU limit) or "8 (cpus)" (the CPUs it may
	// run on).
	// +optional
	CPULimit string `json:"cpuLimit,omitempty"`
	// ThrottledPercent is the share of the measured window's CFS periods
	// in which its cgroup's CPU quota throttled it, in % (cpu.stat
	// nr_throttled / nr_periods; absent when the cgroup does not say).
	// +optional
	ThrottledPercent *float64 `json:"throttledPercent,omitempty"`
}

// ServerSummary is one MongoDB process's telemetry over a phase, in the few
// numbers of mongostat's view. A value the process never reported is left
// out, never shown as 0. Rates are total counts over the sampled time;
// percentages are of the WiredTiger cache's configured maximum.
type ServerSummary struct {
	// Role is standalone, configsvr, shard or mongos.
	Role ProcessRole `json:"role"`
	// Pod runs the process.
	Pod string `json:"pod"`
	// Version is the server version the process reported.
	// +optional
	Version string `json:"version,omitempty"`
	// Samples is the number of serverStatus samples taken.
	Samples int32 `json:"samples"`
	// Restarts counts the process restarts seen during the phase (uptime
	// going down).
	// +optional
	Restarts int32 `json:"restarts,omitempty"`
	// SampleErrors counts the samples that failed (timeouts, connection
	// errors).
	// +optional
	SampleErrors int32 `json:"sampleErrors,omitempty"`
	// PrimaryChanges counts the samples in which this replica set member's
	// view of its primary changed: isWritablePrimary flipped, another
	// primary (repl.primary), or another election on the primary
	// (repl.electionId, which holds the term). Changes that come with a
	// restart count as the restart.
	// +optional
	PrimaryChanges int32 `json:"primaryChanges,omitempty"`
	// PlannedPrimaryChanges is how many of primaryChanges a disruption of
	// the phase explains: seen by a member of the replica set a StepDown,
	// KillPrimary or RestartMember was sent to (a pod deletion only once
	// the pod was deleted), from when it was sent (or its instant) to 30 s after
	// its instant plus one telemetry interval (a sample sees a change up
	// to an interval late). They do not make the run invalid; the others
	// do.
	// +optional
	PlannedPrimaryChanges int32 `json:"plannedPrimaryChanges,omitempty"`
	// PlannedRestarts is how many of restarts a disruption of the phase
	// explains: one per pod deletion (KillPrimary, RestartMember) of
	// this process's pod, seen after it was sent (a recreated member
	// comes back after its shutdown, scheduling and start-up, which no
	// fixed window bounds). They do not make the run invalid; the
	// others do.
	// +optional
	PlannedRestarts int32 `json:"plannedRestarts,omitempty"`
	// MaxReplicationLagMillis is, for the primary of a replica set of
	// several members, the most its furthest SECONDARY was behind it in
	// the samples of the phase, in ms: the primary's replSetGetStatus,
	// its lastAppliedWallTime minus the secondary's. Absent for the
	// other processes.
	// +optional
	MaxReplicationLagMillis *int64 `json:"maxReplicationLagMillis,omitempty"`
	// PeakConnections is the highest connections.current.
	// +optional
	PeakConnections *int64 `json:"peakConnections,omitempty"`
	// MeanConnections is the mean of connections.current over the samples.
	// +optional
	MeanConnections *float64 `json:"meanConnections,omitempty"`
	// MinConnectionsAvailable is the lowest connections.available: the
	// incoming connections the process would still accept; 0 means it
	// refused new ones.
	// +optional
	MinConnectionsAvailable *int64 `json:"minConnectionsAvailable,omitempty"`
	// OpsPerSecond are the mean rates of the opcounters.
	// +optional
	OpsPerSecond *OpCounterRates `json:"opsPerSecond,omitempty"`
	// MaxCacheUsedPercent is the highest WiredTiger cache fill (bytes
	// currently in the cache), in % of the maximum bytes configured.
	// +optional
	MaxCacheUsedPercent *float64 `json:"maxCacheUsedPercent,omitempty"`
	// MaxCacheDirtyPercent is the highest tracked dirty bytes in the cache,
	// in % of the maximum bytes configured.
	// +optional
	MaxCacheDirtyPercent *float64 `json:"maxCacheDirtyPercent,omitempty"`
	// CacheMaxBytes is the WiredTiger cache's configured size in bytes
	// (wiredTiger.cache["maximum bytes configured"]), the highest value in
	// the phase.
	// +optional
	CacheMaxBytes *int64 `json:"cacheMaxBytes,omitempty"`
	// CacheMaxBytesChanged is true when the configured cache size was not
	// the same in every sample of the phase (the telemetry ConfigMap has
	// its lowest and highest value per interval).
	// +optional
	CacheMaxBytesChanged bool `json:"cacheMaxBytesChanged,omitempty"`
	// MeanNetInMBps is network.bytesIn in MB (10^6 bytes) per second.
	// +optional
	MeanNetInMBps *float64 `json:"meanNetInMBps,omitempty"`
	// MeanNetOutMBps is network.bytesOut in MB (10^6 bytes) per second.
	// +optional
	MeanNetOutMBps *float64 `json:"meanNetOutMBps,omitempty"`
	// AppEvictions is the number of pages application threads had to evict
	// from the cache during the phase: eviction the cache's own threads
	// could not keep up with, paid in operation latency.
	// +optional
	AppEvictions *int64 `json:"appEvictions,omitempty"`
	// AppEvictionsFrom names the WiredTiger statistics AppEvictions was
	// read from: pagesEvicted is "pages evicted by application threads"
	// (MongoDB through 8.0), attemptsMinusFailures is "page evict attempts
	// by application threads" minus "page evict failures by application
	// threads" (8.1 on, where WiredTiger split the former). Set with
	// AppEvictions.
	// +kubebuilder:validation:Enum=pagesEvicted;attemptsMinusFailures
	// +optional
	AppEvictionsFrom string `json:"appEvictionsFrom,omitempty"`
	// MinReadTicketsAvailable is the lowest number of read execution
	// tickets left (wiredTiger.concurrentTransactions through 7.0,
	// queues.execution from 8.0); 0 means reads queued for a ticket.
	// +optional
	MinReadTicketsAvailable *int64 `json:"minReadTicketsAvailable,omitempty"`
	// MinWriteTicketsAvailable is the lowest number of write execution
	// tickets left; 0 means writes queued for a ticket.
	// +optional
	MinWriteTicketsAvailable *int64 `json:"minWriteTicketsAvailable,omitempty"`
	// MaxQueue is the highest globalLock.currentQueue.total.
	// +optional
	MaxQueue *int64 `json:"maxQueue,omitempty"`
}

// Values of ServerSummary.AppEvictionsFrom.
const (
	AppEvictionsPagesEvicted          = "pagesEvicted"
	AppEvictionsAttemptsMinusFailures = "attemptsMinusFailures"
)

// OpCounterRates are operations per second by opcounter, as mongostat
// shows them.
type OpCounterRates struct {
	// Insert is opcounters.insert per second.
	// +optional
	Insert *float64 `json:"insert,omitempty"`
	// Query is opcounters.query per second.
	// +optional
	Query *float64 `json:"query,omitempty"`
	// Update is opcounters.update per second.
	// +optional
	Update *float64 `json:"update,omitempty"`
	// Delete is opcounters.delete per second.
	// +optional
	Delete *float64 `json:"delete,omitempty"`
	// Getmore is opcounters.getmore per second.
	// +optional
	Getmore *float64 `json:"getmore,omitempty"`
	// Command is opcounters.command per second.
	// +optional
	Command *float64 `json:"command,omitempty"`
}

// CollectionSummary are the benchmark collection's storage statistics at
// the end of a phase (through mongos for a sharded run). Sizes are in
// bytes; a value that was not reported is left out.
type CollectionSummary struct {
	// Count is the number of documents.
	// +optional
	Count *int64 `json:"count,omitempty"`
	// Size is the uncompressed size of the documents.
	// +optional
	Size *int64 `json:"size,omitempty"`
	// StorageSize is the space the documents take on disk (compressed).
	// +optional
	StorageSize *int64 `json:"storageSize,omitempty"`
	// TotalIndexSize is the space all indexes take on disk.
	// +optional
	TotalIndexSize *int64 `json:"totalIndexSize,omitempty"`
	// IndexSizes is each index's size on disk, by index name.
	// +optional
	IndexSizes map[string]int64 `json:"indexSizes,omitempty"`
	// Shards is the split by shard (sharded runs).
	// +listType=map
	// +listMapKey=shard
	// +optional
	Shards []ShardCollectionSummary `json:"shards,omitempty"`
}

// ShardCollectionSummary is one shard's part of the collection.
type ShardCollectionSummary struct {
	// Shard is the shard's name.
	Shard string `json:"shard"`
	// Count is the number of documents on the shard.
	// +optional
	Count *int64 `json:"count,omitempty"`
	// Size is the uncompressed size of the shard's documents.
	// +optional
	Size *int64 `json:"size,omitempty"`
	// StorageSize is the space the shard's documents take on disk.
	// +optional
	StorageSize *int64 `json:"storageSize,omitempty"`
	// TotalIndexSize is the space the shard's indexes take on disk.
	// +optional
	TotalIndexSize *int64 `json:"totalIndexSize,omitempty"`
}

// OperationResult are the statistics of one operation type (YCSB's "[READ]"
// block). Latency statistics cover successful operations, as in YCSB.
type OperationResult struct {
	// Name is YCSB's operation name.
	Name string `json:"name"`
	// Count of operations, whatever their outcome.
	Count int64 `json:"count"`
	// Errors counts unsuccessful operations (any status but OK/BATCHED_OK).
	Errors int64 `json:"errors"`
	// Statuses counts operations by YCSB status (OK, NOT_FOUND, ERROR, ...).
	// +optional
	Statuses map[string]int64 `json:"statuses,omitempty"`
	// AverageMicros is the mean latency.
	AverageMicros float64 `json:"averageMicros"`
	MinMicros     int64   `json:"minMicros"`
	MaxMicros     int64   `json:"maxMicros"`
	P50Micros     int64   `json:"p50Micros"`
	P95Micros     int64   `json:"p95Micros"`
	P99Micros     int64   `json:"p99Micros"`
	P999Micros    int64   `json:"p999Micros"`
	// Intended are the same operations' intended latencies
	// (measurement.interval intended or both), successful ones.
	// +optional
	Intended *IntendedLatency `json:"intended,omitempty"`
}

// IntendedLatency summarises intended latencies, in microseconds.
type IntendedLatency struct {
	AverageMicros float64 `json:"averageMicros"`
	// MinMicros is the lowest intended latency, YCSB's MinLatency of the
	// intended block (left out when 0, and in status written before it
	// was kept).
	// +optional
	MinMicros  int64 `json:"minMicros,omitempty"`
	MaxMicros  int64 `json:"maxMicros"`
	P50Micros  int64 `json:"p50Micros"`
	P95Micros  int64 `json:"p95Micros"`
	P99Micros  int64 `json:"p99Micros"`
	P999Micros int64 `json:"p999Micros"`
}

// TimeSeries is a per-interval series of a phase, merged over its loaders.
type TimeSeries struct {
	// IntervalMillis is the width of each point.
	IntervalMillis int64 `json:"intervalMillis"`
	// Throughput of each interval, operations per second.
	Throughput []float64 `json:"throughput"`
	// P99Micros per operation type, one value per interval (0 where the
	// operation did not succeed in that interval).
	// +listType=map
	// +listMapKey=name
	// +optional
	P99Micros []OperationSeries `json:"p99Micros,omitempty"`
}

// OperationSeries is one operation's values over the intervals.
type OperationSeries struct {
	Name   string  `json:"name"`
	Values []int64 `json:"values"`
}

// RunSummary is the headline of a run.
type RunSummary struct {
	// Phase is the Run phase the numbers come from.
	Phase string `json:"phase"`
	// Throughput in operations per second.
	Throughput float64 `json:"throughput"`
	// P99Micros of all database calls.
	P99Micros int64 `json:"p99Micros"`
}
