package v1alpha1

import "testing"

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
