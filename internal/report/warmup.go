package report

import (
	"math"
	"slices"
	"strconv"
	"strings"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/stats"
)

// This file reduces what the runs say about how they were measured, apart
// from the numbers: each phase's warm-up, and its loaders (their CPU use,
// throttling and start skew). Per cell and phase, across the cell's usable
// repetitions, as the other tables.

// cellWarmup is a cell's warm-up in a phase: medians across the
// repetitions that had one.
type cellWarmup struct {
	Cell        *Cell
	Phase       string
	Repetitions int
	Operations  float64
	// OperationCounts are each repetition's operations, whole numbers
	// for the tables (wholeMedian), where Operations may be x.5.
	OperationCounts []float64
	RuntimeMillis   float64
	OpsPerSec       float64
	P99Micros       float64
}

// warmups lists each cell × phase with a warm-up, in cell and phase order.
func (s *Study) warmups() []cellWarmup {
	var out []cellWarmup
	for ci := range s.Cells {
		c := &s.Cells[ci]
		for _, ph := range s.Phases {
			var ops, ms, rate, p99 []float64
			for _, run := range c.measured() {
				if res := resultOf(run, ph.Name); res != nil && res.Warmup != nil {
					w := res.Warmup
					ops = append(ops, float64(w.Operations))
					ms = append(ms, float64(w.RuntimeMillis))
					rate = append(rate, w.Throughput)
					p99 = append(p99, float64(w.P99Micros))
				}
			}
			if len(ops) == 0 {
				continue
			}
			out = append(out, cellWarmup{Cell: c, Phase: ph.Name, Repetitions: len(ops), Operations: stats.Median(ops), OperationCounts: ops,
				RuntimeMillis: stats.Median(ms), OpsPerSec: stats.Median(rate), P99Micros: stats.Median(p99)})
		}
	}
	return out
}

// cellLoaders is what a cell's loaders reported in a phase, across the
// repetitions that reported it: the most loaders, the median of each
// repetition's connections (all loaders together), and the worst of the
// rest — the highest CPU use and throttling of any loader and the widest
// start skew, the figures the validity checks judge.
type cellLoaders struct {
	Cell        *Cell
	Phase       string
	Repetitions int
	Loaders     int
	Connections float64
	// ConnectMillis is the longest any loader took to open its
	// connections.
	ConnectMillis int64
	// MaxCPUPercent and MaxThrottledPercent are NaN when no loader said.
	MaxCPUPercent       float64
	MaxThrottledPercent float64
	// CPULimits are the loaders' CPU limits, each once.
	CPULimits []string
	// MaxStartSkewMillis is -1 when no repetition had several loaders.
	MaxStartSkewMillis int64
}

// loaderStats lists each cell × phase whose loaders reported their
// figures, in cell and phase order.
func (s *Study) loaderStats() []cellLoaders {
	var out []cellLoaders
	for ci := range s.Cells {
		c := &s.Cells[ci]
		for _, ph := range s.Phases {
			cl := cellLoaders{Cell: c, Phase: ph.Name, MaxCPUPercent: math.NaN(), MaxThrottledPercent: math.NaN(), MaxStartSkewMillis: -1}
			var conns []float64
			for _, run := range c.measured() {
				res := resultOf(run, ph.Name)
				if res == nil || len(res.LoaderStats) == 0 {
					continue
				}
				cl.Repetitions++
				cl.Loaders = max(cl.Loaders, len(res.LoaderStats))
				total := 0
				for _, l := range res.LoaderStats {
					total += int(l.Connections)
					cl.ConnectMillis = max(cl.ConnectMillis, l.ConnectMillis)
					cl.MaxCPUPercent = maxOf(cl.MaxCPUPercent, l.CPUPercent)
					cl.MaxThrottledPercent = maxOf(cl.MaxThrottledPercent, l.ThrottledPercent)
					if l.CPULimit != "" && !slices.Contains(cl.CPULimits, l.CPULimit) {
						cl.CPULimits = append(cl.CPULimits, l.CPULimit)
					}
				}
				conns = append(conns, float64(total))
				if res.StartSkewMillis != nil {
					cl.MaxStartSkewMillis = max(cl.MaxStartSkewMillis, *res.StartSkewMillis)
				}
			}
			if cl.Repetitions == 0 {
				continue
			}
			cl.Connections = stats.Median(conns)
			out = append(out, cl)
		}
	}
	return out
}

