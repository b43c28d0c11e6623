package ycsb

import (
	"context"
	"testing"
	"time"
)

// nopDB is a DB that does nothing, to measure the engine alone.
type nopDB struct{}

func (nopDB) Read(context.Context, string, []byte, []string, *[]Field) Status { return StatusOK }
func (nopDB) Scan(context.Context, string, []byte, int, []string) Status      { return StatusOK }
func (nopDB) Update(context.Context, string, []byte, []Field) Status          { return StatusOK }
func (nopDB) Insert(context.Context, string, []byte, []Field) Status          { return StatusOK }
func (nopDB) Delete(context.Context, string, []byte) Status                   { return StatusOK }
func (nopDB) Cleanup(context.Context) (int, error)                            { return 0, nil }

func benchWorkload(b testing.TB, kv ...string) (*Workload, *ThreadState) {
	b.Helper()
	w, err := NewWorkload(props(append([]string{"recordcount=100000", "operationcount=1000000"}, kv...)...))
	if err != nil {
		b.Fatal(err)
	}
	ts := w.NewThreadState(NewRand(1), NewRecorder())
	// Warm up: create the recorder's histograms.
	for range 1000 {
		w.DoTransaction(context.Background(), nopDB{}, ts)
	}
	return w, ts
}

// TestHotPathDoesNotAllocate pins the zero-allocation property the
// benchmarks report, so a regression fails the tests.
func TestHotPathDoesNotAllocate(t *testing.T) {
	for _, kv := range [][]string{
		{"requestdistribution=zipfian", "readproportion=0.5", "updateproportion=0.5"},
		{"requestdistribution=latest", "readproportion=0.5", "insertproportion=0.5", "updateproportion=0"},
		{"requestdistribution=uniform", "scanproportion=0.5", "readmodifywriteproportion=0.5", "readproportion=0", "updateproportion=0", "writeallfields=true", "readallfields=false"},
		{"requestdistribution=exponential", "readproportion=1", "updateproportion=0", "dataintegrity=true"},
		{"requestdistribution=hotspot", "fieldlengthdistribution=zipfian"},
	} {
		w, ts := benchWorkload(t, kv...)
		ctx := context.Background()
		// AllocsPerRun divides with truncation, so count 2000 operations
		// per run: any allocation at all in 2000 operations shows.
		if a := testing.AllocsPerRun(5, func() {
			for range 2000 {
				w.DoTransaction(ctx, nopDB{}, ts)
			}
		}); a != 0 {
			t.Errorf("%v: DoTransaction allocates (%v per 2000 ops)", kv, a)
		}
		if a := testing.AllocsPerRun(5, func() {
			for range 2000 {
				w.DoInsert(ctx, nopDB{}, ts)
			}
		}); a != 0 {
			t.Errorf("%v: DoInsert allocates (%v per 2000 ops)", kv, a)
		}
	}
}

func BenchmarkBuildKeyName(b *testing.B) {
	buf := make([]byte, 0, keyBufferSize(1))
	b.ReportAllocs()
	for i := range b.N {
		buf = BuildKeyName(buf[:0], int64(i), 1, false)
	}
}

// BenchmarkFillRandomValue100 fills a 100-byte value as an insert does;
// /go runs the Go loop, which is what fillChunks runs off amd64 or on a
// CPU without fast PDEP (values_amd64.go).
func BenchmarkFillRandomValue100(b *testing.B) {
	for _, tc := range []struct {
		name string
		fill func([]byte, *Rand)
	}{
		{"fill", FillRandomValue},
		{"go", func(buf []byte, r *Rand) {
			fillChunksGeneric(buf[:96], r)
			fillChunk(buf[96:], uint32(r.NextInt()))
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			buf := make([]byte, 100)
			r := NewRand(1)
			b.ReportAllocs()
			b.SetBytes(100)
			for range b.N {
				tc.fill(buf, r)
			}
		})
	}
}

func BenchmarkDeterministicValue100(b *testing.B) {
	buf := make([]byte, 0, 200)
	key := []byte("user6284781860667377211")
	b.ReportAllocs()
	for range b.N {
		buf = AppendDeterministicValue(buf[:0], key, "field3", 100)
	}
}

func benchGen(b *testing.B, g NumberGenerator) {
	r := NewRand(1)
	b.ReportAllocs()
	var sink int64
	for range b.N {
		sink += g.Next(r)
	}
	_ = sink
}

