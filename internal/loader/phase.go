package loader

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/loader/mongodb"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/telemetry"
	"github.com/mongobench/mongobench/internal/ycsb"
)

const (
	phaseLoad = ycsb.PhaseLoad
	phaseRun  = ycsb.PhaseRun
)

// StopGrace is how long operations in flight, and the final flush, may run
// on after a stop (maxexecutiontime, SIGTERM) before they are cancelled.
// Shorter than the engine's default so that a SIGTERM's partial result is
// written well within Kubernetes' 30 s termination grace period.
const StopGrace = 5 * time.Second

// closeTimeout bounds disconnecting from MongoDB after a run.
const closeTimeout = 10 * time.Second

// coreWorkloadClasses are the values of YCSB's "workload" property that this
// loader implements.
var coreWorkloadClasses = []string{"site.ycsb.workloads.CoreWorkload", "com.yahoo.ycsb.workloads.CoreWorkload"}

// textExporters are the values of YCSB's "exporter" property that this
// loader implements (the text report).
var textExporters = []string{"site.ycsb.measurements.exporter.TextMeasurementsExporter",
	"com.yahoo.ycsb.measurements.exporter.TextMeasurementsExporter"}

type phaseFlags struct {
	files   stringList
	props   stringList
	threads int
	target  int64
	status  bool
	label   string
	result  string
	sink    resultFlags
	tel     telemetryFlags
	// barrier is --start-barrier: the Job whose start barrier to wait at.
	barrier string
	tls     tlsFlags
	metrics metricsFlags
	// disruptions are --disruption: measured by every loader, acted on
	// by loader 0.
	disruptions disruptionFlags
}

// phaseCommand is a parsed `loader load|run`: its flags, its properties
// and everything prepared from them, checked before connecting.
type phaseCommand struct {
	phase    ycsb.Phase
	flags    *phaseFlags
	props    *ycsb.Properties
	prepared *preparedPhase
	// telemetry is nil when none is asked for.
	telemetry *Telemetry
}

// parsePhaseCommand parses and checks `loader load|run`, bin/ycsb load|run
// mongodb, and prints the property warnings.
func parsePhaseCommand(phase ycsb.Phase, args []string, env Env) (*phaseCommand, error) {
	f, p, err := parsePhaseArgs(phase, args, env)
	if err != nil {
		return nil, err
	}
	// Before preparePhase, so that a typo is pointed out even when another
	// property is rejected.
	for _, w := range propertyWarnings(p) {
		warn(env, w)
	}
	pr, err := preparePhase(phase, p, env)
	if err != nil {
		return nil, err
	}
	tel, err := f.tel.parse(env.Getenv)
	if err != nil {
		return nil, err
	}
	if err := f.tls.check(); err != nil {
		return nil, err
	}
	if tel == nil && f.tel.result != "" {
		return nil, usagef("--telemetry-result needs --%s or --%s", contract.FlagTelemetryProcess, contract.FlagTelemetryExternal)
	}
	if len(f.disruptions) > 0 {
		pr.opts.Disruptions = f.disruptions.specs()
		pr.cfg.Disruptions = true
	}
	for _, w := range pr.warnings() {
		warn(env, w)
	}
	return &phaseCommand{phase: phase, flags: f, props: p, prepared: pr, telemetry: tel}, nil
}

