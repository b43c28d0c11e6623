package v1alpha1

// Condition types, for tools (kubectl wait --for=condition=Complete, the
// kubectl-mongobench plugin, CI gates).
const (
	// ConditionTopologyReady is True once every MongoDB process is running
	// and bootstrapped; its reason and message say what is still missing.
	ConditionTopologyReady = "TopologyReady"
	// ConditionComplete is True when the run succeeded.
	ConditionComplete = "Complete"
	// ConditionFailed is True when the run failed; its reason tells the
	// failure kinds apart (the Reason* failure constants below) and its
	// message says what happened.
	ConditionFailed = "Failed"
	// ConditionValidatorApplied is True once spec.collection's validator is
	// in place (only present when spec.collection is set).
	ConditionValidatorApplied = "ValidatorApplied"
	// ConditionWarnings is True when the run's environment may skew its
	// numbers (database pods that are not Guaranteed QoS); the message
	// lists what. It is set once the topology is ready.
	ConditionWarnings = "Warnings"
	// ConditionRegressed is set once a run with spec.compare succeeded, or
	// a sweep with spec.compare ended with successful runs: True when a
	// metric (of any cell) Regressed and is not acknowledged, False when
	// none did, Unknown when no comparison could be made. The message is
	// a one-line summary.
	ConditionRegressed = "Regressed"
	// ConditionValid is set when a run ends: True when what it measured is
	// the database under the run's settings, False with the first
	// invalidating reason (the Reason* validity constants below) and a
	// message listing every one. A Succeeded run can be invalid: its
	// numbers are kept but left out of sweeps' aggregates and regression
	// histories, and gating it gives the verdict Invalid.
	ConditionValid = "Valid"
)

// Reasons of the Valid condition (ReasonValid when True).
const (
	// ReasonTooManyErrors: a phase's failed operations exceeded
	// spec.validity.maxErrorPercent.
	ReasonTooManyErrors Reason = "TooManyErrors"
	// ReasonProcessRestarted: a MongoDB process restarted during a phase
	// (its uptime went down).
	ReasonProcessRestarted Reason = "ProcessRestarted"
	// ReasonPrimaryChanged: a replica set's primary changed during a
	// phase (an election, a stepdown).
	ReasonPrimaryChanged Reason = "PrimaryChanged"
	// ReasonCacheSizeMismatch: a mongod's WiredTiger cache was not the
	// size the run configured (serverStatus "maximum bytes configured").
	ReasonCacheSizeMismatch Reason = "CacheSizeMismatch"
	// ReasonConnectionLimit: a MongoDB process ran out of connections
	// (connections.available reached 0).
	ReasonConnectionLimit Reason = "ConnectionLimitReached"
	// ReasonLoaderSaturated: a loader used more than
	// spec.validity.maxLoaderCPUPercent of the CPU it may use, or its CPU
	// quota throttled it more than maxLoaderThrottledPercent of the time:
	// the client may have set the pace, not MongoDB.
	ReasonLoaderSaturated Reason = "LoaderSaturated"
	// ReasonRunFailed (also a sweep's reason) marks a failed run invalid.
)

// ValidityReasons lists the reasons a Valid condition that is False may
// carry.
func ValidityReasons() []Reason {
	return []Reason{ReasonTooManyErrors, ReasonProcessRestarted, ReasonPrimaryChanged, ReasonCacheSizeMismatch,
		ReasonConnectionLimit, ReasonLoaderSaturated, ReasonRunFailed}
}

// Reasons of the Regressed condition.
const (
	// ReasonRegression: at least one metric regressed.
	ReasonRegression Reason = "Regression"
	// ReasonNoRegression: no metric regressed.
	ReasonNoRegression Reason = "NoRegression"
	// ReasonBaselineUnavailable: the baseline (run, sweep cell or history)
	// has no results to compare with; the message says why.
	ReasonBaselineUnavailable Reason = "BaselineUnavailable"
	// ReasonRunInvalid: the gated run is not Valid; its metrics' verdicts
	// are Invalid.
	ReasonRunInvalid Reason = "RunInvalid"
)

// Reason is the machine-readable reason of a condition, and of the event
// that reports the same transition. Tools tell failures apart by the
// Failed condition's reason, so these values are API: they are only ever
// added to, never renamed.
type Reason string

