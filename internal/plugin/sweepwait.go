package plugin

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// waitedSweep follows a sweep, printing a line per change.
func (o *options) waitedSweep(c *apiClient, ref Ref, sweep *benchv1.BenchmarkSweep) *waited {
	var prev *benchv1.BenchmarkSweepStatus
	last := sweep
	return &waited{
		ref: ref, example: &benchv1.BenchmarkSweep{}, lw: c.listWatch(sweepsResource, ref.Name),
		observe: func(obj runtime.Object) (bool, error) {
			s, ok := obj.(*benchv1.BenchmarkSweep)
			if !ok {
				return false, fmt.Errorf("watch %s: unexpected object %T", ref, obj)
			}
			last = s
			ts := o.now().UTC().Format(progressTimeLayout)
			for _, l := range sweepProgressLines(prev, &s.Status) {
				// Progress is for people; the verdict is the exit code.
				_, _ = fmt.Fprintf(o.streams.Out, "%s %s %s\n", ts, ref, l)
			}
			prev = s.Status.DeepCopy()
			return sweepFinished(&s.Status), nil
		},
		state:   func() string { return sweepState(&last.Status) },
		verdict: func() error { return o.sweepVerdict(ref, &last.Status) },
	}
}

// sweepProgressLines describes the changes from prev to cur (prev nil:
// the first observation). Every line starts with the sweep's state,
// "phase=P cells=DONE/TOTAL failed=N active=N [invalid=N]"; each child
// run that ended since adds a line "run=NAME cell=CELL run-phase=P
// [run-reason=R] [run-invalid=R]", and a change of the state alone prints
// the state line.
func sweepProgressLines(prev, cur *benchv1.BenchmarkSweepStatus) []string {
	first := prev == nil
	if first {
		prev = &benchv1.BenchmarkSweepStatus{}
	}
	state := sweepState(cur)
	ended := map[string]bool{}
	for _, c := range prev.Cells {
		for _, r := range c.Runs {
			ended[r.Name] = runEnded(r.Phase)
		}
	}
	var lines []string
	for _, c := range cur.Cells {
		for _, r := range c.Runs {
			if !runEnded(r.Phase) || ended[r.Name] {
				continue
			}
			l := fmt.Sprintf("%s run=%s cell=%s run-phase=%s", state, r.Name, c.Name, r.Phase)
			if r.Reason != "" {
				l += " run-reason=" + r.Reason
			}
			if r.Valid != nil && !*r.Valid {
				l += " run-invalid=" + orDash(r.InvalidReason)
			}
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 && (first || state != sweepState(prev)) {
		lines = append(lines, state)
	}
	return lines
}

func runEnded(p benchv1.RunLifecycle) bool {
	return p == benchv1.RunSucceeded || p == benchv1.RunFailed
}

// sweepState describes where a sweep is, for progress lines and messages.
func sweepState(st *benchv1.BenchmarkSweepStatus) string {
	s := fmt.Sprintf("phase=%s cells=%d/%d failed=%d active=%d", orDash(string(st.Phase)), st.CellsDone, st.CellsTotal, st.CellsFailed, st.RunsActive)
	if st.RunsInvalid > 0 {
		s += fmt.Sprintf(" invalid=%d", st.RunsInvalid)
	}
	if failed, reason, _ := sweepFailed(st); failed && reason != "" {
		s += " reason=" + reason
	}
	return s
}

// sweepFailed reads a failure from the Failed condition, or the phase.
func sweepFailed(st *benchv1.BenchmarkSweepStatus) (failed bool, reason, message string) {
	if c := meta.FindStatusCondition(st.Conditions, benchv1.ConditionFailed); c != nil && c.Status == metav1.ConditionTrue {
		return true, c.Reason, c.Message
	}
	return st.Phase == benchv1.SweepFailed, "", ""
}

// sweepFinished reports whether the sweep reached a terminal phase.
func sweepFinished(st *benchv1.BenchmarkSweepStatus) bool {
	if failed, _, _ := sweepFailed(st); failed {
		return true
	}
	return st.Phase == benchv1.SweepSucceeded || st.Phase == benchv1.SweepPartiallySucceeded
}

// sweepVerdict turns an ended sweep into the exit code: only a sweep whose
// every run succeeded, not regressed, with a valid run in each cell
// passes; why it did not goes to stderr, and so do its invalid runs.
func (o *options) sweepVerdict(ref Ref, st *benchv1.BenchmarkSweepStatus) error {
	lines, cellsWithoutValid := sweepInvalid(ref, st)
	defer func() {
		for _, l := range lines {
			_, _ = fmt.Fprintln(o.streams.ErrOut, l)
		}
	}()
	if failed, reason, message := sweepFailed(st); failed {
		if reason == "" {
			reason, message = "Unknown", "the sweep is Failed but has no Failed condition"
		}
		_, _ = fmt.Fprintf(o.streams.ErrOut, "%s failed: %s: %s\n", ref, reason, message)
		return withCode(ExitFailed, nil)
	}
	if st.Phase == benchv1.SweepPartiallySucceeded {
		var failedRuns []string
		total := 0
		for _, c := range st.Cells {
			for _, r := range c.Runs {
				total++
				if r.Phase == benchv1.RunFailed {
					failedRuns = append(failedRuns, fmt.Sprintf("%s (%s)", r.Name, orDash(r.Reason)))
				}
			}
		}
		_, _ = fmt.Fprintf(o.streams.ErrOut, "%s partially succeeded: %d of %d cells have failed runs; %d of %d runs failed: %s\n",
			ref, st.CellsFailed, st.CellsTotal, len(failedRuns), total, strings.Join(failedRuns, ", "))
		return withCode(ExitFailed, nil)
	}
	// spec.compare's gate, cell by cell.
	if c := meta.FindStatusCondition(st.Conditions, benchv1.ConditionRegressed); c != nil && c.Status == metav1.ConditionTrue {
		_, _ = fmt.Fprintf(o.streams.ErrOut, "%s succeeded but regressed: %s\n", ref, c.Message)
		return withCode(ExitRegressed, nil)
	}
	if cellsWithoutValid > 0 {
		return withCode(ExitInvalid, nil)
	}
	return nil
}

// sweepInvalid describes a sweep's invalid runs for stderr: a line naming
// the cells that have no valid run (so no results), each with its invalid
// runs, and a line naming the other invalid runs (left out of their
// cells' results); none without invalid runs. It counts the cells without
// a valid run: cells with an invalid run and no run that succeeded and is
// not invalid, as the controller's status.cellsInvalid once they ended.
func sweepInvalid(ref Ref, st *benchv1.BenchmarkSweepStatus) (lines []string, cellsWithoutValid int) {
	var cells, others []string
	for _, c := range st.Cells {
		var invalid []string
		usable := 0
		for _, r := range c.Runs {
			switch {
			case r.Valid != nil && !*r.Valid:
				invalid = append(invalid, r.Name+": "+orDash(r.InvalidReason))
			case r.Phase == benchv1.RunSucceeded:
				usable++
			}
		}
		switch {
		case len(invalid) == 0:
		case usable == 0:
			cells = append(cells, fmt.Sprintf("%s (%s)", c.Name, strings.Join(invalid, ", ")))
		default:
			for _, r := range invalid {
				others = append(others, "cell "+c.Name+" "+r)
			}
		}
	}
	if len(cells) > 0 {
		lines = append(lines, fmt.Sprintf("%s: %d of %d cells have no valid run, hence no results: %s",
			ref, len(cells), len(st.Cells), strings.Join(cells, "; ")))
	}
	if len(others) > 0 {
		lines = append(lines, fmt.Sprintf("%s: %d runs are not valid and were left out of their cells' results: %s",
			ref, len(others), strings.Join(others, "; ")))
	}
	return lines, len(cells)
}
