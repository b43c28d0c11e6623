package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MaxGrowthCheckpoints bounds a Grow phase's checkpoints: its status holds
// a row per checkpoint.
const MaxGrowthCheckpoints = 200

// GrowSpec is a Grow phase: the data-growth study. One loader pod inserts
// ~1 KB documents ({_id, number, number1, date, payload}, indexes on
// number, number1 and date descending) up to targetRecords; every
// checkpointEvery records it pauses, samples the collection's sizes and
// runs each query class for queryDuration with queryThreads. A loader pod
// that is replaced (evicted, its node drained) resumes from the records
// it finds in the collection; the checkpoints measured before are kept.
//
// +kubebuilder:validation:XValidation:rule="!has(self.checkpointEvery) || (self.targetRecords + self.checkpointEvery - 1) / self.checkpointEvery <= 200",message="at most 200 checkpoints: targetRecords / checkpointEvery, rounded up, must not exceed 200"
// +kubebuilder:validation:XValidation:rule="!has(self.batchSize) || self.insertMode == 'Batch'",message="batchSize is only used with insertMode: Batch"
// +kubebuilder:validation:XValidation:rule="self.insertMode != 'Batch' || (has(self.batchSize) ? self.batchSize : 1000) * ((has(self.payloadBytes) ? self.payloadBytes : 945) + 100) * (has(self.insertThreads) ? self.insertThreads : 1) <= 1073741824",message="batchSize x (payloadBytes + ~100) x insertThreads must stay within 1 GiB: every insert thread holds its batch in the loader's memory"
type GrowSpec struct {
	// TargetRecords is the number of documents to grow the collection to.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000000000
	TargetRecords int64 `json:"targetRecords"`

	// CheckpointEvery is the number of records between checkpoints; the
	// last checkpoint is at targetRecords. At most 200 checkpoints.
	// Default: targetRecords / 10, rounded up.
	// +kubebuilder:validation:Minimum=1
	// +optional
	CheckpointEvery *int64 `json:"checkpointEvery,omitempty"`

	// InsertMode is Unacknowledged (insertOne, w:0), Acknowledged
	// (insertOne, w:1 with journal, the study's "safe" mode) or Batch
	// (unordered insertMany of batchSize, w:1 with journal). It overrides
	// spec.driver's write concern for the inserts (default Acknowledged).
	// +kubebuilder:default=Acknowledged
	// +optional
	InsertMode GrowInsertMode `json:"insertMode,omitempty"`

	// BatchSize is insertMany's size in Batch mode (default 1000).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000
	// +optional
	BatchSize *int32 `json:"batchSize,omitempty"`

	// InsertThreads insert concurrently (default 1, as in the study).
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1024
	// +optional
	InsertThreads int32 `json:"insertThreads,omitempty"`

	// QueryThreads run each query class at a checkpoint (default 4).
	// +kubebuilder:default=4
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1024
	// +optional
	QueryThreads int32 `json:"queryThreads,omitempty"`

	// QueryDuration is how long each query class runs at each checkpoint
	// (default 30s).
	// +kubebuilder:default="30s"
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1s') && duration(self) <= duration('1h')",message="queryDuration must be between 1s and 1h"
	// +optional
	QueryDuration *metav1.Duration `json:"queryDuration,omitempty"`

	// Queries are the query classes run at each checkpoint, in order
	// (default all four; empty: none, inserts only):
	// Q1 find({number: v}).limit(10);
	// Q2 find({number: v, number1: w}, {number, number1}).limit(10);
	// Q3 find({number: v}).sort({date: -1}).skip(100).limit(10);
	// Q4 find({}).limit(100).
	// +kubebuilder:default={Q1,Q2,Q3,Q4}
	// +kubebuilder:validation:MaxItems=4
	// +listType=set
	// +optional
	Queries []GrowQuery `json:"queries"` // no omitempty: [] (inserts only) must survive a sweep's re-encoding

	// QueryParameters change the queries' limits, skip and projection.
	// +optional
	QueryParameters *GrowQueryParameters `json:"queryParameters,omitempty"`

	// MatchesPerValue is how many documents each value of number (and of
	// number1) matches once targetRecords are in: both are uniform in
	// [0, ceil(targetRecords / matchesPerValue)) (default 10). Earlier
	// checkpoints match proportionally fewer.
	// +kubebuilder:validation:Minimum=1
	// +optional
	MatchesPerValue *int64 `json:"matchesPerValue,omitempty"`

	// PayloadBytes is the size of each document's payload string (default
	// 945: 1,024-byte documents).
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1048576
	// +optional
	PayloadBytes *int32 `json:"payloadBytes,omitempty"`

	// Seed makes the documents and query values (the same seed, the same
	// data; default 1).
	// +kubebuilder:validation:Minimum=0
	// +optional
	Seed *int64 `json:"seed,omitempty"`
}

// GrowInsertMode is how a Grow phase inserts.
// +kubebuilder:validation:Enum=Unacknowledged;Acknowledged;Batch
// +kubebuilder:validation:MaxLength=14
type GrowInsertMode string

