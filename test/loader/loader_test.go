package loader_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/telemetry"
	"github.com/mongobench/mongobench/internal/testutil/wireserver"
)

const records = 10000

// TestLoad loads 10,000 records one insert at a time and in batches whose
// size does not divide a thread's share (2,500 = 39·64 + 4), so the last 4
// records of every thread are only written by the final flush.
func TestLoad(t *testing.T) {
	for _, tc := range []struct {
		batch           string
		ok, batchedOK   int64
		flushedInserted int64
	}{
		{batch: "1", ok: records},
		{batch: "64", ok: 4 * 39, batchedOK: records - 4*39},
	} {
		t.Run("batchsize="+tc.batch, func(t *testing.T) {
			db, url := database(t)
			out := t.TempDir() + "/result.json.gz"
			r := mustSucceed(t, nil, "load", "-P", "workloada", "-p", url, "-p", "recordcount=10000", "-p", "batchsize="+tc.batch,
				"-threads", "4", "--result", out)
			rep := parseYCSBText(t, r.stdout)
			rep.checkNoFailures(t)
			if got := rep.int(t, "INSERT", "Operations"); got != records {
				t.Errorf("[INSERT], Operations, %d", got)
			}
			if ok, bok := rep.int(t, "INSERT", "Return=OK"), rep.int(t, "INSERT", "Return=BATCHED_OK"); ok != tc.ok || bok != tc.batchedOK {
				t.Errorf("Return=OK %d, BATCHED_OK %d; want %d, %d", ok, bok, tc.ok, tc.batchedOK)
			}
			res, err := results.Decode(readFile(t, out))
			if err != nil {
				t.Fatal(err)
			}
			if res.Kind != results.KindLoad || res.Operations != records || res.LostInserts != 0 || res.StopReason != results.StopCompleted {
				t.Errorf("result %+v", res)
			}
			compareWithResult(t, rep, res)
			checkDocuments(t, db.Collection("usertable"), keyRange(0, records), 10, 100)
		})
	}
}

// loadFor loads n records (batched, to be quick) for a run test.
func loadFor(t *testing.T, url string, n int) {
	t.Helper()
	mustSucceed(t, nil, "load", "mongodb", "-P", "workloada", "-p", url, "-p", "recordcount="+strconv.Itoa(n), "-p", "batchsize=100", "-threads", "4")
}

// TestRunWorkloads runs YCSB's workloads a–f (the embedded files) after a
// load, with --result - (the encoded result on stdout, the report on
// stderr). Workloads d and e insert, so each gets a data set of its own;
// e scans, and mongo-java-server sorts the whole collection for every
// sorted query (about 60 ms at 1,000 records), so e runs on its own
// defaults (recordcount 1,000) with 300 operations.
func TestRunWorkloads(t *testing.T) {
	shared, sharedURL := database(t)
	loadFor(t, sharedURL, records)
	for _, tc := range []struct {
		workload string
		recs     int
		ops      int64
		opNames  []string
	}{
		{"a", records, 2000, []string{"READ", "UPDATE"}},
		{"b", records, 2000, []string{"READ", "UPDATE"}},
		{"c", records, 2000, []string{"READ"}},
		{"f", records, 2000, []string{"READ", "READ-MODIFY-WRITE"}},
		{"d", records, 2000, []string{"READ", "INSERT"}},
		{"e", 1000, 300, []string{"SCAN", "INSERT"}},
	} {
		t.Run("workload"+tc.workload, func(t *testing.T) {
			db, url := shared, sharedURL
			if tc.workload == "d" || tc.workload == "e" {
				db, url = database(t)
				loadFor(t, url, tc.recs)
			}
			r := mustSucceed(t, nil, "run", "-P", "workload"+tc.workload, "-p", url, "-p", "recordcount="+strconv.Itoa(tc.recs),
				"-p", "operationcount="+strconv.FormatInt(tc.ops, 10), "-threads", "4", "--result", "-")
			res, err := results.Decode(r.stdout)
			if err != nil {
				t.Fatalf("stdout is not an encoded result: %v", err)
			}
			rep := parseYCSBText(t, r.stderr)
			rep.checkNoFailures(t)
			compareWithResult(t, rep, res)
			if res.Kind != results.KindRun || res.Operations != tc.ops || res.StopReason != results.StopCompleted {
				t.Errorf("result: kind %s, %d operations, %s", res.Kind, res.Operations, res.StopReason)
			}
			var top int64
			for _, name := range tc.opNames {
				n := rep.int(t, name, "Return=OK")
				if n == 0 {
					t.Errorf("no successful %s", name)
				}
				if name != "READ" || !slices.Contains(tc.opNames, "READ-MODIFY-WRITE") {
					top += n
				}
			}
			if tc.workload == "f" {
				// READ counts the RMWs' reads too.
				top = rep.int(t, "READ", "Return=OK") // reads + RMWs = operations
			}
			if top != tc.ops {
				t.Errorf("%d top-level operations in the report, want %d", top, tc.ops)
			}
			if inserts := rep.int(t, "INSERT", "Return=OK"); inserts > 0 {
				// One loader's run-phase inserts are keys recordcount, recordcount+1, ...
				want := keyRange(0, int64(tc.recs)+inserts)
				checkDocuments(t, db.Collection("usertable"), want, 10, 100)
			}
		})
	}
}

