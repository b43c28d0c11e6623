package loader

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/mongoadmin"
	"github.com/mongobench/mongobench/internal/testutil/stubmongo"
)

// Secrets the tests plant, each unique, to look for in every output.
const (
	plantedAdmin   = "pw-admin-LOADER-31c7e0"
	plantedMonitor = "pw-monitor-LOADER-8d02f4"
	// plantedKey is a keyfile's key: base64 characters only.
	plantedKey = "S2V5ZmlsZU9mVGhlUnVuTE9BREVSOWQ1"
)

var planted = []string{plantedAdmin, plantedMonitor, plantedKey}

// authEnv is the environment a Job of a run with security.auth gets.
func authEnv() map[string]string {
	return map[string]string{
		contract.EnvUsername: "mongobench", contract.EnvPassword: plantedAdmin,
		contract.EnvMonitorUsername: "mongobench-monitor", contract.EnvMonitorPassword: plantedMonitor,
	}
}

// with returns env with the changes (an empty value unsets).
func with(env map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range env {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(out, kv[i])
		} else {
			out[kv[i]] = kv[i+1]
		}
	}
	return out
}

// The stub's users: the run's two, and the cluster's own with the key.
var (
	stubAdmin   = stubmongo.User{DB: "admin", Name: "mongobench", Password: plantedAdmin}
	stubMonitor = stubmongo.User{DB: "admin", Name: "mongobench-monitor", Password: plantedMonitor}
	stubCluster = stubmongo.User{DB: "admin", Name: "__system", Password: plantedKey}
)

// checkNoSecret fails the test when out holds a planted secret.
func checkNoSecret(t *testing.T, what, out string) {
	t.Helper()
	for _, s := range planted {
		if strings.Contains(out, s) {
			t.Errorf("%s holds the secret %q:\n%s", what, s, out)
		}
	}
}

// gunzipFile returns a gzip file's content, or its bytes when it is not
// gzip; "" when it does not exist.
func gunzipFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return string(b)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gunzip %s: %v", path, err)
	}
	return string(out)
}

