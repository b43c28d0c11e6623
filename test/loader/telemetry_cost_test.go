package loader_test

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/telemetry"
	"github.com/mongobench/mongobench/internal/testutil/wireserver"
)

// TestTelemetryCPUCost measures what telemetry costs the loader's CPU (user
// + system time of the loader process, per operation): the same run phase
// without telemetry, with ten "processes" (8 shards, a config server and a
// mongos: here the one wire server ten times) sampled every second, and
// every 100 ms (ten times the work, to see it above the noise). Rounds
// alternate the configurations; medians are compared. It only reports:
// MONGOBENCH_MEASURE=1 runs it (minutes of CPU on a shared machine, and
// the numbers are for a person to read, not a pass/fail threshold).
//
// Then the sampler alone, in this otherwise idle test process (getrusage),
// for 10 s per interval: its CPU per second, against the loader's CPU per
// second without telemetry. The whole-loader comparison is within run-to-
// run noise (about ±10% on a shared machine); the isolated one is not.
//
// mongo-java-server's serverStatus reply is tiny; a real one (tens of KB)
// costs more to read and extract: internal/telemetry's
// BenchmarkSampleRound measures that part.
func TestTelemetryCPUCost(t *testing.T) {
	if os.Getenv("MONGOBENCH_MEASURE") == "" {
		t.Skip("a measurement: set MONGOBENCH_MEASURE=1 to run it")
	}
	srv := wireserver.Shared(t)
	_, url := database(t)
	loadFor(t, url, 2000)
	const ops = 30000
	base := []string{"run", "-P", "workloadc", "-p", url, "-p", "recordcount=2000", "-p", "operationcount=" + strconv.Itoa(ops),
		"-threads", "2"}
	telemetryArgs := func(interval string) []string {
		args := []string{"--telemetry-interval", interval}
		for i := range 10 {
			args = append(args, "--telemetry-process", "shard,p"+strconv.Itoa(i)+","+srv.Addr())
		}
		return args
	}
	configs := []struct {
		name string
		args []string
	}{
		{"off", nil},
		{"10 processes every 1s", telemetryArgs("1s")},
		{"10 processes every 100ms", telemetryArgs("100ms")},
	}
	rounds := 5
	if n, err := strconv.Atoi(os.Getenv("MONGOBENCH_MEASURE_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	cpu := make([][]time.Duration, len(configs))
	wall := make([][]time.Duration, len(configs))
	for range rounds {
		for i, c := range configs {
			ctx, cancel := context.WithTimeout(context.Background(), processTimeout)
			cmd, _ := loaderCommand(t, ctx, nil, slices.Concat(base, c.args)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			start := time.Now()
			err := cmd.Run()
			cancel()
			if err != nil {
				t.Fatalf("%s: %v\n%s", c.name, err, stderr.Bytes())
			}
			wall[i] = append(wall[i], time.Since(start))
			cpu[i] = append(cpu[i], cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
		}
	}
	median := func(d []time.Duration) time.Duration {
		s := slices.Clone(d)
		slices.Sort(s)
		return s[len(s)/2]
	}
	off := median(cpu[0])
	// The sampler alone, in this (otherwise idle) process: its CPU per
	// second of a phase, against the loader's CPU per second without it.
	loaderPerSecond := float64(off) / float64(median(wall[0]))
	for _, interval := range []time.Duration{time.Second, 100 * time.Millisecond} {
		var procs []telemetry.Process
		for i := range 10 {
			procs = append(procs, telemetry.Process{Role: "shard", Pod: "p" + strconv.Itoa(i),
				URI: "mongodb://" + srv.Addr() + "/?directConnection=true"})
		}
		const phase = 10 * time.Second
		before := processCPU(t)
		s := telemetry.Start(context.Background(), telemetry.Config{Interval: interval, Processes: procs})
		time.Sleep(phase)
		r := s.Stop()
		used := processCPU(t) - before
		perSecond := float64(used) / float64(phase)
		t.Logf("sampler alone, 10 processes every %-5s: %d samples, CPU %s in %s = %.3f%% of a core, %.2f%% of the loader's CPU "+
			"(%.2f cores unthrottled)", interval, r.Processes[0].Series.Samples()*len(r.Processes), used.Round(time.Millisecond), phase,
			100*perSecond, 100*perSecond/loaderPerSecond, loaderPerSecond)
	}
	for i, c := range configs {
		m := median(cpu[i])
		t.Logf("%-26s CPU median %7s (%5.1f µs/op; rounds %v), wall median %s, CPU vs off %+.2f%%",
			c.name, m.Round(time.Millisecond), float64(m.Microseconds())/ops, roundAll(cpu[i]), median(wall[i]).Round(time.Millisecond),
			100*(float64(m)/float64(off)-1))
	}
}

func roundAll(d []time.Duration) []time.Duration {
	out := make([]time.Duration, len(d))
	for i, v := range d {
		out[i] = v.Round(time.Millisecond)
	}
	return out
}

// processCPU is this process's user and system CPU time so far.
func processCPU(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
