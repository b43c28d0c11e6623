package telemetry

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/results"
)

// Defaults of Config.
const (
	// DefaultInterval is the sampling interval (spec.telemetry.interval's
	// default).
	DefaultInterval = time.Second
	// DefaultTimeout bounds each call to a process.
	DefaultTimeout = 5 * time.Second
	// DefaultCollectionEvery is the interval of collection statistics during
	// Load phases.
	DefaultCollectionEvery = 10 * time.Second
)

// serverStatusCommand leaves out the sections nothing here reads that cost
// the server the most to build (the example of MongoDB's own serverStatus
// documentation); a server that does not know an exclusion ignores it.
// repl is read (ReplView): for a member it is its hello reply, a few
// hundred bytes for the one-member sets of a benchmark topology, and a
// standalone mongod or a mongos has none.
var serverStatusCommand = bson.D{
	{Key: "serverStatus", Value: 1},
	{Key: "metrics", Value: 0},
	{Key: "locks", Value: 0},
}

// Process is one MongoDB process to sample.
type Process struct {
	// Role is standalone, configsvr, shard or mongos.
	Role string
	// Pod runs the process.
	Pod string
	// Client is connected to this process alone (directConnection=true).
	// When nil, the Sampler connects to URI itself and disconnects at Stop.
	Client *mongo.Client
	URI    string
	// Options, when Client is nil and URI empty, are the client options
	// the Sampler connects with (an external cluster's host:
	// DirectOptions), credential included: Config.Credential does not
	// apply to them.
	Options *options.ClientOptions
}

// CollectionTarget is the benchmark collection, whose storage statistics
// are taken at the end of the phase and optionally during it.
type CollectionTarget struct {
	// Client reaches the collection: mongos for a sharded cluster, else the
	// mongod. When nil, the Sampler connects to URI itself.
	Client *mongo.Client
	URI    string

	Database   string
	Collection string
	// Every takes statistics during the phase as well, every Every (e.g.
	// DefaultCollectionEvery in Load phases); 0 takes them only at the end.
	Every time.Duration
}

// Config says what to sample and how often.
type Config struct {
	// Interval between serverStatus samples of each process; DefaultInterval
	// when not positive.
	Interval time.Duration
	// Timeout bounds each call; DefaultTimeout when not positive.
	Timeout   time.Duration
	Processes []Process
	// Collection, when set, is the collection to take statistics of.
	Collection *CollectionTarget
	// Credential, when set, authenticates the clients the Sampler opens
	// from a URI (the driver's SetAuth, after the URI); clients given are
	// used as they are.
	Credential *options.Credential
	// OnSample, when set, is handed each sample as it is taken (the
	// loader's live metrics), from the process's sampling goroutine:
	// concurrently for several processes. The sample is the caller's
	// only for the call.
	OnSample func(Process, *Sample)
}

// Payload is what a Sampler gathered over a phase.
type Payload struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Processes are in the order of Config.Processes.
	Processes []ProcessPayload `json:"processes"`
	// Collection is nil when Config.Collection was.
	Collection *CollectionPayload `json:"collection,omitempty"`
}

// ProcessPayload is one process's telemetry and the errors sampling it.
type ProcessPayload struct {
	Role   string `json:"role"`
	Pod    string `json:"pod"`
	Series Series `json:"series"`
	// Errors counts failed samples; LastError is the last failure.
	Errors    int    `json:"errors,omitempty"`
	LastError string `json:"lastError,omitempty"`
}

// Summary condenses the process's series.
func (p *ProcessPayload) Summary() Summary { return Summarize(p.Role, p.Pod, &p.Series) }

// CollectionPayload holds the collection statistics of a phase.
type CollectionPayload struct {
	// Final are the statistics at the end of the phase; nil when they could
	// not be taken (LastError says why).
	Final *CollectionStats `json:"final,omitempty"`
	// Growth are the statistics taken during the phase, oldest first, at
	// most results.MaxSeriesPoints of them: when more would be kept, every
	// other one is dropped and the interval doubles.
	Growth []CollectionStats `json:"growth,omitempty"`
	// Errors counts failed attempts; LastError is the last failure.
	Errors    int    `json:"errors,omitempty"`
	LastError string `json:"lastError,omitempty"`
}

// Sampler samples serverStatus of several processes, each in a goroutine of
// its own on its own ticker (a slow or unreachable process delays no other),
// until Stop. It never fails and never panics into its caller: a failed
// sample or connection is counted and remembered in the payload, and
// sampling goes on, but for a server that refuses the credential or the
// command (accessDenied), which is not asked again. Memory is bounded (results.MaxSeriesPoints points per
// process) whatever the phase's length.
type Sampler struct {
	cfg    Config
	start  time.Time
	cancel context.CancelFunc
	wg     sync.WaitGroup

	procs []*processSampler
	coll  *collectionSampler

	stopOnce sync.Once
	payload  *Payload
}

