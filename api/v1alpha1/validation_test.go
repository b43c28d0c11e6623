package v1alpha1_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/loader/mongodb"
	"github.com/mongobench/mongobench/internal/testutil/kube"
	"github.com/mongobench/mongobench/internal/topology"
)

var env *kube.Env

func TestMain(m *testing.M) { kube.Main(m, &env) }

func newClient(t *testing.T) client.Client {
	t.Helper()
	c, err := client.New(env.Config, client.Options{Scheme: kube.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func namespace(t *testing.T, c client.Client) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "validation-"}}
	if err := c.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// create applies a manifest (YAML) the way kubectl apply would create it.
func create(t *testing.T, c client.Client, ns, manifest string) (*unstructured.Unstructured, error) {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(manifest), &u.Object); err != nil {
		t.Fatalf("bad test manifest: %v\n%s", err, manifest)
	}
	u.SetNamespace(ns)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return u, c.Create(ctx, u)
}

func TestSamplesAreAccepted(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	files, err := filepath.Glob(filepath.Join(kube.RepoRoot(), "config", "samples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples found: %v", err)
	}
	// The CI gate's run (hack/ci-gate.sh creates it: generateName).
	ci, err := filepath.Glob(filepath.Join(kube.RepoRoot(), "config", "samples", "ci", "*.yaml"))
	if err != nil || len(ci) == 0 {
		t.Fatalf("no CI samples found: %v", err)
	}
	files = append(files, ci...)
	for _, f := range files {
		if filepath.Base(f) == "kustomization.yaml" {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for i, doc := range strings.Split(string(b), "\n---\n") {
				if strings.TrimSpace(doc) == "" {
					continue
				}
				if _, err := create(t, c, ns, doc); err != nil {
					t.Errorf("document %d rejected: %v", i, err)
				}
			}
		})
	}
}

// TestDefaults checks what a minimal run becomes: the defaults a user reads
// in `kubectl get -o yaml` and that the controller relies on.
func TestDefaults(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	if _, err := create(t, c, ns, minimal("defaults")); err != nil {
		t.Fatal(err)
	}
	var br benchv1.BenchmarkRun
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "defaults"}, &br); err != nil {
		t.Fatal(err)
	}
	s := br.Spec
	checks := []struct {
		what      string
		got, want any
	}{
		{"phases", len(s.Phases), 2},
		{"phase 0", s.Phases[0].Name + "/" + string(s.Phases[0].Type), "load/Load"},
		{"phase 1", s.Phases[1].Name + "/" + string(s.Phases[1].Type), "run/Run"},
		{"threads", s.Phases[1].Threads, int32(1)},
		{"loaders", s.Loaders, int32(1)},
		{"image", s.Topology.Image, "mongo:8.0.16"},
		{"cache", s.Topology.WiredTigerCacheSizeGB, "1"},
		{"storage", string(s.Topology.Storage.Medium) + "/" + s.Topology.Storage.Size.String(), "Disk/10Gi"},
		// The API's default is the builders' (topology.OplogSizeMB).
		{"oplogSizeMB", s.Topology.OplogSizeMB, topology.DefaultOplogSizeMB},
		{"loaderPlacement", s.Placement.LoaderPlacement, benchv1.LoaderPreferOtherNode},
		{"exclusive", s.Placement.Exclusive != nil && *s.Placement.Exclusive, true},
		{"writeConcern", s.Driver.WriteConcern, "1"},
		{"readPreference", s.Driver.ReadPreference, "primary"},
		// The API's default is the loader's, for a URL that does not say.
		{"retryWrites", s.Driver.RetryWrites, mongodb.DefaultRetryWrites},
		{"cleanup", s.Cleanup, benchv1.CleanupDelete},
		{"timeout", s.Timeout.Duration, 2 * time.Hour},
		{"telemetry.enabled", s.Telemetry.Enabled != nil && *s.Telemetry.Enabled, true},
		{"telemetry.interval", s.Telemetry.Interval != nil && s.Telemetry.Interval.Duration == time.Second, true},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s: got %v, want %v", ch.what, ch.got, ch.want)
		}
	}
}

func minimal(name string) string {
	return `apiVersion: bench.mongobench.io/v1alpha1
kind: BenchmarkRun
metadata: {name: ` + name + `}
spec:
  topology: {mode: Standalone}
  workload: {preset: a}
`
}

