package loader

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/loader/k8sresult"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/telemetry"
	"github.com/mongobench/mongobench/internal/testutil/syncbuf"
	"github.com/mongobench/mongobench/internal/testutil/wireserver"
)

// runMain runs Main with the given environment and returns its exit code,
// stdout, stderr and termination log.
func runMain(t *testing.T, env map[string]string, newWriter func() (*k8sresult.Writer, error), args ...string) (int, string, string, string) {
	t.Helper()
	termLog := filepath.Join(t.TempDir(), "termination-log")
	var stdout bytes.Buffer
	var stderr syncbuf.Buffer
	code := Main(context.Background(), append(args, "--termination-log", termLog), Env{
		Stdout:          &stdout,
		Stderr:          &stderr,
		Getenv:          func(k string) string { return env[k] },
		Version:         "v0.0.0-test",
		NewResultWriter: newWriter,
	})
	msg, _ := os.ReadFile(termLog)
	return code, stdout.String(), stderr.String(), string(msg)
}

func TestMainUsageAndConfigurationErrors(t *testing.T) {
	url := "mongodb.url=mongodb://127.0.0.1:1/x"
	extEnv := map[string]string{contract.EnvURI: "mongodb://u:pw@127.0.0.1:1/x"}
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		code int
		want string
	}{
		{"unknown command", nil, []string{"frobnicate"}, ExitUsage, `unknown command "frobnicate"`},
		{"another binding", nil, []string{"load", "cassandra", "-P", "a"}, ExitUsage, `unknown database "cassandra"`},
		{"bad flag", nil, []string{"run", "-threads", "many"}, ExitUsage, `invalid value "many" for flag -threads`},
		{"leftover argument", nil, []string{"run", "-P", "a", "extra"}, ExitUsage, `unexpected argument "extra"`},
		{"unknown workload", nil, []string{"run", "-P", "workloadz"}, ExitUsage, "not a built-in workload"},
		{"bad property", nil, []string{"run", "-p", "recordcount=-1", "-p", url}, ExitUsage, "recordcount: -1 must not be negative"},
		{"other workload class", nil, []string{"run", "-p", "workload=site.ycsb.workloads.TimeSeriesWorkload"}, ExitUsage,
			"TimeSeriesWorkload\" is not supported"},
		{"binding property", nil, []string{"load", "-p", "batchsize=0"}, ExitUsage, "batchsize: 0 must be at least 1"},
		{"other exporter", nil, []string{"load", "-p", "exporter=site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter"}, ExitUsage,
			"only the text report"},
		{"unwritable exportfile", nil, []string{"load", "-p", "exportfile=/nonexistent/dir/report"}, ExitFailure, "exportfile: open /nonexistent"},
		{"index from the Job out of range", map[string]string{"JOB_COMPLETION_INDEX": "3"}, []string{"load", "-p", "loader.count=3"},
			ExitUsage, "loader.index 3 (from -p loader.index or JOB_COMPLETION_INDEX) must be at least 0 and below loader.count 3"},
		{"target too small to split", map[string]string{"JOB_COMPLETION_INDEX": "2"},
			[]string{"run", "-P", "a", "-p", "loader.count=3", "-target", "2"}, ExitUsage, "target 2 is smaller than loader.count 3: loader 2"},
		{"fractional target to split", nil, []string{"run", "-P", "a", "-p", "loader.count=2", "-p", "target=1.5"}, ExitUsage,
			"must be a whole, non-negative number"},
		{"owner without configmap", nil, []string{"load", "--result-owner", "v1,Pod,p,u"}, ExitUsage, "need --result-configmap"},
		{"bad configmap name", nil, []string{"load", "--result-configmap", "Run_1"}, ExitUsage, "--result-configmap: name \"Run_1-0\""},
		{"bad owner", nil, []string{"load", "--result-configmap", "r", "--result-owner", "v1,Pod"}, ExitUsage, "want APIVERSION,KIND,NAME,UID"},
		{"bad labels", nil, []string{"load", "--result-configmap", "r", "--result-labels", "a"}, ExitUsage, `label "a": want key=value`},
		{"not in a pod", map[string]string{"POD_NAMESPACE": "ns"}, []string{"load", "--result-configmap", "r"}, ExitFailure,
			"not running in a Kubernetes pod"},
		{"unwritable result file", nil, []string{"load", "--result", "/nonexistent/dir/r.gz"}, ExitFailure, "--result: open /nonexistent"},
		{"unreachable server", nil, []string{"load", "-p", url, "-p", "mongodb.operationtimeout=300ms"}, ExitFailure,
			"load phase: cannot reach MongoDB at 127.0.0.1:1 (mongodb.url) after "},
		{"url: host without a name", nil, []string{"load", "-p", "mongodb.url=mongodb://:27017/ycsb"}, ExitUsage,
			`mongodb.url: invalid URL "mongodb://:27017/ycsb": host ":27017" has no name`},
		{"url: bad port", nil, []string{"run", "-p", "mongodb.url=mongodb://host:notaport/"}, ExitUsage,
			`mongodb.url: invalid URL "mongodb://host:notaport/": host "host:notaport": port "notaport"`},
		{"url: no host", nil, []string{"load", "-p", "mongodb.url=mongodb://"}, ExitUsage, "must have at least 1 host"},
		{"url: password hidden", nil, []string{"load", "-p", "mongodb.url=mongodb://u:s3cret@h:1/?authMechanism=NOPE"}, ExitUsage,
			`mongodb.url: invalid URL "mongodb://u:xxxxx@h:1/?authMechanism=NOPE": error parsing uri: invalid auth mechanism`},
		{"external: no URI", nil, []string{"bootstrap", "--mode", "external", "--owner", "ns/run/uid"}, ExitUsage,
			"--mode external connects with MONGOBENCH_URI, which is not set"},
		{"external: no owner", extEnv, []string{"bootstrap", "--mode", "external"}, ExitUsage, "--owner is required with --mode external"},
		{"external: bad owner", extEnv, []string{"bootstrap", "--mode", "external", "--owner", "ns/run"}, ExitUsage, "want <namespace>/<name>/<uid>"},
		{"external: a deployed topology's flag", extEnv, []string{"bootstrap", "--mode", "external", "--owner", "ns/run/uid", "--standalone", "h:1"},
			ExitUsage, "not for --mode external"},
		{"external: keyfile", extEnv, []string{"bootstrap", "--mode", "external", "--owner", "ns/run/uid", "--keyfile", "/k"}, ExitUsage,
			"--keyfile is not for --mode external"},
		{"external: certificate without key", extEnv, []string{"bootstrap", "--mode", "external", "--owner", "ns/run/uid",
			"--tls-cert-file", "/c"}, ExitUsage, "--tls-cert-file and --tls-key-file go together"},
		{"external: -p of a hashed key", extEnv, []string{"bootstrap", "--mode", "external", "--owner", "ns/run/uid", "-p", "recordcount=9"},
			ExitUsage, "are for --shard-key ranged"},
		{"external flags outside external", nil, []string{"bootstrap", "--mode", "standalone", "--standalone", "h:1", "--allow-existing-data"},
			ExitUsage, "--allow-existing-data is for --mode external"},
		{"dropdatabase: no URI", nil, []string{"dropdatabase", "--namespace", "db.c", "--owner", "ns/run/uid"}, ExitUsage,
			"dropdatabase connects with MONGOBENCH_URI"},
		{"dropdatabase: no owner", extEnv, []string{"dropdatabase", "--namespace", "db.c"}, ExitUsage, "--owner: owner"},
		{"dropdatabase: no namespace", extEnv, []string{"dropdatabase", "--owner", "ns/run/uid"}, ExitUsage, "want db.collection"},
		{"collmod: --uri and MONGOBENCH_URI", extEnv, []string{"collmod", "--uri", "mongodb://h:1/", "--validator", "{}"}, ExitUsage,
			"--uri and MONGOBENCH_URI are both set"},
		{"telemetry: external and processes", extEnv, []string{"load", "--telemetry-external", "--telemetry-process", "standalone,p,h:1"},
			ExitUsage, "--telemetry-external and --telemetry-process exclude each other"},
		{"telemetry: external without URI", nil, []string{"load", "-p", url, "--telemetry-external"}, ExitUsage,
			"--telemetry-external needs MONGOBENCH_MONITOR_URI or MONGOBENCH_URI"},
		{"bootstrap: bad mode", nil, []string{"bootstrap", "--mode", "replicated"}, ExitUsage, `--mode: "replicated": want sharded, standalone, replicaset or external`},
		{"bootstrap: replicaset without its set", nil, []string{"bootstrap", "--mode", "replicaset"}, ExitUsage, "--replica-set: want exactly one, got 0"},
		{"bootstrap: replicaset with a mongos", nil, []string{"bootstrap", "--mode", "replicaset", "--replica-set", "rs0=a:1,b:1", "--mongos", "m:1"}, ExitUsage,
			"not for --mode replicaset"},
		{"bootstrap: replicaset member twice", nil, []string{"bootstrap", "--mode", "replicaset", "--replica-set", "rs0=a:1,a:1"}, ExitUsage, "lists member a:1 twice"},
		{"bootstrap: replicaset empty member", nil, []string{"bootstrap", "--mode", "replicaset", "--replica-set", "rs0=a:1,"}, ExitUsage, "an empty member"},
		{"bootstrap: shard member twice", nil, []string{"bootstrap", "--mode", "sharded", "--config-server", "cfg=c:1", "--shard", "s0=s:1,s:1",
			"--mongos", "m:1"}, ExitUsage, "lists member s:1 twice"},
		{"bootstrap: sharded without config server", nil, []string{"bootstrap", "--mode", "sharded", "--mongos", "m:1"}, ExitUsage,
			"--config-server: want exactly one, got 0"},
		{"bootstrap: bad shard flag", nil, []string{"bootstrap", "--mode", "sharded", "--shard", "noequals"}, ExitUsage, "want NAME=HOST:PORT"},
		{"bootstrap: invalid topology", nil, []string{"bootstrap", "--mode", "sharded", "--config-server", "cfg=c:1", "--mongos", "m:1"},
			ExitUsage, "at least one shard"},
		{"bootstrap: bad shard key", nil, []string{"bootstrap", "--mode", "sharded", "--config-server", "cfg=c:1", "--shard", "s0=s:1",
			"--mongos", "m:1", "--shard-key", "random"}, ExitUsage, `--shard-key: "random"`},
		{"bootstrap: standalone without host", nil, []string{"bootstrap", "--mode", "standalone"}, ExitUsage, "want host:port"},
		{"telemetry: bad process", nil, []string{"run", "--telemetry-process", "shard,p"}, ExitUsage,
			`--telemetry-process: telemetry process "shard,p": want ROLE,POD,HOST:PORT`},
		{"telemetry: process without port", nil, []string{"run", "--telemetry-process", "shard,p,host"}, ExitUsage,
			`address "host": want host:port`},
		{"telemetry: bad collection", nil, []string{"load", "--telemetry-process", "shard,p,h:1", "--telemetry-collection", "h:1,ycsb"},
			ExitUsage, "--telemetry-collection: telemetry collection"},
		{"telemetry: collection without process", nil, []string{"load", "--telemetry-collection", "h:1,ycsb,usertable"}, ExitUsage,
			"need --telemetry-process"},
		{"telemetry: growth without collection", nil, []string{"load", "--telemetry-process", "shard,p,h:1",
			"--telemetry-collection-every", "10s"}, ExitUsage, "--telemetry-collection-every needs --telemetry-collection"},
		{"telemetry: tiny interval", nil, []string{"run", "--telemetry-process", "shard,p,h:1", "--telemetry-interval", "1ms"}, ExitUsage,
			"--telemetry-interval 1ms: must be at least 10ms"},
		{"telemetry: bad interval", nil, []string{"run", "--telemetry-interval", "often"}, ExitUsage, `invalid value "often"`},
		{"telemetry: result without process", nil, []string{"run", "--telemetry-result", "t.gz"}, ExitUsage,
			"--telemetry-result needs --telemetry-process"},
		{"collmod: no uri", nil, []string{"collmod", "--validator", "{}"}, ExitUsage, "--uri is required"},
		{"collmod: bad validator", nil, []string{"collmod", "--uri", "mongodb://h", "--validator", "{nope"}, ExitUsage, "--validator"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr, termLog := runMain(t, tc.env, nil, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) || !strings.Contains(termLog, tc.want) {
				t.Errorf("exit %d (want %d)\nstderr:\n%s\ntermination log:\n%s\nwant %q in both", code, tc.code, stderr, termLog, tc.want)
			}
		})
	}
}

