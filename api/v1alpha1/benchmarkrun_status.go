package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RunPhase is where a run is in its lifecycle. Phases only move forward:
// Pending → Provisioning → Loading → Running → Succeeded | Failed.
// +kubebuilder:validation:Enum=Pending;Provisioning;Loading;Running;Succeeded;Failed
// +kubebuilder:validation:MaxLength=12
type RunPhase string

// Run phases.
const (
	// RunPending: accepted; waiting for the scheduler to place the first
	// database pod (with placement.exclusive, for a node free of other
	// benchmarks).
	RunPending RunPhase = "Pending"
	// RunProvisioning: database pods are starting and being bootstrapped.
	RunProvisioning RunPhase = "Provisioning"
	// RunLoading: the Load phase is running.
	RunLoading RunPhase = "Loading"
	// RunRunning: Run phases are executing.
	RunRunning RunPhase = "Running"
	// RunSucceeded: every phase finished and its results are in status.
	RunSucceeded RunPhase = "Succeeded"
	// RunFailed: the run stopped; the Failed condition says why.
	RunFailed RunPhase = "Failed"
)

// BenchmarkRunStatus is the observed state of a run and its results.
type BenchmarkRunStatus struct {
	// Phase is a summary for people; use conditions in tools.
	// +optional
	Phase RunPhase `json:"phase,omitempty"`

	// Conditions: TopologyReady, Complete, Failed.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ObservedGeneration is the generation last reconciled.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// NodeName is the node every database pod runs on.
	// +optional
	NodeName string `json:"nodeName,omitempty"`

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
)

// ProcessStatus is one MongoDB process.
type ProcessStatus struct {
	// Role is standalone, configsvr, shard or mongos.
	Role ProcessRole `json:"role"`
	// Pod running the process.
	Pod string `json:"pod"`
	// Address is the stable host:port of the process.
	Address string `json:"address"`
	// Ready is the pod's readiness.
	Ready bool `json:"ready"`
	// Restarts of the mongo container.
	// +optional
	Restarts int32 `json:"restarts,omitempty"`
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
	// Throughput is operations per second of wall time.
	Throughput float64 `json:"throughput"`
	// StopReason is Completed, MaxExecutionTime or Cancelled.
	StopReason string `json:"stopReason"`
	// P99Micros is the p99 of all database calls of the phase together.
	P99Micros int64 `json:"p99Micros"`
	// LostInserts counts buffered inserts (batchSize > 1) that the final
	// flush failed to write: the data set lacks them.
	// +optional
	LostInserts int64 `json:"lostInserts,omitempty"`
	// Operations by type (READ, UPDATE, INSERT, SCAN, READ-MODIFY-WRITE, ...).
	// +listType=map
	// +listMapKey=name
	// +optional
	OperationStats []OperationResult `json:"operationStats,omitempty"`
	// TimeSeries for plots, at most 120 points.
	// +optional
	TimeSeries *TimeSeries `json:"timeSeries,omitempty"`
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
