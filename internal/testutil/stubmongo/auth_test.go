package stubmongo_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/xdg-go/scram"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/testutil/stubmongo"
)

var (
	adminUser  = stubmongo.User{DB: "admin", Name: "mongobench", Password: "s3cret-åÄ"}
	systemUser = stubmongo.User{DB: "admin", Name: "__system", Password: "a2V5ZmlsZQ=="}
)

// connectAs connects to srv with cred (nil: none), its pool one connection
// (so that a raw conversation stays on it).
func connectAs(t *testing.T, srv *stubmongo.Server, cred *options.Credential) (context.Context, *mongo.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	// A short heartbeat: a client closed right after it connected may wait
	// out its monitor's held hello (the driver's Disconnect can miss the
	// check under way).
	opts := options.Client().ApplyURI(srv.URI() + "&heartbeatFrequencyMS=500").SetServerSelectionTimeout(5 * time.Second).SetMaxPoolSize(1)
	if cred != nil {
		opts.SetAuth(*cred)
	}
	client, err := mongo.Connect(opts)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	return ctx, client
}

// TestAuthDriver: the driver authenticates with SCRAM-SHA-256 as the
// server requires, negotiated (no mechanism: hello's saslSupportedMechs
// must name SCRAM-SHA-256, else the driver would try SCRAM-SHA-1, which
// the stub refuses) or explicit; a wrong password, an unknown user or the
// wrong authentication database fail with 18, at once and on every
// operation; a client without credentials is refused everything but the
// handshake commands, with 13.
func TestAuthDriver(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cred     options.Credential
		wantCode int32 // 0: authenticated
		wantUser string
	}{
		{"negotiated", options.Credential{Username: adminUser.Name, Password: adminUser.Password, AuthSource: "admin"}, 0, "admin.mongobench"},
		{"explicit mechanism", options.Credential{AuthMechanism: "SCRAM-SHA-256", Username: systemUser.Name, Password: systemUser.Password,
			AuthSource: "admin"}, 0, "admin.__system"},
		{"wrong password", options.Credential{Username: adminUser.Name, Password: "nope", AuthSource: "admin"}, 18, ""},
		{"unknown user", options.Credential{Username: "nobody", Password: adminUser.Password, AuthSource: "admin"}, 18, ""},
		{"other database", options.Credential{Username: adminUser.Name, Password: adminUser.Password, AuthSource: "ycsb"}, 18, ""},
		{"SCRAM-SHA-1", options.Credential{AuthMechanism: "SCRAM-SHA-1", Username: adminUser.Name, Password: adminUser.Password,
			AuthSource: "admin"}, 18, ""},
		{"PLAIN", options.Credential{AuthMechanism: "PLAIN", Username: adminUser.Name, Password: adminUser.Password,
			AuthSource: "$external"}, 334, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := stubmongo.Start(t, stubmongo.RequireAuth(adminUser, systemUser))
			ctx, client := connectAs(t, srv, &tc.cred)
			start := time.Now()
			_, err := client.Database("ycsb").Collection("usertable").InsertOne(ctx, bson.D{{Key: "_id", Value: "user1"}})
			if tc.wantCode == 0 {
				if err != nil {
					t.Fatalf("insert: %v", err)
				}
				if got := srv.Authentications(); len(got) != 1 || got[0] != tc.wantUser {
					t.Errorf("authentications %v, want [%s]", got, tc.wantUser)
				}
				return
			}
			var ce mongo.CommandError
			if !errors.As(err, &ce) || ce.Code != tc.wantCode {
				t.Fatalf("insert: %v, want server error %d", err, tc.wantCode)
			}
			if mongo.IsNetworkError(err) || mongo.IsTimeout(err) {
				t.Errorf("%v is a network error or a timeout: callers would retry it", err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("failed after %v: the driver waited instead of failing", d)
			}
			if n := srv.Counts().Insert; n != 0 {
				t.Errorf("%d inserts served to a client that did not authenticate", n)
			}
			if got := srv.Authentications(); len(got) != 0 {
				t.Errorf("authentications %v, want none", got)
			}
		})
	}
}

// TestAuthUnauthenticated: without credentials, the handshake commands
// work and every other command is refused with 13 Unauthorized.
func TestAuthUnauthenticated(t *testing.T) {
	srv := stubmongo.Start(t, stubmongo.RequireAuth(adminUser))
	ctx, client := connectAs(t, srv, nil)
	admin := client.Database("admin")
	for _, name := range []string{"ping", "buildInfo", "hello", "isMaster"} {
		if err := admin.RunCommand(ctx, bson.D{{Key: name, Value: 1}}).Err(); err != nil {
			t.Errorf("%s without authentication: %v", name, err)
		}
	}
	for _, cmd := range []bson.D{
		{{Key: "serverStatus", Value: 1}},
		{{Key: "find", Value: "usertable"}},
		{{Key: "usersInfo", Value: 1}},
	} {
		err := client.Database("ycsb").RunCommand(ctx, cmd).Err()
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != 13 || ce.Name != "Unauthorized" ||
			ce.Message != "Command "+cmd[0].Key+" requires authentication" {
			t.Errorf("%s without authentication: %v, want 13 Unauthorized", cmd[0].Key, err)
		}
	}
	if got := srv.Refused(); strings.Join(got, " ") != "serverStatus find usersInfo" {
		t.Errorf("refused %v, want serverStatus find usersInfo", got)
	}
}