// maxOf is the larger of m and *v, NaN (none yet) giving way to any
// value; m when v is nil.
func maxOf(m float64, v *float64) float64 {
	if v == nil {
		return m
	}
	if math.IsNaN(m) || *v > m {
		return *v
	}
	return m
}

func resultOf(run *benchv1.BenchmarkRun, phase string) *benchv1.PhaseResult {
	for i := range run.Status.Results {
		if run.Status.Results[i].Name == phase {
			return &run.Status.Results[i]
		}
	}
	return nil
}

// warmupAndLoadersSection has a table of the warm-ups and one of the
// loaders, each when a phase has any (none: no tables, no section).
func (s *Study) warmupAndLoadersSection() section {
	sec := section{Heading: "Warm-up and loaders"}
	warmupNote := "Per cell and phase, the median across the successful, valid repetitions (reps) of the warm-up's figures."
	loadersNote := "Per cell and phase, across the successful, valid repetitions (reps): the loader pods, " +
		"their connections to MongoDB (the median, all loaders together),"
	if s.Kind == KindRun {
		warmupNote = "Per phase, the run's warm-up."
		loadersNote = "Per phase, the run's loader pods, their connections to MongoDB (all loaders together),"
	}
	if ws := s.warmups(); len(ws) > 0 {
		t := table{Caption: "Warm-up",
			Note:   warmupNote + " The warm-up ran before the measured window, with the same threads and target; its operations are in none of the numbers above.",
			Header: []string{"cell", "phase", "reps", "operations", "runtime (s)", "ops/s", "p99 (µs)"},
			Right:  []bool{false, false, true, true, true, true, true}}
		for _, w := range ws {
			ops := wholeMedian(w.OperationCounts)
			if strings.Contains(ops, "/") && !strings.Contains(t.Note, pairsNote) {
				t.Note += " Operations are whole: " + pairsNote
			}
			t.Rows = append(t.Rows, []string{w.Cell.Name, w.Phase, strconv.Itoa(w.Repetitions), ops,
				number(w.RuntimeMillis/1000, 1), number(w.OpsPerSec, 0), median(w.P99Micros)})
		}
		sec.Tables = append(sec.Tables, s.perRun(t))
	}
	if ls := s.loaderStats(); len(ls) > 0 {
		t := table{Caption: "Loaders",
			Note: loadersNote + " the longest any took to open them, and the worst of any loader over the measured window: its CPU use in % of what it may use " +
				"(CPU limit) and the share of the window its CPU quota throttled it. A loader near its limit may have set the pace instead of " +
				"MongoDB (spec.validity.maxLoaderCPUPercent and maxLoaderThrottledPercent make such a run invalid). Start skew: how far apart " +
				"the loaders' measured windows started, the widest.",
			Header: []string{"cell", "phase", "reps", "loaders", "connections", "connect (ms)", "CPU % (max)", "CPU limit", "throttled % (max)",
				"start skew (ms)"},
			Right: []bool{false, false, true, true, true, true, true, false, true, true}}
		for _, l := range ls {
			skew := "-"
			if l.MaxStartSkewMillis >= 0 {
				skew = strconv.FormatInt(l.MaxStartSkewMillis, 10)
			}
			t.Rows = append(t.Rows, []string{l.Cell.Name, l.Phase, strconv.Itoa(l.Repetitions), strconv.Itoa(l.Loaders), median(l.Connections),
				strconv.FormatInt(l.ConnectMillis, 10), number(l.MaxCPUPercent, 1), orDash(strings.Join(l.CPULimits, ", ")),
				number(l.MaxThrottledPercent, 1), skew})
		}
		sec.Tables = append(sec.Tables, s.perRun(t))
	}
	return sec
}

// perRun drops a per-cell table's cell and reps columns from a run's
// report: its one cell is the run, of one repetition.
func (s *Study) perRun(t table) table {
	if s.Kind != KindRun {
		return t
	}
	var keep []int
	for i, h := range t.Header {
		if h != "cell" && h != "reps" {
			keep = append(keep, i)
		}
	}
	pick := func(row []string) []string {
		out := make([]string, 0, len(keep))
		for _, i := range keep {
			if i < len(row) {
				out = append(out, row[i])
			}
		}
		return out
	}
	right := make([]bool, 0, len(keep))
	for _, i := range keep {
		right = append(right, i < len(t.Right) && t.Right[i])
	}
	t.Header, t.Right = pick(t.Header), right
	for i, r := range t.Rows {
		t.Rows[i] = pick(r)
	}
	return t
}
