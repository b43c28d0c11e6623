package metrics

import (
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/telemetry"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// Identity names the loader in every metric: contract.MetricLabelNamespace,
// Run, Phase and Loader.
type Identity struct {
	Namespace, Run, Phase string
	Loader                int
}

// Plan is what a YCSB phase's loader is set to do.
type Plan struct {
	Threads int
	// Target is the loader's operations per second, 0 when unthrottled.
	Target float64
	// Operations is what it issues, a counted warm-up included; 0 when
	// bounded by time only.
	Operations int64
	// MaxExecution is maxexecutiontime, 0 when unbounded.
	MaxExecution time.Duration
}

// opKey is an operation and whether it failed (contract.ResultError).
type opKey struct {
	op     ycsb.Op
	failed bool
}

// opSeries is an operation's cumulative measurements since the loader
// started, warm-up included. They are kept at 2 significant digits (the
// time series' precision, results.NewSeriesHistogram): the walk a scrape
// makes of them is a tenth of a 3-digit one's (BenchmarkScrape: 1.9 ms and
// 1 MB a scrape instead of 9.7 ms and 6 MB), and a 1% bucket is far
// finer than a native bucket's 9%. The report's exact percentiles come
// from the result, not from here.
type opSeries struct {
	latency, intended *results.Histogram
}

// Exporter holds the loader's live metrics and serves them as a
// prometheus.Collector. Every method is safe for concurrent use; none is
// called per operation.
type Exporter struct {
	created time.Time

	mu sync.Mutex
	// ops holds every operation measured, in the order first seen.
	ops      map[opKey]*opSeries
	opsOrder []opKey

	plan       *Plan
	observedAt time.Time
	measuring  bool
	finished   bool
	start      time.Time
	lost       int64

	server      map[string]*telemetry.Sample
	serverOrder []string
	// processes maps a sampled process (telemetry.Process.Pod) to its
	// label, labelled the labels in use.
	processes map[string]string
	labelled  map[string]bool

	grow        *results.GrowthCheckpoint
	growPlanned int
	growDone    int

	d descs
}

type descs struct {
	ops, latency, intended                                    *prometheus.Desc
	target, threads, measuring, finished, planned, maxExec    *prometheus.Desc
	start, lost, observedAt                                   *prometheus.Desc
	srvOps, srvConns, srvAvail, srvCacheUsed, srvCacheDirty   *prometheus.Desc
	srvTicketsOut, srvTicketsAvail, srvQueued, srvNet, srvRes *prometheus.Desc
	growDone, growPlanned, growRecords, growRate, growInsP99  *prometheus.Desc
	growQueryP99, growBytes                                   *prometheus.Desc
}

// New returns an Exporter for the loader id, with no measurements yet.
func New(id Identity) *Exporter {
	cl := prometheus.Labels{
		contract.MetricLabelNamespace: id.Namespace,
		contract.MetricLabelRun:       id.Run,
		contract.MetricLabelPhase:     id.Phase,
		contract.MetricLabelLoader:    strconv.Itoa(id.Loader),
	}
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, labels, cl)
	}
	op, res := contract.MetricLabelOperation, contract.MetricLabelResult
	proc := contract.MetricLabelProcess
	return &Exporter{
		created:   time.Now(),
		ops:       map[opKey]*opSeries{},
		server:    map[string]*telemetry.Sample{},
		processes: map[string]string{},
		labelled:  map[string]bool{},
		d: descs{
			ops: d(contract.MetricLoaderOperations, "Operations the loader issued, warm-up included, by YCSB operation and result.", op, res),
			latency: d(contract.MetricLoaderLatency,
				"Latency (service time) of the loader's operations, warm-up included, by YCSB operation and result.", op, res),
			intended: d(contract.MetricLoaderIntendedLatency,
				"Intended latency (from the throttle's schedule) of the loader's operations, by YCSB operation and result; "+
					"only with measurement.interval intended or both.", op, res),
			target:    d(contract.MetricLoaderTarget, "The loader's target rate; 0 when it is not throttled."),
			threads:   d(contract.MetricLoaderThreads, "The loader's client threads."),
			measuring: d(contract.MetricLoaderMeasuring, "0 during the warm-up, 1 once operations are measured."),
			finished:  d(contract.MetricLoaderFinished, "1 once the loader's operations are done."),
			planned: d(contract.MetricLoaderPlannedOperations,
				"Operations the loader is to issue, a counted warm-up included; 0 when bounded by time only."),
			maxExec: d(contract.MetricLoaderMaxExecution, "maxexecutiontime; 0 when unbounded."),
			start:   d(contract.MetricLoaderStartTime, "When the measured window started (Unix time)."),
			lost:    d(contract.MetricLoaderLostInserts, "Inserts the loader gave up on (buffered inserts its final flush lost)."),
			observedAt: d(contract.MetricLoaderObservedAt,
				"When the loader's counters and histograms last moved (Unix time): they move once a second."),

			srvOps: d(contract.MetricServerOperations, "serverStatus opcounters of a sampled MongoDB process, by type.",
				proc, contract.MetricLabelType),
			srvConns:     d(contract.MetricServerConnections, "serverStatus connections.current of a sampled MongoDB process.", proc),
			srvAvail:     d(contract.MetricServerConnectionsAvailable, "serverStatus connections.available of a sampled MongoDB process.", proc),
			srvCacheUsed: d(contract.MetricServerCacheUsed, "WiredTiger cache bytes in use over its maximum, of a sampled MongoDB process.", proc),
			srvCacheDirty: d(contract.MetricServerCacheDirty,
				"WiredTiger cache tracked dirty bytes over its maximum, of a sampled MongoDB process.", proc),
			srvTicketsOut: d(contract.MetricServerTicketsOut, "Execution tickets in use of a sampled MongoDB process, by kind (read, write).",
				proc, contract.MetricLabelKind),
			srvTicketsAvail: d(contract.MetricServerTicketsAvailable,
				"Execution tickets available of a sampled MongoDB process, by kind (read, write).", proc, contract.MetricLabelKind),
			srvQueued: d(contract.MetricServerQueued, "globalLock.currentQueue of a sampled MongoDB process, by kind (readers, writers).",
				proc, contract.MetricLabelKind),
			srvNet: d(contract.MetricServerNetwork, "serverStatus network bytes of a sampled MongoDB process, by direction (in, out).",
				proc, contract.MetricLabelDirection),
			srvRes: d(contract.MetricServerResident, "serverStatus mem.resident of a sampled MongoDB process.", proc),

			growDone:    d(contract.MetricGrowCheckpoints, "Checkpoints the Grow phase has taken."),
			growPlanned: d(contract.MetricGrowPlannedCheckpoints, "Checkpoints the Grow phase takes."),
			growRecords: d(contract.MetricGrowRecords, "Records in the collection at the latest checkpoint."),
			growRate:    d(contract.MetricGrowInsertRate, "Insert rate over the latest checkpoint's span."),
			growInsP99:  d(contract.MetricGrowInsertP99, "Insert p99 latency over the latest checkpoint's span."),
			growQueryP99: d(contract.MetricGrowQueryP99, "Each query's p99 latency at the latest checkpoint.",
				contract.MetricLabelQuery),
			growBytes: d(contract.MetricGrowCollectionBytes,
				"The collection's size at the latest checkpoint, by kind (data, storage, index).", contract.MetricLabelKind),
		},
	}
}

