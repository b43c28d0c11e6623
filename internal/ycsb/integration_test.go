package ycsb_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/ycsb"
	"github.com/mongobench/mongobench/internal/ycsb/memdb"
)

// mustProps builds properties from name=value pairs.
func mustProps(t testing.TB, kv ...string) *ycsb.Properties {
	t.Helper()
	p, err := ycsb.LoadProperties(nil, kv)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// loadStore loads a workload's records into a fresh memdb store.
func loadStore(t *testing.T, kv ...string) *memdb.Store {
	t.Helper()
	s := memdb.New(memdb.Options{})
	w, err := ycsb.NewWorkload(mustProps(t, kv...))
	if err != nil {
		t.Fatal(err)
	}
	res, err := ycsb.Run(context.Background(), w, s.Factory(), ycsb.RunOptions{Phase: ycsb.PhaseLoad, Threads: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Operations != w.OperationCount(ycsb.PhaseLoad) {
		t.Fatalf("loaded %d of %d", res.Operations, w.OperationCount(ycsb.PhaseLoad))
	}
	return s
}

// TestRedrawGuardUnderConcurrentInserts runs insert-heavy mixes with many
// threads against a store whose inserts are slow, so many inserts are in
// flight at once: no read, update, scan or read-modify-write may target a
// record that is not there yet (NOT_FOUND), for every request distribution,
// with one loader and with three loaders sharing the database.
func TestRedrawGuardUnderConcurrentInserts(t *testing.T) {
	for _, dist := range []string{"zipfian", "latest", "exponential", "uniform", "hotspot", "sequential"} {
		for _, loaders := range []int{1, 3} {
			t.Run(dist+"/"+string(rune('0'+loaders)), func(t *testing.T) {
				base := []string{"recordcount=300", "operationcount=1200", "fieldcount=2", "fieldlength=8",
					"requestdistribution=" + dist, "insertproportion=0.4", "readproportion=0.3", "updateproportion=0.1",
					"scanproportion=0.1", "readmodifywriteproportion=0.1", "maxscanlength=5", "loader.count=" + string(rune('0'+loaders))}
				store := loadStore(t, append(base, "loader.count=1")...)
				var wg sync.WaitGroup
				for i := range loaders {
					w, err := ycsb.NewWorkload(mustProps(t, append(base, "loader.index="+string(rune('0'+i)))...))
					if err != nil {
						t.Fatal(err)
					}
					wg.Add(1)
					go func() {
						defer wg.Done()
						res, err := ycsb.Run(context.Background(), w, slowInserts(store), ycsb.RunOptions{Phase: ycsb.PhaseRun, Threads: 6, Seed: uint64(i + 1)})
						if err != nil {
							t.Error(err)
							return
						}
						if res.Operations != w.OperationCount(ycsb.PhaseRun) {
							t.Errorf("loader %d did %d of %d", i, res.Operations, w.OperationCount(ycsb.PhaseRun))
						}
					}()
				}
				wg.Wait()
				if store.NotFound() != 0 {
					t.Errorf("%d operations targeted records not yet inserted", store.NotFound())
				}
				if store.Duplicates() != 0 {
					t.Errorf("%d inserts collided", store.Duplicates())
				}
			})
		}
	}
}

// TestSuccessiveRunPhasesWithInserts: two run phases that both insert, one
// after the other against the same data (the study's S3 then S4). With
// loader.insertkeyoffset per phase, as the controller passes it, no insert
// collides and no operation targets a missing record; without it YCSB's
// second run would re-insert the first run's keys.
func TestSuccessiveRunPhasesWithInserts(t *testing.T) {
	for _, dist := range []string{"zipfian", "latest", "uniform"} {
		t.Run(dist, func(t *testing.T) {
			base := []string{"recordcount=300", "operationcount=1200", "fieldcount=2", "fieldlength=8", "requestdistribution=" + dist,
				"insertproportion=0.3", "readproportion=0.4", "updateproportion=0.2", "scanproportion=0.1", "maxscanlength=5", "loader.count=2"}
			store := loadStore(t, append(base, "loader.count=1")...)
			var inserted atomic.Int64
			for phase, offset := range []string{"0", "1099511627776"} {
				var wg sync.WaitGroup
				for i := range 2 {
					w, err := ycsb.NewWorkload(mustProps(t, append(base, "loader.index="+string(rune('0'+i)), "loader.insertkeyoffset="+offset)...))
					if err != nil {
						t.Fatal(err)
					}
					wg.Add(1)
					go func() {
						defer wg.Done()
						res, err := ycsb.Run(context.Background(), w, store.Factory(), ycsb.RunOptions{Phase: ycsb.PhaseRun, Threads: 4, Seed: uint64(10*phase + i + 1)})
						if err != nil {
							t.Error(err)
							return
						}
						inserted.Add(res.Op(ycsb.OpInsert).Statuses.Get(ycsb.StatusOK))
					}()
				}
				wg.Wait()
			}
			if store.NotFound() != 0 || store.Duplicates() != 0 {
				t.Errorf("%d operations on missing records, %d colliding inserts", store.NotFound(), store.Duplicates())
			}
			if got, want := int64(store.Len()), 300+inserted.Load(); got != want || inserted.Load() < 600 {
				t.Errorf("%d records after two phases, want %d", got, want)
			}
		})
	}
}

// slowInserts wraps a store's factory so that inserts sleep before writing.
func slowInserts(s *memdb.Store) ycsb.DBFactory {
	f := s.Factory()
	return func(ctx context.Context, thread, threads int) (ycsb.DB, error) {
		db, err := f(ctx, thread, threads)
		return slowDB{db}, err
	}
}

type slowDB struct{ ycsb.DB }

func (d slowDB) Insert(ctx context.Context, table string, key []byte, values []ycsb.Field) ycsb.Status {
	time.Sleep(200 * time.Microsecond)
	return d.DB.Insert(ctx, table, key, values)
}

func TestDataIntegrityVerify(t *testing.T) {
	kv := []string{"recordcount=200", "operationcount=400", "dataintegrity=true", "fieldcount=3", "fieldlength=40",
		"readproportion=0.5", "updateproportion=0.25", "readmodifywriteproportion=0.25", "requestdistribution=uniform"}
	store := loadStore(t, kv...)
	// Stored values are the deterministic ones.
	key := string(ycsb.BuildKeyName(nil, 7, 1, false))
	rec, ok := store.Record(key)
	if !ok || string(rec["field1"]) != string(ycsb.AppendDeterministicValue(nil, []byte(key), "field1", 40)) {
		t.Fatalf("record %s: %q", key, rec["field1"])
	}
	w, _ := ycsb.NewWorkload(mustProps(t, kv...))
	res, err := ycsb.Run(context.Background(), w, store.Factory(), ycsb.RunOptions{Phase: ycsb.PhaseRun, Threads: 2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	v := res.Op(ycsb.OpVerify)
	if v == nil || v.Statuses.Get(ycsb.StatusOK) == 0 || v.Statuses.Total() != v.Statuses.Get(ycsb.StatusOK) {
		t.Fatalf("VERIFY statuses %+v", v)
	}
	if want := res.Op(ycsb.OpRead).Statuses.Total(); v.Statuses.Total() != want {
		// Every read (including the RMW's inner reads) is verified.
		t.Fatalf("%d verifications for %d reads", v.Statuses.Total(), want)
	}

	// A record with a wrong value fails verification.
	corrupt := memdb.New(memdb.Options{})
	db, _ := corrupt.Factory()(context.Background(), 0, 1)
	for k := int64(0); k < 200; k++ {
		db.Insert(context.Background(), "usertable", ycsb.BuildKeyName(nil, k, 1, false), []ycsb.Field{{Name: "field0", Value: []byte("garbage")}})
	}
	w, _ = ycsb.NewWorkload(mustProps(t, kv...))
	res, _ = ycsb.Run(context.Background(), w, corrupt.Factory(), ycsb.RunOptions{Phase: ycsb.PhaseRun, Threads: 1, Seed: 4})
	if v := res.Op(ycsb.OpVerify); v == nil || v.Statuses.Get(ycsb.StatusUnexpectedState) == 0 || v.Failed.Count() == 0 {
		t.Fatalf("corrupt values not detected: %+v", v)
	}
}
