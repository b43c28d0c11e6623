package v1alpha1

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// MaxDisruptions bounds a phase's disruptions: each keeps a 100 ms series of
// 40 s in the phase's merged result.
const MaxDisruptions = 10

// DisruptionAction is what a disruption does.
//
// StepDown is a MongoDB command (loader 0 sends it); KillPrimary,
// RestartMember and KillMongos are pod deletions (the controller deletes
// the pod loader 0 names, or the mongos); Pause is the controller's too
// (an ephemeral container in the member's pod freezes its mongod).
// +kubebuilder:validation:Enum=StepDown;KillPrimary;RestartMember;KillMongos;Pause
// +kubebuilder:validation:MaxLength=16
type DisruptionAction string

// Disruption actions.
const (
	// DisruptionStepDown runs replSetStepDown on the replica set's primary
	// (from loader 0, inside the cluster): the primary steps down, an
	// electable secondary takes over, and the old primary cannot be
	// elected again for stepDownSecs.
	DisruptionStepDown DisruptionAction = "StepDown"
	// DisruptionKillPrimary deletes the primary's pod with the shortest
	// stop the kubelet allows (SIGTERM, then SIGKILL 2 s later). The
	// controller recreates the pod (same name, same volume) and the
	// member rejoins the set.
	DisruptionKillPrimary DisruptionAction = "KillPrimary"
	// DisruptionRestartMember deletes a member's pod (member) with the
	// pod's own grace period: mongod gets SIGTERM and shuts down in
	// order (a primary first tries to step down). The controller
	// recreates the pod and the member rejoins the set.
	DisruptionRestartMember DisruptionAction = "RestartMember"
	// DisruptionKillMongos deletes the mongos' pod of a Sharded topology
	// with the shortest stop the kubelet allows, as KillPrimary does: every
	// loader loses its entry point until the controller has recreated it.
	DisruptionKillMongos DisruptionAction = "KillMongos"
	// DisruptionPause freezes a member's mongod for duration, the way a
	// long GC pause or a frozen VM looks: SIGSTOP, then SIGCONT, sent by
	// a container the controller adds to the member's pod (an ephemeral
	// container of the loader image, in the pod's shared process
	// namespace). The process answers nothing meanwhile, heartbeats
	// included: a frozen primary longer than the set's election timeout
	// (10 s) is replaced, and steps down when it wakes.
	DisruptionPause DisruptionAction = "Pause"
)

// Bounds of a Pause's duration. The measurements around a disruption
// cover 30 s after its instant (its 100 ms series, its unavailability): a
// freeze longer than 20 s would outlast them, and its end, the recovery,
// would go unmeasured.
const (
	MinPauseDuration = time.Second
	MaxPauseDuration = 20 * time.Second
)

// TargetConfigServer is the target of a disruption that hits the config
// server's replica set of a Sharded topology (a shard is its index).
const TargetConfigServer = "configServer"

// Targets of RestartMember besides a member's index.
const (
	// MemberPrimary is whichever member is primary at the instant.
	MemberPrimary = "primary"
	// MemberSecondary is one member that is secondary at the instant.
	MemberSecondary = "secondary"
)

// DeletesPod reports whether the action is a pod deletion, the
// controller's to carry out (the others are loader 0's commands, and
// Pause).
func (a DisruptionAction) DeletesPod() bool {
	return a == DisruptionKillPrimary || a == DisruptionRestartMember || a == DisruptionKillMongos
}

// ByController reports whether the controller carries the action out, at
// loader 0's request through the ledger: a pod deletion or a Pause.
func (a DisruptionAction) ByController() bool { return a.DeletesPod() || a == DisruptionPause }

// Defaults of replSetStepDown (MongoDB manual, "replSetStepDown": 60 s
// when the stepdown period is not numeric, secondaryCatchUpPeriodSecs 10).
const (
	DefaultStepDownSecs               = 60
	DefaultSecondaryCatchUpPeriodSecs = 10
)