func TestMainHelpAndVersion(t *testing.T) {
	if code, stdout, _, _ := runMain(t, nil, nil, "version"); code != 0 || stdout != "mongobench loader v0.0.0-test\n" {
		t.Errorf("version: %d %q", code, stdout)
	}
	for _, cmd := range []string{"load", "run"} {
		code, _, stderr, _ := runMain(t, nil, nil, cmd, "-h")
		flags, table, ok := strings.Cut(stderr, "\nProperties (")
		if code != 0 || !ok || !strings.Contains(flags, "-result-configmap NAME") ||
			!strings.Contains(table, "\n  readproportion             0.95          share of reads") {
			t.Errorf("%s -h: %d\n%s", cmd, code, stderr)
		}
	}
	// A flag error prints the flags, not the property table.
	if code, _, stderr, _ := runMain(t, nil, nil, "run", "-threads", "x"); code != ExitUsage || strings.Contains(stderr, "Properties (") {
		t.Errorf("flag error: %d\n%s", code, stderr)
	}
	if code, _, stderr, termLog := runMain(t, nil, nil); code != ExitUsage || !strings.Contains(stderr, "Commands:") || termLog != "no command given" {
		t.Errorf("no command: %d %q\n%s", code, termLog, stderr)
	}
}

// TestMainWarnings: warnings go to stderr and do not change the outcome
// (here a usage error from another property, which the typo warning
// precedes).
func TestMainWarnings(t *testing.T) {
	code, _, stderr, termLog := runMain(t, nil, nil, "run", "-p", "readproprotion=0.9", "-p", "requestdistribution=gaussian")
	if code != ExitUsage || !strings.Contains(termLog, `unknown distribution "gaussian"`) ||
		!strings.Contains(stderr, "loader: warning: unknown property \"readproprotion\" (did you mean \"readproportion\"?); it is ignored\n") {
		t.Errorf("exit %d, termination log %q\n%s", code, termLog, stderr)
	}
	code, _, stderr, _ = runMain(t, nil, nil, "run", "-p", "mongodb.url=mongodb://127.0.0.1:1/x", "-p", "mongodb.operationtimeout=100ms")
	if code != ExitFailure || !strings.Contains(stderr, "loader: warning: operationcount is 0 (unlimited) and maxexecutiontime is not set") {
		t.Errorf("exit %d\n%s", code, stderr)
	}
}

