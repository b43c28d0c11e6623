package mongodb

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/testutil/stubmongo"
)

// TestNewClientCredential: against a server with access control,
// Config.Credential authenticates every connection (the URL holds none);
// a wrong password fails NewClient at once with the server's 18, no
// credential with 13 from the access check, each saying how the loader
// connected, and neither the error nor the log holds the password.
func TestNewClientCredential(t *testing.T) {
	const password = "pw-loader-5e8a21"
	admin := stubmongo.User{DB: "admin", Name: "mongobench", Password: password}
	for _, tc := range []struct {
		name string
		cred *options.Credential
		want []string // in the error; none: it connects
	}{
		{"admin user", &options.Credential{AuthSource: "admin", Username: admin.Name, Password: password}, nil},
		{"wrong password", &options.Credential{AuthSource: "admin", Username: admin.Name, Password: "nope"},
			[]string{"(mongodb.url) as mongobench after ", `unable to authenticate using mechanism "SCRAM-SHA-256": (AuthenticationFailed) Authentication failed.`}},
		{"no credential", nil, []string{"refuses the loader, connected without credentials (MONGOBENCH_USERNAME and MONGOBENCH_PASSWORD are not set): " +
			"(Unauthorized) Command listCollections requires authentication"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := stubmongo.Start(t, stubmongo.RequireAuth(admin))
			// A short heartbeat: a client closed right after it connected
			// may wait out its monitor's held hello.
			cfg := Config{URL: "mongodb://" + srv.Addr() + "/ycsb?w=1&heartbeatFrequencyMS=500", Database: "ycsb", BatchSize: 1,
				OperationTimeout: 5 * time.Second, Credential: tc.cred}
			var log bytes.Buffer
			c, err := NewClient(context.Background(), cfg, &log)
			if strings.Contains(log.String(), password) || (err != nil && strings.Contains(err.Error(), password)) {
				t.Errorf("the password shows: %v\n%s", err, log.String())
			}
			if tc.want == nil {
				if err != nil {
					t.Fatalf("NewClient: %v", err)
				}
				defer func() { _ = c.Close(context.Background()) }()
				if !strings.Contains(log.String(), "connected with mongodb://"+srv.Addr()+"/ycsb?w=1&heartbeatFrequencyMS=500 as mongobench (") {
					t.Errorf("the log does not say as whom it connected:\n%s", log.String())
				}
				for _, a := range srv.Authentications() {
					if a != "admin.mongobench" {
						t.Errorf("authenticated as %s", a)
					}
				}
				if r := srv.Refused(); len(r) != 0 {
					t.Errorf("commands refused: %v", r)
				}
				return
			}
			if err == nil {
				t.Fatalf("connected, want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v, want %q", err, w)
				}
			}
			// One attempt, not retried (closing the client sends
			// endSessions, refused too).
			refused := 0
			for _, name := range srv.Refused() {
				if name != "endSessions" {
					refused++
				}
			}
			if n := srv.AuthFailures() + int64(refused); n != 1 {
				t.Errorf("%d failed authentications, refused %v; want one refused attempt", srv.AuthFailures(), srv.Refused())
			}
		})
	}
}
