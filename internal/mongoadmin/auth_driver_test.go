package mongoadmin

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/testutil/stubmongo"
)

// These tests run the real driver path (DialDriverWithCredential, real
// clock) against internal/testutil/stubmongo with access control: a server
// that requires SCRAM-SHA-256 as a mongod started with --keyFile does, and
// answers most commands with a bare {ok: 1} (a standalone bootstrap gets
// through on those).

// keyfilePassword stands for a keyfile's content: __system's password.
const keyfilePassword = "c2VjcmV0LWtleWZpbGUtY29udGVudA=="

func systemCredential(password string) options.Credential {
	return options.Credential{AuthMechanism: "SCRAM-SHA-256", AuthSource: "admin", Username: "__system", Password: password}
}

func stubOptions(dial Dialer, log *bytes.Buffer) Options {
	return Options{Timeout: 20 * time.Second, CallTimeout: 5 * time.Second, PollInterval: 10 * time.Millisecond, Dial: dial,
		Logger: slog.New(slog.NewTextHandler(log, nil))}
}

// TestDriverBootstrapAsCluster: with the keyfile as __system's password,
// every connection of a standalone Bootstrap authenticates as __system
// and no command is refused; the users are created with the passwords
// given. Without credentials the first command that needs them fails, at
// once, with 13; with a wrong keyfile the first command fails with 18.
// Neither error nor log holds a password.
func TestDriverBootstrapAsCluster(t *testing.T) {
	for _, tc := range []struct {
		name string
		dial Dialer
		want string // "" succeeds
	}{
		{"keyfile", DialDriverWithCredential(systemCredential(keyfilePassword)), ""},
		{"wrong keyfile", DialDriverWithCredential(systemCredential("d3Jvbmc=")),
			"hello on 127.0.0.1:"},
		{"no credentials", DialDriver, "listCollections on 127.0.0.1:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := stubmongo.Start(t, stubmongo.Record(), stubmongo.RequireAuth(stubmongo.User{DB: "admin", Name: "__system", Password: keyfilePassword}))
			topo := Topology{Mode: ModeStandalone, Standalone: srv.Addr(), Users: testUsers}
			var log bytes.Buffer
			_, err := Bootstrap(context.Background(), topo, stubOptions(tc.dial, &log))
			if err != nil {
				checkNoPassword(t, "the error", err.Error())
			}
			checkNoPassword(t, "the log", log.String())
			if strings.Contains(log.String(), keyfilePassword) || (err != nil && strings.Contains(err.Error(), keyfilePassword)) {
				t.Errorf("the keyfile shows in the error or the log")
			}
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v, want %q", err, tc.want)
				}
				// Asked once: an access error is not retried.
				if n := srv.AuthFailures() + int64(len(withoutEndSessions(srv.Refused()))); n != 1 {
					t.Errorf("%d refused attempts (refused %v), want 1", n, srv.Refused())
				}
				if n := countCommands(srv, cmdCreateUser); n != 0 {
					t.Errorf("%d createUser served", n)
				}
				return
			}
			if err != nil {
				t.Fatalf("Bootstrap: %v\n%s", err, log.String())
			}
			auths := srv.Authentications()
			if len(auths) == 0 {
				t.Fatalf("no connection authenticated")
			}
			for _, a := range auths {
				if a != "admin.__system" {
					t.Errorf("authenticated as %s, want admin.__system", a)
				}
			}
			if r := srv.Refused(); len(r) != 0 {
				t.Errorf("commands refused: %v", r)
			}
			var created []string
			for _, c := range srv.Commands() {
				if _, ok := c.Lookup(cmdCreateUser).StringValueOK(); ok {
					created = append(created, c.Lookup(cmdCreateUser).StringValue()+" "+c.Lookup("pwd").StringValue()+" "+
						c.Lookup("roles", "0", "role").StringValue()+"@"+c.Lookup("roles", "0", "db").StringValue()+" in "+c.Lookup("$db").StringValue())
				}
			}
			sameLines(t, "users created", created, []string{
				"mongobench " + adminPassword + " root@admin in admin",
				"mongobench-monitor " + monitorPassword + " clusterMonitor@admin in admin",
			})
		})
	}
}

func countCommands(srv *stubmongo.Server, name string) int {
	n := 0
	for _, c := range srv.Commands() {
		if _, err := c.LookupErr(name); err == nil {
			n++
		}
	}
	return n
}

// TestDriverApplyValidatorWithCredential: ApplyValidator through
// DialDriverWithCredential authenticates as the admin user; without it the
// server refuses listCollections with 13 and ApplyValidator stops there.
// The stub keeps the validator create gives, so that the read-back sees it.
func TestDriverApplyValidatorWithCredential(t *testing.T) {
	admin := stubmongo.User{DB: "admin", Name: testUsers.Admin.Name, Password: testUsers.Admin.Password}
	validator := marshal(t, bson.D{{Key: "$jsonSchema", Value: bson.D{{Key: "bsonType", Value: "object"}}}})
	for _, tc := range []struct {
		name string
		dial Dialer
		want string
	}{
		{"admin user", DialDriverWithCredential(options.Credential{AuthSource: "admin", Username: admin.Name, Password: admin.Password}), ""},
		{"wrong password", DialDriverWithCredential(options.Credential{AuthSource: "admin", Username: admin.Name, Password: "nope"}),
			"server error 18 (AuthenticationFailed)"},
		{"no credentials", DialDriver, "listCollections on 127.0.0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := stubmongo.Start(t, stubmongo.RequireAuth(admin), stubmongo.RemembersCollection())
			var log bytes.Buffer
			// A short heartbeat: a client closed right after its first
			// command waits out its monitor's held hello otherwise (the
			// driver's Disconnect can miss the check under way).
			err := ApplyValidator(context.Background(), srv.URI()+"&heartbeatFrequencyMS=500", DefaultNamespace, validator, "", "", stubOptions(tc.dial, &log))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("ApplyValidator: %v", err)
				}
				if a := srv.Authentications(); len(a) == 0 || a[0] != "admin.mongobench" {
					t.Errorf("authentications %v, want admin.mongobench", a)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			checkNoPassword(t, "the error", err.Error())
			if n := srv.AuthFailures() + int64(len(withoutEndSessions(srv.Refused()))); n != 1 {
				t.Errorf("%d refused attempts (refused %v), want 1: an access error is not retried", n, srv.Refused())
			}
		})
	}
}

// withoutEndSessions drops the endSessions a driver sends as it closes a
// client that never authenticated.
func withoutEndSessions(names []string) []string {
	var out []string
	for _, n := range names {
		if n != "endSessions" {
			out = append(out, n)
		}
	}
	return out
}
