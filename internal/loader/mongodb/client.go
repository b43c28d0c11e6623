package mongodb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/mongotls"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// appName identifies the loader's connections in MongoDB's logs and
// currentOp (a URL's appName wins).
const appName = "mongobench-loader"

// driverDefaultMaxPoolSize is driver v2's default maxPoolSize.
const driverDefaultMaxPoolSize = 100

// driverDefaultServerSelectionTimeout is driver v2's default
// serverSelectionTimeoutMS (x/mongo/driver/topology), named in connection
// errors.
const driverDefaultServerSelectionTimeout = 30 * time.Second

// Client is the process's connection to MongoDB, shared by every worker
// thread as YCSB's MongoDbClient shares one static MongoClient: one
// connection pool, one topology monitor. Each thread gets its own DB from
// Factory, holding its buffers.
type Client struct {
	cfg      Config
	client   *mongo.Client
	db       *mongo.Database
	poolSize uint64
	log      io.Writer
	errs     *errorLog
	wd       *watchdog

	// attempts: the threads count their failed command attempts, and
	// primaries records the primaries (Config.Disruptions).
	attempts  bool
	primaries *primaries

	insertMany  *options.InsertManyOptionsBuilder
	replace     *options.ReplaceOptionsBuilder
	bulkUpserts *options.BulkWriteOptionsBuilder
}