// run runs the phase: opens its destinations, connects, runs the workload
// and writes the report and the result.
func (pc *phaseCommand) run(ctx context.Context, env Env) error {
	phase, pr := pc.phase, pc.prepared
	dst, err := openDestinations(pc.flags, pc.props, env, pr.index)
	if err != nil {
		return err
	}
	defer dst.close()
	barrier, err := newStartBarrier(pc.flags.barrier, dst.sink, pr.index)
	if err != nil {
		return err
	}
	live, err := pc.flags.metrics.start(ctx, pr.index, env)
	if err != nil {
		return fmt.Errorf("%s phase: %w", phase, err)
	}
	defer live.close()

	if pr.cfg.TLS, err = pc.flags.tls.load(); err != nil {
		return fmt.Errorf("%s phase: %w", phase, err)
	}
	if pc.telemetry != nil {
		pc.telemetry.tls = pr.cfg.TLS
	}
	client, err := mongodb.NewClient(ctx, pr.cfg, env.Stderr)
	if err != nil {
		if ctx.Err() != nil {
			return signalExit(ctx, fmt.Errorf("%s phase: %w", phase, err))
		}
		return fmt.Errorf("%s phase: %w", phase, err)
	}
	_, _ = fmt.Fprintf(env.Stderr, "%s: %s phase, loader %d of %d, %s\n", versionString(env), phase, pr.index, pr.count, pr.describe())
	stats := results.LoaderStats{Index: pr.index, Hostname: hostname(env)}
	cpu := newCPUMeter("/")
	var cpuStart cpuSnapshot
	var sampler *telemetry.Sampler
	opts := pr.opts
	opts.Ready = func(ctx context.Context, threads int) error {
		return pc.openConnections(ctx, client, threads, barrier, &stats, env)
	}
	// Sampling covers the measured window, after any warm-up, so that
	// the servers' figures and the validity checks that read them speak
	// of what was measured; it stops right after the workload.
	// The replica sets the disruptions hit besides the client's own
	// (a shard's, the config server's): watched by every loader.
	targets, err := watchTargets(ctx, pc.flags.disruptions, pr.cfg)
	if err != nil {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
		_ = client.Close(cctx)
		cancel()
		if ctx.Err() != nil {
			return signalExit(ctx, fmt.Errorf("%s phase: %w", phase, err))
		}
		return fmt.Errorf("%s phase: %w", phase, err)
	}
	defer targets.close(ctx)
	primaries := func(index int) []mongodb.PrimaryChange {
		d, _ := pc.flags.disruptions.byIndex(index)
		return targets.client(d, client).Primaries()
	}
	var act *actor
	if len(pc.flags.disruptions) > 0 && pr.index == 0 {
		act = newActor(pc.flags.disruptions, client, targets, dst.sink, stats.Hostname, env.Stderr)
	}
	opts.OnMeasure = func(t time.Time) {
		cpuStart = cpu.snapshot(t)
		sampler = startTelemetry(ctx, pc.telemetry, pr.index, env, live)
		if act != nil {
			act.start(ctx, t)
		}
	}
	paused := newPauseLedgers(pc.flags.disruptions, dst.sink, env.Stderr)
	starts := func(index int, action string, instant time.Time) time.Time {
		if t, ok := pauseStart(ctx, paused, index, action, instant); ok {
			return t
		}
		return instant
	}
	if pr.cfg.Disruptions {
		opts.DisruptionOnset = func(d ycsb.DisruptionSpec, instant time.Time) (time.Time, bool) {
			lost, ok := mongodb.LostPrimaryAfter(client.Primaries(), instant)
			if d.Action == "Pause" {
				// A frozen primary's freeze began when the freezing
				// container saw the process stopped; the driver may
				// have noticed even later (a heartbeat's timeout), never
				// sooner. A frozen secondary hits nothing of the
				// writes' or the primary reads' way.
				if p, pok := paused.get(ctx, d.Index, instant); pok && p.primary && (!ok || p.frozen.Before(lost)) {
					return p.frozen, true
				}
			}
			return lost, ok
		}
		opts.DisruptionStart = func(d ycsb.DisruptionSpec, instant time.Time) (time.Time, bool) {
			return pauseStart(ctx, paused, d.Index, d.Action, instant)
		}
		opts.DisruptionRecovered = func(d ycsb.DisruptionSpec, instant time.Time) (time.Time, bool) {
			if d.Action == "Pause" {
				// A shard whose primary is frozen has a working primary
				// again when it is continued, or when another member
				// was elected meanwhile (a freeze longer than the
				// election timeout), whichever came first. A frozen
				// secondary takes nothing away: no recovery to wait for.
				p, pok := paused.get(ctx, d.Index, instant)
				if !pok || !p.primary {
					return time.Time{}, false
				}
				if np, nok := mongodb.NewPrimaryAfter(primaries(d.Index), instant, p.thawed); nok {
					return np, true
				}
				return p.thawed, true
			}
			return mongodb.NewPrimaryAfter(primaries(d.Index), instant, instant.Add(results.DisruptionAfterMillis*time.Millisecond))
		}
	}
	live.observe(&opts, pr.workload)
	res, err := ycsb.Run(ctx, pr.workload, client.Factory(), opts)
	if act != nil {
		// Before the client closes: an action in progress ends first.
		outcomes := act.finish()
		if res != nil {
			completeDisruptions(res.Disruptions, primaries, starts, outcomes)
		}
	} else if res != nil {
		completeDisruptions(res.Disruptions, primaries, starts, nil)
	}
	var cpuEnd cpuSnapshot
	if res != nil {
		live.finish(res.FailedBufferedInserts)
		// Before the telemetry's final statistics and encoding, which
		// are no part of the window.
		cpuEnd = cpu.snapshot(res.End)
	}
	tel := stopTelemetry(sampler, env)
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
	_ = client.Close(cctx) // the results are in; a failed disconnect changes nothing
	cancel()
	if err != nil {
		if ctx.Err() != nil { // stopped while the threads were connecting
			return signalExit(ctx, fmt.Errorf("%s phase: %w", phase, err))
		}
		return fmt.Errorf("%s phase: %w", phase, err)
	}
	stats.Start = res.Start
	stats.CPU = cpu.usage(cpuStart, cpuEnd)
	writeErr := dst.write(ctx, res, pr.percentiles, stats, tel, env)
	return phaseOutcome(ctx, phase, res, client, writeErr)
}