// run builds a manifest from a spec body (YAML, indented by two spaces).
// expectAdmission checks the API server's answer to a create: accepted
// when want is "", else refused with an error that contains want.
func expectAdmission(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatalf("rejected: %v", err)
	case want != "" && err == nil:
		t.Fatalf("accepted, want %q", want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Fatalf("error %q does not contain %q", err, want)
	}
}

func run(name, spec string) string {
	return `apiVersion: bench.mongobench.io/v1alpha1
kind: BenchmarkRun
metadata: {name: ` + name + `}
spec:
` + spec
}

func TestBadManifestsAreRejected(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	cases := []struct {
		name, spec string
		want       string
	}{
		{"shards with standalone", `  topology: {mode: Standalone, shards: 2}
`, "shards can only be set when mode is Sharded"},
		{"sharded without shards", `  topology: {mode: Sharded}
`, "shards is required when mode is Sharded"},
		{"too many shards", `  topology: {mode: Sharded, shards: 17}
`, "should be less than or equal to 16"},
		{"zero shards", `  topology: {mode: Sharded, shards: 0}
`, "should be greater than or equal to 1"},
		{"unknown mode", `  topology: {mode: Replicated}
`, `Unsupported value: "Replicated"`},
		{"shard key on standalone", `  topology: {mode: Standalone, shardKey: Hashed}
`, "shardKey can only be set when mode is Sharded"},
		{"proportion above 1", `  topology: {mode: Standalone}
  workload: {preset: c, readProportion: 1.5}
`, "should be less than or equal to 1"},
		// The message names the first Run phase whose mix is off, and its
		// sum (rounded as the rule compares it), so that the fix is obvious.
		{"proportions do not sum to 1", `  topology: {mode: Standalone}
  workload: {preset: a, readProportion: 0.1}
`, "must sum to 1 after applying the preset, spec.workload and the workload overrides of the phase: phase run sums to 0.6"},
		{"phase override does not sum to 1", `  topology: {mode: Standalone}
  workload: {preset: a}
  phases:
  - {name: load, type: Load}
  - {name: S2, type: Run, workload: {readProportion: 0.1, updateProportion: 0.8}}
  - {name: S5, type: Run, workload: {readProportion: 1, updateProportion: 0}}
`, "must sum to 1 after applying the preset, spec.workload and the workload overrides of the phase: phase S2 sums to 0.9"},
		{"the first of two phases that do not sum to 1", `  topology: {mode: Standalone}
  workload: {preset: b}
  phases:
  - {name: load, type: Load}
  - {name: S1, type: Run, workload: {readProportion: 0.7, updateProportion: 0.2}}
  - {name: S2, type: Run}
  - {name: S3, type: Run, workload: {readProportion: 0.75, insertProportion: 0.3}}
`, "the workload overrides of the phase: phase S1 sums to 0.9"},
		{"unknown distribution", `  topology: {mode: Standalone}
  workload: {requestDistribution: pareto}
`, `Unsupported value: "pareto"`},
		{"unknown insert order", `  topology: {mode: Standalone}
  workload: {insertOrder: random}
`, `Unsupported value: "random"`},
		{"unknown preset", `  topology: {mode: Standalone}
  workload: {preset: g}
`, `Unsupported value: "g"`},
		{"zero threads", `  topology: {mode: Standalone}
  phases: [{name: load, type: Load, threads: 0}, {name: run, type: Run}]
`, "should be greater than or equal to 1"},
		{"too many threads", `  topology: {mode: Standalone}
  phases: [{name: load, type: Load, threads: 5000}, {name: run, type: Run}]
`, "should be less than or equal to 1024"},
		{"zero loaders", `  topology: {mode: Standalone}
  loaders: 0
`, "should be greater than or equal to 1"},
		{"too many loaders", `  topology: {mode: Standalone}
  loaders: 65
`, "should be less than or equal to 64"},
		{"zero record count", `  topology: {mode: Standalone}
  workload: {recordCount: 0}
`, "should be greater than or equal to 1"},
		{"first phase not a load", `  topology: {mode: Standalone}
  phases: [{name: run, type: Run}]
`, "the first phase must be a Load phase"},
		{"two load phases", `  topology: {mode: Standalone}
  phases: [{name: load, type: Load}, {name: run, type: Run}, {name: load2, type: Load}]
`, "only one Load phase is allowed"},
		{"duplicate phase names", `  topology: {mode: Standalone}
  phases: [{name: load, type: Load}, {name: run, type: Run}, {name: run, type: Run}]
`, "Duplicate value"},
		{"phase names differing in case", `  topology: {mode: Standalone}
  phases: [{name: load, type: Load}, {name: s2, type: Run}, {name: S2, type: Run}]
`, "phase names must be unique, ignoring case"},
		{"phase named bootstrap", `  topology: {mode: Standalone}
  phases: [{name: load, type: Load}, {name: Bootstrap, type: Run}]
`, "phase names bootstrap, validator and diagnostics are reserved"},
		{"phase named validator", `  topology: {mode: Standalone}
  phases: [{name: load, type: Load}, {name: validator, type: Run}]
`, "phase names bootstrap, validator and diagnostics are reserved"},
		{"phase named diagnostics", `  topology: {mode: Standalone}
  phases: [{name: diagnostics, type: Load}, {name: run, type: Run}]
`, "phase names bootstrap, validator and diagnostics are reserved"},
		{"phase named telemetry", `  topology: {mode: Standalone}
  phases: [{name: load, type: Load}, {name: Telemetry, type: Run}]
`, "phase names telemetry and telemetry-* are reserved"},
		{"phase named telemetry-something", `  topology: {mode: Standalone}
  phases: [{name: load, type: Load}, {name: telemetry-s2, type: Run}]
`, "phase names telemetry and telemetry-* are reserved"},
		{"bad phase name", `  topology: {mode: Standalone}
  phases: [{name: load_1, type: Load}, {name: run, type: Run}]
`, "should match"},
		{"negative timeout", `  topology: {mode: Standalone}
  timeout: -5m
`, "timeout must be greater than zero"},
		{"zero timeout", `  topology: {mode: Standalone}
  timeout: 0s
`, "timeout must be greater than zero"},
		{"zero max execution time", `  topology: {mode: Standalone}
  phases: [{name: load, type: Load}, {name: run, type: Run, maxExecutionTime: 0s}]
`, "maxExecutionTime must be at least 1s"},
		{"unlimited operations without time bound", `  topology: {mode: Standalone}
  workload: {operationCount: 0}
`, "operationCount 0 (unlimited) needs maxExecutionTime"},
		{"zero cache", `  topology: {mode: Standalone, wiredTigerCacheSizeGB: "0"}
`, "wiredTigerCacheSizeGB must be between 0.25 and 10000"},
		{"cache below mongod's minimum", `  topology: {mode: Standalone, wiredTigerCacheSizeGB: "0.2"}
`, "wiredTigerCacheSizeGB must be between 0.25 and 10000: mongod refuses to start with any other value"},
		{"cache above mongod's maximum", `  topology: {mode: Standalone, wiredTigerCacheSizeGB: "10000.5"}
`, "wiredTigerCacheSizeGB must be between 0.25 and 10000"},
		{"duplicate env", `  topology: {mode: Standalone, env: [{name: TZ, value: UTC}, {name: TZ, value: CET}]}
`, "Duplicate value"},
		{"env without name", `  topology: {mode: Standalone, env: [{value: UTC}]}
`, "name"},
		{"negative cache", `  topology: {mode: Standalone, wiredTigerCacheSizeGB: "-1"}
`, "should match"},
		{"unknown cleanup", `  topology: {mode: Standalone}
  cleanup: Never
`, `Unsupported value: "Never"`},
		{"oplog below replSetResizeOplog's minimum", `  topology: {mode: Sharded, shards: 2, oplogSizeMB: 989}
`, "should be greater than or equal to 990"},
		{"oplog above 1 TiB", `  topology: {mode: Sharded, shards: 2, oplogSizeMB: 1048577}
`, "should be less than or equal to 1048576"},
		{"unknown storage medium", `  topology: {mode: Standalone, storage: {medium: Tape}}
`, `Unsupported value: "Tape"`},
		{"storage class without a volume", `  topology: {mode: Standalone, storage: {medium: Disk, storageClassName: fast}}
`, "storageClassName can only be set when medium is PersistentVolume"},
		{"node name and selector", `  topology: {mode: Standalone}
  placement: {nodeName: a, nodeSelector: {disk: ssd}}
`, "set either nodeName or nodeSelector, not both"},
		{"unknown loader placement", `  topology: {mode: Standalone}
  placement: {loaderPlacement: Elsewhere}
`, `Unsupported value: "Elsewhere"`},
		{"managed property", `  topology: {mode: Standalone}
  workload: {properties: {mongodb.url: "mongodb://elsewhere", threadcount: "8"}}
`, "properties must not set mongodb.url: mongobench manages it"},
		{"property with a field", `  topology: {mode: Standalone}
  workload: {properties: {readproportion: "0.3"}}
`, "properties must not set readproportion"},
		{"bad scan length property", `  topology: {mode: Standalone}
  workload: {properties: {maxscanlength: "lots"}}
`, "minscanlength and maxscanlength must be whole numbers"},
		{"workload override on a load phase", `  topology: {mode: Standalone}
  phases: [{name: load, type: Load, workload: {readProportion: 1}}, {name: run, type: Run}]
`, "workload overrides are only allowed on Run phases"},
		{"journal without acknowledgement", `  topology: {mode: Standalone}
  driver: {writeConcern: "0", journal: true}
`, "journal: true needs an acknowledged write concern"},
		{"bad write concern", `  topology: {mode: Standalone}
  driver: {writeConcern: "all"}
`, "should match"},
		{"write concern above a standalone", `  topology: {mode: Standalone}
  driver: {writeConcern: "3"}
`, "driver.writeConcern 3 asks for more members than a standalone has: use 0, 1 or majority"},
		{"write concern above one-member shards", `  topology: {mode: Sharded, shards: 2}
  driver: {writeConcern: "2"}
`, "driver.writeConcern 2 asks for more members than each shard (a one-member replica set) has"},
		{"negative target", `  topology: {mode: Standalone}
  target: -1
`, "should be greater than or equal to 0"},
		{"telemetry interval below 1s", `  topology: {mode: Standalone}
  telemetry: {interval: 500ms}
`, "telemetry.interval must be between 1s and 1m"},
		{"telemetry interval above 1m", `  topology: {mode: Standalone}
  telemetry: {interval: 61s}
`, "telemetry.interval must be between 1s and 1m"},
		{"telemetry interval zero", `  topology: {mode: Standalone}
  telemetry: {interval: 0s}
`, "telemetry.interval must be between 1s and 1m"},
		{"telemetry enabled not a boolean", `  topology: {mode: Standalone}
  telemetry: {enabled: sometimes}
`, "spec.telemetry.enabled"},
		{"bad validation action", `  topology: {mode: Standalone}
  collection: {validator: {$jsonSchema: {bsonType: object}}, validationAction: ignore}
`, `Unsupported value: "ignore"`},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := create(t, c, ns, run("bad-"+strings.ReplaceAll(strings.ToLower(strings.Fields(tc.name)[0]), "_", "")+"-"+itoa(i), tc.spec))
			if err == nil {
				t.Fatalf("accepted; want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q\ndoes not contain %q", err, tc.want)
			}
		})
	}
	// The bounds themselves are accepted, with topology.env.
	for i, cache := range []string{"0.25", "10000"} {
		spec := `  topology: {mode: Standalone, wiredTigerCacheSizeGB: "` + cache + `", env: [{name: GLIBC_TUNABLES, value: "glibc.pthread.rseq=1"}]}
  workload: {preset: a}
`
		if _, err := create(t, c, ns, run("cache-bound-"+itoa(i), spec)); err != nil {
			t.Errorf("wiredTigerCacheSizeGB %s rejected: %v", cache, err)
		}
	}
	// Every write concern a standalone or one-member shards satisfy.
	for i, w := range []string{"0", "1", "majority", "01"} {
		for name, topo := range map[string]string{"sa": "{mode: Standalone}", "sh": "{mode: Sharded, shards: 2}"} {
			spec := "  topology: " + topo + "\n  workload: {preset: a}\n  driver: {writeConcern: \"" + w + "\"}\n"
			if _, err := create(t, c, ns, run("w-ok-"+itoa(i)+"-"+name, spec)); err != nil {
				t.Errorf("writeConcern %s on %s rejected: %v", w, topo, err)
			}
		}
	}
	// The telemetry interval's bounds are accepted, and so is telemetry off.
	for i, tel := range []string{"{interval: 1s}", "{interval: 1m}", "{interval: 2.5s}", "{enabled: false}"} {
		spec := "  topology: {mode: Standalone}\n  workload: {preset: a}\n  telemetry: " + tel + "\n"
		if _, err := create(t, c, ns, run("telemetry-ok-"+itoa(i), spec)); err != nil {
			t.Errorf("telemetry %s rejected: %v", tel, err)
		}
	}
	t.Run("name too long", func(t *testing.T) {
		_, err := create(t, c, ns, minimal(strings.Repeat("n", 41)))
		if err == nil || !strings.Contains(err.Error(), "metadata.name must be at most 40 characters") {
			t.Fatalf("error %v", err)
		}
	})
}

