package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// MaxSweepRuns bounds cells × repetitions of a sweep: every child is a
// BenchmarkRun with its own topology, and the sweep's status carries a row
// per cell and phase.
const MaxSweepRuns = 256

// MaxSweepStatusBytes bounds the size of a sweep's status (its cells,
// aggregates, knees and order) as the controller will write it: etcd
// refuses objects above 1.5 MiB, and a sweep whose status cannot be stored
// could never finish. The controller computes the size of a sweep's full
// status before creating anything.
const MaxSweepStatusBytes = 1 << 20

// BenchmarkSweepSpec is a study: the cartesian product of its axes' values,
// each cell a BenchmarkRun made from the template, repeated and aggregated.
//
// +kubebuilder:validation:XValidation:rule="(size(self.axes) > 0 ? ((has(self.axes[0].values) ? size(self.axes[0].values) : 0) + (has(self.axes[0].topologies) ? size(self.axes[0].topologies) : 0) + (has(self.axes[0].threads) ? size(self.axes[0].threads) : 0) + (has(self.axes[0].maxPoolSize) ? size(self.axes[0].maxPoolSize) : 0) + (has(self.axes[0].writeConcern) ? size(self.axes[0].writeConcern) : 0) + (has(self.axes[0].loaders) ? size(self.axes[0].loaders) : 0)) : 1) * (size(self.axes) > 1 ? ((has(self.axes[1].values) ? size(self.axes[1].values) : 0) + (has(self.axes[1].topologies) ? size(self.axes[1].topologies) : 0) + (has(self.axes[1].threads) ? size(self.axes[1].threads) : 0) + (has(self.axes[1].maxPoolSize) ? size(self.axes[1].maxPoolSize) : 0) + (has(self.axes[1].writeConcern) ? size(self.axes[1].writeConcern) : 0) + (has(self.axes[1].loaders) ? size(self.axes[1].loaders) : 0)) : 1) * (size(self.axes) > 2 ? ((has(self.axes[2].values) ? size(self.axes[2].values) : 0) + (has(self.axes[2].topologies) ? size(self.axes[2].topologies) : 0) + (has(self.axes[2].threads) ? size(self.axes[2].threads) : 0) + (has(self.axes[2].maxPoolSize) ? size(self.axes[2].maxPoolSize) : 0) + (has(self.axes[2].writeConcern) ? size(self.axes[2].writeConcern) : 0) + (has(self.axes[2].loaders) ? size(self.axes[2].loaders) : 0)) : 1) * (size(self.axes) > 3 ? ((has(self.axes[3].values) ? size(self.axes[3].values) : 0) + (has(self.axes[3].topologies) ? size(self.axes[3].topologies) : 0) + (has(self.axes[3].threads) ? size(self.axes[3].threads) : 0) + (has(self.axes[3].maxPoolSize) ? size(self.axes[3].maxPoolSize) : 0) + (has(self.axes[3].writeConcern) ? size(self.axes[3].writeConcern) : 0) + (has(self.axes[3].loaders) ? size(self.axes[3].loaders) : 0)) : 1) * (size(self.axes) > 4 ? ((has(self.axes[4].values) ? size(self.axes[4].values) : 0) + (has(self.axes[4].topologies) ? size(self.axes[4].topologies) : 0) + (has(self.axes[4].threads) ? size(self.axes[4].threads) : 0) + (has(self.axes[4].maxPoolSize) ? size(self.axes[4].maxPoolSize) : 0) + (has(self.axes[4].writeConcern) ? size(self.axes[4].writeConcern) : 0) + (has(self.axes[4].loaders) ? size(self.axes[4].loaders) : 0)) : 1) * (size(self.axes) > 5 ? ((has(self.axes[5].values) ? size(self.axes[5].values) : 0) + (has(self.axes[5].topologies) ? size(self.axes[5].topologies) : 0) + (has(self.axes[5].threads) ? size(self.axes[5].threads) : 0) + (has(self.axes[5].maxPoolSize) ? size(self.axes[5].maxPoolSize) : 0) + (has(self.axes[5].writeConcern) ? size(self.axes[5].writeConcern) : 0) + (has(self.axes[5].loaders) ? size(self.axes[5].loaders) : 0)) : 1) * (has(self.repetitions) ? self.repetitions : 1) <= 256",message="a sweep runs at most 256 BenchmarkRuns: the product of the axes' value counts times repetitions must not exceed 256"
// +kubebuilder:validation:XValidation:rule="self.axes.all(a, self.axes.exists_one(b, b.name == a.name))",message="axis names must be unique"
// +kubebuilder:validation:XValidation:rule="!has(self.baseline) || self.baseline.all(k, self.axes.exists(a, a.name == k))",messageExpression="'baseline names an axis the sweep does not have: ' + self.baseline.filter(k, !self.axes.exists(a, a.name == k))[0]"
// +kubebuilder:validation:XValidation:rule="!has(self.seed) || self.order == 'Shuffled'",message="seed is only used with order: Shuffled"
type BenchmarkSweepSpec struct {
	// Template is the BenchmarkRun spec every cell starts from, validated
	// exactly as a BenchmarkRun's.
	Template BenchmarkRunSpec `json:"template"`

	// Axes span the study, in order: the cells are the cartesian product of
	// their values. Each axis sets exactly one of values (generic JSON
	// merge patches) or a typed shorthand (topologies, threads,
	// maxPoolSize, writeConcern, loaders). A cell's spec is the template,
	// then every axis's merge patch in axis order, then every shorthand's
	// setting in axis order: a threads axis therefore also applies to
	// phases that another axis's patch replaced.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=6
	Axes []SweepAxis `json:"axes"`

	// Repetitions of every cell (1-10). Each repetition is its own
	// BenchmarkRun on a fresh topology; the status reports the median,
	// minimum, maximum and coefficient of variation across them.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10
	// +optional
	Repetitions int32 `json:"repetitions,omitempty"`

	// Order of the runs: Sequential (cell by cell, repetitions of a cell
	// one after another) or Shuffled (a seeded permutation of every cell ×
	// repetition, which spreads slow drift of the cluster over the cells
	// instead of biasing the last ones). The order used is kept in
	// status.order, the seed in status.seed.
	// +kubebuilder:default=Sequential
	// +optional
	Order SweepOrder `json:"order,omitempty"`

	// Seed of the Shuffled order; without it the controller draws one and
	// records it in status.seed, so the order can be repeated.
	// +optional
	Seed *int64 `json:"seed,omitempty"`

	// Parallelism is how many child runs may be active at once (default 1:
	// one benchmark at a time). With placement.exclusive (the default),
	// active children never share a node: beyond the number of fitting
	// nodes, runs wait Pending for a node, and that wait counts against
	// their spec.timeout.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	// +optional
	Parallelism int32 `json:"parallelism,omitempty"`

	// FailurePolicy is Continue (default: a failed run is recorded and the
	// sweep goes on) or Stop (no new run starts after a failure; runs
	// already active finish).
	// +kubebuilder:default=Continue
	// +optional
	FailurePolicy SweepFailurePolicy `json:"failurePolicy,omitempty"`

	// Baseline names the reference cell by axis value names, e.g.
	// {topologies: standalone}. Axes it leaves out match the cell being
	// compared, so with axes topologies × threads and baseline
	// {topologies: standalone}, every cell is compared with the standalone
	// cell at the same threads. Every cell then reports its % change
	// against that baseline.
	// +kubebuilder:validation:MaxProperties=6
	// +optional
	Baseline map[string]SweepValueName `json:"baseline,omitempty"`

	// Compare makes the sweep a regression gate, cell by cell, once its
	// runs have ended: each cell's successful repetitions (their median,
	// with their spread in the history test) are compared with the cell's
	// baseline, status.cells[].comparison holds the verdicts and the
	// sweep's Regressed condition sums them up (kubectl mongobench wait
	// exits 3 when it is True). The baseline of a cell is the named run
	// (runRef), the matching cell of another sweep (sweepRef: axes its
	// cell leaves out match the cell being compared, so without a cell it
	// is the same cell), or the cell's history: earlier succeeded runs
	// with the same fingerprint and spec hash as the cell's runs (or the
	// history's selector, narrowed to the cell's axis values), this
	// sweep's own runs excluded. The template's own compare, if any, still
	// gates each child run on its own.
	// +optional
	Compare *CompareSpec `json:"compare,omitempty"`

	// HistoryLimit keeps the history of a recurring study bounded: when
	// this sweep ends, the ended sweeps of its series created before it
	// are deleted, their runs with them, beyond the newest historyLimit - 1
	// with results (Succeeded or PartiallySucceeded; failed sweeps do not
	// count, so failures never prune away the history a gate needs). A
	// series is the sweeps sharing the label bench.mongobench.io/series,
	// or, without that label, the same metadata.generateName (a nightly
	// `kubectl create` of one file); a sweep in neither prunes nothing.
	// Running sweeps are never deleted. Unset keeps every sweep.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	// +optional
	HistoryLimit *int32 `json:"historyLimit,omitempty"`
}

