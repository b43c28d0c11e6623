package loader

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/loader/metrics"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/telemetry"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// metricsCloseTimeout bounds the last scrape in progress when the loader
// exits.
const metricsCloseTimeout = 2 * time.Second

// metricsLinger bounds how long a finished loader waits for the scrape
// that carries its final values (metrics.Server.Linger): two default
// Prometheus intervals.
const metricsLinger = 30 * time.Second

// metricsFlags are the live metrics' flags: where to serve /metrics, and
// the run and phase to label them with (the namespace is the pod's,
// POD_NAMESPACE).
type metricsFlags struct {
	addr, run, phase string
}

func (m *metricsFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&m.addr, contract.FlagMetricsAddr, "", "serve Prometheus metrics on `ADDR` (e.g. :9400) at "+contract.MetricsPath+
		" while the phase runs (internal/contract/metrics.go names them); empty: none")
	fs.StringVar(&m.run, contract.FlagMetricsRun, "", "the run's `NAME` in the metrics' run label")
	fs.StringVar(&m.phase, contract.FlagMetricsPhase, "", "the phase's `NAME` in the metrics' phase label")
}

// liveMetrics is a loader's metrics endpoint while it runs; a nil one
// does nothing.
type liveMetrics struct {
	exp *metrics.Exporter
	srv *metrics.Server
	// ctx is the phase's: a stop (SIGTERM) does not linger.
	ctx      context.Context
	finished bool
}

// start serves the metrics when --metrics-addr asks for them. A port that
// cannot be had fails the phase before it starts.
func (m *metricsFlags) start(ctx context.Context, index int, env Env) (*liveMetrics, error) {
	if m.addr == "" {
		return nil, nil
	}
	exp := metrics.New(metrics.Identity{Namespace: env.Getenv("POD_NAMESPACE"), Run: m.run, Phase: m.phase, Loader: index})
	srv, err := metrics.Serve(m.addr, exp)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", contract.FlagMetricsAddr, err)
	}
	_, _ = fmt.Fprintf(env.Stderr, "metrics: serving http://%s%s\n", srv.Addr(), contract.MetricsPath)
	return &liveMetrics{exp: exp, srv: srv, ctx: ctx}, nil
}

// observe wires the exporter into a YCSB phase's options: the plan, the
// collector's measurements, the start of the measured window.
func (l *liveMetrics) observe(opts *ycsb.RunOptions, w *ycsb.Workload) {
	if l == nil {
		return
	}
	planned := ycsb.PlannedOperations(opts.Phase, w.OperationCount(opts.Phase), opts.WarmupOperations)
	l.exp.SetPlan(metrics.Plan{Threads: opts.ThreadsFor(w), Target: opts.Target, Operations: planned, MaxExecution: opts.MaxExecutionTime})
	opts.Observer = l.exp
	onMeasure := opts.OnMeasure
	opts.OnMeasure = func(t time.Time) {
		l.exp.Measuring(t)
		if onMeasure != nil {
			onMeasure(t)
		}
	}
}

// sampled hands loader 0's telemetry samples to the exporter.
func (l *liveMetrics) sampled(cfg *telemetry.Config) {
	if l != nil {
		cfg.OnSample = l.exp.ServerSample
	}
}

// finish marks the operations done; the endpoint serves on until close.
func (l *liveMetrics) finish(lostInserts int64) {
	if l != nil {
		l.exp.Finish(lostInserts)
		l.finished = true
	}
}

// close stops serving, as the process exits. A loader that finished its
// operations first waits for the scrape that carries its final values, if
// something scrapes it (metrics.Server.Linger).
func (l *liveMetrics) close() {
	if l == nil {
		return
	}
	if l.finished {
		l.srv.Linger(l.ctx, metricsLinger)
	}
	_ = l.srv.Close(metricsCloseTimeout)
}

// growPlanned records a Grow phase's planned checkpoints.
func (l *liveMetrics) growPlanned(checkpoints int) {
	if l != nil {
		l.exp.GrowPlanned(checkpoints)
	}
}

// checkpoint keeps a Grow phase's latest checkpoint (earlier ones, which a
// resumed phase replays, count too: the gauges show the latest).
func (l *liveMetrics) checkpoint(c *results.GrowthCheckpoint) {
	if l != nil {
		l.exp.GrowCheckpoint(c)
	}
}

// MetricsEndpoint is what a load, run or grow command's metrics flags ask
// for: the address to serve on ("" for none) and the run and phase labels.
type MetricsEndpoint struct {
	Addr, Run, Phase string
}

// Metrics returns the command's metrics flags; zero for the commands that
// serve none.
func (c *Command) Metrics() MetricsEndpoint {
	var f *metricsFlags
	switch {
	case c.grow != nil:
		f = &c.grow.flags.metrics
	case c.phase != nil:
		f = &c.phase.flags.metrics
	default:
		return MetricsEndpoint{}
	}
	return MetricsEndpoint{Addr: f.addr, Run: f.run, Phase: f.phase}
}

// PlannedOperations is the operations a load or run command's loader is to
// issue, its share of a counted warm-up included, as its metrics export
// them (mongobench_loader_planned_operations); 0 for the other commands
// and for a phase bounded by time.
func (c *Command) PlannedOperations() int64 {
	if c.phase == nil {
		return 0
	}
	pr := c.phase.prepared
	return ycsb.PlannedOperations(pr.phase, pr.workload.OperationCount(pr.phase), pr.opts.WarmupOperations)
}
