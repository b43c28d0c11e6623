package plugin

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/spf13/cobra"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// defaultWaitTimeout matches a run's default spec.timeout: by then the
// controller has failed the run, unless it is not running at all.
const defaultWaitTimeout = 2 * time.Hour

func newWaitCommand(o *options) *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "wait run/NAME | sweep/NAME",
		Short: "Wait until a run or sweep ends, printing its progress",
		Long: `Wait until a BenchmarkRun or BenchmarkSweep ends.

Unlike "kubectl wait --for=condition=Complete", it returns as soon as the run
fails. It watches the run (reconnecting when a watch expires) and prints a
line on stdout whenever something changes, stamped in UTC:

  2026-05-02T10:00:04Z run/demo phase=Provisioning current=- topology=WaitingForPods message="..."
  2026-05-02T10:00:31Z run/demo phase=Loading current=load
  2026-05-02T10:01:12Z run/demo phase=Running current=run finished=load type=Load ops/s=24390.24 runtime=41s operations=1000000 p99=1543us
  2026-05-02T10:02:40Z run/demo phase=Succeeded current=run finished=run type=Run ops/s=11363.64 runtime=1m28s operations=1000000 p99=2011us

When the run fails, the last line carries reason=REASON, and the Failed
condition's reason and message go to stderr. When it succeeds but is not
valid (its Valid condition is False: a process restarted, a primary
changed, a loader saturated, ...), the last line carries invalid=REASON
and the Valid condition's reason and message go to stderr. A run that
ends with its Warnings condition True (database pods that are not
Guaranteed QoS, MongoDB startup warnings) has its reason and message on
stderr too, whatever the verdict.

A sweep prints its phase and cell counts, and a line for every child run
that ends:

  2026-05-02T10:00:02Z sweep/study phase=Running cells=0/5 failed=0 active=1
  2026-05-02T10:40:09Z sweep/study phase=Running cells=0/5 failed=0 active=1 run=study-0-r1 cell=standalone run-phase=Succeeded
  2026-05-02T15:12:40Z sweep/study phase=PartiallySucceeded cells=5/5 failed=1 active=0 run=study-4-r2 cell=8-shards run-phase=Failed run-reason=PhaseFailed

(phase, cells done of total, cells with a failed run, runs active; once
the sweep failed, reason=REASON).

It exits 0 when every run succeeded (Succeeded) and each cell has a valid
run, 1 when the sweep Failed (its Failed condition's reason and message go
to stderr) or ended PartiallySucceeded (the failed runs and their reasons
go to stderr), and 4 when every run succeeded but a cell has no valid run
(its runs all have a Valid condition that is False), so the cell has no
results. Invalid runs are named on stderr whatever the exit code; a run
that ends invalid adds run-invalid=REASON to its line, and the state adds
invalid=N (the invalid runs) once there are some.

--timeout bounds the wait (default 2h, a run's default spec.timeout; give
a sweep one that covers all its runs); --timeout=0 checks once without
waiting (exit 2 if it has not finished), a negative value waits without
limit.

` + exitCodesHelp,
		Example: `  # In CI: block until the run finishes, fail the job if it failed.
  kubectl mongobench wait run/demo --timeout=1h && kubectl mongobench results run/demo
  # A whole study, then its report.
  kubectl mongobench wait sweep/study --timeout=12h; kubectl mongobench report sweep/study -o html --out reports/`,
		Args: refArg(KindRun, KindSweep),
		RunE: onRef(func(ctx context.Context, ref Ref) error { return o.wait(ctx, ref, timeout) }, KindRun, KindSweep),
	}
	cmd.Flags().DurationVar(&timeout, "timeout", defaultWaitTimeout,
		"how long to wait; 0 checks once, a negative value waits without limit")
	return cmd
}

// waited is what wait follows: a run or a sweep.
type waited struct {
	ref Ref
	// example is an empty object of the kind, for the watch cache.
	example runtime.Object
	lw      cache.ListerWatcher
	// observe prints what changed and reports whether the object ended.
	observe func(obj runtime.Object) (finished bool, err error)
	// state describes where the object is, for messages.
	state func() string
	// verdict turns the ended object into the exit code.
	verdict func() error
}

