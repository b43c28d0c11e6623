package loader

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/contract"
)

// freezeTargetEnv makes the test binary the freeze tests' child process
// (TestFreezeTargetProcess) instead of running tests.
const freezeTargetEnv = "MONGOBENCH_FREEZE_TARGET"

// freezeTargetReady is what the child writes once it runs.
const freezeTargetReady = "ready\n"

// TestFreezeTargetProcess is the process the freeze tests stop, not a test
// of its own (os/exec's TestHelperProcess pattern): startTarget runs the
// test binary under another file name, hence another /proc/PID/comm, with
// freezeTargetEnv set, and it blocks reading its stdin until the test
// closes it or kills it. A Go binary has several threads, as mongod has:
// freeze must stop them all.
func TestFreezeTargetProcess(t *testing.T) {
	if os.Getenv(freezeTargetEnv) != "1" {
		return
	}
	_, _ = os.Stdout.WriteString(freezeTargetReady)
	_, _ = io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// targetName returns a process name no other process has: prefix and
// random hex, of n bytes.
func targetName(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return ("mfz" + hex.EncodeToString(b))[:n]
}

// startTarget starts the test binary as TestFreezeTargetProcess under the
// file name name (a symlink: exec(2) takes comm from the name it was
// given), waits until it runs, and kills and reaps it when the test ends.
func startTarget(t *testing.T, name string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.Symlink(self, path); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, "-test.run=^TestFreezeTargetProcess$")
	cmd.Env = append(os.Environ(), freezeTargetEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill() // SIGKILL ends a stopped process too
		_ = cmd.Wait()
	})
	// It says when its test function runs: exec'd (its comm is name's),
	// its runtime's threads started. The read is bounded by the test's
	// timeout; a child that dies closes the pipe.
	ready := make([]byte, len(freezeTargetReady))
	if _, err := io.ReadFull(stdout, ready); err != nil || string(ready) != freezeTargetReady {
		t.Fatalf("the target did not start: %q, %v", ready, err)
	}
	return cmd
}

// statesOf returns the states of every thread of pid, read from
// /proc/<pid>/task/*/stat independently of the code under test.
func statesOf(t *testing.T, pid int) string {
	t.Helper()
	dir := filepath.Join("/proc", strconv.Itoa(pid), "task")
	tasks, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var states strings.Builder
	for _, task := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, task.Name(), "stat"))
		if err != nil {
			continue
		}
		fields := strings.Fields(string(b[strings.LastIndex(string(b), ")")+1:]))
		states.WriteString(fields[0])
	}
	return states.String()
}

func allStopped(states string) bool {
	return states != "" && strings.Trim(states, "T") == ""
}

// waitFor polls cond every millisecond until it holds, failing the test
// after timeout.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(time.Millisecond)
	}
}

// freezeRun is Main running `loader freeze` in the background.
type freezeRun struct {
	done           chan struct{}
	code           int
	stdout, stderr bytes.Buffer
	termLog        string
}

func startFreeze(ctx context.Context, t *testing.T, args ...string) *freezeRun {
	t.Helper()
	r := &freezeRun{done: make(chan struct{}), termLog: filepath.Join(t.TempDir(), "termination-log")}
	go func() {
		defer close(r.done)
		r.code = Main(ctx, append([]string{contract.CommandFreeze}, append(args, "--termination-log", r.termLog)...),
			Env{Stdout: &r.stdout, Stderr: &r.stderr})
	}()
	t.Cleanup(func() { <-r.done })
	return r
}

// wait waits for Main to return and for its report, which must be the
// same on stdout and in the termination log.
func (r *freezeRun) wait(t *testing.T, timeout time.Duration) contract.FreezeReport {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(timeout):
		t.Fatalf("loader freeze still running after %v", timeout)
	}
	termLog, err := os.ReadFile(r.termLog)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSuffix(r.stdout.String(), "\n"); got != string(termLog) {
		t.Errorf("stdout %q, termination log %q: want the same report", got, termLog)
	}
	rep, err := contract.DecodeFreezeReport(string(termLog))
	if err != nil {
		t.Fatalf("termination log %q: %v (stderr %s)", termLog, err, r.stderr.String())
	}
	return rep
}

