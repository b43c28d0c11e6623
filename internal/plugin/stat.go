package plugin

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/mongobench/mongobench/internal/telemetry"
)

// statFlags are stat's flags.
type statFlags struct {
	output string
	phase  string
}

var statFormats = []string{outputTable, outputCSV, outputJSON}

func newStatCommand(o *options) *cobra.Command {
	f := &statFlags{}
	cmd := &cobra.Command{
		Use:   "stat run/NAME",
		Short: "Print a run's server telemetry as mongostat does",
		Long: `Print the server telemetry of a BenchmarkRun's finished phases like
mongostat: one row per interval and MongoDB process (standalone, config
server, each shard, mongos), read from the phase's telemetry ConfigMap
(status.results[].telemetry).

Columns: the phase, the process's pod, the interval's end as time since
the phase started, opcounters per second (insert, query, update, delete,
getmore, command), the WiredTiger cache's dirty and used % (of its
maximum), the global lock queue (readers|writers), the tickets in use
(read|write), network MB/s in and out (10^6 bytes), current connections and
resident memory (MiB). Rates and gauges are the interval's means; "-" is a
value the server did not report (and for rates, no two samples in the
interval). Long phases have wider intervals (at most 120 per process).

Exit codes: 0 printed, 2 no verdict: usage error (bad reference, -o or
--phase), the run does not exist, no telemetry, or the API server could
not be asked.`,
		Example: `  kubectl mongobench stat run/demo
  kubectl mongobench stat run/demo --phase run -o csv > run-mongostat.csv`,
		Args: refArg(KindRun),
		RunE: onRun(func(ctx context.Context, ref Ref) error { return o.stat(ctx, ref, f) }),
	}
	cmd.Flags().StringVarP(&f.output, "output", "o", outputTable, "output format: "+strings.Join(statFormats, ", "))
	cmd.Flags().StringVar(&f.phase, "phase", "", "print only this benchmark phase (spec.phases[].name)")
	return cmd
}

// statRow is one interval of one process.
type statRow struct {
	Phase string `json:"phase"`
	Role  string `json:"role"`
	Pod   string `json:"pod"`
	// Seconds is the interval's end, since the phase started.
	Seconds float64 `json:"seconds"`
	// Samples taken in the interval.
	Samples int                `json:"samples"`
	Rates   map[string]float64 `json:"rates"`
	Gauges  map[string]float64 `json:"gauges"`
}

// The rates and gauges stat prints, in column order.
var (
	statRates = []telemetry.Counter{telemetry.CounterInsert, telemetry.CounterQuery, telemetry.CounterUpdate,
		telemetry.CounterDelete, telemetry.CounterGetmore, telemetry.CounterCommand}
	statGauges = []telemetry.Gauge{telemetry.GaugeCacheDirtyPercent, telemetry.GaugeCacheUsedPercent, telemetry.GaugeQueueReaders,
		telemetry.GaugeQueueWriters, telemetry.GaugeReadTicketsOut, telemetry.GaugeWriteTicketsOut, telemetry.GaugeConnections, telemetry.GaugeResidentMiB}
)

func (o *options) stat(ctx context.Context, ref Ref, f *statFlags) error {
	if err := checkOutput(f.output, statFormats); err != nil {
		return err
	}
	c, err := newAPIClient(o.flags)
	if err != nil {
		return err
	}
	run, phases, err := c.getRunPhases(ctx, ref.Name, f.phase)
	if err != nil {
		return err
	}
	var rows []statRow
	for _, ph := range phases {
		if ph.Telemetry == "" {
			if f.phase != "" {
				return usageErrorf("phase %s of %s has no server telemetry (spec.telemetry.enabled false, or none arrived)", ph.Name, ref)
			}
			continue
		}
		rep, err := c.getTelemetry(ctx, ph.Telemetry)
		if err != nil {
			return err
		}
		rows = append(rows, statRows(ph.Name, rep)...)
	}
	if len(rows) == 0 {
		return usageErrorf("%s has no server telemetry in its finished phases (%s)", ref, phaseNames(run.Status.Results))
	}
	return writeStat(o.streams.Out, rows, f.output)
}

