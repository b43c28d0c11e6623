package loader_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/testutil/stubmongo"
)

// TestGrowSurvivesSIGTERM: `loader grow` as its Job runs it, against the
// wire server: SIGTERM during the phase exits 143 with the partial result
// on stdout; the same command again resumes the phase and reports all of
// it, and the collection holds every record once.
func TestGrowSurvivesSIGTERM(t *testing.T) {
	db, url := database(t)
	args := []string{contract.CommandGrow, "-p", url, "-p", contract.PropGrowthTargetRecords + "=6000",
		"-p", contract.PropGrowthCheckpointEvery + "=2000", "-p", contract.PropGrowthInsertThreads + "=2",
		"-p", contract.PropGrowthQueryDuration + "=400ms", "-p", contract.PropGrowthQueryThreads + "=2",
		"-p", contract.PropGrowthPayloadSize + "=100", "--result", "-"}

	ctx, cancel := context.WithTimeout(context.Background(), processTimeout)
	defer cancel()
	cmd, termLog := loaderCommand(t, ctx, nil, args...)
	var stdout strings.Builder
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// With --result -, the report goes to stderr: stop the loader once its
	// first checkpoint is reported.
	var log strings.Builder
	checkpoint := make(chan struct{})
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(stderr)
		seen := false
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if !seen && strings.HasPrefix(sc.Text(), "[CHECKPOINT], 1/3, ") {
				seen = true
				close(checkpoint)
			}
		}
	}()
	select {
	case <-checkpoint:
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("no checkpoint within a minute")
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-scanned
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 143 {
		t.Fatalf("exit: %v, want 143\n%s", err, log.String())
	}
	partial, err := results.Decode([]byte(stdout.String()))
	if err != nil {
		t.Fatalf("no partial result on stdout: %v\n%s", err, log.String())
	}
	if partial.StopReason != results.StopCancelled || len(partial.Growth.Checkpoints) < 1 || partial.Op(results.OpInsert).Total() < 2000 {
		t.Errorf("partial result: %s, %d rows, %d inserts", partial.StopReason, len(partial.Growth.Checkpoints), partial.Op(results.OpInsert).Total())
	}
	if msg := string(readFile(t, termLog)); !strings.HasPrefix(msg, "grow phase stopped after checkpoint ") {
		t.Errorf("termination log %q", msg)
	}

	r := mustSucceed(t, nil, args...)
	res, err := results.Decode(r.stdout)
	if err != nil {
		t.Fatal(err)
	}
	g := res.Growth
	if res.StopReason != results.StopCompleted || len(g.Checkpoints) != 3 || g.Restarts != 1 || res.Op(results.OpInsert).Total() < 6000 {
		t.Errorf("result: %s, %d rows, %d restarts, %d inserts", res.StopReason, len(g.Checkpoints), g.Restarts, res.Op(results.OpInsert).Total())
	}
	for _, q := range results.GrowthQueryOps {
		if op := res.Op(q); op == nil || op.Total() == 0 || op.Errors() != 0 {
			t.Errorf("%s: %+v", q, op)
		}
	}
	rep := parseYCSBText(t, r.stderr)
	if rep.int(t, "GROWTH", "Records") != 6000 || rep.int(t, "GROWTH", "Restarts") != 1 {
		t.Errorf("report: %v", rep["GROWTH"])
	}
	coll := db.Collection("usertable")
	if n, err := coll.CountDocuments(context.Background(), bson.D{}); err != nil || n != 6000 {
		t.Errorf("%d documents (%v), want 6000", n, err)
	}
}