// Start begins sampling now: a first sample of every process at once, then
// one every interval, until ctx ends or Stop is called.
func Start(ctx context.Context, cfg Config) *Sampler {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &Sampler{cfg: cfg, start: time.Now(), cancel: cancel}
	for _, p := range cfg.Processes {
		ps := &processSampler{proc: p, builder: NewSeriesBuilder(s.start, cfg.Interval), onSample: cfg.OnSample}
		if p.Client == nil && p.URI == "" && p.Options != nil {
			ps.client, ps.owned, ps.err = connectOptions(p.Pod, p.Options)
		} else {
			ps.client, ps.owned, ps.err = connect(p.Pod, p.Client, p.URI, cfg.Credential)
		}
		s.procs = append(s.procs, ps)
		s.wg.Go(func() { ps.run(ctx, cfg.Interval, cfg.Timeout) })
	}
	if t := cfg.Collection; t != nil {
		cs := &collectionSampler{target: *t, stride: 1}
		cs.client, cs.owned, cs.err = connect(t.Database+"."+t.Collection, t.Client, t.URI, cfg.Credential)
		s.coll = cs
		s.wg.Go(func() { cs.run(ctx, cfg.Timeout) })
	}
	return s
}

// Run samples until ctx ends and returns the payload.
func Run(ctx context.Context, cfg Config) *Payload {
	s := Start(ctx, cfg)
	<-ctx.Done()
	return s.Stop()
}

// Stop ends sampling: it takes a last sample of every process and the
// final collection statistics (each within the timeout, even when the
// context given to Start has ended), disconnects the clients the Sampler
// opened, and returns the payload. Later calls return the same payload.
func (s *Sampler) Stop() *Payload {
	s.stopOnce.Do(func() {
		s.cancel()
		s.wg.Wait()
		r := &Payload{Start: s.start, End: time.Now()}
		for _, p := range s.procs {
			r.Processes = append(r.Processes, p.payload())
		}
		if s.coll != nil {
			r.Collection = &s.coll.payload
		}
		s.payload = r
	})
	return s.payload
}

// connect returns the client to use, and whether the Sampler owns it.
// Errors name the process, never the URI, which may hold credentials.
func connect(name string, client *mongo.Client, uri string, cred *options.Credential) (*mongo.Client, bool, error) {
	if client != nil {
		return client, false, nil
	}
	if uri == "" {
		return nil, false, errors.New("no client and no URI")
	}
	opts := options.Client().ApplyURI(uri)
	if cred != nil {
		opts.SetAuth(*cred)
	}
	c, err := mongo.Connect(opts)
	if err != nil {
		return nil, false, fmt.Errorf("connect to %s: %w", name, err)
	}
	return c, true, nil
}

// connectOptions connects with opts; the Sampler owns the client.
func connectOptions(name string, opts *options.ClientOptions) (*mongo.Client, bool, error) {
	c, err := mongo.Connect(opts)
	if err != nil {
		return nil, false, fmt.Errorf("connect to %s: %w", name, err)
	}
	return c, true, nil
}

