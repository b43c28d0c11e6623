package v1alpha1

import (
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/contract"
)

// TestActionLabel: reports name a disruption of a shard or the config
// server with the replica set it hit, any other by its action alone.
func TestActionLabel(t *testing.T) {
	for _, tc := range []struct {
		d    DisruptionResult
		want string
	}{
		{DisruptionResult{Action: DisruptionStepDown}, "StepDown"},
		{DisruptionResult{Action: DisruptionKillPrimary, Target: "shard1"}, "KillPrimary shard1"},
		{DisruptionResult{Action: DisruptionRestartMember, Target: "cfg"}, "RestartMember cfg"},
	} {
		if got := tc.d.ActionLabel(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.d, got, tc.want)
		}
	}
}

// TestPauseBoundsMatchTheFreeze: the API's bounds of a Pause's duration
// are within the freezing command's (`loader freeze --for`), so that
// nothing the API admits is refused by the container, and leave 10 s of
// the 30 s measured after the instant to see the recovery.
func TestPauseBoundsMatchTheFreeze(t *testing.T) {
	if MaxPauseDuration > contract.FreezeMaxFor || MinPauseDuration <= 0 || MaxPauseDuration+10*time.Second > 30*time.Second {
		t.Errorf("Pause duration %v to %v, freeze up to %v", MinPauseDuration, MaxPauseDuration, contract.FreezeMaxFor)
	}
}
