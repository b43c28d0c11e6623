package telemetry

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// replSetGetStatusCommand asks a member for its view of its set.
var replSetGetStatusCommand = bson.D{{Key: "replSetGetStatus", Value: int32(1)}}

// ReplLagMillis is how far the furthest SECONDARY is behind the PRIMARY, in
// milliseconds, from a primary's replSetGetStatus: the primary's
// members[].lastAppliedWallTime minus each SECONDARY's. lastAppliedWallTime
// is the wall-clock time at which the primary wrote the last operation the
// member applied (mongodb/mongo src/mongo/db/repl/topology_coordinator.cpp,
// prepareStatusResponse: "lastAppliedWallTime", beside "optimeDate", which
// has only the optime's seconds); the primary learns its secondaries' from
// their replSetUpdatePosition, so its view is the freshest. An idle set
// has no lag (every member applied the last write). ok is false when the
// reply names no PRIMARY or no SECONDARY (a one-member set has no lag to
// report).
func ReplLagMillis(status bson.Raw) (lag int64, ok bool) {
	var s struct {
		Members []struct {
			State               int       `bson:"state"`
			LastAppliedWallTime time.Time `bson:"lastAppliedWallTime"`
		} `bson:"members"`
	}
	if err := bson.Unmarshal(status, &s); err != nil {
		return 0, false
	}
	var primary time.Time
	var havePrimary bool
	for _, m := range s.Members {
		if m.State == 1 {
			primary, havePrimary = m.LastAppliedWallTime, true
		}
	}
	if !havePrimary || primary.IsZero() {
		return 0, false
	}
	for _, m := range s.Members {
		if m.State != 2 || m.LastAppliedWallTime.IsZero() {
			continue
		}
		ok = true
		if d := primary.Sub(m.LastAppliedWallTime).Milliseconds(); d > lag {
			lag = d
		}
	}
	return lag, ok
}
