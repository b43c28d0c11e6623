package mongoadmin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// runner holds what one Bootstrap or ApplyValidator call shares: options,
// the deadline and one Commander per connection string.
type runner struct {
	opts     Options
	log      *slog.Logger
	deadline time.Time
	conns    map[string]Commander
	// endpoints maps a name the steps use for a server (a host:port of a
	// topology mongobench deployed) to the connection string that reaches
	// it, for the servers not reached by DirectURI: an external cluster's
	// entry point, named by its hosts and reached through the user's
	// connection string (external.go). See endpoint.
	endpoints map[string]string
	// legacyMoves is set once the server answered moveRange with 59
	// CommandNotFound (before 6.0): later moves use moveChunk at once.
	legacyMoves bool
}

// newRunner starts the clock of one call. The returned context carries the
// overall timeout too, as a real-time backstop for the clock-based deadline.
func newRunner(ctx context.Context, opts Options) (*runner, context.Context, context.CancelFunc) {
	opts = opts.withDefaults()
	r := &runner{
		opts:      opts,
		log:       opts.Logger,
		deadline:  opts.clock.Now().Add(opts.Timeout),
		conns:     map[string]Commander{},
		endpoints: map[string]string{},
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	return r, ctx, cancel
}

// close disconnects every client the call opened.
func (r *runner) close() {
	for uri, c := range r.conns {
		ctx, cancel := context.WithTimeout(context.Background(), r.opts.CallTimeout)
		if err := c.Close(ctx); err != nil {
			r.log.Warn("disconnect", "server", redactURI(uri), "err", err)
		}
		cancel()
	}
}

// conn returns the Commander for a connection string, dialing it once.
func (r *runner) conn(uri string) (Commander, error) {
	if c, ok := r.conns[uri]; ok {
		return c, nil
	}
	c, err := r.opts.Dial(uri)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", redactURI(uri), err)
	}
	r.conns[uri] = c
	return c, nil
}

// run sends one command to the server at uri under its own timeout.
func (r *runner) run(ctx context.Context, uri, db string, cmd bson.D) (bson.Raw, error) {
	return boundedCall(ctx, r, uri, cmd, func(ctx context.Context, c Commander) (bson.Raw, error) {
		return c.RunCommand(ctx, db, cmd)
	})
}

// boundedCall makes one call (f) of cmd on the server at uri: under its own
// CallTimeout, a failure a commandError naming the server and command.
// Every command and cursor goes through it, so all are bounded and
// reported alike.
func boundedCall[T any](ctx context.Context, r *runner, uri string, cmd bson.D, f func(context.Context, Commander) (T, error)) (T, error) {
	var zero T
	c, err := r.conn(uri)
	if err != nil {
		return zero, err
	}
	cctx, cancel := context.WithTimeout(ctx, r.opts.CallTimeout)
	defer cancel()
	out, err := f(cctx, c)
	if err != nil {
		return zero, &commandError{target: redactURI(uri), command: cmd[0].Key, err: err, hint: accessHint(err)}
	}
	return out, nil
}

// runAdmin runs an admin command on a host:port of the topology.
func (r *runner) runAdmin(ctx context.Context, host string, cmd bson.D) (bson.Raw, error) {
	return r.run(ctx, r.endpoint(host), adminDB, cmd)
}

// endpoint is the connection string of a server the steps name by host:
// DirectURI(host) for the processes of a topology mongobench deployed, the
// user's connection string for an external cluster's entry point.
func (r *runner) endpoint(host string) string {
	if uri, ok := r.endpoints[host]; ok {
		return uri
	}
	return DirectURI(host)
}