// Insert modes.
const (
	GrowUnacknowledged GrowInsertMode = "Unacknowledged"
	GrowAcknowledged   GrowInsertMode = "Acknowledged"
	GrowBatch          GrowInsertMode = "Batch"
)

// GrowQuery is a query class of a Grow phase.
// +kubebuilder:validation:Enum=Q1;Q2;Q3;Q4
// +kubebuilder:validation:MaxLength=2
type GrowQuery string

// Query classes.
const (
	GrowQ1 GrowQuery = "Q1"
	GrowQ2 GrowQuery = "Q2"
	GrowQ3 GrowQuery = "Q3"
	GrowQ4 GrowQuery = "Q4"
)

// GrowQueryParameters are the query classes' parameters.
type GrowQueryParameters struct {
	// Q1Limit is Q1's limit (default 10).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000
	// +optional
	Q1Limit *int32 `json:"q1Limit,omitempty"`
	// Q2Limit is Q2's limit (default 10).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000
	// +optional
	Q2Limit *int32 `json:"q2Limit,omitempty"`
	// Q2Projection are the fields Q2 returns, _id excluded (default
	// number, number1).
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=5
	// +kubebuilder:validation:items:Enum=number;number1;date;payload
	// +listType=set
	// +optional
	Q2Projection []string `json:"q2Projection,omitempty"`
	// Q3Skip is Q3's skip (default 100).
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000000
	// +optional
	Q3Skip *int32 `json:"q3Skip,omitempty"`
	// Q3Limit is Q3's limit (default 10).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000
	// +optional
	Q3Limit *int32 `json:"q3Limit,omitempty"`
	// Q4Limit is Q4's limit (default 100).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000
	// +optional
	Q4Limit *int32 `json:"q4Limit,omitempty"`
}

// GrowthStatus is a Grow phase's record of the collection's growth.
type GrowthStatus struct {
	// TargetRecords and CheckpointEvery as run.
	TargetRecords   int64 `json:"targetRecords"`
	CheckpointEvery int64 `json:"checkpointEvery"`
	// PlannedCheckpoints is the number of checkpoints of the whole phase;
	// checkpoints holds fewer when it stopped early.
	PlannedCheckpoints int32 `json:"plannedCheckpoints"`
	// InsertMode as run.
	InsertMode GrowInsertMode `json:"insertMode"`
	// Restarts counts loader pods that resumed the phase from what an
	// earlier one left in the database.
	// +optional
	Restarts int32 `json:"restarts,omitempty"`
	// RepairedRecords counts documents a resuming loader inserted again
	// (holes below the resume point); they are not measured.
	// +optional
	RepairedRecords int64 `json:"repairedRecords,omitempty"`
	// Checkpoints holds one row per checkpoint reached, in order.
	// +kubebuilder:validation:MaxItems=200
	// +optional
	Checkpoints []GrowthCheckpoint `json:"checkpoints,omitempty"`
}

// GrowthCheckpoint is one checkpoint: the inserts that led to it, the
// collection's sizes there, and each query class's run. Latencies are in
// microseconds.
type GrowthCheckpoint struct {
	// Records is the number of documents in the collection at the
	// checkpoint.
	Records int64 `json:"records"`
	// Time is when the checkpoint was taken.
	Time metav1.Time `json:"time"`
	// InsertsPerSec is the insert rate of the segment since the previous
	// checkpoint, in documents per second.
	InsertsPerSec float64 `json:"insertsPerSec"`
	// InsertP50Micros and InsertP99Micros are the latencies of the
	// segment's insert calls (one document each, or one batch).
	InsertP50Micros int64 `json:"insertP50Micros"`
	InsertP99Micros int64 `json:"insertP99Micros"`
	// InsertErrors counts the segment's failed insert calls.
	// +optional
	InsertErrors int64 `json:"insertErrors,omitempty"`
	// Resumed marks a segment during which a loader resumed the phase:
	// its rate covers the measured part only (none, and zeros, when a
	// killed loader made all of its inserts; reports then leave it out).
	// +optional
	Resumed bool `json:"resumed,omitempty"`
	// Queries holds each query class's run, in order.
	// +optional
	Queries []GrowthQueryResult `json:"queries,omitempty"`
	// Sizes are the collection's statistics at the checkpoint (absent when
	// they could not be read); of each shard only its document count, to
	// keep 200 rows of 16 shards within status. Every shard's sizes are in
	// the phase's histograms ConfigMap (status.results[].histograms,
	// growth.checkpoints[].sizes).
	// +optional
	Sizes *CollectionSummary `json:"sizes,omitempty"`
}

// GrowthQueryResult is one query class's run at a checkpoint.
type GrowthQueryResult struct {
	// Name is Q1, Q2, Q3 or Q4.
	Name GrowQuery `json:"name"`
	// OpsPerSec is queries per second over the run.
	OpsPerSec float64 `json:"opsPerSec"`
	// P50Micros and P99Micros of the successful queries.
	P50Micros int64 `json:"p50Micros"`
	P99Micros int64 `json:"p99Micros"`
	// Documents returned per query, on average.
	DocumentsPerQuery float64 `json:"documentsPerQuery"`
	// Errors counts failed queries.
	// +optional
	Errors int64 `json:"errors,omitempty"`
}
