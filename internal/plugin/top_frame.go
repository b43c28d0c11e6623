package plugin

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"k8s.io/cli-runtime/pkg/printers"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// top's frames: a run's (its state, live numbers and finished phases) in
// full, or a sweep's, with each of its active runs compact. "-" is a
// value not known yet (a rate before a second scrape), as in the other
// commands' tables.

// clearScreen moves the cursor home and clears the screen (ANSI/VT100),
// written before each frame on a terminal only.
const clearScreen = "\x1b[H\x1b[2J"

// runFrame is what top shows of one run.
type runFrame struct {
	ref    Ref
	status *benchv1.BenchmarkRunStatus
	// live is nil when there are no live numbers; missing says why,
	// empty once the run ended (nothing is running any more).
	live    *liveView
	missing string
}

// sweepFrame is what top shows of a sweep: its state and its active runs.
type sweepFrame struct {
	ref    Ref
	status *benchv1.BenchmarkSweepStatus
	runs   []sweepRunFrame
	// missing says why the runs could not be read ("" when they were).
	missing string
}

type sweepRunFrame struct {
	cell string
	runFrame
}

// frameHeader is a frame's first line: the resource, its state, when and
// how often.
func frameHeader(ref Ref, state string, at time.Time, every time.Duration) string {
	return fmt.Sprintf("%s  %s  at %s, every %s\n", ref, state, at.UTC().Format(progressTimeLayout), every)
}

// writeRunFrame prints a run's frame: the header, the current phase's
// progress, per operation ops/s and p99, per loader ops/s, loader 0's
// server telemetry, then the finished phases' results.
func writeRunFrame(w io.Writer, f *runFrame, at time.Time, every time.Duration) error {
	var b strings.Builder
	b.WriteString(frameHeader(f.ref, runState(f.status), at, every))
	if v := f.live; v != nil {
		b.WriteString(liveProgress(v) + "\n")
		b.WriteString(ratesOver(v) + "\n\n")
		if err := writeLiveTables(&b, v); err != nil {
			return err
		}
	}
	if f.missing != "" {
		b.WriteString("no live numbers: " + f.missing + "\n")
	}
	if f.live != nil && len(f.status.Results) > 0 {
		b.WriteString("\n")
	}
	writeFinished(&b, f.status, "")
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("write frame: %w", err)
	}
	return nil
}

// writeSweepFrame prints a sweep's frame: the header, then each active
// run compact.
func writeSweepFrame(w io.Writer, f *sweepFrame, at time.Time, every time.Duration) error {
	var b strings.Builder
	b.WriteString(frameHeader(f.ref, sweepState(f.status), at, every))
	if f.missing != "" {
		b.WriteString("no live numbers: " + f.missing + "\n")
	}
	if len(f.runs) == 0 && f.missing == "" && !sweepFinished(f.status) {
		b.WriteString("no run is active\n")
	}
	for i := range f.runs {
		writeCompactRun(&b, &f.runs[i])
	}
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("write frame: %w", err)
	}
	return nil
}

// writeCompactRun prints a sweep's active run in a few lines.
func writeCompactRun(b *strings.Builder, r *sweepRunFrame) {
	_, _ = fmt.Fprintf(b, "\n%s cell=%s %s\n", r.ref, orDash(r.cell), runState(r.status))
	if v := r.live; v != nil {
		b.WriteString("  " + liveProgress(v) + "; " + ratesOver(v) + "\n")
		ops := make([]string, 0, len(v.ops))
		for _, o := range v.ops {
			p99 := p99Cell(o)
			if o.hasP99 {
				p99 += "us"
			}
			ops = append(ops, fmt.Sprintf("%s %s/s p99=%s", o.name, perSecond(o.rate, o.hasRate), p99))
		}
		if len(ops) > 0 {
			b.WriteString("  " + strings.Join(ops, ", ") + "\n")
		}
		loaders := make([]string, 0, len(v.loaderRows))
		for _, l := range v.loaderRows {
			s := fmt.Sprintf("%s %s/s", orDash(l.index), perSecond(l.rate, l.hasRate))
			if l.lagging {
				s += " LAGGING"
			}
			loaders = append(loaders, s)
		}
		b.WriteString("  loaders: " + strings.Join(loaders, ", ") + "\n")
		for _, s := range v.server {
			fields := make([]string, 0, len(statRates)+2)
			fields = append(fields, "conn="+gaugeText(s.connections, s.hasConnections, 0))
			for _, c := range statRates {
				fields = append(fields, c.String()+"="+serverRateCell(s, c.String())+"/s")
			}
			fields = append(fields, "dirty="+gaugeText(s.dirtyPercent, s.hasDirty, 1)+"%")
			b.WriteString("  server " + s.process + ": " + strings.Join(fields, " ") + "\n")
		}
		for _, p := range v.problems {
			b.WriteString("  " + p + "\n")
		}
	}
	if r.missing != "" {
		b.WriteString("  no live numbers: " + r.missing + "\n")
	}
	writeFinished(b, r.status, "  ")
}

