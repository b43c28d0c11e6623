package mongodb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"

	"github.com/mongobench/mongobench/internal/mongotls"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// What the binding measures around disruptions (Config.Disruptions), for
// the engine's ycsb.CallDetailer and the loader's result: the label of a
// failed call's error, the driver's retries, and the primaries the driver
// saw. None of it costs a successful call anything.

var _ ycsb.CallDetailer = (*DB)(nil)

// attemptsKey is the context key of a thread's failed-attempts counter.
type attemptsKey struct{}

// commandFailed counts a failed command attempt against the thread whose
// context carries a counter. The driver publishes a CommandFailedEvent per
// failed attempt, on the calling goroutine and with the operation's
// context (go.mongodb.org/mongo-driver/v2 v2.9.3,
// x/mongo/driver/operation.go: Operation.Execute → publishFinishedEvent(ctx,
// …) → op.CommandMonitor.Failed(ctx, failedEvent)), and a retry is another
// attempt, with its own events. A monitor with only Failed set costs a
// successful command nothing: canPublishFinishedEvent is false for a
// success without Succeeded, and publishFinishedEvent returns before
// building the event; without Started, canPublishStartedEvent is false and
// the command is not copied for an event.
func commandFailed(ctx context.Context, _ *event.CommandFailedEvent) {
	if n, ok := ctx.Value(attemptsKey{}).(interface{ Add(int64) int64 }); ok {
		n.Add(1)
	}
}

// fail records a failed call: its error for FailureLabel, and the log.
func (d *DB) fail(op ycsb.Op, key []byte, err error) {
	d.lastErr = err
	d.c.errs.record(op, key, err)
}

// FailureLabel labels the error of the thread's last failed call
// (ErrorLabel).
func (d *DB) FailureLabel() string { return ErrorLabel(d.lastErr) }

// FailedAttempts is the thread's running count of failed command attempts
// (0 unless Config.Disruptions).
func (d *DB) FailedAttempts() int64 {
	if d.guard.attempts == nil {
		return 0
	}
	return d.guard.attempts.Load()
}

// ErrorLabel names an operation's error as results.Disruption.Errors
// counts it: the server's code name (the reply's codeName, which the
// driver keeps as CommandError.Name, or a write concern error's Name),
// "Code<N>" for a code without a name (a write error carries none),
// ServerSelectionTimeout (no server to send it to: the driver's
// topology.ServerSelectionError), NetworkError (the driver's
// "NetworkError" label, mongo.IsNetworkError), Timeout (a deadline, or
// the operation timeout's watchdog cancelling the call), else Other.
func ErrorLabel(err error) string {
	if err == nil {
		return "Other"
	}
	var sse topology.ServerSelectionError
	if errors.As(err, &sse) {
		return "ServerSelectionTimeout"
	}
	var ce mongo.CommandError
	if errors.As(err, &ce) {
		switch {
		case ce.Name != "":
			return ce.Name
		case ce.Code != 0:
			return "Code" + strconv.Itoa(int(ce.Code))
		}
	}
	var we mongo.WriteException
	if errors.As(err, &we) {
		switch {
		case we.WriteConcernError != nil && we.WriteConcernError.Name != "":
			return we.WriteConcernError.Name
		case len(we.WriteErrors) > 0:
			return "Code" + strconv.Itoa(we.WriteErrors[0].Code)
		}
	}
	var bwe mongo.BulkWriteException
	if errors.As(err, &bwe) {
		switch {
		case bwe.WriteConcernError != nil && bwe.WriteConcernError.Name != "":
			return bwe.WriteConcernError.Name
		case len(bwe.WriteErrors) > 0:
			return "Code" + strconv.Itoa(bwe.WriteErrors[0].Code)
		}
	}
	switch {
	case mongo.IsNetworkError(err):
		return "NetworkError"
	case mongo.IsTimeout(err), errors.Is(err, context.Canceled):
		return "Timeout"
	}
	return "Other"
}

// maxPrimaryChanges bounds the primaries remembered: elections are rare,
// a flapping set must not grow the loader's memory.
const maxPrimaryChanges = 4096

// PrimaryChange is a writable primary the driver learnt of, or its loss.
type PrimaryChange struct {
	At time.Time
	// Addr is the primary's address, "" when the topology has none.
	Addr       string
	ElectionID bson.ObjectID
}

// primaries records the topology's primary as the driver's monitor sees
// it, from event.ServerMonitor's TopologyDescriptionChanged (called with
// the topology locked: it must not use the client, and does not).
type primaries struct {
	mu      sync.Mutex
	changes []PrimaryChange
	// secondaries are the members the latest description has as
	// secondaries, sorted (a RestartMember of "secondary" picks one).
	secondaries []string
}

func (p *primaries) topologyChanged(e *event.TopologyDescriptionChangedEvent) {
	now := time.Now()
	var c PrimaryChange
	var secondaries []string
	for _, s := range e.NewDescription.Servers {
		// description.ServerKindRSPrimary's and RSSecondary's String
		// (x/mongo/driver/description/server.go); a standalone or a
		// mongos is no replica set's primary.
		switch s.Kind {
		case "RSPrimary":
			if c.Addr == "" {
				c = PrimaryChange{Addr: s.Addr.String(), ElectionID: s.ElectionID}
			}
		case "RSSecondary":
			secondaries = append(secondaries, s.Addr.String())
		}
	}
	slices.Sort(secondaries)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.secondaries = secondaries
	if n := len(p.changes); n > 0 && p.changes[n-1].Addr == c.Addr && p.changes[n-1].ElectionID == c.ElectionID {
		return
	}
	if len(p.changes) == maxPrimaryChanges {
		return
	}
	c.At = now
	p.changes = append(p.changes, c)
}