// TestAuthConversation drives the conversation by hand, as a client that
// does not ask to skip the empty exchange, and the protocol errors.
func TestAuthConversation(t *testing.T) {
	srv := stubmongo.Start(t, stubmongo.RequireAuth(adminUser))
	ctx, client := connectAs(t, srv, nil)
	admin := client.Database("admin")
	run := func(cmd bson.D) (bson.Raw, error) { return admin.RunCommand(ctx, cmd).Raw() }
	wantCode := func(what string, err error, code int32, msg string) {
		t.Helper()
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != code || !strings.Contains(ce.Message, msg) {
			t.Errorf("%s: %v, want %d %q", what, err, code, msg)
		}
	}

	_, err := run(bson.D{{Key: "saslContinue", Value: 1}, {Key: "conversationId", Value: 1}, {Key: "payload", Value: bson.Binary{}}})
	wantCode("saslContinue first", err, 17, "No SASL session state found")

	sc, err := scram.SHA256.NewClient(adminUser.Name, adminUser.Password, "")
	if err != nil {
		t.Fatal(err)
	}
	conv := sc.NewConversation()
	c1, _ := conv.Step("")
	start := func() int32 {
		t.Helper()
		conv = sc.NewConversation()
		c1, _ = conv.Step("")
		r, err := run(bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: "SCRAM-SHA-256"},
			{Key: "payload", Value: bson.Binary{Data: []byte(c1)}}})
		if err != nil {
			t.Fatalf("saslStart: %v", err)
		}
		if done, _ := r.Lookup("done").BooleanOK(); done {
			t.Fatalf("saslStart done: %s", r)
		}
		_, s1 := r.Lookup("payload").Binary()
		c2, err := conv.Step(string(s1))
		if err != nil {
			t.Fatalf("server-first %q: %v", s1, err)
		}
		c1 = c2
		return r.Lookup("conversationId").Int32()
	}

	id := start()
	_, err = run(bson.D{{Key: "saslContinue", Value: 1}, {Key: "conversationId", Value: id + 1}, {Key: "payload", Value: bson.Binary{Data: []byte(c1)}}})
	wantCode("another conversation id", err, 17, "Mismatched conversation id")

	id = start()
	r, err := run(bson.D{{Key: "saslContinue", Value: 1}, {Key: "conversationId", Value: id}, {Key: "payload", Value: bson.Binary{Data: []byte(c1)}}})
	if err != nil {
		t.Fatalf("client-final: %v", err)
	}
	if done, _ := r.Lookup("done").BooleanOK(); done {
		t.Errorf("done after server-final without skipEmptyExchange: %s", r)
	}
	_, s2 := r.Lookup("payload").Binary()
	if _, err := conv.Step(string(s2)); err != nil || !conv.Valid() {
		t.Fatalf("server-final %q does not verify: %v", s2, err)
	}
	if err := client.Database("ycsb").RunCommand(ctx, bson.D{{Key: "find", Value: "usertable"}}).Err(); err == nil {
		t.Errorf("find succeeded before the conversation was done")
	}
	r, err = run(bson.D{{Key: "saslContinue", Value: 1}, {Key: "conversationId", Value: id}, {Key: "payload", Value: bson.Binary{}}})
	if err != nil {
		t.Fatalf("empty exchange: %v", err)
	}
	if done, _ := r.Lookup("done").BooleanOK(); !done {
		t.Errorf("not done after the empty exchange: %s", r)
	}
	if err := client.Database("ycsb").RunCommand(ctx, bson.D{{Key: "find", Value: "usertable"}}).Err(); err != nil {
		t.Errorf("find after authenticating: %v", err)
	}
	if got := srv.Authentications(); len(got) != 1 || got[0] != "admin.mongobench" {
		t.Errorf("authentications %v", got)
	}
}

// TestHandle: a handled command gets the handler's reply, and only once
// its connection has authenticated.
func TestHandle(t *testing.T) {
	var calls int
	srv := stubmongo.Start(t, stubmongo.RequireAuth(adminUser), stubmongo.Handle("usersInfo", func(body bson.Raw) bson.D {
		calls++
		return bson.D{{Key: "users", Value: bson.A{bson.D{{Key: "user", Value: body.Lookup("usersInfo").StringValue()}}}}, {Key: "ok", Value: 1}}
	}))
	ctx, anonymous := connectAs(t, srv, nil)
	if err := anonymous.Database("admin").RunCommand(ctx, bson.D{{Key: "usersInfo", Value: "x"}}).Err(); err == nil || calls != 0 {
		t.Errorf("unauthenticated usersInfo: %v, handler called %d times", err, calls)
	}
	ctx, client := connectAs(t, srv, &options.Credential{Username: adminUser.Name, Password: adminUser.Password, AuthSource: "admin"})
	r, err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "usersInfo", Value: "x"}}).Raw()
	if err != nil || r.Lookup("users", "0", "user").StringValue() != "x" || calls != 1 {
		t.Errorf("usersInfo: %s, %v; handler called %d times", r, err, calls)
	}
}