// disconnect closes a client the Sampler opened.
func disconnect(c *mongo.Client, owned bool, timeout time.Duration) {
	if c == nil || !owned {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	_ = c.Disconnect(ctx) // nothing is left to do with a client that fails to close
}

// final returns a context for the last calls after ctx has ended. It has
// no deadline of its own: each call is bounded by the timeout, and a call
// that runs out of it is a failure to report (a process that never
// answered during a phase shorter than the timeout shows its error), not
// the end of the phase.
func final(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

// processSampler samples one process. Only its goroutine touches it until
// Stop has waited for that goroutine.
type processSampler struct {
	proc    Process
	client  *mongo.Client
	owned   bool
	builder *SeriesBuilder
	errors  int
	err     error // the last error
	// denied is set once the process refused the credential or the
	// command (accessDenied): sampling it stops there.
	denied   bool
	onSample func(Process, *Sample)
}

func (p *processSampler) run(ctx context.Context, interval, timeout time.Duration) {
	defer disconnect(p.client, p.owned, timeout)
	if p.client == nil {
		p.errors++
		return
	}
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	p.sample(ctx, timeout)
	for !p.denied {
		select {
		case <-ctx.Done():
			p.sample(final(ctx), timeout)
			return
		case <-ticker.C:
			p.sample(ctx, timeout)
		}
	}
}

// sample takes one serverStatus. A failure while ctx ends (the phase is
// over) is not an error: the last sample follows.
func (p *processSampler) sample(ctx context.Context, timeout time.Duration) {
	defer func() {
		if r := recover(); r != nil {
			p.errors++
			p.err = fmt.Errorf("serverStatus of %s: panic: %v", p.proc.Pod, r)
		}
	}()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t0 := time.Now()
	doc, err := p.client.Database("admin").RunCommand(cctx, serverStatusCommand).Raw()
	if err != nil {
		if ctx.Err() == nil {
			p.errors++
			p.err = fmt.Errorf("serverStatus of %s: %w", p.proc.Pod, err)
			p.denied = accessDenied(err)
		}
		return
	}
	// The server took the sample about halfway through the round trip.
	s := Extract(doc, t0.Add(time.Since(t0)/2))
	if s.Repl.WritablePrimary {
		// The primary's view of its secondaries (ReplLagMillis); a failed
		// replSetGetStatus leaves this sample without a lag, and is no
		// sample error: serverStatus answered.
		if st, err := p.client.Database("admin").RunCommand(cctx, replSetGetStatusCommand).Raw(); err == nil {
			if lag, ok := ReplLagMillis(st); ok {
				s.ReplLagMillis = Opt[int64]{V: lag, Valid: true}
			}
		}
	}
	p.builder.Add(&s)
	if p.onSample != nil {
		p.onSample(p.proc, &s)
	}
}

func (p *processSampler) payload() ProcessPayload {
	r := ProcessPayload{Role: p.proc.Role, Pod: p.proc.Pod, Series: p.builder.Series(), Errors: p.errors}
	if p.err != nil {
		r.LastError = p.err.Error()
	}
	return r
}

// collectionSampler takes the collection statistics.
type collectionSampler struct {
	target CollectionTarget
	client *mongo.Client
	owned  bool
	err    error // a connection error
	// Only every stride-th tick (counted from 0) is taken; stride doubles
	// whenever Growth is thinned, so the kept entries stay evenly spaced.
	stride, tick int
	payload      CollectionPayload
	// denied is set once the server refused the credential or the command
	// (accessDenied): no statistics are asked for after that.
	denied bool
}

func (c *collectionSampler) run(ctx context.Context, timeout time.Duration) {
	defer disconnect(c.client, c.owned, timeout)
	if c.client == nil {
		c.fail(c.err)
		return
	}
	if c.target.Every > 0 {
		ticker := time.NewTicker(c.target.Every)
		defer ticker.Stop()
	loop:
		for !c.denied {
			select {
			case <-ctx.Done():
				break loop
			case <-ticker.C:
				if !c.due() {
					continue
				}
				if st, ok := c.take(ctx, timeout); ok {
					c.grow(st)
				}
			}
		}
	}
	<-ctx.Done()
	if c.denied {
		return
	}
	if st, ok := c.take(final(ctx), timeout); ok {
		c.payload.Final = &st
	}
}

func (c *collectionSampler) take(ctx context.Context, timeout time.Duration) (st CollectionStats, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			c.fail(fmt.Errorf("collection statistics: panic: %v", r))
			ok = false
		}
	}()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	st, err := CollStats(cctx, c.client, c.target.Database, c.target.Collection)
	if err != nil {
		if ctx.Err() == nil {
			c.fail(err)
			c.denied = accessDenied(err)
		}
		return CollectionStats{}, false
	}
	return st, true
}

// due counts a tick and reports whether to take statistics at it.
func (c *collectionSampler) due() bool {
	d := c.tick%c.stride == 0
	c.tick++
	return d
}

// grow keeps st in Growth, thinning it to every other entry (and taking
// only every other tick from then on) when it is full.
func (c *collectionSampler) grow(st CollectionStats) {
	c.payload.Growth = append(c.payload.Growth, st)
	if len(c.payload.Growth) < results.MaxSeriesPoints {
		return
	}
	kept := c.payload.Growth[:0]
	for i := 0; i < len(c.payload.Growth); i += 2 {
		kept = append(kept, c.payload.Growth[i])
	}
	clear(c.payload.Growth[len(kept):])
	c.payload.Growth = kept
	c.stride *= 2
}

func (c *collectionSampler) fail(err error) {
	c.payload.Errors++
	c.payload.LastError = err.Error()
}

// Error codes of access control (src/mongo/base/error_codes.yml in
// mongodb/mongo).
const (
	codeUnauthorized         = 13
	codeAuthenticationFailed = 18
)

// accessDenied tells whether err is the server refusing the credential
// (18 AuthenticationFailed, which the driver reports from the handshake of
// the connection) or the command (13 Unauthorized: no credential, or a
// role without the privilege). Neither passes by asking again, and every
// refused attempt is a line in the server's log.
func accessDenied(err error) bool {
	var se mongo.ServerError
	return errors.As(err, &se) && (se.HasErrorCode(codeAuthenticationFailed) || se.HasErrorCode(codeUnauthorized))
}
