package plugin

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/compare"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/results"
)

// reportFlags are the report command's options.
type reportFlags struct {
	output  string
	out     string
	axis    string
	history int
}

func newReportCommand(o *options) *cobra.Command {
	f := &reportFlags{}
	formats := make([]string, 0, len(report.Formats()))
	for _, ft := range report.Formats() {
		formats = append(formats, string(ft))
	}
	cmd := &cobra.Command{
		Use:   "report sweep/NAME | run/NAME [-o md|csv|json|html] [--out DIR] [--axis NAME] [--history N]",
		Short: "Write a report of a sweep or run: Markdown, CSV, JSON, or an HTML page with charts",
		Long: `Write a report of a BenchmarkSweep (with its child runs) or of a single
BenchmarkRun (a study of one cell).

Output formats (-o):
  md    Markdown (default): per metric (throughput, p99, mean latency) a
        table with the phases as rows and the values of one axis as
        columns (--axis, default the first; with more axes one table per
        combination of the others), each value with its % change against
        the sweep's baseline cell and, with repetitions, the throughput's
        coefficient of variation; then the knees, latencies per cell, phase
        and operation, the runs' environment fingerprints (and the fields
        that differ), and the failed runs with their reasons.
  csv   long format, one row per cell, repetition, phase and operation
        (and an OVERALL row per phase), each axis's value in its own
        column: ready for pandas or a spreadsheet.
  json  everything (format mongobench.report/v1): the sweep's spec and
        status, every child's spec and status, and each child phase's
        merged histograms as stored (base64), to be merged again later.
  html  one self-contained page (no scripts, nothing loaded from
        elsewhere) with the Markdown report's tables and charts:
        throughput, p99 and mean latency against each numeric axis with
        the knees marked, peak connections, throughput over time.

A run or sweep with a Grow phase (the data-growth study) also gets its
growth: per checkpoint the insert rate and p99, each query class's
throughput and p99, and the data, index and storage sizes, a column per
cell (md, html), the same against records as charts (html), a row per
run, checkpoint and operation with the sizes (csv), and the cells' medians
per checkpoint (json).

Runs that succeeded but are not valid (their Valid condition is False:
a process restarted, a primary changed, a loader saturated, ...) are
named with the condition's reason and message, counted per cell, and
left out of every aggregate (md, html; csv valid and valid_reason
columns; json invalidRuns); a cell without a valid run has no numbers.
A phase measured with measurement.interval intended or both adds its
intended p99 (a table and a column in md, a chart in html, intended_*
columns in csv); warm-ups and the loaders' CPU use, throttling and start
skew get a table per cell and phase (md, html; WARMUP and LOADER rows in
csv, warmups and loaders in json). A sweep comparing Standalone with
Sharded cells says once why they are not like with like.

A run compared with a history (spec.compare.baseline.history) also gets
its gate's history: the runs its history selector selects, as the
controller chooses them, and per compared metric the values of the latest
runs (--history N, default the baseline's window), the change points and
the regime the gate tested the run against, with its verdict: a table in
md, history rows and columns in csv, the series in json and a chart in
html.

The aggregates are the sweep's status, as its controller computed them.
Without --out the report goes to stdout; with --out DIR it is written to
DIR/NAME.EXT (the directory is created) and the path is printed.

A phase with disruptions (spec.phases[].disruptions) gets a table of
them: per cell, phase and disruption its outcome, how long writes and
reads were unavailable (maximum / median over the loaders, and loaders
that never recovered), the time to a new primary, the errors by label,
the retried operations, and throughput and p99 before → after (md, html;
the median across a cell's repetitions); a sweep also compares them along
the axis (--axis), a column per value, e.g. retryWrites on and off. The
csv has a DISRUPTION row per run, phase and disruption (with its own
columns), the json each cell's in disruptions. The html marks each
disruption on the phase's throughput and p99 over time and shades its
unavailability window, and draws each at 100 ms resolution from the
phase's merged result: it reads that ConfigMap (status.results[].histograms)
for one repetition per cell only, and does without it, with a warning,
when it cannot.

A sweep or run that has not ended is reported as far as it got (a note on
stderr says so). Exit codes: 0 written, 2 no verdict: usage error (bad
reference, -o, --axis or --history), the sweep or run does not exist, or
the API server could not be asked.`,
		Example: `  kubectl mongobench report sweep/study
  kubectl mongobench report sweep/study -o html --out reports/   # reports/study.html
  kubectl mongobench report sweep/pools --axis maxPoolSize
  kubectl mongobench report run/demo -o csv > demo.csv
  kubectl mongobench report run/nightly-x7k2p -o html --history 60   # the gate's history, 60 runs back`,
		Args: refArg(KindRun, KindSweep),
		RunE: onRef(func(ctx context.Context, ref Ref) error { return o.report(ctx, ref, f) }, KindRun, KindSweep),
	}
	cmd.Flags().StringVarP(&f.output, "output", "o", string(report.FormatMarkdown), "output format: "+strings.Join(formats, ", "))
	cmd.Flags().StringVar(&f.out, "out", "", "write the report to DIR/NAME.EXT instead of stdout")
	cmd.Flags().StringVar(&f.axis, "axis", "", "the axis whose values are the tables' columns (default: the sweep's first)")
	cmd.Flags().IntVar(&f.history, "history", 0, "how many of the latest history runs a gated run's report shows (default: compare.baseline.history.window)")
	return cmd
}