// SetPlan records what a YCSB phase's loader is set to do.
func (e *Exporter) SetPlan(p Plan) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.plan = &p
}

// Measuring marks the start of the measured window (the end of the
// warm-up, or the start).
func (e *Exporter) Measuring(t time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.measuring, e.start = true, t
}

// Finish marks the loader's operations done, with the inserts it lost.
// What it serves from then on stays as it is.
func (e *Exporter) Finish(lostInserts int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.finished, e.lost = true, lostInserts
}

// Observe merges one collection of the workers' measurements
// (ycsb.Observer): once a second, from the engine's collector.
func (e *Exporter) Observe(o *ycsb.Observation) {
	now := time.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.observedAt = now
	for i := range o.Ops {
		op := &o.Ops[i]
		if op.Op == ycsb.OpCleanup {
			// The final flush is no benchmark operation: it is in
			// the report, not in the live rates.
			continue
		}
		e.merge(opKey{op: op.Op}, op.OK, op.IntendedOK)
		e.merge(opKey{op: op.Op, failed: true}, op.Failed, op.IntendedFailed)
	}
}

func (e *Exporter) merge(k opKey, latency, intended *results.Histogram) {
	if latency.Count() == 0 {
		return
	}
	s := e.ops[k]
	if s == nil {
		s = &opSeries{latency: results.NewSeriesHistogram()}
		e.ops[k] = s
		e.opsOrder = append(e.opsOrder, k)
	}
	s.latency.Merge(latency)
	if intended.Count() > 0 {
		if s.intended == nil {
			s.intended = results.NewSeriesHistogram()
		}
		s.intended.Merge(intended)
	}
}

