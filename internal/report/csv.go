package report

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/results"
)

// csvFixed are the CSV's columns besides the axes.
var (
	csvLead  = []string{"study", "cell_index", "cell"}
	csvTrail = slices.Concat([]string{
		"repetition", "run", "run_phase", "reason", "fingerprint", "phase", "phase_type", "operation",
	}, MeasuredColumns)
)

// csvRunColumns are the leading columns of csvTrail that name the run
// (repetition, run, run_phase, reason, fingerprint).
const csvRunColumns = 5

// csvHistory are the columns a run's report with a history adds (see
// CSV).
var csvHistory = []string{"history_of", "completion_time", "change_point"}

// Column groups a study adds only when it has what they hold (see CSV):
// its runs' Valid condition, intended latencies, the loaders' figures.
var (
	csvValidity = []string{"valid", "valid_reason"}
	csvLoaders  = []string{"start_skew_ms", "loader", "loader_pod", "connections", "connect_ms", "cpu_percent", "cpu_limit",
		"throttled_percent"}
	// csvReplication is a phase's status.results[].maxReplicationLagMillis,
	// on its OVERALL row.
	csvReplication = []string{"max_replication_lag_ms"}
)

// csvExtras are the optional column groups a study's CSV has, after
// p999_us and before the Grow columns.
type csvExtras struct {
	validity, intended, loaders, replication, disruptions bool
}

func (x csvExtras) header() []string {
	var out []string
	if x.validity {
		out = append(out, csvValidity...)
	}
	if x.intended {
		out = append(out, IntendedColumns...)
	}
	if x.loaders {
		out = append(out, csvLoaders...)
	}
	if x.replication {
		out = append(out, csvReplication...)
	}
	if x.disruptions {
		out = append(out, DisruptionColumns...)
	}
	return out
}

func (x csvExtras) width() int { return len(x.header()) }

// csvExtrasOf looks at the study's runs (and its history's) for a Valid
// condition, intended latencies, loaders' figures, replication lags and
// disruptions.
func (s *Study) csvExtrasOf() csvExtras {
	var x csvExtras
	runs := slices.Clone(s.Runs)
	if s.History != nil {
		for _, r := range s.History.Runs {
			runs = append(runs, *r)
		}
	}
	for i := range runs {
		r := &runs[i]
		x.validity = x.validity || meta.FindStatusCondition(r.Status.Conditions, benchv1.ConditionValid) != nil
		for _, p := range r.Status.Results {
			x.loaders = x.loaders || len(p.LoaderStats) > 0
			x.replication = x.replication || p.MaxReplicationLagMillis != nil
			x.disruptions = x.disruptions || len(p.Disruptions) > 0
			x.intended = x.intended || p.IntendedP99Micros != nil || slices.ContainsFunc(p.OperationStats,
				func(o benchv1.OperationResult) bool { return o.Intended != nil })
		}
	}
	return x
}

// csvGrowth are the columns a study with a Grow phase adds (see CSV),
// before its index_size_bytes:<index> and shard_count:<shard> columns.
var csvGrowth = []string{
	"checkpoint", "records", "insert_mode", "resumed", "documents_per_query",
	"size_bytes", "storage_size_bytes", "total_index_size_bytes",
}

// growthColumns are a study's Grow columns: the indexes and shards its
// checkpoints report.
type growthColumns struct {
	indexes, shards []string
}

func (g *growthColumns) header() []string {
	out := slices.Clone(csvGrowth)
	for _, ix := range g.indexes {
		out = append(out, "index_size_bytes:"+ix)
	}
	for _, sh := range g.shards {
		out = append(out, "shard_count:"+sh)
	}
	return out
}

func (g *growthColumns) width() int { return len(csvGrowth) + len(g.indexes) + len(g.shards) }

// csvGrowthColumns are the Grow columns of the study's runs (and its
// history's), nil when none has a Grow phase's checkpoints.
func (s *Study) csvGrowthColumns() *growthColumns {
	runs := make([]*benchv1.BenchmarkRun, 0, len(s.Runs))
	for ci := range s.Cells {
		for _, r := range s.Cells[ci].Runs {
			if r.Run != nil {
				runs = append(runs, r.Run)
			}
		}
	}
	if s.History != nil {
		runs = append(runs, s.History.Runs...)
	}
	found := false
	indexes, shards := map[string]bool{}, map[string]bool{}
	for _, run := range runs {
		for _, res := range run.Status.Results {
			if res.Growth == nil {
				continue
			}
			found = true
			for _, cp := range res.Growth.Checkpoints {
				if cp.Sizes == nil {
					continue
				}
				for ix := range cp.Sizes.IndexSizes {
					indexes[ix] = true
				}
				for _, sh := range cp.Sizes.Shards {
					shards[sh.Shard] = true
				}
			}
		}
	}
	if !found {
		return nil
	}
	return &growthColumns{
		indexes: slices.SortedFunc(maps.Keys(indexes), indexOrder),
		shards:  slices.SortedFunc(maps.Keys(shards), naturalCompare),
	}
}

