package mongoadmin

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Server error codes this package acts on.
const (
	codeHostUnreachable                = 6
	codeUnauthorized                   = 13
	codeAuthenticationFailed           = 18
	codeHostNotFound                   = 7
	codeAlreadyInitialized             = 23
	codeLockBusy                       = 46
	codeNamespaceExists                = 48
	codeCommandNotFound                = 59
	codeNodeNotFound                   = 74
	codeNoReplicationEnabled           = 76
	codeNetworkTimeout                 = 89
	codeShutdownInProgress             = 91
	codeNotYetInitialized              = 94
	codeOperationFailed                = 96 // addShard retries only addShardNoSetName
	codeConflictingOperationInProgress = 117
	codeFailedToSatisfyReadPreference  = 133
	codePrimarySteppedDown             = 189
	codeNotWritablePrimary             = 10107
	codeInterruptedDueToReplStateChg   = 11602
	codeNotPrimaryNoSecondaryOk        = 13435
	codeNotPrimaryOrSecondary          = 13436
)

// transientCodes mean "not ready yet" while a topology comes up: retry.
// 13435/13436 are what a member answers between initiate and its election.
// 96 OperationFailed is generic, so only addShard retries it, and only for
// a shard that has not finished initiating (addShardNoSetName).
func transientCodes() []int {
	return []int{
		codeHostUnreachable, codeHostNotFound, codeNetworkTimeout, codeShutdownInProgress,
		codeFailedToSatisfyReadPreference, codePrimarySteppedDown,
		codeNotWritablePrimary, codeInterruptedDueToReplStateChg,
		codeNotPrimaryNoSecondaryOk, codeNotPrimaryOrSecondary,
	}
}

// notYetError is a state that is expected to change by itself (a member not
// primary yet): waited for like a transient error.
type notYetError struct{ reason string }

func (e notYetError) Error() string { return e.reason }

func notYet(format string, args ...any) error {
	return notYetError{reason: fmt.Sprintf(format, args...)}
}

// passingError is a server error that one step knows to be passing, though
// it means something else elsewhere (e.g. 117 ConflictingOperationInProgress
// while a migration of the same chunk is still finishing): retried with
// backoff like a transient error.
type passingError struct{ err error }

func (e passingError) Error() string { return e.err.Error() }
func (e passingError) Unwrap() error { return e.err }

// isTransient tells whether err may go away by retrying. The caller checks
// its own context separately: an expired per-call timeout is transient, the
// overall deadline is not.
func isTransient(err error) bool {
	if errors.As(err, &notYetError{}) || errors.As(err, &passingError{}) {
		return true
	}
	if mongo.IsNetworkError(err) || mongo.IsTimeout(err) {
		return true
	}
	var se mongo.ServerError
	if errors.As(err, &se) {
		for _, c := range transientCodes() {
			if se.HasErrorCode(c) {
				return true
			}
		}
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded)
}

// hasCode reports whether err carries the server error code.
func hasCode(err error, code int) bool {
	var se mongo.ServerError
	return errors.As(err, &se) && se.HasErrorCode(code)
}

// commandError is a command that failed: which command, on which server,
// and the server's code, code name and message, so a failed Job's log says
// what MongoDB said.
type commandError struct {
	target  string // host:port, or the hosts of a URI
	command string
	hint    string // what is likely wrong, when known
	err     error
}

func (e *commandError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s on %s: %s", e.command, e.target, describe(e.err))
	if e.hint != "" {
		b.WriteString(" (" + e.hint + ")")
	}
	return b.String()
}

func (e *commandError) Unwrap() error { return e.err }

// withHint adds what is likely wrong to a command's error.
func withHint(err error, hint string) error {
	var ce *commandError
	if errors.As(err, &ce) {
		c := *ce
		c.hint = hint
		return &c
	}
	return fmt.Errorf("%w (%s)", err, hint)
}

// describe renders a driver error with its code: the driver's own text
// gives the code name and message but not the number.
func describe(err error) string {
	var ce mongo.CommandError
	if errors.As(err, &ce) && ce.Code != 0 {
		return fmt.Sprintf("server error %d (%s): %s", ce.Code, ce.Name, ce.Message)
	}
	var we mongo.WriteException
	if errors.As(err, &we) && we.WriteConcernError != nil {
		wce := we.WriteConcernError
		return fmt.Sprintf("write concern error %d (%s): %s", wce.Code, wce.Name, wce.Message)
	}
	return err.Error()
}

// initiateHint says what a refused replSetInitiate most likely means. In
// MongoDB 7/8 every config validation failure is 93 with the reason in the
// message; older servers used 74 or 2 for some.
func initiateHint(err error, rs ReplicaSet) string {
	msg := strings.ToLower(err.Error())
	switch {
	case hasCode(err, codeNoReplicationEnabled):
		return "the mongod was started without --replSet"
	case strings.Contains(msg, "maps to this node") || strings.Contains(msg, "is not electable") ||
		strings.Contains(msg, "no host described"):
		return fmt.Sprintf("host %q does not resolve to this member, or its port differs from --port: "+
			"use the pod's stable DNS name from a headless Service with publishNotReadyAddresses", rs.Host)
	case strings.Contains(msg, "set name") || strings.Contains(msg, "differs from command line"):
		return fmt.Sprintf("the mongod's --replSet is not %q", rs.Name)
	case strings.Contains(msg, "configsvr"):
		return "configsvr: true must be sent exactly for the member started with --configsvr"
	case hasCode(err, codeNodeNotFound):
		return "a member of the config is unreachable"
	}
	return "the replica set config was refused; the message says why"
}

// accessHint says what an error of access control most likely means; ""
// for other errors. Neither is transient: waiting does not change a
// credential. A connection that fails to authenticate reports 18 from
// its handshake, as a command error without the NetworkError label
// (go.mongodb.org/mongo-driver/v2: the auth.Error of the handshake wraps
// the server's reply to saslStart or saslContinue); the server says no
// more than "Authentication failed." whatever went wrong
// (src/mongo/db/auth/sasl_commands.cpp, mongodb/mongo). 13 is a command
// of a connection that did not authenticate, or of a user whose roles do
// not allow it.
func accessHint(err error) string {
	switch {
	case hasCode(err, codeAuthenticationFailed):
		return "the server refused the credentials: a wrong keyfile or password, or a user that does not exist"
	case hasCode(err, codeUnauthorized):
		return "the server has access control: connect with credentials whose roles allow the command"
	}
	return ""
}
