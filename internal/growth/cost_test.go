package growth

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
)

// nullStore stores nothing: the engine's own costs, without a database.
type nullStore struct {
	docs  atomic.Int64
	mu    sync.Mutex
	state map[string]string
}

func (s *nullStore) EnsureIndexes(context.Context) error { return nil }
func (s *nullStore) Insert(_ context.Context, docs []bson.Raw) error {
	s.docs.Add(int64(len(docs)))
	return nil
}
func (s *nullStore) Find(context.Context, *QuerySpec, bson.Raw) (int, error) { return 0, nil }
func (s *nullStore) CollStats(context.Context) (results.CollectionStats, error) {
	return results.CollectionStats{}, errors.New("no statistics")
}
func (s *nullStore) MaxID(context.Context) (int64, bool, error)            { return 0, false, nil }
func (s *nullStore) CountIDs(context.Context, int64, int64) (int64, error) { return 0, nil }
func (s *nullStore) MissingIDs(context.Context, int64, int64, func(int64) error) error {
	return nil
}
func (s *nullStore) Repair(context.Context, []bson.Raw) error { return nil }
func (s *nullStore) LoadState(context.Context, func(string, string) error) error {
	return nil
}
func (s *nullStore) SaveState(_ context.Context, id, data string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == nil {
		s.state = map[string]string{}
	}
	s.state[id] = data
	return nil
}
func (s *nullStore) DeleteState(context.Context, string) error { return nil }

// TestNoPerRecordState: the engine keeps nothing per record. At the last
// checkpoint of a phase ten times longer (same checkpoints, same threads)
// the live heap is the same: everything the engine holds is per thread,
// per checkpoint or per query class, so its memory is flat in the record
// count. And making and inserting a document allocates nothing (the
// driver's allocations are its own, and garbage). The RSS of the loader
// process over 20M records is measured in test/loader
// (TestGrowMemoryIsFlat).
func TestNoPerRecordState(t *testing.T) {
	liveAtTheEnd := func(records int64, kv ...string) uint64 {
		cfg := testConfig(t, records, records/4, append([]string{contract.PropGrowthQueries, ""}, kv...)...)
		s := &nullStore{}
		var live uint64
		opts := Options{StopGrace: time.Second, OnCheckpoint: func(row *results.GrowthCheckpoint, _ bool) {
			if row.Records == records {
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				live = ms.HeapAlloc
			}
		}}
		if _, err := Run(context.Background(), cfg, s, opts); err != nil {
			t.Fatal(err)
		}
		if s.docs.Load() != records {
			t.Fatalf("%d documents inserted, want %d", s.docs.Load(), records)
		}
		return live
	}
	for _, tc := range []struct {
		name string
		kv   []string
	}{
		{"insertOne, 1 thread", nil},
		{"insertOne, 4 threads", []string{contract.PropGrowthInsertThreads, "4"}},
		{"batch of 100, 2 threads", []string{contract.PropGrowthInsertMode, "batch", contract.PropGrowthBatchSize, "100",
			contract.PropGrowthInsertThreads, "2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			small, large := liveAtTheEnd(40_000, tc.kv...), liveAtTheEnd(400_000, tc.kv...)
			perRecord := (float64(large) - float64(small)) / 360_000
			t.Logf("live heap at the end: %d bytes after 40k records, %d after 400k: %.3f bytes per record", small, large, perRecord)
			if perRecord > 0.25 {
				t.Errorf("%.3f bytes more per record: the engine keeps something per record", perRecord)
			}
		})
	}
	e, err := newEngine(testConfig(t, 1_000_000, 100_000, contract.PropGrowthInsertMode, "batch", contract.PropGrowthBatchSize, "10"),
		&nullStore{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, i := e.inserters[0], int64(0)
	if a := testing.AllocsPerRun(1000, func() {
		if err := w.insert(context.Background(), i, 10); err != nil {
			t.Fatal(err)
		}
		i += 10
	}); a != 0 {
		t.Errorf("%v allocations per insert call", a)
	}
}

// BenchmarkInsertPath is the engine's cost per insert call without a
// database: making the document(s), timing the call, recording its
// latency (ns/op per call; with batches, per batch of 100 documents).
//
//	go test ./internal/growth -run '^$' -bench 'InsertPath|MongoStoreInsert' -benchmem
func BenchmarkInsertPath(b *testing.B) {
	for _, tc := range []struct {
		name  string
		batch int64
	}{{"insertOne", 1}, {"batch=100", 100}} {
		b.Run(tc.name, func(b *testing.B) {
			cfg := testConfig(b, 1_000_000_000, 100_000_000, contract.PropGrowthPayloadSize, "945")
			e, err := newEngine(cfg, &nullStore{}, Options{})
			if err != nil {
				b.Fatal(err)
			}
			w := e.inserters[0]
			ctx := context.Background()
			b.ReportAllocs()
			i := int64(0)
			for b.Loop() {
				if err := w.insert(ctx, i, tc.batch); err != nil {
					b.Fatal(err)
				}
				i += tc.batch
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(i), "ns/doc")
		})
	}
}