// TestFreezeStopsHoldsAndContinues: freeze finds the process by its
// truncated name, stops every thread of it for --for, continues it, and
// reports when, on stdout and in the termination log.
func TestFreezeStopsHoldsAndContinues(t *testing.T) {
	// 20 bytes: comm holds the first 15, which freeze compares.
	name := targetName(t, 15) + "-long"
	child := startTarget(t, name)
	pid := child.Process.Pid
	if s := statesOf(t, pid); len(s) < 2 {
		t.Fatalf("the target has threads %q: want several, as mongod has", s)
	}
	const hold = time.Second
	r := startFreeze(context.Background(), t, "--process", name, "--for", hold.String())
	var seenStopped bool
	waitFor(t, 10*time.Second, "the target stopped, or freeze done", func() bool {
		seenStopped = allStopped(statesOf(t, pid))
		select {
		case <-r.done:
			return true
		default:
			return seenStopped
		}
	})
	if !seenStopped {
		t.Fatalf("freeze returned %d before the target was seen stopped: %s", r.code, r.stderr.String())
	}
	rep := r.wait(t, hold+30*time.Second)
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr.String())
	}
	if s := statesOf(t, pid); strings.Contains(s, "T") {
		t.Errorf("after freeze the target's threads are %q: want none stopped", s)
	}
	if rep.PID != pid || rep.Process != name || rep.Error != "" {
		t.Errorf("report %+v: want pid %d, process %q, no error", rep, pid, name)
	}
	if rep.StopSent.After(rep.Stopped) || !rep.Stopped.Before(rep.ContinueSent) || rep.ContinueSent.After(rep.Continued) {
		t.Errorf("report times out of order: %+v", rep)
	}
	if f := rep.Frozen(); f < hold || f > hold+10*time.Second {
		t.Errorf("frozen %v: want %v, and not much more", f, hold)
	}
}

// TestFreezeCutShort: SIGTERM to the loader mid-freeze continues the
// process at once; the report says it was cut short, and the exit code is
// the signal's.
func TestFreezeCutShort(t *testing.T) {
	name := targetName(t, 12)
	pid := startTarget(t, name).Process.Pid
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	r := startFreeze(ctx, t, "--process", name, "--for", contract.FreezeMaxFor.String())
	waitFor(t, 10*time.Second, "the target stopped", func() bool { return allStopped(statesOf(t, pid)) })
	cancel(SignalError{Signal: syscall.SIGTERM})
	rep := r.wait(t, 30*time.Second)
	if r.code != exitSignalBase+int(syscall.SIGTERM) {
		t.Errorf("exit %d, want %d", r.code, exitSignalBase+int(syscall.SIGTERM))
	}
	if s := statesOf(t, pid); strings.Contains(s, "T") {
		t.Errorf("after a cut-short freeze the target's threads are %q: want none stopped", s)
	}
	if !strings.HasPrefix(rep.Error, contract.FreezeCutShortPrefix) || !strings.Contains(rep.Error, "stopped by signal terminated") ||
		rep.PID != pid || rep.Continued.IsZero() || rep.Frozen() >= contract.FreezeMaxFor {
		t.Errorf("report %+v", rep)
	}
	if !strings.Contains(r.stderr.String(), "loader: freeze: cut short") {
		t.Errorf("stderr %q", r.stderr.String())
	}
}

// TestFreezeFindsExactlyOne: no process of the name (a zombie of it does
// not count) or several is a failure that names what there is, reported
// without a signal sent.
func TestFreezeFindsExactlyOne(t *testing.T) {
	check := func(t *testing.T, name string, want ...string) {
		t.Helper()
		rep := startFreeze(context.Background(), t, "--process", name, "--for", "1s")
		r := rep.wait(t, 30*time.Second)
		if rep.code != ExitFailure {
			t.Errorf("exit %d, want %d", rep.code, ExitFailure)
		}
		for _, w := range want {
			if !strings.Contains(r.Error, w) || !strings.Contains(rep.stderr.String(), w) {
				t.Errorf("report error %q, stderr %q: want %q", r.Error, rep.stderr.String(), w)
			}
		}
		if r.PID != 0 || !r.StopSent.IsZero() || r.Process != name {
			t.Errorf("report %+v: want no pid and nothing sent", r)
		}
	}
	t.Run("none", func(t *testing.T) {
		name := targetName(t, 12)
		check(t, name, `no process named "`+name+`"`, "shareProcessNamespace")
	})
	t.Run("none but a zombie", func(t *testing.T) {
		name := targetName(t, 12)
		child := startTarget(t, name)
		// Killed and not yet reaped (startTarget's cleanup waits): a zombie.
		if err := child.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 10*time.Second, "a zombie", func() bool {
			b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(child.Process.Pid), "stat"))
			s := string(b)
			return strings.HasPrefix(strings.TrimSpace(s[strings.LastIndex(s, ")")+1:]), "Z")
		})
		check(t, name, `no live process named "`+name+`": pids [`+strconv.Itoa(child.Process.Pid)+`] exited (zombies`)
	})
	t.Run("two", func(t *testing.T) {
		name := targetName(t, 12)
		a, b := startTarget(t, name).Process.Pid, startTarget(t, name).Process.Pid
		check(t, name, `2 processes named "`+name+`"`, strconv.Itoa(a), strconv.Itoa(b))
		for _, pid := range []int{a, b} {
			if s := statesOf(t, pid); strings.Contains(s, "T") {
				t.Errorf("pid %d stopped (%q) though freeze failed", pid, s)
			}
		}
	})
	t.Run("truncated name says so", func(t *testing.T) {
		name := targetName(t, 20)
		check(t, name, "keeps its first 15 bytes, "+strconv.Quote(name[:15]))
	})
}

func TestFreezeUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--process", "mongod"}, "--for is required"},
		{[]string{"--for", "0s"}, "--for: 0s must be positive"},
		{[]string{"--for", "-1s"}, "--for: -1s must be positive"},
		{[]string{"--for", "10m1s"}, "--for: 10m1s is longer than 10m0s"},
		{[]string{"--for", "15"}, `invalid value "15" for flag -for`},
		{[]string{"--for", "1s", "--process", ""}, "--process: empty name"},
		{[]string{"--for", "1s", "--process", strings.Repeat("m", 256)}, "256 bytes, longer than a file name"},
		{[]string{"--for", "1s", "--process", "a\nb"}, "holds no newline"},
		{[]string{"--for", "1s", "extra"}, `unexpected argument "extra"`},
	} {
		code, stdout, stderr, termLog := runMain(t, nil, nil, append([]string{contract.CommandFreeze}, tc.args...)...)
		// A usage error is the plain message, as for every command: no
		// report, as nothing was looked for.
		if code != ExitUsage || !strings.Contains(termLog, tc.want) || strings.HasPrefix(termLog, "{") || stdout != "" {
			t.Errorf("%q: exit %d, termination log %q, stdout %q, want exit %d and %q\n%s", tc.args, code, termLog, stdout, ExitUsage, tc.want, stderr)
		}
	}
	// The boundary is allowed, and Parse checks without doing anything.
	c, err := Parse([]string{"--termination-log", "/x/log", contract.CommandFreeze, "--for", contract.FreezeMaxFor.String()}, Env{})
	if err != nil || c.freeze == nil || c.freeze.hold != contract.FreezeMaxFor || c.freeze.process != contract.FreezeDefaultProcess || c.freeze.termLog != "/x/log" {
		t.Errorf("Parse: %+v, %v", c, err)
	}
}

// recordingKill is a kill(2) that records the signals asked for and passes
// on those in pass (with their real effect) or fails with err.
type recordingKill struct {
	mu   sync.Mutex
	sent []syscall.Signal
	pass map[syscall.Signal]bool
	err  map[syscall.Signal]error
}

func (k *recordingKill) kill(pid int, sig syscall.Signal) error {
	k.mu.Lock()
	k.sent = append(k.sent, sig)
	k.mu.Unlock()
	if err := k.err[sig]; err != nil {
		return err
	}
	if k.pass[sig] {
		return syscall.Kill(pid, sig)
	}
	return nil
}

func (k *recordingKill) signals() []syscall.Signal {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]syscall.Signal(nil), k.sent...)
}

func testFreezer(k *recordingKill) freezer {
	f := newFreezer()
	f.kill = k.kill
	f.settle = 200 * time.Millisecond
	return f
}

// TestFreezeContinuesOnEveryFailure: once SIGSTOP was sent, a freeze that
// fails still sends SIGCONT, and reports what it saw.
func TestFreezeContinuesOnEveryFailure(t *testing.T) {
	name := targetName(t, 12)
	startTarget(t, name)
	// The SIGSTOP is lost (as it would be by a namespace's init): the stop
	// is never seen, and the process is continued anyway.
	k := &recordingKill{pass: map[syscall.Signal]bool{syscall.SIGCONT: true}}
	rep, err := testFreezer(k).freeze(context.Background(), name, time.Second)
	if err == nil || !strings.Contains(err.Error(), "not seen stopped within 200ms") || rep.Error != err.Error() {
		t.Fatalf("freeze: %v, report %+v", err, rep)
	}
	if got := k.signals(); len(got) != 2 || got[0] != syscall.SIGSTOP || got[1] != syscall.SIGCONT {
		t.Errorf("signals %v, want SIGSTOP then SIGCONT", got)
	}
	if rep.StopSent.IsZero() || !rep.Stopped.IsZero() || rep.ContinueSent.IsZero() || rep.Continued.IsZero() {
		t.Errorf("report %+v: want sent, not seen stopped, continued", rep)
	}
	if _, err := contract.DecodeFreezeReport(contract.EncodeFreezeReport(rep)); err != nil {
		t.Errorf("the report does not decode: %v", err)
	}

	// Cut short while waiting for the stop: the report's error begins as
	// a cut-short one must, and the process is continued.
	k = &recordingKill{pass: map[syscall.Signal]bool{syscall.SIGCONT: true}}
	f := testFreezer(k)
	f.settle = time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	rep, err = f.freeze(ctx, name, time.Second)
	if err == nil || !strings.HasPrefix(rep.Error, contract.FreezeCutShortPrefix+"waiting to see pid") || !strings.Contains(rep.Error, "deadline exceeded") {
		t.Errorf("freeze: %v, report %+v", err, rep)
	}
	if got := k.signals(); len(got) != 2 || got[1] != syscall.SIGCONT || rep.Continued.IsZero() {
		t.Errorf("signals %v, report %+v: want SIGSTOP then SIGCONT, continued", got, rep)
	}
}