// Primaries returns the primaries the driver knew, in order (only with
// Config.Disruptions).
func (c *Client) Primaries() []PrimaryChange {
	if c.primaries == nil {
		return nil
	}
	c.primaries.mu.Lock()
	defer c.primaries.mu.Unlock()
	return append([]PrimaryChange(nil), c.primaries.changes...)
}

// Secondary is a member the driver knows as a secondary now, the first
// by address ("" none; only with Config.Disruptions).
func (c *Client) Secondary() string {
	if c.primaries == nil {
		return ""
	}
	c.primaries.mu.Lock()
	defer c.primaries.mu.Unlock()
	if len(c.primaries.secondaries) == 0 {
		return ""
	}
	return c.primaries.secondaries[0]
}

// PrimaryAt is the primary the driver knew at t ("" none).
func PrimaryAt(changes []PrimaryChange, t time.Time) PrimaryChange {
	var p PrimaryChange
	for _, c := range changes {
		if c.At.After(t) {
			break
		}
		p = c
	}
	return p
}

// NewPrimaryAfter is when the driver first knew of a writable primary
// elected after t, before until: one with a greater electionId than the
// primary known at t, or at another address (so the same primary
// rediscovered after a blip is not a new one). ok is false when none.
func NewPrimaryAfter(changes []PrimaryChange, t, until time.Time) (time.Time, bool) {
	old := PrimaryAt(changes, t)
	for _, c := range changes {
		if !c.At.After(t) || c.Addr == "" {
			continue
		}
		if !c.At.Before(until) {
			break
		}
		if old.Addr == "" || c.Addr != old.Addr || c.ElectionID.Hex() > old.ElectionID.Hex() {
			return c.At, true
		}
	}
	return time.Time{}, false
}

// LostPrimaryAfter is when the driver first knew, after t, that the
// primary it knew at t was no longer one (no primary, another one, or a
// new election of the same member); ok is false when it did not.
func LostPrimaryAfter(changes []PrimaryChange, t time.Time) (time.Time, bool) {
	old := PrimaryAt(changes, t)
	for _, c := range changes {
		if c.At.After(t) && (c.Addr != old.Addr || c.ElectionID != old.ElectionID) {
			return c.At, true
		}
	}
	return time.Time{}, false
}

// StepDown sends replSetStepDown to the primary, through the loader's own
// client (read preference primary: RunCommand's default, so the driver
// selects the primary; MongoDB manual, replSetStepDown: "run on admin",
// only on the primary). Since MongoDB 4.2 the primary does not close every
// connection when it steps down, and the command answers; it waits up to
// catchUpSecs for an electable secondary to catch up (an error, e.g.
// ExceededTimeLimit 262, when none did) and may not be elected again for
// stepDownSecs. It returns when the command was sent and when it returned,
// and the primary it was sent to, as the driver knew it then.
func (c *Client) StepDown(ctx context.Context, stepDownSecs, catchUpSecs int) (sent, returned time.Time, primary string, err error) {
	if c.primaries != nil {
		primary = PrimaryAt(c.Primaries(), time.Now()).Addr
	}
	cmd := bson.D{{Key: "replSetStepDown", Value: stepDownSecs}, {Key: "secondaryCatchUpPeriodSecs", Value: catchUpSecs}}
	sent = time.Now()
	err = c.client.Database("admin").RunCommand(ctx, cmd).Err()
	returned = time.Now()
	if err != nil {
		return sent, returned, primary, fmt.Errorf("replSetStepDown: %w", err)
	}
	return sent, returned, primary, nil
}

// watcherMaxPool bounds a watcher's connections: a ping, and loader 0's
// replSetStepDown.
const watcherMaxPool = 2

// WatchReplicaSet connects to the replica set a disruption of a Sharded
// topology hits (a shard's, or the config server's, which the loader
// otherwise reaches only through mongos), with cfg's credentials, TLS and
// operation timeout: its driver's monitor records the set's primaries
// (Primaries, Secondary, as for the loader's own client with
// Config.Disruptions), and loader 0 sends StepDown through it. hosts are
// the members' host:port. It pings one member (any, read preference
// nearest: the set may be between primaries) so that an unreachable set,
// or credentials it refuses, fail the phase before its window with one
// clear message. ping, hello and replSetStepDown are among the commands
// MongoDB 8.0 still runs on a shard directly (MongoDB manual, Sharded Node
// Direct Commands); the shard's user is the bootstrap's
// (mongoadmin.RoleClusterManager).
func WatchReplicaSet(ctx context.Context, cfg Config, replSet string, hosts []string) (*Client, error) {
	prim := &primaries{}
	opts := options.Client().SetAppName(appName).SetHosts(hosts).SetReplicaSet(replSet).
		SetMaxPoolSize(watcherMaxPool).SetRetryWrites(false).SetRetryReads(false).
		SetServerMonitor(&event.ServerMonitor{TopologyDescriptionChanged: prim.topologyChanged})
	if cfg.Credential != nil {
		opts.SetAuth(*cfg.Credential)
	}
	mongotls.Apply(opts, cfg.TLS)
	client, err := mongo.Connect(opts)
	if err != nil {
		return nil, fmt.Errorf("replica set %s (%v): %w", replSet, hosts, err)
	}
	c := &Client{cfg: cfg, client: client, db: client.Database("admin"), primaries: prim}
	pctx, cancel := context.WithTimeout(ctx, cfg.OperationTimeout)
	defer cancel()
	if err := client.Ping(pctx, readpref.Nearest()); err != nil {
		_ = client.Disconnect(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("replica set %s, which a disruption hits (%v): %w", replSet, hosts, err)
	}
	return c, nil
}
