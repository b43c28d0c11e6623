package plugin

import (
	"errors"
	"fmt"
)

// ExitCode is a command's process exit status. Scripts and CI branch on it,
// so the values are part of the CLI's contract: never renumber them, only
// add new ones.
type ExitCode int

// Exit codes.
const (
	// ExitOK: the command did its job; for wait, the run or sweep
	// Succeeded (a sweep: every one of its runs).
	ExitOK ExitCode = 0
	// ExitFailed: wait saw the run fail, or the sweep fail or end
	// PartiallySucceeded (why is printed on stderr: the Failed
	// condition's reason and message, or the failed runs).
	ExitFailed ExitCode = 1
	// ExitNoVerdict: nothing is known about the outcome — a usage error
	// (bad reference, flag or output format), the run or sweep does not
	// exist, the API server could not be asked, or wait timed out. Kept apart from
	// ExitFailed so CI never mistakes a broken pipeline for a failed
	// benchmark.
	ExitNoVerdict ExitCode = 2
	// ExitRegressed: wait saw the run or sweep succeed, but spec.compare
	// judged it (a metric, of any cell) Regressed against its baseline
	// (the Regressed condition's message goes to stderr).
	ExitRegressed ExitCode = 3
)

// exitCodesHelp documents the codes in the help of every command that
// returns a verdict.
const exitCodesHelp = `Exit codes:
  0  the run succeeded; the sweep succeeded (every one of its runs)
  1  the run failed, or the sweep failed or partially succeeded (the Failed
     condition's reason and message, or the failed runs, go to stderr)
  2  no verdict: timed out, usage error (bad reference, flag or output
     format), the run or sweep does not exist, or the API server could not
     be asked
  3  the run or sweep succeeded but regressed against its baseline
     (spec.compare; the Regressed condition's message goes to stderr)`

// exitError carries the exit code of a failed command with its message.
type exitError struct {
	code ExitCode
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit code %d", e.code)
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

// withCode attaches an exit code to err. A nil err makes a silent exit:
// the command already said why.
func withCode(code ExitCode, err error) error { return &exitError{code: code, err: err} }

// usageErrorf is an invalid invocation: exit 2, with a hint to --help.
func usageErrorf(format string, args ...any) error {
	return withCode(ExitNoVerdict, &usageError{fmt.Errorf(format, args...)})
}

// usageError marks errors after which the help hint is worth printing.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// exitCodeOf maps a command's error to its exit code: errors without an
// explicit code (cobra's flag and argument errors, API errors) have no
// verdict.
func exitCodeOf(err error) ExitCode {
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return ExitNoVerdict
}
