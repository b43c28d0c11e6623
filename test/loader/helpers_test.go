// Package loader_test runs the loader binary as the Jobs do, as a
// subprocess, against mongo-java-server (internal/testutil/wireserver): a
// real, independent implementation of MongoDB's wire protocol. It checks
// the text report, the encoded result, and what ends up in the database.
package loader_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/testutil/wireserver"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// processTimeout bounds every loader process of these tests.
const processTimeout = 3 * time.Minute

func TestMain(m *testing.M) {
	code := m.Run()
	if binary.dir != "" {
		_ = os.RemoveAll(binary.dir)
	}
	if err := wireserver.CloseShared(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(code)
}

// repoRoot is the repository's top directory.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// binary is the loader built once for the package.
var binary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// loaderBinary builds ./cmd/loader as the image does (CGO off, trimpath;
// with the race detector when the tests have it) into a temporary
// directory, once.
func loaderBinary(t *testing.T) string {
	t.Helper()
	binary.once.Do(func() {
		binary.dir, binary.err = os.MkdirTemp("", "loader-test-")
		if binary.err != nil {
			return
		}
		binary.path = filepath.Join(binary.dir, "loader")
		args := []string{"build", "-trimpath", "-o", binary.path}
		env := []string{"CGO_ENABLED=0"}
		if raceBuild {
			args, env = append(args, "-race"), []string{"CGO_ENABLED=1"}
		}
		cmd := exec.Command("go", append(args, "./cmd/loader")...)
		cmd.Dir = repoRoot()
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			binary.err = fmt.Errorf("go build ./cmd/loader: %w\n%s", err, out)
		}
	})
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.path
}

// run is one finished loader process.
type run struct {
	code           int
	stdout, stderr []byte
	termLog        string
}

func (r *run) String() string {
	return fmt.Sprintf("exit %d\nstderr:\n%s\ntermination log: %q", r.code, r.stderr, r.termLog)
}

// loaderCommand prepares a loader process with extra environment variables
// and a termination log in a temporary file.
func loaderCommand(t *testing.T, ctx context.Context, env []string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	termLog := filepath.Join(t.TempDir(), "termination-log")
	cmd := exec.CommandContext(ctx, loaderBinary(t), append(args, "--termination-log", termLog)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = 10 * time.Second
	return cmd, termLog
}

// runLoader runs the loader to its end.
func runLoader(t *testing.T, env []string, args ...string) *run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), processTimeout)
	defer cancel()
	cmd, termLog := loaderCommand(t, ctx, env, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := &run{stdout: stdout.Bytes(), stderr: stderr.Bytes()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("loader %v: %v\n%s", args, err, stderr.Bytes())
	}
	msg, _ := os.ReadFile(termLog)
	r.termLog = string(msg)
	return r
}

// mustSucceed runs the loader and fails the test unless it exits 0.
func mustSucceed(t *testing.T, env []string, args ...string) *run {
	t.Helper()
	r := runLoader(t, env, args...)
	if r.code != 0 {
		t.Fatalf("loader %v: %v", args, r)
	}
	return r
}

// ycsbText is parsed YCSB text output: name → metric → value.
type ycsbText map[string]map[string]string

func parseYCSBText(t *testing.T, text []byte) ycsbText {
	t.Helper()
	rep := ycsbText{}
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "[") {
			continue // log and status lines on stderr
		}
		parts := strings.SplitN(line, ", ", 3)
		if len(parts) != 3 || !strings.HasSuffix(parts[0], "]") {
			t.Fatalf("malformed report line %q", line)
		}
		name := strings.Trim(parts[0], "[]")
		if rep[name] == nil {
			rep[name] = map[string]string{}
		}
		rep[name][parts[1]] = parts[2]
	}
	if rep["OVERALL"] == nil {
		t.Fatalf("no [OVERALL] lines in:\n%s", text)
	}
	return rep
}

func (r ycsbText) int(t *testing.T, name, metric string) int64 {
	t.Helper()
	v, ok := r[name][metric]
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatalf("[%s], %s, %q: %v", name, metric, v, err)
	}
	return n
}

// checkNoFailures asserts that every operation of the report succeeded:
// its only Return lines are OK (and BATCHED_OK), no "-FAILED" measurement
// exists, no buffered insert was lost. NOT_FOUND counts as a failure: with
// the redraw guard no operation targets a missing record.
func (r ycsbText) checkNoFailures(t *testing.T) {
	t.Helper()
	for name, metrics := range r {
		if strings.HasSuffix(name, "-FAILED") {
			t.Errorf("[%s] exists: %v", name, metrics)
		}
		for metric, v := range metrics {
			if strings.HasPrefix(metric, "Return=") && metric != "Return=OK" && metric != "Return=BATCHED_OK" {
				t.Errorf("[%s], %s, %s", name, metric, v)
			}
			if metric == "FailedBufferedInserts" {
				t.Errorf("[%s], %s, %s", name, metric, v)
			}
		}
	}
}

