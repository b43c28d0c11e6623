package mongoadmin

import (
	"context"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/testutil/syncbuf"
	"github.com/mongobench/mongobench/internal/testutil/wireserver"
)

// These tests run the real driver path (DialDriver, real clock) against
// mongo-java-server, an independent implementation of the wire protocol.
// It is a standalone server only, without the hello command (the isMaster
// fallback is used), without collMod, and it accepts a validator on create
// but keeps none (see internal/testutil/wireserver). Replica sets and
// sharding are not covered here: only against real MongoDB (kind e2e).

// recordingDialer wraps DialDriver and records the command names sent.
type recordingDialer struct {
	mu    sync.Mutex
	names []string
}

func (d *recordingDialer) dial(uri string) (Commander, error) {
	c, err := DialDriver(uri)
	if err != nil {
		return nil, err
	}
	return recordingCommander{Commander: c, d: d}, nil
}

func (d *recordingDialer) take() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	names := d.names
	d.names = nil
	return names
}

type recordingCommander struct {
	Commander
	d *recordingDialer
}

func (c recordingCommander) RunCommand(ctx context.Context, db string, cmd bson.D) (bson.Raw, error) {
	c.d.mu.Lock()
	c.d.names = append(c.d.names, db+"."+cmd[0].Key)
	c.d.mu.Unlock()
	return c.Commander.RunCommand(ctx, db, cmd)
}

func (c recordingCommander) RunCursor(ctx context.Context, db string, cmd bson.D) ([]bson.Raw, error) {
	c.d.mu.Lock()
	c.d.names = append(c.d.names, db+"."+cmd[0].Key)
	c.d.mu.Unlock()
	return c.Commander.RunCursor(ctx, db, cmd)
}

func wireOptions(rec *recordingDialer, log *syncbuf.Buffer) Options {
	return Options{
		Timeout:     time.Minute,
		CallTimeout: 20 * time.Second,
		Dial:        rec.dial,
		Logger:      slog.New(slog.NewTextHandler(log, nil)),
	}
}

func wireClient(t *testing.T, srv *wireserver.Server) *mongo.Client {
	t.Helper()
	client, err := mongo.Connect(options.Client().ApplyURI(srv.URI()).SetServerSelectionTimeout(10 * time.Second))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	return client
}

func TestWireServerBootstrapStandalone(t *testing.T) {
	srv := wireserver.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rec, log := &recordingDialer{}, &syncbuf.Buffer{}
	topo := Topology{Mode: ModeStandalone, Standalone: srv.Addr(), Namespace: "wire_bootstrap.usertable"}
	client := wireClient(t, srv)
	// The shared server outlives a test (go test -count=N): start empty.
	if err := client.Database("wire_bootstrap").Drop(ctx); err != nil {
		t.Fatalf("drop: %v", err)
	}

	report, err := Bootstrap(ctx, topo, wireOptions(rec, log))
	if err != nil {
		t.Fatalf("Bootstrap: %v\nlog:\n%s", err, log)
	}
	want := results.Bootstrap{ServerVersion: "6.0.0", Namespace: "wire_bootstrap.usertable"}
	t.Logf("server environment from mongo-java-server: %+v", report.Server)
	wireEnvironmentDegrades(t, report, srv.Addr())
	if !reflect.DeepEqual(*report, want) {
		t.Errorf("report %+v, want %+v", *report, want)
	}
	// hello is unknown to mongo-java-server: isMaster answers instead. The
	// environment's commands are asked once each, never retried.
	environment := []string{"admin.getCmdLineOpts", "admin.getLog", "admin.getParameter", "admin.serverStatus"}
	sameLines(t, "commands", rec.take(), append([]string{
		"admin.hello", "admin.isMaster", "admin.buildInfo", "wire_bootstrap.listCollections", "wire_bootstrap.create",
	}, environment...))
	names, err := client.Database("wire_bootstrap").ListCollectionNames(ctx, bson.D{})
	if err != nil || strings.Join(names, ",") != "usertable" {
		t.Errorf("collections after Bootstrap: %v, %v; want [usertable]", names, err)
	}
	for _, line := range []string{"bootstrapping standalone", "mongod ready", "collection created", "bootstrap done"} {
		if !strings.Contains(log.String(), line) {
			t.Errorf("log lacks %q:\n%s", line, log)
		}
	}

	// Again: the collection exists, nothing is created.
	again, err := Bootstrap(ctx, topo, wireOptions(rec, log))
	if err != nil {
		t.Fatalf("second Bootstrap: %v", err)
	}
	wireEnvironmentDegrades(t, again, srv.Addr())
	if !reflect.DeepEqual(*again, want) {
		t.Errorf("second report %+v, want %+v", *again, want)
	}
	sameLines(t, "second run's commands", rec.take(), append([]string{
		"admin.hello", "admin.isMaster", "admin.buildInfo", "wire_bootstrap.listCollections",
	}, environment...))
}

