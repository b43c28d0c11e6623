package loader

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/testutil/stubmongo"
)

// TestIntendedLatencyOnTheWire: `loader run` at 200 ops/s on one thread
// against a server that stops for a second once. Its calls' service times
// stay small (one call in 600 waited), but the ~200 calls the stall pushed
// off the target's schedule carry the delay in their intended latency
// (measurement.interval both): the result keeps both, and the text report
// prints YCSB's [Intended-READ] block after the [READ] one.
// internal/ycsb's TestIntendedLatencyUnderAStall checks the numbers
// against the schedule call by call.
func TestIntendedLatencyOnTheWire(t *testing.T) {
	srv := stubmongo.Start(t)
	resultFile := filepath.Join(t.TempDir(), "result.json.gz")
	go func() {
		// ~100 operations in (however long they took), the server stops
		// for a second once.
		for deadline := time.Now().Add(30 * time.Second); srv.Counts().Find < 100 && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond) // poll interval, bounded by the deadline
		}
		srv.StallNext(time.Second)
	}()
	code, stdout, stderr, _ := runMain(t, nil, nil, "run", "-P", "workloadc", "-p", "recordcount=1000", "-p", "operationcount=600",
		"-p", "mongodb.url=mongodb://"+srv.Addr()+"/ycsb?directConnection=true", "-p", "measurement.interval=both",
		"-threads", "1", "-target", "200", "--result", resultFile)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	b, err := os.ReadFile(resultFile)
	if err != nil {
		t.Fatal(err)
	}
	r, err := results.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	read := r.Op(results.OpRead)
	if r.MeasurementInterval != results.IntervalBoth || read == nil || read.Intended.Count() != 600 {
		t.Fatalf("interval %q, READ %+v", r.MeasurementInterval, read)
	}
	if p99 := read.Latency.Percentile(99); p99 > 50_000 {
		t.Errorf("service-time p99 %d µs: one call in 600 waited", p99)
	}
	if maxv := read.Intended.Percentile(100); maxv < 1_000_000 {
		t.Errorf("intended max %d µs, less than the stall", maxv)
	}
	if p99 := read.Intended.Percentile(99); p99 < 900_000 {
		t.Errorf("intended p99 %d µs: the ~200 calls the stall delayed should dominate it", p99)
	}
	var intendedP99 string
	for _, line := range strings.Split(stdout, "\n") {
		if v, ok := strings.CutPrefix(line, "[Intended-READ], 99thPercentileLatency(us), "); ok {
			intendedP99 = v
		}
	}
	if n, err := strconv.ParseInt(intendedP99, 10, 64); err != nil || n != read.Intended.Percentile(99) ||
		!strings.Contains(stdout, "[READ], Return=OK, 600\n") || strings.Contains(stdout, "[Intended-READ], Return=") {
		t.Errorf("report (intended p99 %q):\n%s", intendedP99, stdout)
	}
}