// TestParallelLoaders runs three loaders at once as the pods of an Indexed
// Job (JOB_COMPLETION_INDEX 0..2, loader.count=3): they load exactly the
// 10,000 records between them, and their run-phase inserts never collide.
func TestParallelLoaders(t *testing.T) {
	db, url := database(t)
	parallel := func(args ...string) []*run {
		t.Helper()
		runs := make([]*run, 3)
		var wg sync.WaitGroup
		for i := range runs {
			wg.Go(func() { runs[i] = runLoader(t, []string{"JOB_COMPLETION_INDEX=" + strconv.Itoa(i)}, args...) })
		}
		wg.Wait()
		for i, r := range runs {
			if r.code != 0 {
				t.Fatalf("loader %d: %v", i, r)
			}
		}
		return runs
	}

	loads := parallel("load", "-P", "workloada", "-p", url, "-p", "recordcount=10000", "-p", "loader.count=3", "-threads", "2")
	for i, want := range []int64{3334, 3333, 3333} {
		rep := parseYCSBText(t, loads[i].stdout)
		rep.checkNoFailures(t)
		if got := rep.int(t, "INSERT", "Return=OK"); got != want {
			t.Errorf("loader %d inserted %d, want %d", i, got, want)
		}
	}
	coll := db.Collection("usertable")
	checkDocuments(t, coll, keyRange(0, records), 10, 100)

	// Half inserts, target 3,000 ops/s in total: 1,000 per loader, so each
	// takes about a second for its 1,000 operations.
	runs := parallel("run", "-P", "workloadd", "-p", url, "-p", "recordcount=10000", "-p", "operationcount=3000",
		"-p", "loader.count=3", "-p", "insertproportion=0.5", "-p", "readproportion=0.5", "-threads", "2", "-target", "3000")
	want := keyRange(0, records)
	for i, r := range runs {
		rep := parseYCSBText(t, r.stdout)
		rep.checkNoFailures(t)
		if !strings.Contains(string(r.stderr), "target 1000 ops/s (of 3000 over 3 loaders)") {
			t.Errorf("loader %d did not take a third of the target:\n%s", i, r.stderr)
		}
		if ms := rep.int(t, "OVERALL", "RunTime(ms)"); ms < 900 {
			t.Errorf("loader %d ran 1,000 operations at 1,000 ops/s in %d ms", i, ms)
		}
		inserts := rep.int(t, "INSERT", "Return=OK")
		if inserts == 0 || inserts+rep.int(t, "READ", "Return=OK") != 1000 {
			t.Errorf("loader %d: %d inserts, %d reads", i, inserts, rep.int(t, "READ", "Return=OK"))
		}
		// Loader i inserts recordcount+i, recordcount+i+3, ...
		for j := range inserts {
			k := keyOf(records + int64(i) + 3*j)
			if want[k] {
				t.Fatalf("loader %d's insert %d collides", i, j)
			}
			want[k] = true
		}
	}
	checkDocuments(t, coll, want, 10, 100)
}