func BenchmarkGenerators(b *testing.B) {
	must := func(g NumberGenerator, err error) NumberGenerator {
		if err != nil {
			b.Fatal(err)
		}
		return g
	}
	ack := NewAcknowledgedCounter(100000)
	gens := []struct {
		name string
		g    NumberGenerator
	}{
		{"Constant", ConstantGenerator{V: 100}},
		{"Uniform", must(NewUniformGenerator(0, 99999))},
		{"Counter", NewCounterGenerator(0)},
		{"Sequential", must(NewSequentialGenerator(0, 99999))},
		{"Hotspot", must(NewHotspotGenerator(0, 99999, 0.2, 0.8))},
		{"Exponential", must(NewExponentialGenerator(95, 85714))},
		{"Zipfian", must(NewZipfianGenerator(0, 99999))},
		{"ScrambledZipfian", must(NewScrambledZipfianGenerator(0, 99999))},
		{"SkewedLatest", must(NewSkewedLatestGenerator(ack))},
	}
	for _, tc := range gens {
		b.Run(tc.name, func(b *testing.B) { benchGen(b, tc.g) })
	}
	b.Run("AcknowledgedCounter", func(b *testing.B) {
		c := NewAcknowledgedCounter(0)
		b.ReportAllocs()
		for range b.N {
			c.Acknowledge(c.Next())
		}
	})
	b.Run("OpChooser", func(b *testing.B) {
		var d DiscreteGenerator[Op]
		for _, op := range []Op{OpRead, OpUpdate, OpInsert, OpScan, OpReadModifyWrite} {
			d.Add(0.2, op)
		}
		r := NewRand(1)
		b.ReportAllocs()
		var sink Op
		for range b.N {
			sink ^= d.Next(r)
		}
		_ = sink
	})
}

func BenchmarkRecorderMeasure(b *testing.B) {
	rec := NewRecorder()
	for range recorderBuffer + 1 { // a full buffer, recorded: the histogram exists
		rec.Measure(OpRead, StatusOK, 1)
	}
	b.ReportAllocs()
	for i := range b.N {
		rec.Measure(OpRead, StatusOK, int64(100+i&1023))
	}
}

// BenchmarkRecorderMeasureIntended is Measure with the intended latency
// too (measurement.interval intended or both): a second histogram, under
// the same lock.
func BenchmarkRecorderMeasureIntended(b *testing.B) {
	rec := NewRecorder()
	for range recorderBuffer/2 + 1 { // a full buffer, recorded: the histograms exist
		rec.MeasureIntended(OpRead, StatusOK, 1, 1)
	}
	b.ReportAllocs()
	for i := range b.N {
		rec.MeasureIntended(OpRead, StatusOK, int64(100+i&1023), int64(300+i&4095))
	}
}

func BenchmarkDoTransaction(b *testing.B) {
	for _, tc := range []struct {
		name string
		kv   []string
	}{
		{"workloada-zipfian", []string{"requestdistribution=zipfian", "readproportion=0.5", "updateproportion=0.5"}},
		{"workloadd-latest", []string{"requestdistribution=latest", "readproportion=0.95", "updateproportion=0", "insertproportion=0.05"}},
		{"S3-uniform-2KB", []string{"requestdistribution=uniform", "fieldcount=8", "fieldlength=250", "readproportion=0.65", "insertproportion=0.25", "updateproportion=0.1"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			w, ts := benchWorkload(b, tc.kv...)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				w.DoTransaction(ctx, nopDB{}, ts)
			}
		})
	}
}

func BenchmarkDoInsert(b *testing.B) {
	w, ts := benchWorkload(b, "fieldcount=8", "fieldlength=250")
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		w.DoInsert(ctx, nopDB{}, ts)
	}
}

// BenchmarkDisruptionTracking is workload a's DoTransaction without
// disruptions (the hot path as it always was: a nil check), with a
// disruption whose stretch the operations are outside of (two time
// comparisons), and inside one (a sample appended per operation, drained
// as the collector does; draining is counted in).
func BenchmarkDisruptionTracking(b *testing.B) {
	kv := []string{"requestdistribution=zipfian", "readproportion=0.5", "updateproportion=0.5"}
	for _, tc := range []struct {
		name string
		at   time.Duration // the instant from now; 0: no disruption
	}{
		{"none", 0},
		{"outside", time.Hour},
		{"inside", time.Second},
	} {
		b.Run(tc.name, func(b *testing.B) {
			w, ts := benchWorkload(b, kv...)
			var set *disruptionSet
			if tc.at > 0 {
				set = newDisruptionSet([]DisruptionSpec{{Action: "StepDown", At: tc.at}})
				th := set.newThread(nopDB{})
				th.begin(time.Now())
				ts.dis = th
			}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				w.DoTransaction(ctx, nopDB{}, ts)
				if set != nil && i%65536 == 65535 {
					set.drain()
				}
			}
		})
	}
}