// CSV writes the study in long format (RFC 4180, one header row, nothing
// else): a row per cell × repetition × phase × operation, each axis's value
// in a column named after the axis (and its number in <axis>_number when
// the axis has numbers), so pandas or a spreadsheet can pivot it any way.
// Each phase also has an OVERALL row with the phase's operations,
// throughput and p99 over all database calls. A run without results (it
// failed early, or no longer exists) has one row with its phase and
// reason and the measurement columns empty. An axis named like another
// column is headed axis:<name>.
//
// A study with a Grow phase adds the phase's checkpoints: after each
// such phase's rows, a row per checkpoint and operation (INSERT, then
// each query class that ran) with the columns checkpoint (its number,
// from 1), records (the documents in the collection then), insert_mode,
// resumed (true when a loader resumed the phase during the segment),
// documents_per_query, size_bytes, storage_size_bytes,
// total_index_size_bytes, index_size_bytes:<index> for each index and
// shard_count:<shard> for each shard any checkpoint reported (the sizes
// repeat on each operation's row of a checkpoint). On an INSERT row
// ops_per_sec is documents per second over the segment since the previous
// checkpoint and the latencies are per insert call (a batch in Batch
// mode); on a query row they are the class's run at the checkpoint. A
// checkpoint row leaves count, runtime_ms, avg_us, min_us, max_us, p95_us
// and p999_us empty (status does not keep them), and the other rows leave
// the Grow columns empty. The columns come after p999_us (and before a
// history's), only in a study that has such a phase.
//
// A run's report with a history (AddHistory) adds the history's runs
// after the study's, oldest first, in rows of the same shape (no cell,
// no repetition), and three columns: history_of (on a history run's rows,
// the gated run), completion_time (RFC 3339, UTC) and change_point (on a
// history run's row of a compared metric's phase and operation, OVERALL
// for a whole phase's: the metric's change points that start at the run,
// "throughput -10.2% (p=3e-07), regime starts", joined by "; ").
//
// A study whose runs have them adds, after p999_us and before the Grow
// columns: valid and valid_reason (each run's Valid condition, True or
// False, and its reason; on every row of the run) when a run has the
// condition; intended_avg_us, intended_min_us, intended_max_us,
// intended_p50_us, intended_p95_us, intended_p99_us and intended_p999_us
// (an operation's intended latencies; on an OVERALL row intended_p99_us
// is the phase's) when a phase measured intended latencies; and
// start_skew_ms (on OVERALL rows), loader, loader_pod, connections,
// connect_ms, cpu_percent, cpu_limit and throttled_percent when loaders
// reported their figures, on a LOADER row per loader and phase (its
// measurement columns empty but runtime_ms). A phase with a warm-up has a
// WARMUP row (its operations, ops_per_sec, runtime_ms and p99_us) and a
// WARMUP-<OP> row per operation, after its operations' rows, their
// runtime_ms the warm-up's.
//
// A study whose runs had disruptions (spec.phases[].disruptions) adds
// DisruptionColumns after the others of that group (and before the Grow
// columns), and a DISRUPTION row per disruption at the end of its phase's
// rows: each repetition's as its status has it (see DisruptionColumns),
// the measurement columns empty. The other rows leave those columns
// empty; a study without disruptions has neither, so its CSV is what it
// was before disruptions existed.
func CSV(w io.Writer, s *Study) error {
	growth := s.csvGrowthColumns()
	extras := s.csvExtrasOf()
	header, withNumber := csvHeader(s, extras, growth)
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	// tail fills the history's columns; nil without a history.
	var tail func(run *benchv1.BenchmarkRun, phase, op string) []string
	if s.History != nil {
		tail = s.History.csvColumns
	}
	for ci := range s.Cells {
		c := &s.Cells[ci]
		lead := []string{s.Name, strconv.Itoa(int(c.Index)), c.Name}
		for _, a := range s.Axes {
			v, _ := c.Value(a.Name)
			lead = append(lead, v.Value)
		}
		for i, a := range s.Axes {
			if withNumber[i] {
				v, _ := c.Value(a.Name)
				n := ""
				if v.Number != nil {
					n = plain(*v.Number)
				}
				lead = append(lead, n)
			}
		}
		for _, r := range c.Runs {
			phase, fp := r.Phase, r.Fingerprint
			if r.Run != nil {
				phase = cmp.Or(r.Run.Status.Phase, phase)
				if e := r.Run.Status.Environment; e != nil && e.Fingerprint != "" {
					fp = e.Fingerprint
				}
			}
			run := []string{strconv.Itoa(int(r.Repetition)), r.Name, string(phase), r.Reason, fp}
			if err := writeRunRows(cw, slices.Concat(lead, run), r.Run, tail, extras, growth); err != nil {
				return err
			}
		}
	}
	if h := s.History; h != nil {
		// The history's runs, oldest first: no cell, no repetition; the
		// axis columns (a run's study has none) stay empty.
		axes := len(header) - len(csvLead) - len(csvTrail) - len(csvHistory) - extras.width()
		if growth != nil {
			axes -= growth.width()
		}
		for _, r := range h.Runs {
			fp := ""
			if e := r.Status.Environment; e != nil {
				fp = e.Fingerprint
			}
			lead := slices.Concat([]string{s.Name, "", ""}, make([]string, axes), []string{"", r.Name, string(r.Status.Phase), "", fp})
			if err := writeRunRows(cw, lead, r, tail, extras, growth); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}

// csvHeader is the CSV's header, and which axes have a number column.
func csvHeader(s *Study, extras csvExtras, growth *growthColumns) ([]string, []bool) {
	header := slices.Clone(csvLead)
	taken := map[string]bool{}
	for _, h := range slices.Concat(csvLead, csvTrail, extras.header()) {
		taken[h] = true
	}
	if growth != nil {
		for _, h := range growth.header() {
			taken[h] = true
		}
	}
	if s.History != nil {
		for _, h := range csvHistory {
			taken[h] = true
		}
	}
	col := func(name string) string {
		if taken[name] {
			name = "axis:" + name
		}
		taken[name] = true
		return name
	}
	withNumber := make([]bool, 0, len(s.Axes))
	for _, a := range s.Axes {
		header = append(header, col(a.Name))
		has := slices.ContainsFunc(a.Values, func(v AxisValue) bool { return v.Number != nil })
		withNumber = append(withNumber, has)
	}
	for i, a := range s.Axes {
		if withNumber[i] {
			header = append(header, col(a.Name+"_number"))
		}
	}
	header = append(header, csvTrail...)
	header = append(header, extras.header()...)
	if growth != nil {
		header = append(header, growth.header()...)
	}
	if s.History != nil {
		header = append(header, csvHistory...)
	}
	return header, withNumber
}

// csvColumns are the history's columns of a run's row of a phase and
// operation: history_of, completion_time, change_point.
func (h *History) csvColumns(run *benchv1.BenchmarkRun, phase, op string) []string {
	of, done, cp := "", "", ""
	if run != nil && run.Name != h.Run {
		of = h.Run
	}
	if run != nil && run.Status.CompletionTime != nil {
		done = run.Status.CompletionTime.UTC().Format(time.RFC3339)
	}
	if of != "" && phase != "" {
		cp = h.changePointsAt(run.Name, phase, op)
	}
	return []string{of, done, cp}
}

// writeRunRows writes a run's rows: an OVERALL row per phase and a row per
// operation, its warm-up's rows and a LOADER row per loader, then a Grow
// phase's checkpoints (growth, when the study has any), or one row
// without measurements when the run has no results. lead fills the
// columns before them (study, cell, axes, repetition, run, run_phase,
// reason, fingerprint), extras the optional groups (see CSV), tail (if
// any) the history's columns after them.
func writeRunRows(cw *csv.Writer, lead []string, run *benchv1.BenchmarkRun, tail func(*benchv1.BenchmarkRun, string, string) []string,
	extras csvExtras, growth *growthColumns) error {
	i64 := func(n int64) string { return strconv.FormatInt(n, 10) }
	var valid []string
	if extras.validity {
		valid = []string{"", ""}
		if run != nil {
			if c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionValid); c != nil {
				valid = []string{string(c.Status), c.Reason}
			}
		}
	}
	// lag is the replication column of the phase being written: its
	// OVERALL row's, empty on the others.
	var lag []string
	// extra fills the optional groups of a row: the intended latencies,
	// the loader's and the disruption's columns, empty when nil.
	extra := func(op string, intended, loader, disruption []string) []string {
		out := slices.Clone(valid)
		if extras.intended {
			out = append(out, orEmpty(intended, len(IntendedColumns))...)
		}
		if extras.loaders {
			out = append(out, orEmpty(loader, len(csvLoaders))...)
		}
		if extras.replication {
			if op != RowOverall {
				out = append(out, make([]string, len(csvReplication))...)
			} else {
				out = append(out, orEmpty(lag, len(csvReplication))...)
			}
		}
		if extras.disruptions {
			out = append(out, orEmpty(disruption, len(DisruptionColumns))...)
		}
		return out
	}
	row := func(phase, op string, measured, grown, intended, loader, disruption []string) []string {
		out := slices.Concat(lead, measured, extra(op, intended, loader, disruption))
		if growth != nil {
			if grown == nil {
				grown = make([]string, growth.width())
			}
			out = append(out, grown...)
		}
		if tail != nil {
			out = append(out, tail(run, phase, op)...)
		}
		return out
	}
	var res []benchv1.PhaseResult
	if run != nil {
		res = run.Status.Results
	}
	if len(res) == 0 {
		if err := cw.Write(row("", "", make([]string, len(csvTrail)-csvRunColumns), nil, nil, nil, nil)); err != nil {
			return fmt.Errorf("write csv: %w", err)
		}
		return nil
	}
	for pi := range res {
		p := &res[pi]
		lag = nil
		if p.MaxReplicationLagMillis != nil {
			lag = []string{i64(*p.MaxReplicationLagMillis)}
		}
		var rows [][]string
		for _, r := range PhaseRows(p) {
			rows = append(rows, row(p.Name, r.Operation, slices.Concat([]string{p.Name, string(p.Type), r.Operation}, r.Measured), nil,
				r.Intended, r.Loader, r.Disruption))
		}
		if growth != nil && p.Growth != nil {
			// The checkpoints carry no change point: the tail gets no phase.
			for i := range p.Growth.Checkpoints {
				cp := &p.Growth.Checkpoints[i]
				measured := func(op string, errors int64, rate float64, p50, p99 int64) []string {
					return []string{p.Name, string(p.Type), op, "", i64(errors), plain(rate), "", "", "", "", i64(p50), "", i64(p99), ""}
				}
				rows = append(rows, row("", "", measured(results.OpInsert, cp.InsertErrors, cp.InsertsPerSec, cp.InsertP50Micros, cp.InsertP99Micros),
					growth.checkpoint(i+1, cp, string(p.Growth.InsertMode), ""), nil, nil, nil))
				for _, q := range cp.Queries {
					rows = append(rows, row("", "", measured(string(q.Name), q.Errors, q.OpsPerSec, q.P50Micros, q.P99Micros),
						growth.checkpoint(i+1, cp, string(p.Growth.InsertMode), plain(q.DocumentsPerQuery)), nil, nil, nil))
				}
			}
		}
		if err := cw.WriteAll(rows); err != nil {
			return fmt.Errorf("write csv: %w", err)
		}
	}
	return nil
}

// checkpoint is a checkpoint's Grow columns (documents is a query's
// documents per query, empty for inserts).
func (g *growthColumns) checkpoint(index int, cp *benchv1.GrowthCheckpoint, mode, documents string) []string {
	opt := func(v *int64) string {
		if v == nil {
			return ""
		}
		return strconv.FormatInt(*v, 10)
	}
	out := make([]string, 0, g.width())
	out = append(out, strconv.Itoa(index), strconv.FormatInt(cp.Records, 10), mode, strconv.FormatBool(cp.Resumed), documents)
	sz := cp.Sizes
	if sz == nil {
		sz = &benchv1.CollectionSummary{}
	}
	out = append(out, opt(sz.Size), opt(sz.StorageSize), opt(sz.TotalIndexSize))
	for _, ix := range g.indexes {
		v, ok := sz.IndexSizes[ix]
		out = append(out, "")
		if ok {
			out[len(out)-1] = strconv.FormatInt(v, 10)
		}
	}
	for _, name := range g.shards {
		count := ""
		for _, sh := range sz.Shards {
			if sh.Shard == name {
				count = opt(sh.Count)
			}
		}
		out = append(out, count)
	}
	return out
}

// orEmpty is cols, or n empty columns when cols is nil.
func orEmpty(cols []string, n int) []string {
	if cols == nil {
		return make([]string, n)
	}
	return cols
}