// Reasons of a Failed condition that is True: why the run failed. The
// README's troubleshooting table says what to do about each.
const (
	// ReasonNodeNotFound: placement.nodeName names no node. A sweep fails
	// with it too, before it creates anything, when a cell's does.
	ReasonNodeNotFound Reason = "NodeNotFound"
	// ReasonInsufficientResources: no Ready, schedulable node matching the
	// run's placement has enough allocatable resources for all of the
	// topology's database pods together (they share one node). A sweep
	// fails with it too, before it creates anything, when a cell's
	// topology fits no node.
	ReasonInsufficientResources Reason = "InsufficientResources"
	// ReasonTopologyFailed: a MongoDB pod could not start: unschedulable for
	// longer than the manager's --unschedulable-timeout, an image that
	// cannot be pulled, a container that cannot be created or keeps
	// crashing.
	ReasonTopologyFailed Reason = "TopologyFailed"
	// ReasonTopologyLost: a MongoDB pod restarted, disappeared or was being
	// deleted after the topology was ready; the numbers would be
	// meaningless.
	ReasonTopologyLost Reason = "TopologyLost"
	// ReasonTimeout: the run outlived spec.timeout.
	ReasonTimeout Reason = "Timeout"
	// ReasonBootstrapFailed: the bootstrap Job (replica sets, shards,
	// collection) failed or reported an unusable result.
	ReasonBootstrapFailed Reason = "BootstrapFailed"
	// ReasonSecretNotFound: a Secret, or a key of it, that
	// topology.external names does not exist; the message names the
	// Secret and the key, never a value.
	ReasonSecretNotFound Reason = "SecretNotFound"
	// ReasonTargetNotEmpty: the External run's database already holds
	// collections and external.allowExistingData is false; nothing was
	// written.
	ReasonTargetNotEmpty Reason = "TargetNotEmpty"
	// ReasonValidatorFailed: the Job applying spec.collection failed.
	ReasonValidatorFailed Reason = "ValidatorFailed"
	// ReasonPhaseFailed: a phase's loader Job failed, could not run, or
	// completed without writing every loader's result.
	ReasonPhaseFailed Reason = "PhaseFailed"
	// ReasonResultInvalid: a loader's result is corrupt, of the wrong kind
	// or from the wrong loader.
	ReasonResultInvalid Reason = "ResultInvalid"
)

// Reasons of the TopologyReady condition while it is False, and when True.
const (
	// ReasonProvisioning: the run started; nothing is placed yet.
	ReasonProvisioning Reason = "Provisioning"
	// ReasonWaitingForNode: the first database pod is not scheduled yet;
	// with placement.exclusive, possibly because every fitting node is busy
	// with another benchmark (the message names them). Not a failure.
	ReasonWaitingForNode Reason = "WaitingForNode"
	// ReasonWaitingForPods: database pods are starting.
	ReasonWaitingForPods Reason = "WaitingForPods"
	// ReasonBootstrapping: the bootstrap Job is running.
	ReasonBootstrapping Reason = "Bootstrapping"
	// ReasonReady: every process is running and bootstrapped.
	ReasonReady Reason = "Ready"
)

// Reasons of the Complete and Failed conditions while the run is going, and
// after success.
const (
	// ReasonRunning: the run has not ended.
	ReasonRunning Reason = "Running"
	// ReasonSucceeded: every phase finished.
	ReasonSucceeded Reason = "Succeeded"
)

// Reasons of the ValidatorApplied condition.
const (
	// ReasonApplying: the collMod Job is running.
	ReasonApplying Reason = "Applying"
	// ReasonApplied: the validator is in place.
	ReasonApplied Reason = "Applied"
)

// Reasons of the Warnings condition.
const (
	// ReasonEnvironmentWarnings: something in the environment may skew the
	// numbers (the message says what).
	ReasonEnvironmentWarnings Reason = "EnvironmentWarnings"
	// ReasonNoWarnings: nothing found.
	ReasonNoWarnings Reason = "NoWarnings"
)