func keyOf(n int64) string {
	for k := range keysOf(n) {
		return k
	}
	return ""
}

var statusOps = regexp.MustCompile(` sec: (\d+) operations;`)

// TestStopAndSignals: maxexecutiontime ends a run normally; SIGTERM in the
// middle of a run still reports the partial result (StopReason Cancelled),
// and the telemetry of loader 0, and exits 143.
func TestStopAndSignals(t *testing.T) {
	srv := wireserver.Shared(t)
	_, url := database(t)
	loadFor(t, url, 1000)
	common := []string{"run", "-P", "workloada", "-p", url, "-p", "recordcount=1000", "-p", "operationcount=0", "-threads", "2", "--result", "-"}

	t.Run("maxexecutiontime", func(t *testing.T) {
		start := time.Now()
		r := mustSucceed(t, nil, append(common, "-p", "maxexecutiontime=1")...)
		res, err := results.Decode(r.stdout)
		if err != nil {
			t.Fatal(err)
		}
		if res.StopReason != results.StopMaxExecutionTime || res.Operations == 0 || res.PlannedOperations != 0 {
			t.Errorf("result: %s after %d operations", res.StopReason, res.Operations)
		}
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("a 1 s run took %v", d)
		}
	})

	t.Run("SIGTERM", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), processTimeout)
		defer cancel()
		telFile := t.TempDir() + "/telemetry.json.gz"
		cmd, termLog := loaderCommand(t, ctx, nil, append(common, "-p", "maxexecutiontime=600", "-s", "-p", "status.interval=1",
			"--telemetry-process", "standalone,wire-0,"+srv.Addr(), "--telemetry-interval", "200ms", "--telemetry-result", telFile)...)
		var stdout strings.Builder
		cmd.Stdout = &stdout
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for a status line showing operations, then stop the loader.
		var log strings.Builder
		running := make(chan struct{})
		scanned := make(chan struct{})
		go func() {
			defer close(scanned)
			sc := bufio.NewScanner(stderr)
			signalled := false
			for sc.Scan() {
				log.WriteString(sc.Text() + "\n")
				if m := statusOps.FindStringSubmatch(sc.Text()); !signalled && m != nil && m[1] != "0" {
					signalled = true
					close(running)
				}
			}
		}()
		select {
		case <-running:
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			t.Fatal("no status line with operations within a minute")
		}
		sent := time.Now()
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		<-scanned
		err = cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 143 {
			t.Fatalf("exit: %v, want status 143\n%s", err, log.String())
		}
		if d := time.Since(sent); d > 20*time.Second {
			t.Errorf("the loader took %v to stop", d)
		}
		res, err := results.Decode([]byte(stdout.String()))
		if err != nil {
			t.Fatalf("no result on stdout: %v\n%s", err, log.String())
		}
		if res.StopReason != results.StopCancelled || !res.Partial() || res.Operations == 0 {
			t.Errorf("result: %s after %d operations", res.StopReason, res.Operations)
		}
		rep := parseYCSBText(t, []byte(log.String()))
		compareWithResult(t, rep, res)
		msg := string(readFile(t, termLog))
		if want := fmt.Sprintf("run phase stopped after %d of unlimited operations; partial result reported", res.Operations); msg != want {
			t.Errorf("termination log %q, want %q", msg, want)
		}
		checkSampled(t, readFile(t, telFile))
	})
}