// writeKeyfile writes a keyfile as the Secret volume holds it, with
// whitespace mongod ignores, and returns its path.
func writeKeyfile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "keyfile")
	if err := os.WriteFile(path, []byte(content), 0o400); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReadKeyfile reads a key as mongod does: whitespace (0x09 to 0x0D and
// space) dropped, only the base64 alphabet, 6 to 1024 characters. Errors
// show no part of the key.
func TestReadKeyfile(t *testing.T) {
	for _, tc := range []struct {
		name, content, want, err string
	}{
		{"as openssl writes it", plantedKey[:16] + "\n" + plantedKey[16:] + "\n", plantedKey, ""},
		{"every whitespace", "\tabc \nDEF\v\fghi\r\n=+/09 ", "abcDEFghi=+/09", ""},
		{"six", "abcdef", "abcdef", ""},
		{"1024", strings.Repeat("A", 1024), strings.Repeat("A", 1024), ""},
		{"five", "abc de\n", "", "5 characters without whitespace, mongod requires 6 to 1024"},
		{"1025", strings.Repeat("A", 1025), "", "1025 characters without whitespace"},
		{"not base64", "secretkey!x", "", "byte 9 is not of the base64 alphabet"},
		{"NUL", "abcdef\x00", "", "byte 6 is not of the base64 alphabet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readKeyfile(writeKeyfile(t, tc.content))
			if tc.err == "" {
				if err != nil || got != tc.want {
					t.Fatalf("readKeyfile = %q, %v; want %q", got, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
			if strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "abc") {
				t.Errorf("the error shows the key: %v", err)
			}
		})
	}
	if _, err := readKeyfile(filepath.Join(t.TempDir(), "none")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
}

// TestCredentialsFromEnvironment: every command that connects reads its
// credential from the environment, never a flag: load, run, grow and
// collmod the admin user, telemetry the monitor user, bootstrap both users
// to create and --keyfile. One variable of a pair without the other, a
// keyfile without the users, or users without the keyfile, are usage
// errors that say what is missing.
func TestCredentialsFromEnvironment(t *testing.T) {
	url := "mongodb.url=mongodb://db:27017/ycsb"
	tel := []string{"--telemetry-process", "standalone,db-0,db:27017"}
	load := append([]string{"load", "-P", "workloada", "-p", url}, tel...)
	grow := append([]string{"grow", "-p", url}, tel...)
	collmod := []string{"collmod", "--uri", "mongodb://db:27017", "--validator", `{"$jsonSchema":{}}`}
	keyfile := "/keyfile/keyfile"
	bootstrap := []string{"bootstrap", "--mode", "standalone", "--standalone", "db:27017"}
	withKeyfile := append(append([]string{}, bootstrap...), "--"+contract.FlagKeyfile, keyfile)
	admin := &options.Credential{AuthSource: "admin", Username: "mongobench", Password: plantedAdmin}
	monitor := &options.Credential{AuthSource: "admin", Username: "mongobench-monitor", Password: plantedMonitor}

	t.Run("set", func(t *testing.T) {
		env := authEnv()
		getenv := func(k string) string { return env[k] }
		for _, args := range [][]string{load, append([]string{"run"}, load[1:]...)} {
			c, err := Parse(args, Env{Getenv: getenv})
			if err != nil {
				t.Fatalf("%s: %v", args[0], err)
			}
			if got := c.phase.prepared.cfg.Credential; !sameCredential(got, admin) {
				t.Errorf("%s connects as %+v", args[0], got)
			}
			if got := c.Telemetry().credential; !sameCredential(got, monitor) {
				t.Errorf("%s samples as %+v", args[0], got)
			}
		}
		c, err := Parse(grow, Env{Getenv: getenv})
		if err != nil {
			t.Fatalf("grow: %v", err)
		}
		if !sameCredential(c.grow.conn.Credential, admin) || !sameCredential(c.Telemetry().credential, monitor) {
			t.Errorf("grow connects as %+v, samples as %+v", c.grow.conn.Credential, c.Telemetry().credential)
		}
		if c, err = Parse(collmod, Env{Getenv: getenv}); err != nil || !sameCredential(c.collMod.credential, admin) {
			t.Errorf("collmod: %v, connects as %+v", err, c.collMod.credential)
		}
		c, err = Parse(withKeyfile, Env{Getenv: getenv})
		if err != nil {
			t.Fatalf("bootstrap: %v", err)
		}
		want := mongoadmin.Users{Admin: mongoadmin.User{Name: "mongobench", Password: plantedAdmin},
			Monitor: mongoadmin.User{Name: "mongobench-monitor", Password: plantedMonitor}}
		if c.bootstrap.keyfile != keyfile || c.bootstrap.topo.Users != want {
			t.Errorf("bootstrap: keyfile %q, users %#v", c.bootstrap.keyfile, c.bootstrap.topo.Users)
		}
	})
	t.Run("unset", func(t *testing.T) {
		c, err := Parse(load, Env{})
		if err != nil || c.phase.prepared.cfg.Credential != nil || c.Telemetry().credential != nil {
			t.Errorf("load without the environment: %v, %+v", err, c)
		}
		if c, err = Parse(bootstrap, Env{}); err != nil || c.bootstrap.topo.Users != (mongoadmin.Users{}) {
			t.Errorf("bootstrap without the environment: %v", err)
		}
	})
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"load, password alone", load, with(authEnv(), contract.EnvUsername, ""),
			"MONGOBENCH_PASSWORD is set but MONGOBENCH_USERNAME is not: set both or neither"},
		{"run, user alone", append([]string{"run"}, load[1:]...), with(authEnv(), contract.EnvPassword, ""),
			"MONGOBENCH_USERNAME is set but MONGOBENCH_PASSWORD is not"},
		{"grow, user alone", grow, with(authEnv(), contract.EnvPassword, ""), "MONGOBENCH_USERNAME is set but MONGOBENCH_PASSWORD is not"},
		{"collmod, password alone", collmod, with(authEnv(), contract.EnvUsername, ""), "MONGOBENCH_PASSWORD is set but MONGOBENCH_USERNAME is not"},
		{"telemetry, monitor password alone", load, with(authEnv(), contract.EnvMonitorUsername, ""),
			"MONGOBENCH_MONITOR_PASSWORD is set but MONGOBENCH_MONITOR_USERNAME is not"},
		{"keyfile without users", withKeyfile, nil, "--keyfile needs the users to create from the environment: MONGOBENCH_USERNAME and " +
			"MONGOBENCH_PASSWORD (the admin user, role root) and MONGOBENCH_MONITOR_USERNAME and MONGOBENCH_MONITOR_PASSWORD"},
		{"keyfile without the monitor", withKeyfile, with(authEnv(), contract.EnvMonitorUsername, "", contract.EnvMonitorPassword, ""),
			"--keyfile needs the users to create"},
		{"users without keyfile", bootstrap, authEnv(), "are set but --keyfile is not"},
		{"keyfile, half a pair", withKeyfile, with(authEnv(), contract.EnvMonitorPassword, ""),
			"MONGOBENCH_MONITOR_USERNAME is set but MONGOBENCH_MONITOR_PASSWORD is not"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr, msg := runMain(t, tc.env, nil, tc.args...)
			if code != ExitUsage || !strings.Contains(msg, tc.want) {
				t.Errorf("exit %d, message %q; want %d with %q\n%s", code, msg, ExitUsage, tc.want, stderr)
			}
			checkNoSecret(t, "the output", stdout+stderr+msg)
		})
	}
}