// SweepValueName names a value of an axis.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=63
type SweepValueName string

// SweepOrder is the order in which a sweep's runs are created.
// +kubebuilder:validation:Enum=Sequential;Shuffled
// +kubebuilder:validation:MaxLength=10
type SweepOrder string

// Sweep orders.
const (
	SweepSequential SweepOrder = "Sequential"
	SweepShuffled   SweepOrder = "Shuffled"
)

// SweepFailurePolicy decides what a failed child run does to the sweep.
// +kubebuilder:validation:Enum=Continue;Stop
// +kubebuilder:validation:MaxLength=8
type SweepFailurePolicy string

// Failure policies.
const (
	SweepContinue SweepFailurePolicy = "Continue"
	SweepStop     SweepFailurePolicy = "Stop"
)

// SweepAxis is one dimension of a study.
//
// +kubebuilder:validation:XValidation:rule="[has(self.values), has(self.topologies), has(self.threads), has(self.maxPoolSize), has(self.writeConcern), has(self.loaders)].filter(x, x).size() == 1",message="an axis sets exactly one of values, topologies, threads, maxPoolSize, writeConcern or loaders"
// +kubebuilder:validation:XValidation:rule="!has(self.values) || self.values.all(v, self.values.exists_one(w, w.name == v.name))",message="value names must be unique within an axis"
// +kubebuilder:validation:XValidation:rule="!has(self.topologies) || self.topologies.all(t, self.topologies.exists_one(u, has(u.name) == has(t.name) && (has(t.name) ? u.name == t.name : (u.mode == t.mode && (has(u.shards) ? u.shards : 0) == (has(t.shards) ? t.shards : 0) && (has(u.members) ? u.members : 3) == (has(t.members) ? t.members : 3)))))",message="topologies must be unique within an axis (by name, or by mode, shards and members when unnamed)"
type SweepAxis struct {
	// Name of the axis: a column of the report, and the label
	// axis.bench.mongobench.io/<name> on every child run.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`
	Name string `json:"name"`

	// Values are generic: each a name and a JSON merge patch onto the
	// template.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +optional
	Values []SweepValue `json:"values,omitempty"`

	// Topologies replaces the template's topology mode, shard count and
	// shard key (image, resources, storage and oplog size stay the
	// template's). A
	// value is called standalone, 1-shard or <n>-shards unless it has a
	// name; on charts standalone is 1 and a sharded topology its number
	// of shards.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Topologies []SweepTopology `json:"topologies,omitempty"`

	// Threads sets every phase's threads (per loader pod). A value is
	// called by its number.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:Minimum=1
	// +kubebuilder:validation:items:Maximum=1024
	// +listType=set
	// +optional
	Threads []int32 `json:"threads,omitempty"`

	// MaxPoolSize sets driver.maxPoolSize; 0 is an unbounded pool (called
	// unbounded, and not a number on charts).
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:Minimum=0
	// +kubebuilder:validation:items:Maximum=10000
	// +listType=set
	// +optional
	MaxPoolSize []int32 `json:"maxPoolSize,omitempty"`

	// WriteConcern sets driver.writeConcern (a number of members or
	// majority); w=0 also unsets driver.journal. A value above the
	// members of the cell's replica sets (1 for a standalone and today's
	// shards) fails the sweep, naming the cell, before any run exists.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=8
	// +kubebuilder:validation:items:Pattern=`^(majority|[0-9]{1,2})$`
	// +listType=set
	// +optional
	WriteConcern []string `json:"writeConcern,omitempty"`

	// Loaders sets spec.loaders, the loader pods per phase.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:Minimum=1
	// +kubebuilder:validation:items:Maximum=64
	// +listType=set
	// +optional
	Loaders []int32 `json:"loaders,omitempty"`
}

