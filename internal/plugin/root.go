package plugin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/tools/cache"

	"github.com/mongobench/mongobench/internal/version"
)

// displayName is how users invoke the plugin (kubectl finds
// kubectl-mongobench on PATH and runs it for "kubectl mongobench").
const displayName = "kubectl mongobench"

// options is what every command shares: the kubeconfig flags, the IO
// streams and the seams tests need.
type options struct {
	flags   *genericclioptions.ConfigFlags
	streams genericiooptions.IOStreams
	// now stamps progress lines.
	now func() time.Time
	// wrapWatch, when set, wraps wait's list-watch; tests use it to expire
	// and drop watches. Nil in production.
	wrapWatch func(cache.ListerWatcher) cache.ListerWatcher
	// pause, when set, replaces top's wait between frames; tests use it
	// to advance a fake clock and change what the loaders serve. Nil in
	// production.
	pause func(ctx context.Context, d time.Duration) error
}

func newOptions(streams genericiooptions.IOStreams) *options {
	return &options{
		flags:   genericclioptions.NewConfigFlags(true),
		streams: streams,
		now:     time.Now,
	}
}

// Run executes the plugin with args (without the program name), printing
// errors on streams.ErrOut, and returns the process exit code.
func Run(ctx context.Context, args []string, streams genericiooptions.IOStreams) ExitCode {
	return run(ctx, args, newOptions(streams))
}

func run(ctx context.Context, args []string, o *options) ExitCode {
	root := newRootCommand(o)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	coded := errors.As(err, &ee)
	if !coded || ee.err != nil {
		_, _ = fmt.Fprintf(o.streams.ErrOut, "error: %v\n", err)
	}
	// Errors without a code come from cobra itself (an unknown command):
	// usage errors too.
	var ue *usageError
	if errors.As(err, &ue) || !coded {
		_, _ = fmt.Fprintf(o.streams.ErrOut, "See '%s --help' for usage.\n", cmd.CommandPath())
	}
	return exitCodeOf(err)
}

func newRootCommand(o *options) *cobra.Command {
	root := &cobra.Command{
		Use:   "kubectl-mongobench",
		Short: "Wait for mongobench BenchmarkRuns and BenchmarkSweeps, watch them live, read their results and telemetry, report on them",
		Long: `kubectl mongobench waits for mongobench BenchmarkRuns and BenchmarkSweeps,
shows them live while they run, prints their results and server telemetry,
and writes reports of them (Markdown, CSV, JSON, or a self-contained HTML
page with charts).

Install it by putting the kubectl-mongobench binary on your PATH; kubectl
then runs it as "kubectl mongobench". It uses your kubeconfig like kubectl
does (--kubeconfig, --context, -n/--namespace, ...).

Resources are named KIND/NAME: run/NAME (also benchmarkrun/NAME, br/NAME,
benchmarkruns/NAME) or sweep/NAME (also benchmarksweep/NAME, bsw/NAME,
sweeps/NAME); a bare NAME means a run.`,
		Annotations:       map[string]string{cobra.CommandDisplayNameAnnotation: displayName},
		Version:           version.Version,
		SilenceUsage:      true,
		SilenceErrors:     true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	root.SetIn(o.streams.In)
	root.SetOut(o.streams.Out)
	root.SetErr(o.streams.ErrOut)
	// cobra would add -v for --version; kubectl users know -v as log
	// verbosity, so the flag gets no shorthand.
	root.Flags().Bool("version", false, "print the plugin's version")
	o.flags.AddFlags(root.PersistentFlags())
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErrorf("%w", err) })
	root.AddCommand(newWaitCommand(o), newResultsCommand(o), newStatCommand(o), newReportCommand(o), newTopCommand(o))
	return root
}

// coded gives every error of a command an exit code: those without one
// (API errors) have no verdict.
func coded(run func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		err := run(cmd, args)
		var ee *exitError
		if err != nil && !errors.As(err, &ee) {
			return withCode(ExitNoVerdict, err)
		}
		return err
	}
}

// onRun is the RunE of a command on one run: it parses the run reference
// (a bad one is a usage error) and calls fn with it.
func onRun(fn func(ctx context.Context, ref Ref) error) func(*cobra.Command, []string) error {
	return onRef(fn, KindRun)
}

// onRef is the RunE of a command on one resource of the allowed kinds.
func onRef(fn func(ctx context.Context, ref Ref) error, allowed ...Kind) func(*cobra.Command, []string) error {
	return coded(func(cmd *cobra.Command, args []string) error {
		ref, err := ParseRef(args[0], allowed...)
		if err != nil {
			return usageErrorf("%w", err)
		}
		return fn(cmd.Context(), ref)
	})
}

// checkOutput checks an -o value against the command's formats, before
// the API server is asked, so a typo fails fast and the same way whether
// or not a cluster is reachable: one not listed is a usage error that
// lists them.
func checkOutput[F ~string](out string, formats []F) error {
	if slices.Contains(formats, F(out)) {
		return nil
	}
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = string(f)
	}
	return usageErrorf("unknown output format %q (want one of %s)", out, strings.Join(names, ", "))
}

// refArg accepts exactly one resource reference of the allowed kinds.
func refArg(allowed ...Kind) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != 1 {
			return usageErrorf("expected one argument, %s; got %d", wantedRefs(allowed), len(args))
		}
		if _, err := ParseRef(args[0], allowed...); err != nil {
			return usageErrorf("%w", err)
		}
		return nil
	}
}