// TestFailures: what the controller sees when a loader fails: a non-zero
// exit and the reason in the termination log.
func TestFailures(t *testing.T) {
	srv := wireserver.Shared(t)
	db, url := database(t)

	t.Run("unreachable server", func(t *testing.T) {
		r := runLoader(t, nil, "load", "-P", "workloada", "-p", "mongodb.url=mongodb://127.0.0.1:1/x", "-p", "mongodb.operationtimeout=1s")
		if r.code != 1 || !strings.HasPrefix(r.termLog, "load phase: cannot reach MongoDB at 127.0.0.1:1 (mongodb.url) after ") ||
			!strings.HasSuffix(r.termLog, "; the wait is set by mongodb.operationtimeout (1s)") {
			t.Errorf("%v", r)
		}
	})
	t.Run("usage", func(t *testing.T) {
		r := runLoader(t, nil, "run", "-P", "workloada", "-p", "requestdistribution=gaussian")
		if r.code != 2 || !strings.Contains(r.termLog, `unknown distribution "gaussian"`) {
			t.Errorf("%v", r)
		}
	})
	t.Run("load over existing records", func(t *testing.T) {
		loadFor(t, url, 100)
		// Every insert is a duplicate: each thread stops at its first
		// failed insert (YCSB 0.17.0); the load is incomplete.
		r := runLoader(t, nil, "load", "-P", "workloada", "-p", url, "-p", "recordcount=100", "-threads", "2")
		if r.code != 1 || !strings.Contains(r.termLog, "load incomplete: 2 of 2 threads stopped after a failed insert") ||
			!strings.Contains(r.termLog, "E11000") {
			t.Errorf("%v", r)
		}
		if rep := parseYCSBText(t, r.stdout); rep.int(t, "INSERT", "Return=ERROR") != 2 {
			t.Errorf("report:\n%s", r.stdout)
		}
	})
	t.Run("collmod not implemented by the server", func(t *testing.T) {
		if err := db.CreateCollection(context.Background(), "validated"); err != nil {
			t.Fatal(err)
		}
		r := runLoader(t, nil, "collmod", "--uri", srv.URI(), "--namespace", db.Name()+".validated",
			"--validator", `{"$jsonSchema": {"bsonType": "object", "required": ["field0"]}}`, "--validation-level", "moderate",
			"--validation-action", "warn", "--timeout", "20s")
		if r.code != 1 || !strings.Contains(r.termLog, "collmod: ") || !strings.Contains(r.termLog, "CommandNotFound") {
			t.Errorf("%v", r)
		}
	})
	t.Run("bootstrap standalone", func(t *testing.T) {
		r := mustSucceed(t, nil, "bootstrap", "--namespace", db.Name()+".usertable", "--timeout", "1m", "--mode", "standalone",
			"--standalone", srv.Addr())
		rep, err := results.DecodeBootstrap(r.stdout)
		if err != nil || rep.ServerVersion != "6.0.0" {
			t.Errorf("report %+v %v\n%s", rep, err, r.stdout)
		}
		n, err := db.ListCollectionNames(context.Background(), bson.D{})
		if err != nil || !slices.Contains(n, "usertable") {
			t.Errorf("collections %v %v", n, err)
		}
	})
}

// TestNoKubernetesClientInTheLoader keeps client-go (and anything else of
// Kubernetes') out of the loader binary: it writes its ConfigMap with
// net/http (internal/loader/k8sresult).
func TestNoKubernetesClientInTheLoader(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "./cmd/loader")
	cmd.Dir = repoRoot()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "k8s.io/") || strings.HasPrefix(pkg, "sigs.k8s.io/") {
			t.Errorf("the loader depends on %s", pkg)
		}
	}
}

// checkSampled checks an encoded telemetry report: one process, sampled
// without errors.
func checkSampled(t *testing.T, data []byte) {
	t.Helper()
	r, err := telemetry.DecodePayload(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Processes) != 1 || r.Processes[0].Series.Samples() < 2 || r.Processes[0].Errors != 0 {
		t.Errorf("telemetry %+v", r.Processes)
	}
}