// Disruption is one fault injected into a phase under load, at an instant
// of its measured window, and measured with the phase's own histograms:
// how long writes and reads were unavailable to every loader, the errors
// the clients saw, what the driver retried, and throughput and latency at
// 100 ms resolution from 10 s before to 30 s after. It runs once: a
// manager restart or a replaced loader pod never repeats it.
//
// +kubebuilder:validation:XValidation:rule="(has(self.stepDownSecs) ? self.stepDownSecs : 60) > (has(self.secondaryCatchUpPeriodSecs) ? self.secondaryCatchUpPeriodSecs : 10)",message="stepDownSecs must be greater than secondaryCatchUpPeriodSecs (defaults 60 and 10): replSetStepDown refuses it otherwise"
// +kubebuilder:validation:XValidation:rule="self.action == 'StepDown' || (!has(self.stepDownSecs) && !has(self.secondaryCatchUpPeriodSecs))",message="stepDownSecs and secondaryCatchUpPeriodSecs are replSetStepDown's: only for action StepDown"
// +kubebuilder:validation:XValidation:rule="has(self.member) == (self.action in ['RestartMember', 'Pause'])",message="member is RestartMember's and Pause's, and they need it: a member's index (0 to topology.members - 1), primary or secondary"
// +kubebuilder:validation:XValidation:rule="has(self.duration) == (self.action == 'Pause')",message="duration is Pause's, and Pause needs it: how long the member stays frozen (1s to 20s)"
// +kubebuilder:validation:XValidation:rule="!has(self.member) || (type(self.member) == int ? int(self.member) >= 0 : string(self.member) in ['primary', 'secondary'])",message="member is a member's index (0 to topology.members - 1), primary or secondary"
// +kubebuilder:validation:XValidation:rule="!has(self.target) || (type(self.target) == int ? int(self.target) >= 0 : string(self.target) == 'configServer')",message="target is a shard's index (0 to topology.shards - 1) or configServer"
// +kubebuilder:validation:XValidation:rule="!has(self.target) || self.action != 'KillMongos'",message="KillMongos takes no target: it deletes the mongos"
type Disruption struct {
	// At is when the disruption happens, counted from the start of the
	// phase's measured window (after its warm-up). The window's start is
	// the instant the start barrier sets for every loader, so every
	// loader and the actor agree on it.
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('0s') && duration(self) <= duration('24h')",message="at must be between 0s and 24h"
	At metav1.Duration `json:"at"`

	// Action is what happens: StepDown (replSetStepDown on the primary),
	// KillPrimary (the primary's pod deleted with the kubelet's shortest
	// stop: SIGTERM, SIGKILL 2 s later), RestartMember (member's pod
	// deleted with its grace period: an orderly shutdown), KillMongos (the
	// mongos' pod, as KillPrimary) or Pause (member's mongod frozen for
	// duration). A deleted pod is recreated under the same name and
	// volume, and its member rejoins the set.
	Action DisruptionAction `json:"action"`

	// Member is the member RestartMember restarts, or Pause freezes: its index in the set
	// (0 to topology.members - 1, pod <run>-rs0-<index>; of a Sharded
	// topology's target, 0 to topology.shardMembers or
	// configServerMembers - 1), or primary or secondary, whichever member
	// is one at the instant (as loader 0's driver knows it).
	// RestartMember only, where it is required.
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=9
	// +optional
	Member *intstr.IntOrString `json:"member,omitempty"`

	// Target is the replica set that a StepDown, KillPrimary or
	// RestartMember hits in a Sharded topology: a shard's index (0 to
	// topology.shards - 1, replica set shard<index>) or configServer.
	// Required for those actions there; a ReplicaSet topology has one set
	// (no target), and KillMongos has none. Members of a shard are
	// numbered as in topology.shardMembers, of the config server as in
	// topology.configServerMembers.
	//
	// A disruption of one shard leaves the others serving: through
	// mongos, the operations that go to other shards go on. So its
	// unavailability is measured to the first success after the last
	// operation it visibly hit (failed or retried), and after the shard
	// had a primary again (as each loader's own monitor of that replica
	// set saw it), not to the first success after the instant
	// (docs/disruptions.md).
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=12
	// +optional
	Target *intstr.IntOrString `json:"target,omitempty"`

	// Duration is how long a Pause keeps the member frozen (1s to 20s:
	// the measurements around a disruption cover 30 s after its instant),
	// from when its mongod was stopped. Longer than the set's election
	// timeout (10 s by default), the frozen primary is replaced. Pause
	// only, where it is required.
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1s') && duration(self) <= duration('20s')",message="duration must be between 1s and 20s: the measurements around a disruption cover 30 s after its instant"
	// +optional
	Duration *metav1.Duration `json:"duration,omitempty"`

	// StepDownSecs is replSetStepDown's stepdown period: for this long the
	// old primary cannot become primary again (default 60).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=86400
	// +optional
	StepDownSecs *int32 `json:"stepDownSecs,omitempty"`

	// SecondaryCatchUpPeriodSecs is how long the primary waits for an
	// electable secondary to catch up before it steps down (default 10).
	// The command returns once it stepped down, so its duration is
	// reported with the disruption.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=86399
	// +optional
	SecondaryCatchUpPeriodSecs *int32 `json:"secondaryCatchUpPeriodSecs,omitempty"`
}

