package loader_test

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/loader"
	"github.com/mongobench/mongobench/internal/results"
)

// TestHelpListsEveryProperty: `load -h` and `run -h` exit 0 and list every
// property the loader knows with its default, after the flags.
func TestHelpListsEveryProperty(t *testing.T) {
	for _, cmd := range []string{"load", "run"} {
		r := runLoader(t, nil, cmd, "-h")
		out := string(r.stderr)
		if r.code != 0 || !strings.Contains(out, "-threads N") || !strings.Contains(out, "\nMongoDB binding:\n") {
			t.Fatalf("%s -h: %v", cmd, r)
		}
		for _, p := range loader.KnownProperties() {
			def := p.Default
			if def == "" {
				def = "-"
			}
			if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(p.Name) + ` +` + regexp.QuoteMeta(def) + `( |$)`).MatchString(out) {
				t.Errorf("%s -h: no row for %s with default %s", cmd, p.Name, def)
			}
		}
	}
}

// TestMalformedURLIsAUsageError: a mongodb.url the driver would reject
// exits 2 before connecting, naming the property, with the password hidden.
func TestMalformedURLIsAUsageError(t *testing.T) {
	for url, want := range map[string]string{
		"mongodb://:27017/ycsb": `mongodb.url: invalid URL "mongodb://:27017/ycsb": host ":27017" has no name (localhost:27017 is this machine)`,
		"mongodb://host:notaport/": `mongodb.url: invalid URL "mongodb://host:notaport/": host "host:notaport": ` +
			`port "notaport" is not a number from 1 to 65535`,
		"mongodb://": `mongodb.url: invalid URL "mongodb://": error parsing uri: must have at least 1 host`,
		"mongodb://user:s3cret@:27017/ycsb": `mongodb.url: invalid URL "mongodb://user:xxxxx@:27017/ycsb": host ":27017" has no name ` +
			`(localhost:27017 is this machine)`,
	} {
		r := runLoader(t, nil, "load", "-P", "workloada", "-p", "mongodb.url="+url)
		if r.code != 2 || r.termLog != want || !strings.Contains(string(r.stderr), want) || strings.Contains(string(r.stderr), "s3cret") {
			t.Errorf("%s: %v\nwant termination log %q", url, r, want)
		}
	}
}

// TestUnknownPropertyWarns: a typo draws a warning with a suggestion, and
// the run goes on (against the wire server) as YCSB's would.
func TestUnknownPropertyWarns(t *testing.T) {
	_, url := database(t)
	loadFor(t, url, 100)
	r := mustSucceed(t, nil, "run", "-P", "workloadc", "-p", url, "-p", "recordcount=100", "-p", "operationcount=50",
		"-p", "readproprotion=0.9", "-p", "measurement.trackjvm=true")
	stderr := string(r.stderr)
	for _, want := range []string{
		`loader: warning: unknown property "readproprotion" (did you mean "readproportion"?); it is ignored` + "\n",
		`loader: warning: property "measurement.trackjvm" is ignored: there is no JVM` + "\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("no %q in:\n%s", want, stderr)
		}
	}
	if rep := parseYCSBText(t, r.stdout); rep.int(t, "READ", "Return=OK") != 50 {
		t.Errorf("report:\n%s", r.stdout)
	}
	// What the operator's Jobs pass draws no warning (see also
	// internal/loader's TestNoWarningsForWhatWeShip).
	r = mustSucceed(t, nil, "run", "-P", "workloadc", "-p", url, "-p", "recordcount=100", "-p", "operationcount=50",
		"-p", "loader.count=1", "-p", "status.interval=10", "-p", "loader.insertkeyoffset=1099511627776", "-threads", "2", "-s")
	if strings.Contains(string(r.stderr), "warning") {
		t.Errorf("warnings for the operator's properties:\n%s", r.stderr)
	}
}

// TestUnlimitedRunWarns: a run without operationcount or maxexecutiontime
// warns that it only ends when stopped, and does run until SIGTERM.
func TestUnlimitedRunWarns(t *testing.T) {
	_, url := database(t)
	loadFor(t, url, 100)
	const warning = "loader: warning: operationcount is 0 (unlimited) and maxexecutiontime is not set: " +
		"this run goes on until it is stopped (SIGTERM/Ctrl-C)"
	ctx, cancel := context.WithTimeout(context.Background(), processTimeout)
	defer cancel()
	// workloadc sets operationcount=1000: 0 makes it unlimited.
	cmd, _ := loaderCommand(t, ctx, nil, "run", "-P", "workloadc", "-p", url, "-p", "recordcount=100", "-p", "operationcount=0",
		"-s", "-p", "status.interval=1", "--result", "-")
	var stdout strings.Builder
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for the warning, then for a status line with operations: the
	// run is under way; stop it.
	var log strings.Builder
	warned, running := false, make(chan struct{})
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(stderr)
		signalled := false
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if sc.Text() == warning {
				warned = true
			}
			if m := statusOps.FindStringSubmatch(sc.Text()); !signalled && warned && m != nil && m[1] != "0" {
				signalled = true
				close(running)
			}
		}
	}()
	select {
	case <-running:
	case <-scanned:
		_ = cmd.Wait()
		t.Fatalf("the loader ended without the warning and a status line:\n%s", log.String())
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		<-scanned
		t.Fatalf("no warning and status line with operations within a minute:\n%s", log.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-scanned
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 143 {
		t.Fatalf("exit: %v, want status 143\n%s", err, log.String())
	}
	res, err := results.Decode([]byte(stdout.String()))
	if err != nil || res.PlannedOperations != 0 || res.StopReason != results.StopCancelled {
		t.Errorf("result %+v, %v", res, err)
	}
}
