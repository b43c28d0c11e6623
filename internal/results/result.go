package results

import (
	"fmt"
	"time"
)

// FormatVersion is the version of the Result encoding. Decoders reject other
// versions rather than guess: version 2 added the measurement interval and
// intended latencies, the warm-up and the loaders' stats, which a decoder
// of version 1 would refuse as unknown fields; version 3 added the
// disruptions and the series' failed counts. Older results (no such
// fields) still decode.
const FormatVersion = 3

// oldestFormatVersion is the oldest version Decode reads.
const oldestFormatVersion = 1

// Kind is what a loader did: YCSB's load or run (transactions) phase, or
// a Grow phase (KindGrow, growth.go).
type Kind string

// Kinds.
const (
	KindLoad Kind = "load"
	KindRun  Kind = "run"
)

// StopReason says why a loader stopped.
type StopReason string

// Stop reasons.
const (
	// StopCompleted: every planned operation was issued.
	StopCompleted StopReason = "Completed"
	// StopMaxExecutionTime: maxexecutiontime elapsed first (a normal end for
	// time-bounded runs; the result is complete for that duration).
	StopMaxExecutionTime StopReason = "MaxExecutionTime"
	// StopCancelled: the loader was told to stop (SIGTERM) before it was done;
	// the result is partial.
	StopCancelled StopReason = "Cancelled"
)

// Identity names the loader that produced a result: index i of n parallel
// loaders of one phase.
type Identity struct {
	Index    int    `json:"index"`
	Count    int    `json:"count"`
	Threads  int    `json:"threads"`
	Hostname string `json:"hostname,omitempty"`
}

// Result is one loader's outcome for one phase.
type Result struct {
	Version int      `json:"version"`
	Kind    Kind     `json:"kind"`
	Loader  Identity `json:"loader"`

	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// RuntimeMillis is YCSB's [OVERALL] RunTime(ms).
	RuntimeMillis int64 `json:"runtimeMillis"`
	// Operations is YCSB's opsDone: top-level operations issued, failed ones
	// included, as YCSB counts them for [OVERALL] Throughput.
	Operations int64 `json:"operations"`
	// PlannedOperations is how many operations this loader was to issue
	// (0 = unlimited, bounded by time).
	PlannedOperations int64      `json:"plannedOperations"`
	StopReason        StopReason `json:"stopReason"`
	// LostInserts counts buffered inserts (reported BATCHED_OK) that the
	// final flush failed to write: the data set lacks them.
	LostInserts int64 `json:"lostInserts,omitempty"`

	// Ops holds per-operation measurements in the canonical order of
	// OperationOrder; names not in that list follow, sorted.
	Ops []OpResult `json:"ops"`

	// Series is the per-interval time series.
	Series Series `json:"series"`

	// Growth holds a Grow phase's checkpoints (KindGrow only). Ops are
	// then the phase's overall INSERT and Q1..Q4 measurements, over every
	// checkpoint and every loader process that worked on the phase.
	Growth *GrowthResult `json:"growth,omitempty"`

	// MeasurementInterval is YCSB's measurement.interval the loaders ran
	// with: "" (op, service times only), "intended" or "both" (the
	// operations' Intended histograms are kept too).
	MeasurementInterval string `json:"measurementInterval,omitempty"`

	// Warmup is what the phase's warm-up measured, apart from Ops: nil
	// without a warm-up. Start..End above is the measured window that
	// follows it.
	Warmup *Warmup `json:"warmup,omitempty"`

	// Loaders holds each loader's own facts (connections, start, CPU),
	// ordered by index: one entry in a loader's result, every loader's in
	// a merged one. Empty in results of loaders that did not report them.
	Loaders []LoaderStats `json:"loaders,omitempty"`

	// Disruptions are the phase's disruptions (spec.phases[].disruptions)
	// as this loader measured them, by index (merged: every loader's
	// measurements of each).
	Disruptions []Disruption `json:"disruptions,omitempty"`
}

// Measurement intervals (MeasurementInterval).
const (
	IntervalOp       = ""
	IntervalIntended = "intended"
	IntervalBoth     = "both"
)