func sameCredential(a, b *options.Credential) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.AuthSource == b.AuthSource && a.Username == b.Username && a.Password == b.Password && a.AuthMechanism == b.AuthMechanism
}

// TestBootstrapWithKeyfile: `loader bootstrap --keyfile` against a server
// that requires authentication: every connection authenticates as
// __system with the key (whitespace dropped, as mongod reads it), and the
// users of the environment are created with their passwords; a key the
// server does not know fails at once, with the server's 18 and a hint.
// No output holds a secret.
func TestBootstrapWithKeyfile(t *testing.T) {
	for _, tc := range []struct {
		name, key, want string // want: "" succeeds
	}{
		{"the run's keyfile", plantedKey[:10] + "\n" + plantedKey[10:] + "  \n", ""},
		{"another keyfile", "QW5vdGhlcktleWZpbGVDb250ZW50\n", "server error 18 (AuthenticationFailed)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := stubmongo.Start(t, stubmongo.Record(), stubmongo.RequireAuth(stubCluster))
			code, stdout, stderr, msg := runMain(t, authEnv(), nil, "bootstrap", "--mode", "standalone", "--standalone", srv.Addr(),
				"--keyfile", writeKeyfile(t, tc.key), "--timeout", "30s")
			checkNoSecret(t, "the output", stdout+stderr+msg)
			if tc.want != "" {
				if code != ExitFailure || !strings.Contains(msg, tc.want) || !strings.Contains(msg, "refused the credentials") {
					t.Fatalf("exit %d, message %q; want %d with %q\n%s", code, msg, ExitFailure, tc.want, stderr)
				}
				if n := srv.AuthFailures(); n != 1 {
					t.Errorf("%d failed authentications, want 1: an access error is not retried", n)
				}
				return
			}
			if code != ExitOK {
				t.Fatalf("exit %d: %s\n%s", code, msg, stderr)
			}
			auths := srv.Authentications()
			if len(auths) == 0 || len(srv.Refused()) != 0 {
				t.Fatalf("authentications %v, commands refused %v", auths, srv.Refused())
			}
			for _, a := range auths {
				if a != "admin.__system" {
					t.Errorf("authenticated as %s, want admin.__system", a)
				}
			}
			var created []string
			for _, c := range srv.Commands() {
				if name, ok := c.Lookup("createUser").StringValueOK(); ok {
					created = append(created, name+" "+c.Lookup("pwd").StringValue()+" "+c.Lookup("roles", "0", "role").StringValue())
				}
			}
			if want := []string{"mongobench " + plantedAdmin + " root", "mongobench-monitor " + plantedMonitor + " clusterMonitor"}; strings.Join(created, "|") != strings.Join(want, "|") {
				t.Errorf("created %q, want %q", created, want)
			}
			if !strings.Contains(stderr, "authenticating as the cluster") || !strings.Contains(stderr, "user created") {
				t.Errorf("the log does not tell:\n%s", stderr)
			}
		})
	}
}