// StepDownSeconds is the stepdown period with its default.
func (d *Disruption) StepDownSeconds() int32 {
	if d.StepDownSecs != nil {
		return *d.StepDownSecs
	}
	return DefaultStepDownSecs
}

// CatchUpSeconds is secondaryCatchUpPeriodSecs with its default.
func (d *Disruption) CatchUpSeconds() int32 {
	if d.SecondaryCatchUpPeriodSecs != nil {
		return *d.SecondaryCatchUpPeriodSecs
	}
	return DefaultSecondaryCatchUpPeriodSecs
}

// DisruptionState is how a disruption's action ended
// (status.results[].disruptions[].outcome.state).
// +kubebuilder:validation:Enum=Done;Failed;Unknown;NotReached
// +kubebuilder:validation:MaxLength=16
type DisruptionState string

// Disruption states.
const (
	// DisruptionDone: the action was sent and returned without error (a
	// pod deletion: the API server accepted it).
	DisruptionDone DisruptionState = "Done"
	// DisruptionFailed: the action returned an error (outcome.error).
	DisruptionFailed DisruptionState = "Failed"
	// DisruptionUnknown: the action was sent, by a loader that did not
	// live to report how it ended; it was not sent again.
	DisruptionUnknown DisruptionState = "Unknown"
	// DisruptionNotReached: the measured window ended before the
	// disruption's instant; nothing was sent.
	DisruptionNotReached DisruptionState = "NotReached"
)

// DisruptionResult is one disruption of a phase as every loader measured
// it. Times are in microseconds from the disruption's instant; a figure
// over loaders is the maximum and the median of the loaders that measured
// one, never an average of averages.
type DisruptionResult struct {
	// Index is the disruption's position in spec.phases[].disruptions.
	Index int32 `json:"index"`
	// Action is what happened (StepDown, KillPrimary, …).
	Action DisruptionAction `json:"action"`
	// At is the disruption's at: from the start of the measured window.
	At metav1.Duration `json:"at"`
	// Target is the replica set it hit in a Sharded topology: shard<i>
	// (target i) or cfg (configServer); absent otherwise.
	// +kubebuilder:validation:MaxLength=16
	// +optional
	Target string `json:"target,omitempty"`
	// Instant is when it happened: the measured window's start plus at,
	// by the clock of loader 0, its actor.
	Instant metav1.MicroTime `json:"instant"`
	// Outcome is what the actor did.
	Outcome DisruptionOutcome `json:"outcome"`
	// WriteUnavailable is, per loader, the time from the instant to the
	// end of its first successful write (insert, update, delete) that
	// started after the loader saw the disruption: after the first write
	// it failed or retried, or after its driver lost the primary, and not
	// before the instant (an operation that starts before the action
	// reaches the server proves nothing). A Pause of the primary counts
	// from its freeze (outcome.frozen) instead of the instant, and so
	// does its NewPrimary. Absent when no loader wrote after the instant.
	// +optional
	WriteUnavailable *LoaderTimes `json:"writeUnavailable,omitempty"`
	// ReadUnavailable is the same for reads (read, scan).
	// +optional
	ReadUnavailable *LoaderTimes `json:"readUnavailable,omitempty"`
	// NewPrimary is, per loader, the time from the instant to when its
	// driver first knew of a writable primary elected after it; missing
	// counts the loaders whose driver did not within 30 s.
	// +optional
	NewPrimary *LoaderTimes `json:"newPrimary,omitempty"`
	// NewPrimaryTelemetryMicros is the time from the instant to the first
	// telemetry sample (spec.telemetry) in which a member of the set
	// reported another primary, or another election of it, than before
	// the instant: a bound at the sampling interval's resolution. Absent
	// without telemetry, or when no sample showed one.
	// +optional
	NewPrimaryTelemetryMicros *int64 `json:"newPrimaryTelemetryMicros,omitempty"`
	// Errors counts the operations that failed from the instant to 30 s
	// after it (or the window's end), by label: the server's code name
	// (NotWritablePrimary, InterruptedDueToReplStateChange, …) or
	// NetworkError, Timeout, ServerSelectionTimeout, Other; summed over
	// the loaders, the most frequent first.
	// +listType=map
	// +listMapKey=label
	// +optional
	Errors []DisruptionErrorCount `json:"errors,omitempty"`
	// Retried counts the operations, ended in the same stretch, that the
	// driver sent more than once (retryable writes or reads), and
	// RetriedOK those of them that succeeded in the end.
	// +optional
	Retried int64 `json:"retried,omitempty"`
	// +optional
	RetriedOK int64 `json:"retriedOK,omitempty"`
	// Before is the phase's throughput and p99 before the instant: from
	// the start of the measured window, or the end of the previous
	// disruption's 30 s, to the instant. After is the same once it
	// recovered: the last half of the time from the instant to the next
	// disruption, or to the window's end. Both come from the phase's
	// merged series and cover its whole intervals only; absent when
	// none fits.
	// +optional
	Before *DisruptionPerformance `json:"before,omitempty"`
	// +optional
	After *DisruptionPerformance `json:"after,omitempty"`
}