// Warmup is a phase's warm-up: the operations the loaders ran, like the
// rest, before the measured window, into measurements of their own.
type Warmup struct {
	// Start is when the loader's threads started; End when its measured
	// window started (merged: the earliest and the latest).
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Operations counts the warm-up's top-level operations, failed ones
	// included.
	Operations int64 `json:"operations"`
	// Ops are the warm-up's measurements, like Result.Ops.
	Ops []OpResult `json:"ops,omitempty"`
}

// Op returns the warm-up's measurement of the named operation, or nil.
func (w *Warmup) Op(name string) *OpResult {
	for i := range w.Ops {
		if w.Ops[i].Name == name {
			return &w.Ops[i]
		}
	}
	return nil
}

// LoaderStats are one loader's own facts of a phase.
type LoaderStats struct {
	Index    int    `json:"index"`
	Hostname string `json:"hostname,omitempty"`
	// Connections is the number of connections the loader established
	// to its MongoDB entry point before the clock started (one per
	// thread, fewer when the pool is smaller), and ConnectMillis how long
	// that took.
	Connections   int   `json:"connections,omitempty"`
	ConnectMillis int64 `json:"connectMillis,omitempty"`
	// StartAt is the instant the phase's start barrier set for every
	// loader (zero without a barrier); Start is when this loader's
	// measured window really started.
	StartAt time.Time `json:"startAt,omitempty"`
	Start   time.Time `json:"start"`
	// CPU is the loader process's CPU use over its measured window; nil
	// when it could not be read.
	CPU *CPUUsage `json:"cpu,omitempty"`
}

// CPUUsage is a loader's CPU use over its measured window, against what it
// may use: its cgroup's CPU quota, or the CPUs it may run on.
type CPUUsage struct {
	// WindowMillis is the measured window's wall time.
	WindowMillis int64 `json:"windowMillis"`
	// UsedMillis is the process's user and system CPU time in it.
	UsedMillis int64 `json:"usedMillis"`
	// LimitMilliCPU is what the loader may use, in thousandths of a CPU,
	// and LimitSource where that comes from: "cgroup" (cpu.max or
	// cpu.cfs_quota_us) or "cpus" (the CPUs the process may run on).
	LimitMilliCPU int64  `json:"limitMilliCPU"`
	LimitSource   string `json:"limitSource"`
	// Periods and ThrottledPeriods are the CFS periods of the window
	// (cpu.stat nr_periods) and those in which the quota throttled the
	// loader (nr_throttled); ThrottledMillis is cpu.stat's throttled time,
	// summed over the CPUs' run queues (so it can exceed the window). Nil
	// when the cgroup does not say.
	Periods          *int64 `json:"periods,omitempty"`
	ThrottledPeriods *int64 `json:"throttledPeriods,omitempty"`
	ThrottledMillis  *int64 `json:"throttledMillis,omitempty"`
}

// UsedPercent is the CPU used in % of the limit over the window.
func (c *CPUUsage) UsedPercent() float64 {
	if c == nil || c.WindowMillis <= 0 || c.LimitMilliCPU <= 0 {
		return 0
	}
	return float64(c.UsedMillis) * 100 * 1000 / (float64(c.WindowMillis) * float64(c.LimitMilliCPU))
}

// ThrottledPercent is the share of the window's CFS periods in which the
// quota throttled the loader, in % (0 when unknown). cpu.stat's throttled
// time is no share of the window: the kernel adds each CPU run queue's
// (kernel/sched/fair.c, unthrottle_cfs_rq).
func (c *CPUUsage) ThrottledPercent() float64 {
	if c == nil || c.Periods == nil || c.ThrottledPeriods == nil || *c.Periods <= 0 {
		return 0
	}
	return float64(*c.ThrottledPeriods) * 100 / float64(*c.Periods)
}

// Throttled reports whether the cgroup said how often it throttled.
func (c *CPUUsage) Throttled() bool { return c != nil && c.Periods != nil }

// Partial reports whether the loader stopped before finishing its work.
func (r *Result) Partial() bool { return r.StopReason == StopCancelled }

// OpResult is the measurement of one operation type, YCSB's "<OP>" and
// "<OP>-FAILED" measurements together.
type OpResult struct {
	Name string `json:"name"`
	// Statuses counts every outcome by YCSB status name ("OK", "NOT_FOUND",
	// "ERROR", "BATCHED_OK", …): the "[OP], Return=X, n" lines.
	Statuses map[string]int64 `json:"statuses"`
	// Latency holds successful operations (YCSB's "<OP>" histogram).
	Latency *Histogram `json:"latency,omitempty"`
	// Failed holds unsuccessful operations (YCSB's "<OP>-FAILED").
	Failed *Histogram `json:"failed,omitempty"`
	// Intended and IntendedFailed hold the same operations' intended
	// latencies (measurement.interval intended or both): from the moment
	// the throttle meant each to start to its end.
	Intended       *Histogram `json:"intended,omitempty"`
	IntendedFailed *Histogram `json:"intendedFailed,omitempty"`
}

