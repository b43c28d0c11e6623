package mongoadmin

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"testing"
)

// Passwords the tests plant, to look for in every output.
const (
	adminPassword   = "pw-admin-7c1e9a"
	monitorPassword = "pw-monitor-4b2f0d"
)

var testUsers = Users{
	Admin:   User{Name: "mongobench", Password: adminPassword},
	Monitor: User{Name: "mongobench-monitor", Password: monitorPassword},
}

// Commands of the users' step, as the fake records them.
func usersInfoBoth(host string) string {
	return host + ` admin {"usersInfo":[{"user":"mongobench","db":"admin"},{"user":"mongobench-monitor","db":"admin"}]}`
}

func usersInfoMonitor(host string) string {
	return host + ` admin {"usersInfo":[{"user":"mongobench-monitor","db":"admin"}]}`
}

func createAdmin(host string) string {
	return host + ` admin {"createUser":"mongobench","pwd":"` + adminPassword + `","roles":[{"role":"root","db":"admin"}]}`
}

func createShardAdmin(host string) string {
	return host + ` admin {"createUser":"mongobench","pwd":"` + adminPassword + `","roles":[{"role":"clusterManager","db":"admin"}]}`
}

func createMonitor(host string) string {
	return host + ` admin {"createUser":"mongobench-monitor","pwd":"` + monitorPassword + `","roles":[{"role":"clusterMonitor","db":"admin"}]}`
}

// userCalls are the recorded usersInfo and createUser commands.
func (f *fakeCluster) userCalls() []string {
	var out []string
	for _, c := range f.calls {
		if k := c.cmd[0].Key; k == cmdUsersInfo || k == cmdCreateUser {
			out = append(out, c.String())
		}
	}
	return out
}

// withLog returns options whose logger writes to the returned buffer.
func withLog(opts Options) (Options, *bytes.Buffer) {
	var buf bytes.Buffer
	opts.Logger = slog.New(slog.NewTextHandler(&buf, nil))
	return opts, &buf
}

// checkNoPassword fails the test if an output holds either password.
func checkNoPassword(t *testing.T, what, out string) {
	t.Helper()
	for _, pw := range []string{adminPassword, monitorPassword} {
		if strings.Contains(out, pw) {
			t.Errorf("%s holds a password:\n%s", what, out)
		}
	}
}

// TestBootstrapUsersSharded: once the collection is sharded, the admin
// (root) and monitor (clusterMonitor) users are created through mongos,
// which keeps them on the config server, after a usersInfo that finds
// neither; on each shard's primary, directly, the admin user again as
// clusterManager (a shard's StepDown) and the monitor user. A
// second Bootstrap finds them all and sends no createUser. Neither the
// log nor the report holds a password.
func TestBootstrapUsersSharded(t *testing.T) {
	f, topo := newShardedFake(t, 2, ShardKeyHashed)
	topo.Users = testUsers
	opts, log := withLog(f.options())
	report, err := Bootstrap(context.Background(), topo, opts)
	if err != nil {
		t.Fatalf("Bootstrap: %v", err)
	}
	sameLines(t, "user commands", f.userCalls(), []string{
		usersInfoBoth(mongosHost),
		createAdmin(mongosHost),
		createMonitor(mongosHost),
		usersInfoBoth(shardHost(0)),
		createShardAdmin(shardHost(0)),
		createMonitor(shardHost(0)),
		usersInfoBoth(shardHost(1)),
		createShardAdmin(shardHost(1)),
		createMonitor(shardHost(1)),
	})
	// After the collection is sharded, before the report is read.
	calls := f.callStrings()
	first := slicesIndex(calls, usersInfoBoth(mongosHost))
	if first < 0 || !strings.Contains(calls[first-1], `"find":"collections"`) || !strings.Contains(calls[first+9], `"buildInfo"`) {
		t.Errorf("the users' step is not between the collection's sharding and the report:\n%s", strings.Join(calls, "\n"))
	}
	wantStored := map[string]map[string][]string{
		cfgHost:      {"mongobench": {"root@admin"}, "mongobench-monitor": {"clusterMonitor@admin"}},
		shardHost(0): {"mongobench": {"clusterManager@admin"}, "mongobench-monitor": {"clusterMonitor@admin"}},
		shardHost(1): {"mongobench": {"clusterManager@admin"}, "mongobench-monitor": {"clusterMonitor@admin"}},
		mongosHost:   {},
	}
	for host, want := range wantStored {
		if got := f.servers[host].users; !reflect.DeepEqual(got, want) {
			t.Errorf("users on %s: %v, want %v", host, got, want)
		}
	}
	checkNoPassword(t, "the log", log.String())
	checkNoPassword(t, "the report", fmt.Sprintf("%+v %+v", report, report.Shards))
	if !strings.Contains(log.String(), "user=mongobench-monitor") {
		t.Errorf("the log does not name the users it created:\n%s", log)
	}

	f.calls = nil
	log.Reset()
	if _, err := Bootstrap(context.Background(), topo, opts); err != nil {
		t.Fatalf("second Bootstrap: %v", err)
	}
	sameLines(t, "user commands of the second Bootstrap", f.userCalls(), []string{
		usersInfoBoth(mongosHost),
		usersInfoBoth(shardHost(0)),
		usersInfoBoth(shardHost(1)),
	})
	if m := f.mutating(); len(m) != 0 {
		t.Errorf("second Bootstrap sent %v", m)
	}
	checkNoPassword(t, "the second log", log.String())
}

