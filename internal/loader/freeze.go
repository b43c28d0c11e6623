package loader

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mongobench/mongobench/internal/contract"
)

// `loader freeze` is the process side of the Pause disruption: it stops a
// process of its PID namespace with SIGSTOP, keeps it stopped, continues
// it with SIGCONT and reports when (contract.FreezeReport). The controller
// runs it in an ephemeral container of the mongod's pod, whose
// shareProcessNamespace makes mongod a process the container sees and, not
// being the namespace's init, one SIGSTOP reaches (pid_namespaces(7): the
// init of a namespace gets from inside it only the signals it handles,
// and SIGSTOP cannot be handled).

const (
	// commLen is how much of a name /proc/<pid>/comm holds: the kernel's
	// TASK_COMM_LEN (16, include/linux/sched.h) less the terminating NUL.
	// exec(2) sets it to the first 15 bytes of the executable's file name.
	commLen = 15
	// maxProcessName bounds --process: a file name's length (NAME_MAX),
	// which also keeps the report within the termination message.
	maxProcessName = 255
	// freezeTick is how often /proc is read while waiting for a signal to
	// take effect: the report's times are this close to the state change.
	freezeTick = time.Millisecond
	// freezeSettle bounds that wait. A stopped process stops within a
	// scheduler tick, except a thread in uninterruptible sleep (state D,
	// disk I/O), which stops only when it leaves it.
	freezeSettle = 10 * time.Second
)

// freezeArgs is the parsed command line of `loader freeze`.
type freezeArgs struct {
	process string
	hold    time.Duration
	// termLog gets the report: the success path's termination message,
	// found in the arguments as Main finds it for the fatal path.
	termLog string
}

// parseFreezeArgs parses `loader freeze`; nothing is read from /proc and
// no signal sent. args starts after the command; termLog is Main's
// --termination-log.
func parseFreezeArgs(args []string, termLog string, env Env) (*freezeArgs, error) {
	a := freezeArgs{termLog: termLog}
	fs := newFlagSet(contract.CommandFreeze, "[--process NAME] --for DURATION [flags]", env)
	fs.StringVar(&a.process, contract.FlagFreezeProcess, contract.FreezeDefaultProcess,
		"the process to freeze, by `name` as in /proc/PID/comm: the kernel keeps the first 15 bytes of the executable's file name, "+
			"so only those are compared; exactly one process besides this one must have it")
	fs.DurationVar(&a.hold, contract.FlagFreezeFor, 0,
		"how long the process stays stopped (SIGSTOP, then SIGCONT), at most "+contract.FreezeMaxFor.String()+
			"; the report (JSON: pid, when stopped and continued) goes to stdout and to the termination log")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	switch {
	case a.process == "":
		return nil, usagef("--%s: empty name", contract.FlagFreezeProcess)
	case len(a.process) > maxProcessName:
		return nil, usagef("--%s: %d bytes, longer than a file name (%d)", contract.FlagFreezeProcess, len(a.process), maxProcessName)
	case strings.ContainsAny(a.process, "\n\x00"):
		return nil, usagef("--%s %q: a process name holds no newline or NUL", contract.FlagFreezeProcess, a.process)
	case !flagsSet(fs)[contract.FlagFreezeFor]:
		return nil, usagef("--%s is required: how long to keep the process stopped, e.g. 15s", contract.FlagFreezeFor)
	case a.hold <= 0:
		return nil, usagef("--%s: %v must be positive", contract.FlagFreezeFor, a.hold)
	case a.hold > contract.FreezeMaxFor:
		return nil, usagef("--%s: %v is longer than %v", contract.FlagFreezeFor, a.hold, contract.FreezeMaxFor)
	}
	return &a, nil
}