// statRows turns a phase's payload into rows, interval by interval, each
// interval's processes in the payload's (topology) order.
func statRows(phase string, rep *telemetry.Payload) []statRow {
	var rows []statRow
	longest := 0
	for i := range rep.Processes {
		longest = max(longest, len(rep.Processes[i].Series.Points))
	}
	for i := 0; i < longest; i++ {
		for _, p := range rep.Processes {
			s := &p.Series
			if i >= len(s.Points) {
				continue
			}
			pt := &s.Points[i]
			end := s.Start.Add(time.Duration(int64(i+1)*s.IntervalMillis) * time.Millisecond)
			row := statRow{Phase: phase, Role: p.Role, Pod: p.Pod, Seconds: end.Sub(rep.Start).Seconds(), Samples: pt.Samples,
				Rates: map[string]float64{}, Gauges: map[string]float64{}}
			for _, c := range append(statRates, telemetry.CounterNetIn, telemetry.CounterNetOut) {
				if v, ok := pt.Rate(c); ok {
					row.Rates[c.String()] = v
				}
			}
			for _, g := range statGauges {
				if st := pt.Gauges[g]; st.N > 0 {
					row.Gauges[g.String()] = st.Mean
				}
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// statColumns are the table's and CSV's columns after phase, pod and time.
var statColumns = []struct {
	head string
	cell func(r *statRow) string
}{
	{"INSERT", rateCell(telemetry.CounterInsert)}, {"QUERY", rateCell(telemetry.CounterQuery)},
	{"UPDATE", rateCell(telemetry.CounterUpdate)}, {"DELETE", rateCell(telemetry.CounterDelete)},
	{"GETMORE", rateCell(telemetry.CounterGetmore)}, {"COMMAND", rateCell(telemetry.CounterCommand)},
	{"DIRTY%", gaugeCell(telemetry.GaugeCacheDirtyPercent, 1)}, {"USED%", gaugeCell(telemetry.GaugeCacheUsedPercent, 1)},
	{"QR|QW", pairCell(telemetry.GaugeQueueReaders, telemetry.GaugeQueueWriters)},
	{"AR|AW", pairCell(telemetry.GaugeReadTicketsOut, telemetry.GaugeWriteTicketsOut)},
	{"NET_IN(MB/s)", mbCell(telemetry.CounterNetIn)}, {"NET_OUT(MB/s)", mbCell(telemetry.CounterNetOut)},
	{"CONN", gaugeCell(telemetry.GaugeConnections, 0)}, {"RES(MiB)", gaugeCell(telemetry.GaugeResidentMiB, 0)},
}

func rateCell(c telemetry.Counter) func(*statRow) string {
	return func(r *statRow) string {
		v, ok := r.Rates[c.String()]
		if !ok {
			return "-"
		}
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
}

func mbCell(c telemetry.Counter) func(*statRow) string {
	return func(r *statRow) string {
		v, ok := r.Rates[c.String()]
		if !ok {
			return "-"
		}
		return strconv.FormatFloat(v/1e6, 'f', 2, 64)
	}
}

func gaugeCell(g telemetry.Gauge, decimals int) func(*statRow) string {
	return func(r *statRow) string {
		v, ok := r.Gauges[g.String()]
		if !ok {
			return "-"
		}
		return strconv.FormatFloat(v, 'f', decimals, 64)
	}
}

func pairCell(a, b telemetry.Gauge) func(*statRow) string {
	return func(r *statRow) string { return gaugeCell(a, 0)(r) + "|" + gaugeCell(b, 0)(r) }
}

// writeStat prints rows in format out.
func writeStat(w io.Writer, rows []statRow, out string) error {
	switch out {
	case outputJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Rows []statRow `json:"rows"`
		}{rows}); err != nil {
			return fmt.Errorf("write JSON: %w", err)
		}
		return nil
	case outputCSV:
		cw := csv.NewWriter(w)
		head := []string{"phase", "role", "pod", "seconds"}
		for _, c := range statColumns {
			head = append(head, strings.ToLower(c.head))
		}
		_ = cw.Write(head)
		for i := range rows {
			r := &rows[i]
			rec := []string{r.Phase, r.Role, r.Pod, strconv.FormatFloat(r.Seconds, 'f', 3, 64)}
			for _, c := range statColumns {
				rec = append(rec, c.cell(r))
			}
			_ = cw.Write(rec)
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return fmt.Errorf("write CSV: %w", err)
		}
		return nil
	}
	tw := printers.GetNewTabWriter(w)
	head := []string{"PHASE", "POD", "TIME"}
	for _, c := range statColumns {
		head = append(head, c.head)
	}
	// The tab writer buffers everything; Flush reports a write error.
	_, _ = fmt.Fprintln(tw, strings.Join(head, "\t"))
	for i := range rows {
		r := &rows[i]
		cells := []string{r.Phase, r.Pod, "+" + (time.Duration(r.Seconds * float64(time.Second))).Round(time.Millisecond).String()}
		for _, c := range statColumns {
			cells = append(cells, c.cell(r))
		}
		_, _ = fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	return nil
}
