package plugin

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// resultsFlags are the results command's options.
type resultsFlags struct {
	output      string
	phase       string
	percentiles string
}

func newResultsCommand(o *options) *cobra.Command {
	f := &resultsFlags{}
	cmd := &cobra.Command{
		Use:   "results run/NAME [-o table|json|csv|ycsb]",
		Short: "Print a run's results per phase and operation",
		Long: `Print the results of a BenchmarkRun's finished phases: per phase its
overall operations, throughput, runtime and p99 over all database calls,
and per operation type (READ, UPDATE, INSERT, SCAN, READ-MODIFY-WRITE, ...)
its count, errors, ops/s (count / phase runtime) and latencies in
microseconds: average, p50, p95, p99, p99.9. Latencies cover successful
operations, as in YCSB; every percentile comes from histograms merged
exactly over the phase's loaders. A phase measured with
measurement.interval intended or both has intended latencies too (from
the moment the target's schedule meant each call to start); a phase with
a warm-up has the warm-up's numbers apart; each loader reports its
connections, CPU use and throttling, and a phase run by several loaders
how far apart their measured windows started (start skew); a phase with
disruptions (spec.phases[].disruptions) has what every loader measured of
each. The run's Valid condition says whether the numbers are the
database's.

Output formats (-o):
  table  aligned columns, like kubectl; the OVERALL row of a phase holds its
         own numbers, a WARMUP row its warm-up's (WARMUP-<OP> rows its
         operations), an INTENDED-P99(us) column intended p99s when a
         phase measured them; "-" marks values a row does not have. Then
         a table of the loaders (CONNECTIONS, CONNECT, CPU in % of
         CPU-LIMIT, THROTTLED in % of the window, the phase's START-SKEW),
         a table of the phases' disruptions (action and AT, OUTCOME and
         how long the action took, WRITES-DOWN and READS-DOWN: maximum/
         median over the loaders of the time to their first success, and
         how many never recovered; NEW-PRIMARY: the drivers' maximum, and
         telemetry's; the most frequent ERRORS; RETRIED operations; the
         phase's OPS/S and P99 before the disruption → after it
         recovered), and the Valid condition (VALID, REASON, MESSAGE).
  csv    a header row, then per phase an OVERALL row, one row per
         operation, WARMUP and WARMUP-<OP> rows, and a LOADER row per
         loader: namespace,run,phase,type,operation,count,errors,
         ops_per_sec,runtime_ms,avg_us,min_us,max_us,p50_us,p95_us,p99_us,
         p999_us,intended_avg_us,intended_min_us,intended_max_us,
         intended_p50_us,intended_p95_us,intended_p99_us,intended_p999_us,
         start_skew_ms,loader,pod,connections,connect_ms,cpu_percent,
         cpu_limit,throttled_percent,valid,valid_reason (runtime_ms is the
         phase's on every row, the warm-up's on its rows; start_skew_ms is
         on OVERALL rows; valid and valid_reason, the Valid condition, on
         every row). A run with disruptions also has, after valid_reason,
         the columns disruption,action,at_ms,instant,outcome,sent,
         action_us,action_error,primary,write_unavailable_max_us,
         write_unavailable_median_us,write_loaders,write_never_recovered,
         read_unavailable_max_us,read_unavailable_median_us,read_loaders,
         read_never_recovered,new_primary_max_us,new_primary_median_us,
         new_primary_loaders,new_primary_missing,new_primary_telemetry_us,
         disruption_errors,error_labels,retried,retried_ok,before_ms,
         before_ops_per_sec,before_p99_us,after_ms,after_ops_per_sec,
         after_p99_us, filled on a DISRUPTION row per disruption at the end
         of its phase's rows (times in µs from the instant; error_labels
         "NotWritablePrimary=120;..."); a run without any has neither.
  json   {"kind": "BenchmarkRunResults", "version": 1, "namespace", "name",
          "runPhase", "valid": {"status", "reason", "message"},
          "phases": [{"name", "type", "loaders", "threads",
          "startTime", "completionTime", "runtimeMillis", "count",
          "opsPerSec", "p99Micros", "stopReason", "lostInserts",
          "measurementInterval", "intendedP99Micros", "startSkewMillis",
          "operations": [{"name", "count", "errors", "opsPerSec",
          "avgMicros", "minMicros", "maxMicros", "p50Micros", "p95Micros",
          "p99Micros", "p999Micros", "statuses": {"OK": n, ...},
          "intended": {"avgMicros", "minMicros", "maxMicros", "p50Micros",
          "p95Micros", "p99Micros", "p999Micros"}}],
          "warmup": {"runtimeMillis", "count", "opsPerSec", "p99Micros",
          "operations": [...]}, "loaderStats": [{"index", "pod",
          "connections", "connectMillis", "cpuPercent", "cpuLimit",
          "throttledPercent"}], "disruptions": [status.results[].disruptions,
          as the API has them]}]}
         Fields are only added within a version; those a run does not
         have are left out.
  ycsb   YCSB's text report per phase ("[OVERALL], RunTime(ms), ...",
         "[READ], 95thPercentileLatency(us), ...", "[READ], Return=OK, ..."),
         printed by the loader's own report writer from the merged results,
         so YCSB parsers keep working. A phase's disruptions follow its
         report as lines of the same shape, a section per disruption:
         "[DISRUPTION 0 StepDown], At(ms), 30000", "Outcome=Done, 1",
         "ActionTime(us)", "Frozen(ms)" (a Pause), "WriteUnavailableMax(ms)", "...Median(ms)",
         "...Loaders", "WriteNeverRecovered", the same for ReadUnavailable
         and NewPrimary, "NewPrimaryTelemetry(ms)", "Errors",
         "Error=<label>", "Retried", "RetriedOK",
         "ThroughputBefore(ops/sec)", "99thPercentileLatencyBefore(us)" and
         their After. With measurement.interval intended
         the [READ] blocks hold the intended latencies (with the Return=
         lines), with both the [Intended-READ] blocks follow the others
         (without them), as YCSB 0.17.0 prints them; a warm-up adds
         "[WARMUP], RunTime(ms)", "[WARMUP], Operations" and [WARMUP-<OP>]
         blocks at the end. Each report is preceded by a line
         "# run/NAME phase=P type=T loaders=N threads=N", which does not
         start with "[" and is skipped by YCSB parsers; with --phase there
         is no such line and the output is exactly one YCSB report. Status
         keeps no latencies of failed operations, so there are no
         "[OP-FAILED]" blocks (the Return= lines count every failure), and
         AverageLatency is rounded to hundredths.

A run that has not finished shows the phases finished so far (a note on
stderr says so). A run that failed shows the phases that finished before
it failed; stderr gives the Failed condition's reason and message and
names the phases with results. Exit codes: 0 printed, 1 the run failed
and has no results to print (no phase has, or not the --phase asked
for), 2 no verdict: usage error (bad reference, -o, --phase or
--percentiles), the run does not exist, or the API server could not be
asked.`,
		Example: `  kubectl mongobench results run/demo
  kubectl mongobench results run/demo -o csv > demo.csv
  kubectl mongobench results run/demo -o ycsb --phase run | my-ycsb-parser`,
		Args: refArg(KindRun),
		RunE: onRun(func(ctx context.Context, ref Ref) error { return o.results(ctx, ref, f) }),
	}
	cmd.Flags().StringVarP(&f.output, "output", "o", outputTable, "output format: "+strings.Join(outputFormats, ", "))
	cmd.Flags().StringVar(&f.phase, "phase", "", "print only this benchmark phase (spec.phases[].name)")
	cmd.Flags().StringVar(&f.percentiles, "percentiles", ycsb.DefaultPercentiles,
		"-o ycsb: the percentile lines, as YCSB's hdrhistogram.percentiles (any of 50, 95, 99, 99.9)")
	return cmd
}

