package report

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// The growth fixture (testdata/growth.json) is SYNTHETIC: no cluster
// measured it. It is the data-growth study of
// config/samples/bench_v1alpha1_benchmarksweep_study-growth.yaml (a
// collection grown to 200M documents, a checkpoint every 10M, standalone
// and 3 shards × unacknowledged, acknowledged and batch inserts), here
// with two repetitions, and its numbers are made up by the model below
// to have the shape of the study's findings:
//
//   - unacknowledged inserts collapse once the working set outgrows
//     memory (past ~70M documents standalone, ~110M on 3 shards);
//   - acknowledged inserts are steady (journal-bound, ~6-7k/s);
//   - batch inserts are fastest and slow down as the indexes grow;
//   - Q3 (sort by date, skip 100) degrades by orders of magnitude;
//   - 3 shards halve Q1 and Q2 (single-condition, scatter-gather) up to
//     ~80M documents, then converge with the standalone once both read
//     from disk.
//
// Sizes follow ~1 KB documents and the study's ~45 GB of indexes at 200M;
// the sharded collection also has the hashed shard key's index. One
// repetition (standalone/acknowledged, r1) lost its loader pod during the
// segment to 120M and resumed. Generated with the other fixtures (go test
// ./internal/report -run TestFixtures -fixtures).

// growthModel is what a cell's Grow runs measure.
type growthModel struct {
	// shards is 0 for a standalone.
	shards int
	mode   benchv1.GrowInsertMode
	// resumed marks repetitions whose loader resumed the phase, at the
	// checkpoint (from 1) whose segment it interrupted.
	resumed map[int32]int
}

func growthStudy() fixture {
	grow := func(mode benchv1.GrowInsertMode, batch bool) benchv1.PhaseSpec {
		g := &benchv1.GrowSpec{TargetRecords: 200_000_000, CheckpointEvery: ptr.To[int64](10_000_000), InsertMode: mode,
			QueryThreads: 8, QueryDuration: &metav1.Duration{Duration: time.Minute},
			// As the API server defaults them.
			Queries: []benchv1.GrowQuery{benchv1.GrowQ1, benchv1.GrowQ2, benchv1.GrowQ3, benchv1.GrowQ4}}
		if batch {
			g.BatchSize = ptr.To[int32](1000)
		}
		return benchv1.PhaseSpec{Name: "grow", Type: benchv1.PhaseGrow, Grow: g}
	}
	patch := func(v any) *runtime.RawExtension {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		return &runtime.RawExtension{Raw: b}
	}
	phasesPatch := func(p benchv1.PhaseSpec) *runtime.RawExtension {
		return patch(map[string]any{"phases": []benchv1.PhaseSpec{p}})
	}
	tmpl := benchv1.BenchmarkRunSpec{
		Topology: benchv1.TopologySpec{Mode: benchv1.TopologyStandalone, Image: "mongo:8.0.16", WiredTigerCacheSizeGB: "8",
			Storage: benchv1.StorageSpec{Medium: benchv1.StoragePersistentVolume, Size: ptr.To(resource.MustParse("400Gi"))}},
		Timeout: &metav1.Duration{Duration: 72 * time.Hour},
		Phases:  []benchv1.PhaseSpec{grow(benchv1.GrowAcknowledged, false)},
	}
	spec := benchv1.BenchmarkSweepSpec{
		Template: tmpl,
		Axes: []benchv1.SweepAxis{
			{Name: "topology", Values: []benchv1.SweepValue{
				{Name: "standalone", Number: ptr.To(1.0)},
				{Name: "3-shards", Number: ptr.To(3.0), Patch: patch(map[string]any{"topology": map[string]any{
					"mode": "Sharded", "shards": 3, "shardKey": "Hashed", "storage": map[string]any{"size": "160Gi"}}})},
			}},
			{Name: "insert", Values: []benchv1.SweepValue{
				{Name: "unacknowledged", Patch: phasesPatch(grow(benchv1.GrowUnacknowledged, false))},
				{Name: "acknowledged"},
				{Name: "batch", Patch: phasesPatch(grow(benchv1.GrowBatch, true))},
			}},
		},
		Repetitions: 2, Order: benchv1.SweepSequential, Parallelism: 1, FailurePolicy: benchv1.SweepContinue,
		Baseline: map[string]benchv1.SweepValueName{"topology": "standalone"},
	}
	var cells []cellModel
	for _, top := range []struct {
		name   string
		number float64
		shards int
	}{{"standalone", 1, 0}, {"3-shards", 3, 3}} {
		for _, mode := range []struct {
			name string
			mode benchv1.GrowInsertMode
		}{{"unacknowledged", benchv1.GrowUnacknowledged}, {"acknowledged", benchv1.GrowAcknowledged}, {"batch", benchv1.GrowBatch}} {
			gm := &growthModel{shards: top.shards, mode: mode.mode}
			if top.shards == 0 && mode.mode == benchv1.GrowAcknowledged {
				gm.resumed = map[int32]int{1: 12}
			}
			procs := 1
			if top.shards > 0 {
				procs = top.shards + 2
			}
			cells = append(cells, cellModel{
				values: []benchv1.SweepCellValue{
					{Axis: "topology", Value: top.name, Number: ptr.To(top.number)},
					{Axis: "insert", Value: mode.name},
				},
				processes: procs, growth: gm,
			})
		}
	}
	return studyModel{name: "growth", namespace: "bench", seed: 3, spec: spec,
		phases: []phaseModel{{spec: tmpl.Phases[0]}}, cells: cells}.build()
}

