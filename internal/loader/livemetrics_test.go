package loader

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/testutil/stubmongo"
	"github.com/mongobench/mongobench/internal/testutil/syncbuf"
	"github.com/mongobench/mongobench/internal/testutil/wireserver"
)

// freeAddr is a loopback address with a port nobody listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// scrape reads the text exposition at addr; nil when nothing answers.
func scrape(addr string) (map[string]*dto.MetricFamily, []byte) {
	resp, err := http.Get("http://" + addr + contract.MetricsPath)
	if err != nil {
		return nil, nil
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, nil
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		return nil, nil
	}
	return mfs, body
}

// value sums a family's samples whose labels include want.
func value(mfs map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	mf := mfs[name]
	if mf == nil {
		return 0, false
	}
	var sum float64
	var found bool
next:
	for _, m := range mf.Metric {
		for k, v := range want {
			ok := false
			for _, l := range m.Label {
				if l.GetName() == k && l.GetValue() == v {
					ok = true
				}
			}
			if !ok {
				continue next
			}
		}
		found = true
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		}
	}
	return sum, found
}

// TestLiveMetricsWhileTheLoaderRuns runs a run phase with a warm-up and
// telemetry against the stub server (sampling mongo-java-server) and scrapes /metrics while it runs:
// the counts grow, the warm-up turns into the measured window, loader 0
// exports the server's figures, the exposition is promlint-clean, every
// sample carries the loader's identity; after the phase the loader's
// final values are served until it exits, and then nothing is.
func TestLiveMetricsWhileTheLoaderRuns(t *testing.T) {
	srv := stubmongo.Start(t)
	// The stub answers serverStatus with nothing; mongo-java-server has
	// the connections section.
	sampled := wireserver.Shared(t)
	addr := freeAddr(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr syncbuf.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"run", "-P", "workloada", "-p", "recordcount=100", "-p", "operationcount=0",
			"-p", "maxexecutiontime=120", "-p", "warmupoperations=200", "-p", "measurement.interval=both", "-threads", "2", "-target", "2000",
			"-p", "mongodb.url=mongodb://" + srv.Addr() + "/ycsb?directConnection=true",
			"--telemetry-process", "standalone,db-0," + sampled.Addr(), "--telemetry-interval", "100ms",
			"--metrics-addr", addr, "--metrics-run", "s1", "--metrics-phase", "run",
			"--result", filepath.Join(dir, "result.json.gz"), "--termination-log", filepath.Join(dir, "termination-log"),
		}, Env{Stdout: io.Discard, Stderr: &stderr, Version: "v0.0.0-test",
			Getenv: func(k string) string { return map[string]string{"POD_NAMESPACE": "bench"}[k] }})
	}()

	id := map[string]string{"namespace": "bench", "run": "s1", "phase": "run", "loader": "0"}
	var mfs map[string]*dto.MetricFamily
	var body []byte
	deadline := time.Now().Add(60 * time.Second)
	for {
		mfs, body = scrape(addr)
		ops, _ := value(mfs, contract.MetricLoaderOperations, id)
		measuring, _ := value(mfs, contract.MetricLoaderMeasuring, id)
		_, server := value(mfs, contract.MetricServerConnections, map[string]string{"process": "db-0"})
		if ops > 200 && measuring == 1 && server {
			break
		}
		select {
		case code := <-done:
			t.Fatalf("the loader exited (%d) before the metrics showed it measuring:\n%s", code, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60 s: operations %v, measuring %v, server figures %v\n%s\n%s", ops, measuring, server, body, stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}

	problems, err := promlint.New(bytes.NewReader(body)).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
	for name, mf := range mfs {
		for _, m := range mf.Metric {
			labels := map[string]string{}
			for _, l := range m.Label {
				labels[l.GetName()] = l.GetValue()
			}
			for k, v := range id {
				if labels[k] != v {
					t.Errorf("%s%v: %s=%q, want %q", name, labels, k, labels[k], v)
				}
			}
		}
	}
	for name, want := range map[string]float64{
		contract.MetricLoaderThreads: 2, contract.MetricLoaderTarget: 2000, contract.MetricLoaderPlannedOperations: 0,
		contract.MetricLoaderMaxExecution: 120, contract.MetricLoaderFinished: 0,
	} {
		if got, ok := value(mfs, name, id); !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", name, got, ok, want)
		}
	}
	if _, ok := value(mfs, contract.MetricLoaderIntendedLatency, id); !ok && mfs[contract.MetricLoaderIntendedLatency] == nil {
		t.Error("measurement.interval=both exports no intended latency")
	}
	if mfs[contract.MetricLoaderStartTime] == nil {
		t.Error("no start time once measuring")
	}

	// SIGTERM's equivalent: the loader stops, writes its result, exits.
	cancel()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("the loader did not stop within 60 s:\n%s", stderr.String())
	}
	if mfs, _ := scrape(addr); mfs != nil {
		t.Error("the metrics endpoint still answers after the loader exited")
	}
	if !strings.Contains(stderr.String(), fmt.Sprintf("metrics: serving http://%s%s", addr, contract.MetricsPath)) {
		t.Errorf("the log does not say where metrics are served:\n%s", stderr.String())
	}
}

// TestMetricsPortTakenFailsBeforeTheWork: a port that cannot be had is a
// configuration mistake, reported before connecting to MongoDB.
func TestMetricsPortTakenFailsBeforeTheWork(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	code, _, stderr, msg := runMain(t, nil, nil, "run", "-P", "workloada", "-p", "mongodb.url=mongodb://127.0.0.1:1/ycsb",
		"--metrics-addr", ln.Addr().String())
	if code != ExitFailure || !strings.Contains(msg, "metrics: listen on "+ln.Addr().String()) {
		t.Errorf("exit %d, termination log %q\n%s", code, msg, stderr)
	}
}
