package controllers

import (
	"testing"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// TestAdvanceBranches: the guard that keeps a Failed run Failed is also
// implied by the ranks (Failed ranks with Succeeded, above every live
// phase), so no row can tell it apart; its row holds the promise either way.
func TestAdvanceBranches(t *testing.T) {
	for _, tc := range []struct {
		name            string
		cur, next, want benchv1.RunLifecycle
	}{
		{"forward from nothing", "", benchv1.RunPending, benchv1.RunPending},
		{"forward, skipping phases", benchv1.RunPending, benchv1.RunLoading, benchv1.RunLoading},
		{"forward to Succeeded", benchv1.RunRunning, benchv1.RunSucceeded, benchv1.RunSucceeded},
		{"Failed from any live phase", benchv1.RunProvisioning, benchv1.RunFailed, benchv1.RunFailed},
		{"same phase: unchanged", benchv1.RunLoading, benchv1.RunLoading, benchv1.RunLoading},
		{"backwards: ignored", benchv1.RunRunning, benchv1.RunLoading, benchv1.RunRunning},
		{"unknown phase: ignored", benchv1.RunLoading, "Paused", benchv1.RunLoading},
		{"unknown phase from nothing: ignored", "", "Paused", ""},
		{"Succeeded is final, even for Failed", benchv1.RunSucceeded, benchv1.RunFailed, benchv1.RunSucceeded},
		{"Failed is final, even for Succeeded", benchv1.RunFailed, benchv1.RunSucceeded, benchv1.RunFailed},
	} {
		if got := advance(tc.cur, tc.next); got != tc.want {
			t.Errorf("%s: advance(%q, %q) = %q, want %q", tc.name, tc.cur, tc.next, got, tc.want)
		}
	}
}