// runFreeze freezes the process and writes the report, encoded, to stdout
// and to the termination log, whatever the outcome. On failure the error
// carries the report, which fatal then writes as the termination message
// in place of the error's text: once the command line parsed, the
// controller always finds a contract.FreezeReport there. Exit codes: 0
// frozen for --for and continued; 128+n cut short by signal n (the
// process was continued: see the report); 1 any other failure.
func runFreeze(ctx context.Context, a *freezeArgs, env Env) error {
	rep, err := newFreezer().freeze(ctx, a.process, a.hold)
	line := contract.EncodeFreezeReport(rep)
	_, _ = fmt.Fprintln(env.Stdout, line)
	if err == nil {
		writeTerminationLog(a.termLog, line)
		return nil
	}
	err = fmt.Errorf("%s: %w", contract.CommandFreeze, err)
	if ctx.Err() != nil {
		err = signalExit(ctx, err)
	}
	return withTerminationMessage{msg: line, err: err}
}

// withTerminationMessage is a fatal error whose termination message is
// msg rather than its text (a freeze's report).
type withTerminationMessage struct {
	msg string
	err error
}

func (e withTerminationMessage) Error() string { return e.err.Error() }
func (e withTerminationMessage) Unwrap() error { return e.err }

// freezer stops and continues a process found in a proc filesystem.
// Tests substitute kill.
type freezer struct {
	proc string
	self int
	kill func(pid int, sig syscall.Signal) error
	// settle bounds the wait for a signal to take effect.
	settle time.Duration
}

func newFreezer() freezer {
	return freezer{proc: "/proc", self: os.Getpid(), kill: syscall.Kill, settle: freezeSettle}
}

// freeze finds the one process named name, stops it, keeps it stopped for
// hold or until ctx is done, and continues it. Once SIGSTOP was sent,
// SIGCONT is sent on every way out (a mongod left stopped would stall the
// benchmark and everything after it). The report says what was done,
// and its Error what went wrong (err's text).
func (f freezer) freeze(ctx context.Context, name string, hold time.Duration) (rep contract.FreezeReport, err error) {
	rep.Process = name
	defer func() {
		if err != nil {
			rep.Error = err.Error()
		}
	}()
	if rep.PID, err = f.find(name); err != nil {
		return rep, err
	}
	pid := rep.PID
	if err := ctx.Err(); err != nil {
		return rep, fmt.Errorf("%sbefore SIGSTOP, nothing sent: %w", contract.FreezeCutShortPrefix, context.Cause(ctx))
	}
	states, err := f.threadStates(pid)
	if err != nil {
		return rep, err
	}
	if slices.Contains(states, 'T') {
		// Stopped by someone else (a debugger, an earlier freeze that
		// died): that is not a freeze this one may time or end.
		return rep, fmt.Errorf("%s (pid %d) is already stopped (thread states %s): not stopping or continuing it", name, pid, states)
	}

	rep.StopSent = time.Now()
	if err := f.signal(pid, syscall.SIGSTOP, name); err != nil {
		rep.StopSent = time.Time{} // kill(2) failed: nothing was sent
		return rep, err
	}
	continued := false
	defer func() {
		// A panic between SIGSTOP and SIGCONT must not leave the process
		// stopped either.
		if !continued {
			_ = f.kill(pid, syscall.SIGCONT)
		}
	}()
	holdErr := f.stopAndHold(ctx, &rep, hold)

	continued = true
	rep.ContinueSent = time.Now()
	contErr := f.signal(pid, syscall.SIGCONT, name)
	if contErr == nil {
		// Not ctx: the process is continued even when the freeze was cut
		// short.
		rep.Continued, contErr = f.await(context.Background(), pid, false)
		if contErr != nil {
			contErr = fmt.Errorf("after SIGCONT: %w; %s (pid %d) may still be stopped", contErr, name, pid)
		}
	}
	switch {
	case holdErr != nil && contErr != nil:
		return rep, fmt.Errorf("%w; then %w", holdErr, contErr)
	case holdErr != nil:
		return rep, holdErr
	}
	return rep, contErr
}

