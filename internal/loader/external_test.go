package loader

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/testutil/stubmongo"
	"github.com/mongobench/mongobench/internal/testutil/wireserver"
)

const extOwnerFlag = "bench/nightly/0b7c6a52-uid"

// collections lists db's collections on the wire server, sorted.
func collections(t *testing.T, client *mongo.Client, db string) []string {
	t.Helper()
	names, err := client.Database(db).ListCollectionNames(context.Background(), bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	return names
}

// TestExternalWireServer runs bootstrap, load, run and dropdatabase of a
// run of mode External against mongo-java-server as a cluster the user
// already runs: a database of the user's survives all of them; a target
// database that holds data is refused, then used as allowed and never
// dropped; an empty one is marked, used and dropped.
func TestExternalWireServer(t *testing.T) {
	srv := wireserver.Shared(t)
	client, err := mongo.Connect(options.Client().ApplyURI(srv.URI()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	ctx := context.Background()
	shop, target, fresh := "ext_shop", "ext_bench_existing", "ext_bench_fresh"
	for _, db := range []string{shop, target, fresh} {
		if err := client.Database(db).Drop(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := client.Database(shop).Collection("orders").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "total", Value: 42}}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Database(target).Collection("customers").InsertOne(ctx, bson.D{{Key: "_id", Value: "c1"}}); err != nil {
		t.Fatal(err)
	}
	shopSurvives := func(step string) {
		t.Helper()
		n, err := client.Database(shop).Collection("orders").CountDocuments(ctx, bson.D{})
		if err != nil || n != 1 {
			t.Fatalf("after %s: %s.orders holds %d documents (%v), want its 1", step, shop, n, err)
		}
	}
	envFor := func(db string) map[string]string {
		return map[string]string{contract.EnvURI: wireserver.DatabaseURI(srv.Addr(), db)}
	}
	bootstrap := func(db string, extra ...string) (int, string, string, string) {
		return runMain(t, envFor(db), nil, append([]string{"bootstrap", "--mode", "external", "--namespace", db + ".usertable",
			"--owner", extOwnerFlag, "--timeout", "30s"}, extra...)...)
	}
	phase := func(cmd, db string) {
		t.Helper()
		code, _, stderr, msg := runMain(t, envFor(db), nil, cmd, "-P", "workloada", "-p", "recordcount=50", "-p", "operationcount=50",
			"-threads", "2")
		if code != ExitOK {
			t.Fatalf("%s into %s: exit %d: %s\n%s", cmd, db, code, msg, stderr)
		}
		shopSurvives(cmd)
	}
	drop := func(db string) string {
		t.Helper()
		code, stdout, stderr, msg := runMain(t, envFor(db), nil, "dropdatabase", "--namespace", db+".usertable", "--owner", extOwnerFlag)
		if code != ExitOK {
			t.Fatalf("dropdatabase %s: exit %d: %s\n%s", db, code, msg, stderr)
		}
		shopSurvives("dropdatabase")
		return strings.TrimSpace(stdout)
	}

	w := wireRun{t: t, client: client, bootstrap: bootstrap, phase: phase, drop: drop, shopSurvives: shopSurvives}
	w.existingTarget(target)
	w.freshTarget(fresh)
}

// wireRun holds the steps of TestExternalWireServer.
type wireRun struct {
	t         *testing.T
	client    *mongo.Client
	bootstrap func(db string, extra ...string) (int, string, string, string)
	phase     func(cmd, db string)
	drop      func(db string) string
	// shopSurvives fails the test unless the user's database is intact.
	shopSurvives func(step string)
}

// existingTarget: a target that holds data is refused with nothing
// written, then used as allowed, and never dropped.
func (w wireRun) existingTarget(target string) {
	t, client, bootstrap, phase, drop, shopSurvives := w.t, w.client, w.bootstrap, w.phase, w.drop, w.shopSurvives
	t.Helper()
	code, _, stderr, msg := bootstrap(target)
	if code != contract.ExitTargetNotEmpty || !strings.HasPrefix(msg, contract.TargetNotEmptyPrefix) || !strings.Contains(msg, "customers") {
		t.Fatalf("bootstrap of a database with data: exit %d, message %q\n%s", code, msg, stderr)
	}
	if got := collections(t, client, target); !slices.Equal(got, []string{"customers"}) {
		t.Errorf("after the refusal %s holds %q, want customers alone", target, got)
	}
	shopSurvives("the refusal")

	// Allowed: used, not marked, never dropped.
	code, stdout, stderr, msg := bootstrap(target, "--allow-existing-data")
	if code != ExitOK {
		t.Fatalf("bootstrap --allow-existing-data: exit %d: %s\n%s", code, msg, stderr)
	}
	boot, err := results.DecodeBootstrap([]byte(strings.TrimSpace(stdout)))
	if err != nil {
		t.Fatal(err)
	}
	if e := boot.External; e == nil || e.Detected != results.DetectedStandalone || e.Owned || !slices.Equal(e.ExistingCollections, []string{"customers"}) {
		t.Errorf("external = %+v", boot.External)
	}
	phase("load", target)
	phase("run", target)
	if line := drop(target); !strings.HasPrefix(line, contract.DropDatabaseKeptPrefix+target+": it has no owner mark") {
		t.Errorf("dropdatabase of a database the run did not create said %q", line)
	}
	if got := collections(t, client, target); !slices.Contains(got, "customers") || !slices.Contains(got, "usertable") {
		t.Errorf("%s holds %q after dropdatabase, want it untouched", target, got)
	}
}

// freshTarget: an empty target is marked (a rerun of the bootstrap finds
// its own mark), used and dropped.
func (w wireRun) freshTarget(fresh string) {
	t, client, bootstrap, phase, drop := w.t, w.client, w.bootstrap, w.phase, w.drop
	t.Helper()
	for range 2 {
		code, stdout, stderr, msg := bootstrap(fresh)
		if code != ExitOK {
			t.Fatalf("bootstrap of an empty database: exit %d: %s\n%s", code, msg, stderr)
		}
		if boot, err := results.DecodeBootstrap([]byte(strings.TrimSpace(stdout))); err != nil || !boot.External.Owned {
			t.Fatalf("bootstrap of an empty database: %+v, %v", boot.External, err)
		}
	}
	if got := collections(t, client, fresh); !slices.Equal(got, []string{contract.OwnerCollection, "usertable"}) {
		t.Errorf("%s holds %q after the bootstrap", fresh, got)
	}
	phase("load", fresh)
	phase("run", fresh)
	if line := drop(fresh); line != contract.DropDatabaseDroppedPrefix+fresh {
		t.Errorf("dropdatabase of the run's database said %q", line)
	}
	if got := collections(t, client, fresh); len(got) != 0 {
		t.Errorf("%s holds %q after it was dropped", fresh, got)
	}
	if line := drop(fresh); !strings.Contains(line, "does not exist") {
		t.Errorf("dropdatabase again said %q", line)
	}
}

// The planted secrets of an external cluster's connection string.
const (
	plantedURIUser     = "ext-user-LOADER-a4e1"
	plantedURIPassword = "pw-ext-URI-LOADER-5f0c2b"
)

// checkNoURISecret fails the test when out holds the connection string's
// user name or password.
func checkNoURISecret(t *testing.T, what, out string) {
	t.Helper()
	for _, s := range []string{plantedURIUser, plantedURIPassword} {
		if strings.Contains(out, s) {
			t.Errorf("%s holds %q of %s:\n%s", what, s, contract.EnvURI, out)
		}
	}
}

// TestExternalNoSecretInAnyOutput plants a unique user and password in
// MONGOBENCH_URI and looks for them in every output of bootstrap, load,
// run and dropdatabase (stdout, stderr, the termination message, the
// result files), when they succeed and when they fail.
func TestExternalNoSecretInAnyOutput(t *testing.T) {
	user := stubmongo.User{DB: "admin", Name: plantedURIUser, Password: plantedURIPassword}
	plain := stubmongo.Start(t, stubmongo.RequireAuth(user))
	// A database that holds the run's own mark, for dropdatabase; and one
	// that holds the user's data, for the refusal.
	cursor := func(ns string, docs ...bson.D) bson.D {
		batch := bson.A{}
		for _, d := range docs {
			batch = append(batch, d)
		}
		return bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: int64(0)}, {Key: "ns", Value: ns}, {Key: "firstBatch", Value: batch}}},
			{Key: "ok", Value: 1}}
	}
	owned := stubmongo.Start(t, stubmongo.RequireAuth(user),
		stubmongo.Handle("listCollections", func(bson.Raw) bson.D {
			return cursor("bench.$cmd.listCollections", bson.D{{Key: "name", Value: contract.OwnerCollection}})
		}),
		stubmongo.Handle("find", func(bson.Raw) bson.D {
			return cursor("bench."+contract.OwnerCollection, bson.D{{Key: "_id", Value: "owner"}, {Key: "run", Value: "bench/nightly"},
				{Key: "uid", Value: "0b7c6a52-uid"}})
		}))
	full := stubmongo.Start(t, stubmongo.RequireAuth(user),
		stubmongo.Handle("listCollections", func(bson.Raw) bson.D {
			return cursor("bench.$cmd.listCollections", bson.D{{Key: "name", Value: "customers"}})
		}))
	uri := func(srv *stubmongo.Server, password string) map[string]string {
		return map[string]string{contract.EnvURI: "mongodb://" + plantedURIUser + ":" + password + "@" + srv.Addr() +
			"/bench?authSource=admin&directConnection=true&heartbeatFrequencyMS=500&serverSelectionTimeoutMS=2000"}
	}
	wrong := plantedURIPassword + "-wrong"
	for _, tc := range []struct {
		name     string
		env      map[string]string
		args     []string
		wantCode int
		want     string // in stdout when it succeeds, else in the termination message
	}{
		{"bootstrap", uri(plain, plantedURIPassword), []string{"bootstrap", "--mode", "external", "--namespace", "bench.usertable",
			"--owner", extOwnerFlag}, ExitOK, `"detected":"standalone"`},
		{"bootstrap, wrong password", uri(plain, wrong), []string{"bootstrap", "--mode", "external", "--namespace", "bench.usertable",
			"--owner", extOwnerFlag, "--timeout", "20s"}, ExitFailure, "AuthenticationFailed"},
		{"bootstrap, target not empty", uri(full, plantedURIPassword), []string{"bootstrap", "--mode", "external",
			"--namespace", "bench.usertable", "--owner", extOwnerFlag}, contract.ExitTargetNotEmpty, contract.TargetNotEmptyPrefix},
		{"load", uri(plain, plantedURIPassword), []string{"load", "-P", "workloada", "-p", "recordcount=100", "-threads", "2"}, ExitOK, ""},
		{"load, wrong password", uri(plain, wrong), []string{"load", "-P", "workloada", "-p", "recordcount=100"}, ExitFailure, "cannot connect"},
		{"load, mongodb.url too", uri(plain, plantedURIPassword), []string{"load", "-P", "workloada",
			"-p", "mongodb.url=mongodb://" + plain.Addr() + "/bench"}, ExitUsage, "mongodb.url and MONGOBENCH_URI are both set"},
		{"run", uri(plain, plantedURIPassword), []string{"run", "-P", "workloada", "-p", "recordcount=100", "-p", "operationcount=100"}, ExitOK, ""},
		{"run, wrong password", uri(plain, wrong), []string{"run", "-P", "workloada", "-p", "operationcount=10"}, ExitFailure, "cannot connect"},
		{"dropdatabase", uri(owned, plantedURIPassword), []string{"dropdatabase", "--namespace", "bench.usertable", "--owner", extOwnerFlag},
			ExitOK, contract.DropDatabaseDroppedPrefix + "bench"},
		{"dropdatabase, not the run's", uri(plain, plantedURIPassword), []string{"dropdatabase", "--namespace", "bench.usertable",
			"--owner", extOwnerFlag}, ExitOK, contract.DropDatabaseKeptPrefix + "bench"},
		{"dropdatabase, wrong password", uri(owned, wrong), []string{"dropdatabase", "--namespace", "bench.usertable",
			"--owner", extOwnerFlag, "--timeout", "20s"}, ExitFailure, "AuthenticationFailed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := tc.args
			if tc.args[0] == "load" || tc.args[0] == "run" {
				args = append(slices.Clone(args), "--result", filepath.Join(dir, "result.json.gz"))
			}
			code, stdout, stderr, msg := runMain(t, tc.env, nil, args...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d: %s\n%s", code, tc.wantCode, msg, stderr)
			}
			where := msg
			if code == ExitOK {
				where = stdout
			}
			if !strings.Contains(where, tc.want) {
				t.Errorf("want %q in:\n%s", tc.want, where)
			}
			if code == ExitOK && (tc.args[0] == "load" || tc.args[0] == "run") && !strings.Contains(stderr, "(MONGOBENCH_URI)") {
				t.Errorf("the connection line does not name its source:\n%s", stderr)
			}
			result := gunzipFile(t, filepath.Join(dir, "result.json.gz"))
			for what, out := range map[string]string{"stdout": stdout, "stderr": stderr, "the termination message": msg, "the result": result} {
				checkNoURISecret(t, what, out)
			}
		})
	}
}