// TestNoSecretInAnyOutput runs load (with telemetry) and collmod against
// a server with access control, with the run's credentials in the
// environment, once as they should be and once with a wrong one, and
// searches every output for the passwords: stdout, stderr, the
// termination message, the result and the telemetry report (decompressed).
func TestNoSecretInAnyOutput(t *testing.T) {
	loadArgs := func(srv *stubmongo.Server, dir string) []string {
		return []string{"load", "-P", "workloada", "-p", "recordcount=200", "-threads", "2",
			// A short heartbeat: a client closed right after it connected
			// waits out its monitor's held hello (the driver's Disconnect
			// can miss the check under way), which the stub holds for the
			// heartbeat, as a server does.
			"-p", "mongodb.url=mongodb://" + srv.Addr() + "/ycsb?directConnection=true&heartbeatFrequencyMS=500",
			"--telemetry-process", "standalone,db-0," + srv.Addr(), "--telemetry-interval", "20ms",
			"--telemetry-collection", srv.Addr() + ",ycsb,usertable",
			"--result", filepath.Join(dir, "result.json.gz"), "--telemetry-result", filepath.Join(dir, "telemetry.json.gz")}
	}
	for _, tc := range []struct {
		name     string
		env      map[string]string
		wantCode int
		want     string // in the termination message, or stderr when it succeeds
	}{
		{"load, right credentials", authEnv(), ExitOK, "telemetry: 1 processes"},
		{"load, wrong admin password", with(authEnv(), contract.EnvPassword, "wrong-"+plantedMonitor[3:]), ExitFailure,
			"as mongobench after"},
		{"load, wrong monitor password", with(authEnv(), contract.EnvMonitorPassword, "wrong-"+plantedAdmin[3:]), ExitOK,
			"telemetry: 1 failed samples of standalone db-0; last: serverStatus of db-0:"},
		{"load, no credentials", nil, ExitFailure, "connected without credentials"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := stubmongo.Start(t, stubmongo.RequireAuth(stubAdmin, stubMonitor))
			dir := t.TempDir()
			code, stdout, stderr, msg := runMain(t, tc.env, nil, loadArgs(srv, dir)...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d: %s\n%s", code, tc.wantCode, msg, stderr)
			}
			where := msg
			if code == ExitOK {
				where = stderr
			}
			if !strings.Contains(where, tc.want) {
				t.Errorf("want %q in:\n%s", tc.want, where)
			}
			result, telemetry := gunzipFile(t, filepath.Join(dir, "result.json.gz")), gunzipFile(t, filepath.Join(dir, "telemetry.json.gz"))
			if code == ExitOK && (result == "" || telemetry == "") {
				t.Errorf("result %d bytes, telemetry %d bytes", len(result), len(telemetry))
			}
			for what, out := range map[string]string{"stdout": stdout, "stderr": stderr, "the termination message": msg,
				"the result": result, "the telemetry": telemetry} {
				checkNoSecret(t, what, out)
			}
		})
	}

	// collmod, which reads the validator back: the stub keeps what create
	// gave.
	for _, tc := range []struct {
		name     string
		env      map[string]string
		wantCode int
		want     string
	}{
		{"collmod, right credentials", authEnv(), ExitOK, "validator verified"},
		{"collmod, wrong password", with(authEnv(), contract.EnvPassword, "wrong"), ExitFailure, "server error 18 (AuthenticationFailed)"},
		{"collmod, no credentials", nil, ExitFailure, "server error 13 (Unauthorized)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := stubmongo.Start(t, stubmongo.RequireAuth(stubAdmin), stubmongo.RemembersCollection())
			code, stdout, stderr, msg := runMain(t, tc.env, nil, "collmod", "--uri", srv.URI()+"&heartbeatFrequencyMS=500", "--validator", `{"$jsonSchema":{"bsonType":"object"}}`,
				"--timeout", "20s")
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d: %s\n%s", code, tc.wantCode, msg, stderr)
			}
			where := msg
			if code == ExitOK {
				where = stderr
				if a := srv.Authentications(); len(a) == 0 || a[0] != "admin.mongobench" {
					t.Errorf("authentications %v", a)
				}
			}
			if !strings.Contains(where, tc.want) {
				t.Errorf("want %q in:\n%s", tc.want, where)
			}
			checkNoSecret(t, "the output", stdout+stderr+msg)
		})
	}
}