// TestWireServerApplyValidator covers what mongo-java-server supports of
// ApplyValidator: listCollections (whose filter it ignores), create with a
// validator (which it accepts and drops, so verification must fail), and
// collMod (which it does not know: the error must say so).
func TestWireServerApplyValidator(t *testing.T) {
	srv := wireserver.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db := wireClient(t, srv).Database("wire_validator")
	// The shared server outlives a test (go test -count=N): start empty.
	if err := db.Drop(ctx); err != nil {
		t.Fatalf("drop: %v", err)
	}
	// Another collection first, listed before ours by a server that ignores
	// listCollections' filter.
	if err := db.CreateCollection(ctx, "aaa_other"); err != nil {
		t.Fatalf("create aaa_other: %v", err)
	}
	validator, err := ParseValidator([]byte(`{"$jsonSchema": {"bsonType": "object", "required": ["field0"]}}`))
	if err != nil {
		t.Fatal(err)
	}

	t.Run("absent: create is accepted, the dropped validator is caught", func(t *testing.T) {
		rec, log := &recordingDialer{}, &syncbuf.Buffer{}
		err := ApplyValidator(ctx, srv.URI(), "wire_validator.created", validator, "", "", wireOptions(rec, log))
		if err == nil || !strings.Contains(err.Error(), `not applied: listCollections reports that its validator is {}, want {"$jsonSchema"`) {
			t.Errorf("err = %v, want the verification to find no validator", err)
		}
		sameLines(t, "commands", rec.take(), []string{"wire_validator.listCollections", "wire_validator.create", "wire_validator.listCollections"})
		names, _ := db.ListCollectionNames(ctx, bson.D{{Key: "name", Value: "created"}})
		if !strings.Contains(strings.Join(names, ","), "created") {
			t.Errorf("collection not created: %v", names)
		}
	})

	if err := db.CreateCollection(ctx, "existing"); err != nil {
		t.Fatalf("create existing: %v", err)
	}
	t.Run("existing: collMod is not implemented", func(t *testing.T) {
		rec, log := &recordingDialer{}, &syncbuf.Buffer{}
		err := ApplyValidator(ctx, srv.URI(), "wire_validator.existing", validator, "moderate", "warn", wireOptions(rec, log))
		if err == nil || !strings.Contains(err.Error(), "collMod on "+srv.Addr()+": server error 59 (CommandNotFound)") {
			t.Errorf("err = %v, want collMod's 59 CommandNotFound", err)
		}
		sameLines(t, "commands", rec.take(), []string{"wire_validator.listCollections", "wire_validator.collMod"})
	})

	t.Run("existing with nothing to change: no command", func(t *testing.T) {
		rec, log := &recordingDialer{}, &syncbuf.Buffer{}
		err := ApplyValidator(ctx, srv.URI(), "wire_validator.existing", bson.Raw{5, 0, 0, 0, 0}, "", "", wireOptions(rec, log))
		if err != nil {
			t.Errorf("ApplyValidator {}: %v", err)
		}
		sameLines(t, "commands", rec.take(), []string{"wire_validator.listCollections", "wire_validator.listCollections"})
		if !strings.Contains(log.String(), "validator already applied") {
			t.Errorf("log lacks the already-applied line:\n%s", log)
		}
	})
}

