package loader

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/growth"
	"github.com/mongobench/mongobench/internal/loader/mongodb"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/testutil/syncbuf"
	"github.com/mongobench/mongobench/internal/testutil/wireserver"
	"github.com/mongobench/mongobench/internal/ycsb"
)

func TestGrowParse(t *testing.T) {
	var stderr syncbuf.Buffer
	c, err := Parse([]string{"grow", "mongodb", "-p", "mongodb.url=mongodb://m:27017/bench", "-p", "table=grown",
		"-p", contract.PropGrowthTargetRecords + "=5000", "-p", contract.PropGrowthInsertMode + "=Batch",
		"-p", contract.PropGrowthBatchSize + "=250", "-p", "growth.quries=q1", "-p", "batchsize=10",
		"--result-configmap", "r1-grow-result", "--result-labels", "a=b", "--telemetry-process", "standalone,p,m:27017"},
		Env{Stderr: &stderr, Getenv: func(k string) string { return map[string]string{"JOB_COMPLETION_INDEX": "0"}[k] }})
	if err != nil {
		t.Fatal(err)
	}
	g := c.Grow()
	if g == nil || g.Database != "bench" || g.Collection != "grown" || g.Workload.TargetRecords != 5000 ||
		g.Workload.InsertMode != results.InsertBatch || g.Workload.BatchSize != 250 || g.Workload.CheckpointEvery != 500 {
		t.Errorf("grow phase %+v", g)
	}
	if c.LoaderIndex() != 0 || c.Telemetry() == nil {
		t.Errorf("index %d, telemetry %v", c.LoaderIndex(), c.Telemetry())
	}
	if cm, err := c.ResultConfigMap(); err != nil || cm.Name != "r1-grow-result-0" || cm.Labels[contract.LabelLoaderIndex] != "0" {
		t.Errorf("result ConfigMap %+v, %v", cm, err)
	}
	for _, w := range []string{`unknown property "growth.quries" (did you mean "growth.queries"?)`,
		`property "batchsize" is ignored: a Grow phase's batches are growth.batchsize`} {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("no warning %q:\n%s", w, stderr.String())
		}
	}
	if c, err := Parse([]string{"load"}, Env{}); err != nil || c.Grow() != nil {
		t.Errorf("load: %v, %v", c, err)
	}
}

func TestGrowUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"two loaders", nil, []string{"grow", "-p", "loader.count=2"}, "a Grow phase has one loader: loader.count must be 1 (it is 2)"},
		{"loader 1", map[string]string{"JOB_COMPLETION_INDEX": "1"}, []string{"grow", "-p", "loader.count=2"}, "a Grow phase has one loader"},
		{"growth property", nil, []string{"grow", "-p", contract.PropGrowthInsertMode + "=fast"}, `growth.insertmode: "fast" is not one of`},
		{"too many checkpoints", nil, []string{"grow", "-p", contract.PropGrowthCheckpointEvery + "=10"}, "at most 200 allowed"},
		{"url", nil, []string{"grow", "-p", "mongodb.url=mongodb://:1/"}, `host ":1" has no name`},
		{"other binding", nil, []string{"grow", "redis"}, `unknown database "redis"`},
		{"empty table", nil, []string{"grow", "-p", "table="}, "table: the collection's name is empty"},
		{"telemetry result alone", nil, []string{"grow", "--telemetry-result", "t.gz"}, "--telemetry-result needs --telemetry-process"},
		{"bad configmap name", nil, []string{"grow", "--result-configmap", "R"}, `--result-configmap: name "R-0"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr, termLog := runMain(t, tc.env, nil, tc.args...)
			if code != ExitUsage || !strings.Contains(stderr, tc.want) || !strings.Contains(termLog, tc.want) {
				t.Errorf("exit %d\nstderr:\n%s\nwant %q", code, stderr, tc.want)
			}
		})
	}
	code, _, stderr, _ := runMain(t, nil, nil, "grow", "-h")
	if code != ExitOK || !strings.Contains(stderr, "Growth workload (internal/growth):") || !strings.Contains(stderr, "growth.q3.skip") ||
		!strings.Contains(stderr, "--result-configmap") && !strings.Contains(stderr, "-result-configmap") {
		t.Errorf("grow -h: exit %d\n%s", code, stderr)
	}
	code, stdout, _, _ := runMain(t, nil, nil, "help")
	if code != ExitOK || !strings.Contains(stdout, "\n  grow ") {
		t.Errorf("help:\n%s", stdout)
	}
}

// TestGrowKnownPropertiesMatchTheCode: every key `loader grow` reads is
// registered (and not as ignored), and every growth property registered
// is read.
func TestGrowKnownPropertiesMatchTheCode(t *testing.T) {
	known := map[string]ycsb.Property{}
	for _, p := range GrowKnownProperties() {
		if _, dup := known[p.Name]; dup {
			t.Errorf("%s is registered twice", p.Name)
		}
		known[p.Name] = p
		if !slices.Contains(growGroups, p.Group) {
			t.Errorf("%s: group %q has no section in -h", p.Name, p.Group)
		}
	}
	p := props(t, "mongodb.url=mongodb://h/db", "exportfile="+filepath.Join(t.TempDir(), "r"), "loader.count=1")
	p.RecordReads()
	env := testEnv(nil)
	var gc growCommand
	var err error
	if _, _, err = loaderIdentity(p, env.Getenv); err != nil {
		t.Fatal(err)
	}
	if gc.cfg, err = growth.FromProperties(p.Get); err != nil {
		t.Fatal(err)
	}
	if gc.conn, err = mongodb.ConfigFromProperties(p); err != nil {
		t.Fatal(err)
	}
	_ = p.String("table", defaultTable)
	d, err := openDestinations(&phaseFlags{}, p, env, 0)
	if err != nil {
		t.Fatal(err)
	}
	d.close()
	read := map[string]bool{}
	for _, k := range p.ReadKeys() {
		read[k] = true
		switch kp, ok := known[k]; {
		case !ok:
			t.Errorf("grow reads %q, which is not in GrowKnownProperties", k)
		case kp.Ignored != "" && k != "batchsize" && k != "mongodb.upsert" && k != "mongodb.writeConcern":
			t.Errorf("grow reads %q, which GrowKnownProperties says is ignored", k)
		}
	}
	for _, gp := range growth.KnownProperties() {
		if !read[gp.Name] {
			t.Errorf("%s is registered but grow never reads it", gp.Name)
		}
	}
}

// cancelOn cancels a context with a signal's cause when a line containing
// what is written to it.
type cancelOn struct {
	syncbuf.Buffer
	what   string
	cancel context.CancelCauseFunc
	once   sync.Once
}

func (c *cancelOn) Write(p []byte) (int, error) {
	n, err := c.Buffer.Write(p)
	if strings.Contains(c.String(), c.what) {
		c.once.Do(func() { c.cancel(SignalError{Signal: syscall.SIGTERM}) })
	}
	return n, err
}

// TestMainGrowResumesAndWritesItsResult runs `loader grow` as its Job
// would against the wire server and a real API server: stopped by SIGTERM
// after its first checkpoint, it exits 143 and leaves the result ConfigMap
// to the pod that resumes the phase; that one finishes it and writes the
// whole phase's result.
func TestMainGrowResumesAndWritesItsResult(t *testing.T) {
	kenv := startAPIServer(t)
	srv := wireserver.Shared(t)
	db, _ := wireserver.TestDatabase(t, srv)
	admin, err := kubernetes.NewForConfig(kenv.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "grow"}},
		metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	newWriter := adminWriter(t, kenv)
	env := map[string]string{"POD_NAMESPACE": "grow", "POD_NAME": "r1-grow-x7k2p", "JOB_COMPLETION_INDEX": "0"}
	args := []string{contract.CommandGrow, "-p", "mongodb.url=" + wireserver.DatabaseURI(srv.Addr(), db),
		"-p", contract.PropGrowthTargetRecords + "=3000", "-p", contract.PropGrowthCheckpointEvery + "=1000",
		"-p", contract.PropGrowthInsertMode + "=batch", "-p", contract.PropGrowthBatchSize + "=100",
		"-p", contract.PropGrowthQueryDuration + "=300ms", "-p", contract.PropGrowthQueryThreads + "=2", "-p", contract.PropGrowthPayloadSize + "=100",
		"--result-configmap", "r1-grow-result", "--result-owner", "bench.mongobench.io/v1alpha1,BenchmarkRun,r1,5f0c6f5e-0000-4000-8000-00000000000b",
		"--result", filepath.Join(t.TempDir(), "partial.json.gz")}

	// The first pod: SIGTERM during checkpoint 2's queries.
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stdout := &cancelOn{what: "[CHECKPOINT], 1/3, ", cancel: cancel}
	var stderr syncbuf.Buffer
	termLog := filepath.Join(t.TempDir(), "termination-log")
	code := Main(sctx, append(args, "--termination-log", termLog), Env{Stdout: stdout, Stderr: &stderr,
		Getenv: func(k string) string { return env[k] }, Version: "test", NewResultWriter: newWriter})
	if code != 143 || !strings.Contains(stderr.String(), "grow phase stopped after checkpoint 1 of 3; partial result reported") ||
		!strings.Contains(stderr.String(), "the result ConfigMap is left to the loader that resumes the phase") {
		t.Fatalf("stopped: exit %d\n%s", code, stderr.String())
	}
	if _, err := admin.CoreV1().ConfigMaps("grow").Get(ctx, "r1-grow-result-0", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the stopped loader wrote its result ConfigMap: %v", err)
	}

	// The next pod of the Job.
	code, out, errs, _ := runMain(t, env, newWriter, args...)
	if code != ExitOK {
		t.Fatalf("resumed: exit %d\n%s", code, errs)
	}
	cm, err := admin.CoreV1().ConfigMaps("grow").Get(ctx, "r1-grow-result-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := results.Decode(cm.BinaryData[contract.ConfigMapKey])
	if err != nil {
		t.Fatal(err)
	}
	g := r.Growth
	if r.Kind != results.KindGrow || r.StopReason != results.StopCompleted || len(g.Checkpoints) != 3 || g.Restarts != 1 ||
		r.Loader.Hostname != "r1-grow-x7k2p" || r.Op(results.OpInsert).Total() != 30 {
		t.Errorf("result: %s %s, %d rows, %d restarts, %d insert calls", r.Kind, r.StopReason, len(g.Checkpoints), g.Restarts,
			r.Op(results.OpInsert).Total())
	}
	if n := strings.Count(out, "[CHECKPOINT], "); n != 3 || strings.Count(out, " earlier=true") != 1 || !strings.Contains(out, "[INSERT], Return=OK, 30\n") {
		t.Errorf("report:\n%s", out)
	}
	if !strings.Contains(errs, "growth: resuming (restart 1) at record ") {
		t.Errorf("log:\n%s", errs)
	}
}

func TestGrowOutcome(t *testing.T) {
	res := &results.Result{StopReason: results.StopCancelled, Growth: &results.GrowthResult{PlannedCheckpoints: 5,
		Checkpoints: make([]results.GrowthCheckpoint, 2)}}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(SignalError{Signal: syscall.SIGINT})
	err := growOutcome(ctx, res, nil, nil)
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 130 || !strings.Contains(err.Error(), "stopped after checkpoint 2 of 5") {
		t.Errorf("stop: %v", err)
	}
	err = growOutcome(context.Background(), res, errors.New("insert failed: boom"), errors.New("write result: nope"))
	if errors.As(err, &ee) || !strings.Contains(err.Error(), "failed after checkpoint 2 of 5: insert failed: boom; partial result reported; "+
		"run the phase again to resume it; but: write result: nope") {
		t.Errorf("failure: %v", err)
	}
	res.StopReason = results.StopCompleted
	if err := growOutcome(context.Background(), res, nil, nil); err != nil {
		t.Errorf("done: %v", err)
	}
}
