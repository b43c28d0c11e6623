package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MaxDisruptions bounds a phase's disruptions: each keeps a 100 ms series of
// 40 s in the phase's merged result.
const MaxDisruptions = 10

// DisruptionAction is what a disruption does.
//
// Only StepDown exists so far; KillPrimary, RestartMember, KillMongos and
// Pause (docs/design/disruptions.md) come with the controller's pod
// deletions. An action is added to this enum only once it runs end to end.
// +kubebuilder:validation:Enum=StepDown
// +kubebuilder:validation:MaxLength=16
type DisruptionAction string

// Disruption actions.
const (
	// DisruptionStepDown runs replSetStepDown on the replica set's primary
	// (from loader 0, inside the cluster): the primary steps down, an
	// electable secondary takes over, and the old primary cannot be
	// elected again for stepDownSecs.
	DisruptionStepDown DisruptionAction = "StepDown"
)

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
type Disruption struct {
	// At is when the disruption happens, counted from the start of the
	// phase's measured window (after its warm-up). The window's start is
	// the instant the start barrier sets for every loader, so every
	// loader and the actor agree on it.
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('0s') && duration(self) <= duration('24h')",message="at must be between 0s and 24h"
	At metav1.Duration `json:"at"`

	// Action is what happens: StepDown.
	Action DisruptionAction `json:"action"`

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
