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
// has one loader: its merge is a copy, checkpoints included. Disruptions
// merge per disruption (mergeDisruptions).
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
	out := &Result{Version: FormatVersion, Kind: rs[0].Kind, Loader: Identity{Index: 0, Count: n}, StopReason: StopCompleted,
		MeasurementInterval: rs[0].MeasurementInterval}
	series := make([]Series, 0, n)
	for _, r := range rs {
		if r.Kind != out.Kind {
			return nil, fmt.Errorf("cannot merge a %s result with a %s result", r.Kind, out.Kind)
		}
		if r.MeasurementInterval != out.MeasurementInterval {
			return nil, fmt.Errorf("cannot merge results measured with measurement.interval %q and %q",
				orOp(out.MeasurementInterval), orOp(r.MeasurementInterval))
		}
		if (r.Warmup == nil) != (rs[0].Warmup == nil) {
			return nil, fmt.Errorf("loader %d had %s warm-up, loader %d %s", rs[0].Loader.Index, haveNot(rs[0].Warmup != nil),
				r.Loader.Index, haveNot(r.Warmup != nil))
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
		out.Ops = mergeOps(out.Ops, r.Ops)
		if w := r.Warmup; w != nil {
			if out.Warmup == nil {
				out.Warmup = &Warmup{Start: w.Start, End: w.End}
			}
			ow := out.Warmup
			if w.Start.Before(ow.Start) {
				ow.Start = w.Start
			}
			if w.End.After(ow.End) {
				ow.End = w.End
			}
			ow.Operations += w.Operations
			ow.Ops = mergeOps(ow.Ops, w.Ops)
		}
		out.Loaders = append(out.Loaders, r.Loaders...)
		series = append(series, r.Series)
	}
	slices.SortFunc(out.Loaders, func(a, b LoaderStats) int { return a.Index - b.Index })
	for i := 1; i < len(out.Loaders); i++ {
		if out.Loaders[i].Index == out.Loaders[i-1].Index {
			return nil, fmt.Errorf("two loader stats for loader %d", out.Loaders[i].Index)
		}
	}
	if n == 1 {
		// A single loader's own runtime is YCSB's RunTime; keep it exact.
		out.RuntimeMillis = rs[0].RuntimeMillis
		out.Growth = rs[0].Growth.clone()
	} else {
		out.RuntimeMillis = out.End.Sub(out.Start).Milliseconds()
	}
	sortOps(out.Ops, func(o OpResult) string { return o.Name })
	if out.Warmup != nil {
		sortOps(out.Warmup.Ops, func(o OpResult) string { return o.Name })
	}
	s, err := mergeSeries(series)
	if err != nil {
		return nil, err
	}
	out.Series = s
	if out.Disruptions, err = mergeDisruptions(rs); err != nil {
		return nil, fmt.Errorf("merge disruptions: %w", err)
	}
	return out, nil
}

// mergeOps adds ops into out, an operation at a time, and returns it.
func mergeOps(out, ops []OpResult) []OpResult {
	for i := range ops {
		op := &ops[i]
		j := slices.IndexFunc(out, func(o OpResult) bool { return o.Name == op.Name })
		if j < 0 {
			out = append(out, OpResult{Name: op.Name, Statuses: map[string]int64{}})
			j = len(out) - 1
		}
		out[j].Add(op)
	}
	return out
}

// Add adds o's counts and histograms to m's (whose Statuses must not be
// nil): how the measurements of one operation are merged, the loaders'
// here and a Grow phase's segments in internal/growth.
func (m *OpResult) Add(o *OpResult) {
	for s, c := range o.Statuses {
		m.Statuses[s] += c
	}
	MergeHistogram(&m.Latency, o.Latency)
	MergeHistogram(&m.Failed, o.Failed)
	MergeHistogram(&m.Intended, o.Intended)
	MergeHistogram(&m.IntendedFailed, o.IntendedFailed)
}

// MergeHistogram merges h into *dst, creating it when h has samples (so
// an operation without, say, failures keeps a nil Failed).
func MergeHistogram(dst **Histogram, h *Histogram) {
	if h.Count() == 0 {
		return
	}
	if *dst == nil {
		*dst = NewHistogram()
	}
	(*dst).Merge(h)
}

func orOp(interval string) string {
	if interval == IntervalOp {
		return "op"
	}
	return interval
}

func haveNot(b bool) string {
	if b {
		return "a"
	}
	return "no"
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