// openConnections is the phase's last step before its clock starts: the
// pool opens a connection per thread (HoldConnections), and with a start
// barrier the loader reports ready and waits for the phase's start
// instant. What it did goes into stats.
func (pc *phaseCommand) openConnections(ctx context.Context, client *mongodb.Client, threads int, barrier *startBarrier,
	stats *results.LoaderStats, env Env) error {
	n := pc.prepared.cfg.PoolConnections(ptrTo(client.PoolSize()))
	held, err := client.HoldConnections(ctx, n)
	if err != nil {
		return fmt.Errorf("open %d connections before the clock starts: %w", n, err)
	}
	stats.Connections, stats.ConnectMillis = held.Connections, held.Took.Milliseconds()
	switch {
	case held.Verified:
		_, _ = fmt.Fprintf(env.Stderr, "mongodb: %d connections open for %d threads in %v\n", held.Connections, threads, held.Took.Round(time.Millisecond))
	case held.Connections >= n:
		_, _ = fmt.Fprintf(env.Stderr, "mongodb: %d connections asked for by %d threads in %v (the server does not hold awaitable hellos: "+
			"not verified)\n", held.Connections, threads, held.Took.Round(time.Millisecond))
	default:
		warn(env, fmt.Sprintf("the pool holds %d of the %d connections asked for after %v: threads may open connections inside the measured window",
			held.Connections, n, held.Took.Round(time.Millisecond)))
	}
	if barrier == nil {
		return nil
	}
	at, err := barrier.wait(ctx, held.Connections, held.Took, env.Stderr)
	if err != nil {
		return err
	}
	stats.StartAt = at
	if late := time.Since(at); late > 0 {
		warn(env, fmt.Sprintf("start barrier: the start instant %s had passed %v ago when it was read", at.Format(time.RFC3339Nano), late.Round(time.Millisecond)))
	}
	return sleepUntil(ctx, at)
}

func ptrTo[T any](v T) *T { return &v }

// parsePhaseArgs parses the command line into properties: the workload
// files, -p, then the flags, which win over -p whatever their order.
func parsePhaseArgs(phase ycsb.Phase, args []string, env Env) (*phaseFlags, *ycsb.Properties, error) {
	// YCSB names the binding after the command: "load mongodb -P ...".
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		if args[0] != "mongodb" {
			return nil, nil, usagef("unknown database %q: this loader has the mongodb binding only", args[0])
		}
		args = args[1:]
	}
	f := &phaseFlags{}
	fs := newFlagSet(phase.String(), "[mongodb] [-P workload ...] [-p name=value ...] [flags]", env)
	fs.Var(&f.files, "P", "workload `file` or built-in name (workloada..workloadf, workloadS1..workloadS5, or a, S1, ...); "+
		"repeatable, later files override earlier ones")
	fs.Var(&f.props, "p", "property `name=value`, repeatable; overrides the workload files")
	fs.IntVar(&f.threads, "threads", 0, "threadcount: worker threads of this loader (`N`)")
	// YCSB names its -target flag after the property it sets.
	fs.Int64Var(&f.target, contract.PropTarget, 0, "target: operations per second, the total over all loaders (`N`; 0: unthrottled)")
	fs.BoolVar(&f.status, "s", false, "print a status line to stderr every status.interval seconds")
	fs.StringVar(&f.label, "l", "", "`label` prefixing the status lines")
	fs.StringVar(&f.result, "result", "", "write the encoded result (gzip JSON, results.Encode) to `FILE`; "+
		"- writes it to stdout and moves the text report to stderr")
	f.sink.register(fs)
	f.tel.register(fs)
	f.tls.register(fs)
	f.metrics.register(fs)
	fs.Var(&f.disruptions, contract.FlagDisruption, "a disruption `INDEX,ACTION,AT,key=value…` of the phase (repeatable; e.g. "+
		"0,StepDown,30s,stepDownSecs=60,catchUpSecs=10): every loader measures around its instant, the measured window's start plus AT; "+
		"loader 0 acts (StepDown: replSetStepDown on the primary), once, recorded in ConfigMap <job>-disruption-<INDEX> with --result-configmap; "+
		"target=SET,hosts=HOST:PORT|… names another replica set it hits (a shard's, the config server's), which every loader watches")
	fs.StringVar(&f.barrier, contract.FlagStartBarrier, "", "wait at the start barrier of Job `NAME` (a phase of several loaders): "+
		"report ready in ConfigMap NAME-ready-<index>, start at the instant ConfigMap NAME-start holds")
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			// After the flags: only on -h, not after every flag error.
			writePropertyHelp(env.Stderr)
		}
		return nil, nil, err
	}
	set := flagsSet(fs)
	p, err := ycsb.LoadProperties(f.files, f.props)
	if err != nil {
		return nil, nil, usageError{err}
	}
	if set["threads"] {
		p.Set(contract.PropThreadCount, strconv.Itoa(f.threads))
	}
	if set[contract.PropTarget] {
		p.Set(contract.PropTarget, strconv.FormatInt(f.target, 10))
	}
	if f.status {
		p.Set("status", "true")
	}
	if set["l"] {
		p.Set("label", f.label)
	}
	return f, p, nil
}