// stopAndHold waits until the process is seen stopped (rep.Stopped), then
// for hold or until ctx is done.
func (f freezer) stopAndHold(ctx context.Context, rep *contract.FreezeReport, hold time.Duration) error {
	var err error
	// await's errors say what was awaited; a cut-short one begins with
	// contract.FreezeCutShortPrefix, which the report's Error must too.
	if rep.Stopped, err = f.await(ctx, rep.PID, true); err != nil {
		return err
	}
	timer := time.NewTimer(hold)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		held := time.Since(rep.Stopped).Round(time.Millisecond)
		return fmt.Errorf("%sheld %v of %v: %w", contract.FreezeCutShortPrefix, held, hold, context.Cause(ctx))
	}
}

// await polls the process's threads every freezeTick until every one is
// stopped (state T; stopped true) or none is (false), and returns when it
// saw that: the time after the reads, by which it held for every thread.
// It gives up after f.settle, or when ctx is done.
func (f freezer) await(ctx context.Context, pid int, stopped bool) (time.Time, error) {
	want := "stopped"
	if !stopped {
		want = "running"
	}
	deadline := time.NewTimer(f.settle)
	defer deadline.Stop()
	tick := time.NewTicker(freezeTick)
	defer tick.Stop()
	matches := func(states []byte) bool {
		if stopped {
			return isStopped(states)
		}
		return !slices.Contains(states, 'T')
	}
	for {
		states, err := f.threadStates(pid)
		seen := time.Now()
		if err != nil {
			return time.Time{}, err
		}
		if matches(states) {
			return seen, nil
		}
		select {
		case <-ctx.Done():
			// One last look: a process stopped by now is reported so,
			// and its hold then ends at once.
			if states, err := f.threadStates(pid); err == nil && matches(states) {
				return time.Now(), nil
			}
			return time.Time{}, fmt.Errorf("%swaiting to see pid %d %s: %w", contract.FreezeCutShortPrefix, pid, want, context.Cause(ctx))
		case <-deadline.C:
			hint := ""
			if stopped {
				hint = "; a thread in uninterruptible sleep, D, stops only once it leaves it"
			}
			return time.Time{}, fmt.Errorf("pid %d not seen %s within %v of the signal (thread states %s%s)", pid, want, f.settle, states, hint)
		case <-tick.C:
		}
	}
}

// isStopped: every live thread (not a zombie, Z, or dead, X) is stopped
// by a signal (T; not t, stopped by a tracer), and one at least lives.
func isStopped(states []byte) bool {
	live := 0
	for _, s := range states {
		switch s {
		case 'Z', 'X':
			continue
		case 'T':
			live++
		default:
			return false
		}
	}
	return live > 0
}

// threadStates reads the state of each of the process's threads
// (/proc/<pid>/task/<tid>/stat; proc(5)), sorted by thread id. A thread
// that exits while it is read is left out; the process gone is an error.
func (f freezer) threadStates(pid int) ([]byte, error) {
	dir := filepath.Join(f.proc, strconv.Itoa(pid), "task")
	tasks, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("pid %d exited", pid)
		}
		return nil, fmt.Errorf("read the threads of pid %d: %w", pid, err)
	}
	states := make([]byte, 0, len(tasks))
	for _, t := range tasks {
		s, err := readState(filepath.Join(dir, t.Name(), "stat"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		states = append(states, s)
	}
	if len(states) == 0 {
		return nil, fmt.Errorf("pid %d exited", pid)
	}
	return states, nil
}

// readState returns the state field of a stat file of proc(5): "pid (comm)
// state ...", where comm may itself hold spaces and parentheses, so the
// state follows the last ')'.
func readState(path string) (byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("read the process state: %w", err)
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) || b[i+1] != ' ' {
		return 0, fmt.Errorf("%s: no state in %q", path, b)
	}
	return b[i+2], nil
}

// commName is what /proc/<pid>/comm shows of a process named name.
func commName(name string) string {
	if len(name) > commLen {
		return name[:commLen]
	}
	return name
}

