package report

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/stats"
)

// A Grow phase (spec.phases[].grow) grows one collection and stops at
// every checkpoint to measure it: its figures are series over the record
// count, not one number per phase. They come from the runs'
// status.results[].growth and are reduced per cell like the rest of the
// report: at each checkpoint, identified by its record count, the median
// of each figure across the cell's successful repetitions that reached
// it.

// growthPhase is a Grow phase of the study with each cell's growth.
type growthPhase struct {
	Phase Phase
	// Cells are the cells with at least one successful repetition that
	// recorded the phase's growth, in cell order.
	Cells []cellGrowth
	// Queries are the query classes any cell ran, in order (Q1..Q4).
	Queries []string
	// Indexes are the index names any checkpoint reported, _id_ first.
	Indexes []string
	// Shards are the shard names any checkpoint reported, in natural
	// order (shard2 before shard10).
	Shards []string
}

// cellGrowth is a cell's growth in a Grow phase.
type cellGrowth struct {
	Cell *Cell
	// Repetitions that succeeded and recorded the growth.
	Repetitions int
	// InsertMode is the repetitions' insert mode (joined by "/" if
	// they differ, which only a changed spec makes).
	InsertMode string
	// TargetRecords and CheckpointEvery as run (the largest, should the
	// repetitions differ); Reached is the most checkpoints a repetition
	// took, of Planned.
	TargetRecords, CheckpointEvery int64
	Reached, Planned               int
	// Restarts counts the loaders that resumed the phase, over the
	// repetitions.
	Restarts int32
	Rows     []growthRow
}

// growthRow is one checkpoint of a cell: each figure the median across
// the repetitions that reached it. A figure no repetition reported is NaN
// (absent from the maps).
type growthRow struct {
	Records int64
	// Repetitions that reached the checkpoint.
	Repetitions int
	// InsertsPerSec is documents per second over the segment that led to
	// the checkpoint; the latencies are per insert call.
	InsertsPerSec, InsertP50, InsertP99, InsertErrors float64
	Queries                                           map[string]growthQuery
	// Sizes in bytes.
	Size, StorageSize, TotalIndexSize float64
	IndexSizes                        map[string]float64
	// ShardCounts are the documents on each shard.
	ShardCounts map[string]float64
	// Resumed lists the repetitions a loader resumed the phase in during
	// the segment: their rate covers the segment's measured part.
	Resumed []int32
}

// growthQuery is a query class at a checkpoint.
type growthQuery struct {
	OpsPerSec, P50, P99, DocumentsPerQuery, Errors float64
}

// last is the cell's last checkpoint (the most records), nil without one.
func (g *cellGrowth) last() *growthRow {
	if len(g.Rows) == 0 {
		return nil
	}
	return &g.Rows[len(g.Rows)-1]
}

// row returns the cell's checkpoint at records, nil if it has none.
func (g *cellGrowth) row(records int64) *growthRow {
	i, ok := slices.BinarySearchFunc(g.Rows, records, func(r growthRow, n int64) int { return cmp.Compare(r.Records, n) })
	if !ok {
		return nil
	}
	return &g.Rows[i]
}

