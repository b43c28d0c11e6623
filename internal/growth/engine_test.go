package growth

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
)

// testConfig is a small phase: target records, a checkpoint every every,
// queries of 5 ms with 2 threads, plus the given properties.
func testConfig(t testing.TB, target, every int64, kv ...string) Config {
	t.Helper()
	p := map[string]string{
		contract.PropGrowthTargetRecords:   strconv.FormatInt(target, 10),
		contract.PropGrowthCheckpointEvery: strconv.FormatInt(every, 10),
		contract.PropGrowthQueryDuration:   "5ms",
		contract.PropGrowthQueryThreads:    "2",
		contract.PropGrowthPayloadSize:     "16",
	}
	for i := 0; i+1 < len(kv); i += 2 {
		p[kv[i]] = kv[i+1]
	}
	cfg, err := FromProperties(func(k string) (string, bool) { v, ok := p[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func runPhase(t *testing.T, ctx context.Context, cfg Config, store Store) (*results.Result, error) {
	t.Helper()
	return Run(ctx, cfg, store, Options{Hostname: "test", StopGrace: time.Second})
}

// checkData checks that the store holds exactly records [0, n), each as the
// generator makes it.
func checkData(t *testing.T, m *memStore, cfg Config, n int64) {
	t.Helper()
	g, err := NewGenerator(cfg.Documents, cfg.TargetRecords)
	if err != nil {
		t.Fatal(err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if int64(len(m.docs)) != n {
		t.Errorf("the store holds %d documents, want %d", len(m.docs), n)
	}
	for i := range n {
		d, ok := m.docs[i]
		if !ok {
			t.Errorf("record %d is missing", i)
			return
		}
		if want := (memDoc{g.Number(i), g.Number1(i), g.DateMillis(i)}); d != want {
			t.Errorf("record %d is %+v, want %+v", i, d, want)
			return
		}
	}
}

// checkResult checks a result against its rows: it is valid and survives
// encoding, the rows are the plan's, and the overall measurements are the
// sum of the rows' (plus extraInserts calls of an unfinished segment).
func checkResult(t *testing.T, res *results.Result, cfg Config, rows int, stop results.StopReason, extraInserts int64) {
	t.Helper()
	if res == nil {
		t.Fatal("no result")
	}
	enc, err := results.Encode(res)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	dec, err := results.Decode(enc)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if dec.Kind != results.KindGrow || dec.StopReason != stop || len(dec.Growth.Checkpoints) != rows {
		t.Fatalf("result: kind %s, stop %s, %d rows; want grow, %s, %d", dec.Kind, dec.StopReason, len(dec.Growth.Checkpoints), stop, rows)
	}
	g := dec.Growth
	if g.PlannedCheckpoints != int(Checkpoints(cfg.TargetRecords, cfg.CheckpointEvery)) || g.TargetRecords != cfg.TargetRecords {
		t.Errorf("growth: %d planned, target %d", g.PlannedCheckpoints, g.TargetRecords)
	}
	inserts := extraInserts
	queries := map[string]int64{}
	for i, c := range g.Checkpoints {
		if want := CheckpointRecords(cfg.TargetRecords, cfg.CheckpointEvery, i+1); c.Records != want {
			t.Errorf("checkpoint %d at %d records, want %d", i+1, c.Records, want)
		}
		if len(c.Queries) != len(cfg.Queries) {
			t.Errorf("checkpoint %d ran %d query classes, want %d", i+1, len(c.Queries), len(cfg.Queries))
		}
		for _, q := range c.Queries {
			if q.Latency.Count == 0 || q.Latency.OpsPerSec <= 0 {
				t.Errorf("checkpoint %d: %s ran no query: %+v", i+1, q.Name, q)
			}
			queries[q.Name] += q.Latency.Count
		}
		if c.Sizes == nil || *c.Sizes.Count < c.Records {
			t.Errorf("checkpoint %d: sizes %+v (%s)", i+1, c.Sizes, c.SizesError)
		}
		inserts += c.Insert.Latency.Count
	}
	if op := dec.Op(results.OpInsert); op.Total() != inserts || op.Errors() != 0 {
		t.Errorf("INSERT: %v, want %d calls, no error (the rows' and the unfinished segment's)", op.Statuses, inserts)
	}
	total := inserts
	for name, n := range queries {
		total += n
		if op := dec.Op(name); op == nil || op.Total() != n || op.Latency.Count() != n {
			t.Errorf("%s: %+v, want %d queries (the rows')", name, op, n)
		}
	}
	if dec.Operations != total {
		t.Errorf("operations %d, want %d", dec.Operations, total)
	}
}

func TestRunGrowsToTheTarget(t *testing.T) {
	for _, tc := range []struct {
		name string
		kv   []string
	}{
		{"acknowledged", nil},
		{"unacknowledged, 3 threads", []string{contract.PropGrowthInsertMode, "unacknowledged", contract.PropGrowthInsertThreads, "3"}},
		{"batch of 64, 4 threads", []string{contract.PropGrowthInsertMode, "Batch", contract.PropGrowthBatchSize, "64",
			contract.PropGrowthInsertThreads, "4"}},
		{"no queries", []string{contract.PropGrowthQueries, ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, 5000, 1000, tc.kv...)
			m := newMemStore()
			var lines bytes.Buffer
			res, err := Run(context.Background(), cfg, m, Options{StopGrace: time.Second,
				OnCheckpoint: func(row *results.GrowthCheckpoint, earlier bool) {
					if earlier {
						t.Errorf("checkpoint %d reported as earlier", row.Index)
					}
					if err := WriteCheckpoint(&lines, row, 5, earlier); err != nil {
						t.Error(err)
					}
				}})
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, res, cfg, 5, results.StopCompleted, 0)
			checkData(t, m, cfg, 5000)
			calls := int64(5000 / cfg.BatchSize)
			if cfg.BatchSize > 1 {
				calls = 5 * ((1000 + int64(cfg.BatchSize) - 1) / int64(cfg.BatchSize))
			}
			if n := res.Op(results.OpInsert).Total(); n != calls {
				t.Errorf("%d insert calls, want %d", n, calls)
			}
			for _, c := range res.Growth.Checkpoints {
				if c.Insert.Records != 1000 || c.Insert.FromRecords != c.Records-1000 || c.Insert.Resumed || c.Insert.RecordsPerSec <= 0 {
					t.Errorf("checkpoint %d: insert %+v", c.Index, c.Insert)
				}
			}
			if got := strings.Count(lines.String(), "[CHECKPOINT], "); got != 5 {
				t.Errorf("%d report lines:\n%s", got, lines.String())
			}
			if res.Growth.Restarts != 0 || m.indexCalls != 1 {
				t.Errorf("restarts %d, index calls %d", res.Growth.Restarts, m.indexCalls)
			}
		})
	}
}

// stopAfter returns a beforeInsert hook that cancels the run once n
// records have been inserted (the insert that reaches n goes through).
func stopAfter(cancel context.CancelFunc, n int64) func(int64, int) error {
	var once sync.Once
	return func(first int64, count int) error {
		if first+int64(count) >= n {
			once.Do(cancel)
		}
		return nil
	}
}

// TestResumeAfterAStop: a loader stopped by SIGTERM (ctx) mid-segment
// saves what it measured; the next one resumes at the record count it finds
// in the collection and loses nothing: its result holds every insert call
// and every checkpoint.
func TestResumeAfterAStop(t *testing.T) {
	cfg := testConfig(t, 5000, 1000, contract.PropGrowthInsertThreads, "2")
	m := newMemStore()
	ctx, cancel := context.WithCancel(context.Background())
	m.beforeInsert = stopAfter(cancel, 2500)
	res, err := runPhase(t, ctx, cfg, m)
	if err != nil {
		t.Fatal(err)
	}
	inFirst := m.inserted
	if inFirst < 2500 || inFirst >= 3000 {
		t.Fatalf("the stopped loader inserted %d records", inFirst)
	}
	checkResult(t, res, cfg, 2, results.StopCancelled, inFirst-2000)
	if _, ok := m.state[stateSegment]; !ok {
		t.Fatal("no segment state saved at the stop")
	}

	m.revive()
	var earlier []int
	res, err = Run(context.Background(), cfg, m, Options{StopGrace: time.Second, OnCheckpoint: func(row *results.GrowthCheckpoint, e bool) {
		if e {
			earlier = append(earlier, row.Index)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, res, cfg, 5, results.StopCompleted, 0)
	checkData(t, m, cfg, 5000)
	if n := res.Op(results.OpInsert).Total(); n != 5000 || m.inserted != 5000 {
		t.Errorf("%d insert calls over both loaders (%d documents), want 5000: the stopped loader's were kept", n, m.inserted)
	}
	c3 := res.Growth.Checkpoints[2]
	if !c3.Insert.Resumed || c3.Insert.Records != 1000 || c3.Insert.Latency.Count != 1000 {
		t.Errorf("the resumed segment: %+v", c3.Insert)
	}
	if res.Growth.Restarts != 1 || res.Growth.RepairedRecords != 0 || len(earlier) != 2 {
		t.Errorf("restarts %d, repaired %d, earlier rows %v", res.Growth.Restarts, res.Growth.RepairedRecords, earlier)
	}
	if _, ok := m.state[stateSegment]; ok {
		t.Error("the segment state outlived its row")
	}
}

// TestStopDuringASlowInsert: SIGTERM lands while an insert call takes
// longer than StopGrace; the call is cancelled, and that is a stop, not an
// insert failure: no error, no failed insert in the result, the segment
// saved for the next loader.
func TestStopDuringASlowInsert(t *testing.T) {
	cfg := testConfig(t, 5000, 1000)
	m := newMemStore()
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	m.beforeInsert = func(first int64, _ int) error {
		if first == 2500 {
			once.Do(cancel)
			time.Sleep(300 * time.Millisecond) // a slow server call, well past StopGrace
		}
		return nil
	}
	res, err := Run(ctx, cfg, m, Options{Hostname: "test", StopGrace: 20 * time.Millisecond})
	if err != nil {
		t.Fatalf("a stop during a slow insert failed the phase: %v", err)
	}
	if res.StopReason != results.StopCancelled || res.Op(results.OpInsert).Errors() != 0 {
		t.Errorf("stop %s, %d failed inserts", res.StopReason, res.Op(results.OpInsert).Errors())
	}
	if _, ok := m.state[stateSegment]; !ok {
		t.Error("no segment state saved at the stop")
	}
}

// TestResumeAfterAKill: a loader killed outright (its store dead: nothing
// it sends arrives, nothing is saved) with several threads leaves holes
// below the highest _id; the next one inserts them again, resumes, and its
// row says that the segment was resumed and measured in part.
func TestResumeAfterAKill(t *testing.T) {
	cfg := testConfig(t, 5000, 1000, contract.PropGrowthInsertThreads, "4", contract.PropGrowthInsertMode, "batch",
		contract.PropGrowthBatchSize, "10")
	m := newMemStore()
	var killed atomic.Bool
	m.beforeInsert = func(first int64, n int) error {
		if first >= 3200 && killed.CompareAndSwap(false, true) {
			m.kill()
		}
		return nil
	}
	res, err := runPhase(t, context.Background(), cfg, m)
	if !errors.Is(err, ErrInsertFailed) || !errors.Is(err, errDead) {
		t.Fatalf("the killed loader: %v", err)
	}
	if res == nil || len(res.Growth.Checkpoints) != 3 || res.StopReason != results.StopCancelled {
		t.Fatalf("the killed loader's result: %+v", res)
	}
	// Batches in flight on other threads: take some out below the top, as
	// a kill may leave them.
	m.revive()
	holes := []int64{3000, 3001, 3005, 3109, 3150}
	for _, id := range holes {
		m.remove(id)
	}
	maxID, _, _ := m.MaxID(context.Background())
	present, _ := m.CountIDs(context.Background(), 3000, maxID+1)
	missing := maxID + 1 - 3000 - present // these and the failed calls' batches
	var log bytes.Buffer
	res, err = Run(context.Background(), cfg, m, Options{StopGrace: time.Second, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, res, cfg, 5, results.StopCompleted, 0)
	checkData(t, m, cfg, 5000)
	c4 := res.Growth.Checkpoints[3]
	if !c4.Insert.Resumed || c4.Insert.Records != 4000-(maxID+1) {
		t.Errorf("the resumed segment measured %d records from %d (resumed %t), want %d", c4.Insert.Records, c4.Insert.FromRecords,
			c4.Insert.Resumed, 4000-(maxID+1))
	}
	if res.Growth.RepairedRecords != missing || missing < int64(len(holes)) || res.Growth.Restarts != 1 {
		t.Errorf("repaired %d (want %d), restarts %d", res.Growth.RepairedRecords, missing, res.Growth.Restarts)
	}
	if !strings.Contains(log.String(), "resuming (restart 1) at record "+strconv.FormatInt(maxID+1, 10)) {
		t.Errorf("log: %s", log.String())
	}
}

// TestResumeAtACheckpoint: a loader stopped during a checkpoint's queries
// leaves no row; the next one finds the collection at exactly that
// checkpoint's records and takes it again, with the segment's inserts.
func TestResumeAtACheckpoint(t *testing.T) {
	cfg := testConfig(t, 3000, 1000)
	m := newMemStore()
	ctx, cancel := context.WithCancel(context.Background())
	m.afterFind = func(q *QuerySpec, _ bson.Raw, _ int) {
		if q.Name == results.OpQ3 && len(m.docs) == 2000 {
			cancel()
		}
	}
	res, err := runPhase(t, ctx, cfg, m)
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, res, cfg, 1, results.StopCancelled, 1000)
	m.revive()
	res, err = runPhase(t, context.Background(), cfg, m)
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, res, cfg, 3, results.StopCompleted, 0)
	if c := res.Growth.Checkpoints[1]; !c.Insert.Resumed || c.Insert.Records != 1000 || res.Op(results.OpInsert).Total() != 3000 {
		t.Errorf("checkpoint 2 taken again: %+v; %d inserts", c.Insert, res.Op(results.OpInsert).Total())
	}
	checkData(t, m, cfg, 3000)
}

// TestResumeACompletedPhase: a loader restarted after the last checkpoint
// (its result was not written) reports the phase as it was.
func TestResumeACompletedPhase(t *testing.T) {
	cfg := testConfig(t, 2000, 1000)
	m := newMemStore()
	first, err := runPhase(t, context.Background(), cfg, m)
	if err != nil {
		t.Fatal(err)
	}
	again, err := runPhase(t, context.Background(), cfg, m)
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, again, cfg, 2, results.StopCompleted, 0)
	if m.inserted != 2000 || again.Growth.Restarts != 1 {
		t.Errorf("%d inserted, restarts %d", m.inserted, again.Growth.Restarts)
	}
	for i := range first.Ops {
		if !first.Ops[i].Latency.Equal(again.Ops[i].Latency) {
			t.Errorf("%s: the histograms differ once read back", first.Ops[i].Name)
		}
	}
}

// TestResumeRefusesWhatDoesNotAddUp: the loader never grows a collection it
// did not make or resumes with other settings.
func TestResumeRefusesWhatDoesNotAddUp(t *testing.T) {
	cfg := testConfig(t, 3000, 1000)
	g, _ := NewGenerator(cfg.Documents, cfg.TargetRecords)
	doc := func(i int64) bson.Raw { return g.AppendDocument(nil, i) }
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, m *memStore)
		cfg   Config
		want  string
	}{
		{"documents without state", func(t *testing.T, m *memStore) { _ = m.add(doc(0)) }, cfg,
			"holds documents (the highest _id is 0) but no Grow phase state"},
		{"other settings", func(t *testing.T, m *memStore) { runStopped(t, m, cfg, 1500) },
			testConfig(t, 3000, 1000, contract.PropGrowthSeed, "2"), `growth.seed: was "1", now "2"`},
		{"documents removed", func(t *testing.T, m *memStore) {
			runStopped(t, m, cfg, 1500)
			for id := int64(900); id < 1600; id++ {
				m.remove(id)
			}
		}, cfg, "holds records up to 900 but checkpoint 1 was taken at 1000"},
		{"documents beyond a checkpoint without its row", func(t *testing.T, m *memStore) {
			runStopped(t, m, cfg, 1500)
			_ = m.add(doc(2500))
		}, cfg, "beyond checkpoint 2 at 2000, which has no row"},
		{"state without meta", func(t *testing.T, m *memStore) {
			runStopped(t, m, cfg, 1500)
			delete(m.state, stateMetaID)
		}, cfg, `no "meta" document`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMemStore()
			tc.setup(t, m)
			inserted, indexed := m.inserted, m.indexCalls
			res, err := runPhase(t, context.Background(), tc.cfg, m)
			if err == nil || !strings.Contains(err.Error(), tc.want) || res != nil {
				t.Fatalf("got %v (result %v), want an error saying %q", err, res != nil, tc.want)
			}
			if !strings.Contains(err.Error(), "to start over") {
				t.Errorf("the error does not say how to start over: %v", err)
			}
			if m.inserted != inserted || m.indexCalls != indexed {
				t.Errorf("%d documents inserted after all, indexes created %d times", m.inserted-inserted, m.indexCalls)
			}
		})
	}
}

// runStopped runs a phase until n records are inserted and stops it.
func runStopped(t *testing.T, m *memStore, cfg Config, n int64) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m.beforeInsert = stopAfter(cancel, n)
	if _, err := runPhase(t, ctx, cfg, m); err != nil {
		t.Fatal(err)
	}
	m.revive()
}

// TestQueriesReturnWhatTheDataHolds checks each query class's filter and
// count against the generator: Q1 and Q3 find the documents of a number,
// Q2 those of the pair (paired: the same as Q1's; independent: at least the
// document the pair was taken from), Q4 the limit.
func TestQueriesReturnWhatTheDataHolds(t *testing.T) {
	for _, number1 := range []string{Number1Paired, Number1Independent} {
		t.Run(number1, func(t *testing.T) {
			cfg := testConfig(t, 4000, 2000, contract.PropGrowthNumber1, number1, contract.PropGrowthQ3Skip, "3",
				contract.PropGrowthQ3Limit, "4", contract.PropGrowthMatchesPerValue, "20")
			g, _ := NewGenerator(cfg.Documents, cfg.TargetRecords)
			m := newMemStore()
			var mu sync.Mutex
			seen := map[string]int{}
			m.afterFind = func(q *QuerySpec, filter bson.Raw, n int) {
				records := int64(len(m.docs))
				v, hasV := filter.Lookup(FieldNumber).Int64OK()
				w, hasW := filter.Lookup(FieldNumber1).Int64OK()
				var matches int64
				for i := range records {
					if (!hasV || g.Number(i) == v) && (!hasW || g.Number1(i) == w) {
						matches++
					}
				}
				var want int64
				switch q.Name {
				case results.OpQ1:
					want = min(matches, cfg.Q1Limit)
				case results.OpQ2:
					if number1 == Number1Paired && w != g.Pair(v) {
						t.Errorf("Q2 asks for %d, %d: not a pair", v, w)
					}
					if number1 == Number1Independent && matches == 0 {
						t.Errorf("Q2 asks for %d, %d, which no document has", v, w)
					}
					want = min(matches, cfg.Q2Limit)
				case results.OpQ3:
					want = max(0, min(matches-cfg.Q3Skip, cfg.Q3Limit))
				case results.OpQ4:
					if hasV || hasW {
						t.Errorf("Q4 filter %s", filter)
					}
					want = min(records, cfg.Q4Limit)
				}
				if int64(n) != want {
					t.Errorf("%s %s at %d records returned %d, want %d", q.Name, filter, records, n, want)
				}
				if (q.Name == results.OpQ1 || q.Name == results.OpQ3) && (!hasV || hasW || v < 0 || v >= g.Values()) {
					t.Errorf("%s filter %s", q.Name, filter)
				}
				mu.Lock()
				seen[q.Name]++
				mu.Unlock()
			}
			if _, err := runPhase(t, context.Background(), cfg, m); err != nil {
				t.Fatal(err)
			}
			for _, q := range results.GrowthQueryOps {
				if seen[q] == 0 {
					t.Errorf("no %s query", q)
				}
			}
		})
	}
}

// TestInsertFailureStopsThePhase: a failed acknowledged insert stops the
// phase with ErrInsertFailed, a partial result, and the segment saved for a
// resume.
func TestInsertFailureStopsThePhase(t *testing.T) {
	cfg := testConfig(t, 3000, 1000)
	m := newMemStore()
	boom := errors.New("boom")
	m.beforeInsert = func(first int64, _ int) error {
		if first == 1500 {
			return boom
		}
		return nil
	}
	res, err := runPhase(t, context.Background(), cfg, m)
	if !errors.Is(err, ErrInsertFailed) || !errors.Is(err, boom) || !strings.Contains(err.Error(), "record 1500") {
		t.Fatalf("error %v", err)
	}
	if res == nil || res.StopReason != results.StopCancelled || res.Op(results.OpInsert).Errors() != 1 {
		t.Fatalf("result %+v", res)
	}
	if _, ok := m.state[stateSegment]; !ok {
		t.Error("the failed segment was not saved")
	}
	m.revive()
	res, err = runPhase(t, context.Background(), cfg, m)
	if err != nil {
		t.Fatal(err)
	}
	if op := res.Op(results.OpInsert); op.Total() != 3001 || op.Errors() != 1 {
		t.Errorf("INSERT over both loaders: %v, want 3000 OK and the failed one", op.Statuses)
	}
	checkData(t, m, cfg, 3000)
}