// find returns the one live process other than this one whose comm is
// name's (its first commLen bytes). None or several is an error that says
// what there is.
func (f freezer) find(name string) (int, error) {
	want := commName(name)
	entries, err := os.ReadDir(f.proc)
	if err != nil {
		return 0, fmt.Errorf("list processes: %w", err)
	}
	var found, zombies []int
	others := map[string]int{} // the other processes' comm, for the error
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == f.self {
			continue
		}
		b, err := os.ReadFile(filepath.Join(f.proc, e.Name(), "comm"))
		if err != nil {
			continue // exited since it was listed
		}
		comm := strings.TrimSuffix(string(b), "\n")
		if comm == want {
			// A zombie (exited, not yet reaped) cannot be frozen and is
			// not the process meant.
			if s, err := readState(filepath.Join(f.proc, e.Name(), "stat")); err != nil || s == 'Z' || s == 'X' {
				zombies = append(zombies, pid)
			} else {
				found = append(found, pid)
			}
			continue
		}
		others[comm]++
	}
	named := fmt.Sprintf("%q", name)
	if want != name {
		named = fmt.Sprintf("%q (/proc/PID/comm keeps its first %d bytes, %q)", name, commLen, want)
	}
	switch {
	case len(found) > 1:
		return 0, fmt.Errorf("%d processes named %s, pids %v: freeze stops exactly one", len(found), named, found)
	case len(found) == 0 && len(zombies) > 0:
		return 0, fmt.Errorf("no live process named %s: pids %v exited (zombies, not yet reaped)", named, zombies)
	case len(found) == 0:
		return 0, fmt.Errorf("no process named %s among the %d others of this PID namespace (%s); "+
			"another container's are seen only with the pod's shareProcessNamespace: true",
			named, countOf(others), describeComms(others))
	case found[0] == 1:
		// SIGSTOP to the namespace's init from inside it is dropped
		// without an error (pid_namespaces(7)): waiting would time out.
		return 0, fmt.Errorf("%s is PID 1, the init of this PID namespace, which ignores SIGSTOP sent from inside it; "+
			"the pod needs shareProcessNamespace: true", named)
	}
	return found[0], nil
}

func countOf(m map[string]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}

// describeComms lists names and counts, sorted, at most 20 names.
func describeComms(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	const most = 20
	more := 0
	if len(names) > most {
		more = len(names) - most
		names = names[:most]
	}
	for i, n := range names {
		names[i] = strconv.Quote(n)
		if c := m[n]; c > 1 {
			names[i] += fmt.Sprintf(" ×%d", c)
		}
	}
	s := strings.Join(names, ", ")
	if more > 0 {
		s += fmt.Sprintf(" and %d more names", more)
	}
	return s
}

// signal sends sig to pid, explaining a refusal.
func (f freezer) signal(pid int, sig syscall.Signal, name string) error {
	err := f.kill(pid, sig)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.EPERM):
		return fmt.Errorf("%v to %s (pid %d): %w: run as the process's user, uid 999 for the mongo image "+
			"(kill(2) needs the same uid or CAP_KILL; the process's uid is %s, this loader's %d)",
			sig, name, pid, err, f.uidOf(pid), os.Getuid())
	case errors.Is(err, syscall.ESRCH):
		return fmt.Errorf("%v to %s (pid %d): it exited", sig, name, pid)
	}
	return fmt.Errorf("%v to %s (pid %d): %w", sig, name, pid, err)
}

// uidOf is the real uid of pid (the Uid line of /proc/<pid>/status), or
// "unknown".
func (f freezer) uidOf(pid int) string {
	b, err := os.ReadFile(filepath.Join(f.proc, strconv.Itoa(pid), "status"))
	if err != nil {
		return "unknown"
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
			if fields := strings.Fields(rest); len(fields) > 0 {
				return fields[0]
			}
		}
	}
	return "unknown"
}
