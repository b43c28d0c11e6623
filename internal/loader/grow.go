package loader

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/growth"
	"github.com/mongobench/mongobench/internal/loader/mongodb"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// `loader grow`: a Grow phase (internal/growth) against MongoDB, with the
// load and run phases' connection (mongodb.url and the binding's options),
// result destinations and telemetry.

// growthGroup is the -h section of the growth properties.
const growthGroup ycsb.Group = "Growth workload (internal/growth)"

// growGroups is the order of the sections of `loader grow -h`.
var growGroups = []ycsb.Group{growthGroup, ycsb.GroupCore, ycsb.GroupClient, mongodb.Group, ycsb.GroupLoader}

// defaultTable is YCSB's table, the collection bootstrap prepares.
const defaultTable = "usertable"

// GrowKnownProperties returns every property `loader grow` reads or
// accepts: the growth workload's (growth.KnownProperties), table and
// exportfile, the binding's (some ignored: the insert mode decides the
// write concern and the batches) and the loader's identity (one loader).
// Any other key draws an "unknown property" warning. The slice is the
// caller's.
func GrowKnownProperties() []ycsb.Property {
	props := make([]ycsb.Property, 0, len(growth.KnownProperties())+4+len(mongodb.KnownProperties()))
	for _, p := range growth.KnownProperties() {
		props = append(props, ycsb.Property{Name: p.Name, Default: p.Default, Meaning: p.Meaning, Group: growthGroup})
	}
	props = append(props,
		ycsb.Property{Name: "table", Default: defaultTable, Group: ycsb.GroupCore,
			Meaning: "the collection; the phase's state goes in <table>" + growth.StateCollectionSuffix},
		ycsb.Property{Name: "exportfile", Group: ycsb.GroupClient, Meaning: "file the text report goes to (unset: stdout)"},
		ycsb.Property{Name: "loader.index", Default: "JOB_COMPLETION_INDEX or 0", Group: ycsb.GroupLoader, Meaning: "must be 0"},
		ycsb.Property{Name: contract.PropLoaderCount, Default: "1", Group: ycsb.GroupLoader, Meaning: "must be 1: a Grow phase has one loader"},
	)
	for _, p := range mongodb.KnownProperties() {
		switch p.Name {
		case mongodb.PropWriteConcern:
			p.Ignored = "the insert mode (" + contract.PropGrowthInsertMode + ") decides the inserts' write concern; the phase's state is written w:1, j:true"
		case contract.PropBatchSize:
			p.Ignored = "a Grow phase's batches are " + contract.PropGrowthBatchSize
		case mongodb.PropUpsert:
			p.Ignored = "a Grow phase inserts"
		}
		props = append(props, p)
	}
	return props
}

// growCommand is a parsed `loader grow`, checked before connecting.
type growCommand struct {
	flags     *phaseFlags
	props     *ycsb.Properties
	cfg       growth.Config
	conn      mongodb.Config
	table     string
	telemetry *Telemetry
}

// GrowPhase is what a parsed `loader grow` will do.
type GrowPhase struct {
	// Workload is the growth workload, every property applied.
	Workload growth.Config
	// Database and Collection are where it grows (the URL's database,
	// table).
	Database, Collection string
}

// Grow is the Grow phase of a `loader grow` command line; nil for the
// other commands.
func (c *Command) Grow() *GrowPhase {
	if c.grow == nil {
		return nil
	}
	return &GrowPhase{Workload: c.grow.cfg, Database: c.grow.conn.Database, Collection: c.grow.table}
}

