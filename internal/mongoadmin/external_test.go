package mongoadmin

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
)

// The secret of the connection strings below: no log line, error or result
// may contain it.
const extPassword = "pw-7f3a9c1e"

var extOwner = Owner{Run: "bench/nightly", UID: "0b7c6a52-uid"}

// extFake is a fake of an external cluster behind uri: a standalone at
// "ext:27017", with a database "shop" of the user's.
func extFake(t *testing.T) (*fakeCluster, string) {
	f := newFake(t)
	s := f.add(&fakeServer{host: "ext:27017", role: roleStandalone, version: "8.0.4"})
	s.colls["shop.orders"] = &fakeColl{}
	return f, "mongodb://bench:" + extPassword + "@ext:27017/?authSource=admin&tls=true"
}

func extTarget(uri string) External {
	return External{URI: uri, Namespace: "bench_nightly.usertable", Owner: extOwner, ShardCollection: true}
}

func noSecret(t *testing.T, what, s string) {
	t.Helper()
	if strings.Contains(s, extPassword) || strings.Contains(s, "bench:") {
		t.Errorf("%s holds the connection string's user information: %s", what, s)
	}
}

func TestBootstrapExternalStandalone(t *testing.T) {
	f, uri := extFake(t)
	opts, log := withLog(f.options())
	boot, err := BootstrapExternal(context.Background(), extTarget(uri), opts)
	if err != nil {
		t.Fatal(err)
	}
	want := &results.ExternalTarget{Detected: results.DetectedStandalone, Hosts: "ext:27017", Database: "bench_nightly", Owned: true}
	if got := boot.External; got == nil || got.Detected != want.Detected || got.Hosts != want.Hosts || got.Database != want.Database ||
		!got.Owned || len(got.ExistingCollections) != 0 {
		t.Errorf("external = %+v, want %+v", got, want)
	}
	if boot.ServerVersion != "8.0.4" || boot.Sharded || boot.Namespace != "bench_nightly.usertable" {
		t.Errorf("boot = %+v", boot)
	}
	// The mark first, then the collection; nothing else changes.
	wantMut := []string{
		`ext:27017 bench_nightly {"insert":"mongobench.owner","documents":[{"_id":"owner","run":"bench/nightly","uid":"0b7c6a52-uid"}]}`,
		`ext:27017 bench_nightly {"create":"usertable"}`,
	}
	if got := f.mutating(); !slices.Equal(got, wantMut) {
		t.Errorf("mutating commands:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantMut, "\n"))
	}
	// Every connection goes through the user's string, as given.
	for _, d := range f.dials {
		if d != uri {
			t.Errorf("dialed %q, want the user's connection string", redactURI(d))
		}
	}
	if _, ok := f.servers["ext:27017"].colls["shop.orders"]; !ok {
		t.Error("the user's shop.orders is gone")
	}
	enc, err := results.EncodeBootstrap(boot)
	if err != nil {
		t.Fatal(err)
	}
	noSecret(t, "the result", string(enc))
	noSecret(t, "the log", log.String())
}

func TestBootstrapExternalReplicaSet(t *testing.T) {
	f := newFake(t)
	hosts := "rs-0.db:27017,rs-1.db:27017,rs-2.db:27017"
	s := f.add(&fakeServer{host: hosts, role: roleStandalone})
	s.hello = bson.D{{Key: "isWritablePrimary", Value: true}, {Key: "setName", Value: "rs0"},
		{Key: "hosts", Value: bson.A{"rs-0.db:27017", "rs-1.db:27017", "rs-2.db:27017"}}, {Key: "primary", Value: "rs-1.db:27017"}}
	boot, err := BootstrapExternal(context.Background(), extTarget("mongodb://u:"+extPassword+"@"+hosts+"/?replicaSet=rs0"), f.options())
	if err != nil {
		t.Fatal(err)
	}
	got := boot.External
	if got.Detected != results.DetectedReplicaSet || got.ReplicaSet != "rs0" || got.Primary != "rs-1.db:27017" ||
		!slices.Equal(got.Members, []string{"rs-0.db:27017", "rs-1.db:27017", "rs-2.db:27017"}) || got.Hosts != hosts || !got.Owned {
		t.Errorf("external = %+v", got)
	}
	for _, c := range f.calls {
		if c.cmd[0].Key == cmdReplSetInitiate || c.cmd[0].Key == cmdCreateUser {
			t.Errorf("sent %s to an external replica set", c)
		}
	}
}

// TestBootstrapExternalWaitsForPrimary: through a replica set's string
// without a primary (an election), the bootstrap waits.
func TestBootstrapExternalWaitsForPrimary(t *testing.T) {
	f, uri := extFake(t)
	f.failNext("ext:27017", "hello", injection{reply: bson.D{{Key: "isWritablePrimary", Value: false}, {Key: "setName", Value: "rs0"}}})
	boot, err := BootstrapExternal(context.Background(), extTarget(uri), f.options())
	if err != nil {
		t.Fatal(err)
	}
	if boot.External.Detected != results.DetectedStandalone {
		t.Errorf("detected %s after the wait", boot.External.Detected)
	}
}

func externalShardedFake(t *testing.T) (*fakeCluster, *fakeServer, string) {
	f := newFake(t)
	m := f.add(&fakeServer{host: "mongos-a.db:27017,mongos-b.db:27017", role: roleMongos})
	m.shards = []shardInfo{
		{ID: "rs-a", Host: "rs-a/a0.db:27018,a1.db:27018"},
		{ID: "rs-b", Host: "rs-b/b0.db:27018,b1.db:27018"},
	}
	m.colls["shop.orders"] = &fakeColl{}
	return f, m, "mongodb://u:" + extPassword + "@mongos-a.db:27017,mongos-b.db:27017/"
}

func TestBootstrapExternalSharded(t *testing.T) {
	f, m, uri := externalShardedFake(t)
	boot, err := BootstrapExternal(context.Background(), extTarget(uri), f.options())
	if err != nil {
		t.Fatal(err)
	}
	if boot.External.Detected != results.DetectedSharded || !boot.Sharded || boot.ShardKey != `{"_id":"hashed"}` {
		t.Errorf("boot = %+v, external %+v", boot, boot.External)
	}
	if len(boot.Shards) != 2 || boot.Shards[0].Name != "rs-a" || boot.Shards[0].Host != "rs-a/a0.db:27018,a1.db:27018" || boot.Shards[1].Chunks == 0 {
		t.Errorf("shards = %+v", boot.Shards)
	}
	// The balancer is read, never stopped, and the result says why.
	if m.balancer != "full" || boot.BalancerMode != "full" {
		t.Errorf("balancer %q, recorded %q: want it left running and recorded", m.balancer, boot.BalancerMode)
	}
	if len(boot.External.Notes) == 0 || !strings.Contains(boot.External.Notes[0], "balancer was left as found") {
		t.Errorf("notes = %q", boot.External.Notes)
	}
	for _, c := range f.mutating() {
		for _, never := range []string{cmdBalancerStop, cmdAddShard, cmdReplSetInitiate, cmdCreateUser} {
			if strings.Contains(c, `{"`+never+`"`) {
				t.Errorf("sent %s to an external cluster", c)
			}
		}
	}
	if !slices.ContainsFunc(f.mutating(), func(c string) bool { return strings.Contains(c, `{"shardCollection":"bench_nightly.usertable"`) }) {
		t.Errorf("the collection was not sharded: %q", f.mutating())
	}
}

func TestBootstrapExternalShardedRanged(t *testing.T) {
	f, m, uri := externalShardedFake(t)
	ext := extTarget(uri)
	ext.ShardKey = ShardKeyRanged
	var asked int
	ext.SplitPoints = func(_ context.Context, n int) ([]string, error) {
		asked = n
		return []string{"user5"}, nil
	}
	boot, err := BootstrapExternal(context.Background(), ext, f.options())
	if err != nil {
		t.Fatal(err)
	}
	if asked != 2 || !slices.Equal(boot.SplitPoints, []string{"user5"}) || boot.Shards[0].Range == nil || boot.Shards[1].Range.Min != "user5" {
		t.Errorf("asked for %d shards; split points %q, shards %+v", asked, boot.SplitPoints, boot.Shards)
	}
	if m.balancer != "full" {
		t.Errorf("balancer %q after a ranged pre-split: want it left as found", m.balancer)
	}
}

func TestBootstrapExternalShardedWithoutShardCollection(t *testing.T) {
	f, _, uri := externalShardedFake(t)
	ext := extTarget(uri)
	ext.ShardCollection = false
	boot, err := BootstrapExternal(context.Background(), ext, f.options())
	if err != nil {
		t.Fatal(err)
	}
	if boot.Sharded || len(boot.Shards) != 2 || boot.External.Detected != results.DetectedSharded {
		t.Errorf("boot = %+v", boot)
	}
	for _, c := range f.mutating() {
		if strings.Contains(c, cmdShardCollection) || strings.Contains(c, cmdEnableSharding) {
			t.Errorf("sent %s without --shard-collection", c)
		}
	}
}

// TestBootstrapExternalTargetNotEmpty: a database that holds a collection
// of the user's is refused, with nothing written, and the refusal names
// it; allowExistingData uses it without marking it.
func TestBootstrapExternalTargetNotEmpty(t *testing.T) {
	f, uri := extFake(t)
	srv := f.servers["ext:27017"]
	srv.colls["bench_nightly.customers"] = &fakeColl{}
	_, err := BootstrapExternal(context.Background(), extTarget(uri), f.options())
	var tne *TargetNotEmptyError
	if !errors.As(err, &tne) || tne.Database != "bench_nightly" || !slices.Equal(tne.Collections, []string{"customers"}) {
		t.Fatalf("err = %v, want TargetNotEmptyError naming customers", err)
	}
	if !strings.HasPrefix(err.Error(), contract.TargetNotEmptyPrefix) && !strings.Contains(err.Error(), contract.TargetNotEmptyPrefix) {
		t.Errorf("err = %v, want it to carry %q", err, contract.TargetNotEmptyPrefix)
	}
	if got := f.mutating(); len(got) != 0 {
		t.Errorf("a refused database got %q", got)
	}

	ext := extTarget(uri)
	ext.AllowExistingData = true
	boot, err := BootstrapExternal(context.Background(), ext, f.options())
	if err != nil {
		t.Fatal(err)
	}
	if boot.External.Owned || !slices.Equal(boot.External.ExistingCollections, []string{"customers"}) {
		t.Errorf("external = %+v, want not owned, customers existing", boot.External)
	}
	if _, marked := srv.colls["bench_nightly."+contract.OwnerCollection]; marked {
		t.Error("a database that held data was marked as the run's")
	}
}

// TestBootstrapExternalRerun: the bootstrap again (a manager restart)
// finds its own mark and its collection, and goes on without writing.
func TestBootstrapExternalRerun(t *testing.T) {
	f, uri := extFake(t)
	if _, err := BootstrapExternal(context.Background(), extTarget(uri), f.options()); err != nil {
		t.Fatal(err)
	}
	before := len(f.mutating())
	boot, err := BootstrapExternal(context.Background(), extTarget(uri), f.options())
	if err != nil {
		t.Fatalf("rerun: %v", err)
	}
	if !boot.External.Owned {
		t.Error("rerun: the database is no longer the run's")
	}
	if got := f.mutating()[before:]; len(got) != 0 {
		t.Errorf("rerun wrote %q", got)
	}
}

// TestBootstrapExternalOtherRunsMark: a database another run marked is
// that run's: refused like any data.
func TestBootstrapExternalOtherRunsMark(t *testing.T) {
	f, uri := extFake(t)
	other := extTarget(uri)
	other.Owner = Owner{Run: "bench/other", UID: "other-uid"}
	if _, err := BootstrapExternal(context.Background(), other, f.options()); err != nil {
		t.Fatal(err)
	}
	_, err := BootstrapExternal(context.Background(), extTarget(uri), f.options())
	var tne *TargetNotEmptyError
	if !errors.As(err, &tne) || !strings.Contains(err.Error(), "run bench/other, uid other-uid") {
		t.Fatalf("err = %v, want the other run's mark named", err)
	}
}

// TestBootstrapExternalMarkRace: the mark written by another bootstrap
// between listCollections and the insert (11000 DuplicateKey) is read
// again: the run's own is accepted.
func TestBootstrapExternalMarkRace(t *testing.T) {
	f, uri := extFake(t)
	f.failNext("ext:27017", cmdInsert, injection{apply: true,
		err: serverError(11000, "DuplicateKey", "E11000 duplicate key error collection: bench_nightly.mongobench.owner")})
	boot, err := BootstrapExternal(context.Background(), extTarget(uri), f.options())
	if err != nil {
		t.Fatal(err)
	}
	if !boot.External.Owned {
		t.Error("the run's own mark, written by a racing bootstrap, was not recognised")
	}
}

func TestDropOwnedDatabase(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setup   func(t *testing.T, f *fakeCluster, uri string)
		dropped bool
		reason  string
	}{
		{name: "own mark", setup: func(t *testing.T, f *fakeCluster, uri string) {
			if _, err := BootstrapExternal(context.Background(), extTarget(uri), f.options()); err != nil {
				t.Fatal(err)
			}
		}, dropped: true},
		{name: "no mark (allowExistingData)", setup: func(t *testing.T, f *fakeCluster, uri string) {
			f.servers["ext:27017"].colls["bench_nightly.customers"] = &fakeColl{}
			ext := extTarget(uri)
			ext.AllowExistingData = true
			if _, err := BootstrapExternal(context.Background(), ext, f.options()); err != nil {
				t.Fatal(err)
			}
		}, reason: "it has no owner mark"},
		{name: "another run's mark", setup: func(t *testing.T, f *fakeCluster, uri string) {
			ext := extTarget(uri)
			ext.Owner = Owner{Run: "bench/other", UID: "other-uid"}
			if _, err := BootstrapExternal(context.Background(), ext, f.options()); err != nil {
				t.Fatal(err)
			}
		}, reason: "run bench/other's (uid other-uid)"},
		{name: "no database", setup: func(*testing.T, *fakeCluster, string) {}, reason: "does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, uri := extFake(t)
			tc.setup(t, f, uri)
			before := len(f.calls)
			inDB := func() []string {
				var names []string
				for ns := range f.servers["ext:27017"].colls {
					if strings.HasPrefix(ns, "bench_nightly.") {
						names = append(names, ns)
					}
				}
				slices.Sort(names)
				return names
			}
			had := inDB()
			opts, log := withLog(f.options())
			out, err := DropOwnedDatabase(context.Background(), uri, "bench_nightly", extOwner, opts)
			if err != nil {
				t.Fatal(err)
			}
			if out.Dropped != tc.dropped || !strings.Contains(out.Reason, tc.reason) {
				t.Errorf("outcome %+v, want dropped %t, reason with %q", out, tc.dropped, tc.reason)
			}
			var drops []string
			for _, c := range f.calls[before:] {
				if c.cmd[0].Key == cmdDropDatabase {
					drops = append(drops, c.String())
				}
				if c.db != "bench_nightly" {
					t.Errorf("sent %s outside the run's database", c)
				}
			}
			if tc.dropped != (len(drops) == 1) || len(drops) > 1 {
				t.Errorf("dropDatabase sent %q", drops)
			}
			if left := inDB(); tc.dropped && len(left) > 0 || !tc.dropped && !slices.Equal(left, had) {
				t.Errorf("the database held %q, now %q (dropped %t)", had, left, tc.dropped)
			}
			if _, ok := f.servers["ext:27017"].colls["shop.orders"]; !ok {
				t.Error("the user's shop.orders is gone")
			}
			noSecret(t, "the log", log.String())
			noSecret(t, "the outcome", out.Line())
		})
	}
}

func TestDropOwnedDatabaseRefusesSystemDatabases(t *testing.T) {
	f, uri := extFake(t)
	for _, db := range []string{"admin", "config", "local", "", "a.b"} {
		if _, err := DropOwnedDatabase(context.Background(), uri, db, extOwner, f.options()); err == nil {
			t.Errorf("DropOwnedDatabase(%q) = nil error", db)
		}
	}
	if len(f.calls) != 0 {
		t.Errorf("sent %q", f.callStrings())
	}
}

func TestParseOwner(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Owner
		err  bool
	}{
		{in: "bench/nightly/0b7c", want: Owner{Run: "bench/nightly", UID: "0b7c"}},
		{in: "bench/nightly", err: true},
		{in: "bench//0b7c", err: true},
		{in: "a/b/c/d", err: true},
		{in: "", err: true},
	} {
		got, err := ParseOwner(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseOwner(%q) = %+v, %v", tc.in, got, err)
		}
	}
}
