package loader

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Exit codes of the loader command (Main's return value), all of them,
// defined and documented here only. Kubernetes records them in a pod's
// termination state, with the fatal error as its termination message:
//
//	0      done: the phase completed, or ran for maxexecutiontime, and every
//	       result destination was written; freeze: the process was stopped
//	       for --for and continued
//	1      failure: cannot connect (the message names the hosts, the wait and
//	       what set it: mongodb.operationtimeout or serverSelectionTimeoutMS),
//	       a result not written, a load that left records out (a thread
//	       stopped after a failed insert, or buffered inserts lost; YCSB exits
//	       0), bootstrap or collMod failed; freeze failed (no such process or
//	       several, kill(2) refused, the stop or the continue not seen: its
//	       report, the termination message, says what was sent and seen)
//	2      usage: bad flags, properties (a malformed mongodb.url too) or
//	       topology, found before any work
//	3      bootstrap --mode external: the run's database holds data the
//	       run did not create (contract.ExitTargetNotEmpty); nothing was
//	       written
//	128+n  stopped by signal n (143 SIGTERM, 130 SIGINT), after reporting the
//	       partial result: the shell's convention; freeze: cut short, the
//	       process continued (its report says when)
//
// The kubectl plugin has codes of its own, with other meanings
// (internal/plugin/exit.go): the two binaries share none.
const (
	// ExitOK: the phase completed (or ran for maxexecutiontime) and every
	// result destination was written.
	ExitOK = 0
	// ExitFailure: a fatal error (cannot connect, a result could not be
	// written, a load left records out, bootstrap or collMod failed).
	ExitFailure = 1
	// ExitUsage: bad flags, properties or topology, found before any work.
	ExitUsage = 2
	// exitSignalBase + n: stopped by signal n after writing the partial
	// result (143 for SIGTERM, 130 for SIGINT), the shell's convention.
	exitSignalBase = 128
)

// SignalError is the cancellation cause cmd/loader gives the context when
// a signal asks the loader to stop; Main turns it into exit code 128+n.
type SignalError struct{ Signal os.Signal }

func (e SignalError) Error() string { return "stopped by signal " + e.Signal.String() }

// usageError marks errors found in the command line or configuration:
// ExitUsage.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// exitError carries a specific exit code (a signal's) with its message.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

// signalExit converts a cancellation caused by a signal into its exit code.
func signalExit(ctx context.Context, err error) error {
	var se SignalError
	if errors.As(context.Cause(ctx), &se) {
		if s, ok := se.Signal.(syscall.Signal); ok {
			return exitError{code: exitSignalBase + int(s), err: err}
		}
	}
	return exitError{code: ExitFailure, err: err}
}

// exitCodeOf maps a fatal error to its exit code: an exitError's own, 2
// for a usage error, else 1.
func exitCodeOf(err error) int {
	var ue usageError
	var ee exitError
	switch {
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		return ExitUsage
	}
	return ExitFailure
}
