package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// The process side of the Pause disruption: `loader freeze --process
// mongod --for 15s`, run by the controller in an ephemeral container of
// the mongod's pod (shareProcessNamespace: true, so mongod is not the
// namespace's init and SIGSTOP reaches it; as the mongod's uid, 999 in the
// official mongo image, as kill(2) requires the same uid or CAP_KILL). It
// stops the process with SIGSTOP, keeps it stopped for FlagFreezeFor, then
// continues it with SIGCONT, and reports when in a FreezeReport.
const (
	// CommandFreeze is the loader command.
	CommandFreeze = "freeze"
	// FlagFreezeProcess names the process to freeze as /proc/<pid>/comm
	// shows it; exactly one process (other than the loader) must have it.
	FlagFreezeProcess = "process"
	// FlagFreezeFor is how long the process stays stopped: a Go duration,
	// positive, at most FreezeMaxFor.
	FlagFreezeFor = "for"
	// FreezeDefaultProcess is FlagFreezeProcess's default: the mongod of
	// the official mongo image.
	FreezeDefaultProcess = "mongod"
	// FreezeMaxFor bounds FlagFreezeFor: a benchmark's pause is a GC
	// pause or a VM freeze, seconds, not a member gone for good.
	FreezeMaxFor = 10 * time.Minute
	// FreezeCutShortPrefix begins a report's Error when the freeze was
	// ended before FlagFreezeFor (the loader got SIGTERM): the process was
	// still continued, Continued says when.
	FreezeCutShortPrefix = "cut short: "
)

// MaxTerminationMessage is the size of a container's termination message
// that Kubernetes keeps: k8s.io/api core/v1 Container.TerminationMessagePath
// (and EphemeralContainerCommon's, v0.36.3): "Will be truncated by the node
// if greater than 4096 bytes. The total message length across all
// containers will be limited to 12kb."
const MaxTerminationMessage = 4096

// FreezeReport is what `loader freeze` did, written by the loader as JSON
// (EncodeFreezeReport) to its termination log and to stdout, and read back
// by the controller (DecodeFreezeReport) from the ephemeral container's
// termination message (state.terminated.message), on success and on
// failure alike once the command line parsed (a usage error is plain text).
//
// The process was stopped at some instant between StopSent and Stopped,
// and runs again from some instant between ContinueSent and Continued;
// Stopped and Continued are when the loader saw it so (every thread in
// state T in /proc/<pid>/task/*/stat, then none). A report with StopSent
// and without Continued means the process may still be stopped (the
// loader sends SIGCONT on every path after SIGSTOP, but could not see it
// take effect): the controller must not take the member for running. A
// report without StopSent sent nothing. Times are RFC 3339
// with nanoseconds, UTC; an unset one is absent.
type FreezeReport struct {
	// PID is the process frozen (in the pod's PID namespace); 0 when none
	// was found.
	PID int `json:"pid"`
	// Process is FlagFreezeProcess, as given.
	Process string `json:"process"`
	// StopSent is when SIGSTOP was sent; Stopped when the process was
	// seen stopped.
	StopSent time.Time `json:"stopSent,omitzero"`
	Stopped  time.Time `json:"stopped,omitzero"`
	// ContinueSent is when SIGCONT was sent; Continued when the process
	// was seen running again.
	ContinueSent time.Time `json:"continueSent,omitzero"`
	Continued    time.Time `json:"continued,omitzero"`
	// Error is why the freeze failed or was cut short
	// (FreezeCutShortPrefix); "" when it stopped the process for
	// FlagFreezeFor and continued it. EncodeFreezeReport shortens it so
	// that the report fits MaxTerminationMessage.
	Error string `json:"error,omitempty"`
}

// Frozen is how long the process was seen stopped (Continued − Stopped),
// 0 unless both are set.
func (r FreezeReport) Frozen() time.Duration {
	if r.Stopped.IsZero() || r.Continued.IsZero() {
		return 0
	}
	return r.Continued.Sub(r.Stopped)
}