// results prints a run's results in the chosen format.
func (o *options) results(ctx context.Context, ref Ref, f *resultsFlags) error {
	// Flags are checked before the API server is asked, so a typo fails
	// fast and the same way whether or not a cluster is reachable.
	if err := checkOutput(f.output, outputFormats); err != nil {
		return err
	}
	percentiles, err := parseStatusPercentiles(f.percentiles)
	if err != nil {
		return usageErrorf("%w", err)
	}
	c, err := newAPIClient(o.flags)
	if err != nil {
		return err
	}
	run, err := c.getRun(ctx, ref.Name)
	if err != nil {
		return err
	}
	if failed, reason, message := runFailed(&run.Status); failed {
		// A failed run's results are those of the phases that finished
		// before it failed: say why it failed and which phases those are,
		// so that nobody reads a partial table as the whole run.
		if err := o.reportFailure(ref, run, reason, message, f.phase); err != nil {
			return err
		}
	} else if !finished(&run.Status) {
		_, _ = fmt.Fprintf(o.streams.ErrOut, "%s has not finished (%s): showing its finished phases (%s)\n",
			ref, stateOf(&run.Status), phaseNames(run.Status.Results))
	}
	phases := run.Status.Results
	if f.phase != "" {
		if phases, err = selectPhase(run, f.phase); err != nil {
			return err
		}
	}
	return writeResults(o.streams.Out, run, phases, f.output, percentiles, f.phase == "")
}

