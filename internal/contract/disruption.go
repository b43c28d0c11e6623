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

// A pod deletion (KillPrimary, RestartMember) is the controller's: the
// manager talks only to the Kubernetes API, and only loader 0's driver
// knows which member is primary. So at the instant loader 0 creates the
// ledger as for a command, with DisruptionTargetKey, and sends nothing.
// The controller, which watches the run's ConfigMaps, then:
//
//  1. maps the target to a member's pod and patches DisruptionPodKey and
//     DisruptionPodUIDKey into the ledger, before it deletes anything;
//  2. deletes that pod with the UID as precondition, and patches
//     DisruptionReturnedKey (when the API server answered) and
//     DisruptionErrorKey ("" when it accepted the deletion, else why no
//     pod was deleted). A target that names no member, or a member
//     without a pod, gets the error without step 1.
//
// A manager restarted between the steps finds the ledger where it left
// it: after 1 it deletes the same UID again (NotFound, or a failed
// precondition once the pod was recreated, means done before), never the
// pod that replaced it. A ledger with DisruptionReturnedKey and no error
// tells the controller to recreate the pod it names, if it is missing. The ledger
// is the outcome's source: the controller fills the disruption's outcome
// from it.
const (
	// DisruptionTargetKey is the member to delete as loader 0's driver
	// knew it at the instant (host:port): the primary (KillPrimary,
	// RestartMember primary) or one secondary (RestartMember
	// secondary); absent for a member given by index, which the
	// controller maps itself, or when the driver knew no such member.
	DisruptionTargetKey = "target"
	// DisruptionPodKey and DisruptionPodUIDKey are the pod the controller
	// is about to delete, and its UID; DisruptionNodeKey the node it ran
	// on, where its replacement goes.
	DisruptionPodKey    = "pod"
	DisruptionPodUIDKey = "podUID"
	DisruptionNodeKey   = "node"
	// DisruptionReplacementUIDKey is the UID of the pod the controller
	// created in the deleted one's place: a replacement that goes missing
	// in its turn was not the disruption's doing, and is not recreated.
	DisruptionReplacementUIDKey = "replacementUID"
)

// DeletesPod reports whether action is a pod deletion (the controller's),
// not a command loader 0 sends.
func DeletesPod(action string) bool {
	return action == "KillPrimary" || action == "RestartMember" || action == "KillMongos"
}

// ByController reports whether the controller carries action out at
// loader 0's request through the ledger (a pod deletion, or a Pause:
// the controller adds the freezing container to the member's pod), not
// loader 0 itself.
func ByController(action string) bool { return DeletesPod(action) || action == "Pause" }

// A Pause's ledger gets, besides the pod deletions' keys (the pod and its
// UID, chosen as for RestartMember; returned and error), the ephemeral
// container the controller added (DisruptionContainerKey) and, once it
// ended, what it reported: when the mongod was seen stopped
// (DisruptionFrozenKey) and continued (DisruptionThawedKey), RFC 3339
// with nanoseconds. DisruptionReturnedKey is then the thaw. The loaders
// read the ledger after their window: the frozen instant is when the
// disruption began for them (operations only stall during a freeze).
//
// PauseReportWait bounds how long a loader waits, after its window, for a
// Pause's ledger to say when the freeze began and ended, beyond the
// Pause's own end (its instant plus its duration): the controller adds
// the freezing container after loader 0's request, the kubelet starts
// it, and the ledger is written once it ended. The phase's Job deadline
// leaves room for it.
const PauseReportWait = 45 * time.Second

const (
	DisruptionContainerKey = "container"
	// DisruptionAddedKey is when the controller added the container.
	DisruptionAddedKey  = "added"
	DisruptionFrozenKey = "frozen"
	DisruptionThawedKey = "thawed"
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
	// Member is RestartMember's and Pause's member: "primary",
	// "secondary" or a member's index ("0", "1", …).
	Member string
	// Duration is how long a Pause freezes the member.
	Duration time.Duration
	// Target is the replica set a disruption of a Sharded topology hits
	// (StepDown, KillPrimary, RestartMember): a shard's (shard<i>) or the
	// config server's (cfg); "" for the replica set the loaders connect
	// to (a ReplicaSet topology), or KillMongos. Hosts are its members'
	// addresses (host:port), in member order: every loader watches that
	// set with a client of its own (its primaries, for the time to a new
	// primary and the unavailability), and loader 0 sends StepDown
	// through it.
	Target string
	Hosts  []string
}