// logistic falls from 1 to 0 around x0 over a width w.
func logistic(x, x0, w float64) float64 { return 1 / (1 + math.Exp((x-x0)/w)) }

// insertRate is documents per second with x million documents in.
func (g *growthModel) insertRate(x float64) (rate, noise float64) {
	sharded := g.shards > 0
	switch g.mode {
	case benchv1.GrowUnacknowledged:
		// w:0 inserts run as fast as the server takes them until the
		// working set outgrows memory, then collapse to what the disk
		// does, erratically.
		x0, peak, floor := 70.0, 46000.0, 3800.0
		if sharded {
			x0, peak, floor = 110, 52000, 5200
		}
		noise = 0.04
		if x > x0 {
			noise = 0.2
		}
		return peak*logistic(x, x0, 6+2*b2f(sharded)) + floor, noise
	case benchv1.GrowBatch:
		if sharded {
			return 71000 / (1 + x/220), 0.04
		}
		return 58000 / (1 + x/150), 0.04
	}
	if sharded {
		return 7100 * (1 - 0.0005*x), 0.03
	}
	return 6400 * (1 - 0.0006*x), 0.03
}

// queryRate is a query class's queries per second (8 threads) with x
// million documents in.
func (g *growthModel) queryRate(q benchv1.GrowQuery, x float64) float64 {
	sharded := g.shards > 0
	q1 := 11500*logistic(x, 90, 15) + 1300
	if sharded {
		// Scatter-gather to every shard: half the standalone's while it
		// serves from memory, about the same once both read from disk.
		q1 *= 0.5 + 0.45*(1-logistic(x, 100, 12))
	}
	switch q {
	case benchv1.GrowQ2:
		return q1 * 1.12
	case benchv1.GrowQ3:
		if sharded {
			return 1100*math.Exp(-x/55) + 9
		}
		return 950*math.Exp(-x/45) + 6
	case benchv1.GrowQ4:
		if sharded {
			return 2600 * (1 - x/1200)
		}
		return 4200 * (1 - x/1000)
	}
	return q1
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// jitter is 1 ± up to rel, uniformly.
func jitter(rng *rand.Rand, rel float64) float64 { return 1 + (rng.Float64()*2-1)*rel }

// phase measures a Grow phase of repetition rep as the controller reports
// it: the phase's totals and status.results[].growth.
func (g *growthModel) phase(rng *rand.Rand, spec *benchv1.PhaseSpec, rep int32, start time.Time) benchv1.PhaseResult {
	gs := spec.Grow
	every := *gs.CheckpointEvery
	planned := int((gs.TargetRecords + every - 1) / every)
	growth := &benchv1.GrowthStatus{TargetRecords: gs.TargetRecords, CheckpointEvery: every, PlannedCheckpoints: int32(planned),
		InsertMode: gs.InsertMode}
	queryThreads := float64(gs.QueryThreads)
	queryTime := gs.QueryDuration.Duration
	queries := []benchv1.GrowQuery{benchv1.GrowQ1, benchv1.GrowQ2, benchv1.GrowQ3, benchv1.GrowQ4}
	batch := int64(1)
	if gs.BatchSize != nil {
		batch = int64(*gs.BatchSize)
	}
	clock := start
	var prev int64
	var work, insertTime time.Duration
	var inserted int64
	var insertCalls int64
	queryCount := map[benchv1.GrowQuery]int64{}
	var insertP50s, insertP99s []float64
	queryP50s, queryP99s := map[benchv1.GrowQuery][]float64{}, map[benchv1.GrowQuery][]float64{}
	for i := 1; i <= planned; i++ {
		records := min(int64(i)*every, gs.TargetRecords)
		x := float64(records) / 1e6
		base, noise := g.insertRate(x)
		rate := math.Round(base*jitter(rng, noise)*100) / 100
		cp := benchv1.GrowthCheckpoint{Records: records}
		segment := records - prev
		prev = records
		if g.resumed[rep] == i {
			// The replaced loader's calls in flight are lost: the rate
			// covers the measured part, about 85% of the segment.
			cp.Resumed = true
			growth.Restarts++
			rate = math.Round(rate*0.85*100) / 100
		}
		took := time.Duration(float64(segment) / rate * float64(time.Second))
		clock = clock.Add(took)
		work += took
		insertTime += took
		inserted += segment
		cp.Time = metav1.NewTime(clock)
		cp.InsertsPerSec = rate
		callMicros := 1e6 / rate * float64(batch)
		spread := map[benchv1.GrowInsertMode][2]float64{
			benchv1.GrowUnacknowledged: {0.7, 3.5}, benchv1.GrowAcknowledged: {0.9, 2.6}, benchv1.GrowBatch: {0.95, 2.2},
		}[gs.InsertMode]
		p50f, p99f := spread[0], spread[1]
		cp.InsertP50Micros = int64(callMicros * p50f * jitter(rng, 0.03))
		cp.InsertP99Micros = int64(callMicros * p99f * jitter(rng, 0.08))
		insertCalls += segment / batch
		insertP50s, insertP99s = append(insertP50s, float64(cp.InsertP50Micros)), append(insertP99s, float64(cp.InsertP99Micros))
		for _, q := range queries {
			ops := math.Round(g.queryRate(q, x)*jitter(rng, 0.05)*100) / 100
			mean := queryThreads / ops * 1e6
			docs := 0.0
			switch q {
			case benchv1.GrowQ1, benchv1.GrowQ2:
				// number takes 20M values: x/20 documents match at x
				// million in, 10 at the target; the limit is 10.
				docs = math.Round(math.Min(10, x/20)*0.97*100) / 100
			case benchv1.GrowQ4:
				docs = 100
			}
			cp.Queries = append(cp.Queries, benchv1.GrowthQueryResult{Name: q, OpsPerSec: ops,
				P50Micros: int64(mean * 0.8 * jitter(rng, 0.03)), P99Micros: int64(mean * 3.2 * jitter(rng, 0.1)), DocumentsPerQuery: docs})
			queryCount[q] += int64(ops * queryTime.Seconds())
			queryP50s[q] = append(queryP50s[q], float64(cp.Queries[len(cp.Queries)-1].P50Micros))
			queryP99s[q] = append(queryP99s[q], float64(cp.Queries[len(cp.Queries)-1].P99Micros))
			clock = clock.Add(queryTime)
			work += queryTime
		}
		cp.Sizes = g.sizes(rng, records, x)
		growth.Checkpoints = append(growth.Checkpoints, cp)
	}
	r := benchv1.PhaseResult{
		Name: spec.Name, Type: spec.Type, Loaders: 1, Threads: max(gs.InsertThreads, gs.QueryThreads),
		StartTime: metav1.NewTime(start), CompletionTime: metav1.NewTime(clock), RuntimeMillis: work.Milliseconds(),
		StopReason: "Completed", Growth: growth,
	}
	op := func(name string, count int64, p50s, p99s []float64) benchv1.OperationResult {
		p50, p99 := slices.Max(p50s), slices.Max(p99s)
		return benchv1.OperationResult{Name: name, Count: count, Statuses: map[string]int64{"OK": count},
			AverageMicros: math.Round(p50*1.15*100) / 100, MinMicros: int64(slices.Min(p50s) * 0.2), MaxMicros: int64(p99 * 12),
			P50Micros: int64(p50), P95Micros: int64(p99 * 0.6), P99Micros: int64(p99), P999Micros: int64(p99 * 2.4)}
	}
	r.OperationStats = append(r.OperationStats, op("INSERT", insertCalls, insertP50s, insertP99s))
	for _, q := range queries {
		r.OperationStats = append(r.OperationStats, op(string(q), queryCount[q], queryP50s[q], queryP99s[q]))
	}
	// As the controller has it: a Grow phase's throughput and p99 are its
	// inserts' (documents per second of insert time, the insert calls').
	for _, o := range r.OperationStats {
		r.Operations += o.Count
	}
	r.P99Micros = r.OperationStats[0].P99Micros
	r.Throughput = math.Round(float64(inserted)/insertTime.Seconds()*100) / 100
	last := growth.Checkpoints[len(growth.Checkpoints)-1].Sizes
	r.Collection = last.DeepCopy()
	return r
}

// sizes are collStats' at a checkpoint of n documents (x million): ~1 KB
// documents stored nearly uncompressed (a random payload), the study's
// ~225 bytes of index per document, a third of the documents per shard.
func (g *growthModel) sizes(rng *rand.Rand, n int64, x float64) *benchv1.CollectionSummary {
	perDoc := map[string]float64{"_id_": 40, "number_1": 62, "number1_1": 62, "date_-1": 61}
	if g.shards > 0 {
		// Three B-trees of each index, and the hashed shard key's.
		for k := range perDoc {
			perDoc[k] *= 1.03
		}
		perDoc["_id_hashed"] = 45
	}
	size := int64(float64(n) * 1024 * jitter(rng, 0.001))
	s := &benchv1.CollectionSummary{Count: ptr.To(n), Size: ptr.To(size),
		StorageSize: ptr.To(int64(float64(size) * (0.935 + 0.01*x/200) * jitter(rng, 0.003))), IndexSizes: map[string]int64{}}
	var total int64
	for _, name := range slices.Sorted(maps.Keys(perDoc)) {
		v := int64(float64(n) * perDoc[name] * jitter(rng, 0.01))
		s.IndexSizes[name] = v
		total += v
	}
	s.TotalIndexSize = ptr.To(total)
	if g.shards > 0 {
		// Hashed _id spreads the documents evenly; the first checkpoint
		// shows the balancer not yet caught up.
		spread := 0.0025
		if x <= 10 {
			spread = 0.03
		}
		rest := n
		for i := 0; i < g.shards; i++ {
			c := rest
			if i < g.shards-1 {
				c = int64(float64(n) / float64(g.shards) * jitter(rng, spread))
			}
			rest -= c
			s.Shards = append(s.Shards, benchv1.ShardCollectionSummary{Shard: fmt.Sprintf("shard%d", i), Count: ptr.To(c)})
		}
	}
	return s
}
