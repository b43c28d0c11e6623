package plugin

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
		Use:   "wait run/NAME",
		Short: "Wait until a run succeeds or fails, printing its progress",
		Long: `Wait until a BenchmarkRun succeeds or fails.

Unlike "kubectl wait --for=condition=Complete", it returns as soon as the run
fails. It watches the run (reconnecting when a watch expires) and prints a
line on stdout whenever something changes, stamped in UTC:

  2026-05-02T10:00:04Z run/demo phase=Provisioning current=- topology=WaitingForPods message="..."
  2026-05-02T10:00:31Z run/demo phase=Loading current=load
  2026-05-02T10:01:12Z run/demo phase=Running current=run finished=load type=Load ops/s=24390.24 runtime=41s operations=1000000 p99=1543us
  2026-05-02T10:02:40Z run/demo phase=Succeeded current=run finished=run type=Run ops/s=11363.64 runtime=1m28s operations=1000000 p99=2011us

When the run fails, the last line carries reason=REASON, and the Failed
condition's reason and message go to stderr.

--timeout bounds the wait (default 2h, a run's default spec.timeout);
--timeout=0 checks once without waiting (exit 2 if the run has not
finished), a negative value waits without limit.

` + exitCodesHelp,
		Example: `  # In CI: block until the run finishes, fail the job if it failed.
  kubectl mongobench wait run/demo --timeout=1h && kubectl mongobench results run/demo`,
		Args: refArg(KindRun),
		RunE: onRun(func(ctx context.Context, ref Ref) error { return o.wait(ctx, ref, timeout) }),
	}
	cmd.Flags().DurationVar(&timeout, "timeout", defaultWaitTimeout,
		"how long to wait; 0 checks once, a negative value waits without limit")
	return cmd
}

// wait follows the run until it ends, the timeout passes or ctx is done.
func (o *options) wait(ctx context.Context, ref Ref, timeout time.Duration) error {
	c, err := newAPIClient(o.flags)
	if err != nil {
		return err
	}
	// A first read turns a typo in the name into an immediate error rather
	// than a wait for an object that never appears.
	run, err := c.getRun(ctx, ref.Name)
	if err != nil {
		return err
	}
	p := &progress{ref: ref, out: o.streams.Out, now: o.now}
	if timeout == 0 {
		p.observe(run)
		if !finished(&run.Status) {
			return withCode(ExitNoVerdict, fmt.Errorf("%s has not finished (%s)", ref, stateOf(&run.Status)))
		}
		return o.verdict(ref, &run.Status)
	}

	waitCtx, cancel := context.WithCancel(ctx)
	if timeout > 0 {
		waitCtx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	lw := c.runListWatch(ref.Name)
	if o.wrapWatch != nil {
		lw = o.wrapWatch(lw)
	}
	last := run
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
	_, err = watchtools.UntilWithSync(waitCtx, lw, &benchv1.BenchmarkRun{}, exists, func(ev watch.Event) (bool, error) {
		switch ev.Type {
		case watch.Deleted:
			return false, withCode(ExitNoVerdict, fmt.Errorf("%s was deleted while waiting (%s)", ref, stateOf(&last.Status)))
		case watch.Added, watch.Modified:
			r, ok := ev.Object.(*benchv1.BenchmarkRun)
			if !ok {
				return false, fmt.Errorf("watch %s: unexpected object %T", ref, ev.Object)
			}
			last = r
			p.observe(r)
			return finished(&r.Status), nil
		}
		return false, nil
	})
	switch {
	case err == nil:
		return o.verdict(ref, &last.Status)
	case ctx.Err() != nil:
		return withCode(ExitNoVerdict, fmt.Errorf("interrupted while waiting for %s (%s)", ref, stateOf(&last.Status)))
	case errors.Is(waitCtx.Err(), context.DeadlineExceeded):
		return withCode(ExitNoVerdict, fmt.Errorf("timed out after %s waiting for %s (%s)", timeout, ref, stateOf(&last.Status)))
	}
	var own *exitError
	if errors.As(err, &own) {
		return own // the conditions' own errors say what happened
	}
	return fmt.Errorf("watch %s: %w", ref, err)
}

// verdict turns a finished run into the exit code, printing a failure's
// reason and message on stderr.
func (o *options) verdict(ref Ref, st *benchv1.BenchmarkRunStatus) error {
	if failed, reason, message := runFailed(st); failed {
		if reason == "" {
			reason, message = "Unknown", "the run is Failed but has no Failed condition"
		}
		_, _ = fmt.Fprintf(o.streams.ErrOut, "%s failed: %s: %s\n", ref, reason, message)
		return withCode(ExitFailed, nil)
	}
	return nil
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