// destinations are where a phase's text output (YCSB's, or a Grow phase's
// checkpoint lines) and result go, opened (files
// created, the ConfigMap's client set up) before the run.
type destinations struct {
	stdout         io.Writer
	text           io.Writer
	resultToStdout bool
	resultFile     io.WriteCloser
	// telemetryFile receives loader 0's telemetry (--telemetry-result).
	telemetryFile io.WriteCloser
	sink          *configMapSink
	files         []io.Closer
}

func openDestinations(f *phaseFlags, p *ycsb.Properties, env Env, index int) (*destinations, error) {
	d := &destinations{stdout: env.Stdout, text: env.Stdout}
	if path, ok := p.Get("exportfile"); ok {
		// YCSB: the text output goes to this file instead of stdout.
		file, err := os.Create(path)
		if err != nil {
			return nil, fmt.Errorf("exportfile: %w", err)
		}
		d.files = append(d.files, file)
		d.text = file
	}
	switch f.result {
	case "":
	case "-":
		d.resultToStdout = true
		if d.text == env.Stdout {
			d.text = env.Stderr
		}
	default:
		file, err := os.Create(f.result)
		if err != nil {
			d.close()
			return nil, fmt.Errorf("--result: %w", err)
		}
		d.files = append(d.files, file)
		d.resultFile = file
	}
	if f.tel.result != "" && (len(f.tel.processes) > 0 || f.tel.external) && index == 0 {
		file, err := os.Create(f.tel.result)
		if err != nil {
			d.close()
			return nil, fmt.Errorf("--telemetry-result: %w", err)
		}
		d.files = append(d.files, file)
		d.telemetryFile = file
	}
	var err error
	if d.sink, err = f.sink.prepare(env, index); err != nil {
		d.close()
		return nil, err
	}
	return d, nil
}

func (d *destinations) close() {
	for _, f := range d.files {
		_ = f.Close()
	}
}

// write reports the run to every destination; failures are collected, so
// one failing destination does not cost the others. tel, the encoded
// telemetry (nil when this loader took none), goes under
// contract.TelemetryKey beside the result, and to --telemetry-result;
// failing to write that file is a warning, never the phase's failure.
func (d *destinations) write(ctx context.Context, res *ycsb.RunResult, percentiles []float64, stats results.LoaderStats, tel []byte, env Env) error {
	var errs []error
	if err := ycsb.WriteText(d.text, res, percentiles); err != nil {
		errs = append(errs, err)
	}
	r := res.ToResult(stats.Hostname)
	r.Loaders = []results.LoaderStats{stats}
	return d.deliver(ctx, r, tel, env, errs)
}