// TestGrowMemoryIsFlat measures the loader's memory growing a collection
// of small documents against the stub server (internal/testutil/stubmongo:
// it stores nothing and costs next to nothing): its resident set at each
// of the 20 checkpoints (VmRSS, read when the checkpoint's line appears)
// and its peak, for a short and a long phase with the same checkpoints:
// batch inserts, 1M and 20M records; acknowledged insertOne with two
// threads, 200k and 2M. The loader runs as shipped (GOGC=400, so its heap
// may grow to five times what is live before a collection). It only
// reports: MONGOBENCH_MEASURE=1 runs it (about three minutes on 2 cores).
//
//	MONGOBENCH_MEASURE=1 go test ./test/loader -run TestGrowMemoryIsFlat -v
func TestGrowMemoryIsFlat(t *testing.T) {
	if os.Getenv("MONGOBENCH_MEASURE") == "" {
		t.Skip("a measurement: set MONGOBENCH_MEASURE=1 to run it")
	}
	srv := stubmongo.Start(t)
	for _, tc := range []struct {
		mode    string
		records []int64
		args    []string
	}{
		{"batch of 1000", []int64{1_000_000, 20_000_000}, []string{"-p", contract.PropGrowthInsertMode + "=batch"}},
		{"acknowledged insertOne, 2 threads", []int64{200_000, 2_000_000}, []string{"-p", contract.PropGrowthInsertThreads + "=2"}},
	} {
		var peaks []int64
		for _, n := range tc.records {
			args := append([]string{contract.CommandGrow, "-p", "mongodb.url=mongodb://" + srv.Addr() + "/ycsb?directConnection=true",
				"-p", contract.PropGrowthTargetRecords + "=" + strconv.FormatInt(n, 10),
				"-p", contract.PropGrowthCheckpointEvery + "=" + strconv.FormatInt(n/20, 10),
				"-p", contract.PropGrowthPayloadSize + "=16", "-p", contract.PropGrowthQueryDuration + "=50ms"}, tc.args...)
			before := srv.Counts().InsertedDocs
			start := time.Now()
			atCheckpoints, ru := runMeasured(t, args...)
			// w:1 and batch inserts are answered: all arrived.
			if got := srv.Counts().InsertedDocs - before; got != uint64(n) {
				t.Errorf("the stub server got %d documents, want %d", got, n)
			}
			peaks = append(peaks, ru.Maxrss)
			t.Logf("%s: %d records (95-byte documents, 20 checkpoints, Q1..Q4 50 ms each): %.1f s, %.1f s CPU; peak RSS %.1f MiB; "+
				"RSS at checkpoints 1, 5, 10, 15, 20: %s MiB", tc.mode, n, time.Since(start).Seconds(),
				time.Duration(ru.Utime.Nano()+ru.Stime.Nano()).Seconds(), float64(ru.Maxrss)/1024, mib(atCheckpoints, 1, 5, 10, 15, 20))
		}
		t.Logf("%s: %dx the records, peak RSS %+.1f MiB", tc.mode, tc.records[1]/tc.records[0], float64(peaks[1]-peaks[0])/1024)
	}
}

// mib formats the KiB values at the given (1-based) positions in MiB.
func mib(kib []int64, at ...int) string {
	var parts []string
	for _, i := range at {
		if i <= len(kib) {
			parts = append(parts, fmt.Sprintf("%.1f", float64(kib[i-1])/1024))
		}
	}
	return strings.Join(parts, ", ")
}

// runMeasured runs the loader to its end, reading its resident set
// (VmRSS, KiB) whenever a checkpoint line appears, and returns those and
// its resource usage.
func runMeasured(t *testing.T, args ...string) ([]int64, *syscall.Rusage) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	cmd, termLog := loaderCommand(t, ctx, nil, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var rss []int64
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "[CHECKPOINT], ") {
			rss = append(rss, vmRSS(t, cmd.Process.Pid))
		}
	}
	if err := cmd.Wait(); err != nil {
		msg, _ := os.ReadFile(termLog)
		t.Fatalf("loader: %v (%s)\n%s", err, msg, stderr.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Fatal("no rusage")
	}
	return rss, ru
}

// vmRSS reads a process's resident set size (KiB) from /proc.
func vmRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}