// report builds the study of the sweep or run and writes it.
func (o *options) report(ctx context.Context, ref Ref, f *reportFlags) error {
	format := report.Format(f.output)
	if err := checkOutput(f.output, report.Formats()); err != nil {
		return err
	}
	if f.history < 0 || (f.history > 0 && ref.Kind != KindRun) {
		return usageErrorf("--history: a number of runs (at least 1), for a run's report")
	}
	c, err := newAPIClient(o.flags)
	if err != nil {
		return err
	}
	// Histograms only go into the JSON report; the others need not read
	// a ConfigMap per phase.
	withHistograms := format == report.FormatJSON
	var study *report.Study
	switch ref.Kind {
	case KindSweep:
		sweep, err := c.getSweep(ctx, ref.Name)
		if err != nil {
			return err
		}
		runs, err := c.sweepRuns(ctx, sweep)
		if err != nil {
			return err
		}
		hist, err := o.histograms(ctx, c, runs, withHistograms)
		if err != nil {
			return err
		}
		if study, err = report.FromSweep(sweep, runs, hist); err != nil {
			return fmt.Errorf("report %s: %w", ref, err)
		}
		if !sweepFinished(&sweep.Status) {
			_, _ = fmt.Fprintf(o.streams.ErrOut, "%s has not finished (%s): the report shows the runs ended so far\n", ref, sweepState(&sweep.Status))
		}
	default:
		run, err := c.getRun(ctx, ref.Name)
		if err != nil {
			return err
		}
		hist, err := o.histograms(ctx, c, []benchv1.BenchmarkRun{*run}, withHistograms)
		if err != nil {
			return err
		}
		study = report.FromRun(run, hist)
		if err := o.history(ctx, c, run, study, f.history); err != nil {
			return err
		}
		if !finished(&run.Status) {
			_, _ = fmt.Fprintf(o.streams.ErrOut, "%s has not finished (%s): the report shows its finished phases\n", ref, stateOf(&run.Status))
		}
	}
	if _, err := study.AxisIndex(f.axis); err != nil {
		return usageErrorf("--axis: %w", err)
	}
	if format == report.FormatHTML {
		study.Histograms = o.disruptionSeries(ctx, c, study)
	}
	opts := report.Options{Axis: f.axis}
	if f.out == "" {
		if err := report.Write(o.streams.Out, study, format, opts); err != nil {
			return fmt.Errorf("report %s: %w", ref, err)
		}
		return nil
	}
	// Render first, so a failure leaves no half-written file behind.
	var buf bytes.Buffer
	if err := report.Write(&buf, study, format, opts); err != nil {
		return fmt.Errorf("report %s: %w", ref, err)
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return fmt.Errorf("create the report directory: %w", err)
	}
	path := filepath.Join(f.out, ref.Name+"."+string(format))
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil { //nolint:gosec // a report is for reading
		return fmt.Errorf("write the report: %w", err)
	}
	_, _ = fmt.Fprintln(o.streams.Out, path)
	return nil
}