// ServerSample keeps the latest telemetry sample of a process (a
// telemetry.Config.OnSample).
func (e *Exporter) ServerSample(p telemetry.Process, s *telemetry.Sample) {
	cp := *s
	e.mu.Lock()
	defer e.mu.Unlock()
	name, ok := e.processes[p.Pod]
	if !ok {
		name = ProcessLabel(p.Pod)
		if e.labelled[name] {
			// Another process of the same host (an External cluster's
			// members on several ports of one machine): the port tells
			// them apart, and it is one of the cluster's few.
			name = p.Pod
		}
		e.processes[p.Pod] = name
		e.labelled[name] = true
		e.serverOrder = append(e.serverOrder, name)
	}
	e.server[name] = &cp
}

// ProcessLabel is contract.MetricLabelProcess of a sampled process: its
// pod's name, or an External run's host without its port (a port adds
// nothing the host does not say, unless the host runs several of the
// cluster's processes: then ServerSample keeps it for all but the first).
func ProcessLabel(pod string) string {
	if host, _, err := net.SplitHostPort(pod); err == nil {
		return host
	}
	return pod
}

// GrowPlanned records how many checkpoints a Grow phase takes.
func (e *Exporter) GrowPlanned(checkpoints int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.growPlanned = checkpoints
}

// GrowCheckpoint keeps a Grow phase's latest checkpoint.
func (e *Exporter) GrowCheckpoint(c *results.GrowthCheckpoint) {
	cp := *c
	cp.Queries = append([]results.GrowthQuery(nil), c.Queries...)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.grow = &cp
	e.growDone++
}

// Describe sends every family the Exporter may export.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	d := &e.d
	for _, x := range []*prometheus.Desc{d.ops, d.latency, d.intended, d.target, d.threads, d.measuring, d.finished, d.planned,
		d.maxExec, d.start, d.lost, d.observedAt, d.srvOps, d.srvConns, d.srvAvail, d.srvCacheUsed, d.srvCacheDirty, d.srvTicketsOut,
		d.srvTicketsAvail, d.srvQueued, d.srvNet, d.srvRes, d.growDone, d.growPlanned, d.growRecords, d.growRate, d.growInsP99,
		d.growQueryP99, d.growBytes} {
		ch <- x
	}
}