// EncodeDisruption is the FlagDisruption value of d:
// "INDEX,ACTION,AT[,key=value…]", e.g. "0,StepDown,30s,stepDownSecs=60,catchUpSecs=10",
// "1,KillPrimary,45s", "2,RestartMember,1m0s,member=secondary",
// "3,KillPrimary,1m0s,target=shard1,hosts=a:27018|b:27018",
// "4,Pause,30s,member=primary,duration=15s". AT is a Go
// duration; hosts are separated by "|".
func EncodeDisruption(d Disruption) string {
	parts := []string{strconv.Itoa(d.Index), d.Action, d.At.String()}
	switch d.Action {
	case "StepDown":
		parts = append(parts, "stepDownSecs="+strconv.Itoa(d.StepDownSecs), "catchUpSecs="+strconv.Itoa(d.CatchUpSecs))
	case "RestartMember":
		parts = append(parts, "member="+d.Member)
	case "Pause":
		parts = append(parts, "member="+d.Member, "duration="+d.Duration.String())
	}
	if d.Target != "" {
		parts = append(parts, "target="+d.Target, "hosts="+strings.Join(d.Hosts, hostSeparator))
	}
	return strings.Join(parts, ",")
}

// hostSeparator separates a target's hosts in FlagDisruption: a comma
// separates the keys.
const hostSeparator = "|"

// MemberIndex is a RestartMember's member index; ok is false for
// "primary" and "secondary".
func (d Disruption) MemberIndex() (int, bool) {
	n, err := strconv.Atoi(d.Member)
	return n, err == nil
}

// setKey sets one key=value of the form, as d's action allows.
func (d *Disruption) setKey(kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	switch {
	case ok && (k == "duration" && d.Action == "Pause" || k == "member" && (d.Action == "RestartMember" || d.Action == "Pause")):
		return d.setMemberKey(k, v)
	case ok && k == "target" && d.Action != "KillMongos":
		if v == "" || strings.ContainsAny(v, "/=|") {
			return fmt.Errorf("target %q: want a replica set's name", v)
		}
		d.Target = v
		return nil
	case ok && k == "hosts" && d.Action != "KillMongos":
		for _, h := range strings.Split(v, hostSeparator) {
			if err := checkAddress(h); err != nil {
				return fmt.Errorf("hosts: %w", err)
			}
			d.Hosts = append(d.Hosts, h)
		}
		return nil
	case k == "target" || k == "hosts" || k == "member" || k == "duration":
		return fmt.Errorf("unknown key %q for %s", k, d.Action)
	}
	n, err := strconv.Atoi(v)
	if !ok || err != nil || n < 0 {
		return fmt.Errorf("%q: want key=number", kv)
	}
	switch {
	case k == "stepDownSecs" && d.Action == "StepDown":
		d.StepDownSecs = n
	case k == "catchUpSecs" && d.Action == "StepDown":
		d.CatchUpSecs = n
	default:
		return fmt.Errorf("unknown key %q for %s", k, d.Action)
	}
	return nil
}

// setMemberKey sets a member's keys: member (RestartMember, Pause) and
// duration (Pause).
func (d *Disruption) setMemberKey(k, v string) error {
	if k == "duration" {
		t, err := time.ParseDuration(v)
		if err != nil || t <= 0 {
			return fmt.Errorf("duration %q: want a Go duration > 0", v)
		}
		d.Duration = t
		return nil
	}
	if n, err := strconv.Atoi(v); (err != nil || n < 0) && v != "primary" && v != "secondary" {
		return fmt.Errorf("member %q: want primary, secondary or an index ≥ 0", v)
	}
	d.Member = v
	return nil
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
	case "KillPrimary", "RestartMember", "KillMongos", "Pause":
	default:
		return Disruption{}, fmt.Errorf("disruption %q: unknown action %q (want StepDown, KillPrimary, RestartMember, KillMongos or Pause)", s, d.Action)
	}
	for _, kv := range parts[3:] {
		if err := d.setKey(kv); err != nil {
			return Disruption{}, fmt.Errorf("disruption %q: %w", s, err)
		}
	}
	if (d.Target == "") != (len(d.Hosts) == 0) {
		return Disruption{}, fmt.Errorf("disruption %q: target and hosts go together: a replica set's name and its members' host:port", s)
	}
	switch d.Action {
	case "StepDown":
		if d.StepDownSecs < 1 || d.CatchUpSecs < 0 || d.StepDownSecs <= d.CatchUpSecs {
			return Disruption{}, fmt.Errorf("disruption %q: StepDown needs stepDownSecs ≥ 1 greater than catchUpSecs ≥ 0", s)
		}
	case "RestartMember":
		if d.Member == "" {
			return Disruption{}, fmt.Errorf("disruption %q: RestartMember needs member=primary, secondary or an index", s)
		}
	case "Pause":
		if d.Member == "" || d.Duration <= 0 {
			return Disruption{}, fmt.Errorf("disruption %q: Pause needs member=primary, secondary or an index, and duration=", s)
		}
	}
	return d, nil
}