// DisruptionOutcome is what a disruption's actor did, and when.
type DisruptionOutcome struct {
	// State is Done, Failed, Unknown or NotReached.
	State DisruptionState `json:"state"`
	// Sent is when the action was sent (absent when NotReached).
	// +optional
	Sent *metav1.MicroTime `json:"sent,omitempty"`
	// DurationMicros is how long the action took to return (Done,
	// Failed): a StepDown returns once the primary stepped down, after
	// up to secondaryCatchUpPeriodSecs of waiting for a secondary; a pod
	// deletion once the API server accepted it, from loader 0's request
	// (the controller's reaction included; the pod's shutdown is not).
	// +optional
	DurationMicros *int64 `json:"durationMicros,omitempty"`
	// Error is the action's error (Failed), or why its outcome is
	// unknown (Unknown).
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	Error string `json:"error,omitempty"`
	// Primary is the member (host:port) that was primary when the action
	// was sent, as the actor's driver knew it: for KillPrimary, the
	// member whose pod was deleted.
	// +optional
	Primary string `json:"primary,omitempty"`
	// Pod is the pod a KillPrimary or RestartMember deleted, or whose
	// mongod a Pause froze (or would have, when Failed after it was
	// chosen).
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Pod string `json:"pod,omitempty"`
	// Frozen is when a Pause's mongod was seen stopped, and
	// FrozenMicros how long it stayed so, as the freezing container
	// measured (Pause only, once it reported).
	// +optional
	Frozen *metav1.MicroTime `json:"frozen,omitempty"`
	// +optional
	FrozenMicros *int64 `json:"frozenMicros,omitempty"`
}

// LoaderTimes is a time every loader measured from a disruption's instant:
// the maximum and the median over the loaders that measured one, in
// microseconds, how many did, and how many did not (missing).
type LoaderTimes struct {
	// MaxMicros and MedianMicros are over the loaders that measured one
	// (0 when none did).
	MaxMicros    int64 `json:"maxMicros"`
	MedianMicros int64 `json:"medianMicros"`
	// Loaders is how many loaders measured one.
	Loaders int32 `json:"loaders"`
	// Missing is how many loaders did not: for writes and reads, those
	// that tried and never succeeded before their window ended
	// (unrecovered: the maximum is then a lower bound at best); for a new
	// primary, those whose driver saw none within 30 s.
	// +optional
	Missing int32 `json:"missing,omitempty"`
}

// DisruptionErrorCount is how many operations failed with one label.
type DisruptionErrorCount struct {
	// Label is the server's code name or the client's error class.
	Label string `json:"label"`
	// Count of the failed operations.
	Count int64 `json:"count"`
}

// DisruptionPerformance is the phase's throughput and p99 over a stretch
// around a disruption, from its merged series.
type DisruptionPerformance struct {
	// Millis is the length of the stretch, whole series intervals.
	Millis int64 `json:"millis"`
	// Throughput is operations (failed ones included) per second.
	Throughput float64 `json:"throughput"`
	// P99Micros is the p99 of the successful operations, at the series'
	// precision.
	P99Micros int64 `json:"p99Micros"`
}

// ActionLabel is the action as reports name it: with the replica set it
// hit in a Sharded topology ("StepDown shard1"), else the action alone.
func (d *DisruptionResult) ActionLabel() string {
	if d.Target == "" {
		return string(d.Action)
	}
	return string(d.Action) + " " + d.Target
}