// deliver encodes the result and writes it, and the telemetry, to every
// destination but the text report; errs are the report's, joined with
// the others.
func (d *destinations) deliver(ctx context.Context, r *results.Result, tel []byte, env Env, errs []error) error {
	enc, err := results.Encode(r)
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("encode result: %w", err))...)
	}
	if d.resultToStdout {
		if _, err := d.stdout.Write(enc); err != nil {
			errs = append(errs, fmt.Errorf("write result to stdout: %w", err))
		}
	}
	if d.resultFile != nil {
		if _, err := d.resultFile.Write(enc); err != nil {
			errs = append(errs, fmt.Errorf("--result: %w", err))
		}
		if err := d.resultFile.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			errs = append(errs, fmt.Errorf("--result: %w", err))
		}
	}
	if d.telemetryFile != nil && tel != nil {
		if _, err := d.telemetryFile.Write(tel); err != nil {
			warn(env, "--telemetry-result: "+err.Error())
		}
	}
	if d.telemetryFile != nil {
		if err := d.telemetryFile.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			warn(env, "--telemetry-result: "+err.Error())
		}
	}
	if d.sink != nil {
		binary := map[string][]byte{contract.ConfigMapKey: enc}
		if tel != nil {
			binary[contract.TelemetryKey] = tel
		}
		if err := d.sink.write(ctx, nil, binary); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// phaseOutcome decides the exit: a signal's code after a cancellation, a
// failure when a result was not written or a load left records out (YCSB
// exits 0 then; a run on an incomplete data set is not worth measuring).
// Failed operations of the run phase are measurements, not failures.
func phaseOutcome(ctx context.Context, phase ycsb.Phase, res *ycsb.RunResult, client *mongodb.Client, writeErr error) error {
	if res.StopReason == results.StopCancelled {
		msg := fmt.Sprintf("%s phase stopped after %d of %s operations; partial result reported", phase, res.Operations, plannedOps(res))
		if writeErr != nil {
			msg += "; but: " + writeErr.Error()
		}
		return signalExit(ctx, errors.New(msg))
	}
	if writeErr != nil {
		return writeErr
	}
	if res.WarmupUnfinished {
		// A timed warm-up longer than the load, say: the phase measured
		// nothing, and its numbers would read as a throughput of 0.
		return fmt.Errorf("%s phase ended during its warm-up, after %d warm-up operations: nothing was measured; "+
			"shorten the phase's warmup", phase, res.Warmup.Operations)
	}
	if phase == phaseLoad && (res.ThreadsStoppedOnInsertFailure > 0 || res.FailedBufferedInserts > 0) {
		first, n := client.FirstError()
		return fmt.Errorf("load incomplete: %d of %d threads stopped after a failed insert, %d buffered inserts were not written "+
			"(%d unsuccessful operations; first: %s)", res.ThreadsStoppedOnInsertFailure, res.Threads, res.FailedBufferedInserts, n, first)
	}
	return nil
}

func plannedOps(res *ycsb.RunResult) string {
	if res.PlannedOperations == 0 {
		return "unlimited"
	}
	return strconv.FormatInt(res.PlannedOperations, 10)
}

// preparedPhase is everything a phase needs, checked before connecting.
type preparedPhase struct {
	workload     *ycsb.Workload
	opts         ycsb.RunOptions
	percentiles  []float64
	cfg          mongodb.Config
	index, count int
	phase        ycsb.Phase
	targetTotal  string
}

// warnings are what the prepared phase should tell before it starts.
func (pr *preparedPhase) warnings() []string {
	var w []string
	if pr.phase == phaseRun && pr.workload.OperationCount(pr.phase) == 0 && pr.opts.MaxExecutionTime == 0 {
		// YCSB's operationcount has no default: a workload file without
		// one runs forever, which in a Job means until its deadline.
		w = append(w, "operationcount is 0 (unlimited) and maxexecutiontime is not set: "+
			"this run goes on until it is stopped (SIGTERM/Ctrl-C)")
	}
	return w
}

func (pr *preparedPhase) describe() string {
	ops := pr.workload.OperationCount(pr.phase)
	s := fmt.Sprintf("%d threads, ", pr.opts.Threads)
	if ops == 0 {
		s += "operations unlimited"
	} else {
		s += strconv.FormatInt(ops, 10) + " operations"
	}
	if pr.opts.Target > 0 {
		s += fmt.Sprintf(", target %v ops/s", pr.opts.Target)
		if pr.count > 1 {
			s += " (of " + pr.targetTotal + " over " + strconv.Itoa(pr.count) + " loaders)"
		}
	}
	return s
}

// preparePhase validates the properties and builds the workload, the run
// options and the binding's configuration. Every error is a usage error.
func preparePhase(phase ycsb.Phase, p *ycsb.Properties, env Env) (*preparedPhase, error) {
	if v, ok := p.Get("workload"); ok && !contains(coreWorkloadClasses, strings.TrimSpace(v)) {
		return nil, usagef("workload: %q is not supported (only %s)", v, coreWorkloadClasses[0])
	}
	if v, ok := p.Get("exporter"); ok && !contains(textExporters, strings.TrimSpace(v)) {
		return nil, usagef("exporter: %q is not supported (only the text report, %s)", v, textExporters[0])
	}
	pr := &preparedPhase{phase: phase}
	var err error
	if pr.index, pr.count, err = loaderIdentity(p, env.Getenv); err != nil {
		return nil, err
	}
	if pr.targetTotal, err = splitTarget(p, pr.index, pr.count); err != nil {
		return nil, err
	}
	if pr.workload, err = ycsb.NewWorkload(p); err != nil {
		return nil, usageError{err}
	}
	pr.workload.Prepare(phase)
	if pr.opts, err = ycsb.RunOptionsFromProperties(p, phase, env.Stderr); err != nil {
		return nil, usageError{err}
	}
	if pr.opts.WarmupOperations, err = shareOf(pr.opts.WarmupOperations, pr.index, pr.count); err != nil {
		return nil, usagef("%s: %w", contract.PropWarmupOperations, err)
	}
	if pr.percentiles, err = ycsb.PercentilesFromProperties(p); err != nil {
		return nil, usageError{err}
	}
	if pr.cfg, err = connectionConfig(p, env); err != nil {
		return nil, err
	}
	if pr.cfg.Credential, err = adminCredential(env.Getenv); err != nil {
		return nil, err
	}
	pr.cfg.Threads = pr.opts.ThreadsFor(pr.workload)
	pr.opts.StopGrace = StopGrace
	// The final flush is one insertMany, bounded like any call.
	pr.opts.CleanupTimeout = pr.cfg.OperationTimeout
	return pr, nil
}

// loaderIdentity returns this loader's index and the number of loaders:
// loader.index from -p, else JOB_COMPLETION_INDEX (set by Kubernetes in
// the pods of an Indexed Job), else 0; loader.count from -p, else 1.
func loaderIdentity(p *ycsb.Properties, getenv func(string) string) (index, count int, err error) {
	if !p.Has("loader.index") {
		if v := strings.TrimSpace(getenv("JOB_COMPLETION_INDEX")); v != "" {
			p.Set("loader.index", v)
		}
	}
	if index, err = p.Int("loader.index", 0); err != nil {
		return 0, 0, usageError{err}
	}
	if count, err = p.Int(contract.PropLoaderCount, 1); err != nil {
		return 0, 0, usageError{err}
	}
	if count < 1 || index < 0 || index >= count {
		return 0, 0, usagef("loader.index %d (from -p loader.index or JOB_COMPLETION_INDEX) must be at least 0 and below loader.count %d",
			index, count)
	}
	return index, count, nil
}

// splitTarget replaces target, the total over all loaders, by this loader's
// share: target/n, plus one for the first target%n loaders. It returns the
// total as given.
func splitTarget(p *ycsb.Properties, index, count int) (string, error) {
	v, ok := p.Get(contract.PropTarget)
	if !ok || count == 1 {
		return v, nil
	}
	total, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || total < 0 {
		return v, usagef("target: %q must be a whole, non-negative number of operations per second to be split among %d loaders", v, count)
	}
	if total == 0 {
		return v, nil
	}
	share := total / int64(count)
	if int64(index) < total%int64(count) {
		share++
	}
	if share == 0 {
		// 0 would mean unthrottled.
		return v, usagef("target %d is smaller than loader.count %d: loader %d would get no share", total, count, index)
	}
	p.Set(contract.PropTarget, strconv.FormatInt(share, 10))
	return v, nil
}

// shareOf is loader index's share of a total split over count loaders
// (total/count, one more for the first total%count), as recordcount and
// operationcount are split. A total that leaves a loader nothing is an
// error.
func shareOf(total int64, index, count int) (int64, error) {
	if total == 0 || count <= 1 {
		return total, nil
	}
	share := total / int64(count)
	if int64(index) < total%int64(count) {
		share++
	}
	if share == 0 {
		return 0, fmt.Errorf("%d is smaller than loader.count %d: loader %d would get none", total, count, index)
	}
	return share, nil
}

// hostname names the loader in its result: the pod's name when the Job sets
// POD_NAME, else the host name.
func hostname(env Env) string {
	if n := env.Getenv("POD_NAME"); n != "" {
		return n
	}
	n, _ := os.Hostname()
	return n
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
