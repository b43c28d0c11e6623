package results

import (
	"fmt"
	"slices"
	"time"
)

// Merge combines the results of the n parallel loaders of one phase into one
// Result whose histograms are exactly those of a single loader that recorded
// every operation: statuses add, histograms merge, and the runtime is the
// phase's wall time (first start to last end), so Throughput is total
// operations over wall time. The merged Loader identity is index 0 of n with
// the total thread count.
//
// It is an error (never silently ignored) for a loader to be missing or
// duplicated, or for the results to mix load and run phases. A Grow phase
// has one loader: its merge is a copy, checkpoints included.
func Merge(rs []*Result) (*Result, error) {
	if len(rs) == 0 {
		return nil, fmt.Errorf("no results to merge")
	}
	n := rs[0].Loader.Count
	if rs[0].Kind == KindGrow && n != 1 {
		return nil, fmt.Errorf("a %s phase has one loader, not %d", KindGrow, n)
	}
	if len(rs) != n {
		return nil, fmt.Errorf("have %d results for %d loaders", len(rs), n)
	}
	seen := make([]bool, n)
	out := &Result{Version: FormatVersion, Kind: rs[0].Kind, Loader: Identity{Index: 0, Count: n}, StopReason: StopCompleted}
	series := make([]Series, 0, n)
	for _, r := range rs {
		if r.Kind != out.Kind {
			return nil, fmt.Errorf("cannot merge a %s result with a %s result", r.Kind, out.Kind)
		}
		if r.Loader.Count != n || r.Loader.Index < 0 || r.Loader.Index >= n {
			return nil, fmt.Errorf("loader index %d of %d does not belong to a phase of %d loaders", r.Loader.Index, r.Loader.Count, n)
		}
		if seen[r.Loader.Index] {
			return nil, fmt.Errorf("two results from loader %d", r.Loader.Index)
		}
		seen[r.Loader.Index] = true
		out.Loader.Threads += r.Loader.Threads
		if out.Start.IsZero() || r.Start.Before(out.Start) {
			out.Start = r.Start
		}
		if r.End.After(out.End) {
			out.End = r.End
		}
		out.Operations += r.Operations
		out.PlannedOperations += r.PlannedOperations
		out.LostInserts += r.LostInserts
		out.StopReason = worseStop(out.StopReason, r.StopReason)
		for i := range r.Ops {
			mergeOp(out, &r.Ops[i])
		}
		series = append(series, r.Series)
	}
	if n == 1 {
		// A single loader's own runtime is YCSB's RunTime; keep it exact.
		out.RuntimeMillis = rs[0].RuntimeMillis
		out.Growth = rs[0].Growth.clone()
	} else {
		out.RuntimeMillis = out.End.Sub(out.Start).Milliseconds()
	}
	sortOps(out.Ops, func(o OpResult) string { return o.Name })
	s, err := mergeSeries(series)
	if err != nil {
		return nil, err
	}
	out.Series = s
	return out, nil
}

func mergeOp(out *Result, op *OpResult) {
	m := out.Op(op.Name)
	if m == nil {
		out.Ops = append(out.Ops, OpResult{Name: op.Name, Statuses: map[string]int64{}})
		m = &out.Ops[len(out.Ops)-1]
	}
	for s, c := range op.Statuses {
		m.Statuses[s] += c
	}
	if op.Latency.Count() > 0 {
		if m.Latency == nil {
			m.Latency = NewHistogram()
		}
		m.Latency.Merge(op.Latency)
	}
	if op.Failed.Count() > 0 {
		if m.Failed == nil {
			m.Failed = NewHistogram()
		}
		m.Failed.Merge(op.Failed)
	}
}

func worseStop(a, b StopReason) StopReason {
	rank := func(s StopReason) int {
		switch s {
		case StopCancelled:
			return 2
		case StopMaxExecutionTime:
			return 1
		}
		return 0
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// sortOps orders operations canonically (OperationOrder first, others by
// name) so merged output does not depend on input order.
func sortOps[T any](ops []T, name func(T) string) {
	rank := func(n string) int {
		if i := slices.Index(OperationOrder, n); i >= 0 {
			return i
		}
		return len(OperationOrder)
	}
	slices.SortStableFunc(ops, func(a, b T) int {
		na, nb := name(a), name(b)
		if ra, rb := rank(na), rank(nb); ra != rb {
			return ra - rb
		}
		switch {
		case na < nb:
			return -1
		case na > nb:
			return 1
		}
		return 0
	})
}

// Runtime is the result's runtime as a duration.
func (r *Result) Runtime() time.Duration { return time.Duration(r.RuntimeMillis) * time.Millisecond }
