package plugin

import (
	"errors"
	"fmt"
)

// ExitCode is a command's process exit status. Scripts and CI branch on it,
// so the values are part of the CLI's contract: never renumber them, only
// add new ones. They are all here, documented for users in exitCodesHelp.
// The loader binary has codes of its own, with other meanings
// (internal/loader/exit.go): the two share none.
type ExitCode int

// Exit codes.
const (
	// ExitOK: the command did its job; for wait, the run Succeeded and
	// is not invalid, or the sweep Succeeded (every one of its runs) and
	// each cell has a valid run.
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
	// ExitInvalid: wait saw the run succeed but its Valid condition is
	// False (its message goes to stderr): the numbers are not the
	// database's under the run's settings. For a sweep: it Succeeded, but
	// a cell has no valid run, so no results (the cells and their invalid
	// runs go to stderr). A sweep whose every cell kept a valid run exits
	// 0, and names its invalid runs on stderr.
	ExitInvalid ExitCode = 4
)

// When several verdicts apply, the first of failed (1), regressed (3) and
// invalid (4) wins: a failure leaves no numbers to judge, and a regression
// measured by valid runs stands whatever other cells' runs were worth.
// The run controller never gives an invalid run a Regressed condition
// that is True (its verdict is Invalid and Regressed is Unknown), so for
// a run 3 and 4 never meet.

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
     (spec.compare; the Regressed condition's message goes to stderr)
  4  the run succeeded but is not valid (its Valid condition is False: a
     process restarted, a primary changed, a loader saturated, ...; the
     condition's reason and message go to stderr), or the sweep succeeded
     but a cell has no valid run, hence no results (the cells and their
     invalid runs go to stderr)
When several apply, 1 wins over 3, and 3 over 4.`

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