// records lists every checkpoint's record count of any cell, ascending:
// the rows of the growth tables.
func (gp *growthPhase) records() []int64 {
	var out []int64
	for _, c := range gp.Cells {
		for _, r := range c.Rows {
			out = append(out, r.Records)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// reduceGrowth sets the study's growth: its Grow phases that some cell
// has growth for, each cell's reduced (cellGrowthOf). FromSweep and
// FromRun call it once; the formats read s.growth.
func (s *Study) reduceGrowth() {
	var out []growthPhase
	for _, ph := range s.Phases {
		if ph.Type != benchv1.PhaseGrow {
			continue
		}
		gp := growthPhase{Phase: ph}
		queries, indexes, shards := map[string]bool{}, map[string]bool{}, map[string]bool{}
		for ci := range s.Cells {
			cg, ok := cellGrowthOf(&s.Cells[ci], ph.Name)
			if !ok {
				continue
			}
			for _, r := range cg.Rows {
				for q := range r.Queries {
					queries[q] = true
				}
				for ix := range r.IndexSizes {
					indexes[ix] = true
				}
				for sh := range r.ShardCounts {
					shards[sh] = true
				}
			}
			gp.Cells = append(gp.Cells, cg)
		}
		if len(gp.Cells) == 0 {
			continue
		}
		gp.Queries = operationOrder(queries)
		gp.Indexes = slices.SortedFunc(maps.Keys(indexes), indexOrder)
		gp.Shards = slices.SortedFunc(maps.Keys(shards), naturalCompare)
		out = append(out, gp)
	}
	s.growth = out
}

// cellGrowthOf reduces the growth of a cell's usable repetitions in the
// named phase; false when none recorded it.
func cellGrowthOf(c *Cell, phase string) (cellGrowth, bool) {
	cg := cellGrowth{Cell: c}
	byRecords := map[int64][]growthSample{}
	var modes []string
	for _, r := range c.Runs {
		if !c.shows(&r) {
			continue
		}
		for i := range r.Run.Status.Results {
			res := &r.Run.Status.Results[i]
			if res.Name != phase || res.Growth == nil {
				continue
			}
			g := res.Growth
			cg.Repetitions++
			cg.Restarts += g.Restarts
			cg.TargetRecords = max(cg.TargetRecords, g.TargetRecords)
			cg.CheckpointEvery = max(cg.CheckpointEvery, g.CheckpointEvery)
			cg.Planned = max(cg.Planned, int(g.PlannedCheckpoints))
			cg.Reached = max(cg.Reached, len(g.Checkpoints))
			if !slices.Contains(modes, string(g.InsertMode)) {
				modes = append(modes, string(g.InsertMode))
			}
			for j := range g.Checkpoints {
				cp := &g.Checkpoints[j]
				byRecords[cp.Records] = append(byRecords[cp.Records], growthSample{rep: r.Repetition, cp: cp})
			}
		}
	}
	if cg.Repetitions == 0 {
		return cg, false
	}
	cg.InsertMode = strings.Join(modes, "/")
	for _, records := range slices.Sorted(maps.Keys(byRecords)) {
		cg.Rows = append(cg.Rows, growthRowOf(records, byRecords[records]))
	}
	return cg, true
}

// growthSample is a repetition's checkpoint.
type growthSample struct {
	rep int32
	cp  *benchv1.GrowthCheckpoint
}

// growthRowOf reduces the repetitions' checkpoints at records to the
// medians of each figure.
func growthRowOf(records int64, samples []growthSample) growthRow {
	med := func(f func(*benchv1.GrowthCheckpoint) (float64, bool)) float64 {
		xs := make([]float64, 0, len(samples))
		for _, s := range samples {
			if v, ok := f(s.cp); ok {
				xs = append(xs, v)
			}
		}
		return stats.Median(xs)
	}
	always := func(f func(*benchv1.GrowthCheckpoint) float64) float64 {
		return med(func(cp *benchv1.GrowthCheckpoint) (float64, bool) { return f(cp), true })
	}
	size := func(f func(*benchv1.CollectionSummary) *int64) float64 {
		return med(func(cp *benchv1.GrowthCheckpoint) (float64, bool) {
			if cp.Sizes == nil || f(cp.Sizes) == nil {
				return 0, false
			}
			return float64(*f(cp.Sizes)), true
		})
	}
	// A resumed segment whose inserts were all made by a loader that was
	// killed before it could save them measured nothing: its zeros are not
	// a rate of zero.
	insert := func(f func(*benchv1.GrowthCheckpoint) float64) float64 {
		return med(func(cp *benchv1.GrowthCheckpoint) (float64, bool) {
			return f(cp), !(cp.Resumed && cp.InsertsPerSec == 0 && cp.InsertP99Micros == 0)
		})
	}
	row := growthRow{
		Records: records, Repetitions: len(samples),
		InsertsPerSec:  insert(func(cp *benchv1.GrowthCheckpoint) float64 { return cp.InsertsPerSec }),
		InsertP50:      insert(func(cp *benchv1.GrowthCheckpoint) float64 { return float64(cp.InsertP50Micros) }),
		InsertP99:      insert(func(cp *benchv1.GrowthCheckpoint) float64 { return float64(cp.InsertP99Micros) }),
		InsertErrors:   always(func(cp *benchv1.GrowthCheckpoint) float64 { return float64(cp.InsertErrors) }),
		Size:           size(func(cs *benchv1.CollectionSummary) *int64 { return cs.Size }),
		StorageSize:    size(func(cs *benchv1.CollectionSummary) *int64 { return cs.StorageSize }),
		TotalIndexSize: size(func(cs *benchv1.CollectionSummary) *int64 { return cs.TotalIndexSize }),
	}
	queries, indexes, shards := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, s := range samples {
		if s.cp.Resumed {
			row.Resumed = append(row.Resumed, s.rep)
		}
		for _, q := range s.cp.Queries {
			queries[string(q.Name)] = true
		}
		if s.cp.Sizes != nil {
			for ix := range s.cp.Sizes.IndexSizes {
				indexes[ix] = true
			}
			for _, sh := range s.cp.Sizes.Shards {
				shards[sh.Shard] = true
			}
		}
	}
	for q := range queries {
		qm := func(f func(*benchv1.GrowthQueryResult) float64) float64 {
			return med(func(cp *benchv1.GrowthCheckpoint) (float64, bool) {
				for i := range cp.Queries {
					if string(cp.Queries[i].Name) == q {
						return f(&cp.Queries[i]), true
					}
				}
				return 0, false
			})
		}
		if row.Queries == nil {
			row.Queries = map[string]growthQuery{}
		}
		row.Queries[q] = growthQuery{
			OpsPerSec:         qm(func(r *benchv1.GrowthQueryResult) float64 { return r.OpsPerSec }),
			P50:               qm(func(r *benchv1.GrowthQueryResult) float64 { return float64(r.P50Micros) }),
			P99:               qm(func(r *benchv1.GrowthQueryResult) float64 { return float64(r.P99Micros) }),
			DocumentsPerQuery: qm(func(r *benchv1.GrowthQueryResult) float64 { return r.DocumentsPerQuery }),
			Errors:            qm(func(r *benchv1.GrowthQueryResult) float64 { return float64(r.Errors) }),
		}
	}
	for ix := range indexes {
		if row.IndexSizes == nil {
			row.IndexSizes = map[string]float64{}
		}
		row.IndexSizes[ix] = med(func(cp *benchv1.GrowthCheckpoint) (float64, bool) {
			if cp.Sizes == nil {
				return 0, false
			}
			v, ok := cp.Sizes.IndexSizes[ix]
			return float64(v), ok
		})
	}
	for sh := range shards {
		if row.ShardCounts == nil {
			row.ShardCounts = map[string]float64{}
		}
		row.ShardCounts[sh] = med(func(cp *benchv1.GrowthCheckpoint) (float64, bool) {
			if cp.Sizes == nil {
				return 0, false
			}
			for _, s := range cp.Sizes.Shards {
				if s.Shard == sh && s.Count != nil {
					return float64(*s.Count), true
				}
			}
			return 0, false
		})
	}
	return row
}

// growthMetric is a figure of a checkpoint, as a growth table and chart
// show it.
type growthMetric struct {
	// Name starts a chart's title ("Insert rate"); Title is a table's
	// caption, with the unit; Unit labels a chart's y axis.
	Name, Title, Unit string
	value             func(*growthRow) float64
	// bytes: the values are sizes, shown in the unit their largest
	// value makes readable.
	bytes bool
	// format writes a value of a table (not for bytes).
	format func(float64) string
	// note explains a chart of the metric.
	note string
}

// metrics are the figures of the phase's tables and charts: inserts, each
// query class that ran, and sizes.
func (gp *growthPhase) metrics() []growthMetric {
	out := []growthMetric{
		{Name: "Insert rate", Title: "Insert rate (documents/s)", Unit: "insert rate (documents/s)",
			value: func(r *growthRow) float64 { return r.InsertsPerSec }, format: rate},
		{Name: "Insert p99", Title: "Insert p99 latency (µs, per insert call)", Unit: "insert p99 latency (µs)",
			value: func(r *growthRow) float64 { return r.InsertP99 }, format: median,
			note: "Per insert call: a document, or in Batch mode a whole batch."},
	}
	for _, q := range gp.Queries {
		get := func(f func(growthQuery) float64) func(*growthRow) float64 {
			return func(r *growthRow) float64 {
				if v, ok := r.Queries[q]; ok {
					return f(v)
				}
				return math.NaN()
			}
		}
		out = append(out,
			growthMetric{Name: q + " throughput", Title: q + " throughput (queries/s)", Unit: q + " throughput (queries/s)",
				value: get(func(v growthQuery) float64 { return v.OpsPerSec }), format: rate},
			growthMetric{Name: q + " p99", Title: q + " p99 latency (µs)", Unit: q + " p99 latency (µs)",
				value: get(func(v growthQuery) float64 { return v.P99 }), format: median},
		)
	}
	return append(out,
		growthMetric{Name: "Data size", Title: "Data size (documents, uncompressed)", Unit: "data size",
			value: func(r *growthRow) float64 { return r.Size }, bytes: true},
		growthMetric{Name: "Index size", Title: "Index size (all indexes, on disk)", Unit: "index size",
			value: func(r *growthRow) float64 { return r.TotalIndexSize }, bytes: true},
		growthMetric{Name: "Storage size", Title: "Storage size (documents, on disk)", Unit: "storage size",
			value: func(r *growthRow) float64 { return r.StorageSize }, bytes: true},
	)
}

// growthSection is a Grow phase's part of the report: the cells'
// settings, a table per metric with the checkpoints as rows and the cells
// as columns, the index sizes at the last checkpoint and, for sharded
// cells, the documents per shard.
func (s *Study) growthSection(gp growthPhase, many bool) section {
	sec := section{Heading: "Growth"}
	if many {
		sec.Heading += ": " + gp.Phase.Name
	}
	reps := "the figures of its one repetition"
	if s.Repetitions > 1 {
		reps = "the median across its successful repetitions that reached the checkpoint"
	}
	sec.Text = []string{
		"Phase " + gp.Phase.Name + " (Grow): a row per checkpoint, by the documents in the collection then; a column per cell, " + reps + ". " +
			"The insert rate is documents per second over the segment since the previous checkpoint, the insert latency per insert call " +
			"(a whole batch in Batch mode); each query class ran with the inserts paused. Sizes are collStats' at the checkpoint " +
			"(decimal units: 1 GB is 10^9 bytes).",
		"The phase's row in the throughput and latency tables below is its inserts': documents per second of insert time over the " +
			"whole phase, the insert calls' p99 and mean; its queries are only here.",
	}
	sec.Tables = append(sec.Tables, s.growthSettings(gp))
	records := gp.records()
	for _, m := range gp.metrics() {
		t := table{Caption: m.Title, Header: []string{"records \\ cell"}, Right: []bool{false}}
		for _, c := range gp.Cells {
			t.Header = append(t.Header, c.Cell.Name)
			t.Right = append(t.Right, true)
		}
		format := m.format
		if m.bytes {
			unit := gp.byteUnit(m)
			t.Caption += ", " + unit.Name
			format = unit.format
		}
		empty := true
		for _, n := range records {
			row := make([]string, 0, 1+len(gp.Cells))
			row = append(row, countLabel(n))
			for i := range gp.Cells {
				v := math.NaN()
				if r := gp.Cells[i].row(n); r != nil {
					v = m.value(r)
				}
				empty = empty && math.IsNaN(v)
				row = append(row, formatOr(format, v))
			}
			t.Rows = append(t.Rows, row)
		}
		if !empty {
			sec.Tables = append(sec.Tables, t)
		}
	}
	if t, ok := gp.indexTable(); ok {
		sec.Tables = append(sec.Tables, t)
	}
	if t, ok := gp.shardTable(); ok {
		sec.Tables = append(sec.Tables, t)
	}
	for _, c := range gp.Cells {
		for _, r := range c.Rows {
			for _, rep := range r.Resumed {
				sec.Items = append(sec.Items, "Cell "+c.Cell.Name+", repetition "+strconv.Itoa(int(rep))+": a loader resumed the phase "+
					"in the segment to "+countLabel(r.Records)+" records; that segment's insert rate covers the part measured.")
			}
		}
	}
	return sec
}

// growthSettings is the table of each cell's Grow settings as run.
func (s *Study) growthSettings(gp growthPhase) table {
	t := table{Caption: "Settings as run", Header: []string{"cell", "insert mode", "target records", "checkpoint every", "checkpoints", "loader restarts"},
		Right: []bool{false, false, true, true, true, true}}
	if s.Repetitions > 1 {
		t.Header = append(t.Header, "reps")
		t.Right = append(t.Right, true)
	}
	for _, c := range gp.Cells {
		row := []string{c.Cell.Name, c.InsertMode, countLabel(c.TargetRecords), countLabel(c.CheckpointEvery),
			strconv.Itoa(c.Reached) + " of " + strconv.Itoa(c.Planned), strconv.Itoa(int(c.Restarts))}
		if s.Repetitions > 1 {
			row = append(row, strconv.Itoa(c.Repetitions))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// byteUnit is the unit of a size metric in the phase's table and chart:
// the one its largest value, of any cell and checkpoint, reaches.
func (gp *growthPhase) byteUnit(m growthMetric) byteUnit {
	var hi float64
	for _, c := range gp.Cells {
		for i := range c.Rows {
			hi = maxNumber(hi, m.value(&c.Rows[i]))
		}
	}
	return byteUnitFor(hi)
}

// indexTable is each index's size at each cell's last checkpoint.
func (gp *growthPhase) indexTable() (table, bool) {
	if len(gp.Indexes) == 0 {
		return table{}, false
	}
	var hi float64
	for _, c := range gp.Cells {
		if r := c.last(); r != nil {
			hi = maxNumber(hi, r.TotalIndexSize)
			for _, v := range r.IndexSizes {
				hi = maxNumber(hi, v)
			}
		}
	}
	unit := byteUnitFor(hi)
	t := table{Caption: "Index sizes at the last checkpoint, " + unit.Name, Header: []string{"index \\ cell"}, Right: []bool{false}}
	rows := [][]string{{"records"}}
	for _, ix := range gp.Indexes {
		rows = append(rows, []string{ix})
	}
	rows = append(rows, []string{"total"})
	for _, c := range gp.Cells {
		t.Header = append(t.Header, c.Cell.Name)
		t.Right = append(t.Right, true)
		r := c.last()
		if r == nil {
			for i := range rows {
				rows[i] = append(rows[i], "-")
			}
			continue
		}
		rows[0] = append(rows[0], countLabel(r.Records))
		for i, ix := range gp.Indexes {
			v, ok := r.IndexSizes[ix]
			if !ok {
				v = math.NaN()
			}
			rows[i+1] = append(rows[i+1], formatOr(unit.format, v))
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], formatOr(unit.format, r.TotalIndexSize))
	}
	t.Rows = rows
	return t, true
}

// shardTable is the split of the documents by shard of the sharded cells
// at their last checkpoint, and how far from even it was: the largest
// shard's documents over the mean, there and at its worst checkpoint.
func (gp *growthPhase) shardTable() (table, bool) {
	if len(gp.Shards) == 0 {
		return table{}, false
	}
	t := table{Caption: "Documents per shard at the last checkpoint (share of the collection)",
		Note:   "max/mean is the largest shard's documents over the mean per shard: 1.00 is an even split.",
		Header: []string{"cell", "records"}, Right: []bool{false, true}}
	for _, sh := range gp.Shards {
		t.Header = append(t.Header, sh)
		t.Right = append(t.Right, true)
	}
	t.Header = append(t.Header, "max/mean", "worst max/mean (at records)")
	t.Right = append(t.Right, true, true)
	for _, c := range gp.Cells {
		r := c.last()
		if r == nil || len(r.ShardCounts) == 0 {
			continue
		}
		row := []string{c.Cell.Name, countLabel(r.Records)}
		var total float64
		for _, v := range r.ShardCounts {
			total += v
		}
		for _, sh := range gp.Shards {
			v, ok := r.ShardCounts[sh]
			if !ok {
				row = append(row, "-")
				continue
			}
			row = append(row, countLabel(int64(math.Round(v)))+" ("+number(v/total*100, 1)+"%)")
		}
		worst, at := 0.0, int64(0)
		for i := range c.Rows {
			if b := imbalance(c.Rows[i].ShardCounts); b > worst {
				worst, at = b, c.Rows[i].Records
			}
		}
		row = append(row, number(imbalance(r.ShardCounts), 2), number(worst, 2)+" ("+countLabel(at)+")")
		t.Rows = append(t.Rows, row)
	}
	return t, len(t.Rows) > 0
}

// imbalance is the largest count over the mean count; NaN without counts.
func imbalance(counts map[string]float64) float64 {
	if len(counts) == 0 {
		return math.NaN()
	}
	var total, hi float64
	for _, v := range counts {
		total += v
		hi = math.Max(hi, v)
	}
	if total <= 0 {
		return math.NaN()
	}
	return hi / (total / float64(len(counts)))
}

// byteUnit is a decimal unit of size.
type byteUnit struct {
	Name  string
	Scale float64
	// decimals: two below 10 of the unit, one above.
	decimals int
}

func (u byteUnit) format(v float64) string { return number(v/u.Scale, u.decimals) }

// byteUnitFor is the largest decimal unit the largest value hi reaches
// at least one of.
func byteUnitFor(hi float64) byteUnit {
	u := byteUnit{Name: "bytes", Scale: 1}
	for _, c := range []byteUnit{{Name: "kB", Scale: 1e3}, {Name: "MB", Scale: 1e6}, {Name: "GB", Scale: 1e9}, {Name: "TB", Scale: 1e12}} {
		if hi >= c.Scale {
			u = c
		}
	}
	if u.Scale > 1 {
		u.decimals = 1
		if hi/u.Scale < 10 {
			u.decimals = 2
		}
	}
	return u
}

// rate formats a rate with three significant digits or more: 41,230,
// 412, 41.2, 4.12.
func rate(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return number(v, 0)
	case a >= 10:
		return number(v, 1)
	}
	return number(v, 2)
}

// countLabel writes a record count compactly when that is exact (10M,
// 2.5M, 200k), else in full (3,333,333).
func countLabel(n int64) string {
	if s, ok := compactCount(float64(n)); ok {
		return s
	}
	return number(float64(n), 0)
}

// compactCount writes v with a k, M or B (10^9) suffix and at most two
// decimals; false when that rounds v.
func compactCount(v float64) (string, bool) {
	scale, suffix := 1.0, ""
	for _, u := range []struct {
		scale  float64
		suffix string
	}{{1e3, "k"}, {1e6, "M"}, {1e9, "B"}} {
		if math.Abs(v) >= u.scale {
			scale, suffix = u.scale, u.suffix
		}
	}
	x := v / scale
	r := math.Round(x*100) / 100
	return strconv.FormatFloat(r, 'f', -1, 64) + suffix, math.Abs(r-x) <= 1e-9*math.Max(1, math.Abs(x))
}

func formatOr(f func(float64) string, v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return f(v)
}

// maxNumber is the larger of a and b, ignoring a NaN b.
func maxNumber(a, b float64) float64 {
	if math.IsNaN(b) {
		return a
	}
	return math.Max(a, b)
}

// indexOrder puts _id_ first, then the other indexes by name.
func indexOrder(a, b string) int {
	if (a == "_id_") != (b == "_id_") {
		if a == "_id_" {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// naturalCompare orders names with numbers by their numbers: shard2
// before shard10.
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Or(cmp.Compare(len(na), len(nb)), strings.Compare(na, nb)); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