// NewClient connects to cfg.URL and pings the server (bounded by
// cfg.OperationTimeout and the driver's server selection timeout), so that
// a wrong URL or an unreachable server fails here, with one clear message
// (connectError), rather than as an ERROR per operation. log
// receives the connection line and the first failed operations (nil:
// discarded).
func NewClient(ctx context.Context, cfg Config, log io.Writer) (*Client, error) {
	if log == nil {
		log = io.Discard
	}
	// retryWrites is false unless the URL says otherwise (ApplyURI sets
	// it only when the URL has the option: mongo/options/clientoptions.go,
	// `if connString.RetryWritesSet`): YCSB 0.17.0's binding, on Java
	// driver 3.8.0, wrote without retryable writes (they became the
	// drivers' default in Java 3.11.0, JAVA-3198, and Go 1.1.0,
	// GODRIVER-822), and with them every write through mongos carries a
	// txnNumber that a standalone's never does (see DefaultRetryWrites).
	opts := options.Client().SetAppName(appName).SetRetryWrites(DefaultRetryWrites).ApplyURI(cfg.URL)
	if cfg.Credential != nil {
		// After ApplyURI: it replaces a credential of the URL.
		opts.SetAuth(*cfg.Credential)
	}
	mongotls.Apply(opts, cfg.TLS)
	var prim *primaries
	if cfg.Disruptions {
		// Only then: without disruptions the driver runs without
		// monitors, as it always did.
		prim = &primaries{}
		opts.SetMonitor(&event.CommandMonitor{Failed: commandFailed})
		opts.SetServerMonitor(&event.ServerMonitor{TopologyDescriptionChanged: prim.topologyChanged})
	}
	if n := cfg.PoolConnections(opts.MaxPoolSize); n > 0 && !urlOptionKeys(cfg.URL)["minpoolsize"] {
		// The connections HoldConnections opens stay open; a bigger
		// minPoolSize would have the driver open more, 10 every 10 s,
		// inside the measured window.
		opts.SetMinPoolSize(uint64(n))
	}
	client, err := mongo.Connect(opts) // v2: validates the URL, no I/O yet
	if err != nil {
		return nil, fmt.Errorf("%s %s: %s", cfg.Source(), cfg.Shown(), hideUser(hidePassword(err.Error(), cfg.URL), cfg.URL))
	}
	c := &Client{
		cfg:         cfg,
		client:      client,
		db:          client.Database(cfg.Database),
		poolSize:    driverDefaultMaxPoolSize,
		log:         log,
		errs:        newErrorLog(log),
		insertMany:  options.InsertMany().SetOrdered(false),
		replace:     options.Replace().SetUpsert(true),
		bulkUpserts: options.BulkWrite().SetOrdered(false),
		wd:          newWatchdog(cfg.OperationTimeout),
		attempts:    cfg.Disruptions,
		primaries:   prim,
	}
	if opts.MaxPoolSize != nil {
		c.poolSize = *opts.MaxPoolSize
	}
	pctx, cancel := context.WithTimeout(ctx, cfg.OperationTimeout)
	defer cancel()
	start := time.Now()
	if err := client.Ping(pctx, nil); err != nil {
		_ = c.Close(context.WithoutCancel(ctx))
		if ctx.Err() != nil { // stopped by a signal: not a failure to explain
			return nil, fmt.Errorf("connect to %s: %w", urlHosts(cfg.URL), err)
		}
		return nil, connectError(cfg, opts.ServerSelectionTimeout, time.Since(start), err)
	}
	if err := c.checkAccess(pctx); err != nil {
		_ = c.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	// YCSB prints "mongo client connection created with <url>".
	as := ""
	if cfg.Credential != nil {
		as = " as " + cfg.Credential.Username
	}
	_, _ = fmt.Fprintf(log, "mongodb: connected with %s%s (database %s, batchsize %d, upsert %t, retryWrites %t, operation timeout %v)\n",
		cfg.Shown(), as, cfg.Database, cfg.BatchSize, cfg.Upsert, *opts.RetryWrites, cfg.OperationTimeout)
	return c, nil
}

// Error codes of access control (src/mongo/base/error_codes.yml in
// mongodb/mongo).
const (
	codeUnauthorized         = 13
	codeAuthenticationFailed = 18
)

// checkAccess asks the server for something that needs an authenticated
// connection, so that a server with access control and a loader without
// credentials (or with a user that may not read the database) fail here,
// once, rather than as an ERROR per operation for a whole phase: ping,
// which the first connection sent, does not need one (PingCommand's
// requiresAuth() is false, src/mongo/db/commands/generic.cpp in
// mongodb/mongo), while listCollections does (13 Unauthorized "Command
// listCollections requires authentication", src/mongo/db/commands.cpp).
// The filter matches no collection (none is named ""). Any other error is
// left for the operations to meet: the check is about access only.
func (c *Client) checkAccess(ctx context.Context) error {
	_, err := c.db.ListCollectionNames(ctx, bson.D{{Key: "name", Value: ""}})
	var se mongo.ServerError
	if err == nil || !errors.As(err, &se) || (!se.HasErrorCode(codeUnauthorized) && !se.HasErrorCode(codeAuthenticationFailed)) {
		return nil
	}
	as := "without credentials (" + contract.EnvUsername + " and " + contract.EnvPassword + " are not set)"
	if c.cfg.Credential != nil {
		as = "as " + c.cfg.Credential.Username
	}
	return fmt.Errorf("MongoDB at %s (%s) refuses the loader, connected %s: %w", urlHosts(c.cfg.URL), c.cfg.Source(), as, err)
}

// connectError explains a failed first ping: where the loader tried
// (hosts only: the URL may hold a password), for how long, and, when it
// gave up waiting, what set the wait. Two bounds apply: the ping's context
// (mongodb.operationtimeout) and the driver's server selection
// (serverSelectionTimeoutMS, from the URL or the driver's default); the
// shorter one ends the wait.
func connectError(cfg Config, serverSelection *time.Duration, waited time.Duration, err error) error {
	where := fmt.Sprintf("MongoDB at %s (%s)", urlHosts(cfg.URL), cfg.Source())
	waited = roundWait(waited)
	if !mongo.IsTimeout(err) {
		// Refused by the server (authentication, TLS, ...): the wait is
		// not the problem.
		if cfg.Credential != nil {
			where += " as " + cfg.Credential.Username
		}
		return fmt.Errorf("cannot connect to %s after %v: %w", where, waited, err)
	}
	op := cfg.OperationTimeout
	opDesc := fmt.Sprintf("%s (%v)", PropOperationTimeout, op)
	sst := driverDefaultServerSelectionTimeout
	sstDesc := fmt.Sprintf("serverSelectionTimeoutMS in %s (default %v)", cfg.Source(), sst)
	if serverSelection != nil && *serverSelection > 0 {
		sst = *serverSelection
		sstDesc = fmt.Sprintf("serverSelectionTimeoutMS in %s (%v)", cfg.Source(), sst)
	}
	setBy := opDesc + " and " + sstDesc // equal: only raising both waits longer
	switch {
	case op < sst:
		setBy = opDesc
	case sst < op:
		setBy = sstDesc
	}
	return fmt.Errorf("cannot reach %s after %v: %w; the wait is set by %s", where, waited, err, setBy)
}

// roundWait rounds a measured wait for a message: "300ms", "30s".
func roundWait(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(10 * time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}

// PoolConnections is the number of connections the pool is to hold for
// cfg.Threads threads with this maxPoolSize (nil: the driver's default, 0:
// unbounded); 0 without Threads.
func (cfg Config) PoolConnections(maxPoolSize *uint64) int {
	n := cfg.Threads
	size := uint64(driverDefaultMaxPoolSize)
	if maxPoolSize != nil {
		size = *maxPoolSize
	}
	if size > 0 && uint64(n) > size {
		n = int(size)
	}
	return n
}

// PoolSize is the pool's maxPoolSize (0: unbounded).
func (c *Client) PoolSize() uint64 { return c.poolSize }

// Factory returns the ycsb.DBFactory that hands each worker thread its DB.
// Opening a DB pings the server once, so that an unreachable server fails
// the phase before its clock starts. It does not fill the pool: concurrent
// short commands share the connections already idle (HoldConnections
// does that).
func (c *Client) Factory() ycsb.DBFactory {
	return func(ctx context.Context, thread, threads int) (ycsb.DB, error) {
		if thread == 0 && c.poolSize > 0 && uint64(threads) > c.poolSize {
			_, _ = fmt.Fprintf(c.log, "mongodb: warning: %d threads share a pool of %d connections (maxPoolSize): "+
				"threads will wait for connections; raise mongodb.maxconnections or maxPoolSize\n", threads, c.poolSize)
		}
		d := c.NewDB()
		pctx, cancel := context.WithTimeout(ctx, c.cfg.OperationTimeout)
		defer cancel()
		if err := c.client.Ping(pctx, nil); err != nil {
			return nil, fmt.Errorf("ping: %w", err)
		}
		return d, nil
	}
}

// Close disconnects from the server. Call it after ycsb.Run returned (every
// thread's Cleanup has flushed by then).
func (c *Client) Close(ctx context.Context) error {
	if c.wd != nil { // a watcher (WatchReplicaSet) has none
		c.wd.close()
	}
	if err := c.client.Disconnect(ctx); err != nil {
		return fmt.Errorf("disconnect: %w", err)
	}
	return nil
}

// FirstError returns the first failed operation ("" if none) and the number
// of unsuccessful operations the binding saw.
func (c *Client) FirstError() (string, int64) { return c.errs.First() }

// Driver returns the driver's client: for workloads other than YCSB's
// (internal/growth, `loader grow`) that connect as the binding does.
func (c *Client) Driver() *mongo.Client { return c.client }

// Database returns the benchmark database's name.
func (c *Client) Database() string { return c.cfg.Database }

// collectionCache maps table names to collections for one thread. Workloads
// use one table, so the first entry is all there is.
type collectionCache struct {
	db    *mongo.Database
	name  string
	coll  *mongo.Collection
	other map[string]*mongo.Collection
}

func (cc *collectionCache) get(table string) *mongo.Collection {
	if cc.coll != nil && table == cc.name {
		return cc.coll
	}
	if cc.coll == nil {
		cc.name, cc.coll = table, cc.db.Collection(table)
		return cc.coll
	}
	if c, ok := cc.other[table]; ok {
		return c
	}
	if cc.other == nil {
		cc.other = map[string]*mongo.Collection{}
	}
	c := cc.db.Collection(table)
	cc.other[table] = c
	return c
}

// projectionCache holds the projection documents of a thread's reads and
// scans, boxed once (assigning a bson.Raw to the options' `any` field would
// allocate per operation). Reads project one random field (readallfields
// false) or all fields by name (dataintegrity, readallfieldsbyname); both
// repeat from a small set.
type projectionCache struct {
	single map[string]any
	last   []string
	lastP  any
}

func (pc *projectionCache) get(fields []string) any {
	if fields == nil {
		return nil
	}
	if len(fields) == 1 {
		if p, ok := pc.single[fields[0]]; ok {
			return p
		}
		if pc.single == nil {
			pc.single = map[string]any{}
		}
		p := any(projection(fields))
		pc.single[strings.Clone(fields[0])] = p
		return p
	}
	if equalStrings(pc.last, fields) {
		return pc.lastP
	}
	pc.last = append(pc.last[:0], fields...)
	pc.lastP = projection(fields)
	return pc.lastP
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
