package contract

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A phase's disruptions (spec.phases[].disruptions) travel to every loader
// of the phase's Job as FlagDisruption, one per disruption: every loader
// measures around each one, and the actor (loader 0, for the MongoDB
// commands) acts at its instant, the measured window's start plus At.
//
// Exactly once: before it acts, the actor creates the disruption's ledger
// ConfigMap (DisruptionLedgerName), create-only, owned and labelled like
// its result ConfigMap. AlreadyExists means the action was sent before, by
// this loader's predecessor (a replaced pod): it is not sent again, and the
// ledger says how it ended (DisruptionReturnedKey) or that it is unknown.
// Once the action returned, the actor writes its outcome into the ledger.
const (
	// FlagDisruption is one disruption: EncodeDisruption's form.
	FlagDisruption = "disruption"

	// Data keys of a disruption's ledger ConfigMap.
	//
	// DisruptionActionKey is the action (StepDown); DisruptionSentKey when
	// it was sent, RFC 3339 with nanoseconds, UTC; DisruptionActorKey the
	// pod (hostname) that sent it; DisruptionPrimaryKey the primary it
	// was sent to (host:port, as the actor's driver knew it).
	DisruptionActionKey  = "action"
	DisruptionSentKey    = "sent"
	DisruptionActorKey   = "actor"
	DisruptionPrimaryKey = "primary"
	// DisruptionReturnedKey is when the action returned (RFC 3339 with
	// nanoseconds), and DisruptionErrorKey its error ("" or absent: none).
	// Both are absent until it returned.
	DisruptionReturnedKey = "returned"
	DisruptionErrorKey    = "error"
)

// DisruptionLedgerName is the ledger ConfigMap of disruption i of Job
// jobName: <job>-disruption-<i>.
func DisruptionLedgerName(jobName string, index int) string {
	return IndexedName(jobName+"-disruption", index)
}

// Disruption is one disruption as FlagDisruption carries it.
type Disruption struct {
	// Index is the disruption's position in the phase's disruptions.
	Index int
	// Action is the API's action, e.g. "StepDown".
	Action string
	// At is its instant, from the start of the measured window.
	At time.Duration
	// StepDownSecs and CatchUpSecs are replSetStepDown's stepdown period
	// and secondaryCatchUpPeriodSecs (StepDown only; defaults applied by
	// the controller).
	StepDownSecs int
	CatchUpSecs  int
}

// EncodeDisruption is the FlagDisruption value of d:
// "INDEX,ACTION,AT[,key=value…]", e.g. "0,StepDown,30s,stepDownSecs=60,catchUpSecs=10".
// AT is a Go duration.
func EncodeDisruption(d Disruption) string {
	parts := []string{strconv.Itoa(d.Index), d.Action, d.At.String()}
	if d.Action == "StepDown" {
		parts = append(parts, "stepDownSecs="+strconv.Itoa(d.StepDownSecs), "catchUpSecs="+strconv.Itoa(d.CatchUpSecs))
	}
	return strings.Join(parts, ",")
}

// DecodeDisruption parses EncodeDisruption's form.
func DecodeDisruption(s string) (Disruption, error) {
	parts := strings.Split(s, ",")
	if len(parts) < 3 {
		return Disruption{}, fmt.Errorf("disruption %q: want INDEX,ACTION,AT[,key=value…]", s)
	}
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	var d Disruption
	var err error
	if d.Index, err = strconv.Atoi(parts[0]); err != nil || d.Index < 0 {
		return Disruption{}, fmt.Errorf("disruption %q: index %q is not a number ≥ 0", s, parts[0])
	}
	d.Action = parts[1]
	if d.At, err = time.ParseDuration(parts[2]); err != nil || d.At < 0 {
		return Disruption{}, fmt.Errorf("disruption %q: at %q is not a duration ≥ 0", s, parts[2])
	}
	switch d.Action {
	case "StepDown":
		d.StepDownSecs, d.CatchUpSecs = -1, -1
	default:
		return Disruption{}, fmt.Errorf("disruption %q: unknown action %q (want StepDown)", s, d.Action)
	}
	for _, kv := range parts[3:] {
		k, v, ok := strings.Cut(kv, "=")
		n, err := strconv.Atoi(v)
		if !ok || err != nil || n < 0 {
			return Disruption{}, fmt.Errorf("disruption %q: %q: want key=number", s, kv)
		}
		switch k {
		case "stepDownSecs":
			d.StepDownSecs = n
		case "catchUpSecs":
			d.CatchUpSecs = n
		default:
			return Disruption{}, fmt.Errorf("disruption %q: unknown key %q", s, k)
		}
	}
	if d.StepDownSecs < 1 || d.CatchUpSecs < 0 || d.StepDownSecs <= d.CatchUpSecs {
		return Disruption{}, fmt.Errorf("disruption %q: StepDown needs stepDownSecs ≥ 1 greater than catchUpSecs ≥ 0", s)
	}
	return d, nil
}
