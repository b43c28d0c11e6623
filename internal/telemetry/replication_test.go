package telemetry

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// statusReply is a primary's replSetGetStatus shaped as mongod writes it
// (members[]: _id, name, state, stateStr, optimeDate with the optime's
// seconds, lastAppliedWallTime with its milliseconds).
func statusReply(t *testing.T, primary time.Time, members ...bson.D) bson.Raw {
	t.Helper()
	all := bson.A{bson.D{{Key: "_id", Value: 0}, {Key: "name", Value: "rs-rs0-0:27017"}, {Key: "state", Value: 1}, {Key: "stateStr", Value: "PRIMARY"},
		{Key: "optimeDate", Value: bson.NewDateTimeFromTime(primary.Truncate(time.Second))},
		{Key: "lastAppliedWallTime", Value: bson.NewDateTimeFromTime(primary)}, {Key: "self", Value: true}}}
	for _, m := range members {
		all = append(all, m)
	}
	b, err := bson.Marshal(bson.D{{Key: "set", Value: "rs0"}, {Key: "myState", Value: 1}, {Key: "members", Value: all}, {Key: "ok", Value: 1.0}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func member(id, state int, stateStr string, wall time.Time) bson.D {
	return bson.D{{Key: "_id", Value: id}, {Key: "state", Value: state}, {Key: "stateStr", Value: stateStr},
		{Key: "optimeDate", Value: bson.NewDateTimeFromTime(wall.Truncate(time.Second))},
		{Key: "lastAppliedWallTime", Value: bson.NewDateTimeFromTime(wall)}}
}

func TestReplLagMillis(t *testing.T) {
	p := time.Date(2026, 11, 27, 4, 0, 0, 750e6, time.UTC)
	for _, tc := range []struct {
		name   string
		reply  bson.Raw
		lag    int64
		wantOK bool
	}{
		{"the furthest secondary, to the millisecond", statusReply(t, p,
			member(1, 2, "SECONDARY", p.Add(-120*time.Millisecond)), member(2, 2, "SECONDARY", p.Add(-1300*time.Millisecond))), 1300, true},
		{"caught up", statusReply(t, p, member(1, 2, "SECONDARY", p), member(2, 2, "SECONDARY", p)), 0, true},
		// A member in initial sync or unreachable is not lagging, it is not
		// a secondary yet: its (zero) wall time must not count.
		{"not secondaries", statusReply(t, p, member(1, 5, "STARTUP2", time.Time{}), member(2, 8, "(not reachable/healthy)", p.Add(-time.Hour))), 0, false},
		{"one member", statusReply(t, p), 0, false},
		{"ahead of the primary's view", statusReply(t, p, member(1, 2, "SECONDARY", p.Add(5*time.Millisecond))), 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lag, ok := ReplLagMillis(tc.reply)
			if lag != tc.lag || ok != tc.wantOK {
				t.Errorf("ReplLagMillis = %d, %v; want %d, %v", lag, ok, tc.lag, tc.wantOK)
			}
		})
	}
	if _, ok := ReplLagMillis(bson.Raw{0x05}); ok {
		t.Error("garbage gave a lag")
	}
}

// TestSeriesMaxReplLag: the series keeps the largest lag of its samples,
// and the summary carries it; a process that never had one has none.
func TestSeriesMaxReplLag(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	var samples []Sample
	for i, lag := range []int64{-1, 40, 900, 15} {
		s := sampleAt(t0.Add(time.Duration(i)*time.Second), int64(1000*(i+1)), nil, nil)
		if lag >= 0 {
			s.ReplLagMillis = iv(lag)
		}
		samples = append(samples, s)
	}
	s := buildSeries(time.Second, samples...)
	if s.MaxReplLagMillis == nil || *s.MaxReplLagMillis != 900 {
		t.Errorf("MaxReplLagMillis %v, want 900", s.MaxReplLagMillis)
	}
	if sum := Summarize("member", "rs-rs0-0", &s); sum.MaxReplLagMillis == nil || *sum.MaxReplLagMillis != 900 {
		t.Errorf("summary %v, want 900", sum.MaxReplLagMillis)
	}
	none := buildSeries(time.Second, samples[0])
	if none.MaxReplLagMillis != nil {
		t.Errorf("no lag sampled, series says %d", *none.MaxReplLagMillis)
	}
}