// Total is the number of operations of this type, whatever their outcome.
func (o *OpResult) Total() int64 {
	var n int64
	for _, c := range o.Statuses {
		n += c
	}
	return n
}

// Errors counts unsuccessful operations (any status but OK and BATCHED_OK).
func (o *OpResult) Errors() int64 {
	return o.Total() - o.Statuses[StatusOK] - o.Statuses[StatusBatchedOK]
}

// YCSB's operation (measurement) names.
const (
	OpRead            = "READ"
	OpUpdate          = "UPDATE"
	OpInsert          = "INSERT"
	OpScan            = "SCAN"
	OpReadModifyWrite = "READ-MODIFY-WRITE"
	OpDelete          = "DELETE"
	OpVerify          = "VERIFY"
	OpCleanup         = "CLEANUP"
)

// The statuses of a successful operation, as Statuses names them.
const (
	StatusOK = "OK"
	// StatusBatchedOK is an insert the binding only added to its thread's
	// batch (batchsize > 1): no database call, a latency of about 0.
	StatusBatchedOK = "BATCHED_OK"
)

// OperationOrder is the canonical order of operations in results and
// reports (YCSB's operation chooser order, then the rest).
var OperationOrder = []string{OpRead, OpUpdate, OpInsert, OpScan, OpReadModifyWrite, OpDelete, OpVerify, OpCleanup}

// Op returns the named operation's result or nil.
func (r *Result) Op(name string) *OpResult {
	for i := range r.Ops {
		if r.Ops[i].Name == name {
			return &r.Ops[i]
		}
	}
	return nil
}

// Throughput is YCSB's [OVERALL] Throughput(ops/sec).
func (r *Result) Throughput() float64 {
	if r.RuntimeMillis <= 0 {
		return 0
	}
	return float64(r.Operations) * 1000 / float64(r.RuntimeMillis)
}

// Validate checks internal consistency: what a decoder must refuse before
// the numbers reach a user.
func (r *Result) Validate() error { //nolint:gocyclo // one list of checks, each a line
	if r.Version < oldestFormatVersion || r.Version > FormatVersion {
		return fmt.Errorf("result format version %d, want %d to %d", r.Version, oldestFormatVersion, FormatVersion)
	}
	if err := r.validateKind(); err != nil {
		return err
	}
	if r.Loader.Count < 1 || r.Loader.Index < 0 || r.Loader.Index >= r.Loader.Count {
		return fmt.Errorf("loader index %d of %d is out of range", r.Loader.Index, r.Loader.Count)
	}
	switch r.StopReason {
	case StopCompleted, StopMaxExecutionTime, StopCancelled:
	default:
		return fmt.Errorf("unknown stop reason %q", r.StopReason)
	}
	if r.RuntimeMillis < 0 || r.Operations < 0 || r.LostInserts < 0 {
		return fmt.Errorf("negative runtime (%d ms) or operations (%d)", r.RuntimeMillis, r.Operations)
	}
	switch r.MeasurementInterval {
	case IntervalOp, IntervalIntended, IntervalBoth:
	default:
		return fmt.Errorf("unknown measurement interval %q", r.MeasurementInterval)
	}
	if err := validateOps(r.Ops, r.MeasurementInterval != IntervalOp); err != nil {
		return err
	}
	if w := r.Warmup; w != nil {
		if w.Operations < 0 || w.End.Before(w.Start) {
			return fmt.Errorf("warm-up: %d operations from %s to %s", w.Operations, w.Start, w.End)
		}
		if err := validateOps(w.Ops, r.MeasurementInterval != IntervalOp); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
	}
	for i, l := range r.Loaders {
		if l.Index < 0 || l.Index >= r.Loader.Count || (i > 0 && l.Index <= r.Loaders[i-1].Index) {
			return fmt.Errorf("loader stats %d: index %d out of order or range (%d loaders)", i, l.Index, r.Loader.Count)
		}
		if c := l.CPU; c != nil && (c.WindowMillis < 0 || c.UsedMillis < 0 || c.LimitMilliCPU <= 0 ||
			(c.ThrottledMillis != nil && *c.ThrottledMillis < 0) || (c.Periods != nil && *c.Periods < 0) ||
			(c.ThrottledPeriods != nil && (*c.ThrottledPeriods < 0 || c.Periods == nil || *c.ThrottledPeriods > *c.Periods))) {
			return fmt.Errorf("loader %d: CPU usage %+v is not possible", l.Index, *c)
		}
	}
	if err := validateDisruptions(r.Disruptions, r.Loader.Count); err != nil {
		return err
	}
	return r.Series.Validate()
}