// errorCutMarker replaces the middle of an Error too long for the
// termination message.
const errorCutMarker = " […] "

// EncodeFreezeReport writes r as one line of JSON, its times in UTC, of at
// most MaxTerminationMessage bytes: the middle of a longer Error is cut
// out (Go errors read "step: step: cause", so both ends are worth
// keeping). Process is bounded by the loader (a file name, at most 255
// bytes), so the rest always fits.
func EncodeFreezeReport(r FreezeReport) string {
	for _, t := range []*time.Time{&r.StopSent, &r.Stopped, &r.ContinueSent, &r.Continued} {
		if !t.IsZero() {
			*t = t.UTC()
		}
	}
	b := marshalFreezeReport(r)
	if len(b) <= MaxTerminationMessage || r.Error == "" {
		return string(b)
	}
	// JSON escapes some bytes of Error into several (\u0001), so how much
	// to cut is searched for: the most of Error kept (keep bytes, cut
	// where cutMiddle cuts) that fits, an empty Error at worst.
	msg := r.Error
	fits := func(keep int) []byte {
		r.Error = cutMiddle(msg, keep)
		if b := marshalFreezeReport(r); len(b) <= MaxTerminationMessage {
			return b
		}
		return nil
	}
	// fits(lo) holds (lo = -1: none found yet); hi keeps about all of msg,
	// which did not fit.
	lo, hi := -1, len(msg)-len(errorCutMarker)
	for hi-lo > 1 {
		if mid := lo + (hi-lo)/2; fits(mid) != nil {
			lo = mid
		} else {
			hi = mid
		}
	}
	if lo < 0 {
		r.Error = ""
		return string(marshalFreezeReport(r))
	}
	return string(fits(lo))
}

func marshalFreezeReport(r FreezeReport) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// An error message's < > & stay as they are: fewer bytes, and the
	// message is read by people in kubectl describe.
	enc.SetEscapeHTML(false)
	// A struct of strings, ints and times cannot fail to encode.
	_ = enc.Encode(r)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// cutMiddle keeps keep bytes of s, two thirds from its start and the rest
// from its end, joined by errorCutMarker; cuts fall on UTF-8 boundaries.
func cutMiddle(s string, keep int) string {
	head := keep * 2 / 3
	for head > 0 && s[head]&0xC0 == 0x80 {
		head--
	}
	start := len(s) - (keep - head)
	for start < len(s) && s[start]&0xC0 == 0x80 {
		start++
	}
	return s[:head] + errorCutMarker + s[start:]
}

// DecodeFreezeReport reads EncodeFreezeReport's form, strictly (an unknown
// field means the loader and the controller disagree), and checks that it
// is a report the loader could have written.
func DecodeFreezeReport(s string) (FreezeReport, error) {
	var r FreezeReport
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return FreezeReport{}, fmt.Errorf("freeze report: %w", err)
	}
	if dec.More() {
		return FreezeReport{}, errors.New("freeze report: more than one JSON value")
	}
	switch {
	case r.Process == "":
		return FreezeReport{}, errors.New("freeze report: no process")
	case r.PID < 0:
		return FreezeReport{}, fmt.Errorf("freeze report: pid %d", r.PID)
	case !r.Stopped.IsZero() && r.StopSent.IsZero():
		return FreezeReport{}, errors.New("freeze report: stopped without a SIGSTOP sent")
	case !r.ContinueSent.IsZero() && r.StopSent.IsZero():
		return FreezeReport{}, errors.New("freeze report: SIGCONT sent without a SIGSTOP")
	case !r.Continued.IsZero() && r.ContinueSent.IsZero():
		return FreezeReport{}, errors.New("freeze report: continued without a SIGCONT sent")
	case r.Frozen() < 0:
		return FreezeReport{}, fmt.Errorf("freeze report: continued %s before it stopped", -r.Frozen())
	}
	return r, nil
}