// retry runs op until it returns nil or a permanent error, retrying
// transient errors until the deadline. step names what is being done, for
// the log and for the error.
func (r *runner) retry(ctx context.Context, step string, op func(context.Context) error) error {
	start := r.opts.clock.Now()
	var lastLog time.Time
	backoff := r.opts.PollInterval
	for attempt := 1; ; attempt++ {
		err := op(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return r.giveUp(step, ctx.Err(), attempt, start, err)
		}
		if !isTransient(err) {
			return fmt.Errorf("%s: %w", step, err)
		}
		// A state that is on its way is polled at the poll interval; an
		// error backs off, doubling up to maxBackoff.
		wait := r.opts.PollInterval
		if !errors.As(err, &notYetError{}) {
			wait = backoff
			backoff = min(2*backoff, maxBackoff)
		}
		now := r.opts.clock.Now()
		if now.Add(wait).After(r.deadline) {
			return r.giveUp(step, context.DeadlineExceeded, attempt, start, err)
		}
		// One line when the wait starts and then one every 10 s, so the log
		// says what is awaited without a line per poll.
		if attempt == 1 || now.Sub(lastLog) >= 10*time.Second {
			r.log.Info("waiting", "step", step, "reason", err.Error(), "attempt", attempt)
			lastLog = now
		}
		if serr := r.opts.clock.Sleep(ctx, wait); serr != nil {
			return r.giveUp(step, serr, attempt, start, err)
		}
	}
}

// giveUp is the error of a step that ran out of time (or was canceled),
// with the last error seen, so the log says what was still awaited.
func (r *runner) giveUp(step string, cause error, attempts int, start time.Time, last error) error {
	if errors.Is(cause, context.DeadlineExceeded) {
		return fmt.Errorf("%s: not done within the timeout of %v (%w after %d attempts in %v); last error: %w",
			step, r.opts.Timeout, cause, attempts, r.opts.clock.Now().Sub(start).Round(time.Millisecond), last)
	}
	return fmt.Errorf("%s: %w; last error: %w", step, cause, last)
}

// cursorAll runs a command that returns a cursor (find, aggregate,
// listCollections) and reads the cursor to its end, within one call
// timeout (Commander.RunCursor says how its getMores differ from other
// commands).
func (r *runner) cursorAll(ctx context.Context, uri, db string, cmd bson.D) ([]bson.Raw, error) {
	return boundedCall(ctx, r, uri, cmd, func(ctx context.Context, c Commander) ([]bson.Raw, error) {
		return c.RunCursor(ctx, db, cmd)
	})
}

// helloReply is the part of hello (or the legacy isMaster) used here.
type helloReply struct {
	IsWritablePrimary bool     `bson:"isWritablePrimary"`
	IsMaster          bool     `bson:"ismaster"` // legacy isMaster
	SetName           string   `bson:"setName"`
	Hosts             []string `bson:"hosts"`
	Msg               string   `bson:"msg"` // "isdbgrid" on a mongos
	Primary           string   `bson:"primary"`
	// IsReplicaSet is set by a member started with --replSet that has no
	// config yet.
	IsReplicaSet bool `bson:"isreplicaset"`
}

func (h helloReply) writable() bool { return h.IsWritablePrimary || h.IsMaster }

// hello asks a server what it is. Servers without the hello command (before
// 4.4.2, and mongo-java-server, which the tests use) get isMaster.
func (r *runner) hello(ctx context.Context, uri string) (helloReply, error) {
	var h helloReply
	reply, err := r.run(ctx, uri, adminDB, simpleCommand("hello"))
	if hasCode(err, codeCommandNotFound) {
		reply, err = r.run(ctx, uri, adminDB, simpleCommand("isMaster"))
	}
	if err != nil {
		return h, err
	}
	if err := bson.Unmarshal(reply, &h); err != nil {
		return h, fmt.Errorf("hello on %s: decode: %w", redactURI(uri), err)
	}
	return h, nil
}

// buildInfo asks buildInfo for the server's version and build.
func (r *runner) buildInfo(ctx context.Context, uri string) (buildInfo, error) {
	var bi buildInfo
	err := r.retry(ctx, "read server version", func(ctx context.Context) error {
		reply, err := r.run(ctx, uri, adminDB, simpleCommand("buildInfo"))
		if err != nil {
			return err
		}
		v, ok := reply.Lookup("version").StringValueOK()
		if !ok || v == "" {
			return fmt.Errorf("buildInfo on %s: no version in %s", redactURI(uri), reply)
		}
		bi = buildInfo{version: v}
		bi.gitVersion, _ = reply.Lookup("gitVersion").StringValueOK()
		bi.allocator, _ = reply.Lookup("allocator").StringValueOK()
		bi.openssl, _ = reply.Lookup("openssl", "running").StringValueOK()
		return nil
	})
	return bi, err
}