// validateKind checks what the result's kind asks for: a Grow phase's
// growth, of one loader; none for YCSB's phases.
func (r *Result) validateKind() error {
	switch r.Kind {
	case KindLoad, KindRun:
		if r.Growth != nil {
			return fmt.Errorf("a %s result with growth checkpoints", r.Kind)
		}
	case KindGrow:
		if r.Growth == nil {
			return fmt.Errorf("a %s result without its growth", r.Kind)
		}
		if r.Loader.Count != 1 {
			return fmt.Errorf("a %s phase has one loader, not %d", r.Kind, r.Loader.Count)
		}
		if err := r.Growth.validate(); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown result kind %q", r.Kind)
	}
	return nil
}

// validateOps checks that each operation's histograms hold as many samples
// as its statuses say; intended latencies, when kept, as many as the
// service times (VERIFY has none: YCSB measures it without one).
func validateOps(ops []OpResult, intended bool) error {
	seen := map[string]bool{}
	for i := range ops {
		op := &ops[i]
		if op.Name == "" || seen[op.Name] {
			return fmt.Errorf("operation %d: empty or duplicate name %q", i, op.Name)
		}
		seen[op.Name] = true
		for s, n := range op.Statuses {
			if n < 0 {
				return fmt.Errorf("%s: negative count for %s", op.Name, s)
			}
		}
		ok := op.Statuses[StatusOK] + op.Statuses[StatusBatchedOK]
		if got := op.Latency.Count(); got != ok {
			return fmt.Errorf("%s: latency histogram holds %d samples but %d operations succeeded", op.Name, got, ok)
		}
		if got, want := op.Failed.Count(), op.Total()-ok; got != want {
			return fmt.Errorf("%s: failed histogram holds %d samples but %d operations failed", op.Name, got, want)
		}
		if !intended || op.Name == OpVerify {
			if op.Intended.Count()+op.IntendedFailed.Count() > 0 {
				return fmt.Errorf("%s: intended latencies without measurement.interval intended or both", op.Name)
			}
			continue
		}
		if op.Intended.Count() != op.Latency.Count() || op.IntendedFailed.Count() != op.Failed.Count() {
			return fmt.Errorf("%s: %d+%d intended latencies for %d+%d operations", op.Name,
				op.Intended.Count(), op.IntendedFailed.Count(), op.Latency.Count(), op.Failed.Count())
		}
	}
	return nil
}

// combinedOps are the operations whose samples are single database calls.
// READ-MODIFY-WRITE is left out: its inner READ and UPDATE are already
// counted under their own names (YCSB's convention), and CLEANUP/VERIFY are
// not database calls of the workload. Q1..Q4 are a Grow phase's queries.
var combinedOps = []string{OpRead, OpUpdate, OpInsert, OpScan, OpDelete, OpQ1, OpQ2, OpQ3, OpQ4}

// CombinedLatency is the latency histogram of every successful database call
// of the workload, all operation types together: the basis of a single
// "p99" figure for a phase.
func (r *Result) CombinedLatency() *Histogram {
	h := NewHistogram()
	for _, name := range combinedOps {
		if op := r.Op(name); op != nil {
			h.Merge(op.Latency)
		}
	}
	return h
}

// CombinedIntended is CombinedLatency of the intended latencies: nil when
// they were not measured.
func (r *Result) CombinedIntended() *Histogram {
	if r.MeasurementInterval == IntervalOp {
		return nil
	}
	h := NewHistogram()
	for _, name := range combinedOps {
		if op := r.Op(name); op != nil {
			h.Merge(op.Intended)
		}
	}
	return h
}