// TestFreezePermission: kill(2) refused (another uid, no CAP_KILL) says
// what to run as; nothing was sent, so nothing is continued.
func TestFreezePermission(t *testing.T) {
	name := targetName(t, 12)
	pid := startTarget(t, name).Process.Pid
	k := &recordingKill{err: map[syscall.Signal]error{syscall.SIGSTOP: syscall.EPERM}}
	rep, err := testFreezer(k).freeze(context.Background(), name, time.Second)
	if err == nil || !strings.Contains(err.Error(), "operation not permitted: run as the process's user, uid 999 for the mongo image") ||
		!strings.Contains(err.Error(), "the process's uid is "+strconv.Itoa(os.Getuid())) {
		t.Fatalf("freeze: %v", err)
	}
	if got := k.signals(); len(got) != 1 {
		t.Errorf("signals %v, want the one SIGSTOP refused", got)
	}
	if rep.PID != pid || !rep.StopSent.IsZero() || !rep.ContinueSent.IsZero() {
		t.Errorf("report %+v: want the pid and nothing sent", rep)
	}
}

// TestFreezeLeavesAStoppedProcessAlone: a process already stopped is not
// this freeze's to time or to continue.
func TestFreezeLeavesAStoppedProcessAlone(t *testing.T) {
	name := targetName(t, 12)
	pid := startTarget(t, name).Process.Pid
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the target stopped", func() bool { return allStopped(statesOf(t, pid)) })
	k := &recordingKill{}
	_, err := testFreezer(k).freeze(context.Background(), name, time.Second)
	if err == nil || !strings.Contains(err.Error(), "already stopped") {
		t.Errorf("freeze: %v", err)
	}
	if got := k.signals(); len(got) != 0 {
		t.Errorf("signals %v, want none", got)
	}
	if s := statesOf(t, pid); !allStopped(s) {
		t.Errorf("threads %q: want still stopped", s)
	}
}

// TestFreezeRefusesInit: mongod as PID 1 of the namespace (the pod without
// shareProcessNamespace) would drop SIGSTOP without an error; freeze says
// so instead of waiting. A proc tree of files stands for that namespace.
func TestFreezeRefusesInit(t *testing.T) {
	proc := t.TempDir()
	for pid, comm := range map[string]string{"1": "mongod", "7": "loader"} {
		if err := os.MkdirAll(filepath.Join(proc, pid), 0o755); err != nil {
			t.Fatal(err)
		}
		_ = os.WriteFile(filepath.Join(proc, pid, "comm"), []byte(comm+"\n"), 0o644)
		_ = os.WriteFile(filepath.Join(proc, pid, "stat"), []byte(pid+" ("+comm+") S 0 1 1 0"), 0o644)
	}
	f := freezer{proc: proc, self: 7}
	if _, err := f.find("mongod"); err == nil || !strings.Contains(err.Error(), "PID 1") || !strings.Contains(err.Error(), "shareProcessNamespace: true") {
		t.Errorf("find: %v", err)
	}
	if _, err := f.find("loader"); err == nil || !strings.Contains(err.Error(), `among the 1 others of this PID namespace ("mongod")`) {
		t.Errorf("find of itself: %v", err)
	}
}

func TestReadState(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		stat string
		want byte
		err  bool
	}{
		{"12 (mongod) T 1 12 12 0 -1", 'T', false},
		{"12 (a) b (c)) S 1 12", 'S', false},
		{"12 (x y) R", 'R', false},
		{"12 (mongod)", 0, true},
		{"garbage", 0, true},
	} {
		path := filepath.Join(dir, "stat")
		if err := os.WriteFile(path, []byte(tc.stat), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readState(path)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("%q: %q, %v", tc.stat, got, err)
		}
	}
	for _, tc := range []struct {
		states string
		want   bool
	}{{"TTT", true}, {"TZT", true}, {"TST", false}, {"Tt", false}, {"Z", false}, {"", false}} {
		if got := isStopped([]byte(tc.states)); got != tc.want {
			t.Errorf("isStopped(%q) = %v", tc.states, got)
		}
	}
}