// Reasons of events that mark a step without a condition of their own.
// (Each change of a run's status.phase is also an event, with the new
// RunLifecycle as its reason.)
const (
	EventNodeSelected      Reason = "NodeSelected"
	EventBootstrapped      Reason = "Bootstrapped"
	EventTopologyReady     Reason = "TopologyReady"
	EventApplyingValidator Reason = "ApplyingValidator"
	EventValidatorApplied  Reason = "ValidatorApplied"
	EventPhaseStarted      Reason = "PhaseStarted"
	EventPhaseCompleted    Reason = "PhaseCompleted"
	EventDiagnosticsStored Reason = "DiagnosticsStored"
	EventCleanedUp         Reason = "CleanedUp"
	EventEnvironment       Reason = "EnvironmentRecorded"
	// EventTelemetryInvalid (a Warning): a phase's server telemetry was
	// unusable; the phase's results stand without it.
	EventTelemetryInvalid Reason = "TelemetryInvalid"
	// EventHistogramsNotKept (a Warning): a phase's merged histograms could
	// not be stored in a ConfigMap; the phase's results stand without them.
	EventHistogramsNotKept Reason = "HistogramsNotKept"
	// EventDisruptionPodDeleted: a KillPrimary or RestartMember deleted a
	// member's pod; EventDisruptionPodRecreated: the controller created
	// it again. EventDisruptionFailed (a Warning): a pod deletion could
	// not be carried out; the phase goes on without it.
	EventDisruptionPodDeleted   Reason = "DisruptionPodDeleted"
	EventDisruptionPodRecreated Reason = "DisruptionPodRecreated"
	EventDisruptionFailed       Reason = "DisruptionFailed"
	// EventDisruptionFreezing: a Pause's container was added to a
	// member's pod; EventDisruptionThawed: it reported the member's
	// mongod continued, and how long it was frozen.
	EventDisruptionFreezing Reason = "DisruptionFreezing"
	EventDisruptionThawed   Reason = "DisruptionThawed"
)

// FailureReasons lists the reasons a Failed condition may carry, for tools
// and for tests that keep the README's table complete.
func FailureReasons() []Reason {
	return []Reason{
		ReasonNodeNotFound, ReasonInsufficientResources, ReasonTopologyFailed, ReasonTopologyLost, ReasonTimeout,
		ReasonBootstrapFailed, ReasonSecretNotFound, ReasonTargetNotEmpty, ReasonValidatorFailed, ReasonPhaseFailed, ReasonResultInvalid,
	}
}

// Condition types of a BenchmarkSweep (besides Complete and Failed, which
// mean the same as a run's).
const (
	// ConditionValidated is True once every cell's spec passed the API
	// server's validation (a server-side dry run), before any run exists.
	ConditionValidated = "Validated"
)

// Reasons of a sweep's conditions.
const (
	// ReasonValid: every cell's spec is accepted.
	ReasonValid Reason = "Valid"
	// ReasonValidating: the dry runs could not be made yet (the API server
	// did not answer); the message says why; the controller retries.
	ReasonValidating Reason = "Validating"
	// ReasonWaitingForOldRuns: runs of a deleted sweep of the same name
	// still hold the names of the new sweep's runs; they are being removed.
	ReasonWaitingForOldRuns Reason = "WaitingForOldRuns"
	// ReasonRunDeleted: a run the sweep created was deleted before the
	// sweep ended; it counts as failed and is not created again.
	ReasonRunDeleted Reason = "RunDeleted"
	// ReasonInvalidSweep: the axes cannot be expanded (a patch that is not
	// a BenchmarkRun spec, too many result rows); nothing was created.
	ReasonInvalidSweep Reason = "InvalidSweep"
	// ReasonInvalidCell: the API server rejected a cell's spec in the dry
	// run; the message names the cell; nothing was created.
	ReasonInvalidCell Reason = "InvalidCell"
	// ReasonNameConflict: a BenchmarkRun with a child's name exists and
	// does not belong to the sweep.
	ReasonNameConflict Reason = "NameConflict"
	// ReasonRunFailed: a run failed under failurePolicy Stop.
	ReasonRunFailed Reason = "RunFailed"
	// ReasonAllRunsFailed: every run failed.
	ReasonAllRunsFailed Reason = "AllRunsFailed"
	// ReasonSomeRunsFailed: the sweep ended PartiallySucceeded.
	ReasonSomeRunsFailed Reason = "SomeRunsFailed"
	// EventRunCreated marks the creation of a child run.
	EventRunCreated Reason = "RunCreated"
	// EventPruned marks the deletion of older sweeps of a series beyond
	// spec.historyLimit.
	EventPruned Reason = "Pruned"
)

// SweepFailureReasons lists the reasons a sweep's Failed condition may
// carry: its own, and the pre-flight reasons of a cell that cannot run,
// found before the sweep starts.
func SweepFailureReasons() []Reason {
	return []Reason{ReasonInvalidSweep, ReasonInvalidCell, ReasonNodeNotFound, ReasonInsufficientResources, ReasonNameConflict,
		ReasonRunFailed, ReasonAllRunsFailed}
}