// reportFailure tells on stderr why a failed run failed and which of its
// phases have results. With none to print (none at all, or not the phase
// asked for) the run's verdict is the answer: exit 1, as wait's.
func (o *options) reportFailure(ref Ref, run *benchv1.BenchmarkRun, reason, message, phase string) error {
	if reason == "" {
		reason, message = "Unknown", "the run is Failed but has no Failed condition"
	}
	_, _ = fmt.Fprintf(o.streams.ErrOut, "%s failed: %s: %s\n", ref, reason, message)
	_, _ = fmt.Fprintf(o.streams.ErrOut, "phases with results: %s (of %s)\n",
		phaseNames(run.Status.Results), specPhaseNames(run))
	if len(run.Status.Results) == 0 {
		return withCode(ExitFailed, nil)
	}
	if phase == "" {
		return nil
	}
	for i := range run.Status.Results {
		if strings.EqualFold(run.Status.Results[i].Name, phase) {
			return nil
		}
	}
	for _, p := range run.Spec.Phases {
		if strings.EqualFold(p.Name, phase) {
			return withCode(ExitFailed, fmt.Errorf("phase %s of %s has no results: the run failed before it finished", p.Name, ref))
		}
	}
	return nil // not a phase of the run: selectPhase's usage error
}

// specPhaseNames lists the run's phases, as spec.phases names them.
func specPhaseNames(run *benchv1.BenchmarkRun) string {
	names := make([]string, len(run.Spec.Phases))
	for i, p := range run.Spec.Phases {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// writeResults prints the phases of run in format out.
func writeResults(w io.Writer, run *benchv1.BenchmarkRun, phases []benchv1.PhaseResult, out string, percentiles []float64, ycsbHeaders bool) error {
	if out == outputYCSB {
		return writeYCSB(w, run, phases, percentiles, ycsbHeaders)
	}
	view := run.DeepCopy()
	view.Status.Results = phases
	switch out {
	case outputJSON:
		return writeJSON(w, newResultsDoc(view))
	case outputCSV:
		return writeCSV(w, view)
	}
	return writeTable(w, newResultsDoc(view))
}

// getRunPhases reads a run and the results that stat shows:
// every finished phase's, or only those of the phase named (when not
// empty), with selectPhase's errors when it has none.
func (c *apiClient) getRunPhases(ctx context.Context, name, phase string) (*benchv1.BenchmarkRun, []benchv1.PhaseResult, error) {
	run, err := c.getRun(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	if phase == "" {
		return run, run.Status.Results, nil
	}
	phases, err := selectPhase(run, phase)
	if err != nil {
		return nil, nil, err
	}
	return run, phases, nil
}

// selectPhase finds the named phase's results (names are unique ignoring
// case, as the API enforces).
func selectPhase(run *benchv1.BenchmarkRun, name string) ([]benchv1.PhaseResult, error) {
	for i := range run.Status.Results {
		if strings.EqualFold(run.Status.Results[i].Name, name) {
			return run.Status.Results[i : i+1], nil
		}
	}
	ref := Ref{Kind: KindRun, Name: run.Name}
	for _, p := range run.Spec.Phases {
		if strings.EqualFold(p.Name, name) {
			return nil, withCode(ExitNoVerdict, fmt.Errorf("phase %s of %s has no results yet (%s)", p.Name, ref, stateOf(&run.Status)))
		}
	}
	return nil, usageErrorf("%s has no phase %q (its phases: %s)", ref, name, specPhaseNames(run))
}
