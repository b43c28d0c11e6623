package telemetry

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/testutil/stubmongo"
)

// collStatsReply is one $collStats document of a standalone.
func collStatsReply(bson.Raw) bson.D {
	stats := bson.D{{Key: "count", Value: int64(3)}, {Key: "size", Value: int64(300)}, {Key: "storageSize", Value: int64(4096)},
		{Key: "totalIndexSize", Value: int64(4096)}, {Key: "indexSizes", Value: bson.D{{Key: "_id_", Value: int64(4096)}}}}
	return bson.D{{Key: "cursor", Value: bson.D{{Key: "firstBatch", Value: bson.A{bson.D{{Key: "storageStats", Value: stats}}}},
		{Key: "id", Value: int64(0)}, {Key: "ns", Value: "ycsb.usertable"}}}, {Key: "ok", Value: 1}}
}

// TestSamplerCredential: with Config.Credential the Sampler's clients
// authenticate as the telemetry user, and its samples and statistics are
// taken; with a wrong password or none, each process and the collection
// report the server's refusal once and are not asked again (every refused
// attempt would be a line in the server's log), nothing fails, and no
// error holds the password.
func TestSamplerCredential(t *testing.T) {
	const password = "pw-telemetry-91d3"
	monitor := stubmongo.User{DB: "admin", Name: "mongobench-monitor", Password: password}
	for _, tc := range []struct {
		name string
		cred *options.Credential
		want string // in every error; "" for none
	}{
		{"monitor user", &options.Credential{AuthSource: "admin", Username: monitor.Name, Password: password}, ""},
		{"wrong password", &options.Credential{AuthSource: "admin", Username: monitor.Name, Password: "nope"}, "(AuthenticationFailed)"},
		{"no credential", nil, "(Unauthorized) Command serverStatus requires authentication"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := stubmongo.Start(t, stubmongo.RequireAuth(monitor), stubmongo.Handle("aggregate", collStatsReply))
			// A short heartbeat: a client closed right after it connected
			// (a refused process) may wait out its monitor's held hello.
			uri := srv.URI() + "&serverSelectionTimeoutMS=2000&heartbeatFrequencyMS=500"
			s := Start(context.Background(), Config{
				Interval:   10 * time.Millisecond,
				Timeout:    2 * time.Second,
				Processes:  []Process{{Role: "standalone", Pod: "mongod-0", URI: uri}},
				Collection: &CollectionTarget{URI: uri, Database: "ycsb", Collection: "usertable", Every: 10 * time.Millisecond},
				Credential: tc.cred,
			})
			time.Sleep(100 * time.Millisecond) // several ticks
			r := s.Stop()
			p, c := r.Processes[0], r.Collection
			if tc.want == "" {
				if p.Errors != 0 || p.Series.Samples() < 2 || c.Errors != 0 || c.Final == nil || *c.Final.Count != 3 {
					t.Fatalf("process %d errors (%s), %d samples; collection %+v", p.Errors, p.LastError, p.Series.Samples(), c)
				}
				for _, a := range srv.Authentications() {
					if a != "admin.mongobench-monitor" {
						t.Errorf("authenticated as %s", a)
					}
				}
				return
			}
			if p.Errors != 1 || !strings.Contains(p.LastError, tc.want) || p.Series.Samples() != 0 {
				t.Errorf("process: %d errors, last %q, %d samples; want one error with %q", p.Errors, p.LastError, p.Series.Samples(), tc.want)
			}
			if c.Errors != 1 || c.Final != nil || len(c.Growth) != 0 || !strings.Contains(c.LastError, "$collStats of ycsb.usertable") {
				t.Errorf("collection: %+v; want one error", c)
			}
			for _, e := range []string{p.LastError, c.LastError} {
				if strings.Contains(e, password) {
					t.Errorf("an error shows the password: %s", e)
				}
			}
		})
	}
}