// parseGrowCommand parses and checks `loader grow` and prints the
// property warnings.
func parseGrowCommand(args []string, env Env) (*growCommand, error) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		if args[0] != "mongodb" {
			return nil, usagef("unknown database %q: this loader has the mongodb binding only", args[0])
		}
		args = args[1:]
	}
	f := &phaseFlags{}
	fs := newFlagSet(contract.CommandGrow, "[mongodb] [-P file ...] [-p name=value ...] [flags]", env)
	fs.Var(&f.files, "P", "properties `file`; repeatable, later files override earlier ones")
	fs.Var(&f.props, "p", "property `name=value`, repeatable; overrides the files")
	fs.StringVar(&f.result, "result", "", "write the encoded result (gzip JSON, results.Encode) to `FILE`; "+
		"- writes it to stdout and moves the text report to stderr")
	f.sink.register(fs)
	f.tel.register(fs)
	f.tls.register(fs)
	f.metrics.register(fs)
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			writePropertyHelpFor(env.Stderr, GrowKnownProperties(), growGroups)
		}
		return nil, err
	}
	p, err := ycsb.LoadProperties(f.files, f.props)
	if err != nil {
		return nil, usageError{err}
	}
	for _, w := range propertyWarningsFor(p, GrowKnownProperties()) {
		warn(env, w)
	}
	gc := &growCommand{flags: f, props: p, table: p.String("table", defaultTable)}
	index, count, err := loaderIdentity(p, env.Getenv)
	if err != nil {
		return nil, err
	}
	if count != 1 || index != 0 {
		return nil, usagef("a Grow phase has one loader: loader.count must be 1 (it is %d)", count)
	}
	if gc.cfg, err = growth.FromProperties(p.Get); err != nil {
		return nil, usageError{err}
	}
	if gc.conn, err = connectionConfig(p, env); err != nil {
		return nil, err
	}
	if gc.conn.Credential, err = adminCredential(env.Getenv); err != nil {
		return nil, err
	}
	if err := f.tls.check(); err != nil {
		return nil, err
	}
	if gc.table == "" {
		return nil, usagef("table: the collection's name is empty")
	}
	if gc.telemetry, err = f.tel.parse(env.Getenv); err != nil {
		return nil, err
	}
	if gc.telemetry == nil && f.tel.result != "" {
		return nil, usagef("--telemetry-result needs --%s or --%s", contract.FlagTelemetryProcess, contract.FlagTelemetryExternal)
	}
	return gc, nil
}

// describe is the phase's line in the log.
func (gc *growCommand) describe() string {
	c := &gc.cfg
	s := fmt.Sprintf("%d records into %s.%s, %d checkpoints (every %d), %s inserts", c.TargetRecords, gc.conn.Database, gc.table,
		growth.Checkpoints(c.TargetRecords, c.CheckpointEvery), c.CheckpointEvery, c.InsertMode)
	if c.InsertMode == results.InsertBatch {
		s += fmt.Sprintf(" of %d", c.BatchSize)
	}
	s += fmt.Sprintf(", %d insert threads", c.InsertThreads)
	if len(c.Queries) == 0 {
		return s + ", no queries"
	}
	return s + fmt.Sprintf(", queries %s for %v each with %d threads", strings.Join(c.Queries, ","), c.QueryDuration, c.QueryThreads)
}