// wait follows the run or sweep until it ends, the timeout passes or ctx
// is done.
func (o *options) wait(ctx context.Context, ref Ref, timeout time.Duration) error {
	c, err := newAPIClient(o.flags)
	if err != nil {
		return err
	}
	// A first read turns a typo in the name into an immediate error rather
	// than a wait for an object that never appears. Only --timeout=0 prints
	// it: otherwise the watch's first event does, so that what is printed
	// and what the watch follows are one sequence.
	var w *waited
	var first runtime.Object
	switch ref.Kind {
	case KindSweep:
		sweep, err := c.getSweep(ctx, ref.Name)
		if err != nil {
			return err
		}
		w, first = o.waitedSweep(c, ref, sweep), sweep
	default:
		run, err := c.getRun(ctx, ref.Name)
		if err != nil {
			return err
		}
		w, first = o.waitedRun(c, ref, run), run
	}
	if timeout == 0 {
		done, err := w.observe(first)
		if err != nil {
			return err
		}
		if !done {
			return withCode(ExitNoVerdict, fmt.Errorf("%s has not finished (%s)", ref, w.state()))
		}
		return w.verdict()
	}

	waitCtx, cancel := context.WithCancel(ctx)
	if timeout > 0 {
		waitCtx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	lw := w.lw
	if o.wrapWatch != nil {
		lw = o.wrapWatch(lw)
	}
	// The informer behind UntilWithSync lists, then watches from the list's
	// resourceVersion, and re-lists when a watch expires or breaks: no
	// change is missed and the wait survives API server restarts.
	exists := func(store cache.Store) (bool, error) {
		_, ok, err := store.Get(&metav1.ObjectMeta{Namespace: c.namespace, Name: ref.Name})
		if err != nil {
			return true, fmt.Errorf("read %s from the watch cache: %w", ref, err)
		}
		if !ok {
			return true, withCode(ExitNoVerdict, fmt.Errorf("%s was deleted", ref))
		}
		return false, nil
	}
	_, err = watchtools.UntilWithSync(waitCtx, lw, w.example, exists, func(ev watch.Event) (bool, error) {
		switch ev.Type {
		case watch.Deleted:
			return false, withCode(ExitNoVerdict, fmt.Errorf("%s was deleted while waiting (%s)", ref, w.state()))
		case watch.Added, watch.Modified:
			return w.observe(ev.Object)
		}
		return false, nil
	})
	switch {
	case err == nil:
		return w.verdict()
	case ctx.Err() != nil:
		return withCode(ExitNoVerdict, fmt.Errorf("interrupted while waiting for %s (%s)", ref, w.state()))
	case errors.Is(waitCtx.Err(), context.DeadlineExceeded):
		return withCode(ExitNoVerdict, fmt.Errorf("timed out after %s waiting for %s (%s)", timeout, ref, w.state()))
	}
	var own *exitError
	if errors.As(err, &own) {
		return own // the conditions' own errors say what happened
	}
	return fmt.Errorf("watch %s: %w", ref, err)
}

// waitedRun follows a run, printing a line per change.
func (o *options) waitedRun(c *apiClient, ref Ref, run *benchv1.BenchmarkRun) *waited {
	p := &progress{ref: ref, out: o.streams.Out, now: o.now}
	last := run
	return &waited{
		ref: ref, example: &benchv1.BenchmarkRun{}, lw: c.listWatch(runsResource, ref.Name),
		observe: func(obj runtime.Object) (bool, error) {
			r, ok := obj.(*benchv1.BenchmarkRun)
			if !ok {
				return false, fmt.Errorf("watch %s: unexpected object %T", ref, obj)
			}
			last = r
			p.observe(r)
			return finished(&r.Status), nil
		},
		state:   func() string { return stateOf(&last.Status) },
		verdict: func() error { return o.verdict(ref, &last.Status) },
	}
}

// verdict turns a finished run into the exit code, printing a failure's
// reason and message on stderr.
func (o *options) verdict(ref Ref, st *benchv1.BenchmarkRunStatus) error {
	// The Warnings condition (database pods that are not Guaranteed QoS,
	// ...) changes no verdict, but whoever reads the numbers next should
	// know what may have skewed them, whatever the run's outcome.
	if c := meta.FindStatusCondition(st.Conditions, benchv1.ConditionWarnings); c != nil && c.Status == metav1.ConditionTrue {
		_, _ = fmt.Fprintf(o.streams.ErrOut, "%s has warnings: %s: %s\n", ref, c.Reason, c.Message)
	}
	if failed, reason, message := runFailed(st); failed {
		if reason == "" {
			reason, message = "Unknown", "the run is Failed but has no Failed condition"
		}
		_, _ = fmt.Fprintf(o.streams.ErrOut, "%s failed: %s: %s\n", ref, reason, message)
		return withCode(ExitFailed, nil)
	}
	// spec.compare's gate: a run can succeed and still be worse than its
	// baseline.
	if c := meta.FindStatusCondition(st.Conditions, benchv1.ConditionRegressed); c != nil && c.Status == metav1.ConditionTrue {
		_, _ = fmt.Fprintf(o.streams.ErrOut, "%s succeeded but regressed: %s\n", ref, c.Message)
		return withCode(ExitRegressed, nil)
	}
	// The validity checks: a run can succeed and measure something else
	// than the database (a restart, an election, a saturated loader).
	if c := runInvalid(st); c != nil {
		_, _ = fmt.Fprintf(o.streams.ErrOut, "%s succeeded but is not valid: %s: %s\n", ref, c.Reason, c.Message)
		return withCode(ExitInvalid, nil)
	}
	return nil
}

// runInvalid is the Valid condition of a run that succeeded but is not
// valid, nil otherwise (benchv1.BenchmarkRun.Invalid).
func runInvalid(st *benchv1.BenchmarkRunStatus) *metav1.Condition {
	return (&benchv1.BenchmarkRun{Status: *st}).Invalid()
}

// finished reports whether the run reached a terminal state.
func finished(st *benchv1.BenchmarkRunStatus) bool {
	failed, _, _ := runFailed(st)
	return failed || runSucceeded(st)
}

// stateOf describes where a run is, for messages.
func stateOf(st *benchv1.BenchmarkRunStatus) string {
	return fmt.Sprintf("phase %s, current phase %s", orDash(string(st.Phase)), orDash(st.CurrentPhase))
}