func slicesIndex(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// TestBootstrapUsersStandaloneAndReplicaSet: the users are created on the
// standalone, or on the replica set's primary (wherever it was elected),
// and only there; a second Bootstrap creates none.
func TestBootstrapUsersStandaloneAndReplicaSet(t *testing.T) {
	t.Run("standalone", func(t *testing.T) {
		const h = "run-mongod-0.run-mongod:27017"
		f := newFake(t)
		f.add(&fakeServer{host: h, role: roleStandalone})
		topo := Topology{Mode: ModeStandalone, Standalone: h, Users: testUsers}
		if _, err := Bootstrap(context.Background(), topo, f.options()); err != nil {
			t.Fatalf("Bootstrap: %v", err)
		}
		sameLines(t, "user commands", f.userCalls(), []string{usersInfoBoth(h), createAdmin(h), createMonitor(h)})
		f.calls = nil
		if _, err := Bootstrap(context.Background(), topo, f.options()); err != nil {
			t.Fatalf("second Bootstrap: %v", err)
		}
		sameLines(t, "user commands of the second Bootstrap", f.userCalls(), []string{usersInfoBoth(h)})
	})
	t.Run("replica set, primary elsewhere", func(t *testing.T) {
		f, topo := newReplicaSetFake(t, 3)
		f.electWinner = 2
		topo.Users = testUsers
		if _, err := Bootstrap(context.Background(), topo, f.options()); err != nil {
			t.Fatalf("Bootstrap: %v", err)
		}
		p := rsHost(2)
		sameLines(t, "user commands", f.userCalls(), []string{usersInfoBoth(p), createAdmin(p), createMonitor(p)})
		f.calls = nil
		if _, err := Bootstrap(context.Background(), topo, f.options()); err != nil {
			t.Fatalf("second Bootstrap: %v", err)
		}
		if m := f.mutating(); len(m) != 0 {
			t.Errorf("second Bootstrap sent %v", m)
		}
	})
	t.Run("no users: no user command", func(t *testing.T) {
		f, topo := newShardedFake(t, 2, ShardKeyHashed)
		if _, err := Bootstrap(context.Background(), topo, f.options()); err != nil {
			t.Fatalf("Bootstrap: %v", err)
		}
		if c := f.userCalls(); len(c) != 0 {
			t.Errorf("sent %v without users", c)
		}
	})
	t.Run("monitor only", func(t *testing.T) {
		f, topo := newShardedFake(t, 1, ShardKeyHashed)
		topo.Users = Users{Monitor: testUsers.Monitor}
		if _, err := Bootstrap(context.Background(), topo, f.options()); err != nil {
			t.Fatalf("Bootstrap: %v", err)
		}
		sameLines(t, "user commands", f.userCalls(), []string{
			usersInfoMonitor(mongosHost), createMonitor(mongosHost),
			usersInfoMonitor(shardHost(0)), createMonitor(shardHost(0)),
		})
	})
}

// TestBootstrapUsersShardMembers: in a shard of several members the
// monitor user is created on the shard's primary, found by
// replSetGetStatus.
func TestBootstrapUsersShardMembers(t *testing.T) {
	f := newFake(t)
	host := func(set string, m int) string { return fmt.Sprintf("run-%s-%d.run-db:27018", set, m) }
	topo := Topology{Mode: ModeSharded, Mongos: mongosHost, Users: testUsers,
		ConfigServer: ReplicaSet{Name: "cfg", Host: host("cfg", 0)},
		Shards:       []ReplicaSet{{Name: "shard0", Host: host("shard0", 0), Others: []string{host("shard0", 1), host("shard0", 2)}}}}
	f.add(&fakeServer{host: host("cfg", 0), role: roleMember, replSet: "cfg", configsvr: true})
	for m := range 3 {
		f.add(&fakeServer{host: host("shard0", m), role: roleMember, replSet: "shard0"})
	}
	f.add(&fakeServer{host: mongosHost, role: roleMongos})
	f.electWinner = 1
	if _, err := Bootstrap(context.Background(), topo, f.options()); err != nil {
		t.Fatalf("Bootstrap: %v", err)
	}
	p := host("shard0", 1)
	sameLines(t, "user commands", f.userCalls(), []string{
		usersInfoBoth(mongosHost), createAdmin(mongosHost), createMonitor(mongosHost),
		usersInfoBoth(p), createShardAdmin(p), createMonitor(p),
	})
}

// TestBootstrapUsersErrors: a user created meanwhile (51003) is success
// once usersInfo shows its role; a user of the same name with other
// roles, or credentials the server refuses, fail at once with a message
// that names the user and holds no password.
func TestBootstrapUsersErrors(t *testing.T) {
	const h = "m:27017"
	newStandalone := func(t *testing.T) (*fakeCluster, Topology) {
		f := newFake(t)
		f.add(&fakeServer{host: h, role: roleStandalone})
		return f, Topology{Mode: ModeStandalone, Standalone: h, Users: testUsers}
	}
	t.Run("created meanwhile", func(t *testing.T) {
		f, topo := newStandalone(t)
		f.failNext(h, cmdCreateUser, injection{apply: true,
			err: serverError(codeUserAlreadyExists, "Location51003", `User "mongobench@admin" already exists`)})
		opts, log := withLog(f.options())
		if _, err := Bootstrap(context.Background(), topo, opts); err != nil {
			t.Fatalf("Bootstrap: %v", err)
		}
		sameLines(t, "user commands", f.userCalls(), []string{
			usersInfoBoth(h), createAdmin(h), // 51003, though it was created
			usersInfoBoth(h), createMonitor(h),
		})
		checkNoPassword(t, "the log", log.String())
	})
	t.Run("same name, other roles", func(t *testing.T) {
		f, topo := newStandalone(t)
		f.servers[h].users["mongobench"] = []string{"read@admin"}
		_, err := Bootstrap(context.Background(), topo, f.options())
		if err == nil || !strings.Contains(err.Error(), "user mongobench exists on m:27017 with roles [read@admin], not root@admin") {
			t.Fatalf("err = %v, want the user's roles named", err)
		}
		checkNoPassword(t, "the error", err.Error())
		if c := f.userCalls(); len(c) != 1 {
			t.Errorf("sent %v, want usersInfo only", c)
		}
	})
	t.Run("credentials refused", func(t *testing.T) {
		f, topo := newStandalone(t)
		f.failNext(h, "hello", injection{err: serverError(codeAuthenticationFailed, "AuthenticationFailed", "Authentication failed.")})
		_, err := Bootstrap(context.Background(), topo, f.options())
		if err == nil || !strings.Contains(err.Error(), "server error 18 (AuthenticationFailed)") ||
			!strings.Contains(err.Error(), "refused the credentials") {
			t.Fatalf("err = %v, want 18 with a hint", err)
		}
		if len(f.clock.slept) != 0 || len(f.calls) != 1 {
			t.Errorf("retried: slept %v, sent %v", f.clock.slept, f.callStrings())
		}
	})
	t.Run("unauthorized", func(t *testing.T) {
		f, topo := newStandalone(t)
		f.failNext(h, cmdUsersInfo, injection{err: serverError(codeUnauthorized, "Unauthorized",
			"not authorized on admin to execute command { usersInfo: ... }")})
		_, err := Bootstrap(context.Background(), topo, f.options())
		if err == nil || !strings.Contains(err.Error(), "create users on standalone: usersInfo on m:27017: server error 13") ||
			!strings.Contains(err.Error(), "access control") {
			t.Fatalf("err = %v, want 13 with a hint", err)
		}
	})
}

// TestUsersValidate: a user needs a name and a password, and the two
// users are two; a mistake is reported before anything is sent, without
// the password.
func TestUsersValidate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		users Users
		want  string
	}{
		{"no password", Users{Admin: User{Name: "a"}}, "the admin user needs a name and a password"},
		{"no name", Users{Monitor: User{Password: monitorPassword}}, "the monitor user needs a name and a password"},
		{"same name", Users{Admin: User{Name: "a", Password: adminPassword}, Monitor: User{Name: "a", Password: monitorPassword}},
			`the admin and monitor users are both named "a"`},
		{"NUL", Users{Admin: User{Name: "a\x00b", Password: adminPassword}}, "contains a NUL character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.add(&fakeServer{host: "m:27017", role: roleStandalone})
			_, err := Bootstrap(context.Background(), Topology{Mode: ModeStandalone, Standalone: "m:27017", Users: tc.users}, f.options())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			checkNoPassword(t, "the error", err.Error())
			if len(f.calls) != 0 {
				t.Errorf("sent %v", f.callStrings())
			}
		})
	}
}

// TestUserHidesPassword: however a User or Users is printed or logged,
// the password does not show.
func TestUserHidesPassword(t *testing.T) {
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("x", "user", testUsers.Admin, "users", testUsers)
	slog.New(slog.NewTextHandler(&buf, nil)).Info("x", "user", testUsers.Admin, "users", testUsers)
	out := buf.String() + fmt.Sprintf("%v %+v %#v %s %v %+v %#v", testUsers.Admin, testUsers.Admin, testUsers.Admin, testUsers.Admin,
		testUsers, testUsers, testUsers)
	out += fmt.Sprintf("%v %+v %#v", Topology{Users: testUsers}, Topology{Users: testUsers}, Topology{Users: testUsers})
	checkNoPassword(t, "the printed users", out)
	if !strings.Contains(out, "mongobench-monitor") {
		t.Errorf("the user's name does not show either:\n%s", out)
	}
}
