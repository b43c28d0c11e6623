package controllers

import (
	"testing"

	"k8s.io/utils/ptr"

	"github.com/mongobench/mongobench/internal/telemetry"
)

// TestReplicationLagSummaries: each primary's largest lag reaches its
// server entry, the phase's is the largest of them, and processes that
// are no primary of a set of several members have none.
func TestReplicationLagSummaries(t *testing.T) {
	rep := &telemetry.Payload{Processes: []telemetry.ProcessPayload{
		{Role: "member", Pod: "rs-rs0-0", Series: telemetry.Series{MaxReplLagMillis: ptr.To[int64](35)}},
		{Role: "member", Pod: "rs-rs0-1"},
		{Role: "shard", Pod: "sm-shard1", Series: telemetry.Series{MaxReplLagMillis: ptr.To[int64](1200)}},
		{Role: "mongos", Pod: "sm-mongos"},
	}}
	b, _, err := telemetry.EncodePayload(rep, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	server, _, err := telemetrySummaries(b, 4)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*int64{}
	for _, s := range server {
		got[s.Pod] = s.MaxReplicationLagMillis
	}
	if got["rs-rs0-0"] == nil || *got["rs-rs0-0"] != 35 || got["sm-shard1"] == nil || *got["sm-shard1"] != 1200 ||
		got["rs-rs0-1"] != nil || got["sm-mongos"] != nil {
		t.Errorf("server lags %v", got)
	}
	if m := maxReplicationLag(server); m == nil || *m != 1200 {
		t.Errorf("phase lag %v, want 1200", m)
	}
	if m := maxReplicationLag(server[1:2]); m != nil {
		t.Errorf("phase lag %d without any", *m)
	}
}