// history gives a run compared with a history its gate's history: the
// runs its history selector selects (compare.RunHistorySelector, as the
// controller lists them). --history on another run is a usage error.
func (o *options) history(ctx context.Context, c *apiClient, run *benchv1.BenchmarkRun, study *report.Study, shown int) error {
	if cs := run.Spec.Compare; cs == nil || cs.Baseline.History == nil {
		if shown > 0 {
			return usageErrorf("--history: run/%s is not compared with a history (spec.compare.baseline.history)", run.Name)
		}
		return nil
	}
	if run.Status.CompletionTime == nil {
		// The gate judges a run when it completes: no history yet.
		return nil
	}
	sel, err := compare.RunHistorySelector(run)
	if err != nil {
		return fmt.Errorf("the history of run/%s: %w", run.Name, err)
	}
	candidates, err := c.listRuns(ctx, sel)
	if err != nil {
		return err
	}
	if err := study.AddHistory(candidates, shown); err != nil {
		return fmt.Errorf("the history of run/%s: %w", run.Name, err)
	}
	return nil
}

// disruptionSeries reads, for an HTML report, the merged results of the
// phases whose disruptions the page draws at 100 ms
// (report.Study.DisruptionSeries: one repetition per cell, at most ten
// cells per phase), so a sweep of any size costs a few reads. They are
// optional: the page draws what status has without them, so a ConfigMap
// that is gone or unreadable, or an API error (a user may read runs but
// not ConfigMaps), is a warning on stderr, not a failed report.
func (o *options) disruptionSeries(ctx context.Context, c *apiClient, study *report.Study) report.Histograms {
	out := report.Histograms{}
	for _, rp := range study.DisruptionSeries() {
		var res *benchv1.PhaseResult
		for i := range study.Runs {
			if study.Runs[i].Name != rp.Run {
				continue
			}
			for j := range study.Runs[i].Status.Results {
				if study.Runs[i].Status.Results[j].Name == rp.Phase {
					res = &study.Runs[i].Status.Results[j]
				}
			}
		}
		if res == nil || res.Histograms == "" {
			continue
		}
		b, problem, err := readMerged(ctx, c, res.Histograms)
		if err != nil {
			problem = "could not be read (" + err.Error() + ")"
		}
		if problem != "" {
			_, _ = fmt.Fprintf(o.streams.ErrOut, "warning: run/%s phase %s: histogram ConfigMap %s %s; the report draws its disruptions "+
				"from status, without their 100 ms series\n", rp.Run, rp.Phase, res.Histograms, problem)
			continue
		}
		if out[rp.Run] == nil {
			out[rp.Run] = map[string][]byte{}
		}
		out[rp.Run][rp.Phase] = b
	}
	return out
}

// readMerged reads a phase's kept merged result from its ConfigMap: the
// bytes as stored once they decode as a merged result; a problem ("is
// gone", "has no key ...", "is unreadable (...)") when the ConfigMap
// cannot give one; an error when the API server could not be asked.
func readMerged(ctx context.Context, c *apiClient, name string) ([]byte, string, error) {
	cm, err := c.core.ConfigMaps(c.namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, "is gone", nil
	case err != nil:
		return nil, "", fmt.Errorf("get ConfigMap %s: %w", name, err)
	}
	b, ok := cm.BinaryData[contract.ConfigMapKey]
	if !ok {
		return nil, "has no key " + contract.ConfigMapKey, nil
	}
	if _, err := results.DecodeMerged(b); err != nil {
		return nil, fmt.Sprintf("is unreadable (%v)", err), nil
	}
	return b, "", nil
}

// histograms reads each run phase's kept merged result from the ConfigMap
// its status names (status.results[].histograms). The bytes go into the
// report as stored, once they decode as a merged result: a ConfigMap that
// is gone, lacks the key or holds something else leaves that phase out
// with a warning on stderr (the rest of the report stands); an API error
// stops the report, which must not silently lack data.
func (o *options) histograms(ctx context.Context, c *apiClient, runs []benchv1.BenchmarkRun, want bool) (report.Histograms, error) {
	if !want {
		return nil, nil
	}
	out := report.Histograms{}
	for i := range runs {
		run := &runs[i]
		for _, res := range run.Status.Results {
			if res.Histograms == "" {
				continue
			}
			b, problem, err := readMerged(ctx, c, res.Histograms)
			if err != nil {
				return nil, fmt.Errorf("get the histograms of run/%s phase %s: %w", run.Name, res.Name, err)
			}
			if problem != "" {
				_, _ = fmt.Fprintf(o.streams.ErrOut, "warning: run/%s phase %s: histogram ConfigMap %s %s; the report has no histograms for the phase\n",
					run.Name, res.Name, res.Histograms, problem)
				continue
			}
			if out[run.Name] == nil {
				out[run.Name] = map[string][]byte{}
			}
			out[run.Name][res.Name] = b
		}
	}
	return out, nil
}
