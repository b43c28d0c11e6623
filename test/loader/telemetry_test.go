package loader_test

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/telemetry"
	"github.com/mongobench/mongobench/internal/testutil/wireserver"
)

// TestRunWithTelemetry runs a run phase as loader 0 of a phase Job does
// with telemetry on: the wire server sampled as a "standalone" every
// 100 ms, plus a process that does not exist (nothing listens on port 1),
// plus the collection's statistics. The phase succeeds; its telemetry
// payload (--telemetry-result) decodes, holds samples of the wire server,
// failures (not a failed phase) for the missing process, and the final
// statistics of the collection; the result on stdout and the text report
// are those of the same run without telemetry but for the measurements'
// values; the time the sampler takes to stop (up to its 3 s timeout for
// the missing process) is not in the phase's runtime. Loader 1 of the same
// Job takes no telemetry.
func TestRunWithTelemetry(t *testing.T) {
	srv := wireserver.Shared(t)
	db, url := database(t)
	loadFor(t, url, 2000)
	base := []string{"run", "-P", "workloadb", "-p", url, "-p", "recordcount=2000", "-p", "operationcount=3000", "-threads", "2",
		"-target", "3000", "--result", "-"}
	telFile := t.TempDir() + "/telemetry.json.gz"
	tel := func(file string) []string {
		return []string{"--telemetry-interval", "100ms",
			"--telemetry-process", "standalone,wire-0," + srv.Addr(),
			"--telemetry-process", "shard,nowhere-0,127.0.0.1:1",
			"--telemetry-collection", srv.Addr() + "," + db.Name() + ",usertable",
			"--telemetry-result", file}
	}

	plain := mustSucceed(t, nil, slices.Clone(base)...)
	start := time.Now()
	with := mustSucceed(t, []string{"JOB_COMPLETION_INDEX=0"}, append(base, tel(telFile)...)...)
	wall := time.Since(start)

	res := sameMeasurements(t, plain, with)

	// 3,000 operations at 3,000 ops/s take about a second; the sampler's
	// stop waits up to 3 s more for the process that is not there. That
	// wait is in the process's wall time, not in the phase's runtime.
	runtime := time.Duration(res[1].RuntimeMillis) * time.Millisecond
	t.Logf("runtime %s without telemetry, %s with; wall time with telemetry %s", time.Duration(res[0].RuntimeMillis)*time.Millisecond,
		runtime, wall)
	if runtime > 2500*time.Millisecond || wall-runtime < 2*time.Second {
		t.Errorf("runtime %s, wall time %s: the sampler's stop counts in the runtime", runtime, wall)
	}

	checkTelemetryPayload(t, readFile(t, telFile), db.Name()+".usertable", runtime)

	// Loader 1 of the same Job samples nothing and writes no report.
	other := t.TempDir() + "/telemetry-1.json.gz"
	r1 := mustSucceed(t, []string{"JOB_COMPLETION_INDEX=1"}, slices.Concat(base, []string{"-p", "loader.count=2"}, tel(other))...)
	if strings.Contains(string(r1.stderr), "telemetry:") {
		t.Errorf("loader 1 took telemetry:\n%s", r1.stderr)
	}
	if _, err := os.Stat(other); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("loader 1 created %s: %v", other, err)
	}
}

// sameMeasurements checks that a run without telemetry and one with it
// (plain, with: --result -) report alike: both results decode and match
// their text reports, with the same measurements, no failures, and the
// same operations; only the run with telemetry logs it. It returns the
// results.
func sameMeasurements(t *testing.T, plain, with *run) [2]*results.Result {
	t.Helper()
	var res [2]*results.Result
	var reps [2]ycsbText
	for i, r := range []*run{plain, with} {
		var err error
		if res[i], err = results.Decode(r.stdout); err != nil {
			t.Fatalf("stdout is not an encoded result: %v\n%s", err, r.stderr)
		}
		reps[i] = parseYCSBText(t, r.stderr)
		reps[i].checkNoFailures(t)
		compareWithResult(t, reps[i], res[i])
	}
	for i, want := range []bool{false, true} {
		if got := strings.Contains(string([]*run{plain, with}[i].stderr), "telemetry: 2 processes"); got != want {
			t.Errorf("run %d: telemetry logged %t:\n%s", i, got, []*run{plain, with}[i].stderr)
		}
	}
	if a, b := slices.Sorted(maps.Keys(reps[0])), slices.Sorted(maps.Keys(reps[1])); !slices.Equal(a, b) {
		t.Errorf("measurements without telemetry %q, with %q", a, b)
	}
	for i, r := range res {
		if r.Kind != results.KindRun || r.Operations != 3000 || r.StopReason != results.StopCompleted || r.Loader.Index != 0 {
			t.Errorf("result %d: kind %s, %d operations, %s, loader %d", i, r.Kind, r.Operations, r.StopReason, r.Loader.Index)
		}
	}
	return res
}

// checkTelemetryPayload checks loader 0's encoded report of the run: the
// wire server sampled without errors, the missing process with errors
// and no samples, sampling over the whole phase, and the collection's
// final statistics.
func checkTelemetryPayload(t *testing.T, data []byte, namespace string, runtime time.Duration) {
	t.Helper()
	rep, err := telemetry.DecodePayload(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Processes) != 2 {
		t.Fatalf("%d processes", len(rep.Processes))
	}
	wire, nowhere := &rep.Processes[0], &rep.Processes[1]
	s := &wire.Series
	t.Logf("wire-0: %d samples in %d points of %d ms, errors %d, absent %q; nowhere-0: %d errors (%s)", s.Samples(), len(s.Points),
		s.IntervalMillis, wire.Errors, s.Absent, nowhere.Errors, nowhere.LastError)
	if wire.Role != "standalone" || wire.Pod != "wire-0" || wire.Errors != 0 || s.Samples() < 5 || s.Version != "6.0.0" {
		t.Errorf("wire-0: role %s, pod %s, %d samples, %d errors (%s), version %q", wire.Role, wire.Pod, s.Samples(), wire.Errors,
			wire.LastError, s.Version)
	}
	// mongo-java-server reports connections.current (as 1, whatever the
	// clients): present in every sample.
	if conns := s.Gauge(telemetry.GaugeConnections); conns.N != s.Samples() || conns.Max < 1 {
		t.Errorf("wire-0: connections %+v", conns)
	}
	if nowhere.Role != "shard" || nowhere.Pod != "nowhere-0" || nowhere.Series.Samples() != 0 || nowhere.Errors == 0 ||
		!strings.Contains(nowhere.LastError, "serverStatus of nowhere-0") {
		t.Errorf("nowhere-0: %d samples, %d errors (%s)", nowhere.Series.Samples(), nowhere.Errors, nowhere.LastError)
	}
	if !rep.End.After(rep.Start) || rep.End.Sub(rep.Start) < runtime {
		t.Errorf("sampled from %s to %s, shorter than the phase's %s", rep.Start, rep.End, runtime)
	}
	c := rep.Collection
	if c == nil || c.Final == nil || c.Final.Count == nil || *c.Final.Count != 2000 || c.Final.Namespace != namespace ||
		len(c.Growth) != 0 {
		t.Errorf("collection %+v", c)
	}
}