// SweepValue is one value of a generic axis.
type SweepValue struct {
	// Name of the value: a column or row of the report, and the value of
	// the child runs' axis label.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`
	Name string `json:"name"`

	// Number places the value on a numeric axis: charts plot the axis
	// against it and the status reports the axis's knee. An axis is
	// numeric when every value has a distinct number.
	// +optional
	Number *float64 `json:"number,omitempty"`

	// Patch is a JSON merge patch (RFC 7386) onto the template's spec:
	// objects merge key by key, null deletes a key, and any other value,
	// lists included, replaces the template's. A phases list therefore
	// replaces the template's phases as a whole. No patch keeps the
	// template as it is (e.g. a "none" value).
	// Its keys must be spec fields; the controller decodes every cell's
	// spec strictly, so a misspelt field fails the sweep (InvalidSweep)
	// before any run exists.
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Patch *runtime.RawExtension `json:"patch,omitempty"`
}

// SweepTopology is one value of a topologies axis.
//
// +kubebuilder:validation:XValidation:rule="self.mode != 'Sharded' || has(self.shards)",message="shards is required when mode is Sharded"
// +kubebuilder:validation:XValidation:rule="self.mode == 'Sharded' || (!has(self.shards) && !has(self.shardKey))",message="shards and shardKey can only be set when mode is Sharded"
// +kubebuilder:validation:XValidation:rule="self.mode == 'ReplicaSet' || !has(self.members)",message="members can only be set when mode is ReplicaSet"
type SweepTopology struct {
	// Name of the value; default standalone, 1-shard, <n>-shards or
	// rs-<members>.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`
	// +optional
	Name string `json:"name,omitempty"`

	// Mode is Standalone, Sharded or ReplicaSet.
	Mode TopologyMode `json:"mode"`

	// Members of a ReplicaSet (1–7, default 3; ReplicaSet only). A
	// one-member set is a standalone with an oplog: the like-with-like
	// baseline of the one-member shards of Sharded.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=7
	// +optional
	Members *int32 `json:"members,omitempty"`

	// Shards is the number of micro-shards (Sharded only).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=16
	// +optional
	Shards *int32 `json:"shards,omitempty"`

	// ShardKey of a sharded topology; default the template's, else Hashed.
	// +optional
	ShardKey ShardKey `json:"shardKey,omitempty"`
}