// Collect sends the current values: scrape time is when the cumulative
// histograms are converted.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	e.mu.Lock()
	defer e.mu.Unlock()
	d := &e.d
	gauge := func(desc *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, v, labels...)
	}
	for _, k := range e.opsOrder {
		s := e.ops[k]
		res := contract.ResultOK
		if k.failed {
			res = contract.ResultError
		}
		name := k.op.String()
		ch <- prometheus.MustNewConstMetricWithCreatedTimestamp(d.ops, prometheus.CounterValue, float64(s.latency.Count()), e.created, name, res)
		ch <- mustHistogram(d.latency, s.latency, e.created, name, res)
		if s.intended != nil {
			ch <- mustHistogram(d.intended, s.intended, e.created, name, res)
		}
	}
	if p := e.plan; p != nil {
		gauge(d.target, p.Target)
		gauge(d.threads, float64(p.Threads))
		gauge(d.planned, float64(p.Operations))
		gauge(d.maxExec, p.MaxExecution.Seconds())
		gauge(d.measuring, b2f(e.measuring))
		gauge(d.finished, b2f(e.finished))
		ch <- prometheus.MustNewConstMetricWithCreatedTimestamp(d.lost, prometheus.CounterValue, float64(e.lost), e.created)
		if e.measuring {
			gauge(d.start, float64(e.start.UnixNano())/1e9)
		}
	}
	if !e.observedAt.IsZero() {
		gauge(d.observedAt, float64(e.observedAt.UnixNano())/1e9)
	}
	for _, name := range e.serverOrder {
		e.collectServer(ch, name, e.server[name])
	}
	if e.growPlanned > 0 || e.grow != nil {
		gauge(d.growPlanned, float64(e.growPlanned))
		gauge(d.growDone, float64(e.growDone))
		if e.plan == nil {
			gauge(d.finished, b2f(e.finished))
		}
	}
	if c := e.grow; c != nil {
		gauge(d.growRecords, float64(c.Records))
		gauge(d.growRate, c.Insert.RecordsPerSec)
		gauge(d.growInsP99, float64(c.Insert.Latency.P99Micros)/microsPerSecond)
		for _, q := range c.Queries {
			gauge(d.growQueryP99, float64(q.Latency.P99Micros)/microsPerSecond, q.Name)
		}
		if s := c.Sizes; s != nil {
			for _, kv := range []struct {
				kind string
				v    *int64
			}{{"data", s.Size}, {"storage", s.StorageSize}, {"index", s.TotalIndexSize}} {
				if kv.v != nil {
					gauge(d.growBytes, float64(*kv.v), kv.kind)
				}
			}
		}
	}
}

// collectServer sends a process's latest sample: the figures it had.
func (e *Exporter) collectServer(ch chan<- prometheus.Metric, proc string, s *telemetry.Sample) {
	d := &e.d
	counter := func(desc *prometheus.Desc, c telemetry.Counter, labels ...string) {
		if v := s.Counters[c]; v.Valid {
			ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, float64(v.V), append([]string{proc}, labels...)...)
		}
	}
	gauge := func(desc *prometheus.Desc, g telemetry.Gauge, scale float64, labels ...string) {
		if v := s.Gauges[g]; v.Valid {
			ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, v.V*scale, append([]string{proc}, labels...)...)
		}
	}
	for _, c := range telemetry.OpCounters {
		counter(d.srvOps, c, c.String())
	}
	counter(d.srvNet, telemetry.CounterNetIn, "in")
	counter(d.srvNet, telemetry.CounterNetOut, "out")
	gauge(d.srvConns, telemetry.GaugeConnections, 1)
	gauge(d.srvAvail, telemetry.GaugeConnectionsAvailable, 1)
	// The telemetry's cache figures are percentages; Prometheus' unit
	// is the ratio.
	gauge(d.srvCacheUsed, telemetry.GaugeCacheUsedPercent, 0.01)
	gauge(d.srvCacheDirty, telemetry.GaugeCacheDirtyPercent, 0.01)
	gauge(d.srvTicketsOut, telemetry.GaugeReadTicketsOut, 1, "read")
	gauge(d.srvTicketsOut, telemetry.GaugeWriteTicketsOut, 1, "write")
	gauge(d.srvTicketsAvail, telemetry.GaugeReadTicketsAvailable, 1, "read")
	gauge(d.srvTicketsAvail, telemetry.GaugeWriteTicketsAvailable, 1, "write")
	gauge(d.srvQueued, telemetry.GaugeQueueReaders, 1, "readers")
	gauge(d.srvQueued, telemetry.GaugeQueueWriters, 1, "writers")
	gauge(d.srvRes, telemetry.GaugeResidentMiB, 1<<20)
}

func mustHistogram(desc *prometheus.Desc, h *results.Histogram, created time.Time, labels ...string) prometheus.Metric {
	m, err := histogramMetric(desc, h, created, labels...)
	if err != nil {
		return prometheus.NewInvalidMetric(desc, err)
	}
	return m
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