// liveProgress describes the current phase's progress: its loaders, the
// operations issued of those planned, and the time since measuring
// started of the phase's maximum.
func liveProgress(v *liveView) string {
	if g := v.grow; g != nil {
		// A Grow phase: its progress is its checkpoints, and it has no
		// YCSB operations.
		s := fmt.Sprintf("phase %s (Grow): checkpoint %s of %s, %s records", orDash(v.phase),
			strconv.FormatFloat(g.checkpoints, 'f', 0, 64), strconv.FormatFloat(g.planned, 'f', 0, 64),
			strconv.FormatFloat(g.records, 'f', 0, 64))
		if g.checkpoints > 0 {
			s += fmt.Sprintf(", %s records/s over the last checkpoint's span", strconv.FormatFloat(g.insertRate, 'f', 0, 64))
		}
		if v.finished > 0 {
			s += ", finished"
		}
		return s
	}
	s := fmt.Sprintf("phase %s: %d loaders (%d measuring, %d finished), %s operations",
		orDash(v.phase), v.loaders, v.measuring, v.finished, strconv.FormatFloat(v.operations, 'f', 0, 64))
	if v.planned > 0 {
		s += fmt.Sprintf(" of %s planned (%.1f%%, warm-up included)", strconv.FormatFloat(v.planned, 'f', 0, 64), 100*v.operations/v.planned)
	} else {
		s += " (bounded by time)"
	}
	switch {
	case !v.hasElapsed:
		s += ", not measuring yet"
	case v.maxExecution > 0:
		s += fmt.Sprintf(", elapsed %s of %s", v.elapsed, v.maxExecution)
	default:
		s += fmt.Sprintf(", elapsed %s", v.elapsed)
	}
	return s
}

// ratesOver says what the rates are over.
func ratesOver(v *liveView) string {
	if v.over <= 0 {
		return "rates and p99 from the next frame (one scrape so far)"
	}
	return fmt.Sprintf("rates and p99 over the last %s", v.over.Round(time.Millisecond))
}

// writeLiveTables prints the operations, loaders and server tables.
func writeLiveTables(w io.Writer, v *liveView) error {
	// A tab writer per table, so that each table's columns are as wide as
	// its own cells. The tab writer buffers everything; Flush reports a
	// write error.
	tw := printers.GetNewTabWriter(w)
	switch {
	case len(v.ops) == 0 && v.grow != nil:
		_, _ = fmt.Fprintln(tw, "no YCSB operations: a Grow phase inserts and queries at checkpoints (kubectl mongobench results, once taken)")
	case len(v.ops) == 0:
		_, _ = fmt.Fprintln(tw, "no operations yet")
	default:
		_, _ = fmt.Fprintln(tw, "OPERATION\tOPS/S\tERRORS/S\tP99(us)\tOPERATIONS\tERRORS")
	}
	for _, o := range v.ops {
		_, _ = fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", o.name, perSecond(o.rate, o.hasRate), perSecond(o.errorRate, o.hasRate),
			p99Cell(o), strconv.FormatFloat(o.total, 'f', 0, 64), strconv.FormatFloat(o.errors, 'f', 0, 64))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write frame: %w", err)
	}
	tw = printers.GetNewTabWriter(w)
	_, _ = fmt.Fprintln(tw, "\nLOADER\tPOD\tSTATE\tTHREADS\tOPS/S\tVS-MEDIAN")
	for _, l := range v.loaderRows {
		vs := "-"
		if l.ofMedian > 0 {
			vs = strconv.FormatFloat(100*l.ofMedian, 'f', 0, 64) + "%"
			if l.lagging {
				vs += " LAGGING"
			}
		}
		_, _ = fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", orDash(l.index), l.pod, l.state,
			strconv.FormatFloat(l.threads, 'f', 0, 64), perSecond(l.rate, l.hasRate), vs)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write frame: %w", err)
	}
	tw = printers.GetNewTabWriter(w)
	if len(v.server) > 0 {
		head := []string{"\nSERVER (LOADER 0)", "CONN"}
		for _, c := range statRates {
			head = append(head, strings.ToUpper(c.String())+"/S")
		}
		_, _ = fmt.Fprintln(tw, strings.Join(append(head, "DIRTY%"), "\t"))
		for _, s := range v.server {
			cells := []string{s.process, gaugeText(s.connections, s.hasConnections, 0)}
			for _, c := range statRates {
				cells = append(cells, serverRateCell(s, c.String()))
			}
			cells = append(cells, gaugeText(s.dirtyPercent, s.hasDirty, 1))
			_, _ = fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write frame: %w", err)
	}
	for _, p := range v.problems {
		_, _ = fmt.Fprintln(w, p)
	}
	return nil
}

// writeFinished prints a line per finished benchmark phase, as wait
// prints it.
func writeFinished(b *strings.Builder, st *benchv1.BenchmarkRunStatus, indent string) {
	for i := range st.Results {
		b.WriteString(indent + finishedFields(&st.Results[i]) + "\n")
	}
}

func perSecond(v float64, ok bool) string {
	if !ok {
		return "-"
	}
	return fixed2(v)
}

func p99Cell(o opView) string {
	if !o.hasP99 {
		return "-"
	}
	return strconv.FormatInt(roundMicros(o.p99), 10)
}

func gaugeText(v float64, ok bool, decimals int) string {
	if !ok {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

func serverRateCell(s serverView, typ string) string {
	r, ok := s.rates[typ]
	return gaugeText(r, ok, 0)
}