// TestExternalTelemetry: loader 0 discovers the external cluster's
// processes through MONGOBENCH_MONITOR_URI and samples each alone; a
// monitor credential the cluster refuses leaves the process recorded as
// unavailable, with the reason, and the phase succeeds.
func TestExternalTelemetry(t *testing.T) {
	user := stubmongo.User{DB: "admin", Name: plantedURIUser, Password: plantedURIPassword}
	srv := stubmongo.Start(t, stubmongo.RequireAuth(user))
	uri := func(password string) string {
		return "mongodb://" + plantedURIUser + ":" + password + "@" + srv.Addr() +
			"/bench?authSource=admin&directConnection=true&heartbeatFrequencyMS=500"
	}
	for _, tc := range []struct {
		name, monitor, want string
	}{
		{"monitor accepted", uri(plantedURIPassword), `"errors"`},
		{"monitor refused", uri(plantedURIPassword + "-wrong"), "AuthenticationFailed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			env := map[string]string{contract.EnvURI: uri(plantedURIPassword), contract.EnvMonitorURI: tc.monitor}
			code, stdout, stderr, msg := runMain(t, env, nil, "load", "-P", "workloada", "-p", "recordcount=200", "-threads", "2",
				"--"+contract.FlagTelemetryExternal, "--telemetry-interval", "20ms", "--telemetry-result", filepath.Join(dir, "telemetry.json.gz"),
				"--result", filepath.Join(dir, "result.json.gz"))
			if code != ExitOK {
				t.Fatalf("exit %d: %s\n%s", code, msg, stderr)
			}
			tel := gunzipFile(t, filepath.Join(dir, "telemetry.json.gz"))
			if !strings.Contains(stderr, "telemetry: 1 processes of the external cluster") || !strings.Contains(tel, `"pod":"`+srv.Addr()+`"`) {
				t.Errorf("telemetry of %s not taken:\n%s\n%s", srv.Addr(), stderr, tel)
			}
			switch tc.name {
			case "monitor accepted":
				if strings.Contains(tel, `"errors"`) {
					t.Errorf("samples failed:\n%s", tel)
				}
			default:
				if !strings.Contains(tel, tc.want) {
					t.Errorf("want %q in the telemetry:\n%s", tc.want, tel)
				}
			}
			for what, out := range map[string]string{"stdout": stdout, "stderr": stderr, "the termination message": msg, "the telemetry": tel} {
				checkNoURISecret(t, what, out)
			}
		})
	}
}