func TestTerminationLogArg(t *testing.T) {
	for args, want := range map[string]string{
		"run -P a":                        DefaultTerminationLog,
		"run --termination-log /t/x -s":   "/t/x",
		"run -termination-log=/t/y":       "/t/y",
		"run -P termination-log --x":      DefaultTerminationLog,
		"bootstrap --termination-log= -s": "",
	} {
		if got := terminationLogArg(strings.Fields(args)); got != want {
			t.Errorf("%s: %q, want %q", args, got, want)
		}
	}
}

func TestTruncateMessage(t *testing.T) {
	short := "connect: refused"
	if truncateMessage(short, 4096) != short {
		t.Error("short message changed")
	}
	long := "phase: " + strings.Repeat("é", 3000) + " root cause"
	got := truncateMessage(long, 4096)
	if len(got) > 4096 || !utf8.ValidString(got) || !strings.HasPrefix(got, "phase: ") ||
		!strings.HasSuffix(got, " root cause") || !strings.Contains(got, " […] ") {
		t.Errorf("truncated to %d bytes, valid %v: %q…%q", len(got), utf8.ValidString(got), got[:20], got[len(got)-20:])
	}
}

func TestSplitTarget(t *testing.T) {
	for _, tc := range []struct {
		target       string
		index, count int
		want         string
	}{
		{"1000", 0, 1, "1000"},
		{"1000", 0, 3, "334"},
		{"1000", 1, 3, "333"},
		{"1000", 2, 3, "333"},
		{"1001", 1, 3, "334"},
		{"0", 2, 3, "0"},
	} {
		p := props(t, "target="+tc.target)
		if _, err := splitTarget(p, tc.index, tc.count); err != nil {
			t.Fatal(err)
		}
		if got, _ := p.Get("target"); got != tc.want {
			t.Errorf("target %s, loader %d of %d: %s, want %s", tc.target, tc.index, tc.count, got, tc.want)
		}
	}
	// Shares add up to the total.
	for total := int64(0); total < 50; total++ {
		var sum int64
		for i := range 7 {
			p := props(t, "target="+itoa(total))
			if _, err := splitTarget(p, i, 7); err != nil {
				continue // a loader without a share: refused
			}
			v, _ := p.Int64("target", 0)
			sum += v
		}
		if total >= 7 && sum != total {
			t.Errorf("target %d: shares sum to %d", total, sum)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestLoaderIdentity(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	p := props(t, "loader.count=4")
	if i, n, err := loaderIdentity(p, env("2")); i != 2 || n != 4 || err != nil {
		t.Errorf("from JOB_COMPLETION_INDEX: %d %d %v", i, n, err)
	}
	p = props(t, "loader.count=4", "loader.index=1")
	if i, _, err := loaderIdentity(p, env("2")); i != 1 || err != nil {
		t.Errorf("-p loader.index must win: %d %v", i, err)
	}
	if i, n, err := loaderIdentity(props(t), env("")); i != 0 || n != 1 || err != nil {
		t.Errorf("defaults: %d %d %v", i, n, err)
	}
}

// adminWriter returns a result writer for the test API server.
func adminWriter(t *testing.T, env interface {
	AddUser(envtest.User, *rest.Config) (*envtest.AuthenticatedUser, error)
}) func() (*k8sresult.Writer, error) {
	t.Helper()
	u, err := env.AddUser(envtest.User{Name: "loader-test", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := u.Config()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return func() (*k8sresult.Writer, error) { return k8sresult.New(cfg.Host, hc, ""), nil }
}

// TestMainWritesResultConfigMaps runs load and bootstrap as their Jobs do
// (the flags of internal/topology/jobs.go) against the wire server and a
// real API server, and reads the ConfigMaps back.
func TestMainWritesResultConfigMaps(t *testing.T) {
	kenv := startAPIServer(t)
	srv := wireserver.Shared(t)
	db, _ := wireserver.TestDatabase(t, srv)
	admin, err := kubernetes.NewForConfig(kenv.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bench"}},
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	newWriter := adminWriter(t, kenv)
	owner := "bench.mongobench.io/v1alpha1,BenchmarkRun,r1,5f0c6f5e-0000-4000-8000-00000000000a"
	labels := "app.kubernetes.io/managed-by=mongobench,bench.mongobench.io/run=r1,app.kubernetes.io/name=mongobench"
	env := map[string]string{"POD_NAMESPACE": "bench", "POD_NAME": "r1-load-1-x7k2p", "JOB_COMPLETION_INDEX": "1"}
	args := []string{"load", "-P", "workloada", "-p", "recordcount=500", "-p", "mongodb.url=" + wireserver.DatabaseURI(srv.Addr(), db),
		"-p", "loader.count=2", "-threads", "2", "-s",
		"--result-configmap", "r1-load-result", "--result-owner", owner, "--result-labels", labels,
		"--telemetry-interval", "50ms", "--telemetry-process", "standalone,r1-mongod," + srv.Addr(),
		"--telemetry-collection", srv.Addr() + "," + db + ",usertable", "--telemetry-collection-every", "100ms"}

	code, stdout, stderr, _ := runMain(t, env, newWriter, args...)
	if code != 0 {
		t.Fatalf("load: exit %d\n%s", code, stderr)
	}
	cm, err := admin.CoreV1().ConfigMaps("bench").Get(ctx, "r1-load-result-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := results.Decode(cm.BinaryData[contract.ConfigMapKey])
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind != results.KindLoad || r.Loader.Index != 1 || r.Loader.Count != 2 || r.Loader.Hostname != "r1-load-1-x7k2p" ||
		r.Op(results.OpInsert).Statuses["OK"] != 250 || r.StopReason != results.StopCompleted {
		t.Errorf("result %+v", r)
	}
	if !strings.Contains(stdout, "[INSERT], Return=OK, 250\n") {
		t.Errorf("report:\n%s", stdout)
	}
	wantLabels := map[string]string{"app.kubernetes.io/managed-by": "mongobench", "bench.mongobench.io/run": "r1",
		"app.kubernetes.io/name": "mongobench", contract.LabelLoaderIndex: "1"}
	if contract.EncodeLabels(cm.Labels) != contract.EncodeLabels(wantLabels) {
		t.Errorf("labels %v, want %v", cm.Labels, wantLabels)
	}
	if o := cm.OwnerReferences; len(o) != 1 || o[0].Name != "r1" || o[0].Kind != "BenchmarkRun" || o[0].Controller == nil || !*o[0].Controller {
		t.Errorf("owner %+v", o)
	}
	// Loader 1 does not sample; loader 0 of the same Job does, and its
	// telemetry travels in its result ConfigMap, beside the result.
	if _, ok := cm.BinaryData[contract.TelemetryKey]; ok || strings.Contains(stderr, "telemetry:") {
		t.Errorf("loader 1 took telemetry:\n%s", stderr)
	}
	checkLoader0Telemetry(t, admin, newWriter, args)

	// exportfile: the report goes there instead of stdout.
	export := filepath.Join(t.TempDir(), "report.txt")
	code, stdout, stderr, _ = runMain(t, nil, nil, "run", "-P", "workloadc", "-p", "recordcount=500", "-p", "insertstart=250", "-p", "insertcount=250", "-p", "operationcount=100",
		"-p", "mongodb.url="+wireserver.DatabaseURI(srv.Addr(), db), "-p", "exportfile="+export, "-p", "exporter=site.ycsb.measurements.exporter.TextMeasurementsExporter")
	if b, err := os.ReadFile(export); code != 0 || err != nil || !strings.Contains(string(b), "[READ], Return=OK, 100\n") || stdout != "" {
		t.Errorf("exportfile: exit %d, stdout %q, file %q (%v)\n%s", code, stdout, b, err, stderr)
	}

	// The same Job's pod again: the result exists, the loader fails and
	// says why, after printing its report.
	code, stdout, stderr, termLog := runMain(t, env, newWriter, args...)
	if code != ExitFailure || !strings.Contains(termLog, "a result already exists") || !strings.Contains(stderr, "a result already exists") ||
		!strings.Contains(stdout, "[INSERT]") {
		t.Errorf("second run: exit %d, termination log %q\n%s", code, termLog, stderr)
	}

}

// TestMainWritesBootstrapConfigMap: the bootstrap Job's report goes under
// bootstrap.json, as data, in ConfigMap NAME-0.
func TestMainWritesBootstrapConfigMap(t *testing.T) {
	kenv := startAPIServer(t)
	srv := wireserver.Shared(t)
	db, _ := wireserver.TestDatabase(t, srv)
	admin, err := kubernetes.NewForConfig(kenv.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bootstrap"}},
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	owner := "bench.mongobench.io/v1alpha1,BenchmarkRun,r1,5f0c6f5e-0000-4000-8000-00000000000a"
	code, stdout, stderr, _ := runMain(t, map[string]string{"POD_NAMESPACE": "bootstrap"}, adminWriter(t, kenv),
		"bootstrap", "--namespace", db+".usertable", "--timeout", "1m", "--mode", "standalone", "--standalone", srv.Addr(),
		"--result-configmap", "r1-bootstrap-result", "--result-owner", owner, "--result-labels", "bench.mongobench.io/run=r1")
	if code != 0 || !strings.Contains(stderr, "level=INFO") {
		t.Fatalf("bootstrap: exit %d\n%s", code, stderr)
	}
	cm, err := admin.CoreV1().ConfigMaps("bootstrap").Get(ctx, "r1-bootstrap-result-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := results.DecodeBootstrap([]byte(cm.Data[contract.BootstrapConfigMapKey]))
	if err != nil || rep.ServerVersion != "6.0.0" || rep.Namespace != db+".usertable" || rep.Sharded {
		t.Errorf("bootstrap report %+v, %v", rep, err)
	}
	if strings.TrimSpace(stdout) != cm.Data[contract.BootstrapConfigMapKey] {
		t.Errorf("stdout %q differs from the ConfigMap's report", stdout)
	}
	if cm.Labels[contract.LabelLoaderIndex] != "0" || cm.Labels["bench.mongobench.io/run"] != "r1" {
		t.Errorf("bootstrap labels %v", cm.Labels)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkLoader0Telemetry runs loader 0 of a phase Job with telemetry (args)
// and checks its result ConfigMap: the result, and beside it the
// telemetry report, decodable, with samples and collection statistics.
func checkLoader0Telemetry(t *testing.T, admin kubernetes.Interface, newWriter func() (*k8sresult.Writer, error), args []string) {
	t.Helper()
	ctx := context.Background()
	env0 := map[string]string{"POD_NAMESPACE": "bench", "POD_NAME": "r1-load-0-b4n8q", "JOB_COMPLETION_INDEX": "0"}
	if code, _, stderr, _ := runMain(t, env0, newWriter, args...); code != 0 || !strings.Contains(stderr, "telemetry: 1 processes") {
		t.Fatalf("load, loader 0: exit %d\n%s", code, stderr)
	}
	cm0, err := admin.CoreV1().ConfigMaps("bench").Get(ctx, "r1-load-result-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := results.Decode(cm0.BinaryData[contract.ConfigMapKey]); err != nil {
		t.Errorf("loader 0's result: %v", err)
	}
	tel, err := telemetry.DecodePayload(cm0.BinaryData[contract.TelemetryKey])
	if err != nil {
		t.Fatalf("loader 0's telemetry: %v", err)
	}
	if len(tel.Processes) != 1 || tel.Processes[0].Pod != "r1-mongod" || tel.Processes[0].Series.Samples() < 1 ||
		tel.Collection == nil || tel.Collection.Final == nil || tel.Collection.Final.Count == nil || *tel.Collection.Final.Count != 500 {
		t.Errorf("loader 0's telemetry: %s", mustJSON(t, tel))
	}
}
