package results

import (
	"fmt"
	"time"
)

// FormatVersion is the version of the Result encoding. Decoders reject other
// versions rather than guess.
const FormatVersion = 1

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
}

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
	return o.Total() - o.Statuses["OK"] - o.Statuses["BATCHED_OK"]
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
func (r *Result) Validate() error {
	if r.Version != FormatVersion {
		return fmt.Errorf("result format version %d, want %d", r.Version, FormatVersion)
	}
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
	seen := map[string]bool{}
	for i := range r.Ops {
		op := &r.Ops[i]
		if op.Name == "" || seen[op.Name] {
			return fmt.Errorf("operation %d: empty or duplicate name %q", i, op.Name)
		}
		seen[op.Name] = true
		for s, n := range op.Statuses {
			if n < 0 {
				return fmt.Errorf("%s: negative count for %s", op.Name, s)
			}
		}
		ok := op.Statuses["OK"] + op.Statuses["BATCHED_OK"]
		if got := op.Latency.Count(); got != ok {
			return fmt.Errorf("%s: latency histogram holds %d samples but %d operations succeeded", op.Name, got, ok)
		}
		if got, want := op.Failed.Count(), op.Total()-ok; got != want {
			return fmt.Errorf("%s: failed histogram holds %d samples but %d operations failed", op.Name, got, want)
		}
	}
	return r.Series.Validate()
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