// compareWithResult asserts that the text report and the encoded result
// carry the same numbers.
func compareWithResult(t *testing.T, rep ycsbText, r *results.Result) {
	t.Helper()
	if got := rep.int(t, "OVERALL", "RunTime(ms)"); got != r.RuntimeMillis {
		t.Errorf("RunTime(ms) %d, result %d", got, r.RuntimeMillis)
	}
	if got, want := rep["OVERALL"]["Throughput(ops/sec)"], ycsb.FormatJavaDouble(1000*float64(r.Operations)/float64(r.RuntimeMillis)); got != want {
		t.Errorf("Throughput %s, result %s", got, want)
	}
	names := 0
	for _, op := range r.Ops {
		if op.Latency != nil || op.Total() > 0 {
			names++
			s := op.Latency.Stats()
			for metric, want := range map[string]int64{
				"Operations": s.Count, "MinLatency(us)": s.Min, "MaxLatency(us)": s.Max,
				"95thPercentileLatency(us)": op.Latency.Percentile(95), "99thPercentileLatency(us)": op.Latency.Percentile(99),
			} {
				if got := rep.int(t, op.Name, metric); got != want {
					t.Errorf("[%s], %s, %d; result %d", op.Name, metric, got, want)
				}
			}
			if got, want := rep[op.Name]["AverageLatency(us)"], ycsb.FormatJavaDouble(s.Mean); got != want {
				t.Errorf("[%s], AverageLatency(us), %s; result %s", op.Name, got, want)
			}
			if op.Name != results.OpCleanup {
				for st, n := range op.Statuses {
					if got := rep.int(t, op.Name, "Return="+st); got != n {
						t.Errorf("[%s], Return=%s, %d; result %d", op.Name, st, got, n)
					}
				}
			}
		}
		if op.Failed != nil {
			names++
			if got := rep.int(t, op.Name+"-FAILED", "Operations"); got != op.Failed.Count() {
				t.Errorf("[%s-FAILED], Operations, %d; result %d", op.Name, got, op.Failed.Count())
			}
		}
	}
	if got := len(rep) - 1; got != names { // minus OVERALL
		t.Errorf("the report has %d measurements, the result %d", got, names)
	}
}

// database connects to the shared wire server and returns a fresh database
// named after the test, and the loader's URL for it.
func database(t *testing.T) (*mongo.Database, string) {
	t.Helper()
	srv := wireserver.Shared(t)
	client, err := mongo.Connect(options.Client().ApplyURI(srv.URI()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	name := strings.NewReplacer("/", "_", "=", "_").Replace(t.Name())
	db := client.Database(name)
	if err := db.Drop(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db, "mongodb.url=mongodb://" + srv.Addr() + "/" + name + "?directConnection=true&w=1"
}

// keysOf returns YCSB's keys (insertorder hashed, zeropadding 1) of the
// given key numbers.
func keysOf(nums ...int64) map[string]bool {
	keys := make(map[string]bool, len(nums))
	for _, k := range nums {
		keys[string(ycsb.BuildKeyName(nil, k, 1, false))] = true
	}
	return keys
}

func keyRange(start, n int64) map[string]bool {
	nums := make([]int64, n)
	for i := range nums {
		nums[i] = start + int64(i)
	}
	return keysOf(nums...)
}

// checkDocuments asserts that the collection holds exactly the records
// with the given keys, each YCSB-shaped: {_id: key, field0..field<n-1>:
// BinData(0) of length bytes}.
func checkDocuments(t *testing.T, coll *mongo.Collection, want map[string]bool, fields, length int) {
	t.Helper()
	ctx := context.Background()
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetBatchSize(2000))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cur.Close(ctx) }()
	seen := map[string]bool{}
	bad := 0
	for cur.Next(ctx) {
		doc := bsoncore.Document(cur.Current)
		elems, err := doc.Elements()
		if err != nil {
			t.Fatal(err)
		}
		id, ok := elems[0].Value().StringValueOK()
		if elems[0].Key() != "_id" || !ok {
			t.Fatalf("first element %v is not a string _id", elems[0])
		}
		if seen[id] {
			t.Errorf("duplicate _id %s", id)
		}
		seen[id] = true
		if !want[id] {
			bad++
			if bad < 5 {
				t.Errorf("unexpected _id %s", id)
			}
		}
		if len(elems) != fields+1 {
			t.Errorf("%s has %d fields", id, len(elems)-1)
			continue
		}
		for i, e := range elems[1:] {
			sub, data, ok := e.Value().BinaryOK()
			if e.Key() != "field"+strconv.Itoa(i) || !ok || sub != 0 || len(data) != length {
				t.Errorf("%s: %s is not BinData(0) of %d bytes: %v", id, e.Key(), length, e.Value().Type)
			}
		}
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(want) {
		t.Errorf("%d documents, want %d", len(seen), len(want))
	}
	missing := 0
	for k := range want {
		if !seen[k] {
			missing++
		}
	}
	if missing > 0 {
		t.Errorf("%d expected keys missing", missing)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