// TestRunNamesAreDNSLabels: a run's name prefixes its Services' names,
// which must be DNS-1035 labels. A name the API server would otherwise
// accept (a dot, a leading digit) used to fail only when the controller
// created the Service ("must not contain dots"), retried until the run's
// timeout; it is now refused at admission.
func TestRunNamesAreDNSLabels(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	for _, name := range []string{"bench.v2", "Bench", "2bench", "bench-"} {
		_, err := create(t, c, ns, minimal(name))
		if err == nil {
			t.Errorf("%q accepted", name)
			continue
		}
		if !strings.Contains(err.Error(), "metadata.name must be a DNS-1035 label") {
			t.Errorf("%q: error %v", name, err)
		}
	}
	for _, name := range []string{"bench-v2", "b", "b2", strings.Repeat("b", 40)} {
		if _, err := create(t, c, ns, minimal(name)); err != nil {
			t.Errorf("%q rejected: %v", name, err)
		}
	}
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

// TestSpecIsImmutableOnceStarted: a benchmark's definition must not drift
// mid-run, but a run that has not started may still be edited.
func TestSpecIsImmutableOnceStarted(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	ctx := context.Background()
	if _, err := create(t, c, ns, minimal("immutable")); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKey{Namespace: ns, Name: "immutable"}
	var br benchv1.BenchmarkRun
	if err := c.Get(ctx, key, &br); err != nil {
		t.Fatal(err)
	}
	// Not started yet: edits are fine.
	br.Spec.Loaders = 2
	if err := c.Update(ctx, &br); err != nil {
		t.Fatalf("edit before start rejected: %v", err)
	}
	br.Status.Phase = benchv1.RunLoading
	if err := c.Status().Update(ctx, &br); err != nil {
		t.Fatalf("status update rejected: %v", err)
	}
	br.Spec.Loaders = 3
	err := c.Update(ctx, &br)
	if err == nil || !strings.Contains(err.Error(), "spec cannot be changed once the run has started (phase Loading)") {
		t.Fatalf("edit after start: error %v", err)
	}
	// Metadata (labels) stays editable: people tag finished runs.
	if err := c.Get(ctx, key, &br); err != nil {
		t.Fatal(err)
	}
	br.Labels = map[string]string{"study": "microsharding"}
	if err := c.Update(ctx, &br); err != nil {
		t.Fatalf("label edit rejected: %v", err)
	}
	// The controller's status writes keep working.
	br.Status.Phase = benchv1.RunRunning
	if err := c.Status().Update(ctx, &br); err != nil {
		t.Fatalf("status update after start rejected: %v", err)
	}
}

// TestExplain checks that `kubectl explain` tells a user what the fields mean.
func TestExplain(t *testing.T) {
	user, err := env.AddUser(envtest.User{Name: "explainer", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kubectl, err := user.Kubectl()
	if err != nil {
		t.Fatal(err)
	}
	// Discovery of a freshly installed CRD can lag; poll with a deadline.
	deadline := time.Now().Add(time.Minute)
	for {
		stdout, stderr, err := kubectl.Run("explain", "benchmarkrun.spec.topology")
		out := readAll(stdout)
		if err == nil {
			for _, want := range []string{"Topology is the MongoDB deployment under test", "wiredTigerCacheSizeGB", "co-located micro-shards", "Standalone", "Always passed explicitly"} {
				if !strings.Contains(out, want) {
					t.Errorf("kubectl explain output lacks %q:\n%s", want, out)
				}
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("kubectl explain: %v\n%s\n%s", err, out, readAll(stderr))
		}
		time.Sleep(500 * time.Millisecond) // poll interval, bounded by the deadline above
	}
}

func readAll(r io.Reader) string {
	if r == nil {
		return ""
	}
	b, _ := io.ReadAll(r)
	return string(b)
}