// run runs the phase: opens its destinations, connects, grows the
// collection (resuming where an earlier loader stopped) and writes the
// text output and the result.
func (gc *growCommand) run(ctx context.Context, env Env) error {
	dst, err := openDestinations(gc.flags, gc.props, env, 0)
	if err != nil {
		return err
	}
	defer dst.close()
	live, err := gc.flags.metrics.start(ctx, 0, env)
	if err != nil {
		return fmt.Errorf("grow phase: %w", err)
	}
	defer live.close()
	if gc.conn.TLS, err = gc.flags.tls.load(); err != nil {
		return fmt.Errorf("grow phase: %w", err)
	}
	if gc.telemetry != nil {
		gc.telemetry.tls = gc.conn.TLS
	}
	client, err := mongodb.NewClient(ctx, gc.conn, env.Stderr)
	if err != nil {
		if ctx.Err() != nil {
			return signalExit(ctx, fmt.Errorf("grow phase: %w", err))
		}
		return fmt.Errorf("grow phase: %w", err)
	}
	store, err := growth.NewMongoStore(growth.MongoOptions{Client: client.Driver(), Database: client.Database(), Collection: gc.table,
		InsertMode: gc.cfg.InsertMode, OperationTimeout: gc.conn.OperationTimeout, Queries: gc.cfg.QuerySpecs()})
	if err != nil {
		return fmt.Errorf("grow phase: %w", err)
	}
	_, _ = fmt.Fprintf(env.Stderr, "%s: grow phase, %s\n", versionString(env), gc.describe())
	planned := int(growth.Checkpoints(gc.cfg.TargetRecords, gc.cfg.CheckpointEvery))
	var textErr error
	sampler := startTelemetry(ctx, gc.telemetry, 0, env, live)
	live.growPlanned(planned)
	// The loader's CPU over its part of the phase (a resumed phase's
	// result holds the last pod's): a saturated loader makes the run
	// invalid as in the YCSB phases.
	cpu := newCPUMeter("/")
	cpuStart := cpu.snapshot(time.Now())
	res, runErr := growth.Run(ctx, gc.cfg, store, growth.Options{
		Hostname: hostname(env), Log: env.Stderr, StopGrace: StopGrace,
		OnCheckpoint: func(row *results.GrowthCheckpoint, earlier bool) {
			live.checkpoint(row)
			if err := growth.WriteCheckpoint(dst.text, row, planned, earlier); err != nil && textErr == nil {
				textErr = err
			}
		},
	})
	cpuEnd := cpu.snapshot(time.Now())
	live.finish(0)
	tel := stopTelemetry(sampler, env)
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
	_ = client.Close(cctx) // the results are in; a failed disconnect changes nothing
	cancel()
	if res == nil { // nothing measured
		if ctx.Err() != nil {
			return signalExit(ctx, fmt.Errorf("grow phase: %w", runErr))
		}
		return fmt.Errorf("grow phase: %w", runErr)
	}
	res.Loaders = []results.LoaderStats{{Index: 0, Hostname: hostname(env), Start: cpuStart.at, CPU: cpu.usage(cpuStart, cpuEnd)}}
	var errs []error
	if textErr != nil {
		errs = append(errs, textErr)
	}
	if err := growth.WriteTextSummary(dst.text, res); err != nil {
		errs = append(errs, err)
	}
	if res.StopReason == results.StopCancelled && ctx.Err() != nil && dst.sink != nil {
		// Stopped (SIGTERM): the Job's next pod resumes the phase and
		// writes the result, which holds what this loader measured. The
		// ConfigMap is immutable and the Job may only create it: writing
		// a partial one now would leave that pod nowhere to write.
		warn(env, "stopped: the result ConfigMap is left to the loader that resumes the phase (the partial result goes to --result only)")
		dst.sink = nil
	}
	writeErr := dst.deliver(ctx, res, tel, env, errs)
	return growOutcome(ctx, res, runErr, writeErr)
}

// growOutcome decides the exit: a signal's code after a stop, a failure
// when the phase failed (an insert, the state) or a result was not
// written. Failed queries are measurements, not failures.
func growOutcome(ctx context.Context, res *results.Result, runErr, writeErr error) error {
	g := res.Growth
	where := fmt.Sprintf("after checkpoint %d of %d", len(g.Checkpoints), g.PlannedCheckpoints)
	if runErr != nil {
		msg := fmt.Sprintf("grow phase failed %s: %v; partial result reported; run the phase again to resume it", where, runErr)
		if writeErr != nil {
			msg += "; but: " + writeErr.Error()
		}
		if ctx.Err() != nil {
			return signalExit(ctx, errors.New(msg))
		}
		return errors.New(msg)
	}
	if res.StopReason == results.StopCancelled {
		msg := fmt.Sprintf("grow phase stopped %s; partial result reported; it resumes there when run again", where)
		if writeErr != nil {
			msg += "; but: " + writeErr.Error()
		}
		return signalExit(ctx, errors.New(msg))
	}
	return writeErr
}