// SweepLifecycle is where a sweep (or one of its cells) is in its
// lifecycle, the value of status.phase; not a benchmark phase of its runs'
// spec.phases (those are the rows of a cell's results).
// +kubebuilder:validation:Enum=Pending;Running;Succeeded;Failed;PartiallySucceeded
// +kubebuilder:validation:MaxLength=18
type SweepLifecycle string

// The states of a sweep's lifecycle (status.phase).
const (
	// SweepPending: accepted; the cells are being expanded and validated.
	SweepPending SweepLifecycle = "Pending"
	// SweepRunning: child runs are being created and run.
	SweepRunning SweepLifecycle = "Running"
	// SweepSucceeded: every child run succeeded.
	SweepSucceeded SweepLifecycle = "Succeeded"
	// SweepFailed: the sweep is invalid, a child's name is taken, a run
	// failed under failurePolicy Stop, or every run failed. The Failed
	// condition says why.
	SweepFailed SweepLifecycle = "Failed"
	// SweepPartiallySucceeded: every run ended, some failed (failurePolicy
	// Continue); the cells with results are aggregated.
	SweepPartiallySucceeded SweepLifecycle = "PartiallySucceeded"
)

// BenchmarkSweepStatus is the progress of a sweep and its aggregated results.
type BenchmarkSweepStatus struct {
	// Phase is where the sweep is in its lifecycle, a summary for people;
	// use conditions in tools.
	// +optional
	Phase SweepLifecycle `json:"phase,omitempty"`

	// Conditions: Validated, Complete, Failed and Regressed (with
	// spec.compare).
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ObservedGeneration is the generation last reconciled.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// StartTime is when the controller started working on the sweep.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`

	// CompletionTime is when the last run ended (or the sweep failed).
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`

	// Seed is the seed of the Shuffled order actually used.
	// +optional
	Seed *int64 `json:"seed,omitempty"`

	// Order lists the child runs in the order they are created.
	// +optional
	Order []string `json:"order,omitempty"`

	// The counters default to 0 in the schema: omitempty leaves a 0 out of
	// every status the controller writes, and the columns (DONE, FAILED,
	// ...) of a running sweep would show blank where 0 is meant.

	// CellsTotal is the number of cells (the product of the axes' sizes).
	// +optional
	// +kubebuilder:default=0
	CellsTotal int32 `json:"cellsTotal,omitempty"`
	// CellsDone counts the cells whose runs have all ended.
	// +optional
	// +kubebuilder:default=0
	CellsDone int32 `json:"cellsDone,omitempty"`
	// CellsFailed counts the cells with at least one failed run.
	// +optional
	// +kubebuilder:default=0
	CellsFailed int32 `json:"cellsFailed,omitempty"`
	// RunsInvalid counts the child runs that succeeded but are not valid
	// (their Valid condition is False): their numbers are left out of
	// every aggregate, as a failed run's.
	// +optional
	// +kubebuilder:default=0
	RunsInvalid int32 `json:"runsInvalid,omitempty"`
	// CellsInvalid counts the ended cells that have a successful run but
	// no valid one: they have no results, like a cell whose runs all
	// failed.
	// +optional
	// +kubebuilder:default=0
	CellsInvalid int32 `json:"cellsInvalid,omitempty"`
	// RunsActive counts the child runs created and not yet ended.
	// +optional
	// +kubebuilder:default=0
	RunsActive int32 `json:"runsActive,omitempty"`

	// Baseline is the name of the baseline cell (axis values joined by
	// "/"); with a partial baseline, the values it fixes.
	// +optional
	Baseline string `json:"baseline,omitempty"`

	// Best names the cell with the highest median throughput in the
	// summary phase (the template's last Run phase), with that throughput.
	// +optional
	Best string `json:"best,omitempty"`

	// SummaryPhase is the phase Best and the printer columns refer to.
	// +optional
	SummaryPhase string `json:"summaryPhase,omitempty"`

	// Cells holds each cell's runs and aggregated results, by cell index.
	// +listType=map
	// +listMapKey=index
	// +optional
	Cells []SweepCellStatus `json:"cells,omitempty"`

	// Knees holds, for each numeric axis and phase (and each combination
	// of the other axes' values), the smallest value of the axis whose
	// median throughput reaches 95% of the best: where adding more stops
	// paying.
	// +optional
	Knees []SweepKnee `json:"knees,omitempty"`
}

// SweepCellStatus is one cell: its axis values, runs and aggregate.
type SweepCellStatus struct {
	// Index of the cell in the cartesian product (last axis fastest).
	Index int32 `json:"index"`
	// Name is the cell's axis value names joined by "/".
	Name string `json:"name"`
	// Values are the cell's value of each axis, in axis order.
	Values []SweepCellValue `json:"values"`
	// Phase is Pending (no run created yet), Running (runs created, not
	// all ended), Succeeded (every run succeeded), Failed (every run
	// failed) or PartiallySucceeded.
	Phase SweepLifecycle `json:"phase"`
	// Runs are the cell's child runs, one per repetition.
	// +optional
	Runs []SweepRunStatus `json:"runs,omitempty"`
	// InvalidRuns counts the cell's runs that succeeded but are not valid
	// (runs[].valid false): Results leave them out. A cell whose every
	// successful run is invalid has no Results.
	// +optional
	InvalidRuns int32 `json:"invalidRuns,omitempty"`
	// Results aggregate the successful, valid repetitions, one row per
	// phase.
	// +optional
	Results []SweepPhaseStats `json:"results,omitempty"`
	// Comparison holds spec.compare's verdicts for the cell, one row per
	// metric, once the sweep has ended.
	// +optional
	Comparison []MetricComparison `json:"comparison,omitempty"`
}

// SweepCellValue is a cell's value of one axis.
type SweepCellValue struct {
	// Axis name.
	Axis string `json:"axis"`
	// Value name.
	Value string `json:"value"`
	// Number of the value on a numeric axis.
	// +optional
	Number *float64 `json:"number,omitempty"`
}

// SweepRunStatus is one child run as the sweep last saw it.
type SweepRunStatus struct {
	// Name of the BenchmarkRun.
	Name string `json:"name"`
	// Repetition, from 1.
	Repetition int32 `json:"repetition"`
	// Phase is the run's status.phase (its lifecycle); empty before it
	// was created.
	// +optional
	Phase RunLifecycle `json:"phase,omitempty"`
	// Reason of a failed run (its Failed condition's reason).
	// +optional
	Reason string `json:"reason,omitempty"`
	// Valid is a succeeded run's Valid condition: false when its numbers
	// are left out of the cell's results (InvalidReason says why); absent
	// before the run succeeded, and for runs that predate the condition
	// (they count as valid).
	// +optional
	Valid *bool `json:"valid,omitempty"`
	// InvalidReason is the Valid condition's reason of a run that is not
	// valid (TooManyErrors, ProcessRestarted, PrimaryChanged,
	// CacheSizeMismatch, ConnectionLimitReached, LoaderSaturated); the
	// run's condition message lists every problem.
	// +optional
	InvalidReason string `json:"invalidReason,omitempty"`
	// Fingerprint of the run's environment, when recorded.
	// +optional
	Fingerprint string `json:"fingerprint,omitempty"`
	// UID of the run the sweep created: a run of that name with another
	// UID, or none, means it was deleted (reason RunDeleted); the sweep
	// never creates it again.
	// +optional
	UID types.UID `json:"uid,omitempty"`
}

// SweepPhaseStats aggregates one phase over a cell's successful, valid
// repetitions. Latencies are in microseconds.
type SweepPhaseStats struct {
	// Name of the phase.
	Name string `json:"name"`
	// Type of the phase.
	Type PhaseType `json:"type"`
	// Repetitions aggregated (the successful, valid ones).
	Repetitions int32 `json:"repetitions"`
	// MedianThroughput, MinThroughput and MaxThroughput across the
	// repetitions, in operations per second.
	MedianThroughput float64 `json:"medianThroughput"`
	MinThroughput    float64 `json:"minThroughput"`
	MaxThroughput    float64 `json:"maxThroughput"`
	// ThroughputCoVPercent is the coefficient of variation of the
	// throughput across repetitions (sample standard deviation / mean, in
	// %); absent with a single repetition.
	// +optional
	ThroughputCoVPercent *float64 `json:"throughputCoVPercent,omitempty"`
	// MedianP99Micros is the median across repetitions of the phase's p99
	// (all database calls together).
	MedianP99Micros float64 `json:"medianP99Micros"`
	// MedianMeanMicros is the median across repetitions of the phase's
	// mean latency (all successful operations, weighted by count).
	MedianMeanMicros float64 `json:"medianMeanMicros"`
	// MedianIntendedP99Micros is the median across the repetitions that
	// measured intended latencies (measurement.interval intended or both)
	// of the phase's intendedP99Micros; absent when none did.
	// +optional
	MedianIntendedP99Micros *float64 `json:"medianIntendedP99Micros,omitempty"`
	// Errors is the number of failed operations, summed over repetitions.
	Errors int64 `json:"errors"`
	// ThroughputChangePercent is the change of MedianThroughput against
	// the baseline cell's, in % (the baseline itself reports 0); absent
	// without a baseline or when the baseline cell has no result.
	// +optional
	ThroughputChangePercent *float64 `json:"throughputChangePercent,omitempty"`
	// P99ChangePercent is the change of MedianP99Micros against the
	// baseline cell's, in % (positive is slower).
	// +optional
	P99ChangePercent *float64 `json:"p99ChangePercent,omitempty"`
	// PeakConnections is the highest connections.current any MongoDB
	// process of the cell reported during the phase (telemetry).
	// +optional
	PeakConnections *int64 `json:"peakConnections,omitempty"`
	// MaxCacheDirtyPercent is the highest WiredTiger cache dirty fill of
	// any process during the phase (telemetry).
	// +optional
	MaxCacheDirtyPercent *float64 `json:"maxCacheDirtyPercent,omitempty"`
	// MaxReplicationLagMillis is the largest replication lag of the
	// phase in any of the cell's runs (their
	// results[].maxReplicationLagMillis), in ms; absent without replica
	// sets of several members.
	// +optional
	MaxReplicationLagMillis *int64 `json:"maxReplicationLagMillis,omitempty"`
}

// SweepKnee is where throughput saturates along a numeric axis.
type SweepKnee struct {
	// Axis is the numeric axis.
	Axis string `json:"axis"`
	// Phase is the benchmark phase.
	Phase string `json:"phase"`
	// At names the other axes' values of this slice of the sweep
	// ("axis=value,..."), empty for a single-axis sweep.
	// +optional
	At string `json:"at,omitempty"`
	// Value is the knee: the smallest value reaching 95% of the best
	// median throughput.
	Value string `json:"value"`
	// Number of the knee value.
	Number float64 `json:"number"`
	// Throughput at the knee (median).
	Throughput float64 `json:"throughput"`
	// BestValue and BestThroughput: the value with the highest median
	// throughput.
	BestValue      string  `json:"bestValue"`
	BestThroughput float64 `json:"bestThroughput"`
}

// The REASON column (-o wide) is the Failed condition's reason, as for a
// run: Running while the sweep goes, the failure (RunFailed, InvalidCell,
// ...) when it failed, the outcome (Succeeded, SomeRunsFailed) when it
// ended. A JSONPath cannot pick "the first condition that is True", and the
// Failed condition is the one set from the start to the end.

// BenchmarkSweep runs a study: one BenchmarkRun per cell of its axes'
// cartesian product and repetition, created as parallelism allows, and
// aggregates their results.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=sweep;bsw,categories=mongobench
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Cells",type=integer,JSONPath=`.status.cellsTotal`
// +kubebuilder:printcolumn:name="Done",type=integer,JSONPath=`.status.cellsDone`
// +kubebuilder:printcolumn:name="Failed",type=integer,JSONPath=`.status.cellsFailed`
// +kubebuilder:printcolumn:name="Invalid-Runs",type=integer,JSONPath=`.status.runsInvalid`
// +kubebuilder:printcolumn:name="Best",type=string,JSONPath=`.status.best`
// +kubebuilder:printcolumn:name="Regressed",type=string,JSONPath=`.status.conditions[?(@.type=="Regressed")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Failed")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 32",message="metadata.name of a sweep must be at most 32 characters: its runs are named <sweep>-<cell>-r<repetition> within the 40-character limit of a run's name"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",message="metadata.name of a sweep must be a DNS-1035 label (lowercase letters, digits and '-', starting with a letter and ending with a letter or digit, no '.'): its runs are named <sweep>-<cell>-r<repetition>, and a run's name must be one"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.phase) || oldSelf.status.phase == 'Pending' || self.spec == oldSelf.spec",messageExpression="'spec cannot be changed once the sweep has started (phase ' + oldSelf.status.phase + '): its runs would no longer describe one study; create a new BenchmarkSweep instead'"
type BenchmarkSweep struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec   BenchmarkSweepSpec   `json:"spec"`
	Status BenchmarkSweepStatus `json:"status,omitempty"`
}

// BenchmarkSweepList contains a list of BenchmarkSweep.
//
// +kubebuilder:object:root=true
type BenchmarkSweepList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []BenchmarkSweep `json:"items"`
}