// TestWireServerUnreachable: a standalone that is not listening is
// retried (real clock, real driver errors) until the deadline, which names
// the step; the driver's server-selection error counts as transient.
func TestWireServerUnreachable(t *testing.T) {
	srv := wireserver.Start(t)
	addr := srv.Addr()
	if err := srv.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	opts := Options{Timeout: 3 * time.Second, CallTimeout: time.Second, PollInterval: 50 * time.Millisecond}
	start := time.Now()
	_, err := Bootstrap(context.Background(), Topology{Mode: ModeStandalone, Standalone: addr}, opts)
	if err == nil || !strings.Contains(err.Error(), "wait for mongod "+addr) || !strings.Contains(err.Error(), "not done within") {
		t.Errorf("err = %v, want the wait for the mongod to time out", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v with a 3s timeout", d)
	}
}

// wireEnvironmentDegrades: mongo-java-server answers getCmdLineOpts
// (nothing parsed), getLog (no startup warnings) and serverStatus (without
// a storage engine) but not getParameter: the bootstrap still succeeds and
// says the FCV and the storage engine were unavailable. It then
// leaves the environment out of the report for the comparisons that
// follow.
func wireEnvironmentDegrades(t *testing.T, report *results.Bootstrap, host string) {
	t.Helper()
	env := report.Server
	report.Server = nil
	if env == nil || len(env.Processes) != 1 || env.FeatureCompatibilityVersion != "" {
		t.Fatalf("server environment %+v", env)
	}
	p := env.Processes[0]
	if p.Host != host || p.Options != "{}" || len(p.StartupWarnings) != 0 || len(p.Unavailable) != 2 ||
		!strings.HasPrefix(p.Unavailable[0], "featureCompatibilityVersion: server error 59 (CommandNotFound)") ||
		p.Unavailable[1] != "storageEngine: not in serverStatus" || env.StorageEngine != "" {
		t.Errorf("process environment %+v", p)
	}
}

// TestWireServerCursorGetMoreWithoutMaxTimeMS: a cursor read under the call
// timeout (a context deadline) follows its cursor with getMores that carry
// no maxTimeMS. The driver adds maxTimeMS from a deadline to every
// RunCommand (x/mongo/driver/operation.go calculateMaxTimeMS; mongo/
// database.go sets no OmitMaxTimeMS), and a real mongod or mongos refuses
// it on the getMore of a non-awaitData cursor with 2 BadValue
// (src/mongo/db/commands/getmore_cmd.cpp, src/mongo/s/query/cluster_find.cpp
// in mongodb/mongo). mongo-java-server ignores maxTimeMS, so the commands
// sent are inspected instead (a CommandMonitor).
func TestWireServerCursorGetMoreWithoutMaxTimeMS(t *testing.T) {
	srv := wireserver.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const db, coll, n = "wire_cursor", "docs", 250
	client := wireClient(t, srv)
	if err := client.Database(db).Drop(ctx); err != nil {
		t.Fatalf("drop: %v", err)
	}
	docs := make([]any, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}}
	}
	if _, err := client.Database(db).Collection(coll).InsertMany(ctx, docs); err != nil {
		t.Fatalf("insert: %v", err)
	}

	var mu sync.Mutex
	var sent []bson.Raw
	mon := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		mu.Lock()
		defer mu.Unlock()
		sent = append(sent, slices.Clone(e.Command))
	}}
	monitored, err := mongo.Connect(options.Client().ApplyURI(srv.URI()).SetMonitor(mon))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Timeout: time.Minute, CallTimeout: 20 * time.Second,
		Dial: func(string) (Commander, error) { return driverCommander{client: monitored}, nil }}
	r, rctx, rcancel := newRunner(ctx, opts)
	defer rcancel()
	defer r.close()

	got, err := r.cursorAll(rctx, srv.URI(), db, bson.D{{Key: "find", Value: coll}, {Key: "batchSize", Value: int32(10)}})
	if err != nil {
		t.Fatalf("cursorAll: %v", err)
	}
	if len(got) != n {
		t.Errorf("%d documents, want %d", len(got), n)
	}
	mu.Lock()
	defer mu.Unlock()
	getMores := 0
	for _, cmd := range sent {
		name := cmd.Index(0).Key()
		_, lookupErr := cmd.LookupErr("maxTimeMS")
		hasMaxTime := lookupErr == nil
		switch name {
		case "find":
			if !hasMaxTime {
				t.Errorf("find without maxTimeMS: the call timeout should bound it on the server too: %s", cmd)
			}
		case "getMore":
			getMores++
			if hasMaxTime {
				t.Errorf("getMore with maxTimeMS, which a real server refuses (BadValue): %s", cmd)
			}
		}
	}
	if getMores == 0 {
		t.Errorf("no getMore sent (batch size 10, %d documents): %d commands", n, len(sent))
	}
}
